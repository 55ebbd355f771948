"""The private range's coarser scales (skdpgd/preprocessing/_private_range.py): where the
single cells of the noisy histogram that pass hold less than half of the records, sums of
adjacent cells of the same release are read too, at a family-wise false rate of their
own, and the range spans every survivor read."""

import math

import numpy as np
import pytest

from skdpgd.preprocessing import private_abs_bound
from skdpgd.preprocessing._private_range import (
    COARSE_LEVELS,
    FALSE_CELL_RATE,
    majority_of_present,
    noisy_histogram,
    private_range,
    public_grid,
    range_from_noisy_counts,
    read_scales,
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
    found = range_from_noisy_counts(noisy, EDGES, threshold, sigma=sigma, n_records=96)
    assert found.found
    groups, starts = read_scales(noisy[:EDGES.size + 1], sigma, threshold, majority=48)[-1]
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


def test_single_cells_that_hold_the_majority_keep_the_fine_range():
    # where the cells that pass hold at least half of the records present, the coarser
    # scales are not read: the range is the cells'
    noisy = np.zeros(EDGES.size + 2)
    noisy[_cell_of(4.0)] = 100.0
    noisy[_cell_of(9.0)] = 3.0  # below the threshold alone
    fine = range_from_noisy_counts(noisy, EDGES, 10.0)
    assert range_from_noisy_counts(noisy, EDGES, 10.0, sigma=2.0, n_records=103) == fine
    assert (fine.low, fine.high) == (4.0, pytest.approx(4.0 * math.sqrt(2), rel=1e-15))
    # 190 records of which the noisy missing cell says 100 are missing: 100 of the 90
    # present is a majority too (the missing count is clipped to [0, n])
    noisy[-1] = 100.0
    assert range_from_noisy_counts(noisy, EDGES, 10.0, sigma=2.0, n_records=190) == fine


def test_single_cells_that_hold_a_minority_read_the_coarser_scales_too():
    # one cell passes alone (60 records at 4) while 8 cells from 16 to 256 hold 30 each,
    # none of them alone above the threshold (sigma = 8, z sigma about 36): 60 of 300
    # is a minority, so the coarser scales are read until their survivors hold 150 (the
    # pairs, 60 each against z_2 sigma sqrt 2, about 52), and the range spans the lone
    # cell and the groups, to one cell beyond or short of the data on each side (the
    # pairs of the public partition: the last cell's pair holds 30 only)
    sigma = 8.0
    threshold = threshold_z(EDGES.size + 1) * sigma
    noisy = np.zeros(EDGES.size + 2)
    noisy[_cell_of(4.0)] = 60.0
    first = _cell_of(16.0)
    noisy[first:first + 8] = 30.0
    fine = range_from_noisy_counts(noisy, EDGES, threshold)
    assert (fine.low, fine.high) == (4.0, pytest.approx(4.0 * math.sqrt(2), rel=1e-15))
    found = range_from_noisy_counts(noisy, EDGES, threshold, sigma=sigma, n_records=300)
    assert 4.0 / math.sqrt(2) <= found.low <= 4.0
    assert 256.0 / math.sqrt(2) * (1 - 1e-15) <= found.high <= 256.0 * math.sqrt(2)
    scales = read_scales(noisy[:EDGES.size + 1], sigma, threshold, majority=150.0)
    assert len(scales) >= 2 and scales[-1][0].sum() >= 150.0
    assert all(kept.sum() < 150.0 for kept, _ in scales[:-1])
    assert found.low <= found.median <= found.high
    # with a majority of 0 (no record count given) the lone cell is the range, as before
    assert range_from_noisy_counts(noisy, EDGES, threshold, sigma=sigma) == fine


def test_majority_of_present_clips_the_noisy_missing_count():
    assert majority_of_present(-7.0, 100) == 50.0
    assert majority_of_present(40.0, 100) == 30.0
    assert majority_of_present(250.0, 100) == 0.0


def test_every_scale_passes_empty_counts_at_most_at_twice_the_rate():
    # every count 0 and every scale read (a majority never reached): the single cells
    # pass one w.p. <= alpha = 1e-3, the coarser scales together w.p. <= alpha (union
    # bound over the 4 scales' groups), so at most 2 alpha: 4000 draws expect at most 8,
    # and 20 or more has probability below 1e-4 under that bound (Poisson(8) tail)
    rng = np.random.default_rng(0)
    threshold = threshold_z(EDGES.size + 1)
    finds = 0
    for _ in range(4000):
        scales = read_scales(rng.standard_normal(EDGES.size + 1), 1.0, threshold,
                             majority=np.inf)
        assert len(scales) == 1 + COARSE_LEVELS
        finds += any(np.any(kept > 0) for kept, _ in scales)
    assert finds < 20


def test_a_spread_column_of_a_small_table_keeps_most_of_its_records():
    # 2,000 standard normal records at mu = 0.03 (about what a raw-table pipeline gives
    # a column of a 3-column table at epsilon 1 when the target range takes half the
    # preparation): no more than a few single cells pass, by the noise's luck, each
    # holding 7-8% of the records, so that a range read from them alone held a median
    # 16% of the column (measured); read until its survivors hold a majority it holds
    # a median 84%. Fixed seeds; 40 draws, the median above 0.6 and the worst above 0.3
    # leave room for the draws' spread (the measured 10% quantile is 0.83)
    sigma = math.sqrt(2.0) / 0.03
    held = []
    for seed in range(40):
        x = np.random.default_rng(seed).standard_normal(2000)
        found = private_range(x, 0.03, random_state=1000 + seed)
        assert found.found
        held.append(np.mean((x >= found.low) & (x <= found.high)))
    assert np.median(held) > 0.6 and min(held) > 0.3, held
    assert sigma > 40  # the regime described: counts of 150 per cell below z sigma


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
