"""Behaviour of DPLogisticRegression and DPRidge (issue: estimators)."""

import math
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgd import DPLogisticRegression, DPRidge, accounting


def _unit_rows(X):
    """Scale rows into the unit ball by a constant (as users do with public bounds)."""
    return X / np.max(np.linalg.norm(X, axis=1))


@pytest.fixture(scope="module")
def binary_data():
    X, y = make_classification(n_samples=400, n_features=5, n_informative=3, random_state=0)
    return _unit_rows(X), y


@pytest.fixture(scope="module")
def multiclass_data():
    X, y = make_classification(
        n_samples=450, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    return _unit_rows(X), y


@pytest.fixture(scope="module")
def regression_data():
    X, y, _coef = make_regression(n_samples=400, n_features=4, noise=5.0, coef=True, random_state=2)
    return _unit_rows(X), y / np.max(np.abs(y))


# -- zero-noise agreement with scikit-learn ------------------------------------------


@pytest.mark.parametrize("data", ["binary_data", "multiclass_data"])
def test_logistic_matches_sklearn_without_noise(data, request):
    X, y = request.getfixturevalue(data)
    n = len(y)
    ours = DPLogisticRegression(
        epsilon=np.inf, C=1.0, max_iter=5000, intercept_scaling=1.0, residual_clip=1.0
    ).fit(X, y)
    # Same objective: intercept as an appended, regularised column of value 1, no clip.
    Xa = np.hstack([X, np.ones((n, 1))])
    ref = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(Xa, y)
    ref_coef = ref.coef_
    ours_coef = np.hstack([ours.coef_, ours.intercept_[:, None]])
    if ref_coef.shape[0] > 1:  # softmax: both are identified by the L2 term, compare directly
        pass
    np.testing.assert_allclose(ours_coef, ref_coef, rtol=1e-4, atol=1e-6)
    assert ours.noise_std_ == 0.0


def test_ridge_matches_sklearn_without_noise(regression_data):
    X, y = regression_data
    n = len(y)
    # A residual clip above every residual makes the Huber objective the squared one.
    ours = DPRidge(epsilon=np.inf, alpha=1.0, residual_clip=10.0, max_iter=20_000, y_bound=1.0).fit(X, y)
    Xa = np.hstack([X, np.ones((n, 1))])
    ref = Ridge(alpha=1.0, fit_intercept=False, solver="cholesky").fit(Xa, y)
    np.testing.assert_allclose(
        np.append(ours.coef_, ours.intercept_), ref.coef_, rtol=1e-4, atol=1e-6
    )


def test_regressor_check_passes_without_noise():
    """The sklearn check excluded for noise passes on the same kind of data at eps=inf."""
    X, y = make_regression(n_samples=200, n_features=5, noise=1.0, random_state=0)
    X, y = _unit_rows(X), y / np.max(np.abs(y))
    assert DPRidge(epsilon=np.inf, random_state=0, y_bound=1.0).fit(X, y).score(X, y) > 0.5


# -- scikit-learn citizenship -------------------------------------------------------


def test_clone_pipeline_gridsearch_over_epsilon(binary_data):
    X, y = binary_data
    pipe = make_pipeline(FunctionTransformer(), DPLogisticRegression(random_state=0))
    search = GridSearchCV(pipe, {"dplogisticregression__epsilon": [0.5, 2.0, np.inf]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["dplogisticregression__epsilon"] in (0.5, 2.0, np.inf)
    fitted = search.best_estimator_[-1]
    assert fitted.privacy_.epsilon <= fitted.epsilon
    scores = cross_val_score(DPRidge(epsilon=1.0, random_state=0, y_bound=1.0), X, y.astype(float), cv=3)
    assert scores.shape == (3,)
    est = DPLogisticRegression(epsilon=2.0, C=3.0)
    assert clone(est).get_params() == est.get_params()


def test_fit_does_not_modify_parameters(binary_data):
    X, y = binary_data
    est = DPLogisticRegression()
    before = est.get_params()
    est.fit(X, y)
    assert est.get_params() == before
    assert est.C == "auto" and est.delta == "auto" and est.max_iter == "auto"


def test_multinomial_shapes_and_probabilities(multiclass_data):
    X, y = multiclass_data
    clf = DPLogisticRegression(epsilon=4.0, random_state=0).fit(X, y)
    assert clf.coef_.shape == (3, X.shape[1]) and clf.intercept_.shape == (3,)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(proba), clf.predict_log_proba(X))
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])


def test_binary_shapes(binary_data):
    X, y = binary_data
    clf = DPLogisticRegression(epsilon=4.0, random_state=0).fit(X, y)
    assert clf.coef_.shape == (1, X.shape[1]) and clf.intercept_.shape == (1,)
    assert clf.decision_function(X).shape == (len(y),)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-clf.decision_function(X))))


# -- privacy report and rules ------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_report_matches_target_and_public_constants(binary_data, epsilon):
    X, y = binary_data
    n = len(y)
    clf = DPLogisticRegression(epsilon=epsilon, solver="gd", random_state=0).fit(X, y)
    report = clf.privacy_
    # Defaults: data_norm R = 1, intercept column b = R d^(-1/8), residual clip c = 1/2.
    b = X.shape[1] ** -0.125
    rt, c = math.sqrt(1.0 + b * b), 0.5
    assert clf.intercept_scaling_ == pytest.approx(b) and clf.residual_clip_ == c
    assert report.sensitivity == pytest.approx(2 * c * rt)  # docs/theory.md#loss-constants, binary
    assert report.smoothness == pytest.approx(rt**2 / 4 + clf.strong_convexity_)
    assert report.delta == min(1e-5, 1 / (10 * n))
    assert report.neighbouring_relation == "replace-one"
    # The reported mu is what bound (A) gives for the run that was executed ...
    mu = accounting.noisy_gd_gdp(
        clf.noise_std_, clf.n_iter_, sensitivity=2 * c * rt, n_samples=n,
        learning_rate=clf.learning_rate_, strong_convexity=clf.strong_convexity_,
        smoothness=rt**2 / 4 + clf.strong_convexity_,
    )
    assert report.mu == pytest.approx(mu, rel=1e-12)  # sqrt(1 + b^2) vs hypot: rounding
    # ... and it meets the target within 1e-6 (calibration is tight and conservative).
    assert epsilon * (1 - 1e-6) <= report.epsilon <= epsilon
    assert any("label set read from y" in note for note in report.notes)


def test_classes_given_are_public_and_checked(binary_data):
    X, y = binary_data
    clf = DPLogisticRegression(classes=[0, 1, 2], random_state=0).fit(X, y)
    assert list(clf.classes_) == [0, 1, 2] and clf.coef_.shape[0] == 3
    assert not any("label set" in note for note in clf.privacy_.notes)
    with pytest.raises(ValueError, match=r"not in classes"):
        DPLogisticRegression(classes=[0, 2]).fit(X, y)


def test_row_beyond_data_norm_acts_only_through_its_clipped_value(binary_data):
    X, y = binary_data
    direction = np.ones(X.shape[1]) / math.sqrt(X.shape[1])
    far, clipped = X.copy(), X.copy()
    far[0] = 50.0 * direction
    clipped[0] = 1.0 * direction  # data_norm = 1
    a = DPLogisticRegression(epsilon=1.0, random_state=3).fit(far, y)
    b = DPLogisticRegression(epsilon=1.0, random_state=3).fit(clipped, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-14)


def test_targets_clipped_to_y_bound(regression_data):
    X, y = regression_data
    far = y.copy()
    far[0] = 1e6
    clipped = y.copy()
    clipped[0] = 1.0
    a = DPRidge(random_state=0, y_bound=1.0).fit(X, far)
    b = DPRidge(random_state=0, y_bound=1.0).fit(X, clipped)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_reproducible_for_a_seed_and_noisy_across_seeds(binary_data):
    X, y = binary_data
    a = DPLogisticRegression(random_state=7).fit(X, y).coef_
    b = DPLogisticRegression(random_state=7).fit(X, y).coef_
    c = DPLogisticRegression(random_state=8).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    d = DPLogisticRegression(random_state=None).fit(X, y).coef_
    e = DPLogisticRegression(random_state=None).fit(X, y).coef_
    assert not np.array_equal(d, e)  # fresh OS entropy each time


def test_n_jobs_does_not_change_the_model(binary_data):
    X, y = binary_data
    a = DPLogisticRegression(random_state=0, n_jobs=1).fit(X, y).coef_
    b = DPLogisticRegression(random_state=0, n_jobs=2).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)


def test_verbose_prints_steps_and_time_only(binary_data, capsys):
    X, y = binary_data
    DPLogisticRegression(verbose=1, random_state=0).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines
    pattern = re.compile(r"^\[DPLogisticRegression\] step \d+/\d+ \(\d+\.\d\ds\)$")
    assert all(pattern.match(line) for line in lines), lines


def test_epsilon_inf_is_the_same_algorithm_without_noise(binary_data):
    X, y = binary_data
    clf = DPLogisticRegression(epsilon=np.inf, C=1.0, random_state=0).fit(X, y)
    assert clf.noise_std_ == 0.0 and math.isinf(clf.privacy_.epsilon)
    assert clf.strong_convexity_ == pytest.approx(1.0 / len(y))


def test_more_budget_gives_better_models(binary_data):
    """Statistical: eps=inf with defaults is as good as sklearn; eps=0.01 is far worse.

    On separable-ish data (sklearn: .9+), with n=400 and 6 parameters, eps=0.01 noise
    (sigma about 60x the gradient scale) leaves the mean over 10 seeds near chance; the
    required gap (> .1) is many times the seed-to-seed standard error (about .02).
    """
    X, y = make_classification(n_samples=400, n_features=5, n_informative=3, class_sep=3.0, random_state=0)
    X = _unit_rows(X)
    reference = LogisticRegression().fit(X, y).score(X, y)
    low = np.mean([DPLogisticRegression(epsilon=0.01, random_state=s).fit(X, y).score(X, y) for s in range(10)])
    high = DPLogisticRegression(epsilon=np.inf).fit(X, y).score(X, y)
    assert high >= reference - 0.02 and high - low > 0.1, (reference, high, low)


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": 0.01}, r"1/n_samples"),
        ({"data_norm": 0.0}, "data_norm"),
        ({"data_norm": -1.0}, "data_norm"),
        ({"C": 0.0}, "C"),
        ({"max_iter": 0}, "max_iter"),
        ({"learning_rate": 100.0}, "learning_rate"),
    ],
)
def test_bad_parameters_raise_clear_errors(binary_data, params, match):
    X, y = binary_data
    with warnings.catch_warnings():  # the error alone: no floating-point warning before it
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=match):
            DPLogisticRegression(**params).fit(X, y)


def test_bad_data_raises_clear_errors(binary_data):
    X, y = binary_data
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DPLogisticRegression().fit(X_nan, y)
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DPLogisticRegression().fit(X_inf, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        DPLogisticRegression().fit(X, y[:-1])
    with pytest.raises(ValueError, match="2D array"):
        DPLogisticRegression().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="minimum of 2"):
        DPLogisticRegression().fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        DPLogisticRegression().fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="Unknown label type"):
        DPLogisticRegression().fit(X, np.linspace(0, 1, len(y)))
    with pytest.raises(ValueError):
        DPLogisticRegression().fit(np.array([["a", "b"]] * 10), np.arange(10) % 2)
    y_nan = np.linspace(-1, 1, len(y))
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DPRidge(y_bound=1.0).fit(X, y_nan)


@pytest.mark.parametrize(
    "estimator, n_classes",
    [
        (DPLogisticRegression(epsilon=0.7), 2),
        (DPLogisticRegression(epsilon=0.7, solver="cyclic"), 3),
        (DPRidge(epsilon=2.0, alpha=1.0, max_iter=50, y_bound=1.0), None),
    ],
)
def test_plan_privacy_is_the_report_of_the_fit(estimator, n_classes):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6)) / 3
    y = rng.integers(0, n_classes, size=400) if n_classes else np.tanh(X[:, 0])
    planned = estimator.plan_privacy(400, 6, n_classes)
    fitted = estimator.fit(X, y).privacy_
    assert type(planned) is type(fitted)  # the same accountant's report
    fields = ("mu", "epsilon", "delta", "noise_std", "n_steps", "learning_rate",
              "strong_convexity", "accountant", "batch_size")  # batch_size: cyclic only
    if planned.accountant == "gram_then_run":  # the run is chosen on the released Gram:
        fields = ("mu", "epsilon", "delta", "accountant", "gram_noise_std", "gram_mu",
                  "run_mu", "candidates")  # the guarantee is planned, the run's fields not
    for field in fields:
        assert getattr(planned, field, None) == getattr(fitted, field, None), field
    with pytest.raises(ValueError, match="n_classes"):
        DPLogisticRegression().plan_privacy(100, 3)
