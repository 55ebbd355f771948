"""The projection onto a public ball, in every loop (docs/theory.md#projection)."""

import math

import numpy as np
import pytest

from skdpgd.optim import (
    check_max_norm,
    noisy_cyclic_gradient_descent,
    noisy_gradient_descent,
    noisy_sampled_gradient_descent,
    preconditioned_noisy_gradient_descent,
    project_onto_ball,
)

TARGET = np.array([3.0, -4.0])  # |TARGET| = 5: the optimum of 0.5 ||theta - TARGET||^2


def _loops(max_norm, noise_std=0.0, seed=0, steps=200):
    """theta_K of the four loops on 0.5 ||theta - TARGET||^2 (one row, or two equal rows)."""
    rng = np.random.default_rng
    gradient = lambda th: th - TARGET  # noqa: E731
    common = dict(learning_rate=0.5, noise_std=noise_std, max_norm=max_norm)
    return {
        "gd": noisy_gradient_descent(gradient, np.zeros(2), n_steps=steps, rng=rng(seed),
                                     **common),
        "cyclic": noisy_cyclic_gradient_descent(
            lambda th, j: th - TARGET, np.zeros(2), n_batches=2, n_epochs=steps // 2,
            rng=rng(seed), **common),
        "sampled": noisy_sampled_gradient_descent(
            lambda th, rows: len(rows) * (th - TARGET), np.zeros(2), n_samples=2,
            batch_size=2, n_steps=steps, rng=rng(seed), **common),
        "preconditioned": preconditioned_noisy_gradient_descent(
            gradient, np.zeros(2), preconditioner=lambda v: v, n_steps=steps, rng=rng(seed),
            momentum=0.3, **common),
    }


def test_a_point_inside_the_ball_is_returned_as_it_is():
    theta = np.array([0.3, 0.4])
    assert project_onto_ball(theta, 0.5) is theta
    assert project_onto_ball(theta, math.inf) is theta
    np.testing.assert_allclose(project_onto_ball(theta, 0.25), [0.15, 0.2], rtol=1e-15)


def test_projection_is_one_lipschitz_and_lands_in_the_ball():
    rng = np.random.default_rng(1)
    for _ in range(500):
        a, b = rng.standard_normal((2, 3, 2)) * rng.exponential(3.0)
        radius = rng.exponential(1.0)
        pa, pb = project_onto_ball(a, radius), project_onto_ball(b, radius)
        assert np.linalg.norm(pa) <= radius * (1 + 1e-15)  # Frobenius ball for a matrix
        assert np.linalg.norm(pa - pb) <= np.linalg.norm(a - b) * (1 + 1e-15)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan])
def test_a_radius_that_is_not_positive_is_refused(bad):
    with pytest.raises(ValueError, match="max_norm must be > 0"):
        check_max_norm(bad)


def test_noiseless_projected_loops_reach_the_constrained_optimum():
    # the minimiser of 0.5 ||theta - t||^2 over ||theta|| <= 2 is 2 t / ||t||: every loop
    # reaches it (without the projection they reach t, of norm 5)
    for name, coef in _loops(2.0).items():
        np.testing.assert_allclose(coef, 2.0 * TARGET / 5.0, atol=1e-9, err_msg=name)
    for name, coef in _loops(None).items():
        np.testing.assert_allclose(coef, TARGET, atol=1e-9, err_msg=name)


def test_noisy_iterates_stay_in_the_ball():
    for seed in range(5):
        for name, coef in _loops(1.0, noise_std=10.0, seed=seed, steps=20).items():
            assert np.linalg.norm(coef) <= 1.0 + 1e-15, name


def test_a_ball_that_never_binds_changes_no_bit():
    loose, free = _loops(1e6, noise_std=1.0), _loops(None, noise_std=1.0)
    for name in free:
        np.testing.assert_array_equal(loose[name], free[name], err_msg=name)


def test_a_start_outside_the_ball_is_refused():
    with pytest.raises(ValueError, match="the start must lie in the ball"):
        noisy_gradient_descent(lambda th: th, np.ones(2), learning_rate=0.1, noise_std=0.0,
                               n_steps=1, rng=np.random.default_rng(0), max_norm=1.0)
