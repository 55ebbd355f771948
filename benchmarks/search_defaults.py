"""DPSearchCV's defaults against no search, at the same total epsilon, before and after.

The target: DPSearchCV with its defaults scores no worse than the default pipeline at
the same total epsilon, in median and worst seed over 10 seeds. Two raw
tables of a few thousand rows, nothing hand-written, each through the default
``make_dp_pipeline(DPTableVectorizer(), estimator)``:

* **adult**: ``skdpgd.datasets.load_adult("train", as_frame=True)`` subsampled to
  ``--rows`` (4,000) raw rows (14 columns, 8 of them strings), binary, scored by accuracy
  on the original Adult test file (16,281 rows);
* **diamonds**: a ``--rows`` (3,000) subsample of ggplot2's diamonds (9 raw columns, 3 of
  them strings), regression on log price mapped by the public price range to [-1, 1]
  (``DPRidge(y_bound=1.0)``: the search needs a public bound on y), scored by R^2 on
  10,000 held-out rows (needs ``SKDPGD_DATA``, as ``benchmarks/datasets.py``);
* **poll** (synthetic, generated here): ``--rows`` (2,500) rows of a raw 4-class table,
  two text columns (region, 6 levels; education, 5 levels), three numeric ones (age,
  a log-normal income, a 0-10 rating) with 5% missing cells, the class drawn from a
  multinomial logit of them; accuracy on 10,000 rows of the same generator.

Per table and seed, in one run, at the same total epsilon (``--epsilon``, 1) and delta
(1e-5):

* **default**: the pipeline fitted once on all rows (no search);
* **random**: ``DPSearchCV(pipe, grid, epsilon)`` as its defaults were first,
  ``expected_trials=10, eta=0, refit=False`` (Papernot and Steinke's random number of
  trials, uniform draws from the grid);
* **before**: every candidate once, the reference first, kept unless beaten by the
  margin, refit on all rows, the trials always taking 10% of the estimator's mu^2 (the
  previous default, reproduced here by patching the share rule to 0.1);
* **after**: ``DPSearchCV(pipe, grid, epsilon)`` with today's defaults (the same, the
  trials' share the smallest that brings the first round's margin to r_0 = 0.02 of the
  score's scale, at most 0.1; where 0.1 cannot, no trial: the pipeline's own fit).

The grid is the user guide's, five values of C (``alpha`` for ridge) over four decades,
which does not hold the estimator's own ``"auto"``. Reported: the median and the worst
seed of each, the differences to default, how often "after" kept the reference and how
often it ran trials at all.

    python benchmarks/search_defaults.py [--seeds 10] [--epsilon 1] [--tables adult diamonds poll]
        [--rows N] [--out PATH]

Results: ``benchmarks/results/search_defaults.json``.
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

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.model_selection import DPSearchCV, _search_plan
from skdpgd.preprocessing import DPTableVectorizer

DELTA = 1e-5
GRIDS = {"adult": {"dplogisticregression__C": [0.01, 0.1, 1.0, 10.0, 100.0]},
         "diamonds": {"dpridge__alpha": [0.01, 0.1, 1.0, 10.0, 100.0]},
         "poll": {"dplogisticregression__C": [0.01, 0.1, 1.0, 10.0, 100.0]}}
ROWS = {"adult": 4000, "diamonds": 3000, "poll": 2500}
RANDOM = dict(expected_trials=10.0, eta=0.0, refit=False)  # the first defaults
TODAY_SHARE = _search_plan.selection_share


def _fixed_share(n_candidates, *args, **kwargs):
    """The previous default's share: 10% of the estimator's mu^2, whatever the budget."""
    return 0.1


def _search(table, data, epsilon, seed, share=TODAY_SHARE, **kw):
    _search_plan.selection_share = share
    try:
        return DPSearchCV(_pipe(table), GRIDS[table], epsilon=epsilon, delta=DELTA,
                          random_state=seed, **kw).fit(data[0], data[1])
    finally:
        _search_plan.selection_share = TODAY_SHARE


def _adult(rows):
    X, y = load_adult("train", as_frame=True, return_X_y=True)
    pick = np.random.default_rng(0).choice(len(X), rows, replace=False)
    X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
    return (X.iloc[pick].reset_index(drop=True), np.asarray(y)[pick], X_test,
            np.asarray(y_test))


def _diamonds(rows):
    from datasets import data_dir, diamonds_target

    df = pd.read_csv(data_dir() / "diamonds" / "diamonds.csv", index_col=0)
    order = np.random.default_rng(0).permutation(len(df))
    train, test = df.iloc[order[:rows]], df.iloc[order[rows:rows + 10000]]
    return (train.drop(columns="price").reset_index(drop=True),
            diamonds_target(train["price"].to_numpy()), test.drop(columns="price"),
            diamonds_target(test["price"].to_numpy()))


def _poll_frame(rows, seed):
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east", "west", "centre", "islands"], rows)
    education = rng.choice(["none", "primary", "secondary", "college", "graduate"], rows,
                           p=[0.05, 0.2, 0.4, 0.25, 0.1])
    age = rng.uniform(18, 90, rows)
    income = rng.lognormal(10, 0.8, rows)
    rating = rng.integers(0, 11, rows).astype(float)
    level = {"none": 0, "primary": 1, "secondary": 2, "college": 3, "graduate": 4}
    edu = np.vectorize(level.get)(education)
    logits = np.column_stack([
        0.04 * (age - 50), 0.5 * (np.log(income) - 10) + 0.3 * (edu - 2),
        0.3 * (rating - 5) + 0.8 * (region == "south"),
        np.zeros(rows) + 0.6 * (region == "islands")])
    u = rng.gumbel(size=logits.shape)
    y = np.argmax(logits + u, axis=1)
    frame = pd.DataFrame({"region": region, "education": education, "age": age,
                          "income": income, "rating": rating})
    for column in ("age", "income", "rating"):
        frame.loc[rng.random(rows) < 0.05, column] = np.nan
    return frame, y


def _poll(rows):
    X, y = _poll_frame(rows, 0)
    X_test, y_test = _poll_frame(10000, 1)
    return X, y, X_test, y_test


def _pipe(table, **kw):
    final = {"adult": lambda: DPLogisticRegression(classes=[0, 1]),
             "diamonds": lambda: DPRidge(y_bound=1.0),
             "poll": lambda: DPLogisticRegression(classes=[0, 1, 2, 3])}[table]()
    return make_dp_pipeline(DPTableVectorizer(), final, delta=DELTA, **kw)


def one_seed(table, data, epsilon, seed):
    X, y, X_test, y_test = data
    default = _pipe(table, epsilon=epsilon, random_state=seed).fit(X, y)
    random = _search(table, data, epsilon, seed, **RANDOM)
    before = _search(table, data, epsilon, seed, share=_fixed_share)
    after = _search(table, data, epsilon, seed)
    key = next(iter(GRIDS[table]))
    trials = getattr(after.privacy_, "trial_mu", 0.0) > 0.0
    return {"seed": seed, "default": float(default.score(X_test, y_test)),
            "random": float(random.score(X_test, y_test)),
            "before": float(before.score(X_test, y_test)),
            "after": float(after.score(X_test, y_test)),
            "random_params": random.best_params_, "before_params": before.best_params_,
            "after_params": after.best_params_,
            "after_kept_reference": after.best_params_[key] == "auto",
            "after_ran_trials": bool(trials),
            "random_epsilon": random.privacy_.epsilon,
            "before_epsilon": before.privacy_.epsilon,
            "after_epsilon": after.privacy_.epsilon,
            "before_trial_mu": before.privacy_.trial_mu,
            "before_margin": before.privacy_.switch_margin,
            "after_trial_mu": getattr(after.privacy_, "trial_mu", 0.0),
            "after_margin": getattr(after.privacy_, "switch_margin", None),
            "default_estimator_mu": float(default.privacy_.steps[-1][1].mu)}


def summary(runs):
    out = {}
    for name in ("default", "random", "before", "after"):
        scores = np.array([r[name] for r in runs])
        out[name] = {"median": float(np.median(scores)), "worst": float(scores.min())}
    for name in ("random", "before", "after"):
        out[f"{name}_minus_default"] = {
            "median": out[name]["median"] - out["default"]["median"],
            "worst": out[name]["worst"] - out["default"]["worst"]}
    out["after_kept_reference"] = int(sum(r["after_kept_reference"] for r in runs))
    out["after_ran_trials"] = int(sum(r["after_ran_trials"] for r in runs))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--rows", type=int, default=0,
                        help="0: 4,000 (adult), 3,000 (diamonds), 2,500 (poll)")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--tables", nargs="+", default=["adult", "diamonds", "poll"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"
                                             / "search_defaults.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the vectorizer's per-fit notes, not measured here
    result = {"machine": platform.platform(), "epsilon": args.epsilon, "delta": DELTA,
              "seeds": args.seeds, "grids": GRIDS, "random": RANDOM,
              "command": "python benchmarks/search_defaults.py " + " ".join(sys.argv[1:]),
              "tables": {}}
    for table in args.tables:
        rows = args.rows or ROWS[table]
        data = {"adult": _adult, "diamonds": _diamonds, "poll": _poll}[table](rows)
        tic = time.perf_counter()
        runs = [one_seed(table, data, args.epsilon, seed) for seed in range(args.seeds)]
        result["tables"][table] = {"rows": rows, "runs": runs, "summary": summary(runs),
                                   "seconds": time.perf_counter() - tic}
        s = result["tables"][table]["summary"]
        print(f"{table} ({rows} rows, epsilon {args.epsilon}, {args.seeds} seeds): "
              + "; ".join(f"{k} median {s[k]['median']:.4f} worst {s[k]['worst']:.4f}"
                          for k in ("default", "random", "before", "after"))
              + "; minus default (median/worst): "
              + ", ".join(f"{k} {s[k + '_minus_default']['median']:+.4f}/"
                          f"{s[k + '_minus_default']['worst']:+.4f}"
                          for k in ("random", "before", "after"))
              + f"; after ran trials {s['after_ran_trials']}/{args.seeds}, kept the "
              f"reference {s['after_kept_reference']}/{args.seeds}", flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
