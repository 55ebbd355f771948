r"""Gaussian-DP of the last iterate of projected noisy gradient descent.

One noise convention everywhere (docs/theory.md#noise-convention): the update is

.. math::

    \theta_{k+1} = \Pi_C\big(\theta_k - \eta\,(\nabla F_B(\theta_k) + \sigma Z_k)\big),
    \qquad Z_k \sim N(0, I),

with ``noise_std`` sigma the standard deviation of the noise *on the averaged
gradient*, ``sensitivity`` S the replace-one sensitivity of one per-example
gradient (so the averaged gradient over n records moves by at most S/n), and only
the last iterate released. Neighbouring data sets differ by replacing one record.

All bounds are from Bok, Su and Altschuler (ICML 2024), "Shifted interpolation for
differential privacy"; formulas and hypotheses in docs/theory.md#bounds.
"""

import math

import numpy as np

from ._checks import check_count, check_positive


def contraction_factor(learning_rate, strong_convexity, smoothness):
    r"""Lipschitz constant of one gradient step on a strongly convex, smooth function.

    Parameters
    ----------
    learning_rate : float
        Step size eta > 0.
    strong_convexity : float
        lam >= 0, the strong convexity of the objective.
    smoothness : float
        beta >= lam, the smoothness of the objective.

    Returns
    -------
    c : float
        :math:`c = \max(|1-\eta\lambda|, |1-\eta\beta|)` (Bok-Su-Altschuler, Lemma 2.8;
        projection onto a convex set is 1-Lipschitz and keeps it). ``c < 1`` exactly
        when ``lam > 0`` and ``eta < 2 / beta``; ``eta = 2 / (beta + lam)`` minimises it
        at ``(beta - lam) / (beta + lam)``.
    """
    eta = check_positive("learning_rate", learning_rate)
    lam = check_positive("strong_convexity", strong_convexity, allow_zero=True)
    beta = check_positive("smoothness", smoothness)
    if lam > beta:
        raise ValueError(
            f"strong_convexity ({lam!r}) cannot exceed smoothness ({beta!r})."
        )
    return max(abs(1.0 - eta * lam), abs(1.0 - eta * beta))


def _powers(c, k):
    """(c**k, 1 - c**k) elementwise for 0 <= c < 1 and k >= 0 (k may be inf), without
    cancellation: c**k = exp(k log c) and 1 - c**k = -expm1(k log c)."""
    c, k = np.asarray(c, dtype=float), np.asarray(k, dtype=float)
    positive = c > 0.0
    log_c = np.log(np.where(positive, c, 1.0))  # on c's own shape, before broadcasting
    with np.errstate(invalid="ignore"):
        exponent = np.where(k > 0.0, np.where(positive, k * log_c, -np.inf), 0.0)
    return np.exp(exponent), -np.expm1(exponent)


def convergent_gd_squares(contraction, n_steps):
    r"""The square of Theorem 4.2's convergent factor, elementwise (the one closed form).

    :math:`\frac{1+c}{1-c}\cdot\frac{1-c^K}{1+c^K}` for c < 1, ``inf`` for c >= 1;
    ``contraction`` and ``n_steps`` broadcast together. :func:`convergent_gd_factor` is its
    square root; the planners' vectorised factors
    (:func:`skdpgd.accounting.calibration.gd_factors`) take it as is.
    """
    c = np.asarray(contraction, dtype=float)
    inside = c < 1.0
    safe = np.where(inside, c, 0.0)
    power, rest = _powers(safe, n_steps)
    return np.where(inside, (1.0 + safe) / (1.0 - safe) * rest / (1.0 + power), np.inf)


def convergent_gd_factor(contraction, n_steps):
    r"""The convergent factor of Bok-Su-Altschuler Theorem 4.2 (bound (A)).

    .. math::

        g_{\mathrm{conv}}(K) = \sqrt{\frac{1+c}{1-c}\cdot\frac{1-c^K}{1+c^K}},

    increasing in K towards :math:`\sqrt{(1+c)/(1-c)}`: times :math:`S/(n\sigma)` it is
    the GDP parameter of the last of K full-batch noisy GD steps (Bok, Su and Altschuler,
    ICML 2024, Theorem 4.2; :ref:`bound-a`). The square root of
    ``convergent_gd_squares()``.

    Parameters
    ----------
    contraction : float
        c >= 0, the :func:`contraction_factor` of one gradient step.
    n_steps : int or float
        K >= 0, the number of steps (``inf`` gives the limit).

    Returns
    -------
    float
        :math:`g_{\mathrm{conv}}(K)`; 0 for K = 0, and ``inf`` when ``c >= 1`` (no
        contraction: the theorem does not apply).
    """
    return math.sqrt(float(convergent_gd_squares(float(contraction), n_steps)))


def _check_common(noise_std, sensitivity, n_samples):
    sigma = check_positive("noise_std", noise_std, allow_zero=True, allow_inf=True)
    s = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    return sigma, s, n


def _scale(sensitivity, size, noise_std):
    """S / (size * sigma), with 0/0 read as 0 (no sensitivity) and x/0 as inf."""
    if sensitivity == 0.0 or noise_std == math.inf:
        return 0.0
    if noise_std == 0.0:
        return math.inf
    return sensitivity / (size * noise_std)


def _gdp(factor, scale):
    """factor * scale, with a zero scale (nothing released) giving 0 even for factor inf."""
    return 0.0 if scale == 0.0 else factor * scale


def composition_gdp(noise_std, n_steps, *, sensitivity, n_samples):
    r"""GDP of K noisy full-batch gradient steps by composition (baseline (E)).

    .. math:: \mu = \sqrt{K}\,\frac{S}{n\sigma}

    Each step is a Gaussian mechanism with sensitivity S/n and noise sigma, hence
    (S/(n sigma))-GDP (Dong, Roth and Su 2022, Theorem 2.7); K of them compose to
    sqrt(K) S/(n sigma)-GDP (Dong, Roth and Su 2022, Corollary 3.3; Bok-Su-Altschuler
    Theorem 4.1; :ref:`bound-e`). Valid for any loss, any step size, and also
    when intermediate iterates are released.

    Parameters
    ----------
    noise_std : float
        sigma >= 0, standard deviation of the noise on the averaged gradient (``inf``:
        nothing is released).
    n_steps : int or float
        K >= 0, the number of steps (``inf`` allowed).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).

    Returns
    -------
    mu : float
        :math:`\sqrt{K}\,S/(n\sigma)`: 0 when K = 0, S = 0 or sigma = inf (for any K,
        ``inf`` included); ``inf`` when sigma = 0, S > 0 and K > 0.
    """
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    k = check_count("n_steps", n_steps, minimum=0, allow_inf=True)
    if k == 0:
        return 0.0
    return _gdp(math.sqrt(k), _scale(s, n, sigma))


def noisy_gd_gdp(
    noise_std, n_steps, *, sensitivity, n_samples, learning_rate, strong_convexity, smoothness
):
    r"""GDP of the last iterate of full-batch noisy GD on a strongly convex objective (bound A).

    Parameters
    ----------
    noise_std : float
        sigma, standard deviation of the Gaussian noise added to the averaged gradient.
    n_steps : int
        K, number of noisy steps (``inf`` gives the limit).
    sensitivity : float
        S, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n, number of records (public).
    learning_rate, strong_convexity, smoothness : float
        eta, lam and beta of the objective F_D (:ref:`conventions`).

    Returns
    -------
    mu : float
        .. math::

            \mu_K = \frac{S}{n\sigma}\min\Big(\sqrt{K},
                \sqrt{\tfrac{1+c}{1-c}\cdot\tfrac{1-c^K}{1+c^K}}\Big)

        with c the :func:`contraction_factor`: the better of composition (Theorem 4.1)
        and the convergent bound of Bok, Su and Altschuler (ICML 2024), Theorem 4.2,
        which is exactly tight for quadratic losses when ``eta <= 2/(beta+lam)``. When
        ``c >= 1`` only composition applies.
    """
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    k = check_count("n_steps", n_steps, minimum=0, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    if k == 0:
        return 0.0
    factor = min(math.sqrt(k), convergent_gd_factor(c, k))
    return _gdp(factor, _scale(s, n, sigma))


def convex_gd_burn_in(*, sensitivity, n_samples, learning_rate, diameter):
    r"""The burn-in of bound (B): the step count from which its convergent term holds.

    .. math:: \tau^* = \Big\lceil \frac{Dn}{S\eta} \Big\rceil

    the number of shifted-interpolation steps of Bok, Su and Altschuler (ICML 2024),
    Theorem 4.3 (:ref:`bound-b`): :func:`noisy_gd_convex_gdp` uses its second term
    only for ``K >= tau*``.

    Parameters
    ----------
    sensitivity : float
        S > 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).
    learning_rate : float
        eta > 0, the step size.
    diameter : float
        D > 0, the diameter of the convex set the iterates are projected onto.

    Returns
    -------
    int
        :math:`\tau^*`.
    """
    s = check_positive("sensitivity", sensitivity)
    n = check_count("n_samples", n_samples)
    eta = check_positive("learning_rate", learning_rate)
    d = check_positive("diameter", diameter)
    return math.ceil(d * n / (s * eta))


def noisy_gd_convex_gdp(noise_std, n_steps, *, sensitivity, n_samples, learning_rate, diameter):
    r"""GDP of projected noisy GD on a convex objective over a set of diameter D (bound B).

    .. math::

        \mu = \min\Big(\sqrt{K}\,\frac{S}{n\sigma},\;
            \frac{1}{\sigma}\sqrt{3\,\tfrac{S}{n}\tfrac{D}{\eta}
            + \big(\tfrac{S}{n}\big)^2\big\lceil\tfrac{Dn}{S\eta}\big\rceil}\Big)

    Bok, Su and Altschuler (ICML 2024), Theorem 4.3 (convex, beta-smooth losses with
    ``eta <= 2/beta``; the caller is responsible for that hypothesis), with composition
    (their Theorem 4.1) as the first term; :ref:`bound-b`. The second term is
    the shifted-interpolation bound with tau* = ceil(Dn/(S eta)) steps of shifts
    (:func:`convex_gd_burn_in`); it needs ``K >= tau*``, and for smaller K only composition
    is used (it is then smaller anyway). The estimators' full-batch runs report it with
    D = 2r, r the radius of the ball they project onto, when it is the least bound.

    Parameters
    ----------
    noise_std : float
        sigma >= 0, standard deviation of the noise on the averaged gradient.
    n_steps : int or float
        K >= 0, the number of steps (``inf`` allowed).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).
    learning_rate : float
        eta > 0, at most 2 / beta (not checked: beta is not an argument).
    diameter : float
        D > 0, the diameter of the convex set the iterates are projected onto (it must
        contain theta_0).

    Returns
    -------
    mu : float
        The minimum above: 0 when K = 0 or S = 0, ``inf`` when sigma = 0 and S > 0.
    """
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    k = check_count("n_steps", n_steps, minimum=0, allow_inf=True)
    eta = check_positive("learning_rate", learning_rate)
    d = check_positive("diameter", diameter)
    if k == 0:
        return 0.0
    composed = _gdp(math.sqrt(k), _scale(s, n, sigma))
    if s == 0.0:
        return 0.0
    tau = math.ceil(d * n / (s * eta))
    if k < tau or sigma == 0.0:
        return composed
    per = s / n
    convergent = math.sqrt(3.0 * per * d / eta + per * per * tau) / sigma
    return min(composed, convergent)
