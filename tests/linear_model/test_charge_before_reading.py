"""A fit is charged before any value of X or y is read, so a refusal is never a free probe.

With an exhausted budget, fits on data sets that differ in content (a label outside
``classes``, a NaN, an adversarial row) must fail identically; with budget left, a fit
refused for its content has paid for it.
"""

import numpy as np
import pytest
from _chains import assert_no_original

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
    ragged = X.tolist()
    ragged[3] = ragged[3][:2]
    return {"clean": (X, y), "label": (X, label), "nan": (nan, y), "strings": (X.astype(str), y),
            "text": (_with_object(X, "secret"), y), "complex": (X + 1j, y),
            "object": (_with_object(X, {"a": "dict"}), y), "ragged": (ragged, y)}


def _with_object(X, value):
    X = X.astype(object)
    X[2, 1] = value
    return X


# refused for their content, after the charge (a ragged list's n and d are read from its
# length and its first row, so its raggedness is found when the values are read)
CONTENT_VARIANTS = ["label", "nan", "text", "complex", "object", "ragged"]


@pytest.mark.parametrize("variant", ["clean", *CONTENT_VARIANTS])
def test_exhausted_ledger_refuses_every_variant_alike(variant):
    X, y = _variants()[variant]
    ledger = _Ledger(budget=0)
    with pytest.raises(RuntimeError, match="budget exhausted"):
        DPLogisticRegression(classes=[0, 1], ledger=ledger).fit(X, y)
    with pytest.raises(RuntimeError, match="budget exhausted"):
        DPRidge(ledger=ledger, y_bound=1.0).fit(X, y.astype(float) if variant != "label" else y)


@pytest.mark.parametrize("variant", CONTENT_VARIANTS)
def test_a_fit_refused_for_its_content_has_been_charged(variant):
    X, y = _variants()[variant]
    ledger = _Ledger(budget=5)
    with pytest.raises((ValueError, TypeError)) as info:
        DPLogisticRegression(classes=[0, 1], ledger=ledger, random_state=0).fit(X, y)
    assert len(ledger.calls) == 1
    # the refusal is ours alone: no original exception (which may quote the data) chained
    assert_no_original(info.value)  # nothing chained, no exception in its args


@pytest.mark.parametrize("y", [
    np.array(["1.0"] * 39 + ["secret"], dtype=object), np.array([0.5] * 39 + [np.nan]),
    np.array(["a"] * 40), np.zeros(40) + 1j,
], ids=["object strings", "NaN", "numpy strings", "complex"])
def test_a_regression_target_refused_for_its_content_has_been_charged(y):
    X, _ = _data()
    ledger = _Ledger(budget=5)
    with pytest.raises(ValueError, match=r"\by\b") as info:
        DPRidge(y_bound=1.0, ledger=ledger).fit(X, y)
    assert len(ledger.calls) == 1
    assert_no_original(info.value)  # nothing chained, no exception in its args


@pytest.mark.parametrize("make_X, message", [
    (lambda X: np.full((40, 3), "secret", dtype=object), "inconsistent numbers of samples"),
    (lambda X: X + 1j, "inconsistent numbers of samples"),
    (lambda X: (X + 1j)[:, :, None], "dim 3"),
])
def test_shape_errors_come_before_any_content_check(make_X, message):
    # A wrong shape is refused from the shape alone, before the charge, whatever the
    # values: content errors (strings, complex) must not pre-empt it, since they would
    # then be free.
    X, y = _data()
    ledger = _Ledger(budget=5)
    y_short = y[:-1] if message.startswith("inconsistent") else y
    with pytest.raises(ValueError, match=message):
        DPLogisticRegression(classes=[0, 1], ledger=ledger).fit(make_X(X), y_short)
    assert ledger.calls == []


def test_with_a_ledger_an_unreadable_shape_is_refused_before_reading_values():
    _X, y = _data()
    ledger = _Ledger(budget=5)
    for bad_X in (4711.4711, [4711.4711] * 40):  # a scalar; a 1-D list (no n_features)
        with pytest.raises(ValueError, match="read n and d from the shape") as info:
            DPLogisticRegression(classes=[0, 1], ledger=ledger).fit(bad_X, y)
        assert "4711" not in str(info.value)  # names the container's type, not its values
    assert ledger.calls == []


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
