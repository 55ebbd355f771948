"""Does private tuning pay for its budget?  DPSearchCV vs the default "auto" C vs an oracle.

On Adult (public-bound preprocessing, ``datasets.load_adult``), for each TOTAL budget
epsilon (delta = 1e-5) and seed, train on the training split and report test accuracy:

  auto            DPLogisticRegression(epsilon) with C="auto" (public planner, one fit)
  dpsearch        DPSearchCV over C in --c-grid at total epsilon (Papernot-Steinke Thm 2,
                  E[K] = --expected-trials, eta = 0, 20% validation split); the released
                  model is the winning trial's (trained on 80% of the rows)
  dpsearch-refit  the same with refit=True (the winner refitted on all rows, accounted)
  oracle          NOT PRIVATE: every C in --c-grid fitted at epsilon, the best chosen on the
                  TEST set (what a tuned result in a paper usually means)

Only the test split is used for scores; the selection inside DPSearchCV sees the
training split only. Medians over seeds; every seed's number goes to --out (JSON).

    python benchmarks/private_tuning.py --seeds 3 --out benchmarks/results/private_tuning.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import datasets

from skdpgd import DPLogisticRegression
from skdpgd.model_selection import DPSearchCV

DELTA = 1e-5
METHODS = ["auto", "dpsearch", "dpsearch-refit", "oracle"]


def run(method, epsilon, seed, data, c_grid, expected_trials):
    X, y, X_test, y_test = data
    base = dict(classes=[0, 1], delta=DELTA)
    extra = {}
    if method == "auto":
        model = DPLogisticRegression(epsilon, random_state=seed, **base).fit(X, y)
        extra["C"] = model.C_
    elif method.startswith("dpsearch"):
        model = DPSearchCV(
            DPLogisticRegression(**base), {"C": c_grid}, epsilon=epsilon, delta=DELTA,
            expected_trials=expected_trials, refit=method.endswith("refit"), random_state=seed,
        ).fit(X, y)
        extra.update(C=model.best_params_["C"], trial_mu=model.privacy_.trial_mu,
                     total_epsilon=model.privacy_.epsilon)
    else:  # oracle: not private (selection on the test set)
        fits = [DPLogisticRegression(epsilon, C=c, random_state=seed, **base).fit(X, y)
                for c in c_grid]
        model = max(fits, key=lambda m: m.score(X_test, y_test))
        extra["C"] = model.C_
    return float(model.score(X_test, y_test)), extra


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--c-grid", type=float, nargs="+", default=[0.01, 0.1, 1.0, 10.0, 100.0])
    parser.add_argument("--expected-trials", type=float, default=5.0)
    parser.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    data = datasets.load_adult()
    records = []
    for epsilon in args.epsilons:
        for method in args.methods:
            for seed in range(args.seeds):
                start = time.perf_counter()
                acc, extra = run(method, epsilon, seed, data, args.c_grid, args.expected_trials)
                records.append(dict(method=method, epsilon=epsilon, seed=seed, accuracy=acc,
                                    seconds=time.perf_counter() - start, **extra))
                print(json.dumps(records[-1]), flush=True)
    print()
    print("| Adult, test accuracy (median of %d seeds) | " % args.seeds
          + " | ".join(f"eps {e:g}" for e in args.epsilons) + " |")
    print("|---|" + "---:|" * len(args.epsilons))
    for method in args.methods:
        cells = [np.median([r["accuracy"] for r in records
                            if r["method"] == method and r["epsilon"] == e])
                 for e in args.epsilons]
        print(f"| {method} | " + " | ".join(f"{c:.4f}" for c in cells) + " |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(dict(args={k: str(v) for k, v in vars(args).items()},
                                            records=records), indent=1))


if __name__ == "__main__":
    main()
