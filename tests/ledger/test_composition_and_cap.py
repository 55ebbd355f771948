"""PrivacyLedger: composition per record, the cap, and sharing across clones and searches.

References are computed here by hand (sums of squares over the fits that contain a
record, the splitter's folds enumerated directly), never read from the ledger.
"""

import copy
import math
import pickle
import threading

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, accounting
from skdpgd._ledger import LedgerCopyError
from skdpgd.exceptions import PrivacyBudgetExceeded

DELTA = 1e-5


def _report(noise_std, n=100, n_steps=50):
    """A real PrivacyReport of a full-batch run (its mu depends on noise_std)."""
    return accounting.noisy_gd_report(
        noise_std, n_steps, delta=DELTA, sensitivity=2.0, n_samples=n, learning_rate=1.0,
        strong_convexity=0.1, smoothness=1.0,
    )


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4)) / 3.0
    y = (X[:, 0] + 0.3 * rng.normal(size=240) > 0).astype(int)
    return X, y


def _clf(ledger, **kw):
    params = dict(epsilon=1.0, C=1.0, max_iter=30, classes=[0, 1], ledger=ledger,
                  random_state=0)
    params.update(kw)
    return DPLogisticRegression(**params)


# -- composition ----------------------------------------------------------------------
def test_sequential_fits_compose_as_root_sum_of_squares():
    ledger = PrivacyLedger()
    reports = [_report(s) for s in (0.05, 0.08, 0.2)]
    for r in reports:
        ledger.charge(None, r, n_samples=100)
    expected = math.sqrt(sum(r.mu ** 2 for r in reports))
    spend = ledger.spent(DELTA)
    assert spend.mu == pytest.approx(expected, rel=1e-12)
    # the epsilon is the lossless conversion: delta(eps; mu) equals DELTA at that eps
    assert accounting.gdp_to_delta(expected, spend.epsilon) == pytest.approx(DELTA, rel=1e-6)
    assert spend.n_fits == 3 and spend.composition == "gdp"


def test_disjoint_subsets_compose_in_parallel_and_overlaps_add_up():
    ledger = PrivacyLedger()
    a, b, c = _report(0.05, n=50), _report(0.1, n=50), _report(0.07, n=50)
    ledger.charge(None, a, n_samples=50, sample_ids=np.arange(50))
    ledger.charge(None, b, n_samples=50, sample_ids=np.arange(50, 100))
    assert ledger.spent(DELTA).mu == pytest.approx(max(a.mu, b.mu), rel=1e-12)
    ledger.charge(None, c, n_samples=50, sample_ids=np.arange(25, 75))
    per_record = ledger.mu_per_record(np.arange(100))
    expected = np.empty(100)
    expected[:25] = a.mu
    expected[25:50] = math.hypot(a.mu, c.mu)
    expected[50:75] = math.hypot(b.mu, c.mu)
    expected[75:] = b.mu
    np.testing.assert_allclose(per_record, expected, rtol=1e-12)
    assert ledger.spent(DELTA).mu == pytest.approx(expected.max(), rel=1e-12)


def test_fit_without_ids_is_charged_to_every_record_even_unnamed_ones():
    ledger = PrivacyLedger()
    full, part = _report(0.06), _report(0.09, n=10)
    ledger.charge(None, part, n_samples=10, sample_ids=np.arange(10))
    ledger.charge(None, full, n_samples=100)
    mus = ledger.mu_per_record([3, 500])  # 500 was never named
    np.testing.assert_allclose(mus, [math.hypot(full.mu, part.mu), full.mu], rtol=1e-12)
    assert ledger.spent(DELTA).mu == pytest.approx(math.hypot(full.mu, part.mu), rel=1e-12)


def test_string_ids_and_bad_ids():
    ledger = PrivacyLedger()
    r = _report(0.1, n=3)
    ledger.charge(None, r, n_samples=3, sample_ids=["ann", "bob", "cy"])
    ledger.charge(None, r, n_samples=3, sample_ids=["dee", "bob", "eve"])
    np.testing.assert_allclose(ledger.mu_per_record(["bob", "ann"]),
                               [math.sqrt(2) * r.mu, r.mu], rtol=1e-12)
    with pytest.raises(ValueError, match="repeated ids"):
        ledger.charge(None, r, n_samples=3, sample_ids=[1, 1, 2])
    with pytest.raises(ValueError, match="shape"):
        ledger.charge(None, r, n_samples=3, sample_ids=[1, 2])
    assert len(ledger.entries) == 2


def test_rdp_entries_compose_additively_and_never_beat_exact_gdp():
    gdp_only, mixed = PrivacyLedger(), PrivacyLedger()
    r1, r2 = _report(0.05), _report(0.08)
    for ledger in (gdp_only, mixed):
        ledger.charge(None, r1, n_samples=100)
    gdp_only.charge(None, r2, n_samples=100)
    mixed.charge_rdp("a Gaussian given as RDP", lambda a: a * r2.mu ** 2 / 2.0,
                     n_samples=100, epsilon=r2.epsilon, delta=DELTA)
    orders = PrivacyLedger.orders
    expected = accounting.rdp_to_epsilon(orders, orders * (r1.mu ** 2 + r2.mu ** 2) / 2, DELTA)
    spend = mixed.spent(DELTA)
    assert spend.mu is None and spend.composition == "rdp"
    assert spend.epsilon == pytest.approx(expected, rel=1e-12)
    assert spend.epsilon >= gdp_only.spent(DELTA).epsilon


def test_rdp_entry_on_a_subset_is_charged_to_that_subset_only():
    ledger = PrivacyLedger()
    r = _report(0.05, n=10)
    ledger.charge(None, r, n_samples=10, sample_ids=np.arange(10))
    ledger.charge_rdp("sel", lambda a: a * 0.3 ** 2 / 2.0, n_samples=10, epsilon=1.0,
                      delta=DELTA, sample_ids=np.arange(10, 20))
    orders = PrivacyLedger.orders
    # records 0..9 saw one Gaussian fit only: their exact (lossless) GDP cost; records
    # 10..19 the Renyi curve, converted by rdp_to_epsilon
    worst = max(accounting.gdp_to_epsilon(r.mu, DELTA),
                accounting.rdp_to_epsilon(orders, orders * 0.3 ** 2 / 2, DELTA))
    assert ledger.spent(DELTA).epsilon == pytest.approx(worst, rel=1e-12)


# -- the cap --------------------------------------------------------------------------
def test_cap_refuses_before_crossing_and_records_nothing():
    cap_mu = accounting.epsilon_delta_to_gdp(1.0, DELTA)
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    r = _report(1.0)
    n_allowed = int((cap_mu / r.mu) ** 2)  # k fits cost sqrt(k) * mu
    assert 1 <= n_allowed < 50
    first = np.arange(100)
    for _ in range(n_allowed):
        ledger.charge(None, r, n_samples=100, sample_ids=first)
    with pytest.raises(PrivacyBudgetExceeded, match="over the cap"):
        ledger.charge(None, r, n_samples=100, sample_ids=first)
    with pytest.raises(PrivacyBudgetExceeded):  # no ids: charged to the spent records too
        ledger.charge(None, r, n_samples=100)
    assert len(ledger.entries) == n_allowed
    assert ledger.spent().epsilon <= 1.0
    # disjoint rows still fit under the cap: parallel composition
    ledger.charge(None, r, n_samples=100, sample_ids=np.arange(100, 200))
    assert len(ledger.entries) == n_allowed + 1


#: (estimator, n, d): public problems whose plan at epsilon holds a mu a few ulps above
#: epsilon_delta_to_gdp(epsilon, delta) while its epsilon at delta is within the target
#: (its noise was calibrated on the epsilon side); a cap tested on mu alone refused them.
AT_THE_CAP = [
    (DPLogisticRegression(classes=[0, 1], epsilon=0.1), 750, 104),
    (DPLogisticRegression(classes=[0, 1, 2, 3], epsilon=0.1, solver="gd"), 5000, 20),
    (DPRidge(y_bound=1.0, epsilon=1.0, solver="cyclic"), 160_000, 5),
    (DPRidge(y_bound=1.0, epsilon=8.0, solver="cyclic"), 1000, 50),
]


@pytest.mark.parametrize("estimator, n, d", AT_THE_CAP)
def test_a_ledger_capped_at_a_fits_own_target_admits_it(estimator, n, d):
    classes = len(getattr(estimator, "classes", None) or []) or None
    report = estimator.plan_privacy(n, d, classes) if classes else estimator.plan_privacy(n, d)
    epsilon = estimator.epsilon
    assert report.epsilon <= epsilon
    # the two certificates disagree here: mu above the lossless mu* (rounded down) ...
    assert report.mu > accounting.epsilon_delta_to_gdp(epsilon, report.delta)
    # ... while its epsilon at delta (rounded up) proves the target: either one suffices
    assert accounting.gdp_to_epsilon(report.mu, report.delta) <= epsilon
    ledger = PrivacyLedger(epsilon=epsilon, delta=report.delta)
    ledger.charge(estimator, report, n_samples=n)
    assert len(ledger.entries) == 1 and ledger.spent().epsilon <= epsilon
    with pytest.raises(PrivacyBudgetExceeded):  # and nothing more
        ledger.charge(estimator, _report(1.0, n=n), n_samples=n)


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (1.0, 1e-8), (8.0, 1e-3)])
def test_the_cap_admits_what_a_certificate_proves_and_nothing_above(epsilon, delta):
    cap = accounting.Cap(epsilon, delta)
    below = accounting.compose([accounting.GaussianDpEvent(cap.mu * (1 - 1e-12))], delta)
    above = accounting.compose([accounting.GaussianDpEvent(cap.mu * (1 + 1e-8))], delta)
    assert cap.admits(below)
    assert not cap.admits(above)  # both certificates fail: mu > mu*, epsilon > the cap
    assert above.epsilon > epsilon


def test_refused_estimator_fit_never_runs(data):
    X, y = data
    ledger = PrivacyLedger(epsilon=1.2, delta=1e-4)
    _clf(ledger).fit(X, y)
    fresh = _clf(ledger)
    with pytest.raises(PrivacyBudgetExceeded):
        fresh.fit(X, y)
    assert not hasattr(fresh, "coef_") and len(ledger.entries) == 1


def test_non_private_fit_is_refused_by_a_capped_ledger(data):
    X, y = data
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-4)
    with pytest.raises(PrivacyBudgetExceeded):
        _clf(ledger, epsilon=np.inf).fit(X, y)


def test_bad_caps():
    with pytest.raises(ValueError, match="both"):
        PrivacyLedger(epsilon=1.0)
    with pytest.raises(ValueError, match="delta"):
        PrivacyLedger(epsilon=1.0, delta=1.5)
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyLedger(epsilon=-1.0, delta=1e-5)
    with pytest.raises(ValueError, match="delta="):
        PrivacyLedger().spent()


def test_concurrent_charges_cannot_both_pass_the_cap():
    cap_mu = accounting.epsilon_delta_to_gdp(1.0, DELTA)
    r = _report(1.0)
    n_allowed = int((cap_mu / r.mu) ** 2)
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    n_threads = n_allowed + 6
    barrier, outcomes = threading.Barrier(n_threads), []

    def spend():
        barrier.wait()
        try:
            ledger.charge(None, r, n_samples=100)
            outcomes.append(True)
        except PrivacyBudgetExceeded:
            outcomes.append(False)

    threads = [threading.Thread(target=spend) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(outcomes) == n_allowed == len(ledger.entries)


# -- sharing: clone, searches, processes ------------------------------------------------
def test_clone_shares_the_ledger(data):
    ledger = PrivacyLedger()
    est = _clf(ledger)
    assert clone(est).ledger is ledger and clone(clone(est)).ledger is ledger
    clone(est).fit(*data)
    assert len(ledger.entries) == 1


def _fits_per_record(n, n_splits, n_candidates):
    """How many training folds contain each row, counted from KFold's own folds."""
    counts = np.zeros(n, int)
    for train, _ in KFold(n_splits).split(np.zeros((n, 1))):
        counts[train] += n_candidates
    return counts


@pytest.mark.parametrize("backend", ["sequential", "threading"])
def test_grid_search_spends_every_fold_candidate_and_refit(data, backend):
    X, y = data
    ledger = PrivacyLedger()
    grid = {"C": [0.5, 2.0]}
    search = GridSearchCV(_clf(ledger), grid, cv=KFold(3), n_jobs=2, error_score="raise")
    with joblib.parallel_config(backend=backend):
        search.fit(X, y, sample_ids=np.arange(len(y)))
    assert len(ledger.entries) == 3 * 2 + 1
    refit = [e for e in ledger.entries if e.n_samples == len(y)]
    assert len(refit) == 1 and refit[0].rows == len(y)
    fold_mu = ledger.entries[0].mu  # every fit targets the same (epsilon, delta) -> same mu
    counts = _fits_per_record(len(y), 3, 2)
    expected = np.sqrt(counts * fold_mu ** 2 + refit[0].mu ** 2)
    np.testing.assert_allclose(ledger.mu_per_record(np.arange(len(y))), expected, rtol=1e-6)


def test_cross_val_score_without_ids_is_sequential(data):
    X, y = data
    ledger = PrivacyLedger()
    cross_val_score(_clf(ledger), X, y, cv=KFold(4))
    mus = [e.mu for e in ledger.entries]
    assert len(mus) == 4
    assert ledger.spent(DELTA).mu == pytest.approx(math.sqrt(sum(m * m for m in mus)), rel=1e-12)


def test_capped_search_stops_and_refit_cannot_sneak_past(data):
    X, y = data
    ledger = PrivacyLedger(epsilon=1.5, delta=1e-4)
    search = GridSearchCV(_clf(ledger, delta=1e-5), {"C": [0.5, 2.0]}, cv=KFold(3),
                          error_score="raise")
    with pytest.raises(PrivacyBudgetExceeded):
        search.fit(X, y)
    assert ledger.spent().epsilon <= 1.5


def test_process_backend_is_refused_loudly(data):
    X, y = data
    ledger = PrivacyLedger()
    search = GridSearchCV(_clf(ledger), {"C": [0.5, 2.0]}, cv=KFold(2), n_jobs=2,
                          error_score="raise")
    with joblib.parallel_config(backend="loky"):
        with pytest.raises(LedgerCopyError, match="copy"):
            search.fit(X, y)
    assert len(ledger.entries) == 0  # nothing was spent anywhere


def test_pickled_or_deep_copied_ledger_is_read_only(data):
    ledger = PrivacyLedger()
    est = _clf(ledger).fit(*data)
    for copied in (pickle.loads(pickle.dumps(ledger)), copy.deepcopy(ledger),
                   pickle.loads(pickle.dumps(est)).ledger):
        assert copied.spent(DELTA).mu == pytest.approx(ledger.spent(DELTA).mu)
        with pytest.raises(LedgerCopyError):
            copied.charge(None, _report(0.1), n_samples=100)
    assert len(ledger.entries) == 1


def test_ledger_used_in_another_process_is_refused(monkeypatch):
    ledger = PrivacyLedger()
    monkeypatch.setattr(ledger, "_owner_pid", -1)  # as seen from a forked child
    with pytest.raises(LedgerCopyError, match="another process"):
        ledger.charge(None, _report(0.1), n_samples=100)


def test_ridge_records_too():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3)) / 2
    y = np.clip(X @ [0.5, -0.2, 0.1], -1, 1)
    ledger = PrivacyLedger()
    est = DPRidge(epsilon=0.5, alpha=1.0, y_bound=1.0, max_iter=20, ledger=ledger,
                  random_state=0)
    est.fit(X, y, sample_ids=np.arange(120))
    (entry,) = ledger.entries
    assert entry.mu == est.privacy_.mu and entry.rows == 120
