"""The file ledger: durable charges shared by processes and sessions, a cap that holds
under races, kills that lose or double nothing, and clear errors for files that are not
(this version's) ledgers.

Expected counts come from the cap by hand: k Gaussian fits of parameter mu cost
sqrt(k) mu (Dong, Roth, Su 2022, Cor. 3.3), so a cap of mu_cap admits floor((mu_cap/mu)^2).
"""

import copy
import math
import multiprocessing
import os
import pickle
import signal
import sqlite3
import time

import joblib
import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting
from skdpgd._ledger import LedgerFileError
from skdpgd._ledger._chain import Chain
from skdpgd._ledger._verify import rechain
from skdpgd.accounting import GaussianDpEvent, PoissonSampledGaussianEvent, RenyiDpEvent
from skdpgd.exceptions import PrivacyBudgetExceeded

DELTA = 1e-5
CAP_MU = accounting.epsilon_delta_to_gdp(1.0, DELTA)
# 20.5 fits' worth: exactly 20 fit under the cap, far from any rounding boundary
MU = CAP_MU / math.sqrt(20.5)
N_ALLOWED = 20

fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                          reason="needs fork() to start racing processes quickly")


def _charge(ledger, mu=MU, ids=None, n=100):
    ledger.charge_event("test", GaussianDpEvent(mu), n_samples=n, epsilon=1.0, delta=DELTA,
                        sample_ids=ids)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "budget.sqlite")


# -- persistence ------------------------------------------------------------------------
def test_a_new_ledger_on_the_same_file_sees_every_charge_and_the_cap(path):
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path)
    for _ in range(3):
        _charge(ledger, ids=np.arange(100))
    _charge(ledger, ids=np.arange(50, 150))
    again = PrivacyLedger(path=path)  # another session: the cap comes from the file
    assert (again.epsilon, again.delta) == (1.0, DELTA)
    assert len(again.entries) == 4 and [e.seq for e in again.entries] == [1, 2, 3, 4]
    assert again.spent().mu == pytest.approx(MU * 2, rel=1e-12)  # rows 50..99: four fits
    np.testing.assert_allclose(again.mu_per_record([0, 75, 120, 999]),
                               [MU * math.sqrt(3), 2 * MU, MU, 0.0], rtol=1e-12)
    e = again.entries[-1]
    assert e.sample_ids.tolist() == list(range(50, 150)) and e.recorded_at.endswith("+00:00")
    assert e.spent_epsilon == pytest.approx(accounting.gdp_to_epsilon(2 * MU, DELTA), rel=1e-9)
    with pytest.raises(LedgerFileError, match="one cap"):
        PrivacyLedger(epsilon=2.0, delta=DELTA, path=path)


def test_the_repr_counts_the_entries_the_file_holds_from_opening(path):
    writer = PrivacyLedger(path=path)
    _charge(writer)
    reader = PrivacyLedger(path=path)  # opened, nothing read yet
    assert repr(reader).endswith(", no cap, 1 entry)")
    _charge(writer)
    _charge(reader)  # reads the writer's second entry, appends the third
    assert repr(reader).endswith(", no cap, 3 entries)")
    assert repr(PrivacyLedger()).endswith(", no cap, 0 entries)")


_RENYI = RenyiDpEvent(tuple(accounting.DEFAULT_ORDERS),
                      tuple(accounting.gdp_to_rdp(accounting.DEFAULT_ORDERS, 0.4)))


@pytest.mark.parametrize("other", [PoissonSampledGaussianEvent(0.01, 1.2, 300), _RENYI],
                         ids=["poisson", "renyi"])
def test_every_event_kind_round_trips_through_the_file(path, other):
    """A file ledger and an in-memory one fed the same events report the same spend."""
    if isinstance(other, PoissonSampledGaussianEvent):
        pytest.importorskip("dp_accounting")
    memory, file = PrivacyLedger(), PrivacyLedger(path=path)
    for ledger in (memory, file):
        for event, ids in ((GaussianDpEvent(0.3), None), (other, np.arange(10))):
            ledger.charge_event("x", event, n_samples=10 if ids is not None else 100,
                                epsilon=1.0, delta=DELTA, sample_ids=ids)
    reopened = PrivacyLedger(path=path)
    assert reopened.spent(DELTA) == memory.spent(DELTA)
    assert reopened.spent(DELTA).composition in ("pld", "rdp")
    assert [e.event for e in reopened.entries] == [e.event for e in memory.entries]


def test_pickled_file_ledger_charges_the_same_file(path):
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path)
    for copied in (pickle.loads(pickle.dumps(ledger)), copy.deepcopy(ledger)):
        _charge(copied)
    assert len(ledger.entries) == 2 and ledger.spent().mu == pytest.approx(MU * math.sqrt(2))


def test_grid_search_with_processes_charges_every_fold_on_a_file_ledger(path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4)) / 3.0
    y = (X[:, 0] + 0.3 * rng.normal(size=240) > 0).astype(int)
    ledger = PrivacyLedger(path=path)
    est = DPLogisticRegression(epsilon=1.0, max_iter=30, classes=[0, 1], ledger=ledger,
                               random_state=0)
    search = GridSearchCV(est, {"C": [0.5, 2.0]}, cv=KFold(3), n_jobs=2, error_score="raise")
    with joblib.parallel_config(backend="loky"):
        search.fit(X, y, sample_ids=np.arange(240))
    entries = ledger.entries
    assert len(entries) == 3 * 2 + 1
    assert len({(e.source, e.sample_ids.tobytes()) for e in entries}) == 7  # none twice
    fold_mu, refit_mu = entries[0].mu, search.best_estimator_.privacy_.mu
    # KFold(3): every row in 2 training folds per candidate, then the refit
    expected = math.sqrt(2 * 2 * fold_mu ** 2 + refit_mu ** 2)
    assert ledger.spent(DELTA).mu == pytest.approx(expected, rel=1e-6)


# -- processes racing at the cap ----------------------------------------------------------
def _race(path, inherited, attempts, ready):
    ledger = inherited if inherited is not None else PrivacyLedger(path=path)
    ready.wait()
    passed = 0
    for _ in range(attempts):
        try:
            _charge(ledger)
            passed += 1
        except PrivacyBudgetExceeded:
            pass
    os._exit(passed)  # the exit code carries the count


@fork
def test_processes_racing_at_the_cap_charge_exactly_the_cap(path):
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path)
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    # half the racers inherit the parent's ledger object through fork, half open the file
    procs = [ctx.Process(target=_race, args=(path, ledger if i % 2 else None, 5, ready))
             for i in range(8)]
    for p in procs:
        p.start()
    ready.set()
    for p in procs:
        p.join(60)
    passed = sum(p.exitcode for p in procs)
    assert passed == N_ALLOWED == len(ledger.entries)
    assert ledger.spent().mu <= CAP_MU and ledger.spent().epsilon <= 1.0
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(DISTINCT charge_id) FROM entries").fetchone()[0] == 20


# -- killed processes -------------------------------------------------------------------
def _fit_and_signal(path, conn):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000, 10)) / 4  # a data pass of ~1 s: the kill lands mid-fit
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyLedger(path=path)
    charge = ledger.charge

    def charge_and_tell(*args, **kwargs):
        charge(*args, **kwargs)
        conn.send("charged")

    ledger.charge = charge_and_tell
    DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=200, ledger=ledger,
                         random_state=0).fit(X, y)
    conn.send("finished")
    os._exit(0)


@fork
def test_a_process_killed_mid_fit_keeps_its_charge_once(path):
    PrivacyLedger(epsilon=3.0, delta=DELTA, path=path)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_fit_and_signal, args=(path, child))
    proc.start()
    assert parent.poll(60) and parent.recv() == "charged"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(10)
    assert proc.exitcode == -signal.SIGKILL and not parent.poll(0.1)  # died mid-fit
    ledger = PrivacyLedger(path=path)  # what any later session sees
    (entry,) = ledger.entries
    planned = DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=200).plan_privacy(
        200_000, 10)
    assert entry.mu == pytest.approx(planned.mu, rel=1e-12)
    assert ledger.spent().mu == pytest.approx(planned.mu, rel=1e-12)


def _charge_forever(path, conn):
    ledger = PrivacyLedger(path=path)
    while True:
        _charge(ledger, mu=1e-3)
        conn.send(1)


@fork
def test_kills_at_random_moments_lose_no_confirmed_charge_and_double_none(path):
    PrivacyLedger(path=path)
    ctx = multiprocessing.get_context("fork")
    rng = np.random.default_rng(0)
    confirmed = 0
    for _ in range(4):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_charge_forever, args=(path, child))
        proc.start()
        assert parent.poll(30)
        time.sleep(rng.uniform(0.0, 0.05))  # somewhere inside a transaction, or between
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(10)
        while parent.poll(0):
            confirmed += parent.recv()
        in_file = len(PrivacyLedger(path=path).entries)
        # every confirmed charge is in the file; at most the one in flight is extra
        assert confirmed <= in_file <= confirmed + 1
        confirmed = in_file
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows, ids = conn.execute("SELECT count(*), count(DISTINCT charge_id) FROM entries"
                                 ).fetchone()
    assert rows == ids == confirmed


# -- files that are not (this version's) ledgers ----------------------------------------
def test_garbage_file_is_refused_clearly(path):
    with open(path, "wb") as f:
        f.write(b"budget: 1.0 epsilon\n" * 100)
    with pytest.raises(LedgerFileError, match="not an SQLite database"):
        PrivacyLedger(path=path)
    with open(path, "rb") as f:  # and left untouched
        assert f.read(20) == b"budget: 1.0 epsilon\n"


def test_foreign_sqlite_file_is_refused_and_left_alone(path):
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(LedgerFileError, match="not an skdpgd privacy ledger"):
        PrivacyLedger(path=path)
    with sqlite3.connect(path) as conn:
        tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("users",)]


def test_damaged_ledger_file_is_refused_clearly(path):
    ledger = PrivacyLedger(path=path)
    for _ in range(30):
        _charge(ledger, ids=np.arange(2000), n=2000)
    del ledger
    with sqlite3.connect(path) as conn:  # every page into the main file, none left in the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    with open(path, "r+b") as f:  # overwrite every page after the first with noise
        f.seek(4096)
        f.write(np.random.default_rng(0).bytes(size - 4096))
    with pytest.raises(LedgerFileError, match="damaged"):
        PrivacyLedger(path=path).spent(DELTA)


def test_unreadable_entry_is_refused_clearly(path):
    _charge(PrivacyLedger(path=path))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE entries SET event = '{\"kind\": \"gaussian\", \"mu\": -1}'")
    with pytest.raises(LedgerFileError, match="entry #1 does not match its hash"):
        PrivacyLedger(path=path)
    with sqlite3.connect(path) as conn:  # hashes recomputed: the entry is still unreadable
        rechain(conn, Chain(), path)
    with pytest.raises(LedgerFileError, match="unreadable entry #1"):
        _ = PrivacyLedger(path=path).entries


@pytest.mark.parametrize("version, word", [(0, "older"), (1, "older"), (3, "newer")])
def test_other_schema_versions_are_refused_clearly(path, version, word):
    _charge(PrivacyLedger(path=path))
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {version}")
    with pytest.raises(LedgerFileError, match=f"{word} schema \\(version {version}\\)"):
        PrivacyLedger(path=path)


def test_missing_folder_is_refused_clearly(tmp_path):
    with pytest.raises(LedgerFileError, match="does not exist"):
        PrivacyLedger(path=str(tmp_path / "nowhere" / "budget.sqlite"))


@pytest.mark.parametrize("ids", [
    np.random.default_rng(0).permutation(30_000)[:24_000],         # dense: a bitmap
    np.random.default_rng(1).choice(10**9, 500, replace=False),    # sparse: raw int64
    np.array([f"patient-{i}" for i in range(300)]),                 # strings
], ids=["dense", "sparse", "strings"])
def test_sample_ids_round_trip_through_the_file(path, ids):
    _charge(PrivacyLedger(path=path), ids=ids, n=ids.size)
    (entry,) = PrivacyLedger(path=path).entries
    np.testing.assert_array_equal(entry.sample_ids, np.sort(ids))
    assert entry.sample_ids.dtype.kind == ids.dtype.kind
