"""Fit time and peak memory of DPLogisticRegression against scikit-learn lbfgs and diffprivlib.

Everything in one run on the same arrays, medians of ``--repeats`` fits, reported as ratios
to lbfgs on the same input:

* **Adult** (32,561 x 104, 88% zeros) as a dense float64 array and as CSR: skdpgd with
  defaults (``solver="gd"``, delta="auto", i.e. 1e-5 on Adult, 1e-7 on 1e6 rows) and with ``solver="cyclic"``, lbfgs (C=1, max_iter=1000), and
  diffprivlib 0.6.6 (``LogisticRegression(epsilon, data_norm=1)``, dense only, in its own venv:
  ``bash benchmarks/setup_peers.sh``; the time is measured inside the peer process);
* a **synthetic** dense 1e6 x 100 problem (``--synthetic-n``), same methods except diffprivlib
  on the largest sizes if ``--no-diffprivlib``.

Peak memory: ``tracemalloc`` peak of one fit (numpy and scipy allocations are traced) over the
bytes of X (the issue's target is <= 1.5x the size of X in total, i.e. <= 0.5x *extra*).

Usage::

    python benchmarks/fit_time.py [--repeats 5] [--epsilons 0.1 1 8] [--synthetic-n 1e6]
"""

import argparse
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
from datasets import load_adult
from peers import diffprivlib_available, run_diffprivlib
from sklearn.linear_model import LogisticRegression

from skdpgd import DPLogisticRegression
from skdpgd.solvers._base import _cached_plan


def median_seconds(fit, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def cold_fit(model, X, y):
    """A fit as a user's first one: the cache of public plans is emptied first."""
    _cached_plan.cache_clear()
    return model.fit(X, y)


def peak_extra_bytes(fit):
    tracemalloc.start()
    try:
        fit()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def nbytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes


def synthetic(n, d=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)  # rows of norm ~1: data_norm=1 is public here
    y = (X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def diffprivlib_seconds(X, y, epsilon, repeats):
    jobs = [{"epsilon": epsilon, "seed": seed, "C": 1.0} for seed in range(repeats)]
    results, _ = run_diffprivlib("logistic", X, y, X[:10], y[:10], jobs)
    return float(np.median([r["fit_time"] for r in results]))


def report(name, X, y, epsilons, repeats, with_diffprivlib):
    lbfgs = median_seconds(lambda: LogisticRegression(max_iter=1000).fit(X, y), repeats)
    layout = "CSR" if sp.issparse(X) else "dense"
    print(f"\n### {name}, {layout} ({X.shape[0]} x {X.shape[1]}, {nbytes(X) / 1e6:.0f} MB); "
          f"lbfgs {lbfgs:.3f} s\n")
    print("| epsilon | solver | fit (s) | steps | / lbfgs | diffprivlib (s) | / lbfgs | peak extra / X |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for epsilon in epsilons:
        dpl = diffprivlib_seconds(X, y, epsilon, repeats) if with_diffprivlib else float("nan")
        for solver in ("gd", "cyclic"):
            model = DPLogisticRegression(epsilon=epsilon, solver=solver, random_state=0)
            ours = median_seconds(lambda model=model: cold_fit(model, X, y), repeats)
            peak = peak_extra_bytes(lambda model=model: cold_fit(model, X, y))
            print(f"| {epsilon:g} | {solver} | {ours:.3f} | {model.n_iter_} | {ours / lbfgs:.2f} | "
                  f"{dpl:.3f} | {dpl / lbfgs:.2f} | {peak / nbytes(X):.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0, 8.0])
    parser.add_argument("--synthetic-n", type=float, default=1e6)
    parser.add_argument("--synthetic-epsilons", type=float, nargs="+", default=[1.0])
    parser.add_argument("--no-diffprivlib", action="store_true")
    args = parser.parse_args()
    with_dpl = not args.no_diffprivlib
    if with_dpl:
        ok, message = diffprivlib_available()
        if not ok:
            print(f"diffprivlib column skipped: {message}")
            with_dpl = False
    X, y, _, _ = load_adult()
    report("Adult", X, y, args.epsilons, args.repeats, with_dpl)
    report("Adult", sp.csr_matrix(X), y, args.epsilons, args.repeats, False)
    if args.synthetic_n:
        X, y = synthetic(int(args.synthetic_n))
        report("Synthetic", X, y, args.synthetic_epsilons, max(1, args.repeats // 3), with_dpl)


if __name__ == "__main__":
    main()
