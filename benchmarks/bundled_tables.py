"""``solver="auto"`` against every explicit solver on tables it was never tuned on.

The tables that ship with scikit-learn (no download; none of them is in the validation
grid of ``auto_grid.py``), each through the raw-table path a user takes, nothing written
by hand: ``make_dp_pipeline(DPTableVectorizer(), estimator, epsilon=...)`` with the label
set public (``classes``) and, for the regression, ``DPRidge(y_bound="auto")`` (the target's
range released privately):

* ``breast_cancer`` (569 x 30, two classes), ``wine`` (178 x 13, three classes),
  ``digits`` (1797 x 64, ten classes), ``iris`` (150 x 4, three classes): test accuracy;
* ``diabetes`` (442 x 10, regression): test R^2.

Per table, epsilon and seed: a 70 / 30 split drawn from the seed, then the pipeline with
``solver="auto"`` (the default) and with each explicit solver a pipeline accepts (``gd``,
``cyclic`` with its planned batch size, ``preconditioned``; ``sgd`` is refused inside a
pipeline, whose budget is split by Gaussian-DP composition) at the same seed, and the
constant predictor (training majority class / training mean). Medians over the seeds;
"auto - best" is auto's median against the best explicit solver's median (the maximum of
three noisy medians: biased upwards, so small gaps are noise). Results in
``results/bundled_tables.json``. Usage::

    python benchmarks/bundled_tables.py [--seeds 5] [--epsilons 0.5 1 4] [--n-jobs 2]
"""

import argparse
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn import datasets
from sklearn.model_selection import train_test_split

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer

TABLES = ("breast_cancer", "wine", "digits", "iris", "diabetes")
SOLVERS = ("auto", "gd", "cyclic", "preconditioned")
RESULTS = Path(__file__).resolve().parent / "results" / "bundled_tables.json"


def load(name):
    """(task, X as a DataFrame, y) of a scikit-learn table."""
    bunch = getattr(datasets, f"load_{name}")(as_frame=True)
    task = "regression" if name == "diabetes" else "classification"
    return task, bunch.data, np.asarray(bunch.target)


def one_fit(name, epsilon, seed, solver):
    """The row of one pipeline fit (or the constant predictor, ``solver=None``)."""
    task, X, y = load(name)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                        random_state=seed)
    row = dict(table=name, epsilon=epsilon, seed=seed, method=solver or "constant",
               n=len(y_train), d=X.shape[1])
    if solver is None:
        if task == "classification":
            values, counts = np.unique(y_train, return_counts=True)
            row["score"] = float(np.mean(y_test == values[np.argmax(counts)]))
        else:
            row["score"] = float(1.0 - np.sum((y_test - y_train.mean()) ** 2)
                                 / np.sum((y_test - y_test.mean()) ** 2))
        return row
    if task == "classification":
        estimator = DPLogisticRegression(classes=sorted(np.unique(y).tolist()), solver=solver)
    else:
        estimator = DPRidge(y_bound="auto", solver=solver)
    tic = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fallbacks of the vectorizer on tiny tables
        model = make_dp_pipeline(DPTableVectorizer(), estimator, epsilon=epsilon,
                                 random_state=seed).fit(X_train, y_train)
    row.update(score=float(model.score(X_test, y_test)), fit_time=time.perf_counter() - tic,
               solver_=getattr(model.pipeline_[-1], "solver_", solver))
    return row


def summarise(rows, tables, epsilons):
    """Per (table, epsilon): medians, auto's gap to the best explicit solver."""
    cells = []
    for name in tables:
        for epsilon in epsilons:
            sel = [r for r in rows if r["table"] == name and r["epsilon"] == epsilon]
            med = {m: float(np.median([r["score"] for r in sel if r["method"] == m]))
                   for m in ("constant", *SOLVERS)}
            explicit = {m: med[m] for m in SOLVERS if m != "auto"}
            best = max(explicit, key=explicit.get)
            chose = sorted({r["solver_"] for r in sel if r["method"] == "auto"})
            cells.append(dict(table=name, epsilon=epsilon, median_score=med, best_explicit=best,
                              auto_gap=med["auto"] - explicit[best], auto_chose=chose))
    return cells


def print_table(cells):
    print("| table | eps | constant | auto (chose) | gd | cyclic | preconditioned | "
          "auto - best |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for c in cells:
        m = c["median_score"]
        print(f"| {c['table']} | {c['epsilon']:g} | {m['constant']:.3f} | {m['auto']:.3f} "
              f"({'/'.join(c['auto_chose'])}) | {m['gd']:.3f} | {m['cyclic']:.3f} | "
              f"{m['preconditioned']:.3f} | {c['auto_gap']:+.3f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 4.0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    tasks = [(name, eps, seed, solver) for name in args.tables for eps in args.epsilons
             for seed in range(args.seeds) for solver in (None, *SOLVERS)]
    tic = time.perf_counter()
    rows = Parallel(n_jobs=args.n_jobs)(delayed(one_fit)(*task) for task in tasks)
    cells = summarise(rows, args.tables, args.epsilons)
    print_table(cells)
    within = sum(c["auto_gap"] >= -0.005 - 1e-12 for c in cells)
    print(f"\nauto within 0.005 of the best explicit solver in {within} / {len(cells)} cells; "
          f"worst {min(c['auto_gap'] for c in cells):+.4f}; {time.perf_counter() - tic:.0f} s")
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join(["python", "benchmarks/bundled_tables.py", *sys.argv[1:]]),
        python=platform.python_version(), pandas=pd.__version__, seeds=args.seeds,
        cells=cells, rows=rows), indent=1) + "\n")


if __name__ == "__main__":
    main()
