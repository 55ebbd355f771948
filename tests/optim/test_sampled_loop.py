"""The sampled noisy SGD loop: sampling, normalisation, randomness order, hidden state."""

import math

import numpy as np
import pytest

from skdpgd.optim import noisy_gradient_descent, noisy_sampled_gradient_descent


def quadratic_rows(targets):
    """Per-example loss 0.5 ||theta - x_i||^2: gradient sum over rows = |rows| theta - sum x_i."""

    def gradient_on_rows(theta, rows):
        return len(rows) * theta - targets[rows].sum(axis=0)

    return gradient_on_rows


def test_full_batch_without_noise_is_gradient_descent():
    # b = n: q = 1, every row is in every Poisson batch (rng.random(n) < 1 always holds)
    rng = np.random.default_rng(0)
    targets = rng.normal(size=(30, 3))
    grad_rows = quadratic_rows(targets)
    sgd = noisy_sampled_gradient_descent(
        grad_rows, np.zeros(3), n_samples=30, batch_size=30, learning_rate=0.3, noise_std=0.0,
        n_steps=25, rng=np.random.default_rng(1), regularization=0.1,
    )
    gd = noisy_gradient_descent(
        lambda th: grad_rows(th, np.arange(30)) / 30 + 0.1 * th, np.zeros(3), learning_rate=0.3,
        noise_std=0.0, n_steps=25, rng=np.random.default_rng(1),
    )
    np.testing.assert_allclose(sgd, gd, rtol=1e-13, atol=1e-15)


def test_replaying_the_rng_reproduces_the_run():
    # Randomness order per step: batch draw (rng.random(n) for Poisson), then the noise.
    # Replaying it by hand reproduces the iterate exactly, which also checks that the sum
    # is divided by the fixed expected batch size b, never by the realised |B_k|.
    n, b, eta, sigma, lam, steps = 40, 8, 0.2, 0.7, 0.05, 12
    targets = np.random.default_rng(2).normal(size=(n, 2))
    out = noisy_sampled_gradient_descent(
        quadratic_rows(targets), np.ones(2), n_samples=n, batch_size=b, learning_rate=eta,
        noise_std=sigma, n_steps=steps, rng=np.random.default_rng(3), regularization=lam,
    )
    replay, theta = np.random.default_rng(3), np.ones(2)
    for _ in range(steps):
        rows = np.flatnonzero(replay.random(n) < b / n)
        grad = (len(rows) * theta - targets[rows].sum(axis=0)) / b + lam * theta
        theta = theta - eta * (grad + sigma * replay.standard_normal(2))
    np.testing.assert_allclose(out, theta, rtol=1e-13)


def test_uniform_batches_are_b_distinct_rows_replayed_from_the_rng():
    # sampling="uniform": exactly b distinct rows each step, drawn by
    # rng.choice(n, b, replace=False) before the noise; replaying that order by hand
    # reproduces the iterate, and every batch seen by the gradient has b distinct rows.
    n, b, eta, sigma, lam, steps = 40, 8, 0.2, 0.7, 0.05, 12
    targets = np.random.default_rng(2).normal(size=(n, 2))
    seen = []

    def gradient_on_rows(theta, rows):
        seen.append(np.array(rows))
        return quadratic_rows(targets)(theta, rows)

    out = noisy_sampled_gradient_descent(
        gradient_on_rows, np.ones(2), n_samples=n, batch_size=b, learning_rate=eta,
        noise_std=sigma, n_steps=steps, rng=np.random.default_rng(3), regularization=lam,
        sampling="uniform",
    )
    assert all(len(rows) == b and len(np.unique(rows)) == b for rows in seen)
    replay, theta = np.random.default_rng(3), np.ones(2)
    for _ in range(steps):
        rows = np.sort(replay.choice(n, size=b, replace=False))
        grad = (b * theta - targets[rows].sum(axis=0)) / b + lam * theta
        theta = theta - eta * (grad + sigma * replay.standard_normal(2))
    np.testing.assert_allclose(out, theta, rtol=1e-13)


def test_uniform_inclusion_frequency():
    # A fixed-size uniform batch holds each row with probability b/n: over K = 2000 steps
    # each row's count is Binomial(2000, 0.1) (sd 13.4); a 5 sd band, seed fixed.
    n, b, steps = 50, 5, 2000
    counts = np.zeros(n)

    def gradient_on_rows(theta, rows):
        counts[rows] += 1
        return np.zeros_like(theta)

    noisy_sampled_gradient_descent(
        gradient_on_rows, np.zeros(1), n_samples=n, batch_size=b, learning_rate=1.0,
        noise_std=0.0, n_steps=steps, rng=np.random.default_rng(7), sampling="uniform",
    )
    assert np.all(np.abs(counts - steps * b / n) < 5 * math.sqrt(steps * 0.1 * 0.9))


def test_poisson_inclusion_frequency():
    # Each row is included independently with probability q = b/n at every step: over
    # K = 2000 steps each row's count is Binomial(2000, 0.1) (sd 13.4); a 5 sd band fails
    # with probability < 1e-6 per row (< 1e-4 over the 50 rows), and the seed is fixed.
    n, b, steps = 50, 5, 2000
    counts = np.zeros(n)
    sizes = []

    def grad(theta, rows):
        assert np.all(np.diff(rows) > 0)  # sorted, distinct
        counts[rows] += 1
        sizes.append(len(rows))
        return np.zeros_like(theta)

    noisy_sampled_gradient_descent(
        grad, np.zeros(1), n_samples=n, batch_size=b, learning_rate=0.1, noise_std=0.0,
        n_steps=steps, rng=np.random.default_rng(4),
    )
    sd = math.sqrt(steps * 0.1 * 0.9)
    assert np.all(np.abs(counts - steps * 0.1) < 5 * sd)
    assert 0 in sizes  # empty batches happen (P = 0.9^50 = 0.5% per step) and are valid steps
    assert len(set(sizes)) > 3  # the realised size is random


def test_empty_batches_are_regularisation_and_noise_only():
    # n = 3, b = 1: a batch is empty with probability (2/3)^3 = 0.30. The data term's
    # gradient sum is |rows| * (1, 1), so a step is theta <- theta - eta (|B|/b + lam theta);
    # an empty batch leaves the regularisation step only.
    sizes = []

    def grad(theta, rows):
        sizes.append(len(rows))
        return len(rows) * np.ones_like(theta)

    out = noisy_sampled_gradient_descent(
        grad, np.array([2.0, -1.0]), n_samples=3, batch_size=1, learning_rate=0.5,
        noise_std=0.0, n_steps=10, rng=np.random.default_rng(5), regularization=0.2,
    )
    assert 0 in sizes and max(sizes) > 0
    expected = np.array([2.0, -1.0])
    for size in sizes:
        expected = expected - 0.5 * (size * np.ones(2) + 0.2 * expected)
    np.testing.assert_allclose(out, expected, rtol=1e-14)


def test_callback_and_edge_cases():
    steps_seen = []
    out = noisy_sampled_gradient_descent(
        lambda th, rows: -100.0 * len(rows) * np.ones_like(th), np.zeros(3), n_samples=10,
        batch_size=10, learning_rate=1.0, noise_std=0.0, n_steps=3,
        rng=np.random.default_rng(7), callback=steps_seen.append,
    )
    np.testing.assert_array_equal(out, np.full(3, 300.0))  # 3 steps of 100 (b = n = 10)
    assert steps_seen == [0, 1, 2]
    start = np.array([1.0, 2.0])
    copy = noisy_sampled_gradient_descent(
        None, start, n_samples=5, batch_size=2, learning_rate=1.0, noise_std=1.0, n_steps=0,
        rng=np.random.default_rng(0),
    )
    assert copy is not start and np.array_equal(copy, start)
    common = dict(learning_rate=1.0, noise_std=0.0, n_steps=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="batch_size"):
        noisy_sampled_gradient_descent(None, np.zeros(1), n_samples=5, batch_size=6, **common)
    for sampling in ("shuffle", "Uniform"):  # samplers no accountant covers
        with pytest.raises(ValueError, match="sampling"):
            noisy_sampled_gradient_descent(
                None, np.zeros(1), n_samples=5, batch_size=2, sampling=sampling, **common
            )
    with pytest.raises(ValueError, match="regularization"):
        noisy_sampled_gradient_descent(
            None, np.zeros(1), n_samples=5, batch_size=2, regularization=-1.0, **common
        )
    with pytest.raises(ValueError, match="shape"):
        noisy_sampled_gradient_descent(
            lambda th, rows: np.zeros(2), np.zeros(1), n_samples=5, batch_size=5, **common
        )


def test_sampled_steps_are_unbiased_on_average():
    # Poisson sampling with the fixed normaliser b gives an unbiased gradient, so on a
    # quadratic the mean of the last iterate follows full-batch GD exactly. 400 runs of
    # K = 20 steps: the mean's standard error is below 0.03 per coordinate here (sampling
    # plus noise std per run < 0.6), so a tolerance of 0.15 is > 5 standard errors.
    n, b = 100, 10
    targets = np.random.default_rng(8).normal(size=(n, 2)) + 1.0
    grad_rows = quadratic_rows(targets)
    rng = np.random.default_rng(9)
    finals = [
        noisy_sampled_gradient_descent(
            grad_rows, np.zeros(2), n_samples=n, batch_size=b, learning_rate=0.2,
            noise_std=0.5, n_steps=20, rng=rng,
        )
        for _ in range(400)
    ]
    gd = noisy_gradient_descent(
        lambda th: grad_rows(th, np.arange(n)) / n, np.zeros(2), learning_rate=0.2,
        noise_std=0.0, n_steps=20, rng=rng,
    )
    np.testing.assert_allclose(np.mean(finals, axis=0), gd, atol=0.15)
