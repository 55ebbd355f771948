"""Clipping, chunked gradients and the noisy GD loops."""

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgd._data._chunks import chunk_bounds
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd.losses import BinaryLogisticLoss, MultinomialLogisticLoss
from skdpgd.optim import (
    cyclic_partition,
    noisy_cyclic_gradient_descent,
    noisy_gradient_descent,
)
from skdpgd.utils._clipping import clip_rows, row_norms


def _coef_shape(loss, n_features):
    """theta's shape for a loss: (d,) for one output, (K, d) for K."""
    return (n_features,) if loss.n_outputs == 1 else (loss.n_outputs, n_features)


def gradient_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    """One chunked sum of the per-row gradients (the engine of a fit, used once)."""
    with ChunkedRowSums(loss.gradient_sum, X, y, n_jobs=n_jobs, chunk_size=chunk_size) as sums:
        return sums.sum(coef)


def test_clip_rows_dense_and_sparse():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4)) * rng.uniform(0.01, 3, (50, 1))
    X[3] = 0.0
    clipped = clip_rows(X, 1.0)
    norms, before = row_norms(clipped), row_norms(X)
    np.testing.assert_allclose(norms[before > 1], 1.0, rtol=1e-14)  # long rows land on the bound
    np.testing.assert_array_equal(clipped[before <= 1], X[before <= 1])  # short rows untouched
    np.testing.assert_allclose(clip_rows(sp.csr_matrix(X), 1.0).toarray(), clipped, rtol=1e-15)
    assert not np.shares_memory(clipped, X)
    with pytest.raises(ValueError, match="max_norm"):
        clip_rows(X, 0.0)


@pytest.mark.parametrize("loss", [BinaryLogisticLoss(), MultinomialLogisticLoss(3)], ids=str)
def test_chunked_gradient_is_bit_identical_for_every_n_jobs(loss):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5000, 7))
    y = rng.integers(0, 2 if isinstance(loss, BinaryLogisticLoss) else 3, 5000)
    coef = rng.standard_normal(_coef_shape(loss, 7))
    one = gradient_sum(loss, coef, X, y, n_jobs=1, chunk_size=300)
    for jobs in (2, -1):
        np.testing.assert_array_equal(one, gradient_sum(loss, coef, X, y, n_jobs=jobs, chunk_size=300))
    np.testing.assert_allclose(one, loss.gradient_sum(coef, X, y), rtol=1e-12)
    np.testing.assert_allclose(
        gradient_sum(loss, coef, sp.csr_matrix(X), y, chunk_size=300), one, rtol=1e-12
    )
    assert chunk_bounds(5000, 7, 300)[-1] == (4800, 5000)


def test_noiseless_gd_reaches_the_quadratic_minimiser():
    target = np.array([1.0, -2.0, 0.5])
    coef = noisy_gradient_descent(
        lambda th: 2.0 * (th - target), np.zeros(3), learning_rate=0.25, noise_std=0.0,
        n_steps=100, rng=np.random.default_rng(0),
    )
    np.testing.assert_allclose(coef, target, atol=1e-12)


def test_noise_draws_match_a_hand_rolled_loop():
    grad = lambda th: 0.5 * th - 1.0  # noqa: E731
    got = noisy_gradient_descent(
        grad, np.zeros((2, 3)), learning_rate=0.3, noise_std=0.7, n_steps=5,
        rng=np.random.default_rng(42),
    )
    rng, th = np.random.default_rng(42), np.zeros((2, 3))
    for _ in range(5):
        th = th - 0.3 * (grad(th) + 0.7 * rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(got, th)


def test_callback_sees_no_iterates():
    seen = []
    noisy_gradient_descent(
        lambda th: -np.ones_like(th), np.zeros(4), learning_rate=1.0, noise_std=1.0, n_steps=20,
        rng=np.random.default_rng(0), callback=seen.append,
    )
    assert seen == list(range(20))


def test_cyclic_visits_batches_in_order_and_partition_is_public():
    visits = []

    def batch_gradient(th, j):
        visits.append(j)
        return np.zeros_like(th)

    noisy_cyclic_gradient_descent(
        batch_gradient, np.zeros(2), n_batches=3, learning_rate=0.1, noise_std=0.0,
        n_epochs=2, rng=np.random.default_rng(0),
    )
    assert visits == [0, 1, 2, 0, 1, 2]
    parts = cyclic_partition(10, 4, np.random.default_rng(5))
    assert sorted(np.concatenate(parts).tolist()) == list(range(10))
    assert sorted(len(p) for p in parts) == [3, 3, 4]
    again = cyclic_partition(10, 4, np.random.default_rng(5))
    assert all(np.array_equal(a, b) for a, b in zip(parts, again, strict=True))
