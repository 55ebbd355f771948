"""``solver="auto"`` plans its candidates together: the shared searches and the batched
predictions give what each candidate's own plan and prediction give, and the winner is
the cheapest of the candidates within the tie tolerance of the smallest prediction."""

import math
from dataclasses import replace

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.solvers import CyclicSolver, PreconditionedSolver
from skdpgd.solvers._auto import TIE_TOLERANCE, candidates, choose
from skdpgd.solvers._cyclic import calibrate_cyclic, plan_cyclic_together
from skdpgd.solvers._preconditioned import calibrate_preconditioned, plan_together
from skdpgd.solvers._preconditioned._planning import _proxy_table, _search_tables
from skdpgd.solvers._utility import (
    SPECTRUM_GRID,
    direction_errors,
    predicted_excess_loss,
    predicted_excess_losses,
    semicircle_nodes,
)

PROBLEMS = [
    (DPLogisticRegression(classes=[0, 1], epsilon=1.0), 20000, 20, 2),
    (DPLogisticRegression(classes=[0, 1], epsilon=0.1), 2000, 104, 2),
    (DPLogisticRegression(classes=[0, 1, 2], epsilon=0.5), 5000, 12, 3),
    (DPRidge(y_bound=1.0, epsilon=4.0), 43152, 26, None),
]


def _problem(case):
    estimator, n, d, k = case
    return estimator._plan_and_report(n, d, k)[2]


def test_batched_predictions_equal_each_run_alone():
    # random runs: plain and Gram-preconditioned steps, with and without momentum, some
    # sharing their recursion (one key, several K); each must equal its own prediction
    rng = np.random.default_rng(0)
    common = dict(curvature=0.25, n_params=31, n_outputs=1, row_norm=1.3, initial_distance=7.0)
    runs = []
    for i in range(12):
        eta, lam, margin = rng.uniform(0.2, 1.5), 10 ** rng.uniform(-6, -1), rng.uniform(0, 0.1)
        preconditioned = i % 3 != 0

        def step(g, shift, eta=eta, lam=lam, margin=margin, preconditioned=preconditioned):
            if preconditioned:
                return eta / (0.25 * (g + margin + shift) + lam)
            return np.full(np.shape(g), eta / 4)

        momentum = float(rng.choice([0.0, 0.5, 0.8])) if preconditioned else 0.0
        spread = rng.uniform(0.01, 0.2) if preconditioned else 0.0
        for k in {int(rng.integers(1, 40)), int(rng.integers(1, 40))}:
            runs.append(dict(n_steps=k, noise_std=rng.uniform(0.0, 0.01), step=step,
                             strong_convexity=lam, momentum=momentum, spread=spread,
                             extra=rng.uniform(0, 1e-3), key=("run", i)))
    for scale_free in (False, True):
        together = predicted_excess_losses(runs, scale_free=scale_free, **common)
        for run, value in zip(runs, together, strict=True):
            alone = predicted_excess_loss(
                run["n_steps"], run["noise_std"], step=run["step"],
                strong_convexity=run["strong_convexity"], momentum=run["momentum"],
                spread=run["spread"], extra=run["extra"], scale_free=scale_free, **common)
            assert value == alone  # the same floats, bit for bit
    # and the documented proxy (docs/theory.md#predicted-utility) from the recursion of
    # direction_errors, for every run scored as a regressor's excess loss
    g = np.concatenate([[0.0], 1.3**2 * SPECTRUM_GRID])
    nodes, weights = semicircle_nodes()
    count, share = np.minimum(31.0, 1.3**2 / g[1:]), 7.0**2 / 31
    for run, value in zip(runs, predicted_excess_losses(runs, **common), strict=True):
        points = np.broadcast_to(g, (nodes.size, g.size)) if run["spread"] else g
        shift = run["spread"] * nodes[:, None] if run["spread"] else 0.0
        h = 0.25 * points + run["strong_convexity"]
        mean, variance = direction_errors(run["n_steps"], h, run["step"](points, shift),
                                          run["momentum"])
        opt, noise = 0.5 * h * mean**2, 0.5 * h * variance * run["noise_std"] ** 2
        if run["spread"]:
            opt, noise = weights @ opt, weights @ noise
        expected = (0.5 * run["strong_convexity"] * 7.0**2 + np.max(share * count * opt[1:])
                    + np.max(count * noise[1:] + (31 - count) * noise[0]) + run["extra"])
        assert value == pytest.approx(expected, rel=1e-12)


def test_shared_preconditioned_table_equals_each_setting_alone():
    # settings whose margins coincide share the recursion; pruned pairs are +inf and
    # every scored pair equals the setting's own table, bit for bit
    pairs = [(beta, lam) for beta in (0.0, 0.7) for lam in (1e-6, 1e-4, 1e-2, 1e-1)]
    sigma1s, margins = [1e-3, 2e-3, 1e-3, 5e-4], [0.05, 0.05, 0.1, 0.02]
    kwargs = dict(curvature=0.25, learning_rate=1.0, n_params=11, row_norm=1.2, n_outputs=1)
    tables = _search_tables(30, sigma1s, margins, pairs=pairs, noisy=True, initial_distance=5.0,
                            **kwargs)
    for setting, (sigma1, margin) in enumerate(zip(sigma1s, margins, strict=True)):
        alone = _proxy_table(30, sigma1, margin=margin, lams=np.array([l for _, l in pairs]),
                             momenta=np.array([b for b, _ in pairs]), initial_distance=5.0,
                             **kwargs)
        scored = np.isfinite(tables[setting])
        assert scored.any(axis=0).sum() >= 4  # the smaller half of the lams at least
        np.testing.assert_array_equal(tables[setting][scored], alone[scored])
        assert tables[setting].min() == alone.min()  # pruning never drops the minimum


@pytest.mark.parametrize("case", PROBLEMS)
def test_joint_plans_are_each_candidates_own_plan(case):
    problem = _problem(case)
    found = candidates(problem, budgets=(10, 20, 50))
    cyclic = [s for s in found if isinstance(s, CyclicSolver)]
    for solver, plan in zip(cyclic, plan_cyclic_together(problem, cyclic), strict=True):
        own = solver.plan(problem)
        assert plan.solver is solver
        assert calibrate_cyclic(plan, problem) == own
        # the noise the candidate is scored with: the closed form, below the calibration
        assert plan.noise_std <= own.noise_std <= plan.noise_std * (1 + 1e-9)
    preconditioned = [s for s in found if isinstance(s, PreconditionedSolver)]
    calibrated = plan_together(problem, preconditioned)
    closed = plan_together(problem, preconditioned, calibrate=False)
    for solver, plan, candidate in zip(preconditioned, calibrated, closed, strict=True):
        own = solver.plan(problem)
        assert plan == own and calibrate_preconditioned(candidate, problem) == own
        assert plan.n_steps <= solver.max_steps
        # scored with the closed forms: within the calibration's rounding (1e-12 steps)
        assert candidate.noise_std == pytest.approx(own.noise_std, rel=1e-9)
        assert candidate.gram_noise_std == pytest.approx(own.gram_noise_std, rel=1e-9)


@pytest.mark.parametrize("budgets", [(50,), (10, 20, 50)])
@pytest.mark.parametrize("case", PROBLEMS)
def test_the_winner_is_the_cheapest_near_the_best(case, budgets):
    problem = _problem(case)
    plan, notes = choose(problem, budgets)
    listed = [line for line in notes if line.startswith("candidate ")]
    values = []
    for line in listed:
        label, rest = line[len("candidate "):].split(": predicted excess loss ")
        loss, passes = rest.split(", ")
        values.append((label, float(loss), float(passes.split()[0])))
    best = min(loss for _, loss, _ in values)
    # the printed values have 3 digits: a tolerance of half a unit of the last one
    tied = [v for v in values if v[1] <= (best + TIE_TOLERANCE * best) * (1 + 5e-3)]
    winner = [v for v in values if f"solver='auto' chose {v[0]}:" in notes[-1]]
    assert len(winner) == 1
    assert winner[0][2] <= min(v[2] for v in tied)
    # and the plan is that candidate's own, calibrated, within its budget
    assert plan == plan.solver.plan(problem)
    budget = getattr(plan.solver, "max_passes", None) or max(budgets)
    assert getattr(plan, "n_epochs", plan.n_steps) <= budget
    assert math.isfinite(plan.noise_std) and plan.noise_std > 0


def test_budgets_cap_each_candidate():
    problem = _problem(PROBLEMS[0])
    found = candidates(problem, budgets=(10, 20, 50))
    budgets = sorted({getattr(s, "max_passes", None) or s.max_steps for s in found})
    assert budgets == [10, 20, 50]
    for solver in found:
        plan = solver.plan(problem)
        cap = solver.max_passes if isinstance(solver, CyclicSolver) else solver.max_steps
        assert getattr(plan, "n_epochs", plan.n_steps) <= cap
    # a fixed max_iter is every candidate's number of passes: one budget
    fixed = DPLogisticRegression(classes=[0, 1], max_iter=30)._plan_and_report(20000, 20, 2)[2]
    assert len(candidates(fixed, budgets=(10, 20, 50))) == len(candidates(fixed, budgets=(50,)))


#: Problems whose public choice releases a Gram (so that a second choice follows); the
#: last two compose one ulp above the target unless their step noise is raised
#: (skdpgd.solvers._spectral._after_probe).
GRAM_PROBLEMS = [
    PROBLEMS[0], PROBLEMS[3],
    (DPLogisticRegression(classes=[0, 1, 2, 3], epsilon=1.0), 160_000, 50, 4),
    (DPLogisticRegression(classes=[0, 1], epsilon=4.0), 40_000, 100, 2),
]


@pytest.mark.parametrize("case", GRAM_PROBLEMS, ids=["logistic-20000", "ridge-43152",
                                                  "multinomial-160000", "logistic-40000"])
def test_second_choice_reuses_the_settings_planned_by_the_first(case):
    # auto's second choice takes the preconditioned settings of the first choice's table
    # (calibrated): the same SpectralChoicePlan as planning them again from the problem
    from skdpgd.solvers._auto import _choose
    from skdpgd.solvers._spectral import spectral_plan

    problem = _problem(case)
    plan, _, planned, _ = _choose(problem, (50,), second_choice=True)  # the fit's choice
    assert isinstance(plan.solver, PreconditionedSolver)  # a Gram is released
    settings = [p for p in planned if isinstance(p.solver, PreconditionedSolver)]
    assert not any(math.isnan(p.noise_std) for p in settings)  # closed forms, to score
    reused = spectral_plan(problem, plan, candidates, settings)
    fresh = spectral_plan(problem, plan, candidates)
    assert reused is not None and fresh is not None
    assert reused == fresh
    assert repr(reused.candidates) == repr(fresh.candidates)  # floats bit for bit


def test_the_explicit_cyclic_plan_is_one_of_autos_candidates():
    # auto's cyclic candidates are every l that solver="cyclic" chooses among (and gd at
    # the common budget is its l = 1): whatever l the cyclic solver's own proxy picks, its
    # plan (calibrated) is among auto's, so the proxy ranks it
    rng = np.random.default_rng(5)
    for i in range(24):
        n, d = int(10 ** rng.uniform(2, 5.5)), int(10 ** rng.uniform(0, 2.7))
        epsilon = float(10 ** rng.uniform(-1.5, 1))
        if i % 2:
            problem = DPLogisticRegression(classes=[0, 1], epsilon=epsilon)._plan_and_report(
                n, d, 2)[2]
        else:
            problem = DPRidge(y_bound=1.0, epsilon=epsilon)._plan_and_report(n, d, None)[2]
        explicit = CyclicSolver().plan(problem)
        common = [solver for solver in candidates(problem) if isinstance(solver, CyclicSolver)]
        plans = plan_cyclic_together(problem, common, calibrate=True)

        def key(plan):
            return repr(replace(plan, solver=None, notes=()))

        assert key(explicit) in {key(plan) for plan in plans}, (n, d, epsilon)
