"""DPSearchCV: the released guarantee, the ledger hook, refusals, and that it selects."""

import math

import numpy as np
import pytest
from scipy import optimize
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd.accounting import DEFAULT_ORDERS, rdp_to_epsilon
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import DPSearchCV, expected_trials
from skdpgd.model_selection._trial_guard import MuGuard
from skdpgd.preprocessing import BoundedScaler


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4)) / 2.5
    y = (X @ [3.0, -2.0, 0.0, 0.0] + 0.3 * rng.normal(size=400) > 0).astype(int)
    return X, y


def _search(**kw):
    params = dict(epsilon=2.0, delta=1e-5, expected_trials=4.0, random_state=0)
    params.update(kw)
    est = DPLogisticRegression(classes=[0, 1], max_iter=40)
    return DPSearchCV(est, {"C": [1e-4, 1.0, 10.0]}, **params)


def _reference_epsilon(mu, eta, gamma, delta, refit):
    """Theorem 2 re-derived here: lambda_hat minimised numerically, refit added in RDP."""
    def at(alpha):
        def f(lh):
            return (1 + eta) * ((1 - 1 / lh) * lh * mu * mu / 2 + math.log(1 / gamma) / lh)
        hat = optimize.minimize_scalar(f, bounds=(1.0, 1e5), method="bounded",
                                       options={"xatol": 1e-12}).fun
        return (alpha * mu * mu / 2 * (2 if refit else 1) + hat
                + math.log(expected_trials(eta, gamma)) / (alpha - 1))

    curve = np.array([at(a) for a in DEFAULT_ORDERS])
    return rdp_to_epsilon(DEFAULT_ORDERS, curve, delta)


@pytest.mark.parametrize("refit", [False, True])
def test_released_privacy_is_the_proven_total(data, refit):
    search = _search(refit=refit).fit(*data)
    p = search.privacy_
    ref = _reference_epsilon(p.trial_mu, p.eta, p.gamma, p.delta, refit)
    assert ref <= 2.0 * (1 + 1e-6)            # the proven total meets the budget ...
    assert ref == pytest.approx(p.epsilon, rel=1e-5)
    assert p.epsilon >= 2.0 * (1 - 1e-6)      # ... and uses it (bisection to 1e-10 in log mu)
    m = math.ceil(0.2 * 400)
    assert p.n_validation == m and p.score_sensitivity == pytest.approx(1 / m)
    assert p.score_noise_std == pytest.approx(1 / (m * p.trial_mu))
    assert search.best_estimator_.privacy_.mu <= p.trial_mu
    assert search.best_estimator_.privacy_.n_samples == (400 if refit else 400 - m)


def test_only_the_best_trial_is_released(data):
    search = _search().fit(*data)
    public = {k for k in vars(search) if k.endswith("_") and not k.startswith("_")}
    assert public == {"best_score_", "best_params_", "best_estimator_", "privacy_",
                      "n_features_in_", "classes_"}


def test_same_seed_same_result(data):
    X, y = data
    a = _search(epsilon=8.0, expected_trials=6.0).fit(X, y)
    b = _search(epsilon=8.0, expected_trials=6.0).fit(X, y)
    assert a.best_params_ == b.best_params_ and a.best_score_ == b.best_score_
    np.testing.assert_array_equal(a.best_estimator_.coef_, b.best_estimator_.coef_)
    oracle = LogisticRegression().fit(X, y).score(X, y)
    assert a.score(X, y) > oracle - 0.1


def test_it_selects_the_better_candidate_whenever_it_was_tried():
    """Unbalanced labels (25% positives): without an intercept accuracy is ~0.76, with
    one ~0.94. The noisy score (std 1/(80 mu), mu ~ 1.1 at epsilon=8) tells them apart,
    so the intercept wins exactly when at least one of the K trials drew it:
    p = 1 - E[(1/2)^K] = 1 - G(1/2), G the generating function of the logarithmic law."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4)) / 2.5
    y = (X @ [3.0, -2.0, 0.0, 0.0] + 0.3 * rng.normal(size=400) > 1.0).astype(int)
    est = DPLogisticRegression(classes=[0, 1], max_iter=20, C=10.0)
    n_runs, wins = 40, 0
    for seed in range(n_runs):
        search = DPSearchCV(est, {"fit_intercept": [False, True]}, epsilon=8.0,
                            expected_trials=10.0, random_state=seed).fit(X, y)
        wins += search.best_params_["fit_intercept"]
    gamma = search.privacy_.gamma
    p = 1 - math.log(1 - (1 - gamma) / 2) / math.log(gamma)
    # 3 binomial standard errors (false alarm < 0.3%); a selection that ignored the
    # scores would win half the time, far below the lower limit (~0.63)
    sigma = math.sqrt(p * (1 - p) / n_runs)
    assert p - 3 * sigma <= wins / n_runs <= p + 3 * sigma


def test_ledger_is_charged_once_before_the_data(data):
    ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
    search = _search(ledger=ledger).fit(*data, sample_ids=np.arange(400))
    (entry,) = ledger.entries
    assert entry.mu is None and entry.rows == 400
    assert ledger.spent().epsilon <= 3.0
    assert ledger.spent().epsilon == pytest.approx(search.privacy_.epsilon, rel=1e-9)
    again = _search(ledger=ledger)
    with pytest.raises(PrivacyBudgetExceeded):
        again.fit(*data)
    assert not hasattr(again, "best_estimator_") and len(ledger.entries) == 1


def test_clone_of_the_search_shares_its_ledger(data):
    ledger = PrivacyLedger()
    search = _search(ledger=ledger)
    assert clone(search).ledger is ledger


def test_regressor_uses_a_bounded_score():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) / 2
    y = np.clip(X @ [0.8, -0.4, 0.0] + 0.05 * rng.normal(size=300), -1, 1)
    est = DPRidge(y_bound=1.0, max_iter=30)
    search = DPSearchCV(est, {"alpha": [1e-3, 1.0]}, epsilon=4.0, expected_trials=3.0,
                        random_state=0).fit(X, y)
    m = math.ceil(0.2 * 300)
    assert search.privacy_.score_sensitivity == pytest.approx(4.0 / m)
    assert search.best_score_ <= 0.5  # minus a clipped MSE plus noise of std ~4/(60 mu)
    assert search.predict(X).shape == (300,)


def test_refusals(data):
    X, y = data
    est = DPLogisticRegression(max_iter=20)
    with pytest.raises(ValueError, match="classes"):
        DPSearchCV(est, {"C": [1.0]}).fit(X, y)
    est = DPLogisticRegression(classes=[0, 1], ledger=PrivacyLedger())
    with pytest.raises(ValueError, match="ledger"):
        DPSearchCV(est, {"C": [1.0]}).fit(X, y)
    est = DPLogisticRegression(classes=[0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        DPSearchCV(est, {"epsilon": [1.0, 2.0]}).fit(X, y)
    with pytest.raises(TypeError, match="skdpgd estimator"):
        DPSearchCV(LogisticRegression(), {"C": [1.0]}).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):  # _parameter_constraints: (0, inf)
        DPSearchCV(est, {"C": [1.0]}, epsilon=np.inf).fit(X, y)
    with pytest.raises(ValueError, match="expected_trials"):
        DPSearchCV(est, {"C": [1.0]}, expected_trials=0.5).fit(X, y)


def test_guard_refuses_a_run_above_the_trial_budget():
    est = DPLogisticRegression(epsilon=1.0, classes=[0, 1])
    report = est.plan_privacy(300, 3)
    with pytest.raises(RuntimeError, match="above the trial budget"):
        MuGuard(report.mu * 0.99).charge(est, report, n_samples=300)
    MuGuard(report.mu).charge(est, report, n_samples=300)


@pytest.mark.parametrize("grid", [{"C": [1.0, 10.0]}, {"solver": ["gd", "sgd"]}],
                         ids=["sgd-template", "sgd-candidate"])
def test_sgd_candidates_are_refused_before_the_ledger_is_charged(data, grid):
    """An sgd candidate, whose solver declares no Gaussian-DP mu (``reports_mu=False``),
    is refused by that declaration before the ledger is charged (no entry), with a
    message naming it rather than a NaN mu."""
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-5)
    solver = "sgd" if "solver" not in grid else "gd"
    est = DPLogisticRegression(classes=[0, 1], solver=solver, max_iter=20)
    search = DPSearchCV(est, grid, epsilon=2.0, delta=1e-5, ledger=ledger, random_state=0)
    with pytest.raises(ValueError, match=r"solver='sgd'.*reports_mu=False") as info:
        search.fit(*data)
    assert "nan" not in str(info.value)
    assert len(ledger.entries) == 0 and not hasattr(search, "best_estimator_")


class _Log1p(FunctionTransformer):
    """A transformer that declares its fit reads no data (a fixed per-row map)."""

    __skdpgd_public_fit__ = True


@pytest.mark.parametrize("pre", [BoundedScaler(bounds=(-2.0, 2.0)), _Log1p(np.abs)],
                         ids=["skdpgd", "declared"])
def test_pipeline_of_public_transformers(data, pre):
    X, y = data
    ledger = PrivacyLedger()
    pipe = make_pipeline(pre, DPLogisticRegression(classes=[0, 1], max_iter=40))
    search = DPSearchCV(pipe, {"dplogisticregression__C": [0.1, 10.0]}, epsilon=2.0,
                        delta=1e-5, expected_trials=3.0, refit=True, ledger=ledger,
                        random_state=0)
    search.fit(X, y, sample_ids=np.arange(400))  # ids reach the ledger, no step named
    (entry,) = ledger.entries
    assert entry.rows == 400 and entry.event == search.privacy_.event
    assert isinstance(search.best_estimator_, Pipeline)
    final = search.best_estimator_[-1]
    assert final.privacy_.mu <= search.privacy_.trial_mu and final.ledger is not ledger
    assert search.predict(X).shape == (400,) and search.predict_proba(X).shape == (400, 2)
    assert set(search.best_params_) == {"dplogisticregression__C"}


def test_pipeline_with_a_data_dependent_step_is_refused_before_charging(data):
    ledger = PrivacyLedger()
    pipe = make_pipeline(StandardScaler(), DPLogisticRegression(classes=[0, 1]))
    with pytest.raises(TypeError, match="public-bound"):
        DPSearchCV(pipe, {"dplogisticregression__C": [1.0]}, ledger=ledger).fit(*data)
    with pytest.raises(ValueError, match="must not set"):
        DPSearchCV(make_pipeline(BoundedScaler(), DPLogisticRegression(classes=[0, 1])),
                   {"dplogisticregression__epsilon": [1.0]}).fit(*data)
    assert len(ledger.entries) == 0


def test_report_is_readable(data):
    search = _search().fit(*data)
    text = repr(search.privacy_)
    assert len(text) < 700 and text.count("\n") <= 6 and "np.float64" not in text
    assert "(2, 1e-05)-DP" in text and "E[K]=4" in text
    assert str(search.privacy_) == text
    assert "np.float64" not in repr(search.privacy_.orders)


def test_delegated_methods_follow_the_estimator():
    ridge = DPSearchCV(DPRidge(y_bound=1.0), {"alpha": [1.0]})
    assert not hasattr(ridge, "predict_proba") and hasattr(ridge, "predict")
    assert hasattr(_search(), "predict_proba") and hasattr(_search(), "decision_function")
