"""The complement rule: a range that starts at 0 moves out while the records outside it,
read through n, are significant (``_range_reading.extend_to_complement``)."""

import math

import numpy as np

from skdpgd.preprocessing import column_range
from skdpgd.preprocessing._range_reading import (
    extend_to_complement,
    present_count,
    tail_threshold_z,
    window_threshold_z,
)

Z_FIRST, Z_NEXT = tail_threshold_z(), window_threshold_z()


def _mostly_zero(seed, n=2000):
    """85% zeros, else geometric(0.1): about 300 nonzero values at 2,000 rows."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n) < 0.85, 0, rng.geometric(0.1, n))


def test_exact_counts_reach_the_last_cell_that_holds_records():
    # cell 2 is [0, e): 1,700 zeros, then ten cells of 30 records, then empty cells
    values = np.zeros(20)
    values[2], values[3:13] = 1700.0, 30.0
    first, last = extend_to_complement(2, 2, values, 2000.0, 1e-6, Z_FIRST, Z_NEXT,
                                       zero_cell=2)
    assert (first, last) == (2, 12)


def test_the_side_is_read_from_a_range_at_zero_only():
    # a range [3, 5] away from 0 that misses 300 records: which side holds them is not
    # known from the sum, and nothing moves
    values = np.zeros(20)
    values[3:6], values[8:11] = 500.0, 100.0
    assert extend_to_complement(3, 5, values, 1800.0, 1e-6, Z_FIRST, Z_NEXT,
                                zero_cell=2) == (3, 5)


def test_a_range_holding_every_record_moves_at_the_tail_rate_at_most():
    # every record in the cell [0, e) and its neighbour: R is pure noise, its sd at most
    # sigma sqrt(k + 1) and its mean below 0 (the missing count clipped), so the first
    # step happens with probability at most alpha/2 = 5e-4: 2 expected in 4,000 draws,
    # P(more than 8) < 1e-3 (Poisson(2))
    rng = np.random.default_rng(0)
    counts = np.zeros(40)
    counts[20], counts[21] = 1700.0, 300.0
    sigma, moved = 41.0, 0
    for _ in range(4000):
        noisy = counts + sigma * rng.standard_normal(40)
        present = present_count(sigma * rng.standard_normal(), 2000)
        if extend_to_complement(20, 21, noisy, present, sigma, Z_FIRST, Z_NEXT,
                                zero_cell=20) != (20, 21):
            moved += 1
    assert moved <= 8


def test_a_mostly_zero_count_keeps_its_nonzero_values_at_2000_rows():
    # mu 0.0343: a column's share of a 3-column table at epsilon 1, sigma_c = 41 per cell.
    # The 300 nonzero values lie over eleven cells of about 0.7 sigma each, below every
    # test on cells or groups of them; the ones alone are 10% of them (the earlier
    # reading's range held 13% or less in 17 of these 20 draws). Outside the cell [0, 1)
    # R is about 300 records, noise sqrt(2) sigma = 58: the first step passes in about 95%
    # of draws and the next ones while R exceeds 1.645 sigma sqrt(k + 1); a range up to 3
    # holds 27% of the nonzero values.
    kept = []
    for seed in range(20):
        x = _mostly_zero(seed)
        r = column_range(x.astype(float), 0.0343, np.random.default_rng(100 + seed),
                         integer=True).range
        assert r.low == 0.0
        kept.append(np.mean(x[x > 0] <= r.high))
    assert np.median(kept) >= 0.25


def test_a_binary_column_is_not_widened():
    # 15% ones: every record is in the cells [0, 1) and [1, 2); the rule's first step
    # has probability at most 5e-4 per draw, and the earlier rules' own widening reads
    # [0, 4) at worst (200 draws before the rule)
    for seed in range(30):
        x = (np.random.default_rng(seed).random(2000) < 0.15).astype(float)
        r = column_range(x, 0.0343, np.random.default_rng(100 + seed), integer=True).range
        assert r.low == 0.0 and r.high <= 4.0
        assert math.isfinite(r.high)
