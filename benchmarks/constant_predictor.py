"""The default pipeline against the constant predictor, before and after the constant check.

Target: a classifier that falls below the constant predictor (the majority class) at a
budget is replaced by the private intercept-only model (``skdpgd/pipeline/
_constant_fallback.py``, docs/theory.md, "Never below the constant predictor"). Per
table, epsilon and seed, in one run, the default ``make_dp_pipeline(DPTableVectorizer(),
DPLogisticRegression(classes=...))`` at delta 1e-5:

* **before**: the pipeline without the check (its plan returns None: the code path of
  the commit before it, bit for bit, the estimator at its whole share);
* **after**: the pipeline as it is (the check's share of the estimator's mu^2, the
  model kept only when its noisy lead over the largest noisy class count passes the
  margin).

Tables (raw, nothing hand-written):

* **adult**: ``load_adult("train")`` subsampled to 4,000 rows (binary, 14 raw columns),
  scored on the Adult test file;
* **adult_full**: all 32,561 rows (only at ``--full``);
* **poll**: the 4-class synthetic raw poll of ``benchmarks/search_defaults.py`` (2,500
  rows, near-tied classes .27/.28/.23/.22), scored on 10,000 rows of its generator;
* **weak**: a synthetic raw binary table, 2,000 rows, 80/20 classes, 6 numeric columns
  and one text column of which only one numeric column carries a weak signal (the
  model can hardly beat the majority class at any budget here);
* **survey**: a synthetic raw binary table of 4,400 rows like the issue's survey (76%
  majority, 5 text and 6 numeric columns, a moderate signal).

Reported per table and epsilon: the constant predictor's test score (the training
majority class, non-private), before and after (median, worst seed, number of seeds
below the constant predictor), and how often the check kept the model.

    python benchmarks/constant_predictor.py [--seeds 10] [--epsilons 0.1 0.3 1 4]
        [--tables adult poll weak survey]

Results: ``benchmarks/results/constant_predictor.json``.
"""

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import skdpgd.pipeline._constant_fallback as constant_fallback
import skdpgd.pipeline._fit_steps as fit_steps
from skdpgd import DPLogisticRegression, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.preprocessing import DPTableVectorizer

DELTA = 1e-5
CHECK = fit_steps.plan_constant_check


def _adult(rows):
    X, y = load_adult("train", as_frame=True, return_X_y=True)
    if rows:
        pick = np.random.default_rng(0).choice(len(X), rows, replace=False)
        X, y = X.iloc[pick].reset_index(drop=True), np.asarray(y)[pick]
    X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
    return X, np.asarray(y), X_test, np.asarray(y_test)


def _poll(rows=2500):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from search_defaults import _poll_frame

    X, y = _poll_frame(rows, 0)
    X_test, y_test = _poll_frame(10000, 1)
    return X, y, X_test, y_test


def _weak_frame(rows, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{j}": rng.normal(50, 10, rows) for j in range(6)})
    frame["group"] = rng.choice(["a", "b", "c", "d"], rows)
    logit = -1.45 + 0.03 * (frame["x0"] - 50)
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(int)
    return frame, y


def _survey_frame(rows, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(18, 85, rows).astype(float),
        "bmi": rng.normal(27, 5, rows), "visits": rng.poisson(3, rows).astype(float),
        "income": rng.lognormal(10.5, 0.7, rows), "score": rng.uniform(0, 100, rows),
        "days": rng.integers(0, 30, rows).astype(float)})
    for j, levels in enumerate((["yes", "no"], ["n", "s", "e", "w"], ["a", "b", "c"],
                                ["low", "mid", "high"], ["x", "y", "z", "u", "v"])):
        frame[f"t{j}"] = rng.choice(levels, rows)
    logit = (-1.6 + 0.04 * (frame["age"] - 50) + 0.08 * (frame["bmi"] - 27)
             + 0.9 * (frame["t0"] == "yes") - 0.6 * (frame["t3"] == "low"))
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(int)
    frame.loc[rng.random(rows) < 0.05, "bmi"] = np.nan
    return frame, y


def _synthetic(make, rows):
    def load():
        X, y = make(rows, 0)
        X_test, y_test = make(20000, 1)
        return X, y, X_test, y_test
    return load


TABLES = {"adult": lambda: _adult(4000), "adult_full": lambda: _adult(0), "poll": _poll,
          "weak": _synthetic(_weak_frame, 2000), "survey": _synthetic(_survey_frame, 4400)}


def _fit(X, y, epsilon, seed, check):
    fit_steps.plan_constant_check = CHECK if check else (lambda *args: None)
    constant_fallback.ENABLED = True  # off by default (the module's ENABLED)
    try:
        classes = sorted(np.unique(y).tolist())  # public here: the generator's label set
        pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=classes),
                                epsilon=epsilon, delta=DELTA, random_state=seed).fit(X, y)
    finally:
        fit_steps.plan_constant_check = CHECK
    return pipe


def one_cell(data, epsilon, seeds):
    X, y, X_test, y_test = data
    values, counts = np.unique(y, return_counts=True)
    constant = float(np.mean(y_test == values[np.argmax(counts)]))
    runs = []
    for seed in range(seeds):
        before = _fit(X, y, epsilon, seed, check=False)
        after = _fit(X, y, epsilon, seed, check=True)
        check = after.constant_check_
        runs.append({"seed": seed, "before": float(before.score(X_test, y_test)),
                     "after": float(after.score(X_test, y_test)),
                     "kept_model": check.kept_model, "share": check.share,
                     "constant_class": str(check.constant_class)})
    out = {"constant": constant, "runs": runs}
    for name in ("before", "after"):
        s = np.array([r[name] for r in runs])
        out[name] = {"median": float(np.median(s)), "worst": float(s.min()),
                     "below_constant": int(np.sum(s < constant - 1e-12)),
                     "worst_minus_constant": float(s.min() - constant)}
    out["kept_model"] = int(sum(r["kept_model"] for r in runs))
    out["share"] = runs[0]["share"]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.3, 1.0, 4.0])
    parser.add_argument("--tables", nargs="+", default=["adult", "poll", "weak", "survey"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"
                                             / "constant_predictor.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the vectorizer's per-fit notes, not measured here
    result = {"machine": platform.platform(), "delta": DELTA, "seeds": args.seeds,
              "tables": {}}
    for table in args.tables:
        data = TABLES[table]()
        result["tables"][table] = {"rows": len(data[1])}
        for epsilon in args.epsilons:
            tic = time.perf_counter()
            cell = one_cell(data, epsilon, args.seeds)
            cell["seconds"] = time.perf_counter() - tic
            result["tables"][table][str(epsilon)] = cell
            b, a = cell["before"], cell["after"]
            print(f"{table:8s} eps {epsilon:<4g} constant {cell['constant']:.4f} | before "
                  f"median {b['median']:.4f} worst {b['worst']:.4f} below {b['below_constant']}"
                  f" | after median {a['median']:.4f} worst {a['worst']:.4f} below "
                  f"{a['below_constant']} | kept {cell['kept_model']}/{args.seeds}, share "
                  f"{cell['share']:.3f} | after-before median {a['median'] - b['median']:+.4f}"
                  f" worst {a['worst'] - b['worst']:+.4f}", flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
