"""The noisy GD loops: exact recursion, rng discipline, hidden state, partitions."""

import numpy as np
import pytest

from skdpgd.optim import (
    cyclic_partition,
    noisy_cyclic_gradient_descent,
    noisy_gradient_descent,
)


class RecordingRng:
    """Wraps a Generator and records every call (only standard_normal is allowed)."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.calls = []

    def standard_normal(self, size=None):
        self.calls.append(size)
        return self._rng.standard_normal(size)

    def __getattr__(self, name):
        raise AssertionError(f"unexpected rng method {name!r}")


def quadratic(A, b):
    """Gradient of 0.5 th^T A th - b^T th (minimiser A^{-1} b)."""
    return lambda th: A @ th - b


def test_zero_noise_converges_to_the_minimiser():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 4))
    A = M @ M.T + 0.5 * np.eye(4)
    b = rng.standard_normal(4)
    eig = np.linalg.eigvalsh(A)
    eta = 2.0 / (eig[0] + eig[-1])
    coef = noisy_gradient_descent(
        quadratic(A, b), np.zeros(4), learning_rate=eta, noise_std=0.0, n_steps=2000, rng=None
    )
    np.testing.assert_allclose(coef, np.linalg.solve(A, b), rtol=1e-10, atol=1e-12)


def test_zero_noise_draws_nothing():
    rng = RecordingRng(0)
    noisy_gradient_descent(lambda th: th, np.ones(3), learning_rate=0.1, noise_std=0.0, n_steps=5, rng=rng)
    assert rng.calls == []


@pytest.mark.parametrize("shape", [(3,), (2, 4)])
def test_bit_identical_to_a_hand_rolled_loop(shape):
    K, eta, sigma, lam = 17, 0.3, 0.7, 0.2
    target = np.arange(np.prod(shape), dtype=float).reshape(shape) / 10
    grad = lambda th: (th - target) + lam * th  # noqa: E731
    rng = RecordingRng(42)
    out = noisy_gradient_descent(
        grad, np.zeros(shape), learning_rate=eta, noise_std=sigma, n_steps=K, rng=rng
    )
    assert rng.calls == [shape] * K  # the rng is used exactly K times, with coef.shape

    ref_rng = np.random.default_rng(42)
    th = np.zeros(shape)
    for _ in range(K):
        th = th - eta * (grad(th) + sigma * ref_rng.standard_normal(shape))
    assert np.array_equal(out, th)


def test_returns_a_new_array_and_zero_steps():
    coef0 = np.array([1.0, 2.0])
    out = noisy_gradient_descent(lambda th: th, coef0, learning_rate=0.1, noise_std=1.0, n_steps=0, rng=None)
    assert out is not coef0 and np.array_equal(out, coef0)
    out = noisy_gradient_descent(
        lambda th: th, coef0, learning_rate=0.1, noise_std=1.0, n_steps=3, rng=np.random.default_rng(0)
    )
    assert np.array_equal(coef0, [1.0, 2.0])


def test_callback_receives_step_indices_only():
    received = []
    callback = lambda *args, **kwargs: received.append((args, kwargs))  # noqa: E731
    noisy_gradient_descent(
        lambda th: th, np.ones(2), learning_rate=0.1, noise_std=1.0, n_steps=4,
        rng=np.random.default_rng(0), callback=callback,
    )
    noisy_cyclic_gradient_descent(
        lambda th, j: th, np.ones(2), n_batches=3, learning_rate=0.1, noise_std=1.0, n_epochs=2,
        rng=np.random.default_rng(0), callback=callback,
    )
    assert [args for args, _ in received] == [(k,) for k in range(4)] + [(k,) for k in range(6)]
    assert all(kwargs == {} for _, kwargs in received)
    assert all(type(args[0]) is int for args, _ in received)


def test_cyclic_visits_batches_in_order_and_matches_hand_rolled_loop():
    n_batches, E, eta, sigma = 3, 4, 0.2, 0.5
    centres = [np.array([1.0, 0.0]), np.array([0.0, 2.0]), np.array([-1.0, -1.0])]
    visited = []

    def batch_grad(th, j):
        visited.append(j)
        return th - centres[j]

    rng = RecordingRng(7)
    out = noisy_cyclic_gradient_descent(
        batch_grad, np.zeros(2), n_batches=n_batches, learning_rate=eta, noise_std=sigma,
        n_epochs=E, rng=rng,
    )
    assert visited == [0, 1, 2] * E
    assert rng.calls == [(2,)] * (n_batches * E)
    ref_rng = np.random.default_rng(7)
    th = np.zeros(2)
    for _ in range(E):
        for j in range(n_batches):
            th = th - eta * ((th - centres[j]) + sigma * ref_rng.standard_normal(2))
    assert np.array_equal(out, th)


def test_bad_parameters_raise():
    g = lambda th: th  # noqa: E731
    kw = dict(learning_rate=0.1, noise_std=1.0, n_steps=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="learning_rate"):
        noisy_gradient_descent(g, np.zeros(1), **{**kw, "learning_rate": 0.0})
    with pytest.raises(ValueError, match="noise_std"):
        noisy_gradient_descent(g, np.zeros(1), **{**kw, "noise_std": -1.0})
    with pytest.raises(ValueError, match="n_steps"):
        noisy_gradient_descent(g, np.zeros(1), **{**kw, "n_steps": -1})
    with pytest.raises(ValueError, match="shape"):
        noisy_gradient_descent(lambda th: np.zeros(3), np.zeros(2), **kw)
    with pytest.raises(ValueError, match="n_batches"):
        noisy_cyclic_gradient_descent(
            lambda th, j: th, np.zeros(1), n_batches=0, learning_rate=0.1, noise_std=0.0,
            n_epochs=1, rng=None,
        )


@pytest.mark.parametrize("n, b", [(10, 3), (100, 7), (7, 7), (5, 10), (1, 1), (1000, 64)])
def test_cyclic_partition_properties(n, b):
    batches = cyclic_partition(n, b, np.random.default_rng(3))
    n_batches = -(-n // b)
    assert len(batches) == n_batches
    everything = np.concatenate(batches)
    assert np.array_equal(np.sort(everything), np.arange(n))  # disjoint and covering
    sizes = {len(batch) for batch in batches}
    assert sizes <= {n // n_batches, -(-n // n_batches)}
    assert all(batch.dtype == np.intp for batch in batches)


def test_cyclic_partition_depends_on_n_and_seed_only():
    a = cyclic_partition(50, 8, np.random.default_rng(11))
    b = cyclic_partition(50, 8, np.random.default_rng(11))
    c = cyclic_partition(50, 8, np.random.default_rng(12))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    with pytest.raises(ValueError, match="batch_size"):
        cyclic_partition(10, 0, np.random.default_rng(0))
