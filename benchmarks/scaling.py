"""Multi-core scaling: a gradient pass and a full fit for n_jobs = 1, 2, 4, 8, 16.

Synthetic dense float64 X of shape (n, d) (default 1e7 x 100, 8 GB: run it on a machine with
16 cores and enough memory, e.g. the device machine of the tool library); labels from a
fixed linear model. For each n_jobs it reports, in one run,

* the gradient pass (median of ``--repeats``) and the read floor with the same number of
  threads (see ``bandwidth.py``), and the speedup over n_jobs = 1;
* a full ``DPLogisticRegression(epsilon=1, C=1, solver=--solver, max_iter=--fit-steps,
  classes=[0, 1], n_jobs=k).fit`` (median of ``--fit-repeats``) and its speedup. The fitted
  coefficients are checked to be bit-identical across n_jobs;
* where a fit's time goes: its once-per-fit passes timed alone with the same n_jobs
  (the label scan :func:`skdpgd._data._passes.scan_labels`; the row norms, which are also the
  finiteness check, :meth:`skdpgd._data._design.ClippedDesign.from_data`), the fit's
  ``--fit-steps`` gradient passes (steps x the pass above), and the rest (planning,
  scikit-learn's shape checks, noise).

Usage::

    python benchmarks/scaling.py --n 10000000 --d 100 --n-jobs 1 2 4 8 16
    python benchmarks/scaling.py --n 1e6 --d 100 --n-jobs 1 2 --fit-steps 10   # 2-core box
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from bandwidth import floor_read, median_seconds
from threadpoolctl import threadpool_limits

from skdpgd import DPLogisticRegression
from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd._data._passes import scan_labels
from skdpgd.losses import BinaryLogisticLoss


def make_problem(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = np.empty((n, d))
    block = 1_000_000
    for start in range(0, n, block):  # bounded temporaries while filling 8 GB
        stop = min(n, start + block)
        X[start:stop] = rng.standard_normal((stop - start, d)) / np.sqrt(d)
    truth = rng.standard_normal(d)
    y = (X @ truth + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fit-steps", type=int, default=20)
    parser.add_argument("--fit-repeats", type=int, default=2)
    parser.add_argument("--solver", default="gd",
                        help="the fit's solver ('gd': fit-steps full passes, nothing else)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    n = int(args.n)
    start = time.perf_counter()
    X, y = make_problem(n, args.d)
    print(f"X: {n} x {args.d} float64, {X.nbytes / 1e9:.1f} GB, built in "
          f"{time.perf_counter() - start:.0f} s; {os.cpu_count()} CPUs", flush=True)
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    coef = np.zeros(args.d + 1)
    rows, reference = [], None
    print("| n_jobs | floor GB/s | gradient s | gradient GB/s | gradient / floor | "
          "gradient speedup | fit s | fit speedup | labels s | row norms s | steps x pass s | "
          "rest s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n_jobs in args.n_jobs:
        with threadpool_limits(limits=1, user_api="blas"):
            floor = X.nbytes / median_seconds(floor_read(X, n_jobs), args.repeats)
            sums = ChunkedRowSums(BinaryLogisticLoss().gradient_sum, design, y.astype(float),
                                  n_jobs=n_jobs)
            with sums:
                gradient = median_seconds(lambda sums=sums: sums.sum(coef), args.repeats)
            labels = median_seconds(lambda n_jobs=n_jobs: scan_labels(y, np.array([0, 1]), n_jobs=n_jobs),
                                    args.repeats)
            norms = median_seconds(
                lambda n_jobs=n_jobs: ClippedDesign.from_data(X, 1.0, 1.0, n_jobs=n_jobs), args.repeats
            )
        model = DPLogisticRegression(epsilon=1.0, C=1.0, max_iter=args.fit_steps,
                                     solver=args.solver, classes=[0, 1], n_jobs=n_jobs,
                                     random_state=0)
        fit = median_seconds(lambda model=model: model.fit(X, y), args.fit_repeats)
        if reference is None:
            reference = model.coef_.copy()
        identical = bool(np.array_equal(model.coef_, reference))
        steps = model.n_iter_ * gradient
        row = dict(n_jobs=n_jobs, floor_GBps=floor / 1e9, gradient_s=gradient,
                   fit_s=fit, labels_s=labels, row_norms_s=norms, steps=model.n_iter_,
                   steps_s=steps, rest_s=fit - labels - norms - steps,
                   identical_to_n_jobs_1=identical, solver=model.solver_)
        rows.append(row)
        base = rows[0]
        print(f"| {n_jobs} | {floor / 1e9:.1f} | {gradient:.3f} | {X.nbytes / gradient / 1e9:.1f} | "
              f"{X.nbytes / gradient / floor:.2f} | {base['gradient_s'] / gradient:.2f} | "
              f"{fit:.2f} | {base['fit_s'] / fit:.2f} | {labels:.3f} | {norms:.3f} | "
              f"{steps:.2f} | {row['rest_s']:.2f} |"
              + ("" if identical else "  (coefficients DIFFER from n_jobs=1!)"), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
