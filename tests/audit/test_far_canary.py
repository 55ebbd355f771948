"""The audit's statistic reads skdpgd models at the canary as their fit sees it.

A canary may be a far finite row (``[1.797e308, 1.797e308]``, an unclipped score's bug): the
fit clips it to ``data_norm``, so the default statistic must too. Read at the raw row,
``decision_function`` overflowed (a warning, and an infinite or NaN statistic that
stopped the audit with AuditError). Trial counts are the minimum (8): these tests
check that the audit runs and is silent, not its power.
"""

import warnings

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.audit import audit_epsilon, default_statistic
from skdpgd.model_selection import DPSearchCV

FAR = np.array([1.797e308, -1.797e308])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    X *= 0.7 / np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int), np.tanh(X[:, 0])


@pytest.mark.parametrize("name", ["logistic", "ridge", "search"])
def test_a_far_custom_canary_is_audited_silently(data, name):
    X, labels, targets = data
    if name == "logistic":
        est, y, canary = DPLogisticRegression(classes=[0, 1], C=1.0, max_iter=10), labels, (FAR, 1)
    elif name == "ridge":
        est, y, canary = DPRidge(y_bound=1.0, max_iter=10), targets, (FAR, 1e308)
    else:
        est = DPSearchCV(DPLogisticRegression(classes=[0, 1], max_iter=5), {"C": [0.1, 10.0]},
                         epsilon=1.0, expected_trials=2.0)
        y, canary = labels, (FAR, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = audit_epsilon(est, X, y, canary=canary, n_trials=8,
                               random_state=0)
    assert [str(w.message) for w in caught] == []
    scores = np.concatenate([result.scores_without_canary, result.scores_with_canary])
    assert np.all(np.isfinite(scores))


def test_the_statistic_at_a_far_row_is_the_statistic_at_its_clipped_value(data):
    X, labels, _ = data
    model = DPLogisticRegression(classes=[0, 1], max_iter=10, random_state=0).fit(X, labels)
    u = FAR / np.max(np.abs(FAR))
    on_sphere = u / np.linalg.norm(u)  # data_norm = 1: the clipped row, computed here
    assert default_statistic(model, FAR, 1) == pytest.approx(
        default_statistic(model, on_sphere, 1), rel=1e-12)
