"""The estimators' docstrings and the CLI help name the registry's default solver, what it
picks on a small design (read from a fit, not copied) and the bound that binds for it, and
call no other solver the default."""

import contextlib
import inspect
import io
import re

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._cli import main
from skdpgd.solvers import DEFAULT, names


def _small_fit(cls):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 3)) / np.sqrt(3)  # rows of norm <= 1 = data_norm
    if cls is DPRidge:
        return DPRidge(y_bound=1.0, random_state=0).fit(X, np.clip(X[:, 0], -1, 1))
    return DPLogisticRegression(classes=[0, 1], random_state=0).fit(X, (X[:, 0] > 0) * 1)


def _names_another_default(text):
    """Solver names other than DEFAULT that the text calls the default."""
    bad = []
    for name in sorted(set(names()) - {DEFAULT}):
        q = rf"[\"'`]+{re.escape(name)}[\"'`]+"
        patterns = [
            rf"{q}\s*(?:\(|,)?\s*(?:is\s+|was\s+)?(?:the\s+)?default\b",  # "gd" (the default
            rf"\bdefault(?:\s+solver)?\s*(?:is|:|=)\s*{q}",  # default solver is "gd"
            rf"\bdefault\s+{q}",  # the default "gd"
        ]
        if any(re.search(p, text, flags=re.IGNORECASE) for p in patterns):
            bad.append(name)
    return bad


def test_the_checker_catches_a_stale_default():
    # the detector must flag a docstring naming another default, or the tests below
    # could not fail
    assert _names_another_default('solver : str, default="gd"') == ["gd"]
    assert _names_another_default("plain ``\"gd\"`` (the default) steps") == ["gd"]
    assert _names_another_default(f'default="{DEFAULT}"') == []


@pytest.mark.parametrize("cls", [DPLogisticRegression, DPRidge])
def test_estimator_docstring_names_the_default_solver(cls):
    doc = inspect.getdoc(cls)
    summary = doc.split("\nParameters\n")[0]
    assert inspect.signature(cls).parameters["solver"].default == DEFAULT
    fitted = _small_fit(cls)
    chosen, bound = fitted.solver_, fitted.privacy_.binding_bound
    # the lead paragraph names the default, what it picks on a small design and its bound
    assert f'solver="{DEFAULT}"' in summary
    assert f'"{chosen}"' in summary
    assert f'"{bound}"' in " ".join(summary.split())  # a long name may wrap
    assert _names_another_default(doc) == []
    if cls is DPLogisticRegression:  # the solver parameter's own line carries the default
        assert re.search(rf'solver : \{{[^}}]*\}}, default="{DEFAULT}"', doc)


def _help(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(argv)
    return out.getvalue()


def test_cli_help_names_the_default_solver():
    chosen = _small_fit(DPLogisticRegression).solver_
    top = " ".join(_help(["--help"]).split())
    assert f"Default solver '{DEFAULT}'" in top and f"'{chosen}'" in top
    assert _names_another_default(top) == []
    for command in ("demo", "account", "fit"):
        text = " ".join(_help([command, "--help"]).split())
        assert f"default '{DEFAULT}'" in text or f"default: the estimator's, {DEFAULT}" in text
        assert _names_another_default(text) == []


# The lead paragraphs say which bound binds for each solver "auto" can pick; plan (public
# numbers only, no data) a spread of shapes and check every choice made against that claim.
DOCUMENTED_BOUND = {
    "gd": "Theorem 4.1 (composition)",
    "cyclic": "Theorem 4.5 (shifted interpolation across batches, not converged)",
    "preconditioned": "composition",
}
SHAPES = [(400, 3, 1.0), (750, 104, 1.0), (1000, 10, 0.1), (2000, 104, 1.0), (32561, 104, 1.0),
          (100_000, 3000, 1.0)]


@pytest.mark.parametrize("cls", [DPLogisticRegression, DPRidge])
def test_the_bound_the_docstring_names_is_the_one_that_binds(cls):
    summary = inspect.getdoc(cls).split("\nParameters\n")[0]
    summary = " ".join(summary.split())
    for solver, bound in DOCUMENTED_BOUND.items():  # each pair is stated in the lead
        assert f'"{bound}"' in summary and f'"{solver}"' in summary
    chosen = set()
    for n, d, epsilon in SHAPES:
        est = (DPRidge(epsilon=epsilon, y_bound=1.0) if cls is DPRidge
               else DPLogisticRegression(epsilon=epsilon, classes=[0, 1]))
        report = est.plan_privacy(n, d, 2) if cls is DPLogisticRegression else est.plan_privacy(n, d)
        chose = [note for note in report.notes if "solver='auto' chose" in note]
        choice = re.search(r"solver='auto' chose (\w+)", chose[-1]).group(1)
        assert report.binding_bound == DOCUMENTED_BOUND[choice], (n, d, epsilon, choice)
        chosen.add(choice)
    # "auto" is not one fixed solver: the shapes above make it pick more than one
    assert len(chosen) >= 2
