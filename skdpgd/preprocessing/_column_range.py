r"""A numeric column's private range from two Gaussian histograms in the column's one share.

docs/theory.md, "Two releases in a column's share".

A column's share :math:`\mu_c` of the vectorizer's budget is split in :math:`\mu^2`
(public constant :data:`LOCATING_SHARE`):

.. math::

    \mu_1 = \mu_c\sqrt{\rho}, \qquad \mu_2 = \mu_c\sqrt{1 - \rho}, \qquad
    \mu_1^2 + \mu_2^2 = \mu_c^2 ,

so the two releases compose to exactly :math:`\mu_c`-GDP (Dong, Roth and Su 2022,
Corollary 3.3, adaptive: the second grid is chosen from the first release). Each is the
Gaussian histogram of :mod:`._private_range` (L2 sensitivity :math:`\sqrt 2` on any grid).

1. **Locating release** (:math:`\mu_1`) on the public log grid, read by
   :func:`~._range_reading.read_column_range`: a first range :math:`[\ell_1, h_1]`.
2. **Second release** (:math:`\mu_2`), its grid a function of :math:`[\ell_1, h_1]` only:

   - where the first range lies on one side of 0 and spans at most a factor 2, two cells
     of the public grid (:func:`refines`; a year, a sensor reading far from zero, which the
     log grid gives one or two cells), and its cells hold half of the records present
     beyond their noise (:func:`holds_majority`; else the data are not all there, and
     equal cells inside it would miss them): the grid is :math:`B` equal cells
     on :math:`[\ell_1, h_1]`, continued at the same width over one public cell beyond
     each end (:func:`refined_span`: a tail the locating release missed just beyond an
     end is read to that width, not to the public cell's far edge), and the public
     grid's cells outside that span (where longer tails are still seen);
   - elsewhere the public grid again; the two histograms are averaged with weights
     :math:`1/\sigma_i^2`, whose noise is :math:`\mathcal N(0, \sigma_c^2)` with
     :math:`\sigma_c^{-2} = \sigma_1^{-2} + \sigma_2^{-2}`, i.e. :math:`\sigma_c = \sqrt2/\mu_c`:
     the same law as one histogram at the column's whole share.

   The range, tails and median are read from that histogram (or the average) alone,
   with the window rule of :mod:`._range_reading` on either grid (a decaying tail whose
   equal cells each hold less than the single cells' threshold); on
   the refined grid the cells it shares with the public grid (outside the span,
   and the missing cell) are the weighted average of both releases, read with
   :math:`\sigma_2`'s thresholds (conservative there). Where the refined histogram has no
   survivor the first range stands; where the refined range loses the first range's
   records beyond the noise (:func:`keeps_first_mass`), each side whose equal cells hold
   them moves out to the first range's end (:func:`widen_to_inner_mass`).
"""

import math
from dataclasses import dataclass

import numpy as np

from ._private_range import (
    PrivateRange,
    cell_edges,
    majority_of_present,
    noisy_histogram,
    public_grid,
    sigma_for_mu,
    threshold_z,
)
from ._range_reading import (
    TAIL_WINDOW,
    TAIL_WINDOW_RATE,
    present_count,
    read_column_range,
    tail_threshold_z,
    window_threshold_z,
)

#: Share of a column's :math:`\mu^2` given to the locating release: it only has to find
#: the cells that hold the data, which a column's bulk passes at twice the noise; the
#: rest refines (or, averaged with it, re-reads) the range.
LOCATING_SHARE = 0.25

#: Equal cells of the refined grid inside the first range: each end of the range is then
#: resolved to 1/32 of the first range (a column filling a fraction f of it keeps at least
#: f/(f + 1/16) of the scaled range).
REFINED_CELLS = 32


@dataclass(frozen=True)
class ColumnRange:
    """A column's released range and what was released for it.

    Attributes
    ----------
    range : PrivateRange
        The range read.
    releases : tuple of (str, float)
        The two releases (a description, their mu), in order.
    histogram : tuple of (ndarray, ndarray) or None
        ``(edges, noisy)``: the noisy cell counts the range was read from (``noisy`` of
        shape ``(edges.size + 2,)``, :func:`cell_counts`' cells; the refined release
        merged with the locating one where both have a cell); None where nothing was
        released. Released values: what is computed from them is post-processing.
    """

    range: PrivateRange
    releases: tuple
    histogram: tuple = None


def split_share(mu):
    r"""(:math:`\mu_1`, :math:`\mu_2`) with :math:`\mu_1^2 + \mu_2^2 \le \mu^2` (module notes).

    Rounded down by one ulp each so that the composition never exceeds ``mu`` in floating
    point; ``inf`` gives ``(inf, inf)`` (exact counts), 0 gives ``(0, 0)``.
    """
    mu = float(mu)
    if math.isinf(mu):
        return math.inf, math.inf
    if mu <= 0.0:
        return 0.0, 0.0
    first = float(np.nextafter(mu * math.sqrt(LOCATING_SHARE), 0.0))
    second = float(np.nextafter(math.sqrt(mu * mu - first * first), 0.0))
    while first * first + second * second > mu * mu:
        second = float(np.nextafter(second, 0.0))
    return first, second


def refines(low, high):
    r"""Whether the first range lies on one side of 0 within two cells of the public grid.

    :math:`|h| / |\ell| \le 2` (the grid's cells span a factor :math:`\sqrt 2`): the
    public grid cannot say where inside such a range the data sit (a year column gets
    [1449, 2047]), and :data:`REFINED_CELLS` equal cells on it, each at most
    :math:`|\ell|/32` wide, are 13 times finer than its cells. A range of three cells
    or more already places each end of the data to one cell, and the public grid's
    growing cells keep a long tail that equal cells, each holding a small count, would cut.
    """
    inner, outer = (low, high) if low > 0.0 else (-high, -low)
    if not inner > 0.0 or not math.isfinite(outer):
        return False
    return outer / inner <= 2.0


def holds_majority(noisy, edges, low, high, sigma, n_records):
    r"""Whether the cells of :math:`[\ell, h]` surely hold half of the records present.

    Post-processing of the locating release: the noisy counts of the k value cells inside
    the range (edges of the grid) minus :math:`z_t\sigma\sqrt{k + 1/4}` (:math:`z_t` of the
    tails, 3.29; the noise of that sum less half the missing cell's) are at least
    :func:`~._private_range.majority_of_present` (n public). A range read from the
    coarser scales can hold a minority (they stop at the coarsest scale where none reached
    a majority): a column centred at 0, whose bulk near 0 the log grid spreads over many
    small cells, had one side's two cells located; refined into 32 equal cells each below
    the noise, the second reading kept the other side only, or nothing, and the first
    range stood (a poll's status-quo scale, [-1.8, 2.05], got [0.7, 2.8] or [-1.4, -0.7]).
    A column that fills its first range (a year, a sensor reading) passes whenever its 32
    equal cells can be read at all.
    """
    lower, upper = cell_edges(edges)
    inside = (lower >= low) & (upper <= high)
    mass = float(np.sum(noisy[: edges.size + 1][inside]))
    margin = tail_threshold_z() * sigma * math.sqrt(np.count_nonzero(inside) + 0.25)
    return mass - margin >= majority_of_present(noisy[edges.size + 1], n_records)


def keeps_first_mass(noisy_1, edges, sigma_1, merged, fine, sigma_2, first, second):
    r"""Whether the refined range holds the first range's records, up to the noise.

    Post-processing of both releases: :math:`M_1`, the locating release's noisy count of
    the first range's k cells, against :math:`M_2`, the second release's noisy count of the
    j equal cells inside both ranges; the refinement narrows the range only where
    :math:`M_1 - M_2 \le z_t\sqrt{k\sigma_1^2 + j\sigma_2^2}` (:math:`z_t` of the tails,
    3.29). Where the column holds a point mass and the rest of the first range is spread
    over equal cells each below the noise, the refined reading kept the point mass alone
    (Adult's hours-per-week at epsilon 0.1, 47% of its records at 40: [40, 41] of the first
    range [32, 64], whose two cells held 20,000 and 6,000 records). A column that fills
    its first range (a year) loses at most its thin ends, within the noise. Where it
    fails, :func:`widen_to_inner_mass`.
    """
    lower_1, upper_1 = cell_edges(edges)
    inside_1 = (lower_1 >= first.low) & (upper_1 <= first.high)
    lower_2, upper_2 = cell_edges(fine)
    inside_2 = ((lower_2 >= max(first.low, second.low))
                & (upper_2 <= min(first.high, second.high)))
    m_1 = float(np.sum(noisy_1[: edges.size + 1][inside_1]))
    m_2 = float(np.sum(merged[: fine.size + 1][inside_2]))
    noise = math.hypot(sigma_1 * math.sqrt(np.count_nonzero(inside_1)),
                       sigma_2 * math.sqrt(np.count_nonzero(inside_2)))
    return m_1 - m_2 <= tail_threshold_z() * noise


def widen_to_inner_mass(merged, fine, sigma, first, second):
    r"""The refined range, each side moved to the first range's end where the equal cells
    between them hold records (post-processing; after :func:`keeps_first_mass` failed).

    The j equal cells between an end of the refined range and the same end of the first
    range are read as one group: the side moves out to the first range's end when their
    noisy counts sum to more than :math:`z_t\sigma_2\sqrt j` (:math:`z_t` of the tails, a
    rate :math:`\alpha/2` per side on empty cells). A point mass whose rest is spread over
    equal cells below the noise then keeps the side that holds the rest; a thin end that
    the refined reading cut (a few cells, within the noise) stays cut.
    """
    lower, upper = cell_edges(fine)
    values = merged[: fine.size + 1]
    low, high = second.low, second.high
    z = tail_threshold_z()
    below = (lower >= first.low) & (upper <= second.low)
    above = (lower >= second.high) & (upper <= first.high)
    if below.any() and values[below].sum() > z * sigma * math.sqrt(below.sum()):
        low = min(low, first.low)
    if above.any() and values[above].sum() > z * sigma * math.sqrt(above.sum()):
        high = max(high, first.high)
    return PrivateRange(low, high, second.median, second.median_high, True)


def refined_span(low, high, edges):
    r"""The public grid's edges one cell beyond each end of :math:`[\ell_1, h_1]`.

    The refined grid's equal cells run over this span, not over the first range alone: the
    locating release misses a tail whose records sit below its noise just beyond an end
    (a pressure column normal(1013, 8) at 2,000 rows: the first range [724, 1024], with 8%
    of the records above 1024), and the second release, finer, sees them; read on the
    public cell :math:`[1024, 1448)` they set the range's top to 1448, 8 times the
    column's spread above its bulk. A function of the first range and the public grid
    only. Where no edge lies beyond an end, the end itself.
    """
    below, above = edges[edges < low], edges[edges > high]
    return (float(below[-1]) if below.size else float(low),
            float(above[0]) if above.size else float(high))


def inner_edges(low, high, n_cells=REFINED_CELLS, integer=False, span=None):
    """The refined grid's equal edges: n_cells equal cells on [low, high], continued at the
    same width over ``span`` (a pair of floats enclosing [low, high]; None: [low, high]),
    with the span's ends as edges; integer edges (fewer cells where fewer integers fit) for
    an integer column."""
    width = (high - low) / int(n_cells)
    span_low, span_high = (low, high) if span is None else span
    steps = np.arange(math.ceil((span_low - low) / width - 1e-9),
                      math.floor((span_high - low) / width + 1e-9) + 1)
    inside = np.unique(np.concatenate([[span_low], low + width * steps, [span_high]]))
    inside = inside[(inside >= span_low) & (inside <= span_high)]
    return np.unique(np.ceil(inside)) if integer else inside


def inner_cells(low, high, n_cells=REFINED_CELLS, integer=False, span=None):
    """How many equal cells the refined grid has (for the report)."""
    return inner_edges(low, high, n_cells, integer, span).size - 1


def refined_grid(low, high, edges, n_cells=REFINED_CELLS, integer=False, span=None):
    r"""The public edges outside the span of :func:`refined_span` and equal cells of width
    :math:`(h - \ell)/n` over it (n_cells of them on [low, high]).

    For an integer column (public dtype) the inner edges are rounded up to integers, so
    that every inner cell holds at least one integer (fewer cells where the range holds
    fewer than ``n_cells`` integers). ``span``: :func:`refined_span`'s result, when the
    caller has it.
    """
    span = refined_span(low, high, edges) if span is None else span
    inside = inner_edges(low, high, n_cells, integer, span)
    outside = edges[(edges < inside[0]) | (edges > inside[-1])]
    return np.unique(np.concatenate([outside, inside]))


def integer_grid(edges):
    """The public grid without the edges strictly between -1 and 1 but 0 (no integer there)."""
    return edges[(np.abs(edges) >= 1.0) | (edges == 0.0)]


#: A cell of the final reading is *far* from the located range [a, b] when all of it lies
#: beyond F max(|a|, |b|) in magnitude: two windows of the public grid
#: (2 :data:`~._range_reading.TAIL_WINDOW` cells of ratio sqrt 2, a factor 16) past the
#: range's outermost value. Within them the window rule may walk a tail on as before.
FAR_FACTOR = 2.0 ** TAIL_WINDOW

#: The magnitude F multiplies is at least this (the public grid's unit): a range located at
#: a point mass at 0 ([0, 2^-20), a coinsurance rate's zeros) has no scale of its own, and
#: its other values (3.3-4.6) are not far from it.
FAR_UNIT = 1.0


def cells_meeting(edges, low, high):
    """The value cells of ``edges`` that meet [low, high]."""
    lower, upper = cell_edges(edges)
    return (upper > low) & (lower <= high)


def far_cells(edges, low, high, factor=FAR_FACTOR):
    r"""The value cells of ``edges`` wholly beyond ``factor`` times the located magnitude.

    The magnitude is :math:`\max(|a|, |b|, 1)` (:data:`FAR_UNIT`).
    """
    reach = factor * max(abs(low), abs(high), FAR_UNIT)
    lower, upper = cell_edges(edges)
    return (lower >= reach) | (upper <= -reach)


def confirm_far_cells(noisy, edges, sigma, noisy_1, sigma_1, noisy_2, sigma_2, public_edges,
                      first, n_records, cells=None):
    r"""The final histogram without the lone far cells that the locating release did not see.

    Post-processing of both releases. The single cells of a reading pass at a family-wise
    rate :math:`\alpha` when every count is 0 (docs/theory.md, "Numeric ranges"), and a
    cell far from the data stretches the range by orders of magnitude: a target's range
    read as [-5.9e6, 23170] for raw diamonds' prices in [326, 18818] (one such cell of the
    final reading) made the model's test R^2 -578. A cell of the final histogram is zeroed
    when all of these hold:

    * it is far from the located range :math:`[a, b]` (:func:`far_cells`: all of it beyond
      :math:`16\max(|a|, |b|, 1)` in magnitude, two windows of the public grid past it);
    * it passes the final reading's single-cell threshold :math:`z\sigma` by itself (a
      survivor that would set an end alone);
    * the two releases do not both see it on their own: the locating release's count
      there above the tails' threshold :math:`z_t\sigma_1`
      (:func:`~._range_reading.tail_threshold_z`) and the second release's above
      :math:`z_t\sigma_2` (each alone: the final histogram averages the two, so its count
      and the first's are not independent; a cell passed by the average with the first
      release's count just above :math:`z_t\sigma_1` was a far false cell of a price
      range);
    * the :data:`~._range_reading.TAIL_WINDOW` cells on each side of it hold no more than
      :math:`z_w\sigma\sqrt w` together (:func:`~._range_reading.window_threshold_z`):
      nothing around it, as around a cell passed by the noise.

    The window rule's block applies only where the locating release accounts for its
    records: where the records outside its range, read through n,
    :math:`N - \sum_k \tilde c_{1,k} > z_t\sigma_1\sqrt{k + 1}` over its k cells (the
    test of the records-outside rule), are significant, the far cells may hold them (a
    mostly-zero column located at its zeros' cell, its values beyond), and the window rule
    walks as before; a lone far cell is zeroed there too.

    An empty far cell then sets an end with probability about
    :math:`\alpha(\Phi(-z_t)^2 + \beta)` instead of :math:`\alpha`. Far cells below the
    single-cell threshold are read as before (a mostly-zero column's values beyond its
    zeros, found on groups beside them), and so is a far cell with records around it; a
    lone far cluster that the locating release does not see is clipped to the range's end,
    a bounded loss, instead of setting the column's scale.

    Parameters
    ----------
    noisy : ndarray of shape (m + 2,)
        The final histogram's noisy counts (over ``edges``).
    edges : ndarray of shape (m,)
        Its grid.
    sigma : float
        The final reading's noise (its thresholds' sigma).
    noisy_1, sigma_1 : ndarray, float
        The locating release (over the public grid) and its noise.
    noisy_2, sigma_2 : ndarray, float
        The second release (over ``edges``) and its noise.
    public_edges : ndarray
        The public grid.
    first : PrivateRange
        The located range.
    n_records : int
        n (public).
    cells : tuple of (ndarray, ndarray) or None, default=None
        ``(shared, public)`` of :func:`shared_cells` when ``edges`` is a refined grid: the
        final cells that are public cells, and their index in ``noisy_1`` (the far cells
        are among them: the refined span lies within the reach). None: ``edges`` is the
        public grid itself.

    The window rule, whose overlapping windows let a run of positive noise carry an end
    cell after cell (a price range walked from 23170 to 131072 over empty cells, 6 of
    4,000 draws), does not step onto a far cell that the two releases do not both see either
    (the second result, for :func:`~._range_reading.read_column_range`'s ``unseen``).

    Returns
    -------
    histogram : ndarray of shape (m + 2,)
    unseen : ndarray of bool of shape (m + 1,) or None
        The far value cells that the two releases do not both see (None: the locating
        range leaves records outside, and the window rule walks as before).
    """
    n_values = edges.size + 1
    values = np.asarray(noisy, dtype=np.float64)[:n_values]
    located = np.flatnonzero(cells_meeting(public_edges, first.low, first.high))
    outside = present_count(noisy_1[-1], n_records) - float(noisy_1[located].sum())
    # records outside the located range: the window rule walks as before
    walks = outside > tail_threshold_z() * sigma_1 * np.sqrt(located.size + 1)
    far = far_cells(edges, first.low, first.high)
    alone = values > threshold_z(n_values) * sigma
    candidates = np.flatnonzero(far & alone)
    z_t = tail_threshold_z()
    seen = np.asarray(noisy_2, dtype=np.float64)[:n_values] > z_t * sigma_2
    if cells is None:
        seen &= noisy_1[:n_values] > z_t * sigma_1
    else:
        shared, public = cells
        inside = shared < n_values  # the missing cell is not a value cell
        first_sees = np.zeros(n_values, dtype=bool)
        first_sees[shared[inside]] = noisy_1[public[inside]] > z_t * sigma_1
        seen &= first_sees
    window_z = window_threshold_z()
    out = np.array(noisy, dtype=np.float64, copy=True)
    for k in candidates:
        if seen[k]:
            continue
        around = np.r_[max(k - TAIL_WINDOW, 0):k, k + 1:min(k + 1 + TAIL_WINDOW, n_values)]
        if not values[around].sum() > window_z * sigma * np.sqrt(max(around.size, 1)):
            out[k] = 0.0
    return out, None if walks else far & ~seen


def shared_cells(fine, edges, low, high):
    r"""The cells of the refined grid that are cells of the public grid too (outside the
    span of its equal cells, and the missing cell), and their index in the public grid's
    histogram.

    ``low`` and ``high`` are edges of the public grid (:func:`refined_span`). For an integer
    column the cell above the inner edges, :math:`[\lceil h\rceil, e)`, differs from the
    public :math:`[h, e)` by a part that holds no integer: they count alike.
    """
    lower, upper = cell_edges(fine)
    outside = np.flatnonzero((upper <= low) | (lower >= high))
    public = np.searchsorted(edges, lower[outside], side="right")
    return (np.concatenate([outside, [fine.size + 1]]),
            np.concatenate([public, [edges.size + 1]]))


def average_histograms(noisy_1, sigma_1, noisy_2, sigma_2):
    r"""The inverse-variance average of two noisy histograms of the same counts, and its noise.

    .. math::

        \bar c = \frac{\sigma_1^{-2}\tilde c_1 + \sigma_2^{-2}\tilde c_2}
                       {\sigma_1^{-2} + \sigma_2^{-2}}
        = c + \mathcal N(0, \bar\sigma^2), \qquad
        \bar\sigma^{-2} = \sigma_1^{-2} + \sigma_2^{-2} ,

    so with :math:`\sigma_i = \sqrt2/\mu_i`, :math:`\bar\sigma = \sqrt2/\sqrt{\mu_1^2 + \mu_2^2}`:
    the law of one release at the composed :math:`\mu` (post-processing of the two).
    Exact counts (a zero sigma) are returned as they are.
    """
    if sigma_1 == 0.0 or sigma_2 == 0.0:
        return (noisy_1 if sigma_1 == 0.0 else noisy_2), 0.0
    w_1, w_2 = sigma_1 ** -2, sigma_2 ** -2
    return (w_1 * noisy_1 + w_2 * noisy_2) / (w_1 + w_2), 1.0 / math.sqrt(w_1 + w_2)


def column_range(x, mu, random_state=None, *, edges=None, integer=False):
    r"""The two releases of a column's range within its share ``mu`` (module notes).

    Parameters
    ----------
    x : array-like of shape (n,)
        One numeric column, NaN for a missing value.
    mu : float
        The column's share (GDP); ``np.inf`` for exact counts.
    random_state : None, int or numpy.random.Generator, default=None
        The noise source of both releases (an int or None seeds a new Generator).
    edges : ndarray or None, default=None
        The public grid (``public_grid()``).
    integer : bool, default=False
        Whether the column's dtype holds integers only (public): the grid then drops the
        edges strictly between -1 and 1 but 0 (:func:`integer_grid`), the refined grid's
        inner edges are integers, and the tails step over cells that hold no integer.

    Returns
    -------
    result : ColumnRange
        ``result.range.found`` is False when nothing survived (the caller falls back to
        a public map).

    Examples
    --------
    >>> import numpy as np
    >>> years = np.random.default_rng(0).integers(1871, 2008, 5000).astype(float)
    >>> r = column_range(years, mu=0.1, random_state=0).range
    >>> bool(1800 < r.low <= 1871 and 2007 <= r.high < 2100)
    True
    """
    edges = public_grid() if edges is None else np.asarray(edges, dtype=np.float64)
    if integer:
        edges = integer_grid(edges)
    x = np.asarray(x, dtype=np.float64).ravel()
    rng = (random_state if isinstance(random_state, np.random.Generator)
           else np.random.default_rng(random_state))
    mu_1, mu_2 = split_share(mu)
    sigma_1, sigma_2 = sigma_for_mu(mu_1), sigma_for_mu(mu_2)
    if not np.isfinite(sigma_1):
        return ColumnRange(PrivateRange(0.0, 1.0, 0.5, 1.0, False), ())
    noisy_1 = noisy_histogram(x, sigma_1, rng, edges)
    first = read_column_range(noisy_1, edges, sigma_1, x.size, integer=integer)
    locating = ("histogram over the public grid (locating)", mu_1)
    if (first.found and refines(first.low, first.high)
            and holds_majority(noisy_1, edges, first.low, first.high, sigma_1,
                               x.size)):
        span = refined_span(first.low, first.high, edges)
        fine = refined_grid(first.low, first.high, edges, integer=integer, span=span)
        noisy_2 = noisy_histogram(x, sigma_2, rng, fine)
        shared, public_cells = shared_cells(fine, edges, *span)
        merged = noisy_2.copy()  # the cells both grids have: both releases, weighted
        merged[shared] = average_histograms(noisy_1[public_cells], sigma_1,
                                            noisy_2[shared], sigma_2)[0]
        merged, unseen = confirm_far_cells(merged, fine, sigma_2, noisy_1, sigma_1, noisy_2,
                                           sigma_2, edges, first, x.size,
                                           cells=(shared, public_cells))
        # thresholds at sigma_2, above the merged cells' noise: conservative there
        second = read_column_range(merged, fine, sigma_2, x.size, integer=integer,
                                   window_rate=TAIL_WINDOW_RATE, unseen=unseen, equal_cells=True)
        n_inner = inner_cells(first.low, first.high, integer=integer, span=span)
        described = (f"histogram of {n_inner} equal cells on [{span[0]:.6g}, "
                     f"{span[1]:.6g}] (1/{REFINED_CELLS} of the first range "
                     f"[{first.low:.6g}, {first.high:.6g}] each) and the public grid "
                     "outside", mu_2)
        if second.found and not keeps_first_mass(noisy_1, edges, sigma_1, merged, fine,
                                                 sigma_2, first, second):
            second = widen_to_inner_mass(merged, fine, sigma_2, first, second)
        if second.found:
            return ColumnRange(second, (locating, described), (fine, merged))
        return ColumnRange(first, (locating, described), (edges, noisy_1))
    noisy_2 = noisy_histogram(x, sigma_2, rng, edges)
    averaged, sigma = average_histograms(noisy_1, sigma_1, noisy_2, sigma_2)
    described = ("second histogram over the public grid, weighted with the first by "
                 "1/sigma^2", mu_2)
    empty = None if integer else empty_between_integers(noisy_1, edges, sigma_1, x.size)
    unseen = None
    if first.found:
        averaged, unseen = confirm_far_cells(averaged, edges, sigma, noisy_1, sigma_1,
                                             noisy_2, sigma_2, edges, first, x.size)
    return ColumnRange(read_column_range(averaged, edges, sigma, x.size, integer=integer,
                                         window_rate=TAIL_WINDOW_RATE, empty=empty,
                                         cut_groups=True, unseen=unseen, mirror=True),
                       (locating, described), (edges, averaged))


def empty_between_integers(noisy, edges, sigma, n_records):
    r"""The cells inside (-1, 1) that hold no integer, where the locating release sees none.

    Post-processing of the first release: where its cell :math:`[0, e_+)` holds more than
    half of the records present (a point mass at 0), the value cells :math:`[a, b)` with
    :math:`-1 < a`, :math:`b \le 1` and :math:`\lceil a\rceil \ge b` (every cell strictly
    between the integers -1, 0 and 1) are returned when their noisy counts sum to at most
    :math:`z_t\sigma\sqrt k` over the :math:`k` of them (else None): a count read as
    float64 (a voted column of the command line, a count with a missing value) then reads
    as an integer dtype's does near 0: its zeros' cell ends at 1 and the tails step from it
    to the ones.
    """
    lower, upper = cell_edges(edges)
    between = (lower > -1.0) & (upper <= 1.0) & (np.ceil(lower) >= upper)
    zero = np.flatnonzero(lower == 0.0)
    values = noisy[:between.size]
    if not between.any() or not zero.size:
        return None
    if not values[zero[0]] > 0.5 * present_count(noisy[-1], n_records):
        return None
    seen = float(values[between].sum())
    return between if seen <= tail_threshold_z() * sigma * math.sqrt(between.sum()) else None
