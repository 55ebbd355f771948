"""The mechanisms of DPTableVectorizer: sensitivity, exact delta of discovery, statistics.

docs/theory.md#table-vectorizer has the proofs these tests check.
"""

import itertools
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm

from skdpgd.accounting import gdp_to_delta
from skdpgd.preprocessing import private_abs_bound, private_range
from skdpgd.preprocessing._private_categories import (
    categories_from_noisy_counts,
    discover_categories,
    discovery_threshold,
    hash_bucket,
    value_counts,
)
from skdpgd.preprocessing._private_range import (
    cell_counts,
    public_grid,
    range_from_noisy_counts,
    sigma_for_mu,
    threshold_z,
)

EDGES = public_grid()
ADVERSARIAL = np.array([np.nan, np.inf, -np.inf, 1.797e308, -1.797e308, 0.0, -0.0, 5e-324,
                        2.0 ** 40, -(2.0 ** 40), 1e12, 16.0, 15.999999, 1.0, -1.0])


# -- the public grid -------------------------------------------------------------------

def test_grid_is_public_symmetric_and_has_zero():
    assert EDGES.size == 243 and np.all(np.diff(EDGES) > 0)
    assert_allclose(EDGES, -EDGES[::-1], rtol=0, atol=0)
    assert 0.0 in EDGES and 1.0 in EDGES and 16.0 in EDGES  # even exponents are exact
    positive = EDGES[EDGES > 0]
    assert_allclose(positive[1:] / positive[:-1], math.sqrt(2), rtol=1e-15)
    assert positive[0] == 2.0 ** -20 and positive[-1] == 2.0 ** 40


# -- sensitivity: neighbouring tables differ by at most sqrt(2) --------------------------

def _replace_one_pairs(rng, n_pairs=300):
    pool = np.concatenate([ADVERSARIAL, rng.normal(0, 1e3, 50), rng.uniform(-2, 2, 50)])
    for _ in range(n_pairs):
        x = rng.choice(pool, size=40)
        x_prime = x.copy()
        x_prime[rng.integers(40)] = rng.choice(pool)
        yield x, x_prime


def test_histogram_sensitivity_is_sqrt2_and_attained():
    rng = np.random.default_rng(0)
    worst = 0.0
    for x, x_prime in _replace_one_pairs(rng):
        a, b = cell_counts(x, EDGES), cell_counts(x_prime, EDGES)
        assert a.sum() == b.sum() == x.size  # every record in exactly one cell
        distance = np.linalg.norm(a - b)
        assert distance <= math.sqrt(2) * (1 + 1e-15)
        worst = max(worst, distance)
    assert worst == pytest.approx(math.sqrt(2), rel=1e-15)  # attained: sqrt(2) is tight


def test_cells_are_half_open_and_outer_values_land_in_outer_cells():
    counts = cell_counts(np.array([16.0, np.inf, -np.inf, 1.797e308, np.nan]), EDGES)
    k16 = int(np.flatnonzero(EDGES == 16.0)[0]) + 1  # cell k holds e_k <= x < e_{k+1}
    assert counts[k16] == 1 and counts[0] == 1 and counts[EDGES.size] == 2
    assert counts[-1] == 1  # the missing cell


def test_category_count_sensitivity_is_sqrt2():
    rng = np.random.default_rng(1)
    pool = ["a", "b", "c", "d", None, "rare1", "rare2"]
    for _ in range(300):
        keys = list(rng.choice(pool, size=12))
        neighbour = list(keys)
        neighbour[rng.integers(12)] = rng.choice(pool)
        va, ca = value_counts(keys)
        vb, cb = value_counts(neighbour)
        union = sorted(set(va) | set(vb))
        dense_a = np.array([dict(zip(va, ca, strict=True)).get(k, 0.0) for k in union])
        dense_b = np.array([dict(zip(vb, cb, strict=True)).get(k, 0.0) for k in union])
        assert np.linalg.norm(dense_a - dense_b) <= math.sqrt(2) * (1 + 1e-15)


# -- discovery: the threshold and the exact delta ---------------------------------------

def test_threshold_gives_exactly_delta0_for_a_single_record():
    for sigma, delta0 in [(1.0, 1e-7), (37.5, 1e-6), (400.0, 3e-9)]:
        tau = discovery_threshold(sigma, delta0)
        assert norm.sf((tau - 1.0) / sigma) == pytest.approx(delta0, rel=1e-9)
    assert discovery_threshold(1.0, 0.0) == np.inf
    assert discovery_threshold(0.0, 1e-6) == 1.0


def _exact_hockey_stick(pass_p, pass_q, epsilon):
    """sup_S P(S) - e^eps Q(S) for independent per-key release bits (exact enumeration)."""
    total = 0.0
    for outcome in itertools.product([0, 1], repeat=len(pass_p)):
        p = math.prod(pp if o else 1 - pp for pp, o in zip(pass_p, outcome, strict=True))
        q = math.prod(qq if o else 1 - qq for qq, o in zip(pass_q, outcome, strict=True))
        total += max(0.0, p - math.exp(epsilon) * q)
    return total


@pytest.mark.parametrize("a", [1, 2, 3, 6])
@pytest.mark.parametrize("b", [0, 1, 4])
def test_discovery_delta_is_bounded_by_gdp_plus_delta0_exactly(a, b):
    """Record x (count a in D) replaced by x' (count b in D): the released set of D vs D'.

    The output is one independent pass bit per key (the other keys' bits are identical
    in D and D' and factor out), so the exact hockey-stick divergence is a sum over 4
    outcomes. It must stay below delta_mu(eps) + delta0 (docs/theory.md) for every eps,
    in both directions.
    """
    sigma, delta0 = 2.0, 1e-3  # a large delta0 so the additive part is visible
    mu = math.sqrt(2) / sigma
    tau = discovery_threshold(sigma, delta0)

    def passes(count):
        return 0.0 if count == 0 else norm.sf((tau - count) / sigma)

    in_d = [passes(a), passes(b)]
    in_d_prime = [passes(a - 1), passes(b + 1)]
    for epsilon in [0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0]:
        bound = float(gdp_to_delta(mu, epsilon)) + delta0
        assert _exact_hockey_stick(in_d, in_d_prime, epsilon) <= bound * (1 + 1e-12)
        assert _exact_hockey_stick(in_d_prime, in_d, epsilon) <= bound * (1 + 1e-12)


def test_additive_delta_is_what_a_singleton_costs():
    """Two singletons swapped (x only in D, x' only in D'): exactly delta0 at every eps.

    The Gaussian part of this pair has sensitivity 0, so the exact delta is the
    additive part alone: the bound is attained, delta0 is not a loose constant.
    """
    sigma, delta0 = 5.0, 1e-4
    tau = discovery_threshold(sigma, delta0)
    p = norm.sf((tau - 1) / sigma)
    for epsilon in [0.5, 3.0, 30.0]:
        exact = _exact_hockey_stick([p, 0.0], [0.0, p], epsilon)
        assert exact == pytest.approx(delta0, rel=1e-9)


def test_discovery_finds_frequent_values_and_never_a_singleton_at_tiny_delta0():
    rng = np.random.default_rng(3)
    keys = ["big"] * 3000 + ["mid"] * 800 + [f"single{i}" for i in range(2000)] + [None] * 50
    found_any_single = False
    for seed in range(20):
        found = discover_categories(keys, mu=0.2, delta0=1e-9, random_state=np.random.default_rng(seed))
        # sigma = sqrt(2)/0.2 = 7.07, tau = 1 + 7.07 * 6.0 = 43.4: 800 and 3000 are
        # hundreds of sigma above it; a singleton passes w.p. 1e-9 (2000 x 20 tries: 4e-5).
        assert "big" in found and "mid" in found
        found_any_single |= any(k.startswith("single") for k in found)
    assert not found_any_single
    assert discover_categories(keys, mu=0.0, delta0=1e-6, random_state=rng) == []
    assert discover_categories(keys, mu=1.0, delta0=0.0, random_state=rng) == []
    assert categories_from_noisy_counts(["b", "a"], np.array([5.0, 9.0]), 6.0) == ["a"]


def test_hash_buckets_are_stable_and_spread():
    buckets = [hash_bucket(f"value{i}", 16) for i in range(4000)]
    assert buckets == [hash_bucket(f"value{i}", 16) for i in range(4000)]
    counts = np.bincount(buckets, minlength=16)
    # 250 expected per bucket, sd sqrt(250 * 15/16) = 15.3: +-5 sd is [173, 327]
    assert counts.min() > 173 and counts.max() < 327


# -- private range: statistics with fixed seeds -----------------------------------------

def test_sigma_for_mu():
    assert sigma_for_mu(0.5) == pytest.approx(2 * math.sqrt(2))
    assert sigma_for_mu(0.0) == np.inf and sigma_for_mu(np.inf) == 0.0


def test_private_range_of_a_uniform_column_is_the_enclosing_cells():
    """Counts per cell are in the thousands, the threshold 4.5 sigma = 6.3 at mu=1:
    the outcome does not depend on the noise, so the range is exactly the cells that
    hold the data: [16, 64) for uniform values in [20, 60]."""
    x = np.random.default_rng(0).uniform(20, 60, 10_000)
    for seed in range(5):
        r = private_range(x, mu=1.0, random_state=seed)
        assert r.found
        assert r.low == 16.0 and r.high == 64.0
        assert 32.0 <= r.median <= 45.26 and r.median_high == pytest.approx(32 * math.sqrt(2))


def test_private_range_never_fails_on_empty_or_missing_columns():
    """No value, all NaN, or zero budget: found=False (a public default follows).

    With every count 0 an empty cell passes w.p. <= 1e-3 per fit (family-wise rate),
    so 100 seeds give at most a few false finds; here none (seeds fixed).
    """
    for x in (np.array([]), np.full(1000, np.nan)):
        finds = sum(private_range(x, mu=1.0, random_state=s).found for s in range(100))
        assert finds <= 2
    assert not private_range(np.ones(100), mu=0.0).found
    r = private_range(np.full(100, 7.0), mu=np.inf)  # exact counts
    assert r.found and r.low < 7.0 < r.high


def test_range_is_a_function_of_the_noisy_counts_only():
    noisy = np.zeros(EDGES.size + 2)
    k = int(np.flatnonzero(EDGES == 4.0)[0]) + 1
    noisy[k] = 100.0
    noisy[k + 2] = 50.0
    r = range_from_noisy_counts(noisy, EDGES, threshold=10.0)
    assert (r.low, r.high) == (4.0, pytest.approx(8.0 * math.sqrt(2), rel=1e-15))
    assert r.low <= r.median <= r.high
    assert not range_from_noisy_counts(noisy, EDGES, threshold=200.0).found


def test_threshold_z_is_bonferroni():
    z = threshold_z(244, 1e-3)
    assert 244 * norm.sf(z) == pytest.approx(1e-3, rel=1e-9)


def test_private_abs_bound():
    """|y| of N(0, 3^2), n=5000, mu=0.5 (sigma=2.83, threshold 4.5 sigma = 12.6): the cell
    [8, 11.3) holds about 38 records, [11.3, 16) under 1, so B = 8 sqrt(2) for almost
    every seed; we accept one cell either way (B in [8, 16])."""
    y = np.random.default_rng(0).normal(0, 3, 5000)
    for seed in range(5):
        b = private_abs_bound(y, mu=0.5, random_state=seed)
        assert b.found and 8.0 <= b.bound <= 16.0
    assert private_abs_bound(np.full(10, np.nan), mu=0.5, random_state=0, default=2.5).bound == 2.5
    assert private_abs_bound(y, mu=0.0, default=3.0) == type(b)(3.0, False)
    # adversarial targets: never an error, a finite bound
    bad = np.concatenate([y, [np.inf, -np.inf, 1.797e308, np.nan]])
    assert np.isfinite(private_abs_bound(bad, mu=0.5, random_state=0).bound)


def test_the_mechanism_names_both_releases_of_a_numeric_column():
    # the report lists a locating histogram and a second one per numeric share: the
    # mechanism line must say so, and that the split is per share
    import pandas as pd

    from skdpgd.preprocessing import DPTableVectorizer

    x = pd.DataFrame({"a": np.random.default_rng(0).standard_normal(2000)})
    vec = DPTableVectorizer(random_state=0).fit(x)
    mechanism = vec.privacy_.mechanism
    assert "two Gaussian histograms per column" in mechanism and "per share" in mechanism
    (entry, _), = vec.privacy_.releases
    assert "(locating)" in entry and "then second histogram" in entry
