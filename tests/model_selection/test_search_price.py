"""A search priced before it runs: the price equals the ledger after the run; a capped
ledger admits or refuses the whole search before its first fit."""

import math

import numpy as np
import pytest
from scipy.stats import uniform
from sklearn.model_selection import GridSearchCV, KFold, RandomizedSearchCV

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import check_search_budget, search_privacy_cost

DELTA = 1e-5
EPSILONS = [0.25, 0.5, 1.0]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(301, 4)) / 3.0  # 301 rows: KFold(3) folds of 101, 100, 100
    y = (X[:, 0] + 0.3 * rng.normal(size=301) > 0).astype(int)
    return X, y


def _clf(ledger=None, **kw):
    params = dict(epsilon=1.0, delta=DELTA, max_iter=20, classes=[0, 1], random_state=0,
                  ledger=ledger)
    params.update(kw)
    return DPLogisticRegression(**params)


def _costliest(epsilons):
    """A refit rule that picks the largest epsilon (so the run refits the costliest)."""
    def rule(cv_results):
        return int(np.argmax([p[epsilons] for p in cv_results["params"]]))
    return rule


def _close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b))


@pytest.mark.parametrize("with_ids", [True, False])
def test_price_of_a_grid_over_epsilon_equals_the_ledger_after_the_run(data, with_ids):
    X, y = data
    ids = np.arange(len(y)) + 1000 if with_ids else None
    cv = KFold(3, shuffle=True, random_state=0)
    fit_params = {"sample_ids": ids} if with_ids else {}

    ledger = PrivacyLedger()
    search = GridSearchCV(_clf(ledger), {"epsilon": EPSILONS}, cv=cv,
                          refit=_costliest("epsilon"), error_score="raise")
    price = search_privacy_cost(search, X, y, sample_ids=ids, delta=DELTA)
    assert price.planned and price.n_fits == 3 * 3 + 1 and ledger.entries == ()
    search.fit(X, y, **fit_params)
    spent = ledger.spent(DELTA)
    total = price if with_ids else price.without_ids
    assert _close(total.epsilon, spent.epsilon) and _close(total.mu, spent.mu)
    assert price.refit_params == {"epsilon": 1.0} == search.best_params_

    # the default refit (the best by score): the ledger equals that candidate's price
    ledger = PrivacyLedger()
    search = GridSearchCV(_clf(ledger), {"epsilon": EPSILONS}, cv=cv, error_score="raise")
    price = search_privacy_cost(search, X, y, delta=DELTA)
    search.fit(X, y, **fit_params)
    spent = ledger.spent(DELTA)
    (chosen,) = [s for p, s in price.by_refit if p == search.best_params_]
    if with_ids:
        assert _close(chosen.epsilon, spent.epsilon) and _close(chosen.mu, spent.mu)
    assert spent.epsilon <= price.without_ids.epsilon * (1 + 1e-12)
    assert price.epsilon == max(s.epsilon for _, s in price.by_refit)


def test_the_price_by_hand(data):
    """KFold(3) on 301 rows: each record is in 2 training folds per candidate, and the
    refit; a fit at epsilon e is mu(e)-GDP with mu from the GDP conversion (Dong, Roth,
    Su 2022, Cor. 2.13), whatever its n (the estimator calibrates to its epsilon)."""
    X, y = data
    search = GridSearchCV(_clf(), {"epsilon": EPSILONS}, cv=KFold(3))
    price = search_privacy_cost(search, X, y, delta=DELTA)
    mus = [accounting.epsilon_delta_to_gdp(e, DELTA) for e in EPSILONS]
    expected = math.sqrt(2 * sum(m * m for m in mus) + max(mus) ** 2)
    assert price.mu == pytest.approx(expected, rel=1e-6)  # calibration rounds down
    assert price.mu <= expected
    assert price.without_ids.mu == pytest.approx(
        math.sqrt(3 * sum(m * m for m in mus) + max(mus) ** 2), rel=1e-6)
    # from the size alone (or the ids' number): the same price
    by_size = search_privacy_cost(search, n_samples=len(y), n_features=X.shape[1],
                                  delta=DELTA)
    by_ids = search_privacy_cost(search, sample_ids=np.arange(len(y)), n_features=4,
                                 delta=DELTA)
    assert by_size.epsilon == by_ids.epsilon == price.epsilon
    with pytest.raises(ValueError, match="disagree"):
        search_privacy_cost(search, X, y, n_samples=300)


def test_randomized_search_is_priced_from_its_seed(data):
    X, y = data
    ledger = PrivacyLedger()
    search = RandomizedSearchCV(_clf(ledger), {"epsilon": uniform(0.2, 1.0)}, n_iter=3,
                                cv=KFold(3), random_state=4, error_score="raise")
    price = search_privacy_cost(search, X, y, delta=DELTA)
    search.fit(X, y, sample_ids=np.arange(len(y)))
    (chosen,) = [s for p, s in price.by_refit if p == search.best_params_]
    assert _close(chosen.epsilon, ledger.spent(DELTA).epsilon)
    assert [p for p, _ in price.by_refit] == search.cv_results_["params"]
    unseeded = RandomizedSearchCV(_clf(), {"epsilon": uniform(0.2, 1.0)}, n_iter=3,
                                  cv=KFold(3))
    with pytest.raises(ValueError, match="int random_state"):
        search_privacy_cost(unseeded, X, y)


def _raw_table(n=600, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.uniform(20, 70, n), "hours": rng.uniform(1, 99, n),
                      "colour": rng.choice(["red", "green", "blue"], n).astype(object)})
    y = (X["age"].to_numpy() > 45).astype(int)
    return X, y


@pytest.mark.filterwarnings("ignore::skdpgd.exceptions.PreparationFallbackWarning")
@pytest.mark.parametrize("with_ids", [True, False])
def test_raw_table_pipeline_price_equals_the_ledger_and_fills_mu(with_ids):
    """DPPipeline(DPTableVectorizer, DPLogisticRegression) on a table with a text column:
    every fit discovers categories (an additive delta per fit). The price's epsilon equals
    the ledger's; its mu is the worst record's Gaussian part, with extra_delta beside it."""
    from skdpgd import make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    X, y = _raw_table()
    n = len(y)
    ids = np.arange(n) if with_ids else None
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1],
                                                                      max_iter=10),
                            epsilon=1.0, delta=DELTA, ledger=ledger, random_state=0)
    search = GridSearchCV(pipe, {"epsilon": [0.5, 1.0]}, cv=KFold(3, shuffle=True,
                                                                  random_state=0),
                          refit=_costliest("epsilon"), error_score="raise")
    price = search_privacy_cost(search, X, y, sample_ids=ids)
    assert ledger.entries == ()
    search.fit(X, y, **({"sample_ids": ids} if with_ids else {}))
    spent = ledger.spent(DELTA)
    total = price if with_ids else price.without_ids
    assert _close(total.epsilon, spent.epsilon)
    assert _close(total.extra_delta, spent.extra_delta) and spent.extra_delta > 0
    # mu: the ledger states none (an additive delta); the price states the Gaussian part,
    # recomputed here from the ledger's own entries (a record's fits, by their ids)
    assert spent.mu is None and price.mu is not None
    held = [e for e in ledger.entries if e.sample_ids is None or 0 in e.sample_ids]
    mu_record0 = math.sqrt(sum(e.mu ** 2 for e in held))
    extra_record0 = sum(e.extra_delta for e in held)
    if with_ids:  # record 0 is in 2 of the 3 folds' training rows, as every record
        assert len(held) == 2 * 2 + 1
        assert _close(price.mu, mu_record0) and _close(price.extra_delta, extra_record0)
    else:
        assert _close(price.without_ids.extra_delta, extra_record0)
    assert _close(accounting.gdp_to_epsilon(price.mu, DELTA - price.extra_delta),
                  price.epsilon)


def test_a_capped_ledger_refuses_the_whole_search_before_its_first_fit(data):
    X, y = data
    ids = np.arange(len(y))
    cv = KFold(3)
    grid = {"epsilon": EPSILONS}
    folds_only = search_privacy_cost(GridSearchCV(_clf(), grid, cv=cv, refit=False), X, y)
    whole = search_privacy_cost(GridSearchCV(_clf(), grid, cv=cv), X, y)
    cap = 0.5 * (folds_only.epsilon + whole.epsilon)
    assert folds_only.epsilon < cap < whole.epsilon

    # without the check: the folds are spent, then the refit is refused (no model)
    ledger = PrivacyLedger(epsilon=cap, delta=DELTA)
    search = GridSearchCV(_clf(ledger), grid, cv=cv, refit=_costliest("epsilon"))
    with pytest.raises(PrivacyBudgetExceeded):
        search.fit(X, y, sample_ids=ids)
    assert len(ledger.entries) == 9

    # the documented pattern: refused up front, the ledger empty
    ledger = PrivacyLedger(epsilon=cap, delta=DELTA)
    search = GridSearchCV(_clf(ledger), grid, cv=cv)
    with pytest.raises(PrivacyBudgetExceeded, match=r"this search .GridSearchCV over "
                       r"DPLogisticRegression: 9 fold fits and the refit"):
        check_search_budget(search, X, y, sample_ids=ids)
    assert ledger.entries == ()

    # under a cap that holds the whole search: admitted, and its total is the ledger's
    ledger = PrivacyLedger(epsilon=whole.epsilon * 1.001, delta=DELTA)
    search = GridSearchCV(_clf(ledger), grid, cv=cv, refit=_costliest("epsilon"))
    admitted = check_search_budget(search, X, y, sample_ids=ids)
    search.fit(X, y, sample_ids=ids)
    assert _close(admitted.epsilon, ledger.spent().epsilon)


def test_the_check_counts_what_the_ledger_already_holds(data):
    """A fit on the first half of the records is recorded; the search's check composes
    with it by the ids (the first half pays both) and equals the ledger afterwards."""
    X, y = data
    n = len(y)
    ids = np.arange(n)
    ledger = PrivacyLedger(epsilon=50.0, delta=DELTA)
    _clf(ledger, epsilon=2.0).fit(X[: n // 2], y[: n // 2], sample_ids=ids[: n // 2])
    search = GridSearchCV(_clf(ledger), {"epsilon": EPSILONS}, cv=KFold(3),
                          refit=_costliest("epsilon"))
    admitted = check_search_budget(search, X, y, sample_ids=ids)
    assert len(ledger.entries) == 1
    search.fit(X, y, sample_ids=ids)
    assert _close(admitted.epsilon, ledger.spent().epsilon)
    alone = search_privacy_cost(search, X, y, delta=DELTA)
    assert admitted.epsilon > alone.epsilon
    # without ids the search is charged to every record, the earlier fit's too
    without = check_search_budget(GridSearchCV(_clf(ledger), {"epsilon": EPSILONS},
                                               cv=KFold(3)), X, y)
    assert without.epsilon > ledger.spent().epsilon


def test_dpsearch_is_priced_before_it_runs(data):
    from skdpgd.model_selection import DPSearchCV

    X, y = data
    ledger = PrivacyLedger()
    search = DPSearchCV(_clf(), {"C": [0.1, 1.0]}, epsilon=1.0, delta=DELTA, ledger=ledger,
                        random_state=0)
    price = search_privacy_cost(search, X, y)
    assert price.planned and ledger.entries == ()
    search.fit(X, y, sample_ids=np.arange(len(y)))
    spent = ledger.spent(DELTA)
    assert _close(price.epsilon, spent.epsilon)
    if spent.mu is not None:
        assert _close(price.mu, spent.mu)
    capped = PrivacyLedger(epsilon=0.5 * price.epsilon, delta=DELTA)
    with pytest.raises(PrivacyBudgetExceeded, match="DPSearchCV"):
        check_search_budget(DPSearchCV(_clf(), {"C": [0.1, 1.0]}, epsilon=1.0, delta=DELTA,
                                       ledger=capped), X, y)
    assert capped.entries == ()


def test_a_file_ledger_is_read_before_the_check(data, tmp_path):
    """Another handle on the file spends first; the check sees it and refuses."""
    X, y = data
    ids = np.arange(len(y))
    path = tmp_path / "budget.sqlite"
    search = GridSearchCV(_clf(), {"epsilon": EPSILONS}, cv=KFold(3))
    whole = search_privacy_cost(search, X, y)
    ledger = PrivacyLedger(epsilon=whole.epsilon * 1.01, delta=DELTA, path=path)
    search.set_params(estimator__ledger=ledger)
    check_search_budget(search, X, y, sample_ids=ids)  # admitted on an empty file
    _clf(PrivacyLedger(path=path), epsilon=0.5).fit(X, y, sample_ids=ids)  # another writer
    with pytest.raises(PrivacyBudgetExceeded, match=r"spent so far: epsilon=0\.5"):
        check_search_budget(search, X, y, sample_ids=ids)
    assert len(ledger.entries) == 1


@pytest.mark.filterwarnings("ignore::skdpgd.exceptions.PreparationFallbackWarning")
def test_a_prepared_pipeline_search_is_checked_without_its_preparation_twice():
    """prepare charged the ledger once; the check adds the search's fits to it (not the
    preparation again), and its total is the ledger's after the run."""
    from skdpgd import make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    X, y = _raw_table()
    ids = np.arange(len(y))
    ledger = PrivacyLedger(epsilon=10.0, delta=DELTA)
    prepared = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1],
                                                                          max_iter=10),
                                delta=DELTA, random_state=0).prepare(X, ledger=ledger,
                                                                      sample_ids=ids)
    assert len(ledger.entries) == 1
    search = GridSearchCV(prepared, {"epsilon": [0.5, 1.0]}, cv=KFold(3), error_score="raise",
                          refit=_costliest("epsilon"))
    admitted = check_search_budget(search, X, y, sample_ids=ids)
    price = search_privacy_cost(search, X, y, sample_ids=ids)
    search.fit(X, y, sample_ids=ids)
    assert len(ledger.entries) == 1 + 2 * 3 + 1
    assert _close(admitted.epsilon, ledger.spent().epsilon)
    assert _close(price.epsilon, ledger.spent().epsilon) and len(price.shared) == 1
