r"""Composition with amplification by subsampling for noisy SGD (replace-one neighbours).

The numerics come from Google's ``dp-accounting`` (optional extra ``skdpgd[sgd]``):

- Poisson sampling: the privacy-loss-distribution (PLD) accountant with
  ``NeighboringRelation.REPLACE_ONE`` and ``PoissonSampledDpEvent(q, GaussianDpEvent(z))``.
  For REPLACE_ONE the library's dominating pair is (``dp_accounting.pld.
  privacy_loss_mechanism.AdditiveNoisePrivacyLoss``, "REPLACE adjacency type with
  sub-sampling")

  .. math::

      \big(q\,\mathcal N(-1, z^2) + (1-q)\,\mathcal N(0, z^2),\;
           q\,\mathcal N(1, z^2) + (1-q)\,\mathcal N(0, z^2)\big),

  the output of a Poisson-subsampled sum of vectors of norm at most 1 with
  :math:`\mathcal N(0, z^2 I)` noise when one vector is replaced by its opposite. Our step
  adds :math:`\sigma b\,\mathcal N(0, I)` to a sum of per-example gradients of norm
  at most L (:func:`skdpgd.optim.noisy_sampled_gradient_descent`), so
  :math:`z = \sigma b / L`. At q = 1 this is exactly the Gaussian mechanism with
  replace-one shift 2L, i.e. composition ``composition_gdp`` with S = 2L (tested).
  DP-SGD libraries call z the noise multiplier (relative to the clipping norm L).

Poisson sampling is the only one accounted (and the only one the loop draws): fixed-size
batches drawn without replacement are neither run nor accounted (docs/sgd_bounds.md).

Only upper bounds leave this module: the PLD is built with the library's pessimistic
discretisation, and :func:`search_noise`, the search of the calibrations
(:mod:`._sgd_bounds`), returns a noise level whose epsilon was checked to be at most the
target.
"""

import math
from functools import lru_cache

import numpy as np

from ._checks import check_count, check_positive, check_probability
from ._gdp import gdp_to_epsilon
from ._inverter import TargetUnreachableError, invert_monotone

#: Finest PLD discretisation (privacy-loss grid step). Smaller is tighter and slower;
#: the discretisation is pessimistic, so any value gives a valid upper bound.
DEFAULT_DISCRETIZATION = 1e-3

#: The automatic grid step is at least this fraction of the run's epsilon scale
#: (:func:`pld_discretization`), so a PLD has about ``1 / PLD_RELATIVE_RESOLUTION`` points
#: at most, whatever the budget.
PLD_RELATIVE_RESOLUTION = 1e-5


def _run_mu_scale(q, z, k):
    r"""A GDP-like scale of K Poisson steps (q, z): sets the PLD grid, never a claim.

    The smaller of two numbers. (i) :math:`2\sqrt K / z`: subsampling is a
    post-processing of the unsampled pair (output the mechanism's sample with
    probability q, a fresh draw of :math:`\mathcal N(0, z^2)` otherwise), so one step is
    at most :math:`2/z`-GDP (replace-one shift 2) and K steps
    :math:`2\sqrt K/z`-GDP (Dong, Roth, Su 2022, Corollary 3.3). (ii) The CLT scale
    :math:`q\sqrt{4K\sinh(1/z^2)}` of :func:`clt_noise_multiplier`, which accounts for
    the amplification at small q.
    """
    if k == 0 or q == 0.0 or z == math.inf:
        return 0.0
    if z == 0.0:
        return math.inf
    unsampled = 2.0 * math.sqrt(k) / z
    x = 1.0 / (z * z)
    clt = math.inf if x > 700.0 else q * math.sqrt(4.0 * k * math.sinh(x))
    return min(unsampled, clt)


def pld_discretization(mu_scale):
    r"""Automatic PLD grid step: ``min(1, max(1e-3, 1e-5 * eps_scale))``.

    ``eps_scale`` :math:`= \mu^2/2 + 6\mu` approximates the epsilon of a mu-GDP
    mechanism at the deltas in use (:math:`\epsilon \approx \mu^2/2 + \mu
    \sqrt{2\log(1/\delta)}`). A PLD's support spans a few times its epsilon, so
    scaling the grid step with it bounds the number of grid points (time and memory)
    for any budget; below epsilon ~ 100 the step is the fixed 1e-3, and it never
    exceeds 1 (the scale of :func:`_run_mu_scale` can overstate epsilon a thousandfold;
    measured: at most ~5e5 points for every run with z >= ``PLD_MIN_NOISE_MULTIPLIER``
    tried). The discretisation is pessimistic at every step, so the result is an upper
    bound whatever the step; a coarser step overstates epsilon a little (measured for
    q=0.002, z=0.0917, K=6000: 1592.805 at step 1e-3, 1592.8 at 0.1, 1595.0 at 1).
    """
    mu = float(mu_scale)
    if mu == math.inf:
        return math.inf
    eps_scale = 0.5 * mu * mu + 6.0 * mu
    return min(max(DEFAULT_DISCRETIZATION, PLD_RELATIVE_RESOLUTION * eps_scale), 1.0)


#: Below this noise multiplier one step's privacy loss exceeds ~1e4 (2 / z^2), far
#: beyond what the PLD's float64 epsilon can resolve (``exp(-loss)`` underflows past
#: ~745) and its grid would need millions of points: such runs are accounted by the
#: closed form of :func:`_unsampled_gdp_epsilon` instead.
PLD_MIN_NOISE_MULTIPLIER = 0.015

#: Above this noise multiplier the library's privacy loss overflows (it squares z);
#: such runs are nearly free and get the closed form too (at most 2 sqrt(K) / z-GDP).
PLD_MAX_NOISE_MULTIPLIER = 1e6

#: Past this epsilon scale (:func:`pld_discretization`) even the coarsest grid (step 1)
#: would need millions of points (e.g. K = 1e9 steps); the epsilon is then far beyond
#: anything the PLD resolves (~700), and the closed form is used.
PLD_MAX_EPSILON_SCALE = 1e6

#: More steps than this in one run and the library's K-fold composition takes minutes
#: (measured: 1.4 s at K = 1e6, 19 s at K = 1e7 for q = 0.1, z = 10): the closed form is
#: used instead (at K = 1e7 that run is already beyond epsilon 2000).
PLD_MAX_STEPS = 10**7


def _unsampled_mu(runs):
    r""":math:`2\sqrt K / z` of each run (q, z, K) that touches data (inf when z = 0)."""
    return [2.0 * math.sqrt(k) / z if z > 0.0 else math.inf
            for q, z, k in runs if k > 0 and q > 0.0 and z != math.inf]


def _needs_closed_form(mu, runs):
    """True when the PLD of a mu-GDP part and these Poisson runs cannot be evaluated."""
    live = [(q, z, k) for q, z, k in runs if k > 0 and q > 0.0 and z != math.inf]
    if any(not PLD_MIN_NOISE_MULTIPLIER <= z <= PLD_MAX_NOISE_MULTIPLIER or k > PLD_MAX_STEPS
           for _, z, k in live):
        return True
    scale = math.hypot(mu, *(_run_mu_scale(q, z, k) for q, z, k in live))
    return 0.5 * scale * scale + 6.0 * scale > PLD_MAX_EPSILON_SCALE


def _unsampled_gdp_epsilon(mus, delta):
    r"""epsilon of :math:`\sqrt{\sum_j \mu_j^2}`-GDP: the closed form where the PLD fails.

    Poisson subsampling is a post-processing of the unsampled Gaussian pair (with
    probability q output the mechanism's draw, otherwise a fresh :math:`\mathcal N(0, z^2)`
    draw), so a step with noise multiplier z is :math:`2/z`-GDP under replace-one (shift
    2); K steps and a :math:`\mu_0`-GDP part compose to
    :math:`\sqrt{\mu_0^2 + 4K/z^2}`-GDP (Dong, Roth, Su 2022, Corollary 3.3), converted
    by their Corollary 2.13 (:func:`skdpgd.accounting.gdp_to_epsilon`). An upper bound
    (amplification is ignored); used only where the PLD cannot be evaluated (tiny or
    huge noise, astronomically many steps).
    """
    mu = math.hypot(*mus) if mus else 0.0
    if not mu < 1e100:  # gdp_to_epsilon's float range; epsilon is astronomically large
        return math.inf
    return float(gdp_to_epsilon(mu, delta))


def poisson_run_discretization(noise_std, n_steps, *, batch_size, n_samples, gradient_bound):
    """The grid step :func:`poisson_sgd_epsilon` uses for this run by default."""
    sigma, k, b, n, lip = _check_run(noise_std, n_steps, batch_size, n_samples, gradient_bound)
    if k == 0 or lip == 0.0 or sigma in (0.0, math.inf):
        return DEFAULT_DISCRETIZATION
    z = poisson_noise_multiplier(sigma, batch_size=b, gradient_bound=lip)
    return pld_discretization(_run_mu_scale(b / n, z, k))


def _resolve_discretization(discretization, mu_scale):
    if discretization is None:
        return pld_discretization(mu_scale)
    return check_positive("discretization", discretization)


#: Largest finite epsilon the sampled-SGD calibration and planner accept. Beyond it
#: the PLD's float64 epsilon cannot resolve the privacy losses involved (``exp(-loss)``
#: underflows past ~745; the library then returns coarse, still conservative values) and
#: the target protects nothing anyway; ``epsilon=inf`` (no noise) stays available.
SGD_MAX_EPSILON = 1000.0


def check_sgd_epsilon(epsilon):
    """epsilon for sampled-SGD calibration: in (0, SGD_MAX_EPSILON] or inf, else ValueError."""
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    if SGD_MAX_EPSILON < epsilon < math.inf:
        raise ValueError(
            f"epsilon={epsilon!r} is above {SGD_MAX_EPSILON:g}, the largest budget the "
            "sampled-SGD accountant calibrates (solver='sgd'): its float64 privacy-loss "
            "distribution cannot resolve such losses, and such a budget protects nothing. "
            "Use epsilon <= 1000, epsilon=numpy.inf for a noiseless run, or solver='gd' "
            "(closed-form accounting at any epsilon)."
        )
    return epsilon


def _dp_accounting():
    """Import dp_accounting or say which extra installs it."""
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "sampled-SGD accounting needs the optional dependency 'dp-accounting'; install "
            "it with `pip install skdpgd[sgd]` (or `pip install dp-accounting`)."
        ) from exc
    return dp_accounting


def _check_run(noise_std, n_steps, batch_size, n_samples, gradient_bound):
    sigma = check_positive("noise_std", noise_std, allow_zero=True, allow_inf=True)
    k = check_count("n_steps", n_steps, minimum=0)
    b = check_count("batch_size", batch_size)
    n = check_count("n_samples", n_samples)
    if b > n:
        raise ValueError(f"batch_size must be <= n_samples={n}, got {b}.")
    lip = check_positive("gradient_bound", gradient_bound, allow_zero=True)
    return sigma, k, b, n, lip


def poisson_noise_multiplier(noise_std, *, batch_size, gradient_bound):
    r"""z = sigma b / L: DP-SGD's noise multiplier of a Poisson step (see module doc)."""
    return float(noise_std) * float(batch_size) / float(gradient_bound)


@lru_cache(maxsize=16)
def _poisson_pld_accountant(q, z, k, discretization):
    """The composed PLD accountant (a small cache: other deltas are then cheap queries;
    each holds its PMF, so the cache stays small to bound memory)."""
    dpa = _dp_accounting()
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(
        dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=discretization
    )
    accountant.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), k)
    return accountant


@lru_cache(maxsize=4096)
def _poisson_pld_epsilon(q, z, k, delta, discretization):
    return float(_poisson_pld_accountant(q, z, k, discretization).get_epsilon(delta))


def poisson_sgd_epsilon(
    noise_std,
    n_steps,
    *,
    delta,
    batch_size,
    n_samples,
    gradient_bound,
    discretization=None,
):
    r"""Epsilon of K Poisson-sampled noisy SGD steps by composition, replace-one (PLD).

    Every iterate is released in this analysis (so it bounds the last one too): K-fold
    composition of the Poisson-subsampled Gaussian mechanism with rate q = b/n and noise
    multiplier :math:`z = \sigma b/L`, computed by ``dp_accounting``'s PLD accountant
    (Koskela, Jalko, Honkela 2020; Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022,
    "Connect the dots", as implemented by the library, pessimistic estimate).

    Parameters
    ----------
    noise_std : float
        sigma, noise standard deviation on the averaged batch gradient.
    n_steps : int
        K >= 0.
    delta : float
        Target delta in (0, 1).
    batch_size, n_samples : int
        Expected batch size b and n; q = b / n.
    gradient_bound : float
        L, bound on every per-example gradient norm (replace-one sensitivity of the sum 2L).
    discretization : float or None, default=None
        The PLD's ``value_discretization_interval``; None: :func:`pld_discretization` of
        the run's scale (1e-3 below epsilon ~ 100, relative beyond, so the work is
        bounded for any run). Runs the PLD cannot evaluate (noise multiplier z below
        ``PLD_MIN_NOISE_MULTIPLIER`` or above ``PLD_MAX_NOISE_MULTIPLIER``, more than
        ``PLD_MAX_STEPS`` steps, or an epsilon scale above ``PLD_MAX_EPSILON_SCALE``) get
        the closed-form bound of
        :func:`_unsampled_gdp_epsilon`.

    Returns
    -------
    float
        epsilon (``inf`` when sigma = 0 and the run touches data).
    """
    sigma, k, b, n, lip = _check_run(noise_std, n_steps, batch_size, n_samples, gradient_bound)
    delta = check_probability("delta", delta)
    if discretization is not None:
        check_positive("discretization", discretization)
    if k == 0 or lip == 0.0 or sigma == math.inf:
        return 0.0
    if sigma == 0.0:
        return math.inf
    z = poisson_noise_multiplier(sigma, batch_size=b, gradient_bound=lip)
    if _needs_closed_form(0.0, ((b / n, z, k),)):
        return _unsampled_gdp_epsilon(_unsampled_mu(((b / n, z, k),)), delta)
    d = _resolve_discretization(discretization, _run_mu_scale(b / n, z, k))
    return _poisson_pld_epsilon(b / n, z, k, delta, d)


def composed_replace_one_epsilon(
    delta, *, gaussian_mu=0.0, poisson_runs=(), discretization=None
):
    r"""Epsilon of a mu-GDP mechanism composed with Poisson noisy SGD runs (replace-one, PLD).

    What a :class:`~skdpgd.PrivacyLedger` needs to compose full-batch fits (exactly
    mu-GDP) with ``solver="sgd"`` fits (known by their runs, not by a GDP parameter). The
    mu-GDP part is ``dp_accounting``'s ``GaussianDpEvent(2 / mu)`` under
    ``REPLACE_ONE``: the library gives the Gaussian mechanism a replace-one shift of 2
    noise-multiplier units, so that event is exactly mu-GDP (tested against
    :func:`skdpgd.accounting.gdp_to_epsilon`). Each run (q, z, K) is K-fold
    ``PoissonSampledDpEvent(q, GaussianDpEvent(z))`` as in :func:`poisson_sgd_epsilon`.
    All are composed by one PLD accountant (adaptive composition of the dominating
    pairs: Doroshenko et al. 2022) and epsilon is read at ``delta`` (pessimistic
    discretisation: an upper bound).

    Parameters
    ----------
    delta : float
        The delta in (0, 1) at which epsilon is read.
    gaussian_mu : float, default=0
        GDP parameter of the Gaussian part (0: none; inf: epsilon is inf).
    poisson_runs : tuple of (q, z, K)
        Sampling rate, noise multiplier relative to L, number of steps.
    discretization : float or None
        PLD grid step; None: :func:`pld_discretization` of the composed scale
        :math:`\sqrt{\mu^2 + \sum_j s_j^2}` (``s_j`` the scale of run j).

    Returns
    -------
    float
        epsilon of the composition at ``delta``, an upper bound: 0 when nothing touches
        data, ``inf`` when ``gaussian_mu`` is inf or a run has z = 0 and K > 0; the
        closed form of :func:`_unsampled_gdp_epsilon` where the PLD cannot be evaluated
        (as in :func:`poisson_sgd_epsilon`).
    """
    delta = check_probability("delta", delta)
    mu = check_positive("gaussian_mu", gaussian_mu, allow_zero=True, allow_inf=True)
    runs = tuple((float(q), float(z), int(k)) for q, z, k in poisson_runs)
    if mu == math.inf or any(z == 0.0 and k > 0 for _, z, k in runs):
        return math.inf
    if _needs_closed_form(mu, runs):
        return _unsampled_gdp_epsilon([mu, *_unsampled_mu(runs)], delta)
    scale = math.sqrt(mu * mu + sum(_run_mu_scale(q, z, k) ** 2 for q, z, k in runs))
    d = _resolve_discretization(discretization, scale)
    return _composed_epsilon(float(mu), runs, float(delta), float(d))


@lru_cache(maxsize=1024)
def _composed_epsilon(mu, runs, delta, discretization):
    dpa = _dp_accounting()
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(
        dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=discretization
    )
    touched = False
    if mu > 0.0:
        accountant.compose(dpa.GaussianDpEvent(2.0 / mu))
        touched = True
    for q, z, k in runs:
        if k > 0 and q > 0.0 and z != math.inf:
            accountant.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), k)
            touched = True
    return float(accountant.get_epsilon(delta)) if touched else 0.0


def clt_noise_multiplier(target_mu, q, k):
    r"""z with q sqrt(4 K sinh(1/z^2)) = mu*: a CLT approximation, for planning only.

    For the replace-one pair of the module doc the per-step KL divergence is
    :math:`q^2(e^{1/z^2} - e^{-1/z^2}) + O(q^3)`; matching K of them with the KL of
    mu-GDP, mu^2/2, gives this (Bu, Dong, Long, Su 2020 use the same CLT for
    add/remove). Used only to start the exact search and to rank candidate plans: it
    never enters a privacy claim. Vectorised over q and k.
    """
    ratio = target_mu * target_mu / (4.0 * np.asarray(k, float) * np.asarray(q, float) ** 2)
    return 1.0 / np.sqrt(np.arcsinh(ratio))


def search_noise(eps_of, epsilon, start, *, rtol=2e-3, ceiling=1e12):
    """Smallest x (to rtol) with eps_of(x) <= epsilon, for eps_of non-increasing in x.

    :func:`~skdpgd.accounting._inverter.invert_monotone` from ``start`` by factors of 1.5,
    bisecting on log x until hi / lo <= 1 + rtol; returns hi, whose eps_of was computed and
    is <= epsilon (so the answer is conservative whatever the precision). Raises
    RuntimeError when no x up to ``ceiling`` meets the target.
    """
    try:
        return invert_monotone(eps_of, epsilon, lower=0.0, upper=ceiling, increasing=False,
                               start=float(start), growth=1.5, rtol=rtol)
    except TargetUnreachableError:
        raise RuntimeError(
            f"no noise level up to {ceiling:g} meets epsilon={epsilon!r}; please "
            "report this as a bug."
        ) from None
