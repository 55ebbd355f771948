"""The solver objects: one planner for gd and cyclic, one max_iter unit, reports that match.

gd is cyclic noisy GD with one batch: its plan must be the full-batch planner's plan
(bound (A) is never looser than (C) with l = 1, so nothing is lost), and its report the
full-batch report. ``max_iter`` counts passes over the data for every solver.
"""

import numpy as np
import pytest
from _gd_reference import full_batch_plan

from skdpgd import DPLogisticRegression, DPRidge, accounting
from skdpgd.solvers import CyclicSolver, PublicProblem, SampledSolver, get

PROBLEM = PublicProblem(
    epsilon=1.0, delta=1e-5, n_samples=5000, n_params=11, sensitivity=1.2,
    gradient_bound=0.6, data_smoothness=0.36, initial_distance=2.0, strong_convexity=1e-3,
)


def test_gd_is_cyclic_with_one_batch_and_loses_nothing():
    plan = get("gd").plan(PROBLEM)
    assert plan.n_batches == 1 and plan.batch_size == PROBLEM.n_samples
    # the dedicated full-batch planner (bound (A) only), same compute budget
    _, n_steps, learning_rate, noise_std = full_batch_plan(
        1.0, 1e-5, sensitivity=1.2, n_samples=5000, n_params=11, data_smoothness=0.36,
        strong_convexity=1e-3, initial_distance=2.0, max_steps=1000,
    )
    assert (plan.n_steps, plan.learning_rate) == (n_steps, learning_rate)
    assert plan.noise_std == pytest.approx(noise_std, rel=1e-9)
    report = get("gd").report(plan, PROBLEM)
    assert report.accountant == "noisy_gd"
    mu = accounting.noisy_gd_gdp(
        plan.noise_std, plan.n_steps, sensitivity=1.2, n_samples=5000,
        learning_rate=plan.learning_rate, strong_convexity=1e-3, smoothness=plan.smoothness,
    )
    assert report.mu == pytest.approx(mu, rel=1e-12)
    assert report.epsilon <= 1.0


def test_cyclic_report_uses_bound_c_and_meets_the_target():
    plan = get("cyclic").plan(PROBLEM)
    report = get("cyclic").report(plan, PROBLEM)
    assert plan.n_batches > 1 and report.accountant == "noisy_cyclic_gd"
    mu = accounting.noisy_cyclic_gd_gdp(
        plan.noise_std, plan.n_epochs, batch_size=plan.batch_size, sensitivity=1.2,
        n_samples=5000, learning_rate=plan.learning_rate, strong_convexity=1e-3,
        smoothness=plan.smoothness,
    )
    assert report.mu == pytest.approx(mu, rel=1e-12)
    assert 0.999 <= report.epsilon <= 1.0


def test_plans_are_cached_pure_functions_of_public_numbers():
    assert get("cyclic").plan(PROBLEM) is CyclicSolver().plan(PROBLEM)
    assert get("gd") != get("cyclic")
    with pytest.raises(ValueError, match="unknown solver"):
        get("lbfgs")


def _data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    return X, (X @ np.arange(1, d + 1) > 0).astype(int)


@pytest.mark.parametrize("solver", ["gd", "cyclic", "sgd"])
def test_max_iter_counts_passes_over_the_data(solver):
    X, y = _data()
    est = DPLogisticRegression(solver=solver, max_iter=6, classes=[0, 1], random_state=0).fit(X, y)
    assert est.solver_ == solver
    passes = est.n_iter_ * (est.batch_size_ or X.shape[0]) / X.shape[0]
    # gd and cyclic: exactly 6 (balanced batches); sgd: K b / n with K = round(6 n / b)
    assert passes == pytest.approx(6, rel=0.05)


def test_sampled_solver_refuses_a_fixed_step():
    problem = PublicProblem(**{**vars(PROBLEM), "learning_rate": 0.1})
    with pytest.raises(ValueError, match="learning_rate='auto'"):
        SampledSolver().plan(problem)


def test_plan_privacy_is_the_fit_report():
    X, y = _data()
    est = DPRidge(y_bound=1.0, solver="cyclic", random_state=0)
    planned = est.plan_privacy(*X.shape)
    fitted = est.fit(X, y.astype(float)).privacy_
    assert (planned.mu, planned.noise_std, planned.n_steps) == (
        fitted.mu, fitted.noise_std, fitted.n_steps
    )


def test_n_iter_counts_the_steps_that_ran():
    X, _ = _data(n=2000, d=3)
    y = X @ [0.5, -0.3, 0.2]
    # without noise the preconditioned solver may stop on convergence (a quadratic here:
    # a few fixed-Hessian steps), and n_iter_ says when
    est = DPRidge(epsilon=np.inf, y_bound=1.0, random_state=0).fit(X, y)
    assert est.solver_ == "preconditioned"
    assert 1 <= est.n_iter_ < est.privacy_.n_steps
    # with noise every step of the run that ran runs (run_report_: the run "auto" chose
    # on its released Gram, where it chose again)
    noisy = DPRidge(epsilon=1.0, y_bound=1.0, random_state=0).fit(X, y)
    assert noisy.n_iter_ == noisy.run_report_.n_steps


def test_gram_pass_memory_is_bounded_and_the_same_for_every_n_jobs():
    from skdpgd._data._fit_data import FitData
    from skdpgd._data._gram import (
        GRAM_MAX_CHUNKS,
        GRAM_PARTIALS_BYTES,
        chunk_gram,
        gram_chunk_rows,
        gram_sum,
    )

    # wide designs get fewer chunks: the d x d partials held at once fit the budget
    for n, dim in [(10**6, 2001), (10**6, 101), (50, 3)]:
        rows = gram_chunk_rows(n, dim)
        n_chunks = -(-n // rows)
        assert n_chunks <= GRAM_MAX_CHUNKS
        assert n_chunks == 1 or n_chunks * 8 * dim * dim <= GRAM_PARTIALS_BYTES
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 12)) / 4
    X[7] = 1e300  # a far row: enters as its clipped value
    expected = None
    for n_jobs in (1, 2):
        data = FitData(X, np.zeros(3000), data_norm=1.0, intercept_scaling=0.5, n_jobs=n_jobs)
        with data.row_sums(chunk_gram) as sums:
            got = gram_sum(sums, 3000, 13)
        assert np.array_equal(got, got.T)  # symmetrised once, exactly
        expected = got if expected is None else expected
        assert np.array_equal(got, expected)  # bit-identical across n_jobs
    reference = data.design.toarray()
    np.testing.assert_allclose(expected, reference.T @ reference, rtol=1e-12, atol=1e-12)
