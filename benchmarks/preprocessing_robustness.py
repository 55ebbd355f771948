"""Do the defaults survive other, equally valid, public-bound preprocessings of Adult?

A default that works on one preprocessing of a table and fails on another equally valid one
is a bug: every variant below is a public, per-row or per-column map of the benchmark's
Adult features (``datasets.load_adult``) with a correct public ``data_norm``. The solvers
see the same information in every variant; only the geometry changes.

Variants:

- ``as benchmarked``: the features of ``benchmarks/README.md`` (rows of norm <= 1).
- ``rows x 0.3``: every row multiplied by 0.3, ``data_norm=1`` kept (a loose but valid bound).
- ``uncentred``: every feature shifted by +0.5, rows divided by the public bound
  sqrt(1 + d/4) of their norm (uncentred columns next to the intercept).
- ``one column x 10``: the first feature on a 10x larger public scale, ``data_norm=10``.

Usage::

    SKDPGD_DATA=/path/to/data python benchmarks/preprocessing_robustness.py [--seeds 5]

Test accuracy, median over seeds, delta = 1e-5 (``delta="auto"`` on Adult), for the default
``DPLogisticRegression()`` (``solver="auto"``) and ``solver="gd"``, next to scikit-learn's
``LogisticRegression`` on the same variant. Results go to
``benchmarks/results/preprocessing_robustness.json``.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets

from skdpgd import DPLogisticRegression

EPSILONS = (0.1, 0.5, 1.0, 4.0)
SOLVERS = ("auto", "gd")


def variants(X_train, X_test):
    """(name, X_train, X_test, data_norm) for every public-bound variant."""
    yield "as benchmarked", X_train, X_test, 1.0
    yield "rows x 0.3 (loose data_norm=1)", 0.3 * X_train, 0.3 * X_test, 1.0
    bound = np.sqrt(1.0 + 0.25 * X_train.shape[1])
    yield "uncentred (+0.5, rows / sqrt(1 + d/4))", (X_train + 0.5) / bound, (X_test + 0.5) / bound, 1.0
    scaled_train, scaled_test = X_train.copy(), X_test.copy()
    scaled_train[:, 0] *= 10.0
    scaled_test[:, 0] *= 10.0
    yield "one column x 10 (data_norm=10)", scaled_train, scaled_test, 10.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"
                                                 / "preprocessing_robustness.json"))
    args = parser.parse_args(argv)
    X_train, y_train, X_test, y_test = datasets.load_adult()[:4]
    rows = []
    print("| variant | scikit-learn | " + " | ".join(
        f"{solver} eps={eps:g}" for solver in SOLVERS for eps in EPSILONS) + " |")
    print("|---|---:|" + "---:|" * (len(SOLVERS) * len(EPSILONS)))
    for name, train, test, data_norm in variants(X_train, X_test):
        reference = LogisticRegression(max_iter=2000).fit(train, y_train).score(test, y_test)
        cells, record = [], {"variant": name, "data_norm": data_norm, "sklearn": reference}
        for solver in SOLVERS:
            for epsilon in EPSILONS:
                scores = [
                    DPLogisticRegression(
                        epsilon=epsilon, solver=solver, data_norm=data_norm, classes=[0, 1],
                        random_state=seed,
                    ).fit(train, y_train).score(test, y_test)
                    for seed in range(args.seeds)
                ]
                record[f"{solver}@{epsilon:g}"] = scores
                cells.append(f"{np.median(scores):.4f}")
        rows.append(record)
        print(f"| {name} | {reference:.4f} | " + " | ".join(cells) + " |", flush=True)
    Path(args.out).write_text(json.dumps({"seeds": args.seeds, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
