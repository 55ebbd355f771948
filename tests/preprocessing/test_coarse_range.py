"""The private range's coarser scales (skdpgd/preprocessing/_private_range.py): where no
single cell of the noisy histogram passes, sums of adjacent cells of the same release do,
at a family-wise false rate of their own."""

import math

import numpy as np
import pytest

from skdpgd.preprocessing import private_abs_bound
from skdpgd.preprocessing._private_range import (
    COARSE_LEVELS,
    FALSE_CELL_RATE,
    coarse_cells,
    noisy_histogram,
    public_grid,
    range_from_noisy_counts,
    threshold_z,
)

EDGES = public_grid()


def _cell_of(value):
    """Index of the value cell [e_k, e_k+1) holding ``value`` (cell 0 is below e_1)."""
    return int(np.searchsorted(EDGES, value, side="right"))


def test_a_spread_column_no_single_cell_holds_gets_the_range_of_a_group():
    # 12 records in each of the 8 cells from 1 to 16 (noise-free counts, sigma = 5): no
    # cell clears z sigma (z = 4.46), their sum (96) clears the scale-8 threshold
    # z_8 sigma sqrt 8 (about 61); the range is that group's span
    sigma = 5.0
    noisy = np.zeros(EDGES.size + 2)
    first = _cell_of(1.0)
    noisy[first:first + 8] = 12.0
    threshold = threshold_z(EDGES.size + 1) * sigma
    assert not range_from_noisy_counts(noisy, EDGES, threshold).found  # single cells only
    found = range_from_noisy_counts(noisy, EDGES, threshold, sigma=sigma)
    assert found.found
    groups, starts = coarse_cells(noisy[:EDGES.size + 1], sigma)
    size = int(starts[1] - starts[0])
    alive = np.flatnonzero(groups > 0)
    lower = np.concatenate([[-EDGES[-1]], EDGES])
    upper = np.concatenate([EDGES, [EDGES[-1]]])
    # the span of the passing groups (aligned to the public partition: a group may hold
    # part of the data only, as a single cell may)
    assert found.low == lower[starts[alive[0]]]
    assert found.high == upper[starts[alive[-1]] + size - 1]
    assert 1.0 <= found.high and found.low <= 16.0 and found.high / found.low >= size
    assert found.low <= found.median <= found.high
    # the first scale that finds it: each coarser scale's threshold, by hand
    for j in range(1, int(math.log2(size))):
        g = 2**j
        sums = np.add.reduceat(noisy[:EDGES.size + 1], np.arange(0, EDGES.size + 1, g))
        z = threshold_z(sums.size * COARSE_LEVELS, FALSE_CELL_RATE)
        assert sums.max() <= z * sigma * math.sqrt(g)


def test_a_single_cell_that_passes_keeps_the_fine_range():
    # where one cell passes, the coarser scales are not read: the range is the cells'
    noisy = np.zeros(EDGES.size + 2)
    noisy[_cell_of(4.0)] = 100.0
    noisy[_cell_of(9.0)] = 3.0  # below the threshold alone
    fine = range_from_noisy_counts(noisy, EDGES, 10.0)
    assert range_from_noisy_counts(noisy, EDGES, 10.0, sigma=2.0) == fine
    assert (fine.low, fine.high) == (4.0, pytest.approx(4.0 * math.sqrt(2), rel=1e-15))


def test_the_coarser_scales_pass_empty_counts_at_most_at_their_rate():
    # every count 0: the scales together pass a group w.p. <= alpha = 1e-3 (union bound
    # over the 4 scales' groups); 4000 draws expect at most 4, and 12 or more has
    # probability below 1e-4 under that bound
    rng = np.random.default_rng(0)
    finds = sum(coarse_cells(rng.standard_normal(EDGES.size + 1), 1.0)[0] is not None
                for _ in range(4000))
    assert finds < 12


def test_a_small_column_gets_a_range_more_often():
    # 105 records over five cells (the petal lengths of a 105-row iris split), at about
    # the budget a raw-table pipeline gives each column at epsilon 4 (mu = 0.15): on the
    # same noisy histograms, single cells alone find a range for under half of the seeds,
    # the coarser scales too for most of them
    x = np.repeat([1.2, 1.6, 3.5, 4.5, 6.0], [24, 26, 11, 41, 3])
    sigma = math.sqrt(2.0) / 0.15
    threshold = threshold_z(EDGES.size + 1) * sigma
    rng = np.random.default_rng(0)
    single = coarse = 0
    for _ in range(200):
        noisy = noisy_histogram(x, sigma, rng, EDGES)
        single += range_from_noisy_counts(noisy, EDGES, threshold).found
        coarse += range_from_noisy_counts(noisy, EDGES, threshold, sigma=sigma).found
    assert single < 100 and coarse >= single + 30


def test_a_small_target_gets_a_bound():
    # 309 targets in [25, 346] (the diabetes table's training split): no single cell of
    # |y| clears the threshold at mu = 0.15, the coarser scales do, and the bound
    # covers the data up to one group
    y = np.linspace(25.0, 346.0, 309)
    bounds = [private_abs_bound(y, mu=0.15, random_state=s) for s in range(20)]
    assert all(b.found for b in bounds)
    assert all(256.0 <= b.bound <= 4096.0 for b in bounds)
