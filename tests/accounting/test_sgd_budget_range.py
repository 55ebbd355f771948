"""Sampled-SGD accounting and planning stay bounded in time and memory at any budget.

Three documented behaviours: the PLD grid step grows with the run's epsilon scale (so a
PLD has a bounded number of points), runs whose noise multiplier is below
``PLD_MIN_NOISE_MULTIPLIER`` get the closed-form unsampled GDP bound (checked here against
Dong-Roth-Su's delta(epsilon) solved independently), and calibration / planning refuse a
finite epsilon above ``SGD_MAX_EPSILON`` with a ValueError naming the limit.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

pytest.importorskip("dp_accounting")

from skdpgd.accounting import (
    _sampled_sgd,
    calibrate_poisson_sgd,
    calibrate_sampled_sgd,
    composed_replace_one_epsilon,
    poisson_sgd_epsilon,
)
from skdpgd.solvers import plan_sampled_sgd

DELTA = 1e-5
PLAN = dict(gradient_bound=1.0, data_smoothness=0.25, n_samples=1000, n_params=5,
            initial_distance=1.0, max_passes=50)


def gdp_epsilon_reference(mu, delta):
    """epsilon of mu-GDP: root of Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = delta
    (Dong, Roth, Su 2022, Corollary 2.13), in log space so that large mu does not overflow."""

    def excess(eps):
        a = stats.norm.cdf(-eps / mu + mu / 2)
        b = math.exp(eps + stats.norm.logcdf(-eps / mu - mu / 2))
        return a - b - delta

    return optimize.brentq(excess, 0.0, mu * mu + 50.0 * mu, xtol=1e-9, rtol=1e-12)


def pmf_size(q, z, k, discretization):
    accountant = _sampled_sgd._poisson_pld_accountant.__wrapped__(q, z, k, discretization)
    pld = accountant._pld
    return max(pld._pmf_remove.size, pld._pmf_add.size)


@pytest.mark.parametrize("q, z, k", [
    (0.5, 0.6, 100),      # epsilon ~ 1e2
    (0.5, 0.1, 100),      # ~ 3.6e3 (1e-3 grid: 3.9 million points)
    (0.002, 0.0917, 6000),  # ~ 1.6e3 (1e-3 grid: 2.4 million points)
    (0.5, 0.02, 10),      # far beyond any budget the planner accepts
    (0.5, 0.016, 1000),   # ~ 1e6, just above the closed-form threshold
])
def test_automatic_grid_bounds_the_number_of_pld_points(q, z, k):
    # The automatic step is 1e-5 of the epsilon scale (at most 1), so a PLD spans ~1e5
    # points (its support is a few times its epsilon); 1e6 leaves room for that factor
    # (8 MB per PMF, against 31 MB and 2 s for the 1e-3 grid of the second run).
    d = _sampled_sgd.pld_discretization(_sampled_sgd._run_mu_scale(q, z, k))
    assert pmf_size(q, z, k, d) < 1_000_000


def test_automatic_grid_is_the_fine_grid_at_ordinary_budgets():
    run = dict(delta=DELTA, batch_size=100, n_samples=10_000, gradient_bound=1.0)
    for sigma in (0.005, 0.01, 0.05):
        auto = poisson_sgd_epsilon(sigma, 1000, **run)
        fine = poisson_sgd_epsilon(sigma, 1000, discretization=1e-3, **run)
        assert auto == fine


def test_coarse_automatic_grid_costs_little_at_large_budgets():
    # q=0.002, z=0.0917, K=6000 at grid 1e-2 gives epsilon 1592.81 (measured; 1e-3 gives
    # 1592.805); the automatic grid (here 1) may overstate it by a small relative amount
    # only (measured 1595.0: 0.14%; the tolerance is 0.5%).
    run = dict(delta=DELTA, batch_size=2, n_samples=1000, gradient_bound=1.0)
    sigma = 0.0917 / 2
    auto = poisson_sgd_epsilon(sigma, 6000, **run)
    finer = poisson_sgd_epsilon(sigma, 6000, discretization=1e-2, **run)
    assert finer <= auto <= finer * 1.005


@pytest.mark.parametrize("z, k", [(0.01, 1), (0.001, 50), (1e-6, 1000)])
def test_tiny_noise_gets_the_closed_form_unsampled_gdp_bound(z, k):
    q = 0.01
    eps = poisson_sgd_epsilon(z, k, delta=DELTA, batch_size=10, n_samples=1000,
                              gradient_bound=10.0)  # z = sigma b / L = sigma
    mu = 2.0 * math.sqrt(k) / z
    assert eps == pytest.approx(gdp_epsilon_reference(mu, DELTA), rel=1e-6)
    composed = composed_replace_one_epsilon(DELTA, gaussian_mu=3.0, poisson_runs=((q, z, k),))
    assert composed == pytest.approx(gdp_epsilon_reference(math.hypot(3.0, mu), DELTA), rel=1e-6)


@pytest.mark.parametrize("sigma, k, expected", [
    (1e-300, 10, math.inf),      # z = 1e-299: 2 sqrt(K)/z is past gdp_to_epsilon's range
    (0.0, 10, math.inf),
    (1e300, 10, 0.0),            # z = 1e301: the library would square z; epsilon ~ 0
])
def test_extreme_noise_gives_the_closed_form_not_an_error(sigma, k, expected):
    eps = poisson_sgd_epsilon(sigma, k, delta=DELTA, batch_size=10, n_samples=100,
                              gradient_bound=1.0)
    assert eps == expected


def test_astronomically_many_steps_are_bounded_in_time():
    # K = 1e9 Poisson steps (q = 0.1, z = 1, or z = 10 below): the library's composition
    # would take many minutes; the closed form 2 sqrt(K)/z-GDP is returned instead (an
    # upper bound).
    eps = poisson_sgd_epsilon(1.0, 10**9, delta=DELTA, batch_size=10, n_samples=100,
                              gradient_bound=10.0)
    assert eps == pytest.approx(gdp_epsilon_reference(2.0 * math.sqrt(1e9), DELTA), rel=1e-6)
    eps10 = poisson_sgd_epsilon(10.0, 10**9, delta=DELTA, batch_size=10, n_samples=100,
                                gradient_bound=10.0)
    assert eps10 == pytest.approx(gdp_epsilon_reference(0.2 * math.sqrt(1e9), DELTA), rel=1e-6)
    both = composed_replace_one_epsilon(DELTA, gaussian_mu=1.0,
                                        poisson_runs=((0.1, 1.0, 10**9), (0.1, 1.0, 10)))
    mu = math.sqrt(1.0 + 4e9 + 40.0)
    assert both == pytest.approx(gdp_epsilon_reference(mu, DELTA), rel=1e-6)


def test_closed_form_is_above_the_pld_where_both_apply():
    # The unsampled bound ignores amplification: a valid but larger number.
    _q, z, k = 0.05, 0.5, 20
    pld = poisson_sgd_epsilon(z, k, delta=DELTA, batch_size=50, n_samples=1000,
                              gradient_bound=50.0)
    closed = _sampled_sgd._unsampled_gdp_epsilon([2.0 * math.sqrt(k) / z], DELTA)
    assert closed > pld > 0.0


@pytest.mark.parametrize("epsilon", [1000.5, 1e6, 1e300])
def test_calibration_and_planning_refuse_budgets_above_the_cap(epsilon):
    run = dict(n_steps=100, batch_size=10, n_samples=1000, gradient_bound=1.0)
    with pytest.raises(ValueError, match=r"epsilon=.* is above 1000"):
        plan_sampled_sgd(epsilon, DELTA, **PLAN)
    with pytest.raises(ValueError, match=r"is above 1000"):
        calibrate_poisson_sgd(epsilon, DELTA, **run)
    with pytest.raises(ValueError, match=r"is above 1000"):
        calibrate_sampled_sgd(epsilon, DELTA, sampling="poisson", **run)


def test_planning_at_the_cap_meets_it_and_noiseless_stays_available():
    plan = plan_sampled_sgd(1000.0, DELTA, **PLAN)
    assert 0.9 * 1000.0 < plan.epsilon <= 1000.0
    assert plan.noise_std > 0.0
    assert plan_sampled_sgd(np.inf, DELTA, **PLAN).noise_std == 0.0


def test_estimator_refuses_huge_epsilon_with_sgd():
    from skdpgd import DPLogisticRegression

    X = np.random.default_rng(0).normal(size=(40, 2)) * 0.3
    y = np.arange(40) % 2
    model = DPLogisticRegression(epsilon=1e6, solver="sgd", classes=[0, 1], random_state=0)
    with pytest.raises(ValueError, match=r"is above 1000"):
        model.fit(X, y)
