r"""Gaussian-DP of the last iterate of cyclic mini-batch noisy gradient descent (bound (C)).

The same noise convention as :mod:`._noisy_gd` (docs/theory.md#noise-convention), with
each step's gradient averaged over one batch of a fixed, balanced partition of the n rows,
visited in a fixed order (K = l E steps for E passes over l batches): a record in a batch
of size b moves that step's averaged gradient by at most S/b. Bok, Su and Altschuler (ICML
2024), Theorems 4.4 (composition) and 4.5 (convergent); formulas and hypotheses in
docs/theory.md#bounds. With one batch the run is full-batch noisy GD, and Theorem 4.2
(:mod:`._noisy_gd`) applies as well.
"""

import math

import numpy as np

from ._checks import check_count
from ._noisy_gd import (
    _check_common,
    _gdp,
    _powers,
    _scale,
    contraction_factor,
    convergent_gd_squares,
)


def cyclic_batch_sizes(n_samples, batch_size):
    """Sizes of the l = ceil(n/b) batches of a balanced cyclic partition of n rows.

    The rows are split into l batches whose sizes differ by at most one (floor(n/l)
    or ceil(n/l)), the largest first. The smallest, ``n // l``, is what bound (C) uses
    (:ref:`bound-c`): a record in a batch of size b moves that step's averaged
    gradient by at most S/b, largest for the smallest batch.

    Parameters
    ----------
    n_samples : int
        n >= 1, number of rows (public).
    batch_size : int
        b in [1, n], the requested batch size.

    Returns
    -------
    ndarray of int
        The l sizes, in decreasing order; they sum to n.
    """
    n = check_count("n_samples", n_samples)
    b = check_count("batch_size", batch_size)
    if b > n:
        raise ValueError(f"batch_size ({b}) cannot exceed n_samples ({n}).")
    n_batches = -(-n // b)
    small, extra = divmod(n, n_batches)
    return np.array([small + 1] * extra + [small] * (n_batches - extra), dtype=int)


def noisy_cyclic_gd_gdp(
    noise_std,
    n_epochs,
    *,
    batch_size,
    sensitivity,
    n_samples,
    learning_rate,
    strong_convexity,
    smoothness,
):
    r"""GDP of the last iterate of cyclic mini-batch noisy GD, strongly convex (bound C).

    Parameters
    ----------
    noise_std : float
        sigma, noise standard deviation on each averaged mini-batch gradient.
    n_epochs : int
        E, number of passes; each visits the l = ceil(n / batch_size) batches of a
        fixed partition in a fixed order (K = l E steps).
    batch_size : int
        Requested batch size b. The partition is balanced (:func:`cyclic_batch_sizes`)
        and the bound uses the smallest batch, b_min = n // l (:ref:`bound-c`).
    sensitivity : float
        S, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n, number of records (public).
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the strong convexity of the objective.
    smoothness : float
        beta >= lam, the smoothness of the objective.

    Returns
    -------
    mu : float
        .. math::

            \mu_E = \frac{S}{b\sigma}\min\Big(\sqrt{E}, \sqrt{1 + c^{2l-2}
                \frac{1-c^2}{(1-c^l)^2}\cdot\frac{1-c^{l(E-1)}}{1+c^{l(E-1)}}}\Big)

        Bok, Su and Altschuler (ICML 2024), Theorem 4.5 (convergent) and Theorem 4.4
        (composition, sqrt(E) S/(b sigma)). At ``c = 1`` (lam = 0) the second term is
        its limit :math:`\sqrt{1 + (E-1)/l}` (docs/theory.md#bound-c); when ``c > 1``
        only composition applies.
    """
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    e = check_count("n_epochs", n_epochs, minimum=0, allow_inf=True)
    c = contraction_factor(learning_rate, strong_convexity, smoothness)
    sizes = cyclic_batch_sizes(n, batch_size)
    n_batches, b_min = len(sizes), int(sizes.min())
    if e == 0:
        return 0.0
    factor = min(math.sqrt(e), convergent_cyclic_factor(c, n_batches, e))
    return _gdp(factor, _scale(s, b_min, sigma))


def convergent_cyclic_squares(contraction, n_batches, n_epochs):
    r"""The square of Theorem 4.5's convergent factor, elementwise (the one closed form).

    .. math::

        1 + c^{2l-2}\frac{1-c^2}{(1-c^l)^2}\cdot\frac{1-c^{l(E-1)}}{1+c^{l(E-1)}}

    for c < 1 and E > 1 (1 for E <= 1); at c = 1 (non-expansive steps: lam = 0, convex)
    its limit :math:`1 + (E-1)/l`, proved there directly (docs/theory.md#bound-c); ``inf``
    for c > 1. With one batch (l = 1) the smaller of it and ``convergent_gd_squares()``
    (Theorem 4.2 with K = E, exact for full batches; at c = 1 the limit is E, composition).
    ``contraction`` and ``n_epochs`` broadcast together.
    :func:`convergent_cyclic_factor` is its square root; the planners' vectorised factors
    (:func:`skdpgd.accounting.calibration.cyclic_factors`) take it as is.
    """
    c, e = np.asarray(contraction, dtype=float), np.asarray(n_epochs, dtype=float)
    batches = int(n_batches)
    inside = c < 1.0
    safe = np.where(inside, c, 0.0)
    head_power, _ = _powers(safe, 2 * batches - 2)
    _, head_rest = _powers(safe, batches)
    # 1 - c^2 as (1 - c)(1 + c): 1 - c is exact for c >= 1/2 (Sterbenz), where 1 - c*c
    # loses digits to cancellation (2.5e-10 of the factor at c = 1 - 1.8e-8), and a
    # factor below the exact one would calibrate too little noise
    head = head_power * ((1.0 - safe) * (1.0 + safe)) / head_rest**2
    with np.errstate(invalid="ignore"):
        power, rest = _powers(safe, np.where(e > 1.0, batches * (e - 1.0), 0.0))
    squares = np.where(e <= 1.0, 1.0, 1.0 + head * rest / (1.0 + power))
    if batches == 1:
        squares = np.minimum(squares, convergent_gd_squares(safe, e))
    # c = 1: the limit, whose shifts (1/l per step after the record's first batch, 1 at its
    # last) are feasible for non-expansive steps (docs/theory.md#bound-c)
    with np.errstate(invalid="ignore"):
        limit = np.where(e <= 1.0, 1.0, 1.0 + (e - 1.0) / batches)
    return np.where(inside, squares, np.where(c == 1.0, limit, np.inf))


def convergent_cyclic_factor(contraction, n_batches, n_epochs):
    r"""The convergent factor of Bok-Su-Altschuler Theorem 4.5 (bound (C)).

    .. math::

        g_{\mathrm{cyc}}(E) = \sqrt{1 + c^{2l-2}\,\frac{1-c^2}{(1-c^l)^2}
            \cdot\frac{1-c^{l(E-1)}}{1+c^{l(E-1)}}}

    for E > 1 (1 for E <= 1): times :math:`S/(b\sigma)` it is the GDP parameter of the
    last iterate of E epochs of cyclic noisy GD over l batches of smallest size b (Bok, Su
    and Altschuler, ICML 2024, Theorem 4.5; :ref:`bound-c`). With one batch
    (l = 1) the run is full-batch noisy GD with K = E steps, for which Theorem 4.2 is
    exact (:func:`convergent_gd_factor`); the smaller of the two is returned, so
    full-batch GD is cyclic GD with one batch and loses nothing. The square root of
    ``convergent_cyclic_squares()``.

    Parameters
    ----------
    contraction : float
        c >= 0, the :func:`contraction_factor` of one gradient step.
    n_batches : int
        l >= 1, the number of batches of the cyclic partition.
    n_epochs : int or float
        E >= 0, the number of passes (``inf`` gives the limit).

    Returns
    -------
    float
        :math:`g_{\mathrm{cyc}}(E)`; at ``c = 1`` its limit :math:`\sqrt{1 + (E-1)/l}`
        (l >= 2: shifted interpolation across batches, proved for non-expansive steps);
        ``inf`` when ``c > 1``.
    """
    return math.sqrt(float(convergent_cyclic_squares(float(contraction), n_batches, n_epochs)))
