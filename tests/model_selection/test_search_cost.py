"""search_privacy_cost: exact cost of a fitted search's fits; refusals of unsafe splits."""

import math

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    RandomizedSearchCV,
    ShuffleSplit,
    StratifiedKFold,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, accounting
from skdpgd.model_selection import NOT_COVERED, search_privacy_cost
from skdpgd.preprocessing import BoundedScaler, RowNormClipper, public_one_hot


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4)) / 3.0
    y = (X[:, 0] + 0.3 * rng.normal(size=240) > 0).astype(int)
    return X, y


def _clf(**kw):
    params = dict(epsilon=1.0, max_iter=30, classes=[0, 1], random_state=0)
    params.update(kw)
    return DPLogisticRegression(**params)


def _fit_mu(estimator, X, y):
    """mu of a real fit on these rows (independent of the probe the function uses)."""
    return estimator.fit(X, y).privacy_.mu


def test_grid_search_cost_is_exact_per_record(data):
    X, y = data
    grid = {"C": [0.5, 2.0], "epsilon": [0.5, 1.0]}
    search = GridSearchCV(_clf(), grid, cv=KFold(3)).fit(X, y)
    cost = search_privacy_cost(search)
    # hand count: KFold(3) on 240 rows puts every row in 2 training folds of 160 rows
    fold_mu2 = sum(_fit_mu(_clf(**p), X[:160], y[:160]) ** 2
                   for p in search.cv_results_["params"])
    refit_mu = search.best_estimator_.privacy_.mu
    expected = math.sqrt(2 * fold_mu2 + refit_mu ** 2)
    assert cost.mu == pytest.approx(expected, rel=1e-9)
    assert cost.n_fits == 4 * 3 + 1 and cost.refit and cost.per_record == "exact"
    assert accounting.gdp_to_delta(expected, cost.epsilon) == pytest.approx(cost.delta, rel=1e-6)
    assert "selection" in cost.not_covered and cost.not_covered == NOT_COVERED


def test_matches_a_ledger_that_watched_the_search(data):
    X, y = data
    ledger = PrivacyLedger()
    search = RandomizedSearchCV(_clf(ledger=ledger), {"C": [0.3, 1.0, 3.0]}, n_iter=2,
                                cv=ShuffleSplit(3, test_size=0.25, random_state=1),
                                random_state=0)
    search.fit(X, y, sample_ids=np.arange(len(y)))
    cost = search_privacy_cost(search, delta=1e-5)
    assert cost.mu == pytest.approx(ledger.spent(1e-5).mu, rel=1e-9)
    assert cost.n_fits == len(ledger.entries) == 2 * 3 + 1


def test_unreproducible_shuffle_charges_every_fit_to_every_record(data):
    X, y = data
    search = GridSearchCV(_clf(), {"C": [0.5, 2.0]}, cv=KFold(3, shuffle=True)).fit(X, y)
    cost = search_privacy_cost(search)
    mus = [e.mu for e in cost.ledger.entries]
    assert cost.per_record == "every fit charged to every record"
    assert cost.mu == pytest.approx(math.sqrt(sum(m * m for m in mus)), rel=1e-12)


def test_no_refit_needs_n(data):
    X, y = data
    search = GridSearchCV(_clf(), {"C": [1.0]}, cv=KFold(2), refit=False).fit(X, y)
    with pytest.raises(ValueError, match="n_samples"):
        search_privacy_cost(search)
    cost = search_privacy_cost(search, n_samples=len(y), n_features=X.shape[1])
    assert cost.n_fits == 2 and not cost.refit
    assert cost.mu == pytest.approx(_fit_mu(_clf(), X[:120], y[:120]), rel=1e-9)


def test_explicit_list_of_folds(data):
    X, y = data
    folds = [(np.arange(0, 100), np.arange(100, 240)), (np.arange(50, 240), np.arange(50))]
    search = GridSearchCV(_clf(), {"C": [1.0]}, cv=folds).fit(X, y)
    cost = search_privacy_cost(search)
    # rows 50..99 are in both training sets, then the refit: three fits on them
    mus = [_fit_mu(_clf(), X[:100], y[:100]), _fit_mu(_clf(), X[50:], y[50:]),
           search.best_estimator_.privacy_.mu]
    assert cost.mu == pytest.approx(math.sqrt(sum(m * m for m in mus)), rel=1e-9)


def test_ridge_search(data):
    X, _ = data
    y = np.clip(X[:, 0], -1, 1)
    search = GridSearchCV(DPRidge(alpha=1.0, y_bound=1.0, max_iter=20, random_state=0),
                          {"alpha": [0.1, 1.0]}, cv=KFold(2)).fit(X, y)
    cost = search_privacy_cost(search)
    assert cost.n_fits == 2 * 2 + 1 and cost.mu > search.best_estimator_.privacy_.mu


def test_label_dependent_or_unsupported_searches_are_refused(data):
    X, y = data
    stratified = GridSearchCV(_clf(), {"C": [1.0]}, cv=3).fit(X, y)
    with pytest.raises(ValueError, match="StratifiedKFold"):
        search_privacy_cost(stratified)
    explicit = GridSearchCV(_clf(), {"C": [1.0]}, cv=StratifiedKFold(3)).fit(X, y)
    with pytest.raises(ValueError, match="stratified"):
        search_privacy_cost(explicit)
    pipe = GridSearchCV(make_pipeline(StandardScaler(), _clf()),
                        {"dplogisticregression__C": [1.0]}, cv=KFold(2)).fit(X, y)
    with pytest.raises(TypeError, match=r"standardscaler. is not public-bound"):
        search_privacy_cost(pipe)
    with pytest.raises(ValueError, match="not fitted, so it is priced from n and d"):
        search_privacy_cost(GridSearchCV(_clf(), {"C": [1.0]}))  # nothing to size it by


def test_pipeline_grid_cost_is_exact_per_record(data):
    X, y = data
    pipe = make_pipeline(BoundedScaler(bounds=(-2.0, 2.0)), RowNormClipper(1.0), _clf())
    grid = {"dplogisticregression__C": [0.5, 2.0], "dplogisticregression__epsilon": [0.5, 1.0]}
    search = GridSearchCV(pipe, grid, cv=KFold(3)).fit(X, y)
    cost = search_privacy_cost(search)
    # by hand: the scalers keep 4 columns; every row is in 2 training folds of 160 rows
    fold_mu2 = sum(_fit_mu(_clf(C=p["dplogisticregression__C"],
                                epsilon=p["dplogisticregression__epsilon"]),
                           X[:160], y[:160]) ** 2 for p in search.cv_results_["params"])
    expected = math.sqrt(2 * fold_mu2 + search.best_estimator_[-1].privacy_.mu ** 2)
    assert cost.mu == pytest.approx(expected, rel=1e-9)
    assert cost.n_fits == 4 * 3 + 1 and cost.per_record == "exact"


def test_candidates_that_change_public_preprocessing(data):
    """One-hot lists of different lengths: the estimator sees 2 + 3 or 2 + 4 columns."""
    rng = np.random.default_rng(1)
    Xc = np.column_stack([rng.integers(0, 3, 240), rng.integers(0, 2, 240)]).astype(float)
    y = data[1]
    pipe = make_pipeline(public_one_hot([[0.0, 1.0, 2.0], [0.0, 1.0]]), _clf())
    grid = {"publiconehotencoder__categories": [[[0.0, 1.0, 2.0], [0.0, 1.0]],
                                          [[0.0, 1.0, 2.0, 3.0], [0.0, 1.0]]]}
    search = GridSearchCV(pipe, grid, cv=KFold(2)).fit(Xc, y)
    cost = search_privacy_cost(search)
    mus = [_clf().plan_privacy(120, d).mu for d in (5, 6)]
    refit = search.best_estimator_[-1].privacy_.mu
    assert cost.mu == pytest.approx(math.sqrt(sum(m * m for m in mus) + refit ** 2), rel=1e-9)


def test_sample_ids_reach_a_pipelines_estimator_without_naming_the_step(data):
    X, y = data
    ledger = PrivacyLedger()
    pipe = make_pipeline(BoundedScaler(bounds=(-2.0, 2.0)), _clf(ledger=ledger))
    search = GridSearchCV(pipe, {"dplogisticregression__C": [0.5, 2.0]}, cv=KFold(3))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, sample_ids=np.arange(len(y)))
    assert all(e.rows != "all" for e in ledger.entries) and len(ledger.entries) == 7
    cost = search_privacy_cost(search, delta=1e-5)
    assert cost.mu == pytest.approx(ledger.spent(1e-5).mu, rel=1e-9)


def test_sgd_search_events_are_checked_before_composing(data):
    pytest.importorskip("dp_accounting")
    X, y = data
    search = GridSearchCV(_clf(solver="sgd"), {"C": [1.0]}, cv=KFold(2)).fit(X, y)
    cost = search_privacy_cost(search)
    assert cost.mu is None and all(e.poisson_run is not None for e in cost.ledger.entries)


# -- a private label set: thresholded, an additive delta per fit ---------------------------

def _epsilon_at(mu, delta):
    """epsilon of mu-GDP at delta (Dong, Roth and Su 2022, Corollary 2.13), with scipy."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    def excess(eps):
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta
    return brentq(excess, 0.0, 100.0, xtol=1e-13)


@pytest.mark.filterwarnings("ignore::skdpgd.exceptions.PreparationFallbackWarning")
@pytest.mark.parametrize("columns", ["discovered", "numeric"])
def test_private_label_set_search_cost_is_exact_and_the_ledger_without_ids_bounds_it(columns):
    """KFold(3) x 2 candidates + refit: every record is in 2 x 2 + 1 = 5 of the 7 fits.

    Each fit releases the label set by thresholded noisy counts (an additive delta per fit,
    also when the vectorizer thresholds nothing). The cost composes a record's 5 fits; a
    ledger charged without sample_ids charges all 7 to every record (larger, also valid);
    with sample_ids it charges each fold's rows and equals the cost.
    """
    pd = pytest.importorskip("pandas")
    from skdpgd import make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    rng = np.random.default_rng(0)
    n, delta, kappa = 900, 1e-5, 0.1
    X = pd.DataFrame({"age": rng.uniform(20, 70, n), "hours": rng.uniform(1, 99, n)})
    if columns == "discovered":
        X["colour"] = rng.choice(["red", "green", "blue"], n).astype(object)
    y = (X["age"].to_numpy() > 45).astype(int)
    cv = KFold(3, shuffle=True, random_state=0)

    def search(ledger, **fit_params):
        pipe = make_dp_pipeline(DPTableVectorizer(),
                                DPLogisticRegression(classes="private", max_iter=20),
                                epsilon=1.0, delta=delta, ledger=ledger, random_state=0)
        return GridSearchCV(pipe, {"dplogisticregression__C": [0.1, 1.0]}, cv=cv,
                            error_score="raise").fit(X, y, **fit_params)

    without_ids = PrivacyLedger()
    fitted = search(without_ids)
    cost = search_privacy_cost(fitted, X=X)
    assert cost.n_fits == len(without_ids.entries) == 2 * 3 + 1
    assert cost.per_record == "exact" and cost.delta == delta
    # every fit reserved kappa delta; the label set's part is there, whatever the columns
    steps = dict(fitted.best_estimator_.plan_privacy(n, X=X).steps)
    assert steps["label set (classes='private')"].extra_delta > 0
    if columns == "numeric":  # the vectorizer thresholds nothing: the label set alone
        assert steps["dptablevectorizer"].extra_delta == 0.0
    events = {(e.event.mu, e.event.extra_delta) for e in without_ids.entries}
    assert len(events) == 1  # one epsilon for every candidate, folds and refit alike
    ((mu_fit, delta0),) = events
    assert delta0 == pytest.approx(kappa * delta, rel=1e-12)

    # by hand: the folds from the splitter, then the fits that hold each record
    holds = np.zeros(n, dtype=int)
    for train, _ in cv.split(np.zeros((n, 1))):
        holds[train] += 2  # two candidates
    holds += 1  # the refit
    assert set(holds) == {5}
    exact = _epsilon_at(math.sqrt(5) * mu_fit, delta - 5 * delta0)
    assert cost.extra_delta == pytest.approx(5 * delta0, rel=1e-12)
    assert cost.epsilon == pytest.approx(exact, rel=1e-7)

    # the ledger without ids charges all 7 fits to every record: larger, never smaller
    spent = without_ids.spent(delta)
    assert spent.extra_delta == pytest.approx(7 * delta0, rel=1e-12)
    assert spent.epsilon == pytest.approx(_epsilon_at(math.sqrt(7) * mu_fit, delta - 7 * delta0),
                                          rel=1e-7)
    assert spent.epsilon > cost.epsilon * 1.1

    # with ids the ledger knows each fold's rows, and agrees with the cost
    with_ids = PrivacyLedger()
    search(with_ids, sample_ids=np.arange(n))
    assert all(e.rows != "all" for e in with_ids.entries)
    assert with_ids.spent(delta).epsilon == pytest.approx(cost.epsilon, rel=1e-9)
    assert with_ids.spent(delta).extra_delta == pytest.approx(cost.extra_delta, rel=1e-12)
