"""DPPipeline / make_dp_pipeline: one budget, one charge, one composed report.

The private step used here is written for the tests (``_NoisyCentrer``): it follows the
private-step protocol of ``skdpgd.accounting._release`` with a mechanism simple enough to
check by hand (noisy column means of rows clipped to a public box), so the pipeline is
tested independently of the table vectorizer; the vectorizer is exercised at the end.
"""

import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgd import (
    DPLogisticRegression,
    DPPipeline,
    DPRidge,
    PrivacyLedger,
    make_dp_pipeline,
)
from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon
from skdpgd.accounting._composition import Cap, compose
from skdpgd.accounting._events import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    UnsupportedEventError,
    event_from_dict,
    event_to_dict,
)
from skdpgd.accounting._record_account import RecordAccount
from skdpgd.accounting._release import ReleasePrivacyReport
from skdpgd.exceptions import PreparationFallbackWarning, PrivacyBudgetExceeded
from skdpgd.model_selection import DPSearchCV, search_privacy_cost
from skdpgd.pipeline import EXTRA_DELTA_SHARE, PREPARATION_SHARE, split_budget
from skdpgd.pipeline._constant_fallback import CONSTANT_CHECK
from skdpgd.pipeline._target import release_target_range
from skdpgd.preprocessing import BoundedScaler


class _NoisyCentrer(TransformerMixin, BaseEstimator):
    """Rows clipped to the public box [-bound, bound]^d, centred by Gaussian-noised means.

    Replacing one record moves each clipped column mean by at most 2 bound / n, so the
    mean vector has L2 sensitivity 2 bound sqrt(d) / n and noise of that over mu makes it
    mu-GDP (Dong, Roth and Su 2022, Theorem 2.7). Centred entries lie in [-2 bound,
    2 bound]; dividing by 2 bound sqrt(d) gives rows of norm <= 1 (``row_norm_bound_``).
    With ``thresholds=True`` it pretends to threshold: it claims the whole additive delta
    it is given (to test how the pipeline composes additive deltas).
    """

    __skdpgd_private_fit__ = True
    calls = 0  # class-level counter: how many times a value was read (_fit_private)

    def __init__(self, bound=1.0, thresholds=False):
        self.bound = bound
        self.thresholds = thresholds

    def _privacy_plan(self, X):
        return 1, int(self.thresholds)

    def _fit_private(self, X, y=None, *, mu, extra_delta, random_state):
        type(self).calls += 1
        X = np.clip(np.asarray(X, dtype=float), -self.bound, self.bound)
        n, d = X.shape
        sigma = 2 * self.bound * math.sqrt(d) / n / mu if mu > 0 else np.inf
        rng = np.random.default_rng(random_state)
        noise = np.zeros(d) if sigma == 0 else rng.normal(0, sigma, d)
        self.mean_ = X.mean(axis=0) + noise if np.isfinite(sigma) else np.zeros(d)
        self.scale_ = 2 * self.bound * math.sqrt(d)
        self.row_norm_bound_ = 1.0
        self.privacy_ = ReleasePrivacyReport(
            mu=float(mu), extra_delta=float(extra_delta) if self.thresholds else 0.0,
            mechanism="noisy clipped means (test step)")
        return self

    def fit(self, X, y=None):
        return self._fit_private(X, y, mu=1.0, extra_delta=0.0, random_state=None)

    def transform(self, X):
        X = np.clip(np.asarray(X, dtype=float), -self.bound, self.bound)
        return (X - self.mean_) / self.scale_


class _Ledger:
    """Records charges; refuses every charge once ``budget`` charges are spent."""

    def __init__(self, budget):
        self.budget, self.calls = budget, []

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        if len(self.calls) >= self.budget:
            raise RuntimeError("budget exhausted")
        self.calls.append((report, n_samples, sample_ids))


def _classification(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def _pipe(thresholds=False, epsilon=1.0, **kw):
    return make_dp_pipeline(_NoisyCentrer(bound=3.0, thresholds=thresholds),
                            DPLogisticRegression(classes=[0, 1], max_iter=20),
                            epsilon=epsilon, delta=1e-5, random_state=0, **kw)


# -- the budget rule and the composed report ---------------------------------------------

@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("thresholds", [False, True])
def test_budget_split_follows_the_documented_rule(epsilon, thresholds):
    delta = 1e-5
    budget = split_budget(epsilon, delta, [thresholds, False])
    extra = EXTRA_DELTA_SHARE * delta if thresholds else 0.0
    mu = epsilon_delta_to_gdp(epsilon, delta - extra)
    assert budget.extra_delta == pytest.approx(extra, rel=1e-12, abs=0)
    assert budget.mu == pytest.approx(mu, rel=1e-8) and budget.mu <= mu
    assert gdp_to_epsilon(budget.mu, delta - extra) <= epsilon
    # each of the two releases gets rho/2 of mu^2, the estimator 1 - rho
    for step_mu in budget.step_mu:
        assert step_mu ** 2 == pytest.approx(PREPARATION_SHARE / 2 * mu ** 2, rel=1e-8)
    # (both rounded down by 1e-9 relative, the documented safety margin)
    assert budget.estimator_mu ** 2 == pytest.approx((1 - PREPARATION_SHARE) * mu ** 2,
                                                     rel=1e-8)
    assert budget.step_extra_delta == ((extra, 0.0) if thresholds else (0.0, 0.0))
    # the estimator's calibration target implies at most its mu
    assert epsilon_delta_to_gdp(budget.estimator_epsilon, budget.estimator_delta) <= (
        budget.estimator_mu)


def test_no_private_step_gives_the_estimator_everything():
    budget = split_budget(1.0, 1e-5, [])
    assert budget.extra_delta == 0.0 and budget.step_mu == ()
    assert budget.estimator_mu == pytest.approx(epsilon_delta_to_gdp(1.0, 1e-5), rel=1e-8)


@pytest.mark.parametrize("epsilon", [0.3, 2.0])
@pytest.mark.parametrize("thresholds", [False, True])
def test_composed_report_is_exact_and_within_the_budget(epsilon, thresholds):
    X, y = _classification()
    pipe = _pipe(thresholds, epsilon).fit(X, y)
    report = pipe.privacy_
    mus = [r.mu for _, r in report.steps]
    extras = [getattr(r, "extra_delta", 0.0) for _, r in report.steps]
    mu = math.sqrt(sum(m * m for m in mus))
    assert [name for name, _ in report.steps] == ["_noisycentrer", "dplogisticregression",
                                                  CONSTANT_CHECK]
    assert report.mu == pytest.approx(mu, rel=1e-12)
    # the fit and the constant check share the estimator's allowance (Corollary 3.3)
    assert mus[1] ** 2 + mus[2] ** 2 <= pipe.budget_.estimator_mu ** 2
    assert mus[2] ** 2 / pipe.budget_.estimator_mu ** 2 == pytest.approx(
        pipe.constant_check_.share, rel=1e-9)
    assert report.extra_delta == pytest.approx(sum(extras), rel=1e-12)
    assert report.epsilon == pytest.approx(gdp_to_epsilon(mu, 1e-5 - sum(extras)), rel=1e-9)
    assert report.epsilon <= epsilon
    # the preparation got its public share of mu^2 (the step spends all it is given)
    assert mus[0] ** 2 / (mus[0] ** 2 + (pipe.budget_.estimator_mu) ** 2) == pytest.approx(
        PREPARATION_SHARE, rel=1e-9)
    # spent never exceeds planned
    planned = pipe.plan_privacy(X.shape[0], X.shape[1], X=X)  # the fit's charge
    assert planned.planned and not report.planned
    assert report.mu <= planned.mu * (1 + 1e-12) and report.extra_delta <= planned.extra_delta
    assert planned.epsilon <= epsilon
    # without X the plan bounds every fit in both coordinates (it may exceed the target)
    blind = pipe.plan_privacy(X.shape[0], X.shape[1])
    assert report.mu <= blind.mu * (1 + 1e-12) and report.extra_delta <= blind.extra_delta
    # the estimator's own report carries the mu it was calibrated to, at most its share
    assert mus[1] <= pipe.budget_.estimator_mu
    # epsilon_at / delta_at are the curve at delta - extra
    assert report.epsilon_at(1e-6 + report.extra_delta) == pytest.approx(
        gdp_to_epsilon(mu, 1e-6), rel=1e-9)
    assert report.delta_at(report.epsilon) == pytest.approx(1e-5, rel=1e-6)
    event = report.event
    assert isinstance(event, GaussianDpWithDeltaEvent if thresholds else GaussianDpEvent)
    as_dict = report.to_dict()
    assert as_dict["mu"] == report.mu and len(as_dict["steps"]) == 3
    # the plan charges the estimator's allowance, the check inside it
    assert [name for name, _ in planned.steps] == [name for name, _ in report.steps][:2]
    assert planned.steps[1][1].mu == pipe.budget_.estimator_mu
    assert "PipelinePrivacyReport" in repr(report)


def test_fit_does_not_change_the_users_steps():
    X, y = _classification()
    pipe = _pipe()
    before = {k: repr(v) for k, v in pipe.get_params(deep=True).items()}
    pipe.fit(X, y)
    after = {k: repr(v) for k, v in pipe.get_params(deep=True).items()}
    assert before == after
    assert not hasattr(pipe.steps[0][1], "mean_") and not hasattr(pipe.steps[-1][1], "coef_")
    fitted = pipe.pipeline_.steps[-1][1]
    assert fitted.epsilon == fitted.privacy_.epsilon <= pipe.budget_.estimator_epsilon
    assert fitted.data_norm == 1.0  # the test step's row_norm_bound_
    # without the constant check the clone is calibrated to the estimator's whole share
    alone = _pipe(constant_check=False).fit(X, y).pipeline_.steps[-1][1]
    assert alone.epsilon == pytest.approx(pipe.budget_.estimator_epsilon)


# -- the ledger: one planned charge before any value is read -------------------------------

def test_charge_happens_before_any_value_is_read():
    X, y = _classification()
    nan = X.copy()
    nan[3, 1] = np.nan
    messages = []
    _NoisyCentrer.calls = 0
    for data in (X, nan, X.astype(str)):
        with pytest.raises(RuntimeError, match="budget exhausted") as info:
            _pipe(ledger=_Ledger(0)).fit(data, y)
        messages.append(str(info.value))
    assert len(set(messages)) == 1
    assert _NoisyCentrer.calls == 0  # the private step never ran


def test_ledger_is_charged_once_with_the_planned_cost():
    X, y = _classification()
    ledger = PrivacyLedger()
    pipe = _pipe(thresholds=True, ledger=ledger).fit(X, y, sample_ids=np.arange(len(y)))
    (entry,) = ledger.entries
    planned = pipe.plan_privacy(*X.shape)
    assert entry.event == planned.event
    spent = ledger.spent(1e-5)
    assert spent.epsilon == pytest.approx(planned.epsilon, rel=1e-9)
    assert spent.epsilon <= 1.0
    assert pipe.pipeline_.steps[-1][1].ledger is None  # inner clones get no ledger


def test_capped_ledger_refuses_a_second_pipeline_fit():
    X, y = _classification()
    ledger = PrivacyLedger(epsilon=1.2, delta=1e-5)
    _pipe(thresholds=True, ledger=ledger).fit(X, y)
    with pytest.raises(PrivacyBudgetExceeded):
        _pipe(thresholds=True, ledger=ledger).fit(X, y)
    assert len(ledger.entries) == 1


def test_file_ledger_stores_the_new_event(tmp_path):
    X, y = _classification()
    path = tmp_path / "budget.sqlite"
    _pipe(thresholds=True, ledger=PrivacyLedger(path=path)).fit(X, y)
    (entry,) = PrivacyLedger(path=path).entries
    assert isinstance(entry.event, GaussianDpWithDeltaEvent)
    assert entry.event.extra_delta == pytest.approx(EXTRA_DELTA_SHARE * 1e-5)


# -- composition of the new event ------------------------------------------------------------

def test_event_round_trips_through_its_dict():
    event = GaussianDpWithDeltaEvent(0.7, 3e-7)
    assert event_from_dict(event_to_dict(event)) == event
    with pytest.raises(ValueError):
        GaussianDpWithDeltaEvent(0.5, 1.0)


def test_composition_adds_deltas_and_mu_squares():
    events = [GaussianDpWithDeltaEvent(0.3, 1e-7), GaussianDpEvent(0.4),
              GaussianDpWithDeltaEvent(0.2, 2e-7)]
    comp = compose(events, 1e-5)
    mu = math.sqrt(0.3 ** 2 + 0.4 ** 2 + 0.2 ** 2)
    assert comp.extra_delta == pytest.approx(3e-7)
    assert comp.epsilon == pytest.approx(gdp_to_epsilon(mu, 1e-5 - 3e-7), rel=1e-12)
    assert comp.mu is None  # not a pure GDP guarantee
    assert compose([GaussianDpWithDeltaEvent(0.3, 2e-5)], 1e-5).epsilon == math.inf


def test_record_account_finds_the_worst_record_with_deltas():
    # record 0: mu 0.5 with additive delta 9e-6; record 1: mu 0.55 without. At delta 1e-5
    # record 0 is worse (its GDP part is left 1e-6), at delta 1e-2 record 1 (larger mu)
    account = RecordAccount()
    account = account.add(GaussianDpWithDeltaEvent(0.5, 9e-6), np.array([0]))
    account = account.add(GaussianDpEvent(0.55), np.array([1]))
    assert gdp_to_epsilon(0.5, 1e-6) > gdp_to_epsilon(0.55, 1e-5)
    assert gdp_to_epsilon(0.5, 1e-2 - 9e-6) < gdp_to_epsilon(0.55, 1e-2)
    for delta in (1e-5, 1e-2):
        expected = max(gdp_to_epsilon(0.5, delta - 9e-6), gdp_to_epsilon(0.55, delta))
        assert account.worst(delta).epsilon == pytest.approx(expected, rel=1e-12)
    # a charge to every record adds to both
    both = account.add(GaussianDpWithDeltaEvent(0.1, 5e-7))
    expected = max(gdp_to_epsilon(math.sqrt(0.26), 1e-5 - 9.5e-6),
                   gdp_to_epsilon(math.sqrt(0.55 ** 2 + 0.01), 1e-5 - 5e-7))
    assert both.worst(1e-5).epsilon == pytest.approx(expected, rel=1e-12)
    cap = Cap(gdp_to_epsilon(0.5, 1e-6) * 0.999, 1e-5)
    assert not cap.admits(account.worst(1e-5))
    assert Cap(gdp_to_epsilon(0.5, 1e-6) * 1.001, 1e-5).admits(account.worst(1e-5))
    with pytest.raises(ValueError, match="additive delta"):
        account.mu_per_record([0])


# -- scikit-learn compatibility ---------------------------------------------------------------

def test_clone_and_pickle():
    X, y = _classification()
    pipe = _pipe(thresholds=True)
    cloned = clone(pipe)
    assert cloned.get_params(deep=False).keys() == pipe.get_params(deep=False).keys()
    assert cloned.steps[0][1] is not pipe.steps[0][1]
    pipe.fit(X, y)
    restored = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(restored.predict(X), pipe.predict(X))
    assert restored.privacy_.epsilon == pipe.privacy_.epsilon
    # same seed, same release
    np.testing.assert_array_equal(clone(pipe).fit(X, y).decision_function(X),
                                  pipe.decision_function(X))


def test_grid_search_over_a_step_parameter_and_over_epsilon_is_priced_exactly():
    X, y = _classification(n=900)
    cv = KFold(3, shuffle=True, random_state=0)
    grid = {"dplogisticregression__C": [0.1, 1.0], "epsilon": [0.5, 2.0]}
    search = GridSearchCV(_pipe(thresholds=True), grid, cv=cv).fit(X, y)
    assert {p["epsilon"] for p in search.cv_results_["params"]} == {0.5, 2.0}
    cost = search_privacy_cost(search)
    assert cost.n_fits == 4 * 3 + 1 and cost.per_record == "exact"
    # every record is in 2 of the 3 training folds of each of the 4 candidates, plus the
    # refit; each fit is planned at its (epsilon, delta=1e-5) with the rule's split
    mu2, extra = 0.0, 0.0
    for params in search.cv_results_["params"]:
        b = split_budget(params["epsilon"], 1e-5, [True])
        mu2 += 2 * b.mu ** 2
        extra += 2 * b.extra_delta
    refit = search.best_estimator_.privacy_
    mu2 += refit.mu ** 2
    extra += refit.extra_delta
    assert cost.epsilon == pytest.approx(gdp_to_epsilon(math.sqrt(mu2), 1e-5 - extra),
                                         rel=1e-6)
    assert search.best_estimator_.pipeline_ is not None


def test_dpsearchcv_runs_a_pipeline_without_thresholding():
    X, y = _classification(n=800)
    search = DPSearchCV(_pipe(), {"dplogisticregression__C": [0.1, 1.0]}, epsilon=2.0,
                        expected_trials=3, random_state=0).fit(X, y)
    assert search.privacy_.epsilon <= 2.0
    best = search.best_estimator_
    assert isinstance(best, DPPipeline) and hasattr(best, "privacy_")
    assert best.privacy_.mu <= search.privacy_.trial_mu * (1 + 1e-9)
    assert search.predict(X).shape == y.shape


def test_dpsearchcv_releases_a_thresholding_preparation_once_outside_the_selection():
    # released once, outside the trials: an additive delta inside a trial would break the
    # Renyi bound of the selection (on 400 rows a search pays only at a large epsilon;
    # below, it is the pipeline's own fit)
    X, y = _classification(n=400)
    search = DPSearchCV(_pipe(thresholds=True), {"dplogisticregression__C": [1.0]},
                        epsilon=200.0, random_state=0).fit(X, y)
    report = search.privacy_
    assert report.epsilon <= 200.0 and report.preparation_steps == ("_noisycentrer",)
    assert report.preparation_extra_delta == pytest.approx(EXTRA_DELTA_SHARE * report.delta)
    with pytest.raises(UnsupportedEventError, match="two events"):
        _ = report.event  # an additive delta: the ledger gets report.events


# -- refusals (parameters only: before any value is read) ------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: make_dp_pipeline(StandardScaler(), DPLogisticRegression(classes=[0, 1])),
     "neither a private step"),
    (lambda: make_dp_pipeline(DPLogisticRegression(classes=[0, 1], solver="sgd")), "sgd"),
    (lambda: make_dp_pipeline(DPLogisticRegression(classes=[0, 1], ledger=PrivacyLedger())),
     "Give the ledger to the DPPipeline"),
    (lambda: make_dp_pipeline(BoundedScaler((0, 1))), "ends in an skdpgd estimator"),
    (lambda: make_dp_pipeline(DPRidge()), "needs y_bound"),
])
def test_parameter_problems_are_refused_before_the_charge(make, match):
    X, y = _classification()
    ledger = _Ledger(5)
    with pytest.raises((TypeError, ValueError), match=match):
        make().set_params(ledger=ledger).fit(X, y)
    assert ledger.calls == []


# -- DPRidge(y_bound="auto") ------------------------------------------------------------------

def _regression(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 50.0 + 4.0 * X[:, 0] - 2.0 * X[:, 1] + rng.normal(0, 0.5, n)
    return X, y


def test_y_bound_auto_is_refused_standalone_before_the_charge():
    X, y = _regression(n=50)
    ledger = _Ledger(5)
    with pytest.raises(ValueError, match="only inside a DP pipeline"):
        DPRidge(y_bound="auto", ledger=ledger).fit(X, y)
    assert ledger.calls == []


def test_y_bound_auto_releases_a_private_range_and_predicts_on_the_scale_of_y():
    X, y = _regression()
    pipe = make_dp_pipeline(_NoisyCentrer(bound=4.0), DPRidge(y_bound="auto"), epsilon=np.inf,
                            random_state=0).fit(X, y)
    low, high = pipe.target_range_
    # without noise the range spans the public grid cells [2^(k/2), 2^((k+1)/2)) that hold
    # the smallest and the largest y (all y > 1 here)
    k_low, k_high = math.floor(2 * math.log2(y.min())), math.floor(2 * math.log2(y.max()))
    assert low == pytest.approx(2 ** (k_low / 2)) and high == pytest.approx(2 ** ((k_high + 1) / 2))
    assert pipe.score(X, y) > 0.95  # the target was scaled and mapped back
    names = [name for name, _ in pipe.privacy_.steps]
    assert names == ["_noisycentrer", "target range (y_bound='auto')", "dpridge"]


def test_a_heavy_topped_count_target_keeps_its_mean_in_the_released_range():
    # a visit count (39% zeros, mean 2.8, up to 67) at the target range's mu in a pipeline at
    # epsilon 0.1 on 14,000 rows: the single-release reading cut its top (clipped mean 0.12
    # standard deviations below the mean, median of 20 draws; 0.195 at worst), a bias the
    # model fits; the column reading (two releases, tails, windows): at most 0.07
    worst = 0.0
    for seed in range(20):
        y = np.random.default_rng(seed).negative_binomial(0.5, 0.15, 14000)
        low, high, _, report = release_target_range(y, mu=0.007, random_state=100 + seed)
        worst = max(worst, (y.mean() - np.clip(y, low, high).mean()) / y.std())
        assert math.fsum(part ** 2 for _, part in report.releases) <= 0.007 ** 2
    assert worst < 0.1


def test_a_target_range_that_passes_the_threshold_warns_nothing():
    # the fallback warns (test_y_bound_auto_falls_back_...); a range found does not
    X, y = _regression()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PreparationFallbackWarning)
        make_dp_pipeline(_NoisyCentrer(bound=4.0), DPRidge(y_bound="auto"), epsilon=1.0,
                         random_state=0).fit(X, y)


def test_y_bound_auto_composes_three_releases():
    X, y = _regression()
    pipe = make_dp_pipeline(_NoisyCentrer(bound=4.0), DPRidge(y_bound="auto"), epsilon=1.0,
                            delta=1e-5, random_state=0).fit(X, y)
    mus = [r.mu for _, r in pipe.privacy_.steps]
    mu = epsilon_delta_to_gdp(1.0, 1e-5)
    # the two preparation releases share rho of mu^2 equally
    assert mus[0] ** 2 == pytest.approx(PREPARATION_SHARE / 2 * mu ** 2, rel=1e-8)
    assert mus[1] ** 2 == pytest.approx(PREPARATION_SHARE / 2 * mu ** 2, rel=1e-8)
    assert pipe.privacy_.epsilon <= 1.0
    assert pipe.score(X, y) > 0.8  # n = 3000 at epsilon 1: a weak, not a tight, floor


# -- scikit-learn's estimator checks ----------------------------------------------------------

_NOISE = "noise at epsilon=1 on the check's 200 rows (alpha='auto') defeats its R^2 > 0.5"


@parametrize_with_checks(
    [DPPipeline([("dplogisticregression", DPLogisticRegression())]),
     DPPipeline([("dpridge", DPRidge(y_bound=1.0))])],
    expected_failed_checks=lambda est: (
        {"check_regressors_train": _NOISE} if isinstance(est.steps[-1][1], DPRidge) else {}),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_regressor_check_passes_without_noise():
    # the one expected failure above is the noise: the same check passes at epsilon=inf
    from sklearn.utils.estimator_checks import check_regressors_train

    check_regressors_train("DPPipeline", DPPipeline([("dpridge", DPRidge(y_bound=1.0))],
                                                    epsilon=np.inf))


# -- with the table vectorizer ----------------------------------------------------------------

def _table(n=2000, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    city = rng.choice(["north", "south", "east"], n)
    income = np.exp(rng.normal(10, 1, n))
    logit = (age - 50) / 15 + (city == "north") - 0.5
    y = (logit + rng.logistic(size=n) > 0).astype(int)
    return pd.DataFrame({"age": age, "city": city, "income": income}), y


def _vectorizer():
    import skdpgd.preprocessing as pre

    if not hasattr(pre, "DPTableVectorizer"):
        pytest.skip("DPTableVectorizer is not available")
    return pre.DPTableVectorizer()


def test_raw_table_pipeline_composes_the_vectorizer_and_the_estimator():
    X, y = _table()
    vec = _vectorizer()
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(vec, DPLogisticRegression(classes=[0, 1]), epsilon=1.0,
                            delta=1e-5, ledger=ledger, random_state=0).fit(X, y)
    report = pipe.privacy_
    (name, step_report), (_, est_report), (check, check_report) = report.steps
    assert name == "dptablevectorizer" and check == CONSTANT_CHECK
    assert report.mu == pytest.approx(math.hypot(step_report.mu, est_report.mu,
                                                 check_report.mu), rel=1e-12)
    assert report.extra_delta == step_report.extra_delta > 0  # "city" is discovered
    assert report.epsilon == pytest.approx(
        gdp_to_epsilon(report.mu, 1e-5 - report.extra_delta), rel=1e-9)
    assert report.epsilon <= 1.0
    assert ledger.spent(1e-5).epsilon <= 1.0
    fitted_vec, fitted_est = pipe.pipeline_.steps[0][1], pipe.pipeline_.steps[-1][1]
    assert fitted_est.data_norm == fitted_vec.row_norm_bound_
    assert pipe.score(X, y) > 0.6  # n = 2000 at epsilon 1: far above the 0.5 of chance
    restored = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(restored.predict(X), pipe.predict(X))


def test_grid_search_over_epsilon_on_a_raw_table():
    X, y = _table(n=1500)
    pipe = make_dp_pipeline(_vectorizer(), DPLogisticRegression(classes=[0, 1]), delta=1e-5,
                            random_state=0)
    search = GridSearchCV(pipe, {"epsilon": [0.5, 2.0]},
                          cv=KFold(2, shuffle=True, random_state=0)).fit(X, y)
    cost = search_privacy_cost(search)
    assert cost.n_fits == 2 * 2 + 1
    # planned without the table's structure, each candidate is charged its allowances,
    # the additive delta included (the vectorizer may threshold)
    assert cost.epsilon > 2.0


def test_dpsearchcv_runs_a_raw_table_pipeline_whose_categories_are_hashed():
    import skdpgd.preprocessing as pre

    if not hasattr(pre, "DPTableVectorizer"):
        pytest.skip("DPTableVectorizer is not available")
    X, y = _table(n=1500)
    pipe = make_dp_pipeline(pre.DPTableVectorizer(categorical="hash"),
                            DPLogisticRegression(classes=[0, 1]))
    # planned from the table's structure: hashing never thresholds, so no additive delta
    assert pipe.plan_privacy(1000, X=X).extra_delta == 0.0
    search = DPSearchCV(pipe, {"dplogisticregression__C": [0.1, 1.0]}, epsilon=2.0,
                        expected_trials=3, random_state=0).fit(X, y)
    assert search.privacy_.epsilon <= 2.0
    assert search.best_estimator_.privacy_.extra_delta == 0.0
    assert search.best_estimator_.privacy_.mu <= search.privacy_.trial_mu * (1 + 1e-9)
    assert search.predict(X).shape == y.shape


def test_dpsearchcv_refuses_y_bound_auto_before_the_charge():
    X, y = _regression(n=300)
    ledger = _Ledger(5)
    with pytest.raises(ValueError, match="public bound on"):
        DPSearchCV(make_dp_pipeline(DPRidge(y_bound="auto")), {"dpridge__alpha": [1.0]},
                   ledger=ledger, random_state=0).fit(X, y)
    assert ledger.calls == []


def test_metadata_routing_passes_sample_ids_to_the_pipelines_ledger():
    import sklearn

    X, y = _classification(n=600)
    ledger = PrivacyLedger()
    search = GridSearchCV(_pipe(ledger=ledger), {"dplogisticregression__C": [1.0]},
                          cv=KFold(3, shuffle=True, random_state=0))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, sample_ids=np.arange(len(y)))
    entries = ledger.entries
    assert len(entries) == 3 + 1  # three folds and the refit, each charged once
    assert [e.rows for e in entries] == [400, 400, 400, 600]
    # every record is in two training folds and the refit: three equal pipeline charges
    assert len({e.event for e in entries}) == 1
    assert ledger.spent(1e-5).epsilon == pytest.approx(
        gdp_to_epsilon(math.sqrt(3) * entries[0].event.mu, 1e-5), rel=1e-9)


def test_y_bound_auto_falls_back_to_the_public_default_without_an_error():
    # 40 rows at epsilon 0.05: the histogram's noise (sigma = sqrt(2)/mu, mu ~ 0.002 for
    # the range) is far above any count, so no cell passes the threshold
    X, y = _regression(n=40)
    with pytest.warns(PreparationFallbackWarning, match="y_bound"):  # and says so
        pipe = make_dp_pipeline(DPRidge(y_bound="auto"), epsilon=0.05, delta=1e-3,
                                random_state=0).fit(X, y)
    assert pipe.target_range_ == (-1.0, 1.0)
    # DPRidge: no constant check by default; the mean correction after the fit
    (_, target_report), _, (correction, _) = pipe.privacy_.steps
    assert correction.startswith("mean correction")
    assert any("public default" in note for note in target_report.notes)
    assert pipe.privacy_.epsilon <= 0.05


# -- class_weight="balanced": weights from released class counts ------------------------------

def test_balanced_class_weight_comes_from_released_counts():
    from sklearn.utils.class_weight import compute_class_weight

    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 3))
    y = (X[:, 0] > 1.0).astype(int)  # about 16% positives
    # without noise the released counts are exact: scikit-learn's balanced weights
    exact = make_dp_pipeline(DPLogisticRegression(classes=[0, 1], class_weight="balanced"),
                             epsilon=np.inf, random_state=0).fit(X, y)
    expected = compute_class_weight("balanced", classes=np.array([0, 1]), y=y)
    assert exact.class_weight_ == pytest.approx(dict(zip([0, 1], expected, strict=True)), rel=1e-12)
    assert exact.pipeline_[-1].class_weight == exact.class_weight_
    # with noise: one more release in the composition, within the budget
    pipe = make_dp_pipeline(DPLogisticRegression(classes=[0, 1], class_weight="balanced"),
                            epsilon=1.0, delta=1e-5, random_state=0).fit(X, y)
    names = [name for name, _ in pipe.privacy_.steps]
    assert names == ["class counts (class_weight='balanced')", "dplogisticregression"]
    mus = [r.mu for _, r in pipe.privacy_.steps]
    assert mus[0] ** 2 == pytest.approx(PREPARATION_SHARE * pipe.privacy_.mu ** 2, rel=1e-6)
    assert pipe.privacy_.epsilon <= 1.0
    # n = 2000 and mu ~ 0.085 for the counts: noise std ~ 17 on counts of ~320 and ~1680
    assert pipe.class_weight_[1] == pytest.approx(expected[1], rel=0.25)


def test_balanced_class_weight_needs_the_public_label_set():
    X, y = _classification()
    ledger = _Ledger(5)
    with pytest.raises(ValueError, match="public label set"):
        make_dp_pipeline(DPLogisticRegression(class_weight="balanced"), ledger=ledger).fit(X, y)
    assert ledger.calls == []


class _Spy(_NoisyCentrer):
    """Records the structure each _privacy_plan call was given."""

    seen = []

    def _privacy_plan(self, X):
        type(self).seen.append(None if X is None else type(X).__name__)
        return 1, 0


def test_only_the_first_step_plans_from_the_tables_structure():
    X, y = _classification()
    _Spy.seen = []
    pipe = make_dp_pipeline(_Spy(bound=3.0), BoundedScaler((-1, 1)), _Spy(bound=3.0),
                            DPLogisticRegression(classes=[0, 1]), random_state=0)
    pipe.fit(X, y)
    # the first sees X; the second sees what the first hands on, unknown before the charge
    # (the plan without X, asked for the budget rule's reserve, shows each step None)
    assert _Spy.seen[:2] == ["ndarray", None]
    assert _Spy.seen.count("ndarray") == 1
    assert [name for name, _ in pipe.privacy_.steps] == ["_spy-1", "_spy-2",
                                                         "dplogisticregression",
                                                         CONSTANT_CHECK]
    assert pipe.privacy_.epsilon <= 1.0


def test_adversarial_targets_are_clipped_silently_or_refused_after_the_charge():
    import warnings

    X, y = _regression(n=500)
    huge = y.copy()
    huge[[3, 7]] = [1.797e308, -1.797e308]  # finite, extreme: clipped, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pipe = make_dp_pipeline(DPRidge(y_bound="auto"), epsilon=1.0, delta=1e-4,
                                random_state=0).fit(X, huge)
    assert np.all(np.isfinite(pipe.predict(X)))
    bad = y.copy()
    bad[5] = np.nan
    ledger = _Ledger(5)
    with pytest.raises(ValueError, match="NaN or infinity") as info:
        make_dp_pipeline(DPRidge(y_bound="auto"), ledger=ledger).fit(X, bad)
    assert len(ledger.calls) == 1  # refused after the charge, naming no row or value
    assert "5" not in str(info.value)
