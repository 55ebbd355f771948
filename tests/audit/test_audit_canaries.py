"""Canary construction (skdpgd.audit._canaries): the neighbouring pair an audit uses."""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.audit import NoisyGDMean, audit_epsilon, make_canary


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(12, 3))
    X[:, 2] *= 0.01  # least energy: the canary's coordinate
    return X


def test_regressor_gradient_canary(X):
    est = DPRidge(data_norm=2.0, y_bound=3.0)
    canary = make_canary(est, X, np.zeros(12), kind="gradient", index=4, scale=10.0)
    np.testing.assert_array_equal(canary.score_x, [0.0, 0.0, 2.0])  # on the norm bound
    np.testing.assert_array_equal(canary.x, [0.0, 0.0, 20.0])  # 10x beyond it
    assert canary.y == 30.0 and canary.replaced_y == -30.0  # opposite extreme targets
    np.testing.assert_array_equal(canary.replaced_x, canary.x)
    X0, y0, X1, y1 = canary.datasets(X, np.zeros(12, dtype=int))
    assert y0.dtype.kind == "f"  # an int target array is widened for the canary's target
    differs = np.flatnonzero(np.any(X0 != X1, axis=1) | (y0 != y1))
    np.testing.assert_array_equal(differs, [4])  # replace-one neighbours, same n
    assert X0.shape == X1.shape == X.shape


def test_classifier_canary_takes_the_rarest_label(X):
    y = np.array([0] * 7 + [1] * 5)
    canary = make_canary(DPLogisticRegression(), X, y)
    assert canary.y == 1 and canary.replaced_y == 0
    # a public label absent from y is rarer still
    canary = make_canary(DPLogisticRegression(classes=[0, 1, 2]), X, y)
    assert canary.y == 2 and canary.replaced_y == 0


def test_input_canary_replaces_a_real_row(X):
    y = np.arange(12.0) / 12
    canary = make_canary(DPRidge(y_bound=1.0), X, y, kind="input", index=3)
    np.testing.assert_array_equal(canary.replaced_x, X[3])
    assert canary.replaced_y == y[3]
    X0, y0, _, _ = canary.datasets(X, y)
    np.testing.assert_array_equal(X0, X)  # D is the auditor's data as given
    np.testing.assert_array_equal(y0, y)


def test_unsupervised_canary_is_mirrored(X):
    canary = make_canary(NoisyGDMean(data_norm=1.5), X)
    np.testing.assert_array_equal(canary.replaced_x, -canary.x)
    assert canary.y is None and np.linalg.norm(canary.score_x) == 1.5


def test_custom_canary_and_multiclass_statistic(X):
    result = audit_epsilon(NoisyGDMean(1.0), X, canary=([0.0, 0.0, 0.5], None), n_trials=8)
    assert result.canary.kind == "custom"
    np.testing.assert_array_equal(result.canary.score_x, [0.0, 0.0, 0.5])
    y = np.array([0, 1, 2] * 4)
    est = DPLogisticRegression(1.0, C=1.0, max_iter=3)
    result = audit_epsilon(est, X, y, n_trials=8, random_state=0)
    assert np.all(np.isfinite(result.scores_with_canary)) and result.epsilon_claimed <= 1.0
