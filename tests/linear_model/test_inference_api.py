"""``inference=True`` on the estimators: shapes, the one charge, refusals, a coverage check
against the true coefficients of the data-generating model (docs/theory.md,
"Private inference for the coefficients")."""

import math

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.inference import InferencePrivacyReport, fit_budget


class _Ledger:
    """Records charges (report, n); never refuses."""

    def __init__(self):
        self.calls = []

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        self.calls.append(report)


def _linear(n, p, seed, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, p)) / math.sqrt(p)
    beta = np.linspace(-1, 1, p)
    y = X @ beta + 0.2 + noise * np.clip(rng.standard_normal(n), -4, 4)
    return X, y, np.r_[beta, 0.2]


def _logistic(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, p)) / math.sqrt(p)
    beta = np.linspace(-2, 2, p)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta + 0.2)))).astype(int)
    return X, y, np.r_[beta, 0.2]


def test_logistic_attributes_shapes_and_table():
    X, y, _ = _logistic(5000, 3, 0)
    frame = pd.DataFrame(X, columns=["age", "hours", "score"])
    ledger = _Ledger()
    clf = DPLogisticRegression(epsilon=2.0, classes=[0, 1], inference=True, ledger=ledger,
                               random_state=0).fit(frame, y)
    assert clf.coef_se_.shape == clf.coef_.shape == (1, 3)
    assert clf.intercept_se_.shape == clf.intercept_.shape == (1,)
    assert clf.coef_cov_.shape == (4, 4)
    np.testing.assert_allclose(np.sqrt(np.diag(clf.coef_cov_)),
                               np.r_[clf.coef_se_.ravel(), clf.intercept_se_])
    ci = clf.conf_int(0.1)
    assert ci.shape == (4, 2)
    centre = np.r_[clf.coef_.ravel(), clf.intercept_]
    np.testing.assert_allclose(ci.mean(axis=1), centre)
    assert np.all(ci[:, 1] - ci[:, 0] < clf.conf_int(0.05)[:, 1] - clf.conf_int(0.05)[:, 0])
    assert clf.pvalues_.shape == (4,) and np.all((clf.pvalues_ >= 0) & (clf.pvalues_ <= 1))
    table = clf.summary()
    assert list(table.index) == ["age", "hours", "score", "intercept"]
    assert list(table.columns) == ["coef", "std_err", "ci_low", "ci_high", "p_value", "note"]
    assert any("logistic model" in note for note in table.attrs["notes"])
    assert "intercept" in clf.inference_.text()
    # one report, charged once, composing the run and the three releases
    assert len(ledger.calls) == 1 and ledger.calls[0] is clf.privacy_
    report = clf.privacy_
    assert isinstance(report, InferencePrivacyReport)
    assert report.mu == pytest.approx(math.sqrt(report.run.mu**2 + report.gradient_mu**2
                                                + report.hessian_mu**2 + report.score_mu**2))
    assert report.epsilon <= 2.0
    assert clf.residual_clip_ == 1.0  # the plain loss


def test_ridge_attributes_and_names_without_frame():
    X, y, _ = _linear(3000, 2, 1)
    reg = DPRidge(epsilon=4.0, y_bound=4.0, inference=True, random_state=0).fit(X, y)
    assert reg.coef_se_.shape == reg.coef_.shape == (2,)
    assert isinstance(reg.intercept_se_, float)
    assert list(reg.summary().index) == ["x0", "x1", "intercept"]
    assert any("Huber-regression" in note for note in reg.summary().attrs["notes"])


def test_without_intercept_there_is_no_intercept_row():
    X, y, _ = _linear(3000, 2, 2)
    reg = DPRidge(epsilon=4.0, y_bound=4.0, fit_intercept=False, inference=True,
                  random_state=0).fit(X, y)
    assert reg.conf_int().shape == (2, 2) and reg.coef_cov_.shape == (2, 2)
    assert reg.intercept_se_ == 0.0


def test_plan_privacy_is_the_fit_report():
    X, y, _ = _linear(3000, 2, 3)
    reg = DPRidge(epsilon=1.0, y_bound=4.0, inference=True, random_state=0)
    planned = reg.plan_privacy(3000, 2)
    assert planned.mu == reg.fit(X, y).privacy_.mu


def test_without_inference_the_table_is_refused_with_a_reason():
    X, y, _ = _linear(500, 2, 4)
    reg = DPRidge(epsilon=1.0, y_bound=4.0, random_state=0).fit(X, y)
    assert not hasattr(reg, "coef_se_")
    with pytest.raises(AttributeError, match="inference=True"):
        reg.conf_int()


@pytest.mark.parametrize("params, message", [
    ({"classes": [0, 1, 2]}, "binary logistic regression only"),
    ({"classes": [0, 1], "solver": "sgd"}, "not available with solver='sgd'"),
    ({"classes": [0, 1], "residual_clip": 0.5}, "plain logistic loss"),
    ({"classes": [0, 1], "max_sample_weight": 2.0}, "does not support sample_weight"),
], ids=["multinomial", "sgd", "clipped residual", "weights"])
def test_refusals_come_before_the_charge_and_before_reading_values(params, message):
    X = np.full((2000, 3), np.nan)  # never read: the refusal is decided from public numbers
    y = np.zeros(2000)
    ledger = _Ledger()
    with pytest.raises(ValueError, match=message):
        DPLogisticRegression(inference=True, ledger=ledger, **params).fit(X, y)
    assert ledger.calls == []


def test_unidentifiable_shape_is_refused_from_public_numbers():
    X, y = np.full((1000, 30), np.nan), np.zeros(1000)
    ledger = _Ledger()
    with pytest.raises(ValueError, match="needs n >= "):
        DPRidge(epsilon=0.5, y_bound=1.0, inference=True, ledger=ledger).fit(X, y)
    assert ledger.calls == []
    budget = fit_budget(0.5, 1e-4)
    assert budget.hessian_mu > 0


def test_coverage_of_the_true_coefficients():
    """60 fits of DPRidge at epsilon 2 (n 4000, p 3): the nominal 95% intervals cover the
    true coefficients (intercept included) in 88% to 99.5% of 240 cases. Tolerance: the
    per-coefficient coverages are dependent, but even as 60 independent trials of 4 the
    binomial standard error at 0.95 is 0.028 per coefficient; the lower bound is 2.5 of
    them below 0.95 (pooled over 4 coefficients, more), the upper bound allows the leftover
    bound's conservatism."""
    covered = []
    for seed in range(60):
        X, y, truth = _linear(4000, 3, 100 + seed)
        reg = DPRidge(epsilon=2.0, y_bound=4.0, inference=True, random_state=seed).fit(X, y)
        ci = reg.conf_int()
        covered.append((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
    rate = np.mean(covered)
    assert 0.88 <= rate <= 0.995


def test_summary_takes_the_names_of_a_pipeline_s_columns():
    X, y, _ = _linear(3000, 2, 5)
    reg = DPRidge(epsilon=4.0, y_bound=4.0, inference=True, random_state=0).fit(X, y)
    table = reg.summary(feature_names=["income", "age"])
    assert list(table.index) == ["income", "age", "intercept"]
    with pytest.raises(ValueError, match="has 1 names"):
        reg.summary(feature_names=["income"])


def test_through_a_dp_pipeline_one_report_covers_everything():
    from skdpgd import make_dp_pipeline
    from skdpgd.preprocessing import BoundedScaler

    X, y, _ = _linear(4000, 2, 6)
    pipe = make_dp_pipeline(BoundedScaler((-1.0, 1.0)),
                            DPRidge(y_bound=4.0, inference=True, data_norm=1.5),
                            epsilon=4.0, random_state=0).fit(X, y)
    model = pipe.pipeline_[-1]
    assert model.conf_int().shape == (3, 2)
    assert pipe.privacy_.epsilon <= 4.0
    assert isinstance(model.privacy_, InferencePrivacyReport)
