r"""Gaussian DP of projected noisy GD on a convex objective over a domain of diameter D.

Bounds (B) and (F) of docs/theory.md#bounds: full batch, Bok, Su and Altschuler (ICML 2024),
Theorem 4.3; cyclic batches, the shifted-interpolation bound of docs/theory.md#bound-f
(the setting of their Theorem 4.6, with the shifts written out and proved there). Both
need only a convex, beta-smooth loss with ``eta <= 2/beta`` and every iterate projected onto
a public convex set of diameter D holding theta_0 (a ball of radius r: D = 2r). They hold
for lam = 0; for lam > 0 they hold too (a strongly convex loss is convex) and are reported
when they beat the strongly convex ones. Squares of the factors, in units of
:math:`S/(n\sigma)` (full batch) or :math:`S/(b\sigma)` (cyclic), vectorised for the
planners; ``inf`` where a bound does not apply.
"""

import math

import numpy as np

from ._checks import check_count, check_positive
from ._noisy_cyclic_gd import cyclic_batch_sizes
from ._noisy_gd import _check_common, _gdp, _scale

__all__ = ["convex_cyclic_squares", "convex_gd_squares", "noisy_cyclic_gd_convex_gdp",
           "shift_ratio"]


def shift_ratio(*, diameter, size, sensitivity, learning_rate):
    r""":math:`x = D\,b/(S\eta)`: the diameter in units of one step's sensitivity shift.

    A record moves one step's iterate by at most :math:`\eta S/b` (b = n for full batch);
    x such shifts cover the domain. Vectorised over ``learning_rate`` and ``diameter``.

    Parameters
    ----------
    diameter : float or ndarray
        D > 0 (``inf``: no bounded domain, x = inf).
    size : int
        b, the rows of a step's average (n for full batch, the smallest batch else).
    sensitivity : float
        S > 0.
    learning_rate : float or ndarray
        eta > 0.

    Returns
    -------
    float or ndarray
        x.
    """
    with np.errstate(over="ignore"):
        return np.asarray(diameter, dtype=float) * float(size) / (
            float(sensitivity) * np.asarray(learning_rate, dtype=float))


def convex_gd_squares(n_steps, ratio):
    r"""Theorem 4.3's factor squared: :math:`3x + \lceil x\rceil` for :math:`K \ge \lceil x\rceil`.

    Bok, Su and Altschuler (ICML 2024), Theorem 4.3:
    :math:`\mu = \frac1\sigma\sqrt{3\frac Sn\frac D\eta + (\frac Sn)^2\tau^*}`,
    :math:`\tau^* = \lceil Dn/(S\eta)\rceil`, i.e. :math:`(S/(n\sigma))^2(3x + \tau^*)` with
    x = ``shift_ratio``; valid from :math:`K \ge \tau^*` on and constant after it
    (``inf`` before: composition binds there anyway). Elementwise.

    Parameters
    ----------
    n_steps : int, float or ndarray
        K.
    ratio : float or ndarray
        x = D n / (S eta).

    Returns
    -------
    ndarray
        The squares (``inf`` for K < tau* or x = inf).
    """
    k, x = np.asarray(n_steps, dtype=float), np.asarray(ratio, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        tau = np.ceil(x)
        return np.where(np.isfinite(x) & (k >= tau), 3.0 * x + tau, np.inf)


def _spread_squares(batches, m, x):
    r"""The cost of the spread shifts over the last m epochs (docs/theory.md#bound-f).

    :math:`\frac{(x+m)^2}{ml}` where :math:`x + m \ge ml` (equal shifts), else
    :math:`\frac{(x+m-1)^2}{ml-1} + 1` (equal shifts but 1 at the record's last visit);
    feasible for every batch position when :math:`x \ge 1 - 1/l`. Elementwise.
    """
    steps = m * batches
    with np.errstate(over="ignore", invalid="ignore"):
        equal = (x + m) ** 2 / steps
        last = (x + m - 1.0) ** 2 / (steps - 1.0) + 1.0
    return np.where(x + m >= steps, equal, last)


def convex_cyclic_squares(n_batches, n_epochs, ratio):
    r"""Bound (F)'s factor squared: the least of two explicit shift schedules, over m.

    docs/theory.md#bound-f: the last m epochs (m l steps) carry the shifted interpolation
    from a distance of at most D to 0. Absorbing the record's displacement
    :math:`\eta S/b` at the step it enters costs
    :math:`\min_{1\le m\le E} \frac{x^2}{m l} + \frac{2x}{l} + m`; spreading it over
    the following steps (equal shifts, 1 at the record's last visit) costs
    :math:`\min_{1\le m\le E}\frac{(x+m-1)^2}{ml-1} + 1` (or :math:`\frac{(x+m)^2}{ml}`
    where :math:`x+m \ge ml`), valid for :math:`x \ge 1 - 1/l` and within rounding of the
    proof method's optimum there, about :math:`4(x-1+1/l)/l + 1`. Both in units
    :math:`(S/(b\sigma))^2`; the integer minima over m are at the floors or ceilings of
    :math:`x/\sqrt l`, of :math:`x - 1 + 2/l` and of :math:`x/(l-1)` (or at E). With one
    batch it is Theorem 4.3's (:func:`convex_gd_squares`), the bound the full-batch
    accountant reports. Elementwise in E and x.

    Parameters
    ----------
    n_batches : int
        l >= 1.
    n_epochs : int, float or ndarray
        E >= 1 (``inf`` allowed).
    ratio : float or ndarray
        x = D b / (S eta), b the smallest batch.

    Returns
    -------
    ndarray
        The squares (``inf`` where x = inf).
    """
    batches = int(n_batches)
    if batches == 1:
        return convex_gd_squares(n_epochs, ratio)
    e, x = np.asarray(n_epochs, dtype=float), np.asarray(ratio, dtype=float)
    finite = np.isfinite(x)
    safe = np.where(finite, x, 1.0)
    best = np.full(np.broadcast(e, safe).shape, np.inf)
    top = np.maximum(e, 1.0)
    centre = safe / math.sqrt(batches)
    for m in (np.floor(centre), np.floor(centre) + 1.0):
        m = np.clip(m, 1.0, top)
        with np.errstate(over="ignore"):
            value = safe * safe / (m * batches) + 2.0 * safe / batches + m
        best = np.minimum(best, value)
    spread = np.full(best.shape, np.inf)
    turn, edge = safe - 1.0 + 2.0 / batches, safe / (batches - 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        last = np.where(np.isfinite(top), top, 1.0)  # E itself (E = inf: no candidate)
        for m in (np.floor(turn), np.floor(turn) + 1.0, np.floor(edge), np.floor(edge) + 1.0,
                  last):
            spread = np.minimum(spread, _spread_squares(batches, np.clip(m, 1.0, top), safe))
    best = np.where(safe >= 1.0 - 1.0 / batches, np.minimum(best, spread), best)
    return np.where(finite, best, np.inf)


def noisy_cyclic_gd_convex_gdp(
    noise_std, n_epochs, *, batch_size, sensitivity, n_samples, learning_rate, diameter
):
    r"""GDP of projected cyclic noisy GD, convex, domain of diameter D (bound (F)).

    .. math::

        \mu_E = \frac{S}{b\sigma}\min\Big(\sqrt E,\ \sqrt{h_E(x)}\Big),\qquad
            x = \frac{Db}{S\eta},

    :math:`h_E` the squares of :func:`convex_cyclic_squares` (two explicit shift schedules),
    with b the smallest batch of the balanced partition of n rows into l batches
    (:func:`cyclic_batch_sizes`); composition (Bok, Su and Altschuler 2024, Theorem 4.4) as
    the first term. docs/theory.md#bound-f; with l = 1 the second term is Theorem 4.3's.

    Parameters
    ----------
    noise_std : float
        sigma >= 0, the noise on each averaged batch gradient.
    n_epochs : int or float
        E >= 0.
    batch_size : int
        The requested batch size.
    sensitivity : float
        S >= 0.
    n_samples : int
        n >= 1.
    learning_rate : float
        eta > 0, at most 2 / beta (the caller's hypothesis).
    diameter : float
        D > 0, the diameter of the convex set the iterates are projected onto.

    Returns
    -------
    mu : float
        0 when E = 0 or S = 0, ``inf`` when sigma = 0 and S > 0.
    """
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    e = check_count("n_epochs", n_epochs, minimum=0, allow_inf=True)
    eta = check_positive("learning_rate", learning_rate)
    d = check_positive("diameter", diameter, allow_inf=True)
    sizes = cyclic_batch_sizes(n, batch_size)
    b_min = int(sizes.min())
    if e == 0 or s == 0.0:
        return 0.0
    ratio = shift_ratio(diameter=d, size=b_min, sensitivity=s, learning_rate=eta)
    squares = min(e, float(convex_cyclic_squares(len(sizes), e, ratio)))
    return _gdp(math.sqrt(squares), _scale(s, b_min, sigma))
