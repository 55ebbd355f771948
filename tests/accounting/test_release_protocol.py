"""The one release protocol (skdpgd.accounting.allowance): plan, admit, run, check.

The order is the privacy claim: a refusal that public numbers decide comes before the
ledger's charge, and no value is read before it; a ledger that refuses leaves the run
unread. Only the protocol module charges a ledger outside skdpgd._ledger.
"""

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from skdpgd import PrivacyLedger
from skdpgd.accounting import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    ReleasePrivacyReport,
    gdp_to_epsilon,
)
from skdpgd.accounting.allowance import Allowance, admit, release
from skdpgd.exceptions import PrivacyBudgetExceeded

PACKAGE = Path(__file__).resolve().parents[2] / "skdpgd"


class _Recorder:
    """A duck ledger that records the order of events."""

    def __init__(self, log, refuse=False):
        self.log, self.refuse = log, refuse

    def charge(self, source, report, *, n_samples, sample_ids=None):
        self.log.append(("charge", source, n_samples))
        if self.refuse:
            raise PrivacyBudgetExceeded("over the cap")


def test_release_runs_plan_then_charge_then_run():
    log = []

    def plan():
        log.append(("plan",))
        return [("fit", object())], "planned"

    def run(planned):
        log.append(("run", planned))
        return 42

    assert release(_Recorder(log), plan, run, n_samples=10) == 42
    assert log == [("plan",), ("charge", "fit", 10), ("run", "planned")]


def test_a_refusal_of_the_plan_charges_nothing_and_reads_nothing():
    log = []

    def plan():
        raise ValueError("public numbers refuse")

    with pytest.raises(ValueError, match="public numbers"):
        release(_Recorder(log), plan, lambda p: log.append("run"), n_samples=10)
    assert log == []


def test_a_refusing_ledger_leaves_the_run_unread():
    log = []
    with pytest.raises(PrivacyBudgetExceeded):
        release(_Recorder(log, refuse=True), lambda: ([("fit", object())], None),
                lambda p: log.append("run"), n_samples=10)
    assert log == [("charge", "fit", 10)]


def test_no_ledger_charges_nothing_and_runs():
    assert release(None, lambda: ([("fit", object())], 3), lambda p: p + 1, n_samples=5) == 4


@pytest.mark.parametrize("extra", [0.0, 1e-7])
def test_an_allowance_charges_its_event_and_its_epsilon(extra):
    allowance = Allowance(0.7, extra)
    expected_event = GaussianDpWithDeltaEvent(0.7, extra) if extra else GaussianDpEvent(0.7)
    assert allowance.event == expected_event
    # the edge conversion: the exact GDP curve at delta - delta0 (Dong, Roth and Su 2022)
    assert allowance.epsilon_at(1e-5) == float(gdp_to_epsilon(0.7, 1e-5 - extra))
    assert allowance.epsilon_at(extra) == math.inf
    ledger = PrivacyLedger()
    admit(ledger, [("step", allowance.charge_at(1e-5, "a histogram"))], n_samples=100,
          sample_ids=np.arange(100))
    (entry,) = ledger.entries
    assert entry.event == expected_event
    assert entry.epsilon == allowance.epsilon_at(1e-5)
    assert (entry.delta, entry.description, entry.n_samples) == (1e-5, "a histogram", 100)


def test_an_allowance_checks_a_report_with_the_one_margin():
    allowance = Allowance(1.0, 1e-6)
    allowance.check("s", ReleasePrivacyReport(mu=1.0 + 5e-10, extra_delta=1e-6, mechanism=""))
    with pytest.raises(RuntimeError, match="above its allowance"):
        allowance.check("s", ReleasePrivacyReport(mu=1.0 + 2e-9, extra_delta=0, mechanism=""))
    with pytest.raises(RuntimeError, match="above its allowance"):
        allowance.check("s", ReleasePrivacyReport(mu=0.5, extra_delta=2e-6, mechanism=""))
    with pytest.raises(RuntimeError, match="no Gaussian-DP mu"):
        allowance.check("s", object())


def _modules_that_charge():
    """Modules outside skdpgd/_ledger that call a ledger's charge (``.charge*(...)``)."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_ledger" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"charge", "charge_event", "charge_rdp"}):
                found.add(str(path.relative_to(PACKAGE)))
    return found


def test_at_most_two_modules_outside_the_ledger_charge_one():
    # today the protocol module only; the bound leaves room for one more
    found = _modules_that_charge()
    assert "accounting/allowance.py" in found
    assert len(found) <= 2, sorted(found)


def _count_conversions(monkeypatch):
    """Wrap gdp_to_epsilon and epsilon_delta_to_gdp wherever a module of skdpgd holds them."""
    import sys

    import skdpgd.accounting._gdp as gdp

    counts = {"gdp_to_epsilon": 0, "epsilon_delta_to_gdp": 0}
    for name in counts:
        original = getattr(gdp, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        for module in list(sys.modules.values()):
            if (getattr(module, "__name__", "").startswith("skdpgd")
                    and getattr(module, name, None) is original):
                monkeypatch.setattr(module, name, counted)
    return counts


def _pipeline_fit_conversions(monkeypatch):
    pd = pytest.importorskip("pandas")
    import warnings

    from skdpgd import DPLogisticRegression, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=500), "b": rng.choice(list("xyz"), 500)})
    y = (X["a"] > 0).astype(int).to_numpy()
    pipe = make_dp_pipeline(DPTableVectorizer(),
                            DPLogisticRegression(solver="gd", classes=[0, 1]),
                            epsilon=1.0, random_state=0, ledger=PrivacyLedger())
    counts = _count_conversions(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, y)
    return counts


def test_the_counter_sees_a_pipeline_fit_convert(monkeypatch):
    # the budget's split converts at least once each way (the edge: epsilon in, epsilon
    # printed), so the counter reaches the modules that hold the functions
    counts = _pipeline_fit_conversions(monkeypatch)
    assert counts["epsilon_delta_to_gdp"] >= 1 and counts["gdp_to_epsilon"] >= 1


def test_a_pipeline_fit_converts_epsilon_to_mu_once(monkeypatch):
    # epsilon in (the budget's split, once); epsilon out: the planned report the ledger
    # is charged, the estimator's report and the pipeline's composed report. The
    # estimator is handed its share in mu and its solver plans in mu (no conversion)
    counts = _pipeline_fit_conversions(monkeypatch)
    assert counts["epsilon_delta_to_gdp"] <= 1 and counts["gdp_to_epsilon"] <= 3, counts
