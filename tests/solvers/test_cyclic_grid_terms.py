"""The cyclic planner's grid (skdpgd/solvers/_cyclic/_planning.py, its grid).

The proxy of every grid point is the utility proxy at K = l E with the noise of bound (C)
plus the batch heterogeneity, computed from two target-free terms that are kept for the
next search of the same grid: a search that reuses them plans exactly what a fresh one
plans, and the kept terms cannot be written to.
"""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression
from skdpgd.accounting import contraction_factor, epsilon_delta_to_gdp
from skdpgd.accounting.calibration import cyclic_factors
from skdpgd.solvers import CyclicSolver
from skdpgd.solvers._cyclic import (
    STEP_FRACTIONS,
    batch_heterogeneity,
    plan_cyclic_together,
    utility_proxy,
)
from skdpgd.solvers._cyclic import _planning as grid


@pytest.mark.parametrize("n_batches", [1, 4, 16])
@pytest.mark.parametrize("noisy", [True, False])
def test_grid_proxy_is_the_utility_proxy_with_bound_c_noise(n_batches, noisy):
    lam = 0.37 * np.logspace(-8, 0, 9)[:, None]
    beta = 0.37 + lam
    etas = np.asarray(STEP_FRACTIONS)[None, :] * 2.0 / (beta + lam)
    contraction = np.maximum(np.abs(1.0 - etas * lam), np.abs(1.0 - etas * beta))
    epochs = np.arange(1, 31)
    b_min, mu, S, G, n, r0, p = 1250, 0.26, 1.2, 0.6, 20000, 11.8, 21
    heterogeneity = batch_heterogeneity(etas, gradient_bound=G, batch_size=b_min,
                                        n_samples=n)
    common = dict(epochs=epochs, n_batches=n_batches, sensitivity=S if noisy else 0.0,
                  denominator=b_min * mu, r0=r0, n_params=p)
    grid.clear_grid_terms()
    got = grid.grid_proxy(contraction, etas, lam, beta, heterogeneity, **common)
    again = grid.grid_proxy(contraction, etas, lam, beta, heterogeneity, **common)
    np.testing.assert_array_equal(again, got)  # the kept terms give the same floats
    for i in range(lam.shape[0]):
        for f in range(etas.shape[1]):
            c = contraction_factor(etas[i, f], lam[i, 0], beta[i, 0])
            assert c == contraction[i, f]
            sigma = (S * np.sqrt(cyclic_factors(c, n_batches, epochs)) / (b_min * mu)
                     if noisy else 0.0)
            want = utility_proxy(n_batches * epochs, sigma, n_params=p,
                                 learning_rate=etas[i, f], strong_convexity=lam[i, 0],
                                 smoothness=beta[i, 0], initial_distance=r0)
            want = want + batch_heterogeneity(
                etas[i, f], gradient_bound=G, batch_size=b_min, n_samples=n)
            np.testing.assert_allclose(got[i, f], want, rtol=1e-13, atol=0.0)


def test_kept_terms_are_read_only():
    grid.clear_grid_terms()
    lam = np.array([[1e-3], [1e-2]])
    etas = np.array([[1.0], [1.0]])
    terms = grid.grid_terms(np.array([[0.9], [0.8]]), etas, lam, lam + 0.3,
                                 epochs=np.arange(1, 4), n_batches=2, r0=1.0)
    for term in terms:
        with pytest.raises(ValueError):
            term[0, 0, 0] = 0.0


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_a_search_on_kept_terms_plans_what_a_fresh_search_plans(epsilon):
    # the first search at mu* keeps the terms; a second at another target (auto's
    # second choice) reads them: its plans equal those of a search with nothing kept
    estimator = DPLogisticRegression(classes=[0, 1], epsilon=epsilon)
    problem = estimator._plan_and_report(20000, 20, 2)[2]
    solvers = [CyclicSolver(full_batch=True, max_passes=50),
               CyclicSolver(n_batches=4, max_passes=50),
               CyclicSolver(n_batches=16, max_passes=50)]
    other = type(problem)(**{**problem.__dict__, "epsilon": epsilon / 2})
    grid.clear_grid_terms()
    plan_cyclic_together(problem, solvers)
    kept = plan_cyclic_together(other, solvers, calibrate=True)
    assert grid._KEPT  # something was kept
    grid.clear_grid_terms()
    fresh = plan_cyclic_together(other, solvers, calibrate=True)
    assert repr(kept) == repr(fresh)
    assert epsilon_delta_to_gdp(other.epsilon, other.delta) < epsilon_delta_to_gdp(
        problem.epsilon, problem.delta)
