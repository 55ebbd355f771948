r"""From a privacy target (epsilon, delta) to run parameters: what a planner may use.

An internal layer, not API: no ``__all__`` and no API page (the user-facing calibrations,
:func:`~skdpgd.accounting.calibrate_noisy_gd` and
:func:`~skdpgd.accounting.calibrate_noisy_cyclic_gd`, are defined here and exported by
:mod:`skdpgd.accounting`). The face of the accountant towards :mod:`skdpgd.solvers`:
the planners import from here (or from :mod:`skdpgd.accounting`) only, never a private name
(``tests/test_import_layers.py`` checks it). Besides the calibrations defined here it
re-exports the one rounding rule (:func:`round_down`, :func:`calibrated_mu`), the
accountant's argument checks and the vectorised closed forms a planner
scores its grids with (:func:`gd_factors`, :func:`cyclic_factors`,
:func:`clt_noise_multiplier`), so that every closed form exists once.

docs/theory.md#calibration. The target is first turned into the largest Gaussian-DP parameter
mu* that implies it (:func:`epsilon_delta_to_gdp`, lossless); a run whose bound is at
most mu* meets the target. Every calibration is checked against the accountant before
it is returned, and rounded towards more noise: a calibrated run never exceeds its
target, and lands within 1e-6 (relative, in epsilon) of it.
"""

import math

import numpy as np

from ._checks import check_count, check_positive, check_probability
from ._convex_gd import convex_cyclic_squares, shift_ratio
from ._convex_gd import convex_gd_squares as convex_gd_squares
from ._gdp import epsilon_delta_to_gdp, gdp_to_epsilon
from ._inverter import nudge_up
from ._margin import calibrated_mu as calibrated_mu
from ._margin import round_down as round_down
from ._noisy_cyclic_gd import (
    convergent_cyclic_factor,
    convergent_cyclic_squares,
    cyclic_batch_sizes,
)
from ._noisy_gd import (
    _gdp,
    _scale,
    contraction_factor,
    convergent_gd_factor,
    convergent_gd_squares,
)
from ._preconditioned import calibrate_preconditioned_gd as calibrate_preconditioned_gd
from ._preconditioned import check_share as check_share
from ._sampled_sgd import check_sgd_epsilon as check_sgd_epsilon
from ._sampled_sgd import clt_noise_multiplier as clt_noise_multiplier
from ._sgd_bounds import check_sampling as check_sampling


def check_target(epsilon, delta):
    """Validate a privacy target: epsilon in (0, inf], delta in (0, 1).

    Parameters
    ----------
    epsilon, delta : float
        The target.

    Returns
    -------
    epsilon, delta : float
        As floats.
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_probability("delta", delta)
    return epsilon, delta


def target_mu_of(epsilon, delta, mu=None):
    r"""The Gaussian-DP target :math:`\mu^*` of a calibration, and the checked target.

    A target is either ``(epsilon, delta)``, turned into the largest :math:`\mu` that
    implies it (:func:`epsilon_delta_to_gdp`, lossless), or an allowance already in the
    currency of the accountant, ``mu`` (``epsilon`` None: a DP pipeline hands its
    estimator a Gaussian-DP allowance, which is then not converted at all).

    Parameters
    ----------
    epsilon : float or None
        Target epsilon > 0 (``inf``: no noise), or None when ``mu`` is given.
    delta : float
        In (0, 1): the delta at which the run's epsilon is reported.
    mu : float, optional
        The Gaussian-DP target > 0 (``inf``: no noise), instead of ``epsilon``.

    Returns
    -------
    epsilon : float or None
        As given, checked.
    delta : float
        As given, checked.
    target_mu : float
        :math:`\mu^*`.
    """
    if mu is None:
        epsilon, delta = check_target(epsilon, delta)
        return epsilon, delta, epsilon_delta_to_gdp(epsilon, delta)
    if epsilon is not None:
        raise ValueError(f"a target is epsilon or mu, not both (got epsilon={epsilon!r}, "
                         f"mu={mu!r}).")
    return None, check_probability("delta", delta), check_positive("mu", mu, allow_inf=True)


def _noise_for(target_mu, sensitivity, size, factor, epsilon, delta, accountant):
    """sigma = S * factor / (size * mu*), nudged up until the accountant agrees.

    The closed form is the crossing of the bound; the inverter walks up from it by factors
    1 + 1e-12 (at most 200) to the first sigma whose bound was computed and meets the
    target (:func:`~skdpgd.accounting._inverter.invert_monotone`): its epsilon at
    ``delta`` for a target in epsilon, its mu itself for a target in mu (``epsilon``
    None), so that an allowance in mu is met without a conversion.
    """
    if target_mu == math.inf or sensitivity == 0.0:
        return 0.0
    guess = sensitivity * factor / (size * target_mu)
    if epsilon is None:
        return nudge_up(accountant, target_mu, guess)
    return nudge_up(lambda sigma: gdp_to_epsilon(accountant(sigma), delta), epsilon, guess)


def _convex_factor(n_batches, passes, diameter, size, sensitivity, learning_rate):
    """The bounded-domain factor (Theorem 4.3, or bound (F) for l > 1); inf without D."""
    if diameter is None or sensitivity == 0.0:
        return math.inf
    ratio = shift_ratio(diameter=check_positive("diameter", diameter, allow_inf=True),
                        size=size, sensitivity=sensitivity, learning_rate=learning_rate)
    return math.sqrt(float(convex_cyclic_squares(n_batches, passes, ratio)))


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
    diameter=None,
    mu=None,
):
    r"""Smallest noise std that makes K steps of full-batch noisy GD (epsilon, delta)-DP.

    Under bound (A) (:func:`noisy_gd_gdp`) the run is mu-GDP with mu linear in 1/sigma,
    so :math:`\sigma = S\,g(K) / (n\,\mu^*)` with
    :math:`g(K)=\min(\sqrt{K}, \sqrt{\frac{1+c}{1-c}\frac{1-c^K}{1+c^K}})` and
    :math:`\mu^*` = ``epsilon_delta_to_gdp(epsilon, delta)`` (:ref:`calibration`, steps 1-2;
    Bok, Su and Altschuler, ICML 2024, Theorems 4.1 and 4.2; Dong, Roth and Su 2022,
    Corollary 2.13 for the conversion). The closed form is then nudged up by relative
    steps of 1e-12 until :func:`noisy_gd_gdp`, converted by
    :func:`~skdpgd.accounting.gdp_to_epsilon`, is at most ``epsilon``.

    Parameters
    ----------
    epsilon : float or None
        Target epsilon > 0 (``inf``: no privacy asked); None with ``mu``.
    delta : float
        Target delta in (0, 1).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the strong convexity of the objective.
    smoothness : float
        beta >= lam, the smoothness of the objective.
    n_steps : int or float
        K >= 1, the number of steps (``inf`` allowed).
    diameter : float, optional
        D, the diameter of the ball the iterates are projected onto: Theorem 4.3's factor
        :math:`\sqrt{3x + \lceil x\rceil}` (:func:`convex_gd_squares`) joins the minimum.
    mu : float, optional
        A Gaussian-DP target instead of ``epsilon`` (then None): the noise is nudged
        until the run's mu is at most it (``target_mu_of``).

    Returns
    -------
    noise_std : float
        sigma on the averaged gradient, never above the target and within 1e-6
        (relative, in epsilon) of it; 0.0 when ``epsilon`` is ``inf`` or the
        sensitivity is 0.
    """
    epsilon, delta, target_mu = target_mu_of(epsilon, delta, mu)
    sensitivity = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    k = check_count("n_steps", n_steps, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    factor = min(math.sqrt(k), convergent_gd_factor(c, k),
                 _convex_factor(1, k, diameter, n, sensitivity, learning_rate))

    def accountant(sigma):  # noisy_gd_gdp(sigma, k, ...): its sigma-free factor once
        return _gdp(factor, _scale(sensitivity, n, sigma))

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
    diameter=None,
    mu=None,
):
    r"""Smallest noise std that makes E epochs of cyclic noisy GD (epsilon, delta)-DP.

    Same as :func:`calibrate_noisy_gd` under bound (C) (:func:`noisy_cyclic_gd_gdp`):
    :math:`\sigma = S\,h(E) / (b_{\min}\,\mu^*)`, with
    :math:`h(E) = \min(\sqrt E, g_{\mathrm{cyc}}(E))` the factor of
    :func:`~skdpgd.accounting.convergent_cyclic_factor` (Bok, Su and Altschuler, ICML 2024,
    Theorems 4.4 and 4.5; :ref:`bound-c`) and :math:`b_{\min}` the smallest batch of the
    balanced partition (:func:`~skdpgd.accounting.cyclic_batch_sizes`), nudged up until the
    accountant agrees.

    Parameters
    ----------
    epsilon : float or None
        Target epsilon > 0 (``inf``: no privacy asked); None with ``mu``.
    delta : float
        Target delta in (0, 1).
    batch_size : int
        b in [1, n], the requested batch size (l = ceil(n / b) batches).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the strong convexity of the objective.
    smoothness : float
        beta >= lam, the smoothness of the objective.
    n_epochs : int or float
        E >= 1, the number of passes (``inf`` allowed).
    diameter : float, optional
        D, the diameter of the ball the iterates are projected onto: bound (F)'s factor
        (:func:`convex_cyclic_squares`; Theorem 4.3's with one batch) joins the minimum.
    mu : float, optional
        A Gaussian-DP target instead of ``epsilon`` (then None): the noise is nudged
        until the run's mu is at most it (``target_mu_of``).

    Returns
    -------
    noise_std : float
        sigma on each averaged batch gradient, never above the target and within 1e-6
        (relative, in epsilon) of it; 0.0 when ``epsilon`` is ``inf`` or the
        sensitivity is 0.
    """
    epsilon, delta, target_mu = target_mu_of(epsilon, delta, mu)
    sensitivity = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    e = check_count("n_epochs", n_epochs, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    sizes = cyclic_batch_sizes(n, batch_size)
    b_min = int(sizes.min())
    factor = min(math.sqrt(e), convergent_cyclic_factor(c, len(sizes), e),
                 _convex_factor(len(sizes), e, diameter, b_min, sensitivity, learning_rate))

    def accountant(sigma):  # noisy_cyclic_gd_gdp(sigma, e, ...): its sigma-free factor once
        return _gdp(factor, _scale(sensitivity, b_min, sigma))

    return _noise_for(target_mu, sensitivity, b_min, factor, epsilon, delta, accountant)


def gd_factors(contraction, steps):
    r"""g(K)^2 of bound (A), elementwise: :math:`\min(K, g_{\mathrm{conv}}(K)^2)`.

    Parameters
    ----------
    contraction : float or ndarray
        c (:func:`~skdpgd.accounting.contraction_factor`).
    steps : array_like
        K, broadcast against ``contraction``.

    Returns
    -------
    ndarray
        The smaller of composition (Theorem 4.1) and Theorem 4.2's convergent factor
        (:func:`~skdpgd.accounting._noisy_gd.convergent_gd_squares`), squared.
    """
    steps = np.asarray(steps, dtype=float)
    return np.minimum(steps, convergent_gd_squares(contraction, steps))


def cyclic_factors(contraction, n_batches, epochs):
    r"""h(E)^2 of bound (C), elementwise (E >= 1): :math:`\min(E, h_{\mathrm{conv}}(E)^2)`.

    Parameters
    ----------
    contraction : float or ndarray
        c (:func:`~skdpgd.accounting.contraction_factor`).
    n_batches : int
        l, the number of batches.
    epochs : array_like
        E, broadcast against ``contraction``.

    Returns
    -------
    ndarray
        The smaller of composition (Theorem 4.4) and Theorem 4.5's convergent factor
        (:func:`~skdpgd.accounting._noisy_cyclic_gd.convergent_cyclic_squares`; with l = 1 also
        Theorem 4.2), squared.
    """
    epochs = np.asarray(epochs, dtype=float)
    return np.minimum(epochs, convergent_cyclic_squares(contraction, n_batches, epochs))
