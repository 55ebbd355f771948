"""Capabilities, not names: a solver added to ``"auto"`` as docs/architecture.md says.

The toy solver below is registered with one line and declares what ``"auto"`` reads
(``auto_candidates``, ``plan_candidates``, ``calibrate``, ``_prediction_run``): it offers,
for each candidate of the other registered solvers, the same run at another compute cost
(a solver that computes the same steps ``cost`` times as fast). Its runs are predicted by
the one utility proxy, so with ``cost < 1`` every tie goes to it and ``"auto"`` chooses
it, and with ``cost > 1`` it is passed over and the choice is the one made without it;
the fit then runs it. Nothing in the package names it.

The second half greps the package for what the declarations replace: an ``isinstance``
on a solver class, ``type(loss) is``, and, in the pipeline, an estimator class or one of
its parameter names.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, solvers
from skdpgd.solvers._auto import TIE_TOLERANCE, candidates, choose
from skdpgd.solvers._base import _cached_plan
from skdpgd.solvers._capabilities import plan_candidates
from skdpgd.solvers._registry import registered
from skdpgd.solvers._utility import predict_runs

PACKAGE = Path(__file__).resolve().parents[2] / "skdpgd"


@dataclass(frozen=True)
class FasterPlan:
    solver: object
    inner: object
    strong_convexity: float
    n_steps: int
    notes: tuple = ()


class FasterSolver(solvers.Solver):
    """Another solver's candidate, run by that solver, at ``cost`` times its passes."""

    name = "faster"

    def __init__(self, inner=None, cost=0.5):
        self.inner, self.cost = inner, cost

    def auto_candidates(self, problem, budgets):
        return tuple(FasterSolver(candidate, self.cost) for solver in registered()
                     if type(solver) is not FasterSolver
                     for candidate in solver.auto_candidates(problem, budgets))

    @classmethod
    def plan_candidates(cls, problem, solvers, calibrate=False):
        inner = plan_candidates(problem, [solver.inner for solver in solvers], calibrate)
        return [solver._wrap(plan) for solver, plan in zip(solvers, inner, strict=True)]

    def calibrate(self, plan, problem):
        return self._wrap(plan.inner.solver.calibrate(plan.inner, problem))

    def _wrap(self, inner):
        return FasterPlan(self, inner, inner.strong_convexity, inner.n_steps)

    def _plan(self, problem):
        return self._wrap(self.inner.plan(problem))

    def _prediction_run(self, plan, problem):
        label, passes, run = self.inner._prediction_run(plan.inner, problem)
        return f"faster {label}", passes * self.cost, run

    def _report(self, plan, problem, notes):
        return self.inner.report(plan.inner, problem, tuple(notes) + plan.notes)

    def _run(self, data, loss, plan, rng, callback):
        return self.inner.run(data, loss, plan.inner, rng, callback)


@pytest.fixture
def faster():
    def register(cost):
        solvers.register("faster", lambda: FasterSolver(cost=cost))
        _cached_plan.cache_clear()  # "auto"'s plans of the same problems, without it

    try:
        yield register
    finally:
        if "faster" in solvers.names():
            solvers.unregister("faster")
        _cached_plan.cache_clear()


def _problem(n=3000, d=6, epsilon=1.0):
    clf = DPLogisticRegression(classes=[0, 1], epsilon=epsilon)
    return clf._plan_and_report(n, d, 2)[2]


def _scores(notes):
    """{label: (predicted excess loss, passes)} and the winner, from auto's notes."""
    lines = re.findall(r"candidate (.+): predicted excess loss (\S+), (\S+) passes",
                       "\n".join(notes))
    found = {label: (float(e), float(p)) for label, e, p in lines}
    winner = re.search(r"solver='auto' chose (.+?)(?::| for its Gram)", notes[-1]).group(1)
    return found, winner


@pytest.mark.parametrize("epsilon", [0.3, 2.0])
def test_a_registered_solver_is_a_candidate_scored_by_the_same_proxy(faster, epsilon):
    problem = _problem(epsilon=epsilon)
    without = candidates(problem)
    faster(0.5)
    found = candidates(problem)
    # every other candidate first, in registration order, then the new solver's
    assert found[:len(without)] == without
    added = found[len(without):]
    assert [s.inner for s in added] == without and all(s.name == "faster" for s in added)
    # its prediction is the proxy's on its declared run (the passes: its own cost)
    plans = plan_candidates(problem, added)
    for solver, plan in zip(added, plans, strict=True):
        ours = predict_runs(problem, [solver._prediction_run(plan, problem)])[0]
        theirs = predict_runs(problem, [solver.inner._prediction_run(plan.inner, problem)])[0]
        assert ours.excess_loss == theirs.excess_loss and ours.passes == theirs.passes / 2


@pytest.mark.parametrize("epsilon", [0.3, 2.0])
def test_auto_chooses_it_when_it_wins_and_passes_over_it_when_it_does_not(faster, epsilon):
    problem = _problem(epsilon=epsilon)
    plan_alone, notes_alone = choose(problem)
    faster(2.0)  # the same runs at twice the passes: passed over, the same choice
    plan, notes = choose(problem)
    assert repr(plan) == repr(plan_alone) and notes[-1] == notes_alone[-1]
    scores, winner = _scores(notes)
    assert any(label.startswith("faster") for label in scores)
    assert not winner.startswith("faster")
    solvers.unregister("faster")
    faster(0.5)  # at half the passes: it ties every run it wraps, and is cheaper
    plan, notes = choose(problem)
    scores, winner = _scores(notes)
    assert winner.startswith("faster") and plan.solver.name == "faster"
    best = min(e for e, _ in scores.values())
    tied = {label: p for label, (e, p) in scores.items() if e <= best + TIE_TOLERANCE * abs(best)}
    assert scores[winner][1] == min(tied.values())  # the tie rule, read from the notes


def test_auto_fits_with_the_solver_it_chose(faster):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6)) / 3
    y = (X @ rng.normal(size=6) + 0.3 * rng.normal(size=3000) > 0).astype(int)
    faster(0.5)
    clf = DPLogisticRegression(classes=[0, 1], epsilon=1.0, random_state=0).fit(X, y)
    assert any("solver='auto' chose faster" in note for note in clf.privacy_.notes)
    assert clf.privacy_.epsilon <= 1.0 and np.all(np.isfinite(clf.coef_))
    assert clf.score(X, y) > 0.7  # a fit, not noise: the wrapped run ran


# -- what the declarations replace: none of it is written in the package ---------------

#: (files, pattern, what it would be): a solver class tested by isinstance, a loss by its
#: exact type, an estimator class or one of its parameters in the pipeline's plan and fit.
FORBIDDEN = [
    ("**/*.py", r"isinstance\([^)]*,\s*\(?\s*\w*Solver\b", "isinstance on a solver class"),
    ("**/*.py", r"type\(loss\)\s+is\b", "type(loss) is"),
    ("pipeline/*.py", r"isinstance\([^)]*,\s*(DPRidge|DPLogisticRegression)\b",
     "an estimator class in the pipeline"),
    ("pipeline/_plan.py", r"[\"'](classes|class_weight|y_bound|max_sample_weight)[\"']",
     "a parameter name in the pipeline's plan"),
    ("pipeline/_fit_steps.py", r"[\"'](classes|class_weight|y_bound|max_sample_weight)[\"']"
     r"|set_params\((classes|class_weight|y_bound|max_sample_weight)=",
     "a parameter name in the pipeline's fit"),
    ("pipeline/_checks.py", r"\.(y_bound|class_weight|classes)\b|import .*DPRidge",
     "a parameter or an estimator class in the pipeline's checks"),
    ("inference/*.py", r"SUPPORTED_SOLVERS|solver\s*(==|!=|in)\s*[\"'(]",
     "a solver name in inference"),
]


@pytest.mark.parametrize("files, pattern, what", FORBIDDEN, ids=[f[2] for f in FORBIDDEN])
def test_no_class_or_name_special_case_is_left(files, pattern, what):
    hits = [f"{path.relative_to(PACKAGE)}:{i}: {line.strip()}"
            for path in sorted(PACKAGE.glob(files))
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(pattern, line) and not line.lstrip().startswith("#")]
    assert not hits, f"{what}:\n" + "\n".join(hits)


def test_the_base_declares_nothing_beyond_a_gaussian_report():
    solver = solvers.Solver()
    assert solver.reports_mu and not solver.plans_in_mu
    assert not (solver.supports_inference or solver.second_choice or solver.releases_gram)
    assert solver.auto_candidates(_problem(), [50]) == ()
    built = {name: solvers.get(name) for name in ("gd", "cyclic", "preconditioned", "sgd")}
    assert [n for n, s in built.items() if s.supports_inference] == ["gd", "cyclic",
                                                                   "preconditioned"]
    assert [n for n, s in built.items() if s.releases_gram] == ["preconditioned"]
    assert not built["sgd"].reports_mu and built["sgd"].auto_candidates(_problem(), [50]) == ()
