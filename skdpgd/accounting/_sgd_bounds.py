r"""Privacy of one sampled noisy SGD run: the bounds that cover it, their minimum, calibration.

A projected noisy SGD run may be covered by several theorems at once; each is a valid
upper bound on the same quantity, so their minimum is one too, and the report names the
one that binds. ``solver="sgd"`` runs one of two samplers:

=========================  ==========  ================================================
bound                      sampling    source
=========================  ==========  ================================================
``"composition"``          poisson     PLD of the Poisson-subsampled Gaussian,
                                       replace-one (:func:`poisson_sgd_epsilon`)
``"composition"``          uniform     RDP of the Gaussian subsampled without
                                       replacement, replace-one: Wang, Balle,
                                       Kasiviswanathan 2019, Theorem 27
                                       (:func:`~skdpgd.accounting._uniform_sgd.
                                       uniform_sgd_composition_epsilon`)
``"altschuler_talwar"``    uniform     Altschuler and Talwar (NeurIPS 2022), eq. (3.3),
                                       last iterate, convex, a ball of diameter D,
                                       eta <= 2/M (:func:`~skdpgd.accounting.
                                       _altschuler_talwar.altschuler_talwar_rdp`)
=========================  ==========  ================================================

A Poisson report states why Altschuler-Talwar does not cover it (:data:`NOT_APPLICABLE`):
the theorem is stated and proved for fixed-size batches drawn uniformly without
replacement, and a Poisson batch larger than b can make the step expansive.

Not used: Ryffel, Bach, Pointcheval (2022) Theorem 3.2 (it does not hold as stated; see
``tests/accounting/test_dp_sgld_theorem_counterexample.py`` and ``docs/sgd_bounds.md``);
Bok-Su-Altschuler (2024) Theorems 4.9 (strongly convex) and 4.10 (convex, bounded domain)
for noisy SGD: their displayed formulas are missing from the text of the paper available
here (the statements end at "NoisySGD is -DP where"), and the shifted-interpolation proof
composes DRS22's symmetrised subsampling operator, which dp-accounting's events understate
(``docs/sgd_bounds.md``).
"""

import math
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import BoundNotApplicableError
from ._altschuler_talwar import AT_ORDERS, altschuler_talwar_rdp, check_altschuler_talwar
from ._checks import check_positive, check_probability
from ._gdp import epsilon_delta_to_gdp
from ._rdp import rdp_to_epsilon
from ._sampled_sgd import (
    _check_run,
    _needs_closed_form,
    _poisson_pld_epsilon,
    _resolve_discretization,
    _run_mu_scale,
    _unsampled_gdp_epsilon,
    _unsampled_mu,
    check_sgd_epsilon,
    clt_noise_multiplier,
    poisson_sgd_epsilon,
    search_noise,
)
from ._uniform_sgd import uniform_sgd_composition_epsilon

#: The samplers accounted here (the ones ``solver="sgd"`` runs).
SAMPLINGS = ("poisson", "uniform")

#: (sampling, bound name) -> the theorem it comes from.
THEOREMS = {
    ("poisson", "composition"): "composition of the Poisson-subsampled Gaussian, "
    "replace-one, PLD (dp-accounting; Doroshenko et al. 2022)",
    ("uniform", "composition"): "composition of the Gaussian subsampled without "
    "replacement, replace-one, RDP (Wang, Balle, Kasiviswanathan 2019, Theorem 27)",
    ("uniform", "altschuler_talwar"): "Altschuler and Talwar (2022), eq. (3.3): last "
    "iterate, convex on a bounded domain (a burn-in, then no further loss)",
}

#: Theorems about sampled SGD that do not cover skdpgd's run, and why (every report
#: lists them).
NOT_APPLICABLE = {
    "altschuler_talwar": "stated and proved for fixed-size batches drawn uniformly without "
    "replacement; with Poisson sampling and the fixed normaliser b a large realised batch "
    "can make the step expansive",
}


@dataclass(frozen=True)
class SampledSGDBounds:
    """Every bound evaluated for one run, and the minimum.

    Attributes
    ----------
    epsilon : float
        min over the bounds that apply.
    binding_bound : str
        Name of the smallest bound (``"composition"`` on ties).
    epsilons : dict
        name -> epsilon for every bound that applies.
    not_applicable : dict
        name -> why the theorem does not cover this run.
    theorem : str
        The theorem of ``binding_bound`` (``THEOREMS``).
    """

    epsilon: float
    binding_bound: str
    epsilons: dict = field(default_factory=dict)
    not_applicable: dict = field(default_factory=dict)
    theorem: str = ""


def check_sampling(sampling):
    """Validate a sampler's name (one of ``SAMPLINGS``).

    Parameters
    ----------
    sampling : str
        The sampler.

    Returns
    -------
    str
        ``sampling``.
    """
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    return sampling


def _altschuler_talwar_epsilon(noise_std, n_steps, delta, run):
    """epsilon of :func:`altschuler_talwar_rdp` at delta (rdp_to_epsilon over AT_ORDERS)."""
    rdp = altschuler_talwar_rdp(AT_ORDERS, noise_std, n_steps, **run)
    if np.all(rdp == 0.0):
        return 0.0
    return rdp_to_epsilon(AT_ORDERS, rdp, delta) if np.any(np.isfinite(rdp)) else math.inf


def sampled_sgd_bounds(
    noise_std,
    n_steps,
    *,
    delta,
    sampling,
    batch_size,
    n_samples,
    gradient_bound,
    discretization=None,
    learning_rate=None,
    smoothness=None,
    diameter=None,
):
    r"""(epsilon, delta) of a sampled noisy SGD run: the minimum over the bounds that cover it.

    Parameters
    ----------
    noise_std, n_steps : float, int
        sigma (on the averaged gradient) and K.
    delta : float
        Target delta.
    sampling : {"poisson", "uniform"}
        How :func:`skdpgd.optim.noisy_sampled_gradient_descent` drew the batches.
    batch_size, n_samples : int
        b (the expected size for Poisson, the exact size for uniform) and n.
    gradient_bound : float
        L, bound on every per-example gradient norm over the domain.
    discretization : float or None
        PLD grid of the Poisson composition; None: automatic
        (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`).
    learning_rate, smoothness : float or None
        eta and M (the smoothness of the regularised per-example objective): with
        ``sampling="uniform"`` and a finite ``diameter``, Altschuler-Talwar applies when
        eta <= 2/M.
    diameter : float or None
        D of the projection set (2r for the ball of radius r); None or ``inf``: no
        projection.

    Returns
    -------
    SampledSGDBounds
        The epsilon of every bound that covers the run, their minimum and the binding one
        (``"composition"`` on ties), and why the others do not apply.
    """
    check_sampling(sampling)
    common = dict(batch_size=batch_size, n_samples=n_samples, gradient_bound=gradient_bound)
    not_applicable = {}
    if sampling == "poisson":
        epsilons = {"composition": poisson_sgd_epsilon(
            noise_std, n_steps, delta=delta, discretization=discretization, **common)}
        not_applicable.update(NOT_APPLICABLE)
    else:
        epsilons = {"composition": uniform_sgd_composition_epsilon(
            noise_std, n_steps, delta=delta, **common)}
        try:
            check_altschuler_talwar(learning_rate=learning_rate, smoothness=smoothness,
                                    diameter=diameter)
        except BoundNotApplicableError as exc:
            not_applicable["altschuler_talwar"] = str(exc)
        else:
            run = dict(common, learning_rate=learning_rate, smoothness=smoothness,
                       diameter=diameter)
            epsilons["altschuler_talwar"] = _altschuler_talwar_epsilon(
                noise_std, n_steps, check_probability("delta", delta), run)
    binding = min(epsilons, key=lambda name: (epsilons[name], name != "composition"))
    return SampledSGDBounds(epsilons[binding], binding, epsilons, not_applicable,
                            THEOREMS[sampling, binding])


def _uniform_at_run(kwargs):
    """The Altschuler-Talwar arguments of a uniform run it covers, else None."""
    if kwargs["sampling"] != "uniform":
        return None
    try:
        check_altschuler_talwar(learning_rate=kwargs["learning_rate"],
                                smoothness=kwargs["smoothness"], diameter=kwargs["diameter"])
    except BoundNotApplicableError:
        return None
    return {key: kwargs[key] for key in ("batch_size", "n_samples", "gradient_bound",
                                         "learning_rate", "smoothness", "diameter")}


def calibrate_sampled_sgd(
    epsilon,
    delta,
    *,
    n_steps,
    sampling,
    batch_size,
    n_samples,
    gradient_bound,
    discretization=None,
    rtol=2e-3,
    learning_rate=None,
    smoothness=None,
    diameter=None,
):
    r"""Smallest noise std (to ``rtol``) whose :func:`sampled_sgd_bounds` epsilon is <= target.

    Every bound decreases as sigma grows, so their minimum does too; the bracketing
    search of :func:`search_noise` returns a sigma whose epsilon was computed and is at
    most ``epsilon`` (conservative by construction), starting from the CLT guess of
    :func:`~skdpgd.accounting._sampled_sgd.clt_noise_multiplier` (planning only). With
    the one bound that covers a Poisson run it solves the equation of
    :func:`calibrate_poisson_sgd` (:ref:`PLD composition <pld-composition>`), which
    brackets z = sigma b / L instead of sigma: the two answers agree to ``rtol``. A
    uniform run with a bounded domain is calibrated on the minimum of its composition
    and Altschuler-Talwar bounds.

    Parameters
    ----------
    epsilon : float
        Target epsilon in (0, ``SGD_MAX_EPSILON``], or ``inf`` (no noise).
    delta : float
        Target delta in (0, 1).
    n_steps : int
        K >= 0, the number of steps.
    sampling : {"poisson", "uniform"}
        How :func:`skdpgd.optim.noisy_sampled_gradient_descent` draws the batches.
    batch_size : int
        b in [1, n], the expected (Poisson) or exact (uniform) batch size.
    n_samples : int
        n >= 1, the number of rows (public).
    gradient_bound : float
        L >= 0, bound on every per-example gradient norm.
    discretization : float or None, default=None
        PLD grid step; None: automatic
        (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`).
    rtol : float, default=2e-3
        Relative width of the final bracket on sigma; the answer is its upper end.
    learning_rate, smoothness, diameter : float or None, default=None
        eta, M and D of a uniform run (:func:`sampled_sgd_bounds`); ignored for Poisson.

    Returns
    -------
    noise_std : float
        sigma on the averaged gradient, whose :func:`sampled_sgd_bounds` epsilon was
        computed and is at most ``epsilon``; 0.0 when ``epsilon`` is inf, K = 0 or L = 0.

    Raises
    ------
    ValueError
        When ``epsilon`` is finite and above ``SGD_MAX_EPSILON`` (1000)
        (:func:`check_sgd_epsilon`), or ``sampling`` is not one of ``SAMPLINGS``.
    RuntimeError
        When no noise level up to 1e12 meets the target.
    """
    epsilon = check_sgd_epsilon(epsilon)
    delta = check_probability("delta", delta)
    check_sampling(sampling)
    if epsilon == math.inf or n_steps == 0 or gradient_bound == 0:
        return 0.0
    kwargs = dict(
        delta=delta, sampling=sampling, batch_size=batch_size, n_samples=n_samples,
        gradient_bound=gradient_bound, discretization=discretization,
        learning_rate=learning_rate, smoothness=smoothness, diameter=diameter,
    )

    at_run = _uniform_at_run(kwargs)
    uniform = dict(batch_size=batch_size, n_samples=n_samples, gradient_bound=gradient_bound)
    bounds = [  # a uniform run's two bounds, the one that was smaller last time first
        lambda sigma: _altschuler_talwar_epsilon(sigma, n_steps, delta, at_run),
        lambda sigma: uniform_sgd_composition_epsilon(sigma, n_steps, delta=delta, **uniform),
    ]

    def eps_of(sigma):
        if at_run is None:
            return sampled_sgd_bounds(sigma, n_steps, **kwargs).epsilon
        # the search reads only "eps_of(sigma) <= epsilon", and min(a, b) <= epsilon as
        # soon as one is: the same noise as the minimum, often for one bound's cost
        first = bounds[0](sigma)
        if first <= epsilon:
            return first
        second = bounds[1](sigma)
        if second < first:
            bounds.reverse()
        return min(first, second)

    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    z0 = float(clt_noise_multiplier(target_mu, batch_size / n_samples, n_steps))
    start = z0 * float(gradient_bound) / batch_size
    return search_noise(eps_of, epsilon, start, rtol=rtol)


def calibrate_poisson_sgd(
    epsilon,
    delta,
    *,
    n_steps,
    batch_size,
    n_samples,
    gradient_bound,
    discretization=None,
    rtol=2e-3,
):
    r"""Smallest noise std (to ``rtol``) that makes a Poisson noisy SGD run (epsilon, delta)-DP.

    A bracketing search on log z over :func:`poisson_sgd_epsilon`, which decreases in z:
    start from the CLT guess, widen by factors of 1.5 until the bracket
    [z_lo, z_hi] has eps(z_lo) > epsilon >= eps(z_hi), then bisect until
    z_hi / z_lo < 1 + rtol. The returned noise is z_hi's, whose epsilon was computed and
    is at most ``epsilon``: conservative by construction (Opacus/dp_accounting style).
    The noise on the averaged gradient is then :math:`\sigma = z L / b`
    (:ref:`PLD composition <pld-composition>`).

    Parameters
    ----------
    epsilon : float
        Target epsilon in (0, ``SGD_MAX_EPSILON``], or ``inf`` (no noise).
    delta : float
        Target delta in (0, 1).
    n_steps : int
        K >= 0, the number of steps.
    batch_size : int
        b in [1, n], the expected batch size; q = b / n.
    n_samples : int
        n >= 1, the number of rows (public).
    gradient_bound : float
        L >= 0, bound on every per-example gradient norm.
    discretization : float or None, default=None
        PLD grid step of every evaluation; None: :func:`pld_discretization` of each
        evaluated run's scale (as in :func:`poisson_sgd_epsilon`).
    rtol : float, default=2e-3
        Relative width of the final bracket on z; the answer is its upper end.

    Returns
    -------
    noise_std : float
        sigma, whose :func:`poisson_sgd_epsilon` was computed and is at most
        ``epsilon``; 0.0 when ``epsilon`` is inf, K = 0 or L = 0.

    Raises
    ------
    ValueError
        When ``epsilon`` is finite and above ``SGD_MAX_EPSILON`` (1000).
    RuntimeError
        When no noise multiplier up to 1e12 meets the target.
    """
    epsilon = check_sgd_epsilon(epsilon)
    delta = check_probability("delta", delta)
    _, k, b, n, lip = _check_run(1.0, n_steps, batch_size, n_samples, gradient_bound)
    rtol = check_positive("rtol", rtol)
    if epsilon == math.inf or k == 0 or lip == 0.0:
        return 0.0
    q = b / n

    def eps_of(z):
        if _needs_closed_form(0.0, ((q, float(z), k),)):
            return _unsampled_gdp_epsilon(_unsampled_mu(((q, float(z), k),)), delta)
        d = _resolve_discretization(discretization, _run_mu_scale(q, float(z), k))
        return _poisson_pld_epsilon(q, float(z), k, delta, d)

    z0 = float(clt_noise_multiplier(epsilon_delta_to_gdp(epsilon, delta), q, k))
    return search_noise(eps_of, epsilon, z0, rtol=rtol) * lip / b
