r"""Planning Gram-preconditioned noisy GD: K, the momentum and lam by a public utility proxy.

Not privacy maths (that is :mod:`skdpgd.accounting._preconditioned`: the composition
bound, the calibration of (tau, sigma) and the report). Two parts, in this order:

* **The proxy**: :func:`preconditioned_utility_proxy` states it (a public quadratic model
  of Gram-preconditioned noisy GD); ``_search_tables`` scores it, for the planner, for
  every setting, pair (momentum, lam) and number of steps in one recursion
  (:func:`~skdpgd.solvers._utility.error_moments`), reducing each step's moments over the
  spectrum as they come.
* **The planner**: the public margin m of the Gram noise (a convergence matter,
  :func:`gram_noise_margin`), and :func:`plan_preconditioned_gd`, which minimises the
  proxy of the run and has the accountant calibrate the winner's noise
  (:func:`calibrate_preconditioned_gd`). The r0 it plans with is
  :func:`~skdpgd.solvers._utility.concentrated_initial_distance`.

A planning heuristic from public numbers only: it plays no part in any privacy claim.

References
----------
.. [1] D. Böhning, B. Lindsay. Monotonicity of quadratic-approximation algorithms.
   Ann. Inst. Statist. Math. 40 (1988).
.. [2] K. R. Davidson, S. J. Szarek. Local operator theory, random matrices and Banach
   spaces. Handbook of the Geometry of Banach Spaces, vol. 1 (2001), Theorem 2.11.
"""

import math
from dataclasses import dataclass

import numpy as np

from ...accounting import epsilon_delta_to_gdp
from ...accounting.calibration import (
    calibrate_preconditioned_gd,
    check_count,
    check_positive,
    check_probability,
    check_share,
)
from .._proxy_kernels import worst_over_spectrum

__all__ = [
    "GRAM_SHARE",
    "SPECTRUM_GRID",
    "PreconditionedGDPlan",
    "gram_noise_margin",
    "plan_preconditioned_gd",
    "plan_preconditioned_settings",
    "preconditioned_utility_proxy",
]

# --- the proxy: U(K) for every momentum, lam and K at once ---


#: Points of the log grid of Gram eigenvalues (relative to Rt^2) the proxy maximises over.
SPECTRUM_GRID = np.logspace(-8.0, 0.0, 121)


def _recursion(eigenvalues, *, margin, curvature, strong_convexity, learning_rate, momentum):
    r"""(a, b, q, h) of the error recursion in each direction.

    The recursion of :func:`preconditioned_utility_proxy`.

    ``eigenvalues``, ``strong_convexity`` and ``momentum`` broadcast together (the planner
    passes columns of lam and beta against a row of eigenvalues): h the curvature,
    :math:`e_{k+1} = a e_k + b e_{k-1} - \sqrt q Z_k` the step for unit noise std, whose
    moments :func:`~._utility.error_moments` yields; the proxy's
    :math:`O_g(K) = \frac h2 (E e_K)^2` and :math:`N_g(K) = \frac h2 \mathrm{Var}(e_K)`.
    """
    g = np.asarray(eigenvalues, dtype=float)
    lam, beta = np.asarray(strong_convexity, dtype=float), np.asarray(momentum, dtype=float)
    h = curvature * g + lam
    p = curvature * (g + margin) + lam
    r = np.minimum(learning_rate * h / p, 1.0)
    a, b = (1.0 - r) * (1.0 + beta), -(1.0 - r) * beta
    return a, b, (learning_rate / p) ** 2, np.broadcast_to(h, a.shape)


def preconditioned_utility_proxy(
    max_steps, unit_noise_std, *, margin, curvature, strong_convexity, learning_rate, momentum,
    n_params, initial_distance, row_norm, n_outputs=1,
):
    r"""Public proxy for the excess loss after K = 1..max_steps preconditioned noisy steps.

    The preconditioner is :math:`P = c\,(\tilde G + mI)_+ + \lambda I`
    (:class:`skdpgd.optim._preconditioned.GramPreconditioner`; c the loss's curvature bound, m
    the margin of :func:`~skdpgd.solvers._preconditioned.gram_noise_margin`) and the
    noise std of a K-step run is
    :math:`\sigma_K = \sqrt K\,\sigma_1` (``unit_noise_std`` is :math:`\sigma_1`, composition).
    The proxy takes the quadratic model in which P is exact up to the margin: in an
    eigendirection of G with eigenvalue g the curvature is :math:`h = c g + \lambda` and P's
    eigenvalue :math:`p = c(g + m) + \lambda`. With :math:`r = \eta h/p \le 1` and momentum
    beta, the error :math:`e_k = \theta_k - \theta_*` of the step of
    :func:`skdpgd.optim._preconditioned.preconditioned_noisy_gradient_descent` follows

    .. math::

        e_{k+1} = (1 - r)\big((1+\beta) e_k - \beta e_{k-1}\big) - \frac{\eta\sigma_K}{p} Z_k,

    a 2x2 linear recursion whose mean and variance are propagated exactly: the excess loss
    in that direction after K steps is :math:`\theta_*^2 O_g(K) + \sigma_K^2 N_g(K)`, with
    :math:`O_g = \frac h2 e_K^2` (from :math:`e_0 = e_{-1} = 1`) and
    :math:`N_g = \frac h2 \mathrm{Var}(e_K)` per unit noise (:func:`_recursion`). For
    beta = 0 these are :math:`\frac h2(1-r)^{2K}` and
    :math:`\frac{\eta}{2p}\,\frac{1-(1-r)^{2K}}{2-r}`.

    The spectrum of G is private; the proxy takes the worst case over what is public.
    Every row has :math:`\|\tilde x\| \le \tilde R`, so :math:`\mathrm{tr}\,G \le \tilde R^2`
    and at most :math:`t_g = \min(p_{\mathrm{params}}, k\tilde R^2/g)` parameter directions
    (k outputs) have eigenvalue g; the optimum has norm r0, spread evenly over the
    directions (the assumption of :func:`skdpgd.linear_model._defaults.initial_distance`):

    .. math::

        U(K) = \frac\lambda2 r_0^2
          + \frac{r_0^2}{p_{\mathrm{params}}} \max_g t_g O_g(K)
          + \sigma_K^2 \max_g \big[t_g N_g(K) + (p_{\mathrm{params}} - t_g) N_0(K)\big],

    the maxima over a log grid of g in :math:`[10^{-8}, 1]\,\tilde R^2`. It is a planning
    heuristic from public numbers only and plays no part in any privacy claim. Its weak
    point is r0: the optimal K grows like r0 (noise ~ K, optimisation ~ r0^2/K), so a
    guess below the optimum's true norm plans too few steps (measured in
    ``benchmarks/optimizer_study.py``). It is also invariant under
    :math:`(m, \sigma_1) \to (a m, a \sigma_1)` once t_g saturates nowhere, so it does not
    pin down the Gram share: the planner takes the share as given.

    Returns
    -------
    proxy : ndarray of shape (max_steps,)
        U(K) for K = 1..max_steps.
    """
    max_steps = check_count("max_steps", max_steps)
    table = _proxy_table(
        max_steps, float(unit_noise_std), margin=float(margin), curvature=float(curvature),
        lams=np.array([float(strong_convexity)]), momenta=np.array([float(momentum)]),
        learning_rate=float(learning_rate), n_params=int(n_params),
        initial_distance=float(initial_distance), row_norm=float(row_norm),
        n_outputs=int(n_outputs),
    )
    return table[:, 0]


def _proxy_table(max_steps, sigma1, *, margin, curvature, lams, momenta, learning_rate,
                 n_params, initial_distance, row_norm, n_outputs):
    """U(K) of :func:`preconditioned_utility_proxy` for every pair (lams[i], momenta[i]):
    an array of shape (max_steps, len(lams)), one recursion for all of them."""
    worst_opt, worst_noise = _worst_terms(
        max_steps, margin=margin, curvature=curvature, lams=lams, momenta=momenta,
        learning_rate=learning_rate, n_params=n_params, initial_distance=initial_distance,
        row_norm=row_norm, n_outputs=n_outputs,
    )
    return _combine(worst_opt, worst_noise, sigma1, lams, initial_distance)


def _combine(worst_opt, worst_noise, sigma1, lams, r0):
    """U(K) from the two worst-case terms of :func:`_worst_terms` and sigma_1."""
    sigma2 = np.arange(1, worst_opt.shape[0] + 1)[:, None] * np.asarray(sigma1) ** 2
    return 0.5 * lams[None, :] * r0 * r0 + worst_opt + sigma2 * worst_noise


def _worst_terms(max_steps, *, margin, curvature, lams, momenta, learning_rate, n_params,
                 initial_distance, row_norm, n_outputs):
    r"""The proxy's worst cases over the spectrum, each of shape (max_steps, len(lams)):
    :math:`\frac{r_0^2}{p}\max_g t_g O_g(K)` and
    :math:`\max_g [t_g N_g(K) + (p - t_g) N_0(K)]` per unit noise."""
    rt2 = row_norm**2
    g = np.concatenate([[0.0], rt2 * SPECTRUM_GRID])[None, :]  # column 0: g = 0
    a, b, q, h = _recursion(
        g, margin=margin, curvature=curvature, strong_convexity=lams[:, None],
        learning_rate=learning_rate, momentum=momenta[:, None],
    )
    count = np.minimum(float(n_params), n_outputs * rt2 / g[:, 1:])
    r0 = initial_distance
    # the weights of each direction, folded once: r0^2/p t_g h/2 (optimisation), t_g q h/2
    # and (p - t_g) q_0 h_0/2 (noise); each step's moments are reduced over g as they come
    half = 0.5 * h
    weight_opt = r0 * r0 / n_params * count * half[:, 1:]
    weight_noise = count * (q * half)[:, 1:]
    weight_flat = (n_params - count) * (q * half)[:, :1]
    # error_moments with q = 1 (the variance is the sum of squares), each step's moments
    # reduced over g as they come
    worst_opt, worst_noise = worst_over_spectrum(a, b, weight_opt, weight_noise, weight_flat,
                                                 max_steps)
    return worst_opt, worst_noise


def _search_tables(max_steps, sigma1s, margins, *, pairs, noisy, initial_distance,
                   budgets=None, **kwargs):
    """:func:`_proxy_table` of every setting (``sigma1s[i]``, ``margins[i]``) over ``pairs``
    (momentum, lam), all scored in one recursion; the pairs that cannot win left at +inf.

    Every term of the proxy but the bias is >= 0, so U >= lam r0^2 / 2 for every K. The
    pairs with the smaller half of the lams are scored first; a pair of the others whose
    bias exceeds the best value of its setting is larger than that setting's minimum at
    every K and is not scored (the minimum and its place are those of the full table). A
    noiseless plan compares sums over K: every pair is scored. ``budgets[i]``: setting i
    is searched over K <= budgets[i] only (default ``max_steps``; the pruning uses the
    best value there, and the rows beyond are left to the caller). Returns an array of shape
    (settings, max_steps, pairs); each column is computed alone (bit for bit the same
    whatever the other columns).
    """
    lams = np.array([lam for _, lam in pairs])
    momenta = np.array([beta for beta, _ in pairs])
    sigma1s, margins = np.asarray(sigma1s, dtype=float), np.asarray(margins, dtype=float)
    r0 = initial_distance
    budgets = [max_steps] * len(margins) if budgets is None else budgets
    tables = np.full((len(margins), max_steps, len(pairs)), np.inf)
    first = lams <= np.median(lams) if noisy else np.ones(len(pairs), dtype=bool)
    chosen = np.broadcast_to(first, (len(margins), len(pairs)))
    for phase in ("first", "rest"):
        if phase == "rest":  # unless its bias (the same float as the table's) loses
            best = np.array([table[:budget].min()
                             for table, budget in zip(tables, budgets, strict=True)])
            chosen = ~first & (0.5 * lams * r0 * r0 <= best[:, None])
        settings, columns = np.nonzero(chosen)
        if not settings.size:
            continue
        # settings with the same margin share the recursion (sigma_1 enters after it):
        # each distinct (margin, pair) is scored once
        keys, inverse = np.unique(np.stack([margins[settings], columns]), axis=1,
                                  return_inverse=True)
        unique_columns = keys[1].astype(int)
        worst_opt, worst_noise = _worst_terms(
            max_steps, margin=keys[0][:, None], lams=lams[unique_columns],
            momenta=momenta[unique_columns], initial_distance=r0, **kwargs,
        )
        inverse = inverse.ravel()
        tables[settings, :, columns] = _combine(
            worst_opt[:, inverse], worst_noise[:, inverse], sigma1s[settings],
            lams[columns], r0,
        ).T
    return tables


# --- the planner ---


#: Default compute budget: the largest number of noisy steps (full passes) planned.
MAX_STEPS = 100

#: Probability that the Gram noise exceeds the margin (the preconditioner then may fail to
#: majorise the Hessian: convergence, not privacy, is at stake).
MARGIN_FAILURE_PROBABILITY = 0.01

def gram_noise_margin(gram_noise_std, dim, failure_probability=MARGIN_FAILURE_PROBABILITY):
    r"""A public m with :math:`P(\|E\|_{op} > m) \le` ``failure_probability``.

    E is the (dim x dim) symmetric noise of the Gram release: i.i.d.
    :math:`\mathcal N(0,\tau^2)` on and above the diagonal. Then

    .. math::

        m = \tau\,\big(2\sqrt{d} + 2\sqrt{\log(2/p)}\big).

    Proof. For the GOE (off-diagonal variance 1, diagonal variance 2)
    :math:`E\lambda_{\max} \le 2\sqrt d` (Davidson and Szarek 2001, Theorem 2.11, by
    Slepian's lemma). :math:`W = E/\tau` has diagonal variance 1 <= 2, so its increments
    :math:`E(u^\top W u - v^\top W v)^2 = \sum_i (u_i^2 - v_i^2)^2 \mathrm{Var}W_{ii}
    + 4\sum_{i<j}(u_iu_j - v_iv_j)^2` are at most the GOE's, and by the Sudakov-Fernique
    inequality :math:`E\lambda_{\max}(W) \le 2\sqrt d`; likewise for :math:`-\lambda_{\min}`.
    :math:`\lambda_{\max}` is :math:`\sqrt2`-Lipschitz in the upper-triangle vector g
    (:math:`|\lambda_{\max}(W) - \lambda_{\max}(W')| \le \|W - W'\|_F \le \sqrt2\|g - g'\|`),
    so Gaussian concentration gives :math:`P(\lambda_{\max} \ge 2\sqrt d + t) \le e^{-t^2/4}`;
    a union bound over :math:`\pm` and :math:`t = 2\sqrt{\log(2/p)}` finish it.
    """
    tau = check_positive("gram_noise_std", gram_noise_std, allow_zero=True, allow_inf=True)
    dim = check_count("dim", dim)
    p = check_probability("failure_probability", failure_probability)
    if tau == 0.0:
        return 0.0
    return tau * (2.0 * math.sqrt(dim) + 2.0 * math.sqrt(math.log(2.0 / p)))


#: Without noise the run may stop early, when a step moves theta by less than this fraction
#: of its norm (nothing is private then; the cap is still ``max_steps``).
NOISELESS_TOLERANCE = 1e-7


#: Default share s of mu*^2 spent on the Gram release (mu_G = mu*/2). Not derived from the
#: proxy (which is flat in s along (m, K) ridges); measured flat between 0.15 and 0.4 in
#: benchmarks/optimizer_study.py.
GRAM_SHARE = 0.25

#: Momentum values the planner tries.
MOMENTA = (0.0, 0.5, 0.7, 0.8)


@dataclass(frozen=True)
class PreconditionedGDPlan:
    r"""Run parameters chosen by the planner of ``solver="preconditioned"`` (all public).

    It is also the plan the ``"preconditioned"`` solver runs (``solver``, ``notes`` and
    the objective's ``smoothness`` set by the solver): passed down whole, not copied.

    Parameters
    ----------
    n_steps : int
        K, the number of noisy preconditioned steps.
    noise_std : float
        sigma, the standard deviation of the noise added to each averaged gradient.
    gram_noise_std : float
        tau, the standard deviation of the noise of the released Gram matrix.
    gram_share : float
        The share of :math:`\mu^2` spent on the Gram release.
    margin : float
        m, the public bound on the operator norm of the Gram noise that the
        preconditioner adds.
    curvature : float
        c, the loss's curvature bound (the preconditioner's scale).
    strong_convexity : float
        lambda, the regularisation.
    learning_rate : float
        eta, the step size.
    momentum : float
        beta, the heavy-ball momentum.
    utility_proxy : float
        The predicted excess loss of the plan (the planner's score).
    tolerance : float or None, default=None
        The stopping tolerance of a noiseless run (K is then a cap); None for a private
        run, whose K is fixed.
    gram_sensitivity : float, default=nan
        S_G, the replace-one sensitivity of the Gram matrix.
    smoothness : float, default=nan
        The objective's smoothness (set by the solver).
    solver : object, default=None
        The solver that runs the plan (set by the solver).
    notes : tuple of str, default=()
        Public notes for the report (set by the solver).
    projection_radius : float, default=inf
        r, the radius of the public ball every iterate is projected onto (set by the
        solver, :func:`~skdpgd.solvers._base.projection_radius`; ``inf``: none).
    """

    n_steps: int
    noise_std: float
    gram_noise_std: float
    gram_share: float
    margin: float
    curvature: float
    strong_convexity: float
    learning_rate: float
    momentum: float
    utility_proxy: float
    tolerance: float | None = None
    gram_sensitivity: float = math.nan
    smoothness: float = math.nan
    solver: object = None
    notes: tuple = ()
    projection_radius: float = math.inf


def plan_preconditioned_gd(
    epsilon,
    delta,
    *,
    sensitivity,
    gram_sensitivity,
    curvature,
    n_samples,
    gram_dim,
    n_params,
    initial_distance,
    strong_convexity=None,
    max_steps=MAX_STEPS,
    gram_share=GRAM_SHARE,
    momenta=MOMENTA,
    learning_rate=1.0,
    strong_convexity_grid=None,
    failure_probability=MARGIN_FAILURE_PROBABILITY,
    n_steps=None,
    margin_factor=1.0,
):
    r"""Choose K, the momentum (and lam) by the planner's utility proxy, then calibrate.

    The proxy: :func:`~skdpgd.solvers._preconditioned.preconditioned_utility_proxy`.

    The Gram gets the share s = ``gram_share`` of :math:`\mu^{*2}`; for every momentum beta,
    lam (``strong_convexity``, or each point of ``strong_convexity_grid``, default
    :math:`c\tilde R^2\cdot 10^{-8..0}` on 9 points) and K = 1..``max_steps`` the proxy is
    evaluated with :math:`\sigma_K = \sqrt K S/(n\sqrt{1-s}\mu^*)`; the smallest wins and its
    noises are calibrated exactly (:func:`calibrate_preconditioned_gd`). With
    ``epsilon=inf`` there is no noise: K is the fewest steps that bring the proxy's
    run may stop as soon as a step moves theta by less than :data:`NOISELESS_TOLERANCE` of its
    norm (``plan.tolerance``; None for a private run, whose K is fixed), K = ``max_steps``
    being the cap, and (momentum, lam) minimise the proxy summed over K (fastest decrease).
    Everything is public: the answer depends on (epsilon, delta, S, S_G, c, n, p, r0, eta).

    Parameters
    ----------
    epsilon, delta : float
        Privacy target.
    sensitivity, gram_sensitivity : float
        S (per-example gradient) and :math:`S_G = \sqrt2\,\tilde R^2` (per-example Gram term;
        :math:`\tilde R` is recovered from it).
    curvature : float
        c, the loss's curvature bound relative to :math:`\tilde x\tilde x^\top` (1/4 binary
        logistic, 1/2 softmax, 1 Huber / squared).
    n_samples : int
        n.
    gram_dim : int
        Size of the Gram matrix (features + intercept column).
    n_params : int
        Number of parameters (gram_dim times the number of outputs).
    initial_distance : float
        r0, public guess of the optimum's norm.
    strong_convexity : float, optional
        lam; None chooses it.
    max_steps : int
        Compute budget (full passes).
    n_steps : int, optional
        A fixed K (``max_iter``): the momentum and lam are chosen as above (over
        K <= ``max_steps``) and the noises are calibrated once, for K = ``n_steps``.
    gram_share : float
        s in (0, 1).
    momenta : sequence of float
        Candidate momenta in [0, 1).
    learning_rate : float
        eta (1 is the majoriser step).
    margin_factor : float, default=1
        kappa >= 1: the preconditioner's margin is kappa m. A larger margin makes the
        preconditioner's eigenvalues :math:`c(g + \kappa m + s)` more even over the Gram
        noise's spread s, so the run amplifies the noise less in the directions where the
        noise pulls them down, at the price of slower steps (a convergence matter:
        ``solver="auto"`` picks kappa by its proxy, :mod:`skdpgd.solvers._utility`).

    Returns
    -------
    PreconditionedGDPlan
    """
    return plan_preconditioned_settings(
        epsilon, delta, settings=[(gram_share, margin_factor)], sensitivity=sensitivity,
        gram_sensitivity=gram_sensitivity, curvature=curvature, n_samples=n_samples,
        gram_dim=gram_dim, n_params=n_params, initial_distance=initial_distance,
        strong_convexity=strong_convexity, max_steps=max_steps, momenta=momenta,
        learning_rate=learning_rate, strong_convexity_grid=strong_convexity_grid,
        failure_probability=failure_probability, n_steps=n_steps,
    )[0]


def plan_preconditioned_settings(
    epsilon, delta, *, settings, sensitivity, gram_sensitivity, curvature, n_samples, gram_dim,
    n_params, initial_distance, strong_convexity=None, max_steps=MAX_STEPS, momenta=MOMENTA,
    learning_rate=1.0, strong_convexity_grid=None, failure_probability=MARGIN_FAILURE_PROBABILITY,
    n_steps=None, budgets=None, calibrate=True,
):
    r""":func:`plan_preconditioned_gd` for each (gram_share, margin_factor) of ``settings``,
    the proxy of all of them scored in one recursion (``solver="auto"`` plans nine at once).

    Parameters
    ----------
    epsilon, delta : float
        Privacy target.
    settings : sequence of (float, float)
        (gram_share, margin_factor) pairs.
    sensitivity, gram_sensitivity, curvature, n_samples, gram_dim, n_params : float or int
        As in :func:`plan_preconditioned_gd`.
    initial_distance, strong_convexity, max_steps, momenta, learning_rate : optional
        As in :func:`plan_preconditioned_gd`.
    strong_convexity_grid, failure_probability, n_steps : optional
        As in :func:`plan_preconditioned_gd`.
    budgets : sequence of int, optional
        The largest number of steps of each setting (``solver="auto"``'s compute budgets;
        default ``max_steps`` for every setting): its K is chosen among 1..budget.
    calibrate : bool, default=True
        False leaves tau and sigma at their closed forms
        :math:`S_G/(n\sqrt s\,\mu^*)` and :math:`\sqrt K\,S/(n\sqrt{1-s}\,\mu^*)` before
        the accountant's conservative rounding (and the margin at that tau): candidates of
        a larger search, which calibrates its winner only.

    Returns
    -------
    list of PreconditionedGDPlan
        One per setting, each the plan :func:`plan_preconditioned_gd` returns for it.
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_probability("delta", delta)
    s = check_positive("sensitivity", sensitivity)
    s_g = check_positive("gram_sensitivity", gram_sensitivity)
    c = check_positive("curvature", curvature)
    n = check_count("n_samples", n_samples)
    dim = check_count("gram_dim", gram_dim)
    p = check_count("n_params", n_params)
    r0 = check_positive("initial_distance", initial_distance)
    if budgets is None:
        budgets = [max_steps] * len(settings)
    budgets = [check_count("budget", budget) for budget in budgets]
    max_steps = check_count("max_steps", max(budgets))
    eta = check_positive("learning_rate", learning_rate)
    shares = [check_share(share) for share, _ in settings]
    kappas = [check_positive("margin_factor", kappa) for _, kappa in settings]
    if any(kappa < 1.0 for kappa in kappas):
        raise ValueError(f"margin_factor must be >= 1 (a smaller margin may not majorise), "
                         f"got {min(kappas)!r}.")
    momenta = sorted({float(beta) for beta in momenta})
    if not momenta or not all(0.0 <= beta < 1.0 for beta in momenta):
        raise ValueError(f"momenta must be a non-empty set of values in [0, 1), got {momenta!r}.")
    if p % dim:
        raise ValueError(f"n_params={p} must be a multiple of gram_dim={dim} (k outputs x p).")
    row_norm = math.sqrt(s_g / math.sqrt(2.0))  # S_G = sqrt(2) Rt^2
    if strong_convexity is not None:  # 0: composition holds for any loss (the estimators
        # allow it on a bounded domain only)
        lams = [check_positive("strong_convexity", strong_convexity, allow_zero=True)]
    elif strong_convexity_grid is not None:
        lams = [check_positive("strong_convexity", lam) for lam in strong_convexity_grid]
    else:
        lams = list(c * row_norm**2 * np.logspace(-8, 0, 9))
    target = epsilon_delta_to_gdp(epsilon, delta)
    sigma1s, margins, taus = [], [], []
    for share, kappa in zip(shares, kappas, strict=True):
        if target == math.inf:
            tau, sigma1 = 0.0, 0.0
        else:
            tau = s_g / (n * math.sqrt(share) * target)
            sigma1 = s / (n * math.sqrt(1.0 - share) * target)
        sigma1s.append(sigma1)
        taus.append(tau)
        margins.append(kappa * gram_noise_margin(tau, dim, failure_probability))
    pairs = [(beta, lam) for beta in momenta for lam in lams]
    tables = _search_tables(
        max_steps, sigma1s, margins, pairs=pairs, noisy=target != math.inf, curvature=c,
        learning_rate=eta, n_params=p, initial_distance=r0, row_norm=row_norm,
        n_outputs=p // dim, budgets=budgets,
    )
    plans: list[PreconditionedGDPlan] = []
    for share, kappa, table, budget in zip(shares, kappas, tables, budgets, strict=True):
        table = table[:budget]
        if target == math.inf:  # no noise: the cap; the run stops on convergence (tolerance)
            pair = int(np.argmin(table.sum(axis=0)))  # the fastest decrease over all K
            proxy, k = float(table[-1, pair]), budget
        else:
            k_index, pair_index = np.unravel_index(int(np.argmin(table)), table.shape)
            pair = int(pair_index)
            proxy, k = float(table[k_index, pair]), int(k_index) + 1
        beta, lam = pairs[pair]
        if n_steps is not None:  # a fixed number of steps is that number
            k = check_count("n_steps", n_steps)
        if calibrate:
            tau, sigma = calibrate_preconditioned_gd(
                epsilon, delta, gram_share=share, n_steps=k, sensitivity=s,
                gram_sensitivity=s_g, n_samples=n, target_mu=target,  # mu*, computed once
            )
        else:  # the closed forms the calibration starts from
            tau, sigma = taus[len(plans)], math.sqrt(k) * sigma1s[len(plans)]
        plans.append(PreconditionedGDPlan(
            n_steps=k, noise_std=sigma, gram_noise_std=tau, gram_share=share,
            margin=kappa * gram_noise_margin(tau, dim, failure_probability), curvature=c,
            strong_convexity=float(lam), learning_rate=eta, momentum=beta,
            utility_proxy=proxy,
            # no noise (epsilon=inf) and K not fixed: K is a cap, the run may stop early
            tolerance=NOISELESS_TOLERANCE if target == math.inf and n_steps is None else None,
            gram_sensitivity=s_g,
        ))
    return plans
