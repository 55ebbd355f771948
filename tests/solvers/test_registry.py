"""A new solver is one module plus one registry line: every list of names follows the registry.

The toy solver below (plain full-batch noisy GD accounted by composition, Dong, Roth and
Su 2022, Corollary 3.3: K steps of sensitivity S/n are sqrt(K) S/(n sigma)-GDP) is
defined here, registered, fitted through ``DPLogisticRegression(solver="toy")`` and the
command line's choices, and unregistered; nothing else in the package names it.
"""

import inspect
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skdpgd import DPLogisticRegression, PrivacyReport, accounting, solvers
from skdpgd._cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ToyPlan:
    solver: object
    strong_convexity: float
    smoothness: float
    learning_rate: float
    noise_std: float
    n_steps: int
    notes: tuple = ()


class ToySolver(solvers.Solver):
    """K full-batch noisy steps of size 1/beta, noise calibrated for composition."""

    name = "toy"

    def _plan(self, problem):
        lam = problem.strong_convexity or 1e-3 * problem.data_smoothness
        beta = problem.data_smoothness + lam
        k = problem.max_iter or 20
        target = accounting.epsilon_delta_to_gdp(problem.epsilon, problem.delta)
        sigma = math.sqrt(k) * problem.sensitivity / (problem.n_samples * target)
        return ToyPlan(self, lam, beta, 1.0 / beta, sigma * (1.0 + 1e-9), k)

    def _report(self, plan, problem, notes):
        mu = accounting.composition_gdp(plan.noise_std, plan.n_steps,
                                        sensitivity=problem.sensitivity,
                                        n_samples=problem.n_samples)
        return accounting.GaussianRunPrivacyReport(
            epsilon=accounting.gdp_to_epsilon(mu, problem.delta), delta=problem.delta, mu=mu,
            accountant="toy_composition", theorem="Dong, Roth, Su (2022), Corollary 3.3",
            binding_bound="composition", noise_std=plan.noise_std, n_steps=plan.n_steps,
            learning_rate=plan.learning_rate, strong_convexity=plan.strong_convexity,
            smoothness=plan.smoothness, sensitivity=problem.sensitivity,
            n_samples=problem.n_samples, notes=tuple(notes),
        )

    def _run(self, data, loss, plan, rng, callback):
        lam, eta, sigma = plan.strong_convexity, plan.learning_rate, plan.noise_std
        theta = np.zeros(data.coef_shape)
        with data.row_sums(loss.gradient_sum) as row_sums:
            for k in range(plan.n_steps):
                gradient = row_sums.sum(theta) / data.n_samples + lam * theta
                theta = theta - eta * (gradient + sigma * rng.standard_normal(theta.shape))
                if callback is not None:
                    callback(k)
        return theta


@pytest.fixture
def toy():
    solvers.register("toy", ToySolver)
    try:
        yield
    finally:
        solvers.unregister("toy")


def test_a_registered_solver_fits_through_the_estimator_and_the_cli(toy):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)) / 3
    y = (X[:, 0] + 0.2 * X[:, 1] > 0).astype(int)
    est = DPLogisticRegression(epsilon=2.0, delta=1e-5, solver="toy", classes=[0, 1],
                               random_state=0).fit(X, y)
    assert est.solver_ == "toy" and est.n_iter_ == 20
    report = est.privacy_
    assert isinstance(report, PrivacyReport) and report.accountant == "toy_composition"
    # composition, computed independently: sqrt(K) S / (n sigma) with the report's numbers
    expected_mu = math.sqrt(20) * report.sensitivity / (2000 * report.noise_std)
    assert report.mu == pytest.approx(expected_mu, rel=1e-12)
    assert report.epsilon <= 2.0 and report.event.mu == report.mu
    # a private fit that learned something: the data are separable up to the noise
    assert est.score(X, y) > 0.8
    assert est.plan_privacy(2000, 3, 2).mu == report.mu  # planning needs no data
    assert "toy" in solvers.names()
    args = build_parser().parse_args(["fit", "data.csv", "--target", "y", "--solver", "toy"])
    assert args.solver == "toy"


def test_an_unregistered_solver_is_refused_everywhere():
    assert "toy" not in solvers.names()
    with pytest.raises(InvalidParameterError, match="solver"):
        DPLogisticRegression(solver="toy").fit(np.zeros((4, 1)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="unknown solver"):
        solvers.get("toy")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "data.csv", "--target", "y", "--solver", "toy"])


def test_registering_a_taken_name_or_removing_the_default_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        solvers.register("gd", ToySolver)
    with pytest.raises(ValueError, match="default"):
        solvers.unregister(solvers.DEFAULT)


def test_the_docs_table_lists_exactly_the_registered_solvers():
    text = (ROOT / "docs" / "solvers.md").read_text(encoding="utf-8")
    listed = re.findall(r'^\| `"(\w+)"`', text, flags=re.MULTILINE)
    assert sorted(listed) == sorted(solvers.names()), (
        "docs/solvers.md's table and the registry (skdpgd/solvers/__init__.py) disagree"
    )


def _algorithm_index():
    """{solver name: [cells]} of docs/solvers.md's "Where each algorithm lives" table."""
    text = (ROOT / "docs" / "solvers.md").read_text(encoding="utf-8")
    section = text.split("## Where each algorithm lives", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| \*\*(\w+)\*\* \|(.*)\|$", section, flags=re.MULTILINE)
    return {name: [cell.strip() for cell in cells.split("|")] for name, cells in rows}


def test_the_algorithm_index_is_complete():
    index = _algorithm_index()
    assert sorted(index) == sorted(solvers.names()), (
        "docs/solvers.md's algorithm index and the registry disagree"
    )
    for name, cells in index.items():
        assert len(cells) == 6, f"{name}: a row of the index has 7 columns"
        paths = re.findall(r"`([\w/]+\.py)`", " ".join(cells))
        missing = [path for path in paths if not (ROOT / path).is_file()]
        assert not missing, f"{name}: the index names files that do not exist: {missing}"
        # the solver's class is defined in a file of its "solver module" cell
        module = inspect.getsourcefile(type(solvers.get(name)))
        listed = [str(ROOT / path) for path in re.findall(r"`([\w/]+\.py)`", cells[0])]
        assert module in listed, f"{name}: its class lives in {module}, not in {listed}"
        assert any(path.startswith("tests/") for path in re.findall(r"`([\w/]+\.py)`",
                                                                    cells[5])), name
