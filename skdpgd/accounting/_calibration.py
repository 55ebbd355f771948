r"""From a privacy target (epsilon, delta) to run parameters (noise, steps, regularisation).

docs/theory.md#calibration. The target is first turned into the largest Gaussian-DP parameter
mu* that implies it (:func:`epsilon_delta_to_gdp`, lossless); a run whose bound is at
most mu* meets the target. Every calibration is checked against the accountant before
it is returned, and rounded towards more noise: a calibrated run never exceeds its
target, and lands within 1e-6 (relative, in epsilon) of it.
"""

import math

import numpy as np

from ._checks import check_count, check_positive, check_probability
from ._gdp import epsilon_delta_to_gdp, gdp_to_epsilon
from ._inverter import nudge_up
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
    """sigma = S * factor / (size * mu*), nudged up until the accountant agrees.

    The closed form is the crossing of the bound; the inverter walks up from it by factors
    1 + 1e-12 (at most 200) to the first sigma whose epsilon was computed and meets the
    target (:func:`~skdpgd.accounting._inverter.invert_monotone`).
    """
    if target_mu == math.inf or sensitivity == 0.0:
        return 0.0
    return nudge_up(lambda sigma: gdp_to_epsilon(accountant(sigma), delta), epsilon,
                    sensitivity * factor / (size * target_mu))


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
    :math:`\mu^*` = ``epsilon_delta_to_gdp(epsilon, delta)`` (docs/theory.md#calibration, steps 1-2).

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


def _gd_factors(c, steps):
    """g(K)^2 of bound (A) for an array of step counts, vectorised."""
    steps = np.asarray(steps, dtype=float)
    composed = steps
    if c >= 1.0:
        return composed
    power = np.exp(steps * math.log(c)) if c > 0 else np.zeros_like(steps)
    convergent = (1.0 + c) / (1.0 - c) * (1.0 - power) / (1.0 + power)
    return np.minimum(composed, convergent)


def _cyclic_factors(c, n_batches, epochs):
    """h(E)^2 of bound (C) for an array of epoch counts, vectorised (E >= 1)."""
    epochs = np.asarray(epochs, dtype=float)
    if c >= 1.0:
        return epochs
    if c == 0.0:
        head = 1.0 if n_batches == 1 else 0.0
        convergent = np.where(epochs <= 1, 1.0, 1.0 + head)
    else:
        log_c = math.log(c)
        head = (math.exp((2 * n_batches - 2) * log_c) * (1.0 - c * c)
                / (-math.expm1(n_batches * log_c)) ** 2)
        power = np.exp(n_batches * (epochs - 1.0) * log_c)
        convergent = np.where(epochs <= 1, 1.0, 1.0 + head * (1.0 - power) / (1.0 + power))
    if n_batches == 1:  # full batch: Theorem 4.2 applies too (convergent_cyclic_factor)
        convergent = np.minimum(convergent, _gd_factors(c, epochs))
    return np.minimum(epochs, convergent)
