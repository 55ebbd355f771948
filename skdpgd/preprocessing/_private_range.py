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

Where the single cells that survive hold less than half of the records present (none
survives, or a few pass by the noise's luck while the column is spread over many), the
same noisy counts are read at coarser scales (post-processing, :func:`read_scales`):
sums of :math:`g = 2, 4, \dots, 2^{J}` adjacent cells (a public partition), whose noise
is :math:`\sigma\sqrt g` while their counts add up, each scale thresholded at
:math:`z_g\sigma\sqrt g` with :math:`z_g = \Phi^{-1}(1 - \alpha/(J\,G_g))` over its
:math:`G_g` groups, until the survivors of one scale hold that majority
(:func:`majority_of_present`; n is public). The range spans every survivor of every
scale read, the median is read at the last. The coarser scales' family-wise rate is a
second :math:`\alpha` (union bound over the J scales): a small table's column then still
gets a range, and a spread one a range that holds most of it, one group wider at worst.
If nothing survives at any scale (an all-missing column, too few records for the noise)
the result says so (``found=False``) and the caller falls back to a public default: never an error.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ..utils._validation import make_generator

#: The positive edges are :math:`2^{k/2}`, k = GRID_K_MIN..GRID_K_MAX: from
#: :math:`2^{-20} \approx 9.5 \cdot 10^{-7}` to :math:`2^{40} \approx 1.1 \cdot 10^{12}`,
#: ratio :math:`\sqrt 2` (a bound overshoots the data by at most that factor).
GRID_K_MIN, GRID_K_MAX = -40, 80
#: Chance that some empty cell of a histogram passes the threshold (family-wise); the
#: coarser scales, read only where the single cells that pass hold a minority of the
#: records, have the same rate together.
FALSE_CELL_RATE = 1e-3

#: The coarsest scale read (where the finer ones hold a minority): groups of 2, 4, ...,
#: 2**COARSE_LEVELS adjacent cells (16 cells span a factor 2**8 = 256 on the grid's
#: positive side).
COARSE_LEVELS = 4

#: One record replaced moves two histogram cells by 1: l2 sensitivity sqrt(2).
_SQRT2 = np.sqrt(2.0)


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


def cell_edges(edges):
    r"""The lower and upper edges of the value cells of ``edges`` (:func:`cell_counts`' cells).

    Cell k is :math:`[e_k, e_{k+1})` with :math:`e_0 = -\infty`, :math:`e_{m+1} = +\infty`.

    Returns
    -------
    lower, upper : ndarray of shape (m + 1,)
    """
    edges = np.asarray(edges, dtype=np.float64)
    return np.concatenate([[-np.inf], edges]), np.concatenate([edges, [np.inf]])


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


def read_scales(values, sigma, threshold, *, majority=0.0, false_cell_rate=FALSE_CELL_RATE,
                levels=COARSE_LEVELS):
    r"""The scales of the noisy counts read, finest first, until their survivors hold a majority.

    Post-processing of the noisy counts (module notes). Scale 1 is the single cells, each
    kept when its count exceeds ``threshold``. At scale :math:`g = 2^j` (j = 1..``levels``,
    read only for a finite ``sigma > 0``) the value cells are cut into consecutive groups of
    g (a public partition, the last group shorter), each group's noisy counts summed (noise
    :math:`\sigma\sqrt g`) and kept when the sum exceeds :math:`z_g\sigma\sqrt g`,
    :math:`z_g = \Phi^{-1}(1 - \alpha/(J\,G_g))`, with :math:`G_g` groups and J = ``levels``
    scales: when every count is 0, no group of any coarser scale passes with probability at
    least :math:`1 - \alpha` (union bound). Reading stops after the first scale whose kept
    counts sum to at least ``majority`` (with at least one survivor).

    Parameters
    ----------
    values : ndarray of shape (k,)
        Noisy counts of the k value cells (the missing cell left out).
    sigma : float or None
        Their noise standard deviation (None: the single cells only).
    threshold : float
        The single cells' threshold :math:`z\sigma`.
    majority : float, default=0.0
        The kept mass at which reading stops: half of the records present, for the callers
        (0: the first scale with a survivor).
    false_cell_rate : float, default=1e-3
        :math:`\alpha`, for all the coarser scales together.
    levels : int, default=COARSE_LEVELS
        J.

    Returns
    -------
    scales : list of (kept, starts)
        For each scale read, in order: the kept counts or group sums (0 where zeroed) and
        the index of each group's first cell (its last is the next start minus one; every
        cell its own group at scale 1).
    """
    values = np.asarray(values, dtype=np.float64)
    kept = np.where(values > threshold, values, 0.0)
    scales = [(kept, np.arange(values.size))]
    coarse = sigma is not None and np.isfinite(sigma) and sigma > 0.0
    for j in range(1, int(levels) + 1 if coarse else 1):
        if np.any(kept > 0) and kept.sum() >= majority:
            break
        size = 2**j
        starts = np.arange(0, values.size, size)
        sums = np.add.reduceat(values, starts)
        group_threshold = threshold_z(starts.size * int(levels), false_cell_rate) * sigma
        group_threshold *= np.sqrt(size)
        kept = np.where(sums > group_threshold, sums, 0.0)
        scales.append((kept, starts))
    return scales


def group_ends(starts, n_cells):
    """The last cell of each group of :func:`read_scales` (the next start minus one)."""
    return np.concatenate([starts[1:], [n_cells]]) - 1


def majority_of_present(noisy_missing, n_records):
    r"""Half of the records present, :math:`\frac12(n - \max(\tilde c_{\rm missing}, 0))`
    (n public, the missing cell's noisy count released): where :func:`read_scales` stops.

    Parameters
    ----------
    noisy_missing : float
        The missing cell's noisy count.
    n_records : int
        n, the number of records (public).

    Returns
    -------
    majority : float
        At least 0.
    """
    missing = min(max(float(noisy_missing), 0.0), float(n_records))
    return 0.5 * (float(n_records) - missing)


def range_from_noisy_counts(noisy, edges, threshold, *, sigma=None, n_records=0,
                            false_cell_rate=FALSE_CELL_RATE):
    r"""The range, median and whether anything survived, from a noisy histogram only.

    Parameters
    ----------
    noisy : ndarray of shape (m + 2,)
        Noisy counts (the last is the missing cell's).
    edges : ndarray of shape (m,)
        The public edges.
    threshold : float
        Cells with noisy count <= threshold are zeroed.
    sigma : float, optional
        The counts' noise: the coarser scales of :func:`read_scales` are read while the
        survivors hold less than half of the records present (None: single cells only).
    n_records : int, default=0
        n, the number of records (public): the scales are read until their survivors hold
        :func:`majority_of_present` (0: until the first survivor).
    false_cell_rate : float, default=1e-3
        :math:`\alpha` of the coarser scales (:func:`read_scales`).

    Returns
    -------
    result : PrivateRange
        The range spans every survivor of every scale read; the median is read at the
        last scale read that has one.
    """
    noisy = np.asarray(noisy, dtype=np.float64)
    values = noisy[: edges.size + 1]
    majority = majority_of_present(noisy[edges.size + 1], n_records) if n_records else 0.0
    scales = [(kept, starts) for kept, starts in read_scales(
        values, sigma, threshold, majority=majority, false_cell_rate=false_cell_rate)
        if np.any(kept > 0)]
    if not scales:
        return PrivateRange(0.0, 1.0, 0.5, 1.0, False)
    outer = float(edges[-1])
    lower_edges = np.concatenate([[-outer], edges])  # cell k starts at lower_edges[k]
    upper_edges = np.concatenate([edges, [outer]])
    low, high = math.inf, -math.inf
    for kept, starts in scales:  # the hull of every survivor read
        ends = group_ends(starts, values.size)
        alive = np.flatnonzero(kept > 0)
        low = min(low, float(lower_edges[starts[alive[0]]]))
        high = max(high, float(upper_edges[ends[alive[-1]]]))
    if low == high == -outer:  # only the cell below -e_m: a unit-width range there
        low, high = -outer - 1.0, -outer
    elif low == high == outer:
        low, high = outer, outer + 1.0
    kept, starts = scales[-1]  # the median at the last scale read
    ends = group_ends(starts, values.size)
    cumulative = np.cumsum(kept)
    k = int(np.searchsorted(cumulative, 0.5 * cumulative[-1]))
    cell_low = max(float(lower_edges[starts[k]]), low)
    cell_high = min(float(upper_edges[ends[k]]), high)
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


def sigma_for_mu(mu, sensitivity=_SQRT2):
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
    :math:`z = \Phi^{-1}(1 - \alpha/(m+1))`; where the cells that pass hold less than half
    of the records present, the same counts are read at coarser scales until a scale's
    survivors hold that majority (sums of 2, 4, 8, 16 adjacent cells, noise
    :math:`\sigma\sqrt g`, thresholds at a family-wise rate :math:`\alpha` of their own;
    the range spans every survivor read; docs/theory.md, "Coarser scales").

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
    return range_from_noisy_counts(noisy, edges, threshold, sigma=sigma, n_records=x.size,
                                   false_cell_rate=false_cell_rate)
