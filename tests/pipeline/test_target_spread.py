"""The Huber threshold from the target's released spread (docs/theory.md, same title).

Inside a DP pipeline, ``DPRidge(y_bound="auto")`` takes its default Huber threshold from
the standard deviation of the mapped target read from the target range's own release
(``histogram_spread``, post-processing), instead of the uniform law's 1/sqrt(3).
"""

import math

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.linear_model._defaults import (
    ridge_residual_clip,
    ridge_residual_clip_for_spread,
)
from skdpgd.pipeline._target import histogram_spread, release_target_range, scale_target
from skdpgd.preprocessing import DPTableVectorizer, column_range
from skdpgd.preprocessing._private_range import cell_counts, public_grid


def _table(n, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = scale * X["a"].to_numpy() + X["b"].to_numpy() + rng.normal(size=n)
    return X, y


def test_the_uniform_law_gives_the_public_rule():
    # c = 1.345 sqrt(0.1) s; with s = B / sqrt 3 it is the rule from the bound alone
    assert ridge_residual_clip_for_spread(1.0 / math.sqrt(3.0)) == pytest.approx(
        ridge_residual_clip(1.0), rel=1e-15)
    assert ridge_residual_clip_for_spread(0.5) == pytest.approx(1.345 * math.sqrt(0.1) * 0.5)


def test_exact_counts_of_a_uniform_target_read_its_standard_deviation():
    # no noise: 32 equal cells over [0, 1] hold a uniform sample evenly; the cells' means
    # and widths give the mapped sd 1/sqrt 3 up to the sample's own error (1e5 rows)
    y = np.random.default_rng(1).uniform(0.0, 1.0, 100_000)
    edges = np.linspace(0.0, 1.0, 33)
    spread = histogram_spread(edges, cell_counts(y, edges), 0.0, 1.0)
    assert spread == pytest.approx(np.std(scale_target(y, 0.0, 1.0)), abs=2e-3)
    assert spread == pytest.approx(1.0 / math.sqrt(3.0), abs=3e-3)


def test_cells_outside_the_range_and_negative_counts_are_not_read():
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    # cells: (-inf, 0), [0, 1), [1, 2), [2, 3), [3, inf), missing
    noisy = np.array([1e6, 10.0, -5.0, 10.0, 1e6, 7.0])
    # read on [0, 3]: cells [0, 1) and [2, 3) with 10 each, mapped to [-1, -1/3), [1/3, 1]
    # mean 0, sd^2 = (2/3)^2 + (2/3)^2 / 12
    expected = math.sqrt((2.0 / 3.0) ** 2 + (2.0 / 3.0) ** 2 / 12.0)
    assert histogram_spread(edges, noisy, 0.0, 3.0) == pytest.approx(expected, rel=1e-12)
    # nothing positive inside the range: no spread (the public rule is used)
    assert histogram_spread(edges, np.array([5.0, -1.0, -2.0, -3.0, 5.0, 0.0]), 0.0, 3.0) is None


def test_the_released_histogram_is_the_one_the_range_was_read_from():
    # mu = inf: exact counts; the histogram kept is cell_counts on its own grid
    y = np.random.default_rng(2).normal(50.0, 10.0, 5000)
    released = column_range(y, np.inf, 0)
    edges, counts = released.histogram
    assert released.range.found
    np.testing.assert_array_equal(counts, cell_counts(y, edges))
    released = column_range(y, 0.5, 0, edges=public_grid())
    edges, noisy = released.histogram
    assert noisy.shape == (edges.size + 2,)


def test_the_released_spread_is_close_to_the_mapped_targets_sd():
    # 20,000 rows at the target range's share of a pipeline at epsilon 1: within 10% of the
    # exact sd of the mapped, clipped target on every seed (the floor at 0 of the empty
    # cells' noise errs upwards only a little at this n)
    y = _table(20_000)[1]
    for seed in range(5):
        low, high, spread, _ = release_target_range(y, mu=0.05, random_state=seed)
        exact = float(np.std(scale_target(y, low, high)))
        assert spread == pytest.approx(exact, rel=0.10)


def test_a_pipeline_sets_the_threshold_from_the_released_spread():
    X, y = _table(5000)
    pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"), epsilon=1.0,
                            random_state=0).fit(X, y)
    ridge = pipe.pipeline_.steps[-1][1]
    low, high = pipe.target_range_
    exact = float(np.std(scale_target(y, low, high)))
    # the threshold is the rule's at a spread within 15% of the mapped target's sd
    spread = ridge.residual_clip_ / ridge_residual_clip_for_spread(1.0)
    assert spread == pytest.approx(exact, rel=0.15)
    # y = 3a + b + noise over a range about twice its sd: well below the uniform rule's
    assert ridge.residual_clip_ < 0.8 * ridge_residual_clip(1.0)


@pytest.mark.parametrize("params", [{"residual_clip": 0.3}, {"inference": True}])
def test_a_given_threshold_and_inference_keep_their_rule(params):
    X, y = _table(5000)
    pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto", **params),
                            epsilon=1.0, random_state=0).fit(X, y)
    expected = params.get("residual_clip", ridge_residual_clip(1.0))
    assert pipe.pipeline_.steps[-1][1].residual_clip_ == pytest.approx(expected, rel=1e-15)


def test_the_spread_changes_no_privacy_number():
    # post-processing: the same releases, the same (epsilon, delta) and per-release mu
    X, y = _table(5000)
    spread = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"), epsilon=1.0,
                              random_state=0).fit(X, y)
    public = make_dp_pipeline(DPTableVectorizer(),
                              DPRidge(y_bound="auto", residual_clip=ridge_residual_clip(1.0)),
                              epsilon=1.0, random_state=0).fit(X, y)
    assert spread.privacy_.epsilon == public.privacy_.epsilon
    assert spread.privacy_.delta == public.privacy_.delta
    assert [(n, r.mu) for n, r in spread.privacy_.steps] == [
        (n, r.mu) for n, r in public.privacy_.steps]
    assert spread.target_range_ == public.target_range_
