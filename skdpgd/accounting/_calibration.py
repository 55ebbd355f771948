r"""From a privacy target (epsilon, delta) to run parameters (noise, steps, regularisation).

DESIGN.md section 4. The target is first turned into the largest Gaussian-DP parameter
mu* that implies it (:func:`epsilon_delta_to_gdp`, lossless); a run whose bound is at
most mu* meets the target. Every calibration is checked against the accountant before
it is returned, and rounded towards more noise: a calibrated run never exceeds its
target, and lands within 1e-6 (relative, in epsilon) of it.
"""

import math
from dataclasses import dataclass

import numpy as np

from ._checks import check_count, check_positive, check_probability
from ._gdp import epsilon_delta_to_gdp, gdp_to_epsilon
from ._noisy_gd import (
    contraction_factor,
    convergent_cyclic_factor,
    convergent_gd_factor,
    cyclic_batch_sizes,
    noisy_cyclic_gd_gdp,
    noisy_gd_gdp,
)


def _check_target(epsilon, delta):
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_probability("delta", delta)
    return epsilon, delta


def _noise_for(target_mu, sensitivity, size, factor, epsilon, delta, accountant):
    """sigma = S * factor / (size * mu*), nudged up until the accountant agrees."""
    if target_mu == math.inf or sensitivity == 0.0:
        return 0.0
    sigma = sensitivity * factor / (size * target_mu)
    for _ in range(200):
        if gdp_to_epsilon(accountant(sigma), delta) <= epsilon:
            return sigma
        sigma *= 1.0 + 1e-12
    raise RuntimeError("calibration did not converge; please report this as a bug.")


def calibrate_noisy_gd(
    epsilon,
    delta,
    *,
    sensitivity,
    n_samples,
    learning_rate,
    strong_convexity,
    smoothness,
    n_steps,
):
    r"""Smallest noise std that makes K steps of full-batch noisy GD (epsilon, delta)-DP.

    Under bound (A) (:func:`noisy_gd_gdp`) the run is mu-GDP with mu linear in 1/sigma,
    so :math:`\sigma = S\,g(K) / (n\,\mu^*)` with
    :math:`g(K)=\min(\sqrt{K}, \sqrt{\frac{1+c}{1-c}\frac{1-c^K}{1+c^K}})` and
    :math:`\mu^*` = ``epsilon_delta_to_gdp(epsilon, delta)`` (DESIGN.md 4, steps 1-2).

    Returns
    -------
    noise_std : float
        0.0 when ``epsilon`` is ``inf`` (no privacy asked) or the sensitivity is 0.
    """
    epsilon, delta = _check_target(epsilon, delta)
    sensitivity = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    k = check_count("n_steps", n_steps, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    factor = min(math.sqrt(k), convergent_gd_factor(c, k))

    def accountant(sigma):
        return noisy_gd_gdp(
            sigma, k, sensitivity=sensitivity, n_samples=n, learning_rate=learning_rate,
            strong_convexity=strong_convexity, smoothness=smoothness,
        )

    return _noise_for(target_mu, sensitivity, n, factor, epsilon, delta, accountant)


def calibrate_noisy_cyclic_gd(
    epsilon,
    delta,
    *,
    batch_size,
    sensitivity,
    n_samples,
    learning_rate,
    strong_convexity,
    smoothness,
    n_epochs,
):
    r"""Smallest noise std that makes E epochs of cyclic noisy GD (epsilon, delta)-DP.

    Same as :func:`calibrate_noisy_gd` under bound (C) (:func:`noisy_cyclic_gd_gdp`):
    :math:`\sigma = S\,h(E) / (b_{\min}\,\mu^*)`.
    """
    epsilon, delta = _check_target(epsilon, delta)
    sensitivity = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    e = check_count("n_epochs", n_epochs, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    sizes = cyclic_batch_sizes(n, batch_size)
    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    factor = min(math.sqrt(e), convergent_cyclic_factor(c, len(sizes), e))

    def accountant(sigma):
        return noisy_cyclic_gd_gdp(
            sigma, e, batch_size=batch_size, sensitivity=sensitivity, n_samples=n,
            learning_rate=learning_rate, strong_convexity=strong_convexity,
            smoothness=smoothness,
        )

    return _noise_for(target_mu, sensitivity, int(sizes.min()), factor, epsilon, delta, accountant)


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


def _gd_factors(c, steps):
    """g(K)^2 of bound (A) for an array of step counts, vectorised."""
    steps = np.asarray(steps, dtype=float)
    composed = steps
    if c >= 1.0:
        return composed
    power = np.exp(steps * math.log(c)) if c > 0 else np.zeros_like(steps)
    convergent = (1.0 + c) / (1.0 - c) * (1.0 - power) / (1.0 + power)
    return np.minimum(composed, convergent)


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

    DESIGN.md 4, step 3, with each term a worst case over quadratic objectives whose
    curvatures lie in [lam, beta]: the bias term is the classical bound
    :math:`L(\theta^*_\lambda) - L(\theta^*_0) \le \frac{\lambda}{2}\|\theta^*_0\|^2`; the
    optimisation term is :func:`optimisation_error` (it refines DESIGN.md's
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
    sigma = calibrate_noisy_gd(
        epsilon, delta, sensitivity=sensitivity, n_samples=n, learning_rate=eta,
        strong_convexity=lam, smoothness=beta, n_steps=n_steps,
    )
    return NoisyGDPlan(n_steps, sigma, eta, lam, beta, contraction_factor(eta, lam, beta), proxy)


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
            max_steps=max_steps, learning_rate=learning_rate,
        )
        for lam in np.asarray(strong_convexity_grid, dtype=float)
    ]
    return min(plans, key=lambda plan: plan.utility_proxy)
