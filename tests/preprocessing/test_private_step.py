"""The private-step base: every private step derives from it, a standalone fit plans,
charges its ledger before reading any value, fits within its allowance, and the one
conservative rounding rule keeps every reported epsilon at or below the target."""

import importlib
import inspect
import pkgutil

import numpy as np
import pandas as pd
import pytest

import skdpgd
from skdpgd import PrivacyLedger
from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon
from skdpgd.accounting._events import GaussianDpEvent, GaussianDpWithDeltaEvent
from skdpgd.accounting._margin import ROUNDING_MARGIN, calibrated_mu, round_down
from skdpgd.accounting._release import PRIVATE_FIT_ATTRIBUTE, ReleasePrivacyReport
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.pipeline._labels import PrivateClassCounts, release_balanced_weights
from skdpgd.pipeline._target import PrivateTargetRange, release_target_range
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._private_step import PrivateStepMixin, check_allowance
from skdpgd.preprocessing._table_schema import PrivateTableSchema


def _skdpgd_classes():
    for info in pkgutil.walk_packages(skdpgd.__path__, "skdpgd."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name:
                yield cls


def test_every_private_step_derives_from_the_mixin():
    private = [cls for cls in _skdpgd_classes()
               if getattr(cls, PRIVATE_FIT_ATTRIBUTE, False) is True]
    assert {c.__name__ for c in private} >= {
        "DPTableVectorizer", "PrivateTableSchema", "PrivateClassCounts",
        "PrivateTargetRange"}
    outside = [c.__qualname__ for c in private if not issubclass(c, PrivateStepMixin)]
    assert outside == []
    for cls in private:
        if cls is PrivateStepMixin:
            continue
        # the two hooks are the step's own, not the base's placeholders
        assert cls._privacy_plan is not PrivateStepMixin._privacy_plan, cls
        assert cls._fit_private is not PrivateStepMixin._fit_private, cls


def _table(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n).astype(float),
                         "city": rng.choice(["Lyon", "Oslo", "Rome"], n)})


STEPS = {
    "vectorizer": lambda ledger: (DPTableVectorizer(epsilon=1.0, ledger=ledger,
                                                    random_state=0), _table(), None),
    "schema": lambda ledger: (PrivateTableSchema(["age", "city"], epsilon=1.0,
                                                 delta="auto", ledger=ledger,
                                                 random_state=0), _table(), None),
    "target range": lambda ledger: (PrivateTargetRange(ledger=ledger, random_state=0),
                                    None, np.linspace(-3.0, 7.0, 3000)),
    "class counts": lambda ledger: (PrivateClassCounts([0, 1], ledger=ledger,
                                                       random_state=0),
                                    None, np.arange(3000) % 2),
}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_a_standalone_fit_charges_its_ledger_before_reading_a_value(name, monkeypatch):
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-4)
    step, X, y = STEPS[name](ledger)
    entries_when_fitting = []
    fit_private = type(step)._fit_private

    def spy(self, *args, **kwargs):
        entries_when_fitting.append(len(ledger.entries))
        return fit_private(self, *args, **kwargs)

    monkeypatch.setattr(type(step), "_fit_private", spy)
    step.fit(X, y)
    assert entries_when_fitting == [1]  # charged once, before the values were read
    event = ledger.entries[0].event
    budget = step.standalone_budget(X, y)
    assert event.mu == budget.mu and step.privacy_.mu <= budget.mu
    assert getattr(event, "extra_delta", 0.0) == budget.extra_delta
    # the charged epsilon is the standalone target's, rounded down (never above it)
    assert ledger.entries[0].epsilon <= 1.0


@pytest.mark.parametrize("name", sorted(STEPS))
def test_a_refused_charge_reads_nothing(name, monkeypatch):
    ledger = PrivacyLedger(epsilon=0.5, delta=1e-4)  # below the step's epsilon 1
    step, X, y = STEPS[name](ledger)
    monkeypatch.setattr(type(step), "_fit_private",
                        lambda *a, **k: pytest.fail("values read after a refusal"))
    with pytest.raises(PrivacyBudgetExceeded):
        step.fit(X, y)
    assert ledger.entries == () and not hasattr(step, "privacy_")


def test_standalone_numbers_are_the_mechanisms_at_the_calibrated_mu():
    # The y-steps are the pipeline's functions with the standalone budget: same noise.
    y = np.linspace(-3.0, 7.0, 3000)
    delta = min(1e-5, 1 / (10 * y.size))
    mu = float(epsilon_delta_to_gdp(1.0, delta)) * (1.0 - 1e-9)
    step = PrivateTargetRange(random_state=3).fit(None, y)
    low, high, _, report = release_target_range(y, mu=mu, random_state=3)
    assert step.range_ == (low, high) and step.privacy_ == report
    labels = np.arange(3000) % 3
    counts = PrivateClassCounts([0, 1, 2], random_state=4).fit(None, labels)
    weights, report = release_balanced_weights(labels, [0, 1, 2], mu=mu, random_state=4)
    assert counts.class_weight_ == weights and counts.privacy_ == report


def test_a_thresholding_step_reserves_a_tenth_of_delta():
    budget = DPTableVectorizer(epsilon=1.0, delta=1e-6).standalone_budget(_table())
    assert budget.extra_delta == pytest.approx(1e-7, rel=1e-12)
    assert budget.mu == calibrated_mu(1.0, 1e-6 - budget.extra_delta)
    public = DPTableVectorizer(bounds={"age": (0, 100)}, categories={"city": ["Lyon"]})
    assert public.standalone_budget(_table()).mu == 0.0  # no release: nothing to charge


def test_a_release_with_additive_delta_is_charged_as_such():
    assert ReleasePrivacyReport(mu=0.5, extra_delta=1e-7, mechanism="m").event == (
        GaussianDpWithDeltaEvent(0.5, 1e-7))
    assert ReleasePrivacyReport(mu=0.5, extra_delta=0.0, mechanism="m").event == (
        GaussianDpEvent(0.5))


def test_a_step_above_its_allowance_is_refused():
    report = ReleasePrivacyReport(mu=1.0 + 1e-6, extra_delta=0.0, mechanism="m")
    with pytest.raises(RuntimeError, match="allowance"):
        check_allowance("s", report, 1.0, 0.0)
    check_allowance("s", ReleasePrivacyReport(mu=1.0 + 1e-12, extra_delta=0.0,
                                              mechanism="m"), 1.0, 0.0)


@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8, 1e-12])
def test_the_rounding_margin_keeps_the_round_trip_below_the_target(delta):
    # docs/theory.md#conservative-rounding: without the margin the round trip may exceed
    # epsilon by float rounding (about 1e-14); with it, it is at least ~1e-9 below.
    for epsilon in np.geomspace(1e-2, 50.0, 25):
        back = gdp_to_epsilon(calibrated_mu(epsilon, delta), delta)
        assert back <= epsilon * (1.0 - 0.9 * ROUNDING_MARGIN)
    assert round_down(np.inf) == np.inf and calibrated_mu(np.inf, delta) == np.inf
