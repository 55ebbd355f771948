r"""A private range of one numeric column: a Gaussian histogram over a public grid.

Mechanism (docs/theory.md#private-range). The real line is cut into cells by a public
grid of edges :math:`e_1 < \dots < e_m` (:func:`public_grid`, symmetric around 0 and
logarithmic: :math:`\pm 2^{k/2}` from :math:`2^{-20}` to :math:`2^{40}`, with 0 an
edge); with one more cell for a missing value, every record falls in exactly one of the
:math:`m + 2` cells

.. math::

    (-\infty, e_1),\ [e_1, e_2),\ \dots,\ [e_m, +\infty],\ \{\text{missing}\} .

The count vector :math:`c(D) \in \mathbb Z^{m+2}` changes, when one record is replaced
by another (replace-one, n public), by :math:`e_a - e_b` for two cells a, b (or not at
all), so its L2 sensitivity is :math:`\Delta_2 = \sqrt 2`. The release
:math:`\tilde c = c(D) + \sigma Z`, :math:`Z \sim \mathcal N(0, I)`, is therefore
:math:`\mu`-GDP with :math:`\mu = \sqrt 2/\sigma` (Dong, Roth and Su 2022, Theorem 2.7),
and everything computed from :math:`\tilde c` alone is post-processing:

- cells with :math:`\tilde c_k \le z\sigma` are zeroed, with :math:`z` chosen so that,
  when every count is 0, no cell passes with probability at least
  :math:`1 - \alpha` (Bonferroni over the cells: :math:`z = \Phi^{-1}(1 - \alpha/(m+1))`,
  :math:`\alpha = 10^{-3}` by default). A spurious cell far from the data would
  stretch the range by orders of magnitude, hence the family-wise rate;
- the range is :math:`[\text{low edge of the lowest surviving cell},\ \text{high edge of
  the highest}]` (the outer cells' infinite edges are replaced by :math:`\mp e_m`);
- the median is the cell where the surviving mass crosses one half.

If no single cell survives, the same noisy counts are read at coarser scales
(post-processing, :func:`coarse_cells`): sums of :math:`g = 2, 4, \dots,
2^{J}` adjacent cells (a public partition), whose noise is :math:`\sigma\sqrt g` while
their counts add up, each scale thresholded at :math:`z_g\sigma\sqrt g` with
:math:`z_g = \Phi^{-1}(1 - \alpha/(J\,G_g))` over its :math:`G_g` groups; the first scale
with a surviving group gives the range. Its family-wise rate is a second :math:`\alpha`
(union bound over the J scales), spent only where no single cell passed: a few hundred
records spread over several cells (a small table) then still get a range, one group wide
at worst instead of the public fallback. If nothing survives at any scale (an
all-missing column, too few records for the noise) the result says so (``found=False``)
and the caller falls back to a public default: never an error.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ..utils._validation import make_generator

#: The positive edges are :math:`2^{k/2}`, k = GRID_K_MIN..GRID_K_MAX: from
#: :math:`2^{-20} \approx 9.5 \cdot 10^{-7}` to :math:`2^{40} \approx 1.1 \cdot 10^{12}`,
#: ratio :math:`\sqrt 2` (a bound overshoots the data by at most that factor).
GRID_K_MIN, GRID_K_MAX = -40, 80
#: Chance that some empty cell of a histogram passes the threshold (family-wise); the
#: coarser scales, read only where no single cell passes, have the same rate together.
FALSE_CELL_RATE = 1e-3

#: The coarsest scale read when no single cell passes: groups of 2, 4, ..., 2**COARSE_LEVELS
#: adjacent cells (16 cells span a factor 2**8 = 256 on the grid's positive side).
COARSE_LEVELS = 4


def public_grid(k_min=GRID_K_MIN, k_max=GRID_K_MAX):
    r"""The public edges: 0 and :math:`\pm 2^{k/2}` for :math:`k_{\min} \le k \le k_{\max}`.

    Parameters
    ----------
    k_min, k_max : int, default=-40, 80
        Range of the exponents (public): edges from :math:`2^{-20}` to :math:`2^{40}`.

    Returns
    -------
    edges : ndarray of shape (2 (k_max - k_min + 1) + 1,)
        Increasing, symmetric around 0, with 0 itself an edge (so a non-negative column
        gets a lower bound of exactly 0). Even k give exact powers of two.

    Examples
    --------
    >>> edges = public_grid()
    >>> len(edges), float(edges[edges.size // 2]), float(edges.max())
    (243, 0.0, 1099511627776.0)
    """
    positive = 2.0 ** (np.arange(k_min, k_max + 1) / 2.0)
    return np.concatenate([-positive[::-1], [0.0], positive])


def cell_counts(x, edges):
    r"""Counts of the cells :math:`(-\infty, e_1), [e_1, e_2), \dots, [e_m, \infty]`, missing.

    Parameters
    ----------
    x : ndarray of shape (n,), float64
        One column; NaN is a missing value, :math:`\pm\infty` fall in the outer cells.
    edges : ndarray of shape (m,)
        Increasing public edges.

    Returns
    -------
    counts : ndarray of shape (m + 2,), float64
        ``counts[k]`` for cell k = 0..m (cell k holds :math:`e_k \le x < e_{k+1}`, with
        :math:`e_0 = -\infty`, :math:`e_{m+1} = +\infty`); ``counts[m + 1]`` counts the
        missing values. Every record is in exactly one cell: the sum is n.
    """
    x = np.asarray(x, dtype=np.float64)
    missing = np.isnan(x)
    cells = np.searchsorted(edges, x[~missing], side="right")
    counts = np.bincount(cells, minlength=edges.size + 1).astype(np.float64)
    return np.concatenate([counts, [float(missing.sum())]])


def threshold_z(n_cells, false_cell_rate=FALSE_CELL_RATE):
    r""":math:`z = \Phi^{-1}(1 - \alpha / k)`: no empty cell of k passes w.p. :math:`\ge 1-\alpha`.

    Parameters
    ----------
    n_cells : int
        Number of cells that could pass (the value cells, k = m + 1).
    false_cell_rate : float, default=1e-3
        :math:`\alpha`.

    Returns
    -------
    z : float
    """
    return float(ndtri(1.0 - false_cell_rate / n_cells))


@dataclass(frozen=True)
class PrivateRange:
    """A range read from a noisy histogram (post-processing of the release only).

    Attributes
    ----------
    low, high : float
        The range, ``low < high``; meaningless when ``found`` is False.
    median : float
        The midpoint of the cell where the surviving mass crosses one half, inside
        [low, high].
    median_high : float
        That cell's high edge (clipped to ``high``), used by the heavy-tail rule.
    found : bool
        Whether some cell passed the threshold.
    """

    low: float
    high: float
    median: float
    median_high: float
    found: bool


def coarse_cells(values, sigma, false_cell_rate=FALSE_CELL_RATE, levels=COARSE_LEVELS):
    r"""The first coarser scale at which some group of cells passes (module notes).

    Post-processing of the noisy counts: at scale :math:`g = 2^j` (j = 1..``levels``) the
    value cells are cut into consecutive groups of g (the last one shorter), each group's
    noisy counts summed (noise :math:`\sigma\sqrt g`) and kept when the sum exceeds
    :math:`z_g\sigma\sqrt g`, :math:`z_g = \Phi^{-1}(1 - \alpha/(J\,G_g))`, with
    :math:`G_g` groups and J = ``levels`` scales: when every count is 0, no group of any
    scale passes with probability at least :math:`1 - \alpha` (union bound).

    Parameters
    ----------
    values : ndarray of shape (k,)
        Noisy counts of the k value cells (the missing cell left out).
    sigma : float
        Their noise standard deviation.
    false_cell_rate : float, default=1e-3
        :math:`\alpha`, for all the coarser scales together.
    levels : int, default=COARSE_LEVELS
        J.

    Returns
    -------
    kept : ndarray or None
        The kept group sums (0 where zeroed) of the first scale with a surviving group,
        None if no scale has one.
    starts : ndarray or None
        The index of each group's first cell (its last is the next start minus one).
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(sigma) or sigma <= 0.0 or levels < 1:
        return None, None
    for j in range(1, int(levels) + 1):
        size = 2**j
        starts = np.arange(0, values.size, size)
        sums = np.add.reduceat(values, starts)
        threshold = threshold_z(starts.size * int(levels), false_cell_rate) * sigma
        threshold *= np.sqrt(size)
        kept = np.where(sums > threshold, sums, 0.0)
        if np.any(kept > 0):
            return kept, starts
    return None, None


def range_from_noisy_counts(noisy, edges, threshold, *, sigma=None,
                            false_cell_rate=FALSE_CELL_RATE):
    """The range, median and whether anything survived, from a noisy histogram only.

    Parameters
    ----------
    noisy : ndarray of shape (m + 2,)
        Noisy counts (the last, the missing cell, is ignored).
    edges : ndarray of shape (m,)
        The public edges.
    threshold : float
        Cells with noisy count <= threshold are zeroed.
    sigma : float, optional
        The counts' noise: where no single cell passes, the coarser scales of
        :func:`coarse_cells` are read (None: single cells only).
    false_cell_rate : float, default=1e-3
        :math:`\alpha` of the coarser scales (:func:`coarse_cells`).

    Returns
    -------
    result : PrivateRange
    """
    values = np.asarray(noisy, dtype=np.float64)[: edges.size + 1]
    kept = np.where(values > threshold, values, 0.0)
    alive = np.flatnonzero(kept > 0)
    outer = float(edges[-1])
    lower_edges = np.concatenate([[-outer], edges])  # cell k starts at lower_edges[k]
    upper_edges = np.concatenate([edges, [outer]])
    if alive.size == 0 and sigma is not None:  # the same counts, at a coarser scale
        groups, starts = coarse_cells(values, sigma, false_cell_rate)
        if groups is not None:
            ends = np.concatenate([starts[1:], [values.size]]) - 1
            kept, lower_edges, upper_edges = groups, lower_edges[starts], upper_edges[ends]
            alive = np.flatnonzero(kept > 0)
    if alive.size == 0:
        return PrivateRange(0.0, 1.0, 0.5, 1.0, False)
    lo_cell, hi_cell = alive[0], alive[-1]
    low, high = float(lower_edges[lo_cell]), float(upper_edges[hi_cell])
    if lo_cell == hi_cell and low == -outer == high:  # only the cell below -e_m: a
        low, high = -outer - 1.0, -outer  # unit-width range there
    elif lo_cell == hi_cell and low == outer == high:
        low, high = outer, outer + 1.0
    cumulative = np.cumsum(kept)
    k = int(np.searchsorted(cumulative, 0.5 * cumulative[-1]))
    cell_low = max(float(lower_edges[k]), low)
    cell_high = min(float(upper_edges[k]), high)
    median = min(max(0.5 * (cell_low + cell_high), low), high)
    return PrivateRange(low, high, median, cell_high, True)


def noisy_histogram(x, sigma, rng, edges):
    r"""The release :math:`c(D) + \sigma Z` of the cell counts (:math:`\sqrt2/\sigma`-GDP).

    Parameters
    ----------
    x : ndarray of shape (n,), float64
        One column, NaN for missing.
    sigma : float
        Noise standard deviation (0 for no noise, ``inf`` for no release).
    rng : numpy.random.Generator
        The noise source.
    edges : ndarray of shape (m,)
        The public edges.

    Returns
    -------
    noisy : ndarray of shape (m + 2,)
        All NaN when ``sigma`` is infinite (nothing is released).
    """
    n_cells = edges.size + 2
    if not np.isfinite(sigma):
        return np.full(n_cells, np.nan)
    noise = rng.standard_normal(n_cells) * sigma
    return cell_counts(x, edges) + noise


def sigma_for_mu(mu, sensitivity=np.sqrt(2.0)):
    r""":math:`\sigma = \Delta_2/\mu`, the Gaussian mechanism's noise for :math:`\mu`-GDP.

    Dong, Roth and Su (2022), Theorem 2.7. ``mu = inf`` gives 0 (no noise), ``mu = 0``
    gives ``inf`` (no release).

    Parameters
    ----------
    mu : float
        The release's GDP parameter.
    sensitivity : float, default=sqrt(2)
        L2 sensitivity of the released vector.

    Returns
    -------
    sigma : float
    """
    mu = float(mu)
    if mu <= 0.0:
        return np.inf
    if np.isinf(mu):
        return 0.0
    return float(sensitivity) / mu


def private_range(x, mu, random_state=None, *, edges=None, false_cell_rate=FALSE_CELL_RATE):
    r"""A :math:`\mu`-GDP range of one column (noisy histogram over the public grid).

    Parameters
    ----------
    x : array-like of shape (n,)
        One numeric column; NaN is a missing value, infinities fall in the outer cells.
    mu : float
        GDP budget of the release (``np.inf``: exact counts, no privacy).
    random_state : None, int or numpy.random.Generator, default=None
        The noise source.
    edges : ndarray or None, default=None
        Public edges (default: the grid of the module notes, ``public_grid()``).
    false_cell_rate : float, default=1e-3
        Family-wise chance that an empty cell passes the threshold.

    Returns
    -------
    result : PrivateRange
        The range and median; ``found`` is False when no cell passed (the caller then
        uses a public default).

    Notes
    -----
    The counts have replace-one L2 sensitivity :math:`\sqrt 2` (one record leaves one
    cell for another), so noise :math:`\sigma = \sqrt 2/\mu` makes the histogram
    :math:`\mu`-GDP (Dong, Roth and Su 2022, Theorem 2.7); the range is a function of
    the noisy histogram only. Threshold :math:`z\sigma` with
    :math:`z = \Phi^{-1}(1 - \alpha/(m+1))`; where no single cell passes, the same
    counts are read at coarser scales (sums of 2, 4, 8, 16 adjacent cells, noise
    :math:`\sigma\sqrt g`, thresholds at a family-wise rate :math:`\alpha` of their own;
    docs/theory.md, "Coarser scales").

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).uniform(20, 60, 10_000)
    >>> r = private_range(x, mu=1.0, random_state=0)
    >>> r.found, r.low <= 20 and r.high >= 60
    (True, True)
    """
    edges = public_grid() if edges is None else np.asarray(edges, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64).ravel()
    sigma = sigma_for_mu(mu)
    if not np.isfinite(sigma):
        return PrivateRange(0.0, 1.0, 0.5, 1.0, False)
    noisy = noisy_histogram(x, sigma, make_generator(random_state), edges)
    threshold = threshold_z(edges.size + 1, false_cell_rate) * sigma
    return range_from_noisy_counts(noisy, edges, threshold, sigma=sigma,
                                   false_cell_rate=false_cell_rate)
