"""A DP pipeline's regressor with and without the mean correction of its intercept.

``DPRidge`` fits a Huber objective, whose intercept goes to a Huber location of the
residuals, below their mean where the target is skewed (counts, prices); the pipeline's
mean correction (``skdpgd/pipeline/_mean_correction.py``, docs/theory.md, "The
regressor's intercept at its mean residual") releases the noisy mean residual after the
fit and moves the intercept by it where it is significant. Per table, epsilon and seed,
in one run, the default ``make_dp_pipeline(DPTableVectorizer(), DPRidge(...))`` at delta
1e-5 and the same ``random_state``:

* **without**: ``mean_correction=False`` (the estimator at its whole share: the code
  path before the correction, bit for bit);
* **with**: the default (``mean_correction="auto"``).

Tables: those of ``benchmarks/constant_predictor.py`` (``panel`` and ``visits`` need the
benchmark venv of ``unseen_tables.py``; ``diamonds`` and ``diamonds_auto`` need
``SKDPGD_DATA``; the ``column_shapes.py`` shapes at 2,000 and 5,000 rows) and
``spread``, the table of ``tests/pipeline/test_spread_column_ranges.py`` (y linear in a
normal column plus Gaussian noise: symmetric residuals, nothing to correct; 2,000
training rows, 2,000 test rows).

Reported per table and epsilon: the constant predictor's test R^2 (the training mean),
both pipelines' median and worst seed, how many seeds fall below the constant, the
paired difference (median, largest loss) and how often the shift was applied.

    SKDPGD_DATA=/path/to/data PYTHONPATH=$PWD bench-venv/bin/python \\
        benchmarks/mean_correction.py [--seeds 10] [--epsilons 0.1 1] [--tables ...]

Results: ``benchmarks/results/mean_correction.json``.
"""

import argparse
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

from constant_predictor import REGRESSION, TABLES, _constant_score

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer

DELTA = 1e-5


def _spread():
    def make(seed, n=4000):
        rng = np.random.default_rng(seed)
        X = pd.DataFrame({"a": rng.standard_normal(n), "b": rng.choice(["x", "y", "z"], n),
                          "c": rng.integers(0, 10, n).astype(float)})
        return X, 3.0 * X["a"].to_numpy() + 0.5 * rng.standard_normal(n)
    X, y = make(0)
    return (X.iloc[:2000].reset_index(drop=True), y[:2000],
            X.iloc[2000:].reset_index(drop=True), y[2000:])


ALL = {**{name: TABLES[name] for name in REGRESSION}, "spread": _spread}
BOUNDS = {**REGRESSION, "spread": "auto"}
DEFAULT_TABLES = ("visits", "panel", "diamonds", "diamonds_auto", "lognormal_2000",
                  "count_2000", "t3_2000", "year_2000", "spread")


def _fit(table, X, y, epsilon, seed, correction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound=BOUNDS[table]),
                                epsilon=epsilon, delta=DELTA, random_state=seed,
                                mean_correction=correction).fit(X, y)


def one_cell(table, data, epsilon, seeds):
    X, y, X_test, y_test = data
    constant = _constant_score(table, y, y_test)
    runs = []
    for seed in range(seeds):
        without = _fit(table, X, y, epsilon, seed, False)
        with_ = _fit(table, X, y, epsilon, seed, "auto")
        c = with_.mean_correction_
        runs.append({"seed": seed, "without": float(without.score(X_test, y_test)),
                     "with": float(with_.score(X_test, y_test)), "applied": c.applied,
                     "noisy_mean_residual": c.noisy_mean_residual,
                     "noise_std": c.noise_std, "share": c.share})
    out = {"constant": constant, "runs": runs}
    for name in ("without", "with"):
        s = np.array([r[name] for r in runs])
        out[name] = {"median": float(np.median(s)), "worst": float(s.min()),
                     "below_constant": int(np.sum(s < constant - 1e-12))}
    diff = np.array([r["with"] - r["without"] for r in runs])
    out["paired"] = {"median": float(np.median(diff)), "largest_loss": float(diff.min()),
                     "largest_gain": float(diff.max())}
    out["applied"] = int(sum(r["applied"] for r in runs))
    out["share"] = runs[0]["share"]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--tables", nargs="+", default=list(DEFAULT_TABLES),
                        choices=sorted(ALL))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"
                                              / "mean_correction.json"))
    args = parser.parse_args()
    results = {}
    for table in args.tables:
        data = ALL[table]()
        for epsilon in args.epsilons:
            cell = one_cell(table, data, epsilon, args.seeds)
            results[f"{table}/{epsilon:g}"] = cell
            w, o, p = cell["with"], cell["without"], cell["paired"]
            print(f"{table:>14} eps={epsilon:<4g} constant {cell['constant']:+.4f} | without "
                  f"{o['median']:.4f} (worst {o['worst']:.4f}, {o['below_constant']} below) | "
                  f"with {w['median']:.4f} (worst {w['worst']:.4f}, {w['below_constant']} "
                  f"below) | paired {p['median']:+.4f} (loss {p['largest_loss']:+.4f}) | "
                  f"applied {cell['applied']}/{args.seeds}, share {cell['share']:.3f}",
                  flush=True)
    out = {"command": "python benchmarks/mean_correction.py " + " ".join(sys.argv[1:]),
           "machine": f"{platform.machine()}, Python {platform.python_version()}",
           "seeds": args.seeds,
           "epsilons": args.epsilons, "results": results}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
