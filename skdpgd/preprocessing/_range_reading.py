r"""A column's range, tails and median read from one noisy histogram (post-processing only).

The reading of :func:`~skdpgd.preprocessing._private_range.range_from_noisy_counts` (single
cells, then coarser scales until the survivors hold a majority; docs/theory.md, "Coarser
scales") with three changes, each a function of the noisy counts, the public grid, n and
the noise level alone (docs/theory.md, "Reading a column's range"):

- **a point mass does not set the scale**: where one cell holds more than half of the
  records present by itself, the records outside it, :math:`r = N - \tilde c_{\max}`
  (:math:`N` the records present), are read alone when :math:`r > \sqrt2 z\sigma`: the
  same scales on the counts with that cell zeroed, until their survivors hold
  :math:`r/2`; the range is the hull of both readings (a mostly-zero count column then
  keeps its nonzero values' scale instead of its zero cell's);
- **tails**: each end of the range is then extended cell by cell while the adjacent single
  cell's noisy count exceeds :math:`z_t\sigma`, :math:`z_t = \Phi^{-1}(1 - \alpha/2)`.
  Each side stops at the first cell that fails, so an empty cell is passed only if the
  first empty cell that side meets passes: with probability at most :math:`\alpha/2` per
  side, the same family-wise rate :math:`\alpha` as the single cells, at a threshold
  (3.29 at :math:`\alpha = 10^{-3}`) that needs no Bonferroni factor over the grid;
- **median**: read from the single cells inside the range, their noisy counts unthresholded
  (zeroing the cells below the threshold biased it toward the cells that pass), in the cell
  where the cumulative count crosses half of the range's total, interpolated linearly
  inside that cell: within that cell's width (the histogram's resolution) of the data's
  median, up to the noise of the cumulative count.
"""

import math

import numpy as np
from scipy.special import ndtri

from ._private_range import (
    FALSE_CELL_RATE,
    PrivateRange,
    group_ends,
    read_scales,
    threshold_z,
)


def present_count(noisy_missing, n_records):
    r""":math:`N = n - \mathrm{clip}(\tilde c_{\rm missing}, 0, n)`: records present (n public)."""
    return float(n_records) - min(max(float(noisy_missing), 0.0), float(n_records))


def hull_of(scales, n_cells):
    """(first, last) cell of every survivor of the scales read; None if there is none."""
    first, last = n_cells, -1
    for kept, starts in scales:
        alive = np.flatnonzero(kept > 0)
        if alive.size:
            ends = group_ends(starts, n_cells)
            first = min(first, int(starts[alive[0]]))
            last = max(last, int(ends[alive[-1]]))
    return None if last < 0 else (first, last)


def cells_holding_integers(edges):
    """Which cells (-inf, e_1), [e_1, e_2), ..., [e_m, inf) hold at least one integer."""
    lower = np.concatenate([[-np.inf], edges])
    upper = np.concatenate([edges, [np.inf]])
    return np.ceil(lower) < upper


def tail_threshold_z(false_cell_rate=FALSE_CELL_RATE):
    r""":math:`z_t = \Phi^{-1}(1 - \alpha/2)`, the threshold of the cells adjacent to a range."""
    return float(ndtri(1.0 - 0.5 * false_cell_rate))


def extend_tails(first, last, values, threshold, holds=None):
    """Extend the cells ``first..last`` while the adjacent cell's noisy count exceeds threshold.

    Parameters
    ----------
    first, last : int
        The range's first and last cell.
    values : ndarray of shape (k,)
        Noisy counts of the value cells.
    threshold : float
        :math:`z_t\\sigma`.
    holds : ndarray of bool or None
        The cells that can hold a value (an integer column's grid has cells with no
        integer inside, public): the others are stepped over, never tested.

    Returns
    -------
    first, last : int
    """
    holds = np.ones(values.size, dtype=bool) if holds is None else holds
    while True:
        below = first - 1
        while below >= 0 and not holds[below]:
            below -= 1
        if below < 0 or not values[below] > threshold:
            break
        first = below
    while True:
        above = last + 1
        while above < values.size and not holds[above]:
            above += 1
        if above >= values.size or not values[above] > threshold:
            break
        last = above
    return first, last


def median_in_cells(values, first, last, lower_edges, upper_edges, low, high, integer=False):
    r"""The median of the single cells first..last, interpolated (module notes), and its cell's top.

    Parameters
    ----------
    values : ndarray of shape (k,)
        Noisy counts of the value cells.
    first, last : int
        The range's cells.
    lower_edges, upper_edges : ndarray of shape (k,)
        Each cell's edges (finite).
    low, high : float
        The range (the median is clipped into it).
    integer : bool, default=False
        An integer column's cell :math:`[a, b)` holds :math:`\lceil a\rceil, \dots,
        \lceil b\rceil - 1`: the interpolation runs over those.

    Returns
    -------
    median, median_high : float
    """
    inside = values[first:last + 1]
    cumulative = np.cumsum(inside)
    half = 0.5 * cumulative[-1]
    if not half > 0.0:  # no mass left to read: the range's midpoint, its top
        return 0.5 * (low + high), high
    k = int(np.argmax(cumulative >= half))
    before = cumulative[k] - inside[k]
    share = min(max((half - before) / inside[k], 0.0), 1.0) if inside[k] > 0 else 0.5
    cell_low = max(float(lower_edges[first + k]), low)
    cell_high = min(float(upper_edges[first + k]), high)
    top = cell_high
    if integer and math.ceil(cell_high) - 1 >= math.ceil(cell_low):
        cell_low, cell_high = float(math.ceil(cell_low)), float(math.ceil(cell_high) - 1)
    median = cell_low + share * (cell_high - cell_low)
    return min(max(median, low), high), max(top, low)


def read_column_range(noisy, edges, sigma, n_records, *, integer=False,
                      false_cell_rate=FALSE_CELL_RATE):
    r"""The range, median and whether anything survived, from one noisy histogram.

    Parameters
    ----------
    noisy : ndarray of shape (m + 2,)
        Noisy counts (the last is the missing cell's), noise :math:`\mathcal N(0, \sigma^2)`
        each.
    edges : ndarray of shape (m,)
        The public (or publicly derived) increasing edges.
    sigma : float
        The counts' noise standard deviation (0 for exact counts).
    n_records : int
        n (public).
    integer : bool, default=False
        Whether the column holds integers only (public dtype): the tails step over the
        cells that hold no integer, the median is interpolated over the integers of its cell.
    false_cell_rate : float, default=1e-3
        :math:`\alpha` of the single cells, of the coarser scales and of the tails.

    Returns
    -------
    result : PrivateRange
        ``found=False`` when nothing survived at any scale.
    """
    noisy = np.asarray(noisy, dtype=np.float64)
    values = noisy[: edges.size + 1]
    threshold = threshold_z(edges.size + 1, false_cell_rate) * sigma
    coarse_sigma = sigma if sigma > 0 else None
    present = present_count(noisy[edges.size + 1], n_records)
    hull = hull_of(read_scales(values, coarse_sigma, threshold, majority=0.5 * present,
                               false_cell_rate=false_cell_rate), values.size)
    atom = int(np.argmax(values))
    rest = present - float(values[atom])
    if values[atom] > 0.5 * present and rest > math.sqrt(2.0) * threshold:
        # one cell holds the majority by itself: the records outside it, read alone
        others = values.copy()
        others[atom] = 0.0
        rest_hull = hull_of(read_scales(others, coarse_sigma, threshold, majority=0.5 * rest,
                                        false_cell_rate=false_cell_rate), values.size)
        if rest_hull is not None:
            hull = rest_hull if hull is None else (min(hull[0], rest_hull[0]),
                                                   max(hull[1], rest_hull[1]))
    if hull is None:
        return PrivateRange(0.0, 1.0, 0.5, 1.0, False)
    holds = cells_holding_integers(edges) if integer else None
    first, last = extend_tails(*hull, values, tail_threshold_z(false_cell_rate) * sigma, holds)
    outer = float(edges[-1])
    lower_edges = np.concatenate([[-outer], edges])  # cell k starts at lower_edges[k]
    upper_edges = np.concatenate([edges, [outer]])
    low, high = float(lower_edges[first]), float(upper_edges[last])
    if low == high == -outer:  # only the cell below the grid: a unit-width range there
        low, high = -outer - 1.0, -outer
    elif low == high == outer:
        low, high = outer, outer + 1.0
    median, median_high = median_in_cells(values, first, last, lower_edges, upper_edges,
                                          low, high, integer)
    return PrivateRange(low, high, median, median_high, True)
