r"""Planning noisy GD and cyclic noisy GD: choose K, eta, lam, b by a public utility proxy.

docs/theory.md#calibration, step 3. Not privacy maths: for every candidate run the noise
that meets the target comes from the accountant's closed form
(:mod:`skdpgd.accounting._calibration`), the candidates are scored by a utility proxy
built from public numbers only, and the winner's noise is calibrated exactly and
conservatively by the accountant (:func:`~skdpgd.accounting.calibrate_noisy_gd`,
:func:`~skdpgd.accounting.calibrate_noisy_cyclic_gd`).
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from ..accounting import (
    calibrate_noisy_cyclic_gd,
    calibrate_noisy_gd,
    contraction_factor,
    cyclic_batch_sizes,
    epsilon_delta_to_gdp,
)
from ..accounting._calibration import _check_target, _cyclic_factors, _gd_factors
from ..accounting._checks import check_count, check_positive

__all__ = [
    "NoisyCyclicGDPlan",
    "NoisyGDPlan",
    "STEP_FRACTIONS",
    "batch_heterogeneity",
    "optimisation_error",
    "plan_noisy_cyclic_gd",
    "plan_noisy_cyclic_gd_regularization",
    "plan_noisy_gd",
    "plan_noisy_gd_regularization",
    "utility_proxy",
]


@dataclass(frozen=True)
class NoisyGDPlan:
    """Run parameters chosen by :func:`plan_noisy_gd` (all public), and the proxy value."""

    n_steps: int
    noise_std: float
    learning_rate: float
    strong_convexity: float
    smoothness: float
    contraction: float
    utility_proxy: float


def optimisation_error(n_steps, *, learning_rate, strong_convexity, smoothness, initial_distance):
    r"""Worst-case optimisation error of K gradient steps from 0 over quadratics.

    For a quadratic whose curvatures h lie in [lam, beta] with the optimum at distance
    r0, the excess objective after K steps of size eta is at most

    .. math::

        \frac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h\,(1-\eta h)^{2K},

    attained by putting the whole of theta* on the worst curvature. The maximum is at an
    end of the interval or at the critical point :math:`h^* = 1/(\eta(2K+1))`, giving
    :math:`\approx r_0^2/(4 e \eta K)` (the O(1/K) rate of convex GD) until the
    :math:`\lambda`-contraction takes over. Vectorised over ``n_steps``.
    """
    k = np.asarray(n_steps, dtype=float)
    eta, lam, beta = float(learning_rate), float(strong_convexity), float(smoothness)

    def worst(h):
        return h * np.abs(1.0 - eta * h) ** (2.0 * k)

    critical = np.clip(1.0 / (eta * (2.0 * k + 1.0)), lam, beta)
    return 0.5 * float(initial_distance) ** 2 * np.maximum.reduce(
        [worst(lam), worst(beta), worst(critical)]
    )


def utility_proxy(
    n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness, initial_distance
):
    r"""Public proxy for the excess (unregularised) loss of the released iterate.

    .. math::

        U = \underbrace{\tfrac{\lambda}{2} r_0^2}_{\text{regularisation bias}}
          + \underbrace{\tfrac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h(1-\eta h)^{2K}}_{\text{optimisation}}
          + \underbrace{\tfrac{p\,\eta\,\sigma^2}{4}}_{\text{noise}}

    docs/theory.md#calibration, step 3, with each term a worst case over quadratic objectives whose
    curvatures lie in [lam, beta]: the bias term is the classical bound
    :math:`L(\theta^*_\lambda) - L(\theta^*_0) \le \frac{\lambda}{2}\|\theta^*_0\|^2`; the
    optimisation term is :func:`optimisation_error` (it refines the textbook
    :math:`\frac{\beta}{2}c^{2K}r_0^2`, which pairs the largest curvature with the slowest
    contraction, a combination no quadratic attains); the noise term is the stationary
    excess loss of noisy GD, :math:`p\,\eta\sigma^2/(2(2-\eta h)) \le p\,\eta\sigma^2/4`
    per direction of curvature h <= 1/eta, whatever the curvature. ``r0``
    (``initial_distance``) is a public guess of the optimum's norm and ``p`` the number
    of parameters. Vectorised over ``n_steps`` / ``noise_std``.
    """
    contraction_factor(learning_rate, strong_convexity, smoothness)  # validates
    optimisation = optimisation_error(
        n_steps, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness, initial_distance=initial_distance,
    )
    noise = n_params * learning_rate * np.asarray(noise_std, dtype=float) ** 2 / 4.0
    return 0.5 * strong_convexity * float(initial_distance) ** 2 + optimisation + noise


#: Step sizes the planner tries, as fractions of 2/(beta + lam). The largest minimises
#: the contraction factor (less noise) but leaves the top-curvature direction oscillating
#: at the same slow rate; a slightly smaller step damps it at a small privacy cost.
STEP_FRACTIONS = (1.0, 0.95, 0.9, 0.8, 0.65, 0.5)


def _best_steps(target_mu, *, sensitivity, n_samples, n_params, lam, beta, eta, r0, max_steps):
    """(proxy, K) minimising :func:`utility_proxy` over K = 1..max_steps for one (lam, eta)."""
    c = contraction_factor(eta, lam, beta)
    steps = np.arange(1, max_steps + 1)
    if target_mu == math.inf or sensitivity == 0:
        sigmas = np.zeros(steps.shape)
    else:
        sigmas = sensitivity * np.sqrt(_gd_factors(c, steps)) / (n_samples * target_mu)
    proxy = utility_proxy(
        steps, sigmas, n_params=n_params, learning_rate=eta, strong_convexity=lam,
        smoothness=beta, initial_distance=r0,
    )
    best = int(np.argmin(proxy))
    return float(proxy[best]), int(steps[best])


def plan_noisy_gd(
    epsilon,
    delta,
    *,
    sensitivity,
    n_samples,
    n_params,
    data_smoothness,
    strong_convexity,
    initial_distance,
    max_steps,
    learning_rate=None,
    calibrate=True,
):
    r"""Choose K, eta and sigma for full-batch noisy GD by minimising :func:`utility_proxy`.

    Parameters
    ----------
    epsilon, delta : float
        Privacy target.
    sensitivity : float
        S, replace-one sensitivity of a per-example gradient.
    n_samples, n_params : int
        n and the number of parameters p.
    data_smoothness : float
        beta_l, smoothness of the per-example data term; the objective is
        (beta_l + lam)-smooth.
    strong_convexity : float
        lam > 0.
    initial_distance : float
        r0, public guess of ||theta*|| (the run starts at 0).
    max_steps : int
        Largest K considered (a compute budget).
    learning_rate : float, optional
        eta. By default the planner tries :data:`STEP_FRACTIONS` of 2/(beta + lam).
    calibrate : bool, default=True
        False leaves ``noise_std`` nan (a candidate of a larger search, which calibrates
        its winner only).

    Returns
    -------
    NoisyGDPlan
        For every candidate step and every K in 1..max_steps the noise that meets the
        target under bound (A) is computed and the proxy evaluated; the best (eta, K)
        is kept and its noise calibrated exactly (:func:`calibrate_noisy_gd`). Because
        the bound saturates in K, the noise grows only up to a finite limit while the
        optimisation error keeps falling. Everything used is public.
    """
    epsilon, delta = _check_target(epsilon, delta)
    lam = check_positive("strong_convexity", strong_convexity)
    beta = check_positive("data_smoothness", data_smoothness, allow_zero=True) + lam
    max_steps = check_count("max_steps", max_steps)
    n = check_count("n_samples", n_samples)
    r0 = check_positive("initial_distance", initial_distance)
    if learning_rate is None:
        etas = [fraction * 2.0 / (beta + lam) for fraction in STEP_FRACTIONS]
    else:
        etas = [check_positive("learning_rate", learning_rate)]
    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    proxy, n_steps, eta = min(
        _best_steps(
            target_mu, sensitivity=sensitivity, n_samples=n, n_params=n_params, lam=lam,
            beta=beta, eta=eta, r0=r0, max_steps=max_steps,
        ) + (eta,)
        for eta in etas
    )
    plan = NoisyGDPlan(n_steps, math.nan, eta, lam, beta, contraction_factor(eta, lam, beta), proxy)
    return plan if not calibrate else _calibrate_gd(plan, epsilon, delta, sensitivity, n)


def _calibrate_gd(plan, epsilon, delta, sensitivity, n_samples):
    """``plan`` with its noise calibrated by the accountant (once, for the winning plan)."""
    return replace(plan, noise_std=calibrate_noisy_gd(
        epsilon, delta, sensitivity=sensitivity, n_samples=n_samples,
        learning_rate=plan.learning_rate, strong_convexity=plan.strong_convexity,
        smoothness=plan.smoothness, n_steps=plan.n_steps,
    ))


def plan_noisy_gd_regularization(
    epsilon,
    delta,
    *,
    sensitivity,
    n_samples,
    n_params,
    data_smoothness,
    initial_distance,
    max_steps,
    learning_rate=None,
    strong_convexity_grid=None,
):
    r"""Choose lam, eta, K and sigma jointly by minimising :func:`utility_proxy`.

    For each lam on a log grid the best (eta, K) is found as in :func:`plan_noisy_gd`;
    the plan with the smallest proxy wins. The default grid spans 1e-8 to 1 times
    beta_l (121 points). Everything is public: the answer depends only on
    (epsilon, delta, S, n, p, beta_l, r0, max_steps).
    """
    beta_l = check_positive("data_smoothness", data_smoothness)
    if strong_convexity_grid is None:
        strong_convexity_grid = beta_l * np.logspace(-8, 0, 121)
    plans = [
        plan_noisy_gd(
            epsilon, delta, sensitivity=sensitivity, n_samples=n_samples, n_params=n_params,
            data_smoothness=beta_l, strong_convexity=lam, initial_distance=initial_distance,
            max_steps=max_steps, learning_rate=learning_rate, calibrate=False,
        )
        for lam in np.asarray(strong_convexity_grid, dtype=float)
    ]
    best = min(plans, key=lambda plan: plan.utility_proxy)  # calibrated once, the winner only
    return _calibrate_gd(best, epsilon, delta, sensitivity, check_count("n_samples", n_samples))


@dataclass(frozen=True)
class NoisyCyclicGDPlan:
    """Run parameters chosen by :func:`plan_noisy_cyclic_gd` (all public), and the proxy value.

    It is also the plan the ``"gd"`` and ``"cyclic"`` solvers run (``solver`` and ``notes``
    set by the solver): the planner's answer is passed down whole, not copied.
    """

    batch_size: int
    n_batches: int
    n_epochs: int
    noise_std: float
    learning_rate: float
    strong_convexity: float
    smoothness: float
    contraction: float
    utility_proxy: float
    solver: object = None
    notes: tuple = ()

    @property
    def n_steps(self):
        """K = l E."""
        return self.n_batches * self.n_epochs


def batch_heterogeneity(learning_rate, *, gradient_bound, batch_size, n_samples):
    r"""Proxy term for the error of using one batch's gradient instead of the full one.

    .. math::

        \frac{\eta}{4}\,V_b, \qquad V_b = G^2\,\frac{n - b}{b\,(n - 1)},

    where :math:`V_b` bounds the variance of the mean of b per-example gradients drawn
    without replacement from n vectors of norm at most G (the finite-population
    correction), and :math:`\eta V/4` is the stationary excess loss of a gradient method
    with step eta and gradient noise of total variance V (the same rule as the noise
    term of :func:`utility_proxy`). It is a planning heuristic, used only to choose
    public run parameters; it is 0 for full batches (b = n) and plays no part in any
    privacy claim.
    """
    b, n = float(batch_size), float(n_samples)
    if b >= n:
        return 0.0
    return float(learning_rate) * float(gradient_bound) ** 2 * (n - b) / (b * (n - 1.0)) / 4.0


def _best_epochs(
    target_mu, *, sensitivity, gradient_bound, n_samples, n_params, lam, beta, eta, r0,
    max_epochs, batch_size,
):
    """(proxy, E) minimising the cyclic proxy over E = 1..max_epochs for one (b, lam, eta)."""
    sizes = cyclic_batch_sizes(n_samples, batch_size)
    n_batches, b_min = len(sizes), int(sizes.min())
    c = contraction_factor(eta, lam, beta)
    epochs = np.arange(1, max_epochs + 1)
    if target_mu == math.inf or sensitivity == 0:
        sigmas = np.zeros(epochs.shape)
    else:
        sigmas = sensitivity * np.sqrt(_cyclic_factors(c, n_batches, epochs)) / (b_min * target_mu)
    proxy = utility_proxy(
        n_batches * epochs, sigmas, n_params=n_params, learning_rate=eta, strong_convexity=lam,
        smoothness=beta, initial_distance=r0,
    ) + batch_heterogeneity(
        eta, gradient_bound=gradient_bound, batch_size=b_min, n_samples=n_samples
    )
    best = int(np.argmin(proxy))
    return float(proxy[best]), int(epochs[best])


def plan_noisy_cyclic_gd(
    epsilon,
    delta,
    *,
    sensitivity,
    gradient_bound,
    n_samples,
    n_params,
    data_smoothness,
    strong_convexity,
    initial_distance,
    max_epochs,
    batch_sizes,
    learning_rate=None,
    n_epochs=None,
    calibrate=True,
):
    r"""Choose b, E, eta and sigma for cyclic mini-batch noisy GD under bound (C).

    For every candidate batch size b, step eta (:data:`STEP_FRACTIONS` of 2/(beta + lam)
    unless given) and number of epochs E = 1..``max_epochs`` (the compute budget, in
    passes over the data), the noise that meets the target under bound (C),
    :math:`\sigma = S\,h(E)/(b_{\min}\mu^*)`, is computed and the public proxy

    .. math::

        U = \text{utility\_proxy}(K = lE, \sigma)
          + \text{batch\_heterogeneity}(\eta, b_{\min})

    evaluated (:func:`utility_proxy`, :func:`batch_heterogeneity`); the best plan is kept
    and its noise calibrated exactly (:func:`calibrate_noisy_cyclic_gd`). With b = n
    this is :func:`plan_noisy_gd` with K = E. Everything used is public.

    Parameters
    ----------
    epsilon, delta : float
        Privacy target.
    sensitivity : float
        S, replace-one sensitivity of a per-example gradient.
    gradient_bound : float
        G, a bound on the norm of a per-example gradient (for the heterogeneity term).
    n_samples, n_params : int
        n and p.
    data_smoothness, strong_convexity : float
        beta_l and lam > 0 (the objective is (beta_l + lam)-smooth).
    initial_distance : float
        r0, public guess of ||theta*||.
    max_epochs : int
        Largest E considered.
    batch_sizes : sequence of int
        Candidate batch sizes b (each <= n).
    learning_rate : float, optional
        A fixed eta.
    n_epochs : int, optional
        A fixed number of epochs (``max_iter``): b, eta (and lam) are chosen as above and
        the noise is calibrated for E = ``n_epochs`` epochs.
    calibrate : bool, default=True
        False leaves ``noise_std`` nan (a candidate of a larger search, which calibrates
        its winner only).

    Returns
    -------
    NoisyCyclicGDPlan
    """
    fixed_epochs = n_epochs
    epsilon, delta = _check_target(epsilon, delta)
    lam = check_positive("strong_convexity", strong_convexity)
    beta = check_positive("data_smoothness", data_smoothness, allow_zero=True) + lam
    max_epochs = check_count("max_epochs", max_epochs)
    n = check_count("n_samples", n_samples)
    r0 = check_positive("initial_distance", initial_distance)
    gradient_bound = check_positive("gradient_bound", gradient_bound, allow_zero=True)
    batch_sizes = sorted({check_count("batch_size", b) for b in batch_sizes})
    if not batch_sizes:
        raise ValueError("batch_sizes must contain at least one batch size.")
    if learning_rate is None:
        etas = [fraction * 2.0 / (beta + lam) for fraction in STEP_FRACTIONS]
    else:
        etas = [check_positive("learning_rate", learning_rate)]
    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    proxy, n_epochs, eta, batch_size = min(
        _best_epochs(
            target_mu, sensitivity=sensitivity, gradient_bound=gradient_bound, n_samples=n,
            n_params=n_params, lam=lam, beta=beta, eta=eta, r0=r0, max_epochs=max_epochs,
            batch_size=b,
        ) + (eta, b)
        for b in batch_sizes
        for eta in etas
    )
    if fixed_epochs is not None:
        n_epochs = check_count("n_epochs", fixed_epochs)
    n_batches = len(cyclic_batch_sizes(n, batch_size))
    plan = NoisyCyclicGDPlan(
        batch_size, n_batches, n_epochs, math.nan, eta, lam, beta,
        contraction_factor(eta, lam, beta), proxy,
    )
    return plan if not calibrate else _calibrate_cyclic(plan, epsilon, delta, sensitivity, n)


def _calibrate_cyclic(plan, epsilon, delta, sensitivity, n_samples):
    """``plan`` with its noise calibrated by the accountant (once, for the winning plan)."""
    return replace(plan, noise_std=calibrate_noisy_cyclic_gd(
        epsilon, delta, batch_size=plan.batch_size, sensitivity=sensitivity,
        n_samples=n_samples, learning_rate=plan.learning_rate,
        strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
        n_epochs=plan.n_epochs,
    ))


def plan_noisy_cyclic_gd_regularization(
    epsilon, delta, *, data_smoothness, strong_convexity_grid=None, **kwargs
):
    r"""Choose lam too: :func:`plan_noisy_cyclic_gd` on a log grid of lam, smallest proxy wins.

    The default grid spans 1e-8 to 1 times beta_l (41 points, coarser than the
    full-batch planner's because each point searches several batch sizes).
    """
    beta_l = check_positive("data_smoothness", data_smoothness)
    if strong_convexity_grid is None:
        strong_convexity_grid = beta_l * np.logspace(-8, 0, 41)
    plans = [
        plan_noisy_cyclic_gd(
            epsilon, delta, data_smoothness=beta_l, strong_convexity=lam, calibrate=False,
            **kwargs
        )
        for lam in np.asarray(strong_convexity_grid, dtype=float)
    ]
    best = min(plans, key=lambda plan: plan.utility_proxy)  # calibrated once, the winner only
    return _calibrate_cyclic(best, epsilon, delta, kwargs["sensitivity"],
                             check_count("n_samples", kwargs["n_samples"]))
