"""A fit is charged before any value of X or y is read, so a refusal is never a free probe.

With an exhausted budget, fits on data sets that differ in content (a label outside
``classes``, a NaN, an adversarial row) must fail identically; with budget left, a fit
refused for its content has paid for it.
"""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge


class _Ledger:
    """A ledger recording charges; refuses every charge once ``budget`` fits are spent."""

    def __init__(self, budget):
        self.budget, self.calls = budget, []

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        if len(self.calls) >= self.budget:
            raise RuntimeError("budget exhausted")
        self.calls.append((report, n_samples, sample_ids))


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def _variants():
    X, y = _data()
    label = y.copy()
    label[0] = 7  # outside classes
    nan = X.copy()
    nan[1, 2] = np.nan
    return {"clean": (X, y), "label": (X, label), "nan": (nan, y), "strings": (X.astype(str), y)}


@pytest.mark.parametrize("variant", ["clean", "label", "nan", "strings"])
def test_exhausted_ledger_refuses_every_variant_alike(variant):
    X, y = _variants()[variant]
    ledger = _Ledger(budget=0)
    with pytest.raises(RuntimeError, match="budget exhausted"):
        DPLogisticRegression(classes=[0, 1], ledger=ledger).fit(X, y)
    with pytest.raises(RuntimeError, match="budget exhausted"):
        DPRidge(ledger=ledger, y_bound=1.0).fit(X, y.astype(float) if variant != "label" else y)


@pytest.mark.parametrize("variant", ["label", "nan"])
def test_a_fit_refused_for_its_content_has_been_charged(variant):
    X, y = _variants()[variant]
    ledger = _Ledger(budget=5)
    with pytest.raises(ValueError):
        DPLogisticRegression(classes=[0, 1], ledger=ledger, random_state=0).fit(X, y)
    assert len(ledger.calls) == 1


def test_a_ledger_needs_the_public_label_set():
    X, y = _data()
    ledger = _Ledger(budget=5)
    with pytest.raises(ValueError, match="classes= must be given"):
        DPLogisticRegression(ledger=ledger).fit(X, y)
    assert ledger.calls == []
    # without a ledger the label set may be read from y (and the report says so)
    est = DPLogisticRegression(random_state=0).fit(X, y)
    assert any("label set read from y" in note for note in est.privacy_.notes)


def test_sample_ids_must_be_unique():
    X, y = _data()
    ids = np.arange(40)
    ids[5] = ids[6]
    ledger = _Ledger(budget=5)
    with pytest.raises(ValueError, match="unique"):
        DPLogisticRegression(classes=[0, 1], ledger=ledger).fit(X, y, sample_ids=ids)
    assert ledger.calls == []


@pytest.mark.parametrize(
    "make",
    [
        lambda: DPLogisticRegression(intercept_scaling=1e-300),
        lambda: DPLogisticRegression(data_norm=1e-160),
        lambda: DPRidge(data_norm=1e154, y_bound=1.0),
        lambda: DPRidge(y_bound=1e300),
        lambda: DPRidge(y_bound=1e-300),
    ],
)
def test_extreme_public_scales_are_refused_by_name(make):
    est = make()
    X, y = _data()
    name = next(k for k in ("intercept_scaling", "data_norm", "y_bound")
                if k in est.get_params() and est.get_params()[k] not in (1.0, "auto"))
    with pytest.raises(ValueError, match=name):
        est.fit(X, y)
