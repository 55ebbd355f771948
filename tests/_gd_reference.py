"""A full-batch noisy GD plan written out for the tests (reference for the gd solver).

For every step eta in ``STEP_FRACTIONS`` of 2/(beta + lam) and every K in 1..max_steps, the
noise that meets the target under Bok-Su-Altschuler's Theorem 4.2 is
sigma = S sqrt(factor(c, K)) / (n mu*) (``accounting.calibration.gd_factors``); the plan
with the smallest ``solvers.utility_proxy`` wins and its noise is calibrated exactly by
``accounting.calibrate_noisy_gd``. Bound (A) only: no batch logic, no cyclic factor.
"""

import numpy as np

from skdpgd.accounting import calibrate_noisy_gd, contraction_factor, epsilon_delta_to_gdp
from skdpgd.accounting.calibration import gd_factors
from skdpgd.solvers import utility_proxy
from skdpgd.solvers._cyclic import STEP_FRACTIONS


def full_batch_plan(epsilon, delta, *, sensitivity, n_samples, n_params, data_smoothness,
                    strong_convexity, initial_distance, max_steps):
    """(proxy, n_steps, learning_rate, noise_std) of the best full-batch plan."""
    lam = strong_convexity
    beta = data_smoothness + lam
    mu = epsilon_delta_to_gdp(epsilon, delta)
    steps = np.arange(1, max_steps + 1)
    best = None
    for fraction in STEP_FRACTIONS:
        eta = fraction * 2.0 / (beta + lam)
        sigmas = sensitivity * np.sqrt(gd_factors(contraction_factor(eta, lam, beta), steps)) / (
            n_samples * mu)
        proxy = utility_proxy(steps, sigmas, n_params=n_params, learning_rate=eta,
                              strong_convexity=lam, smoothness=beta,
                              initial_distance=initial_distance)
        k = int(np.argmin(proxy))
        if best is None or proxy[k] < best[0]:
            best = (float(proxy[k]), int(steps[k]), eta)
    proxy, n_steps, eta = best
    sigma = calibrate_noisy_gd(epsilon, delta, sensitivity=sensitivity, n_samples=n_samples,
                               learning_rate=eta, strong_convexity=lam, smoothness=beta,
                               n_steps=n_steps)
    return proxy, n_steps, eta, sigma
