"""The default pipeline against the constant predictor, with and without the constant check.

Target: a model that falls below the constant predictor (the majority class; the mean of
y) at a budget is replaced by the private intercept-only model
(``skdpgd/pipeline/_constant_fallback.py``, docs/theory.md, "Never below the constant
predictor"); at epsilon 0.1 no seed below the constant predictor, at epsilon >= 1 no
median loss above 0.002 against the pipeline without the check. Per table, epsilon and
seed, in one run, the default ``make_dp_pipeline(DPTableVectorizer(), estimator)`` at
delta 1e-5 and the same ``random_state``:

* **without**: ``constant_check=False`` (the estimator at its whole share: the code path
  before the check, bit for bit);
* **with**: ``constant_check=True`` (the check's public share of the estimator's mu^2,
  the model kept only when its noisy lead over the private constant passes the margin):
  for the classifiers what the default ``"auto"`` does; for ``DPRidge`` the opt-in.

Tables (raw, nothing hand-written):

* **poll**: the 4-class synthetic raw poll of ``benchmarks/search_defaults.py`` (2,500
  rows, near-tied classes .27/.28/.23/.22), ``DPLogisticRegression(classes=[0, 1, 2,
  3])``, accuracy on 10,000 rows of its generator;
* **adult**: ``load_adult("train")`` subsampled to 4,000 raw rows (binary, 14 columns),
  ``DPLogisticRegression(classes=[0, 1])``, accuracy on the Adult test file;
* **diamonds**: 3,000 raw rows of ggplot2's diamonds (9 columns, 3 of them strings;
  needs ``SKDPGD_DATA``), log price mapped by the public price range to [-1, 1],
  ``DPRidge(y_bound=1.0)``, R^2 on 10,000 held-out rows;
* **diamonds_auto**: the same rows, the raw price, ``DPRidge(y_bound="auto")`` (the
  pipeline releases the target's range);
* **weak**, **survey** (only when named): synthetic binary tables where the model can
  hardly beat the majority class (2,000 rows, 80/20) and a moderate signal (4,400 rows,
  76% majority);
* **adult_full**: all 32,561 rows (only when named; the README's raw-table row);
* **panel**, **visits** (only when named; the benchmark venv, ``unseen_tables.py``):
  ``plyr::baseball`` (runs) and ``statsmodels``' ``randhie`` (outpatient visits), a fixed
  70/30 split (``random_state=0``), ``DPRidge(y_bound="auto")``, R^2 on the 30%;
* **<shape>_<rows>** (only when named): ``column_shapes.py``'s table of one shape
  (``year``, ``t3``, ``count``, ``lognormal``) at 2,000 or 5,000 rows, 10,000 test rows of
  the same draw, ``DPRidge(y_bound="auto")``.

For the regression tables each run also records non-private diagnostics of the pipeline
without the check on its training rows, in the fit's scale and units of B^2: the lead over
the training mean of the clipped target (``train_lead``: truncated at B^2;
``train_lead_untruncated``: plain) and the sum of squares ``train_sst``.

Reported per table and epsilon: the constant predictor's test score (the training
majority class or mean, non-private), both pipelines' median and worst seed, how many
seeds fall below the constant predictor, with - without (median, worst), and how often
the check kept the model and its share.

    SKDPGD_DATA=/path/to/data python benchmarks/constant_predictor.py [--seeds 10]
        [--epsilons 0.1 0.3 1 4] [--tables poll adult diamonds diamonds_auto] [--out PATH]

Results: ``benchmarks/results/constant_predictor.json``; the regression tables:
``constant_predictor_regression.json`` (``_truncated.json``: the truncated lead, before).
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

sys.path.insert(0, str(Path(__file__).parent))  # benchmarks/datasets.py, search_defaults.py

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.preprocessing import DPTableVectorizer

DELTA = 1e-5


def _adult(rows):
    X, y = load_adult("train", as_frame=True, return_X_y=True)
    if rows:
        pick = np.random.default_rng(0).choice(len(X), rows, replace=False)
        X, y = X.iloc[pick].reset_index(drop=True), np.asarray(y)[pick]
    X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
    return X, np.asarray(y), X_test, np.asarray(y_test)


def _diamonds(rows, raw_price):
    from datasets import data_dir, diamonds_target

    df = pd.read_csv(data_dir() / "diamonds" / "diamonds.csv", index_col=0)
    order = np.random.default_rng(0).permutation(len(df))
    train, test = df.iloc[order[:rows]], df.iloc[order[rows:rows + 10000]]
    target = (lambda p: np.asarray(p, dtype=np.float64)) if raw_price else diamonds_target
    return (train.drop(columns="price").reset_index(drop=True),
            target(train["price"].to_numpy()), test.drop(columns="price"),
            target(test["price"].to_numpy()))


def _poll(rows=2500):
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


def _unseen(name):
    """A regression table of ``unseen_tables.py`` (the benchmark venv), a fixed 70/30 split."""
    def load():
        from sklearn.model_selection import train_test_split
        from unseen_tables import load as load_unseen

        _, X, y = load_unseen(name)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
        return (X_tr.reset_index(drop=True), np.asarray(y_tr, dtype=np.float64),
                X_te.reset_index(drop=True), np.asarray(y_te, dtype=np.float64))
    return load


def _shape(shape, rows):
    """A ``column_shapes.py`` table (shaped x, normal z, 3-level text; y linear in them)."""
    def load():
        from column_shapes import table

        X, y = table(shape, rows + 10000, 0)
        return (X.iloc[:rows].reset_index(drop=True), y[:rows],
                X.iloc[rows:].reset_index(drop=True), y[rows:])
    return load


def _synthetic(make, rows):
    def load():
        X, y = make(rows, 0)
        X_test, y_test = make(20000, 1)
        return X, y, X_test, y_test
    return load


TABLES = {"adult": lambda: _adult(4000), "adult_full": lambda: _adult(0), "poll": _poll,
          "diamonds": lambda: _diamonds(3000, False),
          "diamonds_auto": lambda: _diamonds(3000, True),
          "weak": _synthetic(_weak_frame, 2000), "survey": _synthetic(_survey_frame, 4400),
          "panel": _unseen("panel"), "visits": _unseen("visits")}
SHAPES = ("year", "t3", "count", "lognormal")
TABLES.update({f"{shape}_{rows}": _shape(shape, rows) for shape in SHAPES
               for rows in (2000, 5000)})
REGRESSION = {"diamonds": 1.0, "diamonds_auto": "auto", "panel": "auto", "visits": "auto",
              **{f"{shape}_{rows}": "auto" for shape in SHAPES for rows in (2000, 5000)}}
# the y_bound


def _fit(table, X, y, epsilon, seed, check):
    if table in REGRESSION:
        final = DPRidge(y_bound=REGRESSION[table])
    else:  # public here: the generator's (the data set's documented) label set
        final = DPLogisticRegression(classes=sorted(np.unique(y).tolist()))
    return make_dp_pipeline(DPTableVectorizer(), final, epsilon=epsilon, delta=DELTA,
                            random_state=seed, constant_check=check).fit(X, y)


def _constant_score(table, y, y_test):
    if table in REGRESSION:  # R^2 of the training mean
        return float(1.0 - np.mean((y_test - np.mean(y)) ** 2) / np.var(y_test))
    values, counts = np.unique(y, return_counts=True)
    return float(np.mean(y_test == values[np.argmax(counts)]))


def _train_lead(pipe, X, y):
    """Non-private diagnostics in the fit's scale (units of B^2): what the check must resolve.

    The lead D of the model without the check over the training mean of the clipped target
    (truncated at B^2, as the check's), its untruncated value and the sum of squares SST.
    """
    final = pipe.pipeline_.steps[-1][1]
    bound = float(final._public_target_bound())
    low, high = getattr(pipe, "target_range_", (-1.0, 1.0))
    half, mid = (high - low) / 2.0, (high + low) / 2.0
    y_fit = np.clip((np.asarray(y, dtype=np.float64) - mid) / half, -bound, bound)
    f = np.clip((final.predict(pipe.pipeline_[:-1].transform(X)) - mid) / half, -bound, bound)
    m, cap = float(np.mean(y_fit)), bound * bound
    full = ((y_fit - m) ** 2 - (f - y_fit) ** 2) / cap
    truncated = (np.minimum((y_fit - m) ** 2, cap) - np.minimum((f - y_fit) ** 2, cap)) / cap
    return {"train_lead": float(truncated.sum()), "train_lead_untruncated": float(full.sum()),
            "train_sst": float(np.sum((y_fit - m) ** 2) / cap)}


def one_cell(table, data, epsilon, seeds):
    X, y, X_test, y_test = data
    constant = _constant_score(table, y, y_test)
    runs = []
    for seed in range(seeds):
        without = _fit(table, X, y, epsilon, seed, check=False)
        with_ = _fit(table, X, y, epsilon, seed, check=True)
        check = with_.constant_check_
        runs.append({"seed": seed, "without": float(without.score(X_test, y_test)),
                     "with": float(with_.score(X_test, y_test)),
                     "kept_model": check.kept_model, "share": check.share,
                     "noisy_lead": check.noisy_lead, "margin": check.margin,
                     "constant": str(check.constant)})
        if table in REGRESSION:
            runs[-1].update(_train_lead(without, X, y))
    out = {"constant": constant, "runs": runs}
    for name in ("without", "with"):
        s = np.array([r[name] for r in runs])
        out[name] = {"median": float(np.median(s)), "worst": float(s.min()),
                     "below_constant": int(np.sum(s < constant - 1e-12)),
                     "worst_minus_constant": float(s.min() - constant)}
    diff = np.array([r["with"] - r["without"] for r in runs])
    out["with_minus_without"] = {
        "median": out["with"]["median"] - out["without"]["median"],
        "worst": out["with"]["worst"] - out["without"]["worst"],
        "median_of_paired": float(np.median(diff)), "largest_paired_loss": float(diff.min())}
    out["kept_model"] = int(sum(r["kept_model"] for r in runs))
    out["share"] = runs[0]["share"]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.3, 1.0, 4.0])
    parser.add_argument("--tables", nargs="+",
                        default=["poll", "adult", "diamonds", "diamonds_auto"])
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
            cell = one_cell(table, data, epsilon, args.seeds)
            cell["seconds"] = time.perf_counter() - tic
            result["tables"][table][str(epsilon)] = cell
            b, a = cell["without"], cell["with"]
            print(f"{table:8s} eps {epsilon:<4g} constant {cell['constant']:.4f} | without "
                  f"median {b['median']:.4f} worst {b['worst']:.4f} below {b['below_constant']}"
                  f" | with median {a['median']:.4f} worst {a['worst']:.4f} below "
                  f"{a['below_constant']} | kept {cell['kept_model']}/{args.seeds}, share "
                  f"{cell['share']:.3f} | with-without median {a['median'] - b['median']:+.4f}"
                  f" worst {a['worst'] - b['worst']:+.4f}", flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
