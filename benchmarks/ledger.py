"""The file ledger: cost of a charge, a race of processes at a cap, a pipeline search's cost.

    nice python benchmarks/ledger.py --out benchmarks/results/ledger.json

1. **Charge time.** Median (and 90th percentile) over ``--charges`` rounds; each round
   times, one after the other so that all see the same disk, a charge of a real fit's
   report (``DPLogisticRegression(epsilon=1).plan_privacy(24129, 104)``, an Adult
   training fold) in memory (the reference), in a file without ids, in a file with the
   fold's 24,129 ids, the same with ``synchronous=OFF`` (the compute, without the
   disk's flush), a bare SQLite one-row commit (WAL, ``synchronous=FULL``: what any
   durable charge pays) and a raw ``fsync`` of a 4 KiB append (the disk's floor). Then
   1,000 charges on a capped file (first vs last 100: the cost must not grow with the
   ledger), opening that file in a new ledger and reading its spend, and the median of
   3 fits of the estimator on random data of the fold's shape.
2. **Race.** 8 processes (fork) each run 50 real fits (200 rows) that charge one file
   ledger whose cap admits exactly ``floor((mu_cap / mu)^2) = 100`` of them (set by hand
   from one fit's mu, 100.5 fits' worth); reported: fits that passed, entries in the
   file, the worst record's mu against the cap.
3. **Search cost of a 5 x 3 pipeline grid** on Adult: ``RowNormClipper(1) ->
   DPLogisticRegression`` over 5 values of C x 3 epsilons, ``KFold(5, shuffle=True,
   random_state=0)``, refit; ``GridSearchCV(n_jobs=2)`` with joblib's default loky
   backend and a file ledger watching; ``search_privacy_cost`` next to the ledger's
   spend, and next to charging every fit to every record.
"""

import argparse
import json
import math
import multiprocessing
import os
import platform
import sys
import tempfile
import time

import numpy as np
import sklearn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline

import skdpgd
from skdpgd import DPLogisticRegression, PrivacyLedger, accounting
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import search_privacy_cost
from skdpgd.preprocessing import RowNormClipper

DELTA = 1e-5


def _times(fn, n):
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    return np.asarray(out)


def _summary(seconds):
    ms = seconds * 1e3
    return {"median_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
            "n": int(ms.size)}


def _bare_sqlite(folder):
    """A one-row commit on a bare SQLite file (WAL, synchronous=FULL, as the ledger)."""
    import sqlite3

    conn = sqlite3.connect(os.path.join(folder, "bare.sqlite"), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE t (x INTEGER)")

    def commit(i):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (?)", (i,))
        conn.execute("COMMIT")

    return commit


def _raw_fsync(folder):
    """os.fsync after appending 4 KiB: the disk's floor under any durable commit."""
    fd = os.open(os.path.join(folder, "raw"), os.O_WRONLY | os.O_CREAT)

    def sync(i):
        os.write(fd, b"x" * 4096)
        os.fsync(fd)

    return sync


def _interleaved(fns, n):
    """Time every function once per round, n rounds: all see the same disk weather."""
    times = {name: [] for name in fns}
    for i in range(n):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn(i)
            times[name].append(time.perf_counter() - t)
    return {name: _summary(np.asarray(v)) for name, v in times.items()}


def charge_time(folder, n_charges):
    n, d = 24129, 104
    est = DPLogisticRegression(epsilon=1.0, classes=[0, 1])
    report = est.plan_privacy(n, d)
    ids = np.arange(n)
    memory = PrivacyLedger()
    file = PrivacyLedger(path=os.path.join(folder, "a.sqlite"))
    file_ids = PrivacyLedger(path=os.path.join(folder, "b.sqlite"))
    no_sync = PrivacyLedger(path=os.path.join(folder, "c.sqlite"))
    no_sync._store.connection().execute("PRAGMA synchronous = OFF")  # compute only
    out = _interleaved({
        "memory_no_ids": lambda i: memory.charge(est, report, n_samples=n),
        "file_no_ids": lambda i: file.charge(est, report, n_samples=n),
        "file_24129_ids": lambda i: file_ids.charge(est, report, n_samples=n, sample_ids=ids),
        "file_24129_ids_without_fsync": lambda i: no_sync.charge(est, report, n_samples=n,
                                                                 sample_ids=ids),
        "reference_bare_sqlite_wal_commit": _bare_sqlite(folder),
        "reference_raw_fsync_4k_append": _raw_fsync(folder),
    }, n_charges)
    capped = PrivacyLedger(epsilon=1e6, delta=DELTA, path=os.path.join(folder, "d.sqlite"))
    all_times = _times(lambda i: capped.charge(est, report, n_samples=n, sample_ids=ids), 1000)
    out["file_capped_24129_ids_first_100_of_1000"] = _summary(all_times[:100])
    out["file_capped_24129_ids_last_100_of_1000"] = _summary(all_times[-100:])
    t = time.perf_counter()
    spend = PrivacyLedger(path=capped.path).spent()
    out["open_1000_entry_file_and_read_spend_ms"] = (time.perf_counter() - t) * 1e3
    out["file_size_bytes_1000_entries"] = os.path.getsize(capped.path)
    assert abs(spend.mu / (math.sqrt(1000) * report.mu) - 1) < 1e-12
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)) / math.sqrt(d) / 2
    y = (X[:, 0] > 0).astype(int)
    fits = _times(lambda i: DPLogisticRegression(epsilon=1.0, classes=[0, 1],
                                                 random_state=i).fit(X, y), 3)
    out["reference_fit_same_shape"] = _summary(fits)
    med = {k: v["median_ms"] for k, v in out.items() if isinstance(v, dict)}
    out["ratios_of_medians"] = {
        "file_24129_ids / fit": med["file_24129_ids"] / med["reference_fit_same_shape"],
        "file_24129_ids / bare_sqlite_commit": (med["file_24129_ids"]
                                                / med["reference_bare_sqlite_wal_commit"]),
        "file_no_ids / memory_no_ids": med["file_no_ids"] / med["memory_no_ids"],
    }
    return out


def _racer(path, X, y, n_fits, ready):
    ledger = PrivacyLedger(path=path)
    ready.wait()
    passed = 0
    for i in range(n_fits):
        try:
            DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=5, ledger=ledger,
                                 random_state=i).fit(X, y)
            passed += 1
        except PrivacyBudgetExceeded:
            pass
    os._exit(passed)


def race(folder, n_procs=8, n_fits=50, allowed=100):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    mu = DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=5).plan_privacy(200, 3).mu
    cap_mu = mu * math.sqrt(allowed + 0.5)
    cap_eps = accounting.gdp_to_epsilon(cap_mu, DELTA)
    expected = math.floor((accounting.epsilon_delta_to_gdp(cap_eps, DELTA) / mu) ** 2)
    path = os.path.join(folder, "race.sqlite")
    ledger = PrivacyLedger(epsilon=cap_eps, delta=DELTA, path=path)
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    procs = [ctx.Process(target=_racer, args=(path, X, y, n_fits, ready))
             for _ in range(n_procs)]
    for p in procs:
        p.start()
    t = time.perf_counter()
    ready.set()
    for p in procs:
        p.join()
    wall = time.perf_counter() - t
    spend = ledger.spent()
    return {
        "processes": n_procs, "fits_per_process": n_fits, "attempts": n_procs * n_fits,
        "allowed_by_hand": expected, "passed": int(sum(p.exitcode for p in procs)),
        "entries_in_file": len(ledger.entries), "worst_mu": spend.mu, "cap_mu": cap_mu,
        "never_over": bool(spend.mu <= accounting.epsilon_delta_to_gdp(cap_eps, DELTA)),
        "wall_s": wall,
    }


def pipeline_search(folder, n_jobs=2):
    from datasets import load_adult

    X, y, _, _ = load_adult()
    ledger = PrivacyLedger(path=os.path.join(folder, "search.sqlite"))
    pipe = make_pipeline(RowNormClipper(1.0),
                         DPLogisticRegression(classes=[0, 1], ledger=ledger, random_state=0))
    grid = {"dplogisticregression__C": [0.01, 0.1, 1.0, 10.0, 100.0],
            "dplogisticregression__epsilon": [0.25, 0.5, 1.0]}
    search = GridSearchCV(pipe, grid, cv=KFold(5, shuffle=True, random_state=0), n_jobs=n_jobs)
    t = time.perf_counter()
    with sklearn.config_context(enable_metadata_routing=True):  # ids reach the estimator
        search.fit(X, y, sample_ids=np.arange(len(y)))
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    cost = search_privacy_cost(search, delta=DELTA)
    cost_s = time.perf_counter() - t
    mus = [e.mu for e in cost.ledger.entries]
    naive = math.sqrt(sum(m * m for m in mus))
    watched = ledger.spent(DELTA)
    return {
        "n_rows": len(y), "candidates": cost.n_candidates, "splits": cost.n_splits,
        "fits": cost.n_fits, "entries_in_file_ledger": len(ledger.entries),
        "mu": cost.mu, "epsilon": cost.epsilon, "delta": DELTA,
        "file_ledger_mu": watched.mu, "file_ledger_epsilon": watched.epsilon,
        "every_fit_to_every_record_mu": naive,
        "every_fit_to_every_record_epsilon": accounting.gdp_to_epsilon(naive, DELTA),
        "refit_epsilon": search.best_estimator_[-1].privacy_.epsilon,
        "search_fit_s": fit_s, "search_privacy_cost_s": cost_s, "n_jobs": n_jobs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--charges", type=int, default=300)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = {
            "command": "nice python benchmarks/ledger.py " + " ".join(sys.argv[1:]),
            "machine": f"{platform.platform()}, {os.cpu_count()} cores, Python "
                       f"{platform.python_version()}, sqlite {__import__('sqlite3').sqlite_version}",
            "skdpgd": skdpgd.__version__,
            "charge_time": charge_time(folder, args.charges),
            "race": race(folder),
        }
        if not args.skip_search:
            results["pipeline_search"] = pipeline_search(folder)
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
