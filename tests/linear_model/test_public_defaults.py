"""The public defaults: intercept column b = R (k/d)^(1/8), residual clip 1/2, r0 model."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_classification

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.linear_model._defaults import (
    CONFIDENT_LOGIT,
    auto_intercept_scaling,
    initial_distance,
)
from skdpgd.losses import BinaryLogisticLoss


def _proxy_scale(b, *, m, R, d, k):
    """r0(b) Rt(b), written out from the model r0^2 = m^2 sqrt(kd)/R^2 + k m^2/b^2."""
    r0 = math.sqrt(m * m * math.sqrt(k * d) / (R * R) + k * m * m / (b * b))
    return r0 * math.sqrt(R * R + b * b)


@pytest.mark.parametrize("R", [0.3, 1.0, 7.0])
@pytest.mark.parametrize("d, k", [(1, 1), (10, 1), (104, 1), (64, 10), (5, 3)])
def test_auto_intercept_scaling_minimises_the_proxy_scale(R, d, k):
    b = auto_intercept_scaling(R, d, k)
    assert b == pytest.approx(R * (k / d) ** 0.125, rel=1e-15)
    grid = b * np.logspace(-2, 2, 2001)
    scales = [_proxy_scale(x, m=CONFIDENT_LOGIT, R=R, d=d, k=k) for x in grid]
    best = grid[int(np.argmin(scales))]
    assert best == pytest.approx(b, rel=5e-3)  # grid step is 0.46% in log space
    assert _proxy_scale(b, m=CONFIDENT_LOGIT, R=R, d=d, k=k) <= min(scales) * (1 + 1e-12)
    # and the package's r0 is that model
    r0 = initial_distance(CONFIDENT_LOGIT, R, d, k, b)
    assert r0 * math.hypot(R, b) == pytest.approx(
        _proxy_scale(b, m=CONFIDENT_LOGIT, R=R, d=d, k=k), rel=1e-12
    )


def test_initial_distance_without_intercept_is_the_feature_guess():
    assert initial_distance(2.0, 0.5, 16, 1, None) == pytest.approx(2.0 * 16**0.25 / 0.5)


@pytest.fixture(scope="module")
def binary_data():
    X, y = make_classification(n_samples=300, n_features=7, n_informative=4, random_state=3)
    return X / np.max(np.linalg.norm(X, axis=1)), y


def test_estimators_use_and_report_the_auto_defaults(binary_data):
    X, y = binary_data
    d = X.shape[1]
    clf = DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    assert clf.intercept_scaling_ == pytest.approx(d**-0.125, rel=1e-15)
    assert clf.residual_clip_ == 0.5
    rt = math.sqrt(1 + d**-0.25)
    assert clf.privacy_.sensitivity == pytest.approx(2 * 0.5 * rt, rel=1e-12)
    y3 = np.arange(len(y)) % 3
    multi = DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y3)
    assert multi.intercept_scaling_ == pytest.approx((3 / d) ** 0.125, rel=1e-15)
    assert multi.residual_clip_ == 1.0  # softmax: no clip
    ridge = DPRidge(epsilon=1.0, random_state=0, y_bound=1.0).fit(X, X[:, 0])
    assert ridge.intercept_scaling_ == pytest.approx(d**-0.125, rel=1e-15)
    fixed = DPLogisticRegression(epsilon=1.0, intercept_scaling=2.0, residual_clip=1.0,
                                 random_state=0).fit(X, y)
    assert fixed.intercept_scaling_ == 2.0 and fixed.residual_clip_ == 1.0
    assert fixed.privacy_.sensitivity == pytest.approx(2 * math.sqrt(5.0), rel=1e-12)
    none = DPLogisticRegression(epsilon=1.0, fit_intercept=False, random_state=0).fit(X, y)
    assert none.intercept_scaling_ == 0.0 and np.all(none.intercept_ == 0.0)
    # plan_privacy sees the same b as fit (a function of d and k only)
    assert clf.plan_privacy(len(y), d, 2).sensitivity == clf.privacy_.sensitivity


def test_softmax_refuses_an_explicit_residual_clip(binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="two classes only"):
        DPLogisticRegression(residual_clip=0.5).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError):
        DPLogisticRegression(residual_clip=1.5).fit(X, y)


def test_noiseless_fit_minimises_the_huberised_objective(binary_data):
    """epsilon=inf runs the same algorithm without noise: it must reach the minimiser of
    (1/n) sum phi_c + lam/2 ||theta||^2 on the clipped design with the column b."""
    X, y = binary_data
    n, d = X.shape
    C = 1.0
    clf = DPLogisticRegression(epsilon=np.inf, C=C, max_iter=20_000).fit(X, y)
    b, c, lam = d**-0.125, 0.5, 1.0 / (C * n)
    design = np.hstack([X, np.full((n, 1), b)])  # rows already have norm <= 1
    loss = BinaryLogisticLoss(c)
    y = y.astype(float)

    def objective(theta):
        return loss.value_sum(theta, design, y) / n + 0.5 * lam * theta @ theta

    def gradient(theta):
        return loss.gradient_sum(theta, design, y) / n + lam * theta

    ref = minimize(objective, np.zeros(d + 1), jac=gradient, method="L-BFGS-B",
                   options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000)).x
    ours = np.append(clf.coef_[0], clf.intercept_[0] / b)
    # Both converge to the unique minimiser (lam-strongly convex); 1e-4 relative is far
    # above either solver's stopping error and far below any difference in objective.
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-6)
    # ... which is not the plain logistic minimiser (the clip is active on this data).
    plain = BinaryLogisticLoss()
    ref_plain = minimize(
        lambda t: plain.value_sum(t, design, y) / n + 0.5 * lam * t @ t, np.zeros(d + 1),
        jac=lambda t: plain.gradient_sum(t, design, y) / n + lam * t, method="L-BFGS-B",
        options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000)).x
    assert np.max(np.abs(ours - ref_plain)) > 1e-2
