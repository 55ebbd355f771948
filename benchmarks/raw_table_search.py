"""Searches on a raw table: a grid search under a capped ledger, one total, a private selection.

On the raw Adult table (``skdpgd.datasets.load_adult(as_frame=True)``: 14 columns, 8 of
them strings, ``"?"`` for unknown values; shipped with skdpgd) through the default
``make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]))``:

1. **Grid search under a cap.** ``DPPipeline.prepare`` releases the preparation once
   (charged once), then ``GridSearchCV`` (3 folds x 8 candidates: ``epsilon`` in
   {0.25, 0.5, 1, 2} x ``C`` in {0.1, 1}, refit) on the prepared pipeline, with a
   ``PrivacyLedger(epsilon=10, delta=1e-5)``. Target: it completes (no fit refused);
   recorded: the ledger's total, its additive delta, the number of charges, the time.
   For contrast, the same grid on the *unprepared* pipeline, on a copy of the ledger:
   how many fits complete before the cap refuses one, and the refusal's reason.
2. **One total.** ``search_privacy_cost(search)`` against ``ledger.spent()``: target,
   equal to 1e-9 relative; also for the unprepared pipeline with hashed categories
   (``DPTableVectorizer(categorical="hash")``) on an uncapped ledger, priced with
   ``X=`` (the table's structure) and without it (from the parameters alone).
3. **Private selection.** ``DPSearchCV`` at total epsilon 1 (delta 1e-5, E[K] = 10,
   grid ``C`` in {"auto", 0.01, 0.1, 1, 10}) on the default pipeline, over seeds; its
   chosen model's test accuracy against (a) the default candidate (``C="auto"``) fitted
   once at the per-trial budget on the same training rows with the same released
   preparation (target: chosen >= default - 0.01, on the mean over seeds), and (b) the
   default pipeline fitted once at the whole epsilon 1 on all rows (what the search's
   budget split costs). The budget split (preparation mu and additive delta, trial mu) is
   recorded beside it.

Scores: accuracy on the original Adult test file (16,281 rows, public evaluation).

    python benchmarks/raw_table_search.py [--seeds 3] [--rows 10000]

(``--rows``: a random subsample of the training table, seed 0, so that the run stays
within a couple of minutes on a small machine; ``--rows 0`` uses all of it.)

Results: ``benchmarks/results/raw_table_search.json``.
"""

import argparse
import copy
import json
import math
import platform
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import DPSearchCV, search_privacy_cost
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.utils._validation import resolve_delta

DELTA = 1e-5
GRID = {"epsilon": [0.25, 0.5, 1.0, 2.0], "dplogisticregression__C": [0.1, 1.0]}
CV = KFold(3, shuffle=True, random_state=0)


def _pipe(vectorizer=None, **kw):
    return make_dp_pipeline(vectorizer or DPTableVectorizer(),
                            DPLogisticRegression(classes=[0, 1]), delta=DELTA, **kw)


def grid_search(X, y, X_test, y_test):
    ids = np.arange(len(X))
    ledger = PrivacyLedger(epsilon=10.0, delta=DELTA)
    start = time.perf_counter()
    prepared = _pipe(random_state=0).prepare(X, ledger=ledger, sample_ids=ids)
    search = GridSearchCV(prepared, GRID, cv=CV, error_score="raise")
    search.fit(X, y, sample_ids=ids)
    seconds = time.perf_counter() - start
    spent = ledger.spent()
    cost = search_privacy_cost(search)
    out = {
        "completed": True, "seconds": seconds, "charges": len(ledger.entries),
        "ledger_epsilon": spent.epsilon, "ledger_extra_delta": spent.extra_delta,
        "cost_epsilon": cost.epsilon,
        "relative_difference": abs(cost.epsilon - spent.epsilon) / spent.epsilon,
        "shared": [list(s) for s in cost.shared],
        "best_params": search.best_params_,
        "test_accuracy": float(search.score(X_test, y_test)),
    }
    # contrast: the same grid without prepare, on its own ledger with the same cap
    capped = PrivacyLedger(epsilon=10.0, delta=DELTA)
    unprepared = GridSearchCV(_pipe(random_state=0, ledger=capped), GRID, cv=CV,
                              error_score="raise")
    try:
        unprepared.fit(X, y, sample_ids=ids)
        out["unprepared"] = {"completed": True}
    except PrivacyBudgetExceeded as refusal:
        out["unprepared"] = {"completed": False, "fits_before_refusal": len(capped.entries),
                             "extra_delta_before_refusal": capped.spent().extra_delta,
                             "refusal": str(refusal)}
    # one total without prepare, hashed categories: priced with the table's structure
    free = PrivacyLedger()
    hashed = GridSearchCV(_pipe(DPTableVectorizer(categorical="hash"), random_state=0,
                                ledger=free), GRID, cv=CV, error_score="raise")
    hashed.fit(X, y, sample_ids=ids)
    hashed_cost = search_privacy_cost(hashed, X=X)
    without_x = search_privacy_cost(hashed).epsilon  # planned from the parameters alone
    out["hashed_unprepared"] = {
        "ledger_epsilon": free.spent(DELTA).epsilon, "cost_epsilon": hashed_cost.epsilon,
        "relative_difference": abs(hashed_cost.epsilon - free.spent(DELTA).epsilon)
        / free.spent(DELTA).epsilon,
        "cost_epsilon_without_X": without_x,
        "relative_difference_without_X": abs(without_x - free.spent(DELTA).epsilon)
        / free.spent(DELTA).epsilon,
    }
    return out


def private_selection(X, y, X_test, y_test, seed):
    grid = {"dplogisticregression__C": ["auto", 0.01, 0.1, 1.0, 10.0]}
    search = DPSearchCV(_pipe(), grid, epsilon=1.0, delta=DELTA, expected_trials=10.0,
                        random_state=seed)  # random trials, as measured below
    search.fit(X, y)
    report = search.privacy_
    # the search's training rows: its split is a function of the seed and n only
    n, m = len(X), report.n_validation
    order = np.random.default_rng(seed).permutation(n)
    train = np.sort(order[m:])
    # the default candidate, once, at the per-trial budget, with the same released map
    delta_fit = resolve_delta("auto", train.size)
    default = copy.deepcopy(search.best_estimator_).set_params(
        dplogisticregression__C="auto", random_state=seed + 1000, delta=delta_fit,
        epsilon=accounting.gdp_to_epsilon(report.trial_mu * (1 - 1e-9), delta_fit))
    default.fit(X.iloc[train], y[train])
    whole = _pipe(epsilon=1.0, random_state=seed + 2000).fit(X, y)
    return {
        "seed": seed, "epsilon": report.epsilon, "best_params": search.best_params_,
        "chosen_accuracy": float(search.score(X_test, y_test)),
        "default_at_trial_budget_accuracy": float(default.score(X_test, y_test)),
        "default_whole_budget_accuracy": float(whole.score(X_test, y_test)),
        "trial_mu": report.trial_mu, "preparation_mu": report.preparation_mu,
        "preparation_extra_delta": report.preparation_extra_delta,
        "whole_budget_mu": whole.privacy_.mu,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=10000,
                        help="subsample of the 32,561 training rows (0: all of them)")
    args = parser.parse_args()
    X, y = load_adult("train", as_frame=True, return_X_y=True)
    y = np.asarray(y)
    if args.rows:
        rows = np.random.default_rng(0).choice(len(X), args.rows, replace=False)
        X, y = X.iloc[rows].reset_index(drop=True), y[rows]
    X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
    result = {"machine": platform.platform(), "n_train": len(X), "n_test": len(X_test),
              "grid": GRID, "grid_search": grid_search(X, y, X_test, y_test)}
    runs = [private_selection(X, y, X_test, y_test, seed) for seed in range(args.seeds)]
    chosen = float(np.mean([r["chosen_accuracy"] for r in runs]))
    default = float(np.mean([r["default_at_trial_budget_accuracy"] for r in runs]))
    whole = float(np.mean([r["default_whole_budget_accuracy"] for r in runs]))
    gs = result["grid_search"]
    result["dpsearch"] = {"runs": runs, "mean_chosen": chosen,
                          "mean_default_at_trial_budget": default,
                          "mean_default_whole_budget": whole}
    result["targets"] = {
        "grid_search_completes_under_cap_10": gs["completed"] and gs["ledger_epsilon"] <= 10,
        "search_cost_equals_ledger_1e-9": gs["relative_difference"] <= 1e-9
        and gs["hashed_unprepared"]["relative_difference"] <= 1e-9
        and gs["hashed_unprepared"]["relative_difference_without_X"] <= 1e-9,
        "dpsearch_total_epsilon_at_most_1": all(r["epsilon"] <= 1.0 for r in runs),
        "dpsearch_chosen_at_least_default_minus_0.01": chosen >= default - 0.01,
    }
    out = Path(__file__).parent / "results" / "raw_table_search.json"
    out.write_text(json.dumps(result, indent=1, default=float) + "\n")
    print(f"grid search (prepared): {gs['charges']} charges, ledger epsilon "
          f"{gs['ledger_epsilon']:.6f} (additive delta {gs['ledger_extra_delta']:.3g}), "
          f"search_privacy_cost {gs['cost_epsilon']:.6f}, relative difference "
          f"{gs['relative_difference']:.2g}, {gs['seconds']:.1f} s, test accuracy "
          f"{gs['test_accuracy']:.4f}, best {gs['best_params']}")
    un = gs["unprepared"]
    print("grid search (unprepared):", "completed" if un["completed"] else
          f"refused after {un['fits_before_refusal']} fits (additive delta "
          f"{un['extra_delta_before_refusal']:.3g})")
    h = gs["hashed_unprepared"]
    print(f"hashed, unprepared: ledger {h['ledger_epsilon']:.6f}, search_privacy_cost(X=X) "
          f"{h['cost_epsilon']:.6f}, relative difference {h['relative_difference']:.2g}; "
          f"without X {h['cost_epsilon_without_X']:.6f} "
          f"({h['relative_difference_without_X']:.2g})")
    for r in runs:
        print(f"DPSearchCV seed {r['seed']}: epsilon {r['epsilon']:.6f}, chose "
              f"{r['best_params']}: {r['chosen_accuracy']:.4f}; default at the trial budget "
              f"{r['default_at_trial_budget_accuracy']:.4f}; default with the whole epsilon 1 "
              f"{r['default_whole_budget_accuracy']:.4f}; trial mu {r['trial_mu']:.4f}, "
              f"preparation mu {r['preparation_mu']:.4f} + additive delta "
              f"{r['preparation_extra_delta']:.2g}, whole-budget mu {r['whole_budget_mu']:.4f}")
    print(f"means: chosen {chosen:.4f}, default at trial budget {default:.4f}, "
          f"default with the whole budget {whole:.4f}")
    print("targets:", result["targets"])
    assert not math.isnan(chosen)


if __name__ == "__main__":
    main()
