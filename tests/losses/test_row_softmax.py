"""The multinomial loss's row softmax: scipy's values, bit for bit."""

import numpy as np
import pytest
from scipy.special import softmax

from skdpgd.losses._multinomial import row_softmax


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [2, 3, 4, 7, 8, 9, 16, 33])
@pytest.mark.parametrize("n", [0, 1, 5, 2000])
def test_row_softmax_is_scipys_bit_for_bit(dtype, k, n):
    rng = np.random.default_rng(k * 1000 + n)
    scores = (rng.standard_normal((n, k)) * rng.choice([0.1, 3.0, 300.0], (n, 1))).astype(dtype)
    got = row_softmax(scores)
    want = softmax(scores, axis=1)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_row_softmax_extremes_are_scipys():
    big = np.finfo(np.float64).max
    scores = np.array([
        [big, -big, 0.0],  # the maximum far from the rest
        [1e300, 1e300, 1e300],  # ties
        [-np.inf, 0.0, 1.0],  # one class impossible
        [np.nan, 0.0, 1.0],  # a non-finite score (only a non-finite coef gives one)
        [-0.0, 0.0, -0.0],
    ])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(row_softmax(scores), softmax(scores, axis=1))
