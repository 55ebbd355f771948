"""The Gram route of ``solver="auto"`` (skdpgd/solvers/_gram_route.py): its value is the
worst case of the best choice on the released spectrum, never above the best fixed run's,
and the fit releases a Gram for it only where it beats every candidate."""

import math

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.solvers import CyclicSolver, PreconditionedSolver, get
from skdpgd.solvers._auto import TIE_TOLERANCE, candidates, choose
from skdpgd.solvers._gram_route import gram_route_values, minimax_value
from skdpgd.solvers._proxy_scores import worst_level_value
from skdpgd.solvers._spectral import PROBE_FRACTION, SpectralChoicePlan
from skdpgd.solvers._utility import predict_runs, predicted_excess_losses


def _problem(estimator, n, d, n_classes=None):
    return estimator._plan_and_report(n, d, n_classes)[2]


def _candidate_runs(problem):
    """(runs, plans) of auto's distinct candidates, their noise at the closed form."""
    plans, seen = [], set()
    for solver in candidates(problem):
        plan = solver.plan(problem)
        if repr(plan) not in seen:
            seen.add(repr(plan))
            plans.append(plan)
    return [plan.solver._prediction_run(plan, problem) for plan in plans], plans


def _losses(problem, runs, **kwargs):
    return predicted_excess_losses(
        runs, curvature=problem.curvature, n_params=problem.n_params,
        n_outputs=problem.n_outputs, row_norm=problem.row_norm,
        initial_distance=problem.largest_distance, scale_free=problem.scale_free_score,
        **kwargs)


PROBLEMS = [
    (DPLogisticRegression(classes=[0, 1], epsilon=1.0), 5000, 104, 2),
    (DPLogisticRegression(classes=[0, 1], epsilon=0.1), 32561, 104, 2),
    (DPLogisticRegression(classes=[0, 1, 2], epsilon=1.0), 5000, 20, 3),
    (DPRidge(y_bound=1.0, epsilon=0.5), 43152, 26, None),
    (DPRidge(y_bound=1.0, epsilon=1.0), 3000, 60, None),
]


@pytest.mark.parametrize("estimator, n, d, k", PROBLEMS)
def test_level_terms_give_every_prediction_bit_for_bit(estimator, n, d, k):
    # the proxy at every level of its worst case, then the worst level: the prediction
    # (classifiers: pairs of levels; regressors: the optimum's level and the noise's),
    # with and without the Gram noise's spread; one run's minimax is its own worst case
    problem = _problem(estimator, n, d, k)
    runs = [run for _, _, run in _candidate_runs(problem)[0]]
    for level_terms, value in zip(_losses(problem, runs, terms=True), _losses(problem, runs), strict=True):
        assert worst_level_value(level_terms) == value
        assert minimax_value([level_terms]) == value


@pytest.mark.parametrize("estimator, n, d, k", PROBLEMS)
def test_the_route_is_never_worse_than_its_best_fixed_run(estimator, n, d, k):
    # the minimax inequality: max_S min_c U_c(S) <= min_c max_S U_c(S), the plain runs
    # with the noise of the budget the probe leaves (sigma / sqrt(1 - q s))
    problem = _problem(estimator, n, d, k)
    labelled, plans = _candidate_runs(problem)
    values = gram_route_values(problem, labelled, plans, predict_runs(problem, labelled, True)[1])
    assert sorted(values) == sorted({p.solver.gram_share for p in plans
                                     if isinstance(p.solver, PreconditionedSolver)})
    plain = [run for (_, _, run), p in zip(labelled, plans, strict=True) if isinstance(p.solver, CyclicSolver)]
    for share, value in values.items():
        own = [run for (_, _, run), p in zip(labelled, plans, strict=True)
               if isinstance(p.solver, PreconditionedSolver) and p.solver.gram_share == share]
        factor = 1.0 / math.sqrt(1.0 - PROBE_FRACTION * share)
        fixed = _losses(problem, own + [dict(run, noise_std=run["noise_std"] * factor)
                                        for run in plain])
        assert value <= min(fixed)


def test_the_route_is_worth_more_than_any_fixed_run_where_worst_cases_differ():
    # Adult-sized, epsilon 1: a plain run's worst spectrum is not the preconditioner's,
    # so choosing after the release is predicted strictly better than either
    problem = _problem(DPLogisticRegression(classes=[0, 1], epsilon=1.0), 5000, 104, 2)
    labelled, plans = _candidate_runs(problem)
    values = gram_route_values(problem, labelled, plans, predict_runs(problem, labelled, True)[1])
    best = min(_losses(problem, [run for _, _, run in labelled]))
    assert min(values.values()) * (1.0 + TIE_TOLERANCE) < best


@pytest.mark.parametrize("estimator, n, d, k", [
    *PROBLEMS,
    (DPLogisticRegression(classes=[0, 1], epsilon=0.5), 750, 104, 2),
    (DPLogisticRegression(classes=[0, 1], epsilon=4.0), 40000, 10, 2),
])
def test_the_fit_takes_the_route_only_where_it_beats_every_candidate(estimator, n, d, k):
    problem = _problem(estimator, n, d, k)
    labelled, plans = _candidate_runs(problem)
    values = gram_route_values(problem, labelled, plans, predict_runs(problem, labelled, True)[1])
    best = min(_losses(problem, [run for _, _, run in labelled]))
    share = min(values, key=values.get)
    beats = best > values[share] * (1.0 + TIE_TOLERANCE)
    without, _ = choose(problem)  # the choice without the route
    fit_plan = get("auto").plan(problem)
    public = getattr(fit_plan, "public_plan", fit_plan)
    taken = "for its Gram:" in public.notes[-1]
    assert taken == (beats and isinstance(without.solver, CyclicSolver))
    if taken:  # the share's best preconditioned run, and the choice without it kept
        assert isinstance(fit_plan, SpectralChoicePlan)
        assert public.solver.gram_share == share
        assert fit_plan.plan_without_choice.solver == without.solver
    else:
        assert getattr(fit_plan, "plan_without_choice", fit_plan).solver == without.solver


def test_no_route_without_noise():
    # epsilon=inf: nothing to choose on after a release, so nothing to release it for
    problem = _problem(DPLogisticRegression(classes=[0, 1], epsilon=math.inf), 5000, 104, 2)
    plan = get("auto").plan(problem)
    assert not isinstance(plan, SpectralChoicePlan)
    assert "for its Gram" not in plan.notes[-1]


def test_private_inference_runs_the_choice_without_the_route():
    # inference=True runs auto's public choice (no second choice follows), so a Gram
    # released only for its route would buy nothing there
    est = DPLogisticRegression(classes=[0, 1], epsilon=1.0, inference=True)
    _loss, _shape, problem, plan, _report = est._plan_and_report(10_000, 20, 2)
    fit_plan = get("auto").plan(problem)
    assert "for its Gram:" in fit_plan.public_plan.notes[-1]  # the fit would take it
    assert "for its Gram" not in plan.notes[-1]
    assert plan.solver == choose(problem)[0].solver


def test_a_fit_that_takes_the_route_charges_the_gram_and_the_run_it_chose():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10_000, 20)) / math.sqrt(20)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = (X @ rng.standard_normal(20) > 0).astype(int)
    est = DPLogisticRegression(classes=[0, 1], epsilon=0.3, random_state=0).fit(X, y)
    assert any("for its Gram:" in line for line in est.privacy_.notes)
    # the probe and the largest candidate run composed, within the target
    assert est.privacy_.epsilon <= 0.3
    assert est.privacy_.mu == pytest.approx(math.hypot(est.privacy_.gram_mu,
                                                       est.privacy_.run_mu), rel=1e-12)
    assert est.score(X, y) > 0.75


def test_without_a_second_choice_the_route_falls_back_to_the_plain_choice(monkeypatch):
    # where the Gram was chosen for its route but no second choice can follow (the
    # composed epsilon rounded above the target: spectral_plan returns None), the fit
    # runs the choice without the route, not a preconditioned run it did not prefer
    from skdpgd.solvers import _auto

    problem = _problem(DPLogisticRegression(classes=[0, 1], epsilon=1.0), 5000, 104, 2)
    assert "for its Gram:" in get("auto").plan(problem).public_plan.notes[-1]
    monkeypatch.setattr(_auto, "spectral_plan", lambda *args, **kwargs: None)
    plan = _auto.AutoSolver()._plan(problem)
    without, _ = choose(problem)
    assert isinstance(plan.solver, CyclicSolver) and plan.solver == without.solver
    assert plan.noise_std == without.noise_std
    assert "for its Gram" not in plan.notes[-1]
