r"""Planning full-batch noisy GD: the plain-step utility proxy, and K, eta, lam by it.

docs/theory.md#calibration, step 3. Not privacy maths: for every candidate run the noise
that meets the target comes from the accountant's closed form
(:mod:`skdpgd.accounting.calibration`), the candidates are scored by a utility proxy
built from public numbers only, and the winner's noise is calibrated exactly and
conservatively by the accountant (:func:`~skdpgd.accounting.calibrate_noisy_gd`).
The proxy (:func:`utility_proxy`) is also the cyclic planner's
(:mod:`skdpgd.solvers._cyclic_planning`, which plans ``solver="gd"`` as one batch).
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from ..accounting import contraction_factor, epsilon_delta_to_gdp
from ..accounting.calibration import (
    calibrate_noisy_gd,
    check_count,
    check_positive,
    check_target,
    gd_factors,
)

__all__ = [
    "NoisyGDPlan",
    "STEP_FRACTIONS",
    "optimisation_error",
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
    eta, lam, beta = (np.asarray(x, dtype=float)
                      for x in (learning_rate, strong_convexity, smoothness))

    def worst(h):
        return h * np.abs(1.0 - eta * h) ** (2.0 * k)

    critical = np.clip(1.0 / (eta * (2.0 * k + 1.0)), lam, beta)
    return 0.5 * float(initial_distance) ** 2 * np.maximum(
        np.maximum(worst(lam), worst(beta)), worst(critical)
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
    return _proxy(n_steps, noise_std, n_params=n_params, learning_rate=learning_rate,
                  strong_convexity=strong_convexity, smoothness=smoothness,
                  initial_distance=initial_distance)


def _proxy(n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness,
           initial_distance):
    """:func:`utility_proxy` without its checks, elementwise in K, sigma, eta, lam, beta."""
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
        sigmas = sensitivity * np.sqrt(gd_factors(c, steps)) / (n_samples * target_mu)
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
    epsilon, delta = check_target(epsilon, delta)
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
