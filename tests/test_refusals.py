"""User mistakes get a clear, data-independent error that says why and what to do."""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3)) / np.sqrt(3)
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("make", [lambda: DPLogisticRegression(classes=[0, 1]),
                                  lambda: DPRidge(y_bound=1.0)])
def test_sample_weight_is_refused_with_the_reason(make):
    X, y = _data()
    with pytest.raises(TypeError, match="does not take sample_weight: .*sensitivity"):
        make().fit(X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['weights'\]"):
        make().fit(X, y, weights=np.ones(len(y)))


@pytest.mark.parametrize("class_weight, reason", [
    ("balanced", "class counts of y, a statistic of the private data"),
    ({0: 1.0, 1: 2.0}, "scale the sensitivity by max_k w_k"),
])
def test_class_weight_is_refused_with_the_reason(class_weight, reason):
    X, y = _data()
    with pytest.raises(ValueError, match=reason):
        DPLogisticRegression(classes=[0, 1], class_weight=class_weight).fit(X, y)


def test_warm_start_is_refused_with_the_reason():
    X, y = _data()
    with pytest.raises(ValueError, match="warm_start=True is refused: .*depend on that fit's data"):
        DPLogisticRegression(classes=[0, 1], warm_start=True).fit(X, y)


def test_refusals_do_not_read_the_data_or_charge_a_ledger():
    # The error depends on parameters only: the same for any data, even unreadable X, and
    # nothing is charged (the fit never started).
    ledger = PrivacyLedger()
    for X in (np.full((5, 3), np.nan), "not an array"):
        with pytest.raises(ValueError, match="warm_start"):
            DPLogisticRegression(classes=[0, 1], warm_start=True, ledger=ledger).fit(X, [0] * 5)
        with pytest.raises(ValueError, match="DPRidge needs y_bound"):
            DPRidge(ledger=ledger).fit(X, [0.0] * 5)
    assert len(ledger.entries) == 0


def test_dpridge_needs_a_public_y_bound():
    X, y = _data()
    with pytest.raises(ValueError, match="DPRidge needs y_bound, a public bound B on .y.") as info:
        DPRidge(epsilon=1.0).fit(X, y.astype(float))
    assert "never from" in str(info.value)  # says what not to do
    # Given, targets beyond it are clipped (silently, by design): a fit on y and on y
    # clipped to [-B, B] by hand is the same run.
    far = np.where(y > 0, 50.0, -50.0)
    a = DPRidge(y_bound=2.0, random_state=0, max_iter=20).fit(X, far)
    b = DPRidge(y_bound=2.0, random_state=0, max_iter=20).fit(X, np.clip(far, -2.0, 2.0))
    np.testing.assert_array_equal(a.coef_, b.coef_)
