"""The cyclic mini-batch planner: consistent with the full-batch one and with bound (C)."""

import math

import numpy as np
import pytest
from _gd_reference import full_batch_plan  # tests/_gd_reference.py (conftest puts it on the path)

from skdpgd.accounting import (
    convergent_cyclic_factor,
    cyclic_batch_sizes,
    epsilon_delta_to_gdp,
    gdp_to_epsilon,
    noisy_cyclic_gd_gdp,
)
from skdpgd.accounting.calibration import cyclic_factors, gd_factors
from skdpgd.solvers import (
    batch_heterogeneity,
    plan_noisy_cyclic_gd,
    plan_noisy_cyclic_gd_regularization,
)

COMMON = dict(sensitivity=2.0, n_samples=5000, n_params=20, data_smoothness=0.5,
              initial_distance=3.0)


def _theorem_4_2(c, k):  # Bok-Su-Altschuler Theorem 4.2, squared, written out
    return (1 + c) / (1 - c) * (1 - c**k) / (1 + c**k)


def _theorem_4_5(c, batches, e):  # Theorem 4.5, squared, written out (E >= 2)
    return 1 + c ** (2 * batches - 2) * (1 - c * c) / (1 - c**batches) ** 2 * (
        (1 - c ** (batches * (e - 1))) / (1 + c ** (batches * (e - 1))))


@pytest.mark.parametrize("c", [0.0, 0.3, 0.9, 0.999])
@pytest.mark.parametrize("n_batches", [1, 2, 7])
def test_the_one_closed_form_is_the_theorems(c, n_batches):
    # one closed form (accounting/_noisy_cyclic_gd.py) serves the scalar accountant and the
    # planners' grids; here against the theorems as printed, composition where smaller
    epochs = np.arange(1, 60)
    expected = [1.0] + [_theorem_4_5(c, n_batches, e) for e in epochs[1:]]
    if n_batches == 1:
        expected = [min(x, _theorem_4_2(c, e)) for x, e in zip(expected, epochs, strict=True)]
    expected = np.minimum(epochs, expected)
    np.testing.assert_allclose(cyclic_factors(c, n_batches, epochs), expected, rtol=1e-12)
    np.testing.assert_allclose(gd_factors(c, epochs),
                               np.minimum(epochs, [_theorem_4_2(c, k) for k in epochs]),
                               rtol=1e-12)
    scalar = [min(e, convergent_cyclic_factor(c, n_batches, e) ** 2) for e in epochs]
    np.testing.assert_allclose(scalar, expected, rtol=1e-12)
    # vectorised over the contraction too (the planners pass a grid of c)
    grid = cyclic_factors(np.array([[c], [0.5]]), n_batches, epochs)
    np.testing.assert_array_equal(grid[0], cyclic_factors(c, n_batches, epochs))
    # c = 1 (no contraction): Theorem 4.5's limit 1 + (E - 1)/l; c > 1: composition only
    limit = np.minimum(epochs, 1.0 + (epochs - 1.0) / n_batches)
    np.testing.assert_allclose(cyclic_factors(1.0, n_batches, epochs), limit, rtol=1e-15)
    assert cyclic_factors(1.5, n_batches, epochs).tolist() == epochs.tolist()


def test_one_batch_is_close_to_the_full_batch_planner():
    cyclic = plan_noisy_cyclic_gd(
        1.0, 1e-6, gradient_bound=1.0, strong_convexity=1e-4, max_epochs=300,
        batch_sizes=[5000], **COMMON,
    )
    proxy, n_steps, _, noise_std = full_batch_plan(1.0, 1e-6, strong_convexity=1e-4,
                                                   max_steps=300, **COMMON)
    assert cyclic.n_batches == 1
    # With l = 1, bound (C)^2 = 1 + r (1 - c^(E-1)) / (1 + c^(E-1)) and bound (A)^2 =
    # r (1 - c^E) / (1 + c^E), r = (1 + c)/(1 - c): equal at E = 1, (C) never smaller. So
    # the cyclic plan can only be (slightly, here ~1e-6) worse, never better.
    assert cyclic.utility_proxy >= proxy * (1 - 1e-12)
    assert cyclic.utility_proxy <= proxy * (1 + 1e-3)
    assert cyclic.noise_std >= noise_std * (1 - 1e-12) or cyclic.n_epochs != n_steps


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_plan_meets_its_target_under_bound_c(epsilon):
    plan = plan_noisy_cyclic_gd(
        epsilon, 1e-6, gradient_bound=1.0, strong_convexity=1e-3, max_epochs=40,
        batch_sizes=[5000, 2500, 1250, 625], **COMMON,
    )
    mu = noisy_cyclic_gd_gdp(
        plan.noise_std, plan.n_epochs, batch_size=plan.batch_size, sensitivity=2.0,
        n_samples=5000, learning_rate=plan.learning_rate, strong_convexity=1e-3,
        smoothness=plan.smoothness,
    )
    assert mu <= epsilon_delta_to_gdp(epsilon, 1e-6) * (1 + 1e-12)
    assert gdp_to_epsilon(mu, 1e-6) <= epsilon
    assert gdp_to_epsilon(mu, 1e-6) >= epsilon * (1 - 1e-6)  # calibrated, not wasteful
    assert plan.n_batches == len(cyclic_batch_sizes(5000, plan.batch_size))


def test_small_pass_budget_prefers_several_batches():
    # With 10 passes, full batch can take only 10 steps; cyclic batches take l per pass.
    plan = plan_noisy_cyclic_gd(
        1.0, 1e-7, gradient_bound=1.0, strong_convexity=1e-5, max_epochs=10,
        batch_sizes=[1_000_000 // l for l in (1, 4, 16)], **dict(COMMON, n_samples=1_000_000),
    )
    assert plan.n_batches > 1


def test_heterogeneity_term():
    assert batch_heterogeneity(0.5, gradient_bound=2.0, batch_size=100, n_samples=100) == 0.0
    # eta G^2 (n - b) / (4 b (n - 1)) by hand: 0.5 * 4 * 900 / (4 * 100 * 999)
    value = batch_heterogeneity(0.5, gradient_bound=2.0, batch_size=100, n_samples=1000)
    assert value == pytest.approx(0.5 * 4 * 900 / (4 * 100 * 999), rel=1e-14)


def test_regularization_planner_picks_from_its_grid():
    grid = [1e-6, 1e-4, 1e-2]
    plan = plan_noisy_cyclic_gd_regularization(
        1.0, 1e-6, gradient_bound=1.0, max_epochs=20, batch_sizes=[5000, 1250],
        strong_convexity_grid=grid, **COMMON,
    )
    assert plan.strong_convexity in grid
    assert math.isfinite(plan.utility_proxy)
    with pytest.raises(ValueError, match="batch_sizes"):
        plan_noisy_cyclic_gd(1.0, 1e-6, gradient_bound=1.0, strong_convexity=1e-3,
                             max_epochs=5, batch_sizes=[], **COMMON)
