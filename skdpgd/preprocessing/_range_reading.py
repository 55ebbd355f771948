r"""A column's range, tails and median read from one noisy histogram (post-processing only).

The reading of :func:`~skdpgd.preprocessing._private_range.range_from_noisy_counts` (single
cells, then coarser scales until the survivors hold a majority; docs/theory.md, "Coarser
scales") with seven changes, each a function of the noisy counts, the public grid, n and
the noise level alone (docs/theory.md, "Reading a column's range"):

- **coarse groups cut to the bulk** (``cut_groups``, the public grid's final reading): a
  coarser group that meets the finest scale's hull keeps its cells beyond it only where
  they hold records beyond the noise (:func:`hull_within_cells`);
- **a point mass does not set the scale**: where one cell holds more than half of the
  records present by itself, the records outside it, :math:`r = N - \tilde c_{\max}`
  (:math:`N` the records present), are read alone when :math:`r > \sqrt2 z\sigma`: the
  same scales on the cells each side of it, their groups starting next to it
  (:func:`hull_beside`), until their survivors hold :math:`r/2`; the range is the hull of
  both readings (a mostly-zero count column then keeps its nonzero values' scale instead
  of its zero cell's);
- **tails**: each end of the range is then extended cell by cell while the adjacent single
  cell's noisy count exceeds :math:`z_t\sigma`, :math:`z_t = \Phi^{-1}(1 - \alpha/2)`.
  Each side stops at the first cell that fails, so an empty cell is passed only if the
  first empty cell that side meets passes: with probability at most :math:`\alpha/2` per
  side, the same family-wise rate :math:`\alpha` as the single cells, at a threshold
  (3.29 at :math:`\alpha = 10^{-3}`) that needs no Bonferroni factor over the grid;
- **windows** (the final reading, ``window_rate > 0``): a side also
  moves one cell out where the adjacent cell's noisy count is positive and the
  :data:`TAIL_WINDOW` cells beyond the end (a factor 4 on the grid) hold more than
  :math:`z_w\sigma\sqrt w` records together, :math:`z_w = \Phi^{-1}(1 - \beta)`,
  :math:`\beta` = :data:`TAIL_WINDOW_RATE`: a decaying tail whose cells each hold
  about :math:`2\sigma` records (a t3 column's [2.8, 4) at 5,000 rows and
  :math:`\sigma = 47`) is kept about half of the time, never with the single cells'
  3.29. It steps only out of an end cell below :data:`TAIL_END` times the single cells'
  threshold (a tail's last cells hold few records; a cell far above the noise next to an
  empty one ends a bounded column), out of a point mass whose records outside are
  significant (above), or out of any end cell while the range misses records (the
  records outside it read through n, as in the next rule, significant at
  :math:`z_t` on the scales' hull, then at :math:`z_w` on the range as it stands:
  :func:`misses_records`), and never across 0 (a range that starts or ends at 0 is, in all
  likelihood, a non-negative or non-positive column). On empty cells beyond such an end a
  side takes a false step with probability 0.043, two in a row 0.015 (the windows of a walk
  overlap), each widening it by one cell;
- **records outside** (the final reading): a range that starts at 0 (or ends just below
  it) moves its other end out one cell at a time while :math:`R = N - \sum_k \tilde c_k`
  over its k cells exceeds :math:`z\sigma\sqrt{k + 1}` (:math:`z_t` for the first step,
  :math:`z_w` after; :math:`z_w` from the start where the lifted guard of the window
  rule moved an end), where the cells beyond hold a positive count; on the refined grid
  also a range that touches no 0, toward the window denser in records
  (:func:`extend_to_complement`): records spread below the noise of every cell and group
  are seen through n, their sum's noise growing with the range's cells only;
- **the other side of 0** (the public grid's final reading): a range that touches no 0 and
  misses records reads its mirror image, continued toward 0 by :data:`TAIL_WINDOW` cells,
  as one group at :math:`z_t\sigma\sqrt{k'}` (:func:`with_mirror`): a column that
  crosses 0 but sits mostly on one side keeps its other side, spread below the noise over
  the log grid's cells that shrink toward 0;
- **median**: read from the single cells inside the range, their noisy counts unthresholded
  (zeroing the cells below the threshold biased it toward the cells that pass), in the cell
  where the cumulative count crosses half of the range's total, interpolated linearly
  inside that cell: within that cell's width (the histogram's resolution) of the data's
  median, up to the noise of the cumulative count.
"""

import functools
import math

import numpy as np
from scipy.special import ndtri

from ._private_range import (
    COARSE_LEVELS,
    FALSE_CELL_RATE,
    PrivateRange,
    cell_edges,
    group_ends,
    read_scales,
    threshold_z,
)

#: Cells beyond a range's end that the window rule counts: a factor 4 on the public grid
#: (ratio sqrt 2 per cell), where a decaying tail that no single cell resolves still holds
#: its records together.
TAIL_WINDOW = 4

#: The window rule steps out of an end cell holding fewer than this many times the single
#: cells' threshold only (or out of a point mass whose records outside are significant).
TAIL_END = 2.0

#: One-sided rate at which the window rule's window test passes an empty window.
TAIL_WINDOW_RATE = 0.05

#: The window rule steps only onto a cell whose noisy count is above this many sigma (0:
#: positive): on empty cells a step then happens with probability 0.043 per side and a
#: second in a row 0.015 (0.05 and 0.022 without it: the overlapping windows of a walk
#: share their noise).
ADJACENT_Z = 0.0


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


def hull_within_cells(scales, values, sigma):
    r"""The hull of the scales read, a coarser group cut to the finest hull where its cells
    beyond that hull hold no records beyond the noise.

    Post-processing: :func:`hull_of`, except for a group of a coarser scale that overlaps
    or touches the hull of the finest scale with a survivor (the single cells that passed,
    or the smallest groups that did). Its k cells beyond that hull count only when their
    noisy counts sum to more than :math:`z_t\sigma\sqrt k` (:math:`z_t` of the tails):
    such a group collects the records the single cells spread too thin to pass inside the
    bulk (the many small cells of the log grid near 0), and its far cells are the public
    partition's, not the data's (a standard normal column at 2,000 rows and its share mu
    0.034 had the group [.., 5.66) in its hull in 25 of 200 draws: the column a third of its
    scaled range). A bulk spread around a spike (a working-hours column, 47% of its records
    at 40) keeps the group: its cells beyond the spike hold half of the records. The tail
    rules extend the ends from there where the cells beyond hold records. A group apart
    from that hull (a second mode the finer scale does not show) counts whole.
    """
    n_cells = values.size
    finest = next((j for j, (kept, _) in enumerate(scales) if np.any(kept > 0)), None)
    if finest is None:
        return None
    fine = hull_of(scales[finest:finest + 1], n_cells)
    first, last = fine
    limit = tail_threshold_z() * (sigma or 0.0)
    for kept, starts in scales[finest + 1:]:
        ends = group_ends(starts, n_cells)
        for k in np.flatnonzero(kept > 0):
            low, high = int(starts[k]), int(ends[k])
            if low <= fine[1] + 1 and high >= fine[0] - 1:
                cells = np.arange(low, high + 1)
                beyond = cells[(cells < fine[0]) | (cells > fine[1])]
                if not values[beyond].sum() > limit * math.sqrt(max(beyond.size, 1)):
                    low, high = max(low, fine[0]), min(high, fine[1])
            first, last = min(first, low), max(last, high)
    return first, last


def hull_beside(values, atom, sigma, threshold, majority, false_cell_rate=FALSE_CELL_RATE,
                levels=COARSE_LEVELS):
    r"""The hull of the records outside a point mass, read on groups that start at it.

    Post-processing of the noisy counts: the scales of
    :func:`~._private_range.read_scales` on the cells on each side of the cell ``atom``, in
    order away from it, so that the groups of the
    coarser scales begin next to the point mass on both sides instead of at the public
    partition's fixed starts. A group of the fixed partition holding the point mass's
    neighbours also spanned cells across it and far beyond the values (a mostly-zero count
    at 5,000 rows: the 16 cells [-1.41, 90.5) for values whose 99% point is 26, the nonzero
    values' scale lost to the group's width); beside the point mass, the group's far end is
    where its cells end. Scale by scale, both sides together: single cells above
    ``threshold``, then groups of :math:`g = 2^j` summed (noise :math:`\sigma\sqrt g`) and
    kept above :math:`z_g\sigma\sqrt g`, :math:`z_g = \Phi^{-1}(1 - \alpha/(J G_g))`
    with :math:`G_g` the groups of both sides (the union bound of ``read_scales``: no empty
    group passes at any scale with probability at least :math:`1 - \alpha`), until the
    survivors of a scale hold ``majority``.

    Returns
    -------
    hull : (int, int) or None
        The first and last cell (indices of ``values``) of every survivor of the scales
        read; None if none survived.
    """
    above = values[atom + 1:]
    below = values[:atom][::-1]
    coarse = sigma is not None and np.isfinite(sigma) and sigma > 0.0
    first, last = values.size, -1
    for j in range(0, int(levels) + 1 if coarse else 1):
        size = 2**j
        kept_mass, survivors = 0.0, []
        groups = [np.arange(0, side.size, size) for side in (above, below)]
        if j == 0:
            limit = threshold
        else:
            count = sum(g.size for g in groups)
            limit = threshold_z(max(count, 1) * int(levels), false_cell_rate) * sigma
            limit *= math.sqrt(size)
        for direction, side, starts in ((1, above, groups[0]), (-1, below, groups[1])):
            if not side.size:
                continue
            sums = np.add.reduceat(side, starts)
            ends = group_ends(starts, side.size)
            for k in np.flatnonzero(sums > limit):
                kept_mass += float(sums[k])
                near, far = atom + direction * (1 + starts[k]), atom + direction * (1 + ends[k])
                survivors.append((min(near, far), max(near, far)))
        for low, high in survivors:
            first, last = min(first, int(low)), max(last, int(high))
        if survivors and kept_mass >= majority:
            break
    return None if last < 0 else (first, last)


def cells_holding_integers(edges):
    """Which cells (-inf, e_1), [e_1, e_2), ..., [e_m, inf) hold at least one integer."""
    lower, upper = cell_edges(edges)
    return np.ceil(lower) < upper


def tail_threshold_z(false_cell_rate=FALSE_CELL_RATE):
    r""":math:`z_t = \Phi^{-1}(1 - \alpha/2)`, the threshold of the cells adjacent to a range."""
    return float(ndtri(1.0 - 0.5 * false_cell_rate))


def next_cells(start, step, holds, count):
    """Up to ``count`` cells that can hold a value, from ``start`` on in direction ``step``."""
    cells, k = [], start
    while 0 <= k < holds.size and len(cells) < count:
        if holds[k]:
            cells.append(k)
        k += step
    return cells


def window_threshold_z(rate=TAIL_WINDOW_RATE):
    r""":math:`z_w = \Phi^{-1}(1 - \beta)`, the one-sided threshold of a tail window."""
    return float(ndtri(1.0 - rate))


def extend_tails(first, last, values, threshold, holds=None, sigma=0.0, window_z=math.inf,
                 zero_cell=None, tail_end=math.inf, atom=None, window=TAIL_WINDOW,
                 unseen=None, present=None, outside_z=math.inf):
    r"""Extend the cells ``first..last`` outward one cell at a time (module notes).

    A side moves one cell out while the adjacent cell's noisy count exceeds ``threshold``
    (the tail rule) or the noisy count of the ``window`` cells beyond its end exceeds
    :math:`z_w\sigma\sqrt w`, ``w`` the cells counted (the window rule); the window
    rule does not move an end across 0.

    Parameters
    ----------
    first, last : int
        The range's first and last cell.
    values : ndarray of shape (k,)
        Noisy counts of the value cells.
    threshold : float
        :math:`z_t\sigma`.
    holds : ndarray of bool or None
        The cells that can hold a value (an integer column's grid has cells with no
        integer inside, public): the others are stepped over, never tested or counted.
    sigma : float, default=0.0
        The counts' noise.
    window_z : float, default=inf
        :math:`z_w` (inf: the tail rule alone).
    zero_cell : int or None, default=None
        The cell :math:`[0, e)` (None: 0 is no edge): the window rule keeps a range that
        starts there from stepping below it, one that ends just below it from stepping up.
    tail_end : float, default=inf
        The window rule steps out of an end cell whose noisy count is below this only (a
        tail's last cells hold few records; a cell far above the noise next to an empty
        one ends a bounded column).
    atom : int or None, default=None
        A point mass whose records outside are significant: the window rule steps out of
        it whatever its count.
    window : int, default=TAIL_WINDOW
        How many cells beyond an end the window rule counts.
    unseen : ndarray of bool or None, default=None
        Cells the window rule does not step onto (far from the range an earlier release
        located, where it saw nothing: ``_column_range.confirm_far_cells``); the tail
        rule still does.
    present : float or None, default=None
        The records present, :func:`present_count` (None: not read).
    outside_z : float, default=inf
        Where the records outside the range, :math:`R = N - \sum_k \tilde c_k` over its k
        cells that can hold a value, exceed ``outside_z`` :math:`\sigma\sqrt{k + 1}`
        (:func:`misses_records`, tested afresh at each step), the end cell is no bound of
        the column, whatever its count: the window rule steps out of it too (inf: never).

    Returns
    -------
    first, last : int
    """
    holds = np.ones(values.size, dtype=bool) if holds is None else holds
    unseen = np.zeros(values.size, dtype=bool) if unseen is None else unseen

    def misses(lo, hi):
        return (present is not None and sigma > 0 and math.isfinite(outside_z)
                and misses_records(lo, hi, values, present, sigma, outside_z, holds))

    def step(end, direction):
        beyond = next_cells(end + direction, direction, holds, window)
        if not beyond:
            return None
        if values[beyond[0]] > threshold:
            return beyond[0]
        at_zero = zero_cell is not None and end == (zero_cell if direction < 0
                                                    else zero_cell - 1)
        tail = (values[end] < tail_end or end == atom
                or misses(*((end, last) if direction < 0 else (first, end))))
        if (tail and not at_zero and not unseen[beyond[0]]
                and values[beyond[0]] > ADJACENT_Z * sigma
                and values[beyond].sum() > window_z * sigma * math.sqrt(len(beyond))):
            return beyond[0]
        return None

    while (below := step(first, -1)) is not None:
        first = below
    while (above := step(last, 1)) is not None:
        last = above
    return first, last



def misses_records(first, last, values, present, sigma, z, holds):
    r"""Whether the records outside cells ``first..last`` are significant (the R test).

    :math:`R = N - \sum_k \tilde c_k` over the k cells of the range that can hold a value
    (``holds``), against :math:`z\sigma\sqrt{k + 1}`, its noise's scale (the k cells' and
    the missing cell's): a function of the noisy counts and n only.
    """
    inside = holds[first:last + 1]
    outside = present - float(values[first:last + 1][inside].sum())
    return outside > z * sigma * math.sqrt(int(np.count_nonzero(inside)) + 1)


def with_mirror(first, last, values, sigma, z, zero_cell, holds, window=TAIL_WINDOW):
    r"""The hull with the range's mirror image where that image holds records (module notes).

    Only for a range that touches no 0, on a grid symmetric around 0 (the public grid: the
    cell :math:`[e_{k-1}, e_k)` has the mirror image :math:`(-e_k, -e_{k-1}]`, the cell
    :math:`m - k` of the :math:`m` edges), called where the range misses records. The
    mirror's :math:`k'` cells that can hold a value are read as one group: where their
    noisy counts sum to more than :math:`z\sigma\sqrt{k'}` (:math:`z_t`: on an empty image
    a false pass with probability :math:`\alpha/2`), the range spans both, and 0 between.
    A range on one side of 0 whose column crosses 0 (a centred or shifted score, a
    difference) misses the other side's records, spread over cells each below the noise
    (the log grid's cells shrink toward 0): a normal(0.5, 1) column at 2,000 rows and
    :math:`\mu_c = 0.034` held a median 62% of its records.

    Parameters
    ----------
    first, last : int
        The range's cells.
    values : ndarray of shape (m + 1,)
        Noisy counts of the value cells.
    sigma, z : float
        The counts' noise and the group's threshold in units of its noise.
    zero_cell : int
        The cell :math:`[0, e)`.
    holds : ndarray of bool
        The cells that can hold a value.

    Returns
    -------
    first, last : int
    """
    m = values.size - 1  # the edges: cell k's mirror is cell m - k
    if not (first > zero_cell or last < zero_cell - 1):
        return first, last  # a range at 0 or across it: no side to mirror
    if first > zero_cell:  # the image (-h, -l], continued toward 0
        image = np.arange(m - last, min(m - first + window, zero_cell - 1) + 1)
    else:
        image = np.arange(max(m - last - window, zero_cell), m - first + 1)
    image = image[holds[image]]
    if image.size and float(values[image].sum()) > z * sigma * math.sqrt(image.size):
        return min(first, m - last), max(last, m - first)
    return first, last


def cell_widths(edges):
    """The widths of the value cells of ``edges``, the two outer cells as wide as their
    neighbours (they are unbounded)."""
    widths = np.diff(np.asarray(edges, dtype=np.float64))
    return np.concatenate([widths[:1], widths, widths[-1:]])


def extend_to_complement(first, last, values, present, sigma, z_first, z_next, holds=None,
                         zero_cell=None, window=TAIL_WINDOW, widths=None):
    r"""Move the free end of a range at 0 out while the records outside it are significant.

    Post-processing of the noisy counts and n (public): over the k cells of the range that
    can hold a value,

    .. math::

        R = N - \sum_{k} \tilde c_k

    estimates the records outside the range (:math:`N` the records present,
    :func:`present_count`), with noise at most :math:`\sigma\sqrt{k + 1}` (the k cells'
    and the missing cell's, clipped). Only a range that starts at 0 (its first cell
    :math:`[0, e)`) or ends just below it is read: the window rule's convention (a
    non-negative or non-positive column) says on which side those records lie; elsewhere
    the sum does not say which end misses them (a spread column's records below the range
    sit in the log grid's many small cells near 0, and an end moved by the larger window
    walked the other way, into empty cells). The free end moves one cell out while
    :math:`R > z\sigma\sqrt{k + 1}`, with :math:`z` = ``z_first`` (:math:`z_t`) for the
    first step, then ``z_next`` (:math:`z_w`): the first test says that the range misses
    records at all (a false step with probability at most :math:`\alpha/2`, the tail
    rule's rate), the next ones whether it still misses some, as the window rule does in
    a tail. A step needs the ``window`` cells beyond the end to hold a positive noisy
    count; from the cell :math:`[0, e)` alone (the records outside may lie on either
    side) the first step also needs them to hold at least the ``window`` cells on the
    other side. Each cell's count may lie below the noise (a mostly-zero column's 300
    nonzero values over eleven cells at :math:`\sigma = 41`) while their sum, read
    through n, does not (300 records outside a one-cell range: 5 times its noise
    :math:`\sqrt2\sigma`). Records far beyond the end (in the thousands, none seen) leave
    it stepping over empty cells while their windows are positive (1/2 a step): a wider
    range over no record, every record mapped as before.

    ``widths`` (the cells' widths; the refined grid's reading, whose cells near the range
    are of one width): a range that touches no 0 moves, at each step, the end whose
    ``window`` cells beyond hold more noisy records per unit of width (beyond the refined
    span the public grid's wider cells hold more records for the same density). On the log
    grid the two windows are not comparable (its cells shrink toward 0, so the records of a
    spread column below its range sit in many small cells, and an end moved toward the
    larger window walked the other way); on equal cells they are.

    Returns
    -------
    first, last : int
    """
    holds = np.ones(values.size, dtype=bool) if holds is None else holds

    def at_zero(end, direction):
        return zero_cell is not None and end == (zero_cell if direction < 0 else zero_cell - 1)

    def beyond(direction):
        return next_cells((last if direction > 0 else first) + direction, direction, holds,
                          window)

    either = at_zero(first, -1) == at_zero(last, 1)  # the side of the records outside unknown
    if either and widths is None:
        return first, last
    direction = 1 if at_zero(first, -1) else -1
    z = z_first
    while True:
        if not misses_records(first, last, values, present, sigma, z, holds):
            return first, last
        if either:  # the side whose window holds more records per unit of width
            density = {d: float(values[c].sum()) / float(widths[c].sum())
                       if (c := beyond(d)) else -math.inf for d in (-1, 1)}
            direction = max(density, key=density.get)
        cells = beyond(direction)
        if not cells or not float(values[cells].sum()) > 0.0:
            return first, last
        if first == last and z == z_first:  # the cell [0, e) alone: records either side
            other = next_cells(first - direction, -direction, holds, window)
            if other and float(values[other].sum()) > float(values[cells].sum()):
                return first, last
        if direction > 0:
            last = cells[0]
        else:
            first = cells[0]
        z = z_next


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
                      false_cell_rate=FALSE_CELL_RATE, window_rate=0.0, empty=None,
                      cut_groups=False, unseen=None, mirror=False, equal_cells=False):
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
    empty : ndarray of bool or None, default=None
        Value cells deemed empty by an earlier release (``_column_range``): zeroed, stepped
        over by the tails, and a range whose top is the cell :math:`[0, e)` below them
        ends where they end.
    window_rate : float, default=0.0
        :math:`\beta` of the window rule (0: the tail rule alone; the public grid's final
        reading uses :data:`TAIL_WINDOW_RATE`).
    cut_groups : bool, default=False
        :func:`hull_within_cells` for the scales' hull (the public grid's final reading),
        else :func:`hull_of`.
    unseen : ndarray of bool or None, default=None
        Value cells the window rule does not step onto (:func:`extend_tails`).
    mirror : bool, default=False
        :func:`with_mirror` where the range misses records (the public grid's final
        reading: ``edges`` symmetric around 0, so a cell's mirror image is a cell).
    equal_cells : bool, default=False
        The refined grid's final reading: :func:`extend_to_complement` also on a range that
        touches no 0, toward the window with more records per unit of width.

    Returns
    -------
    result : PrivateRange
        ``found=False`` when nothing survived at any scale.
    """
    noisy = np.asarray(noisy, dtype=np.float64)
    values = noisy[: edges.size + 1]
    if empty is not None:
        values = np.where(empty, 0.0, values)
    threshold = threshold_z(edges.size + 1, false_cell_rate) * sigma
    coarse_sigma = sigma if sigma > 0 else None
    present = present_count(noisy[edges.size + 1], n_records)
    scales = read_scales(values, coarse_sigma, threshold, majority=0.5 * present,
                         false_cell_rate=false_cell_rate)
    hull = (hull_within_cells(scales, values, sigma) if cut_groups
            else hull_of(scales, values.size))
    atom = int(np.argmax(values))
    rest = present - float(values[atom])
    point_mass = values[atom] > 0.5 * present and rest > math.sqrt(2.0) * threshold
    if point_mass:
        # one cell holds the majority by itself: the records outside it, read alone
        rest_hull = hull_beside(values, atom, coarse_sigma, threshold, 0.5 * rest,
                                false_cell_rate)
        if rest_hull is not None:
            hull = rest_hull if hull is None else (min(hull[0], rest_hull[0]),
                                                   max(hull[1], rest_hull[1]))
    if hull is None:
        return PrivateRange(0.0, 1.0, 0.5, 1.0, False)
    holds = cells_holding_integers(edges) if integer else np.ones(values.size, dtype=bool)
    if empty is not None:
        holds = holds & ~empty
    window_z = window_threshold_z(window_rate) if window_rate > 0 else math.inf
    zero = np.flatnonzero(edges == 0.0)
    zero_cell = int(zero[0]) + 1 if zero.size else None
    z_t = tail_threshold_z(false_cell_rate)
    # whether the range misses records at all, asked once at z_t on the hull: after a yes
    # the later steps (the tails' out of a large end cell, the complement's) ask at z_w
    # whether it still misses some
    misses_at_hull = (window_rate > 0 and sigma > 0
                      and misses_records(*hull, values, present, sigma, z_t, holds))
    if mirror and misses_at_hull and zero_cell is not None:
        hull = with_mirror(*hull, values, sigma, z_t, zero_cell, holds)
    tails = functools.partial(
        extend_tails, *hull, values, z_t * sigma, holds, sigma=sigma, window_z=window_z,
        zero_cell=zero_cell, tail_end=TAIL_END * threshold,
        atom=atom if point_mass else None, unseen=unseen, present=present)
    guarded = tails()
    first, last = tails(outside_z=window_z) if misses_at_hull else guarded
    if window_rate > 0 and sigma > 0:  # the records outside, read through n
        # z_w from the first step only where the lifted guard moved an end: its steps
        # already answered, at z_t on the hull, whether the range misses records
        first, last = extend_to_complement(
            first, last, values, present, sigma,
            window_z if (first, last) != guarded else z_t, window_z, holds,
            zero_cell=zero_cell, widths=cell_widths(edges) if equal_cells else None)
    outer = float(edges[-1])
    lower_edges = np.concatenate([[-outer], edges])  # cell k starts at lower_edges[k]
    upper_edges = np.concatenate([edges, [outer]])
    zeros_top = None  # the top of the zeros' cell [0, e), where the cells above are empty
    if empty is not None and zero_cell is not None and last == zero_cell:
        zeros_top = float(upper_edges[last])
        while last + 1 < values.size and empty[last + 1]:  # the zeros' cell ends at 1
            last += 1
    low, high = float(lower_edges[first]), float(upper_edges[last])
    if low == high == -outer:  # only the cell below the grid: a unit-width range there
        low, high = -outer - 1.0, -outer
    elif low == high == outer:
        low, high = outer, outer + 1.0
    median, median_high = median_in_cells(values, first, last, lower_edges, upper_edges,
                                          low, high, integer)
    if zeros_top is not None and median_high == zeros_top:
        median_high = high  # the zeros' cell is [0, 1): the median cell's top is 1
    return PrivateRange(low, high, median, median_high, True)
