"""Adversarial-record audit: can one huge finite record be detected beyond the claim?

For each estimator and solver at claimed epsilon 1 and 4, ``--trials`` fits on D and as
many on D', where D is 50 rows of norm about 0.7 in 2 dimensions and D' replaces row 0
by an adversarial *finite* record (fixed in advance, per estimator):

* binary ``DPLogisticRegression(classes=[0, 1])``: x = [1.2e308, -1.2e308], y = 1;
* multinomial ``DPLogisticRegression(classes=[0, 1, 2])``: x = [1.7e308, 0], y = 2;
* ``DPRidge(y_bound=10)``: x = [1.2e308, -1.2e308], y = 1e308.

Every hyperparameter is at its default ("auto" planning) except those named; each fit
gets its own ``random_state`` (trial i uses seed i on D and 10**6 + i on D'). Two
statistics, fixed before any trial was run:

1. ``nonfinite``: "coef_ or intercept_ contains NaN or inf", with D' as the alternative.
   The region and direction are fixed, so all trials enter
   :func:`skdpgd.audit.epsilon_from_counts` (Clopper-Pearson, 95%).
2. ``projection``: the released model's output on the clipped canary direction
   u = x / ||x|| (binary and ridge: coef_ . u; multinomial: the canary class's row . u),
   with a non-finite model scored +1e300 (a fixed map). Its threshold, side and
   direction are chosen on the first quarter of the trials and the Clopper-Pearson bound
   computed on the rest (:func:`skdpgd.audit.epsilon_from_scores`, 95%).

Resolution: with T trials a side and a perfect separation, the largest bound the counts
can give is log((p_lo - delta) / p_hi) with p_lo = 0.025^(1/T), p_hi = 1 - p_lo: 6.29 at
T = 2000 for ``nonfinite`` and 6.01 for ``projection`` (1500 evaluation trials); 4.91 and
4.62 at T = 500, where a claim of 4 can only just be refuted.

Run against another checkout with ``PYTHONPATH=/path/to/checkout``; the JSON records
which ``skdpgd`` was imported and its commit.

``--search``: the same question for :class:`skdpgd.model_selection.DPSearchCV` (whose
validation rows were once scored without clipping). D is 100 rows of norm 0.7 in 4
dimensions; D' replaces row 0 by ``[M, M, M, M]``, ``M = 1.797e308``. Two searches,
claimed epsilon 1 in total, ``expected_trials=10``, ``validation_size=0.2``, each
estimator with ``max_iter=10``:

* classifier: ``DPLogisticRegression(classes=[0, 1])`` over ``C`` in {0.1, 1, 10},
  y = [x_0 > 0];
* regressor: ``DPRidge(y_bound=10)`` over ``alpha`` in {0.1, 1, 10},
  y = 5 tanh(x . (1, -0.5, 0, 0) / 0.7) (targets of size ~5 make |coef_| > 1, so a row
  of M overflows term by term).

Search i runs with ``random_state`` i on D and 10**6 + i on D'. Statistics fixed in
advance, with D' as the alternative: ``nan`` ("best_score_ is NaN or infinite"),
``warning`` ("the fit emitted a warning", every warning recorded with
``simplefilter("always")``), each bounded with :func:`skdpgd.audit.epsilon_from_counts`;
and ``score``, a threshold test on best_score_ itself (non-finite scored +1e300),
:func:`skdpgd.audit.epsilon_from_scores`. All at 95%.

Usage::

    nice python benchmarks/adversarial_audit.py [--trials 2000] [--epsilons 1 4]
        [--solvers gd cyclic sgd] [--label TEXT] [--out PATH]
    nice python benchmarks/adversarial_audit.py --search [--trials 500] [--label TEXT]
        [--out PATH]

Nothing is written without ``--out``; name the file by the code it measured (e.g.
``benchmarks/results/adversarial_audit_overflow_safe_clip.json``), and say in ``--label``
which checkout that was.
"""

import argparse
import json
import os
import subprocess
import time
import warnings

import numpy as np

import skdpgd
from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.audit import epsilon_from_counts, epsilon_from_scores

N, CONFIDENCE = 50, 0.95

RECORDS = {
    "binary logistic": (np.array([1.2e308, -1.2e308]), 1),
    "multinomial logistic": (np.array([1.7e308, 0.0]), 2),
    "ridge (y_bound=10)": (np.array([1.2e308, -1.2e308]), 1e308),
}


def make(name, epsilon, solver, seed):
    common = dict(solver=solver, random_state=seed)
    if name == "binary logistic":
        return DPLogisticRegression(epsilon, classes=[0, 1], **common)
    if name == "multinomial logistic":
        return DPLogisticRegression(epsilon, classes=[0, 1, 2], **common)
    return DPRidge(epsilon, y_bound=10.0, **common)


def data(name, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 2))
    X *= 0.7 / np.linalg.norm(X, axis=1, keepdims=True)
    if name == "binary logistic":
        y = (X[:, 0] > 0).astype(int)
    elif name == "multinomial logistic":
        y = np.arange(N) % 3
    else:
        y = 5.0 * np.tanh(X @ np.array([1.0, -0.5]))
    return X, y


def neighbour(name, X, y):
    record, label = RECORDS[name]
    X2, y2 = X.copy(), np.array(y, dtype=float if name.startswith("ridge") else int)
    X2[0], y2[0] = record, label
    return X2, y2


def statistics(name, model):
    """(nonfinite, projection) of one released model."""
    record, label = RECORDS[name]
    coef = np.atleast_2d(np.asarray(model.coef_, dtype=float))
    params = np.concatenate([coef.ravel(), np.ravel(model.intercept_)])
    if not np.all(np.isfinite(params)):
        return True, 1e300
    u = record / np.max(np.abs(record))
    u = u / np.linalg.norm(u)
    row = coef[label] if name.startswith("multinomial") else coef[0]
    return False, float(row @ u)


def run_side(name, epsilon, solver, X, y, seeds):
    flags, scores = [], []
    for seed in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # overflow warnings of the old code
            try:
                model = make(name, epsilon, solver, int(seed)).fit(X, y)
                flag, score = statistics(name, model)
            except (ValueError, FloatingPointError, OverflowError) as exc:
                return None, f"{type(exc).__name__}: {exc}"
        flags.append(flag)
        scores.append(score)
    return (np.array(flags), np.array(scores)), None


SEARCH_N, SEARCH_D, FAR = 100, 4, 1.797e308


def search_data(kind):
    """(X, y, X') of the ``--search`` audit (module docstring)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(SEARCH_N, SEARCH_D))
    X *= 0.7 / np.linalg.norm(X, axis=1, keepdims=True)
    if kind == "classifier":
        y = (X[:, 0] > 0).astype(int)
    else:
        y = 5.0 * np.tanh(X @ np.array([1.0, -0.5, 0.0, 0.0]) / 0.7)
    X2 = X.copy()
    X2[0] = FAR
    return X, y, X2


def make_search(kind, seed):
    from skdpgd.model_selection import DPSearchCV

    if kind == "classifier":
        est, grid = DPLogisticRegression(classes=[0, 1], max_iter=10), {"C": [0.1, 1.0, 10.0]}
    else:
        est, grid = DPRidge(y_bound=10.0, max_iter=10), {"alpha": [0.1, 1.0, 10.0]}
    return DPSearchCV(est, grid, epsilon=1.0, expected_trials=10.0, random_state=seed)


def run_search_side(kind, X, y, seeds):
    """(non-finite flags, warning flags, scores, first warning text) over the seeds."""
    nan, warned, scores, first = [], [], [], None
    for seed in seeds:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search = make_search(kind, int(seed)).fit(X, y)
        score = float(search.best_score_)
        nan.append(not np.isfinite(score))
        warned.append(bool(caught))
        scores.append(score if np.isfinite(score) else 1e300)
        if caught and first is None:
            first = str(caught[0].message)
    return np.array(nan), np.array(warned), np.array(scores), first


def search_main(args, header):
    print("| search | claimed eps | best_score_ NaN on D | on D' | eps LB (NaN) "
          "| warning on D | on D' | eps LB (warning) | eps LB (score) | wall (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for kind in ("classifier", "regressor"):
        X, y, X2 = search_data(kind)
        start = time.perf_counter()
        nan_d, warn_d, score_d, _ = run_search_side(kind, X, y, np.arange(args.trials))
        nan_d2, warn_d2, score_d2, text = run_search_side(kind, X2, y,
                                                           10**6 + np.arange(args.trials))
        wall = time.perf_counter() - start
        delta = make_search(kind, 0).fit(X, y).privacy_.delta
        lb_nan = epsilon_from_counts(nan_d2.sum(), args.trials, nan_d.sum(), args.trials,
                                     delta=delta, confidence=CONFIDENCE)
        lb_warn = epsilon_from_counts(warn_d2.sum(), args.trials, warn_d.sum(), args.trials,
                                      delta=delta, confidence=CONFIDENCE)
        test = epsilon_from_scores(score_d, score_d2, delta=delta, confidence=CONFIDENCE)
        row = dict(search=kind, epsilon=1.0, delta=delta, trials=args.trials,
                   nan_d=int(nan_d.sum()), nan_d2=int(nan_d2.sum()), lb_nan=float(lb_nan),
                   warning_d=int(warn_d.sum()), warning_d2=int(warn_d2.sum()),
                   lb_warning=float(lb_warn), first_warning_d2=text,
                   lb_score=float(test.epsilon_lower_bound), score_test=vars(test),
                   wall_s=wall)
        rows.append(row)
        print(f"| {kind} | 1 | {row['nan_d']}/{args.trials} | {row['nan_d2']}/{args.trials} "
              f"| {lb_nan:.2f} | {row['warning_d']}/{args.trials} "
              f"| {row['warning_d2']}/{args.trials} | {lb_warn:.2f} "
              f"| {test.epsilon_lower_bound:.2f} | {wall:.0f} |", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(header, mode="search", args=vars(args), rows=rows), fh, indent=1,
                      default=float)


def commit_of(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 4.0])
    parser.add_argument("--solvers", nargs="+", default=["gd", "cyclic", "sgd"])
    parser.add_argument("--estimators", nargs="+", default=list(RECORDS))
    parser.add_argument("--label", default="")
    parser.add_argument("--out", default=None)
    parser.add_argument("--search", action="store_true",
                        help="audit DPSearchCV with a far validation row instead")
    args = parser.parse_args()
    source = os.path.dirname(os.path.dirname(os.path.abspath(skdpgd.__file__)))
    header = dict(label=args.label, skdpgd_path=source, commit=commit_of(source),
                  version=skdpgd.__version__, trials=args.trials, confidence=CONFIDENCE)
    print(f"# {header}")
    if args.search:
        search_main(args, header)
        return
    print("| estimator | solver | claimed eps | NaN/inf on D | on D' | eps LB (nonfinite) "
          "| eps LB (projection) | wall (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rows = []
    seeds_d = np.arange(args.trials)
    seeds_d2 = 10**6 + np.arange(args.trials)
    for name in args.estimators:
        X, y = data(name)
        X2, y2 = neighbour(name, X, y)
        for solver in args.solvers:
            for eps in args.epsilons:
                start = time.perf_counter()
                side_d, err_d = run_side(name, eps, solver, X, y, seeds_d)
                side_d2, err_d2 = run_side(name, eps, solver, X2, y2, seeds_d2)
                wall = time.perf_counter() - start
                row = dict(estimator=name, solver=solver, epsilon=eps, wall_s=wall,
                           error_d=err_d, error_d2=err_d2)
                if side_d is None or side_d2 is None:
                    rows.append(row)
                    print(f"| {name} | {solver} | {eps:g} | error: {err_d or err_d2} |")
                    continue
                (flags_d, scores_d), (flags_d2, scores_d2) = side_d, side_d2
                delta = make(name, eps, solver, 0).fit(X, y).privacy_.delta
                # Direction fixed in advance: a non-finite model is the alternative on D'.
                lb_flag = epsilon_from_counts(flags_d2.sum(), flags_d2.size, flags_d.sum(),
                                              flags_d.size, delta=delta, confidence=CONFIDENCE)
                test = epsilon_from_scores(scores_d, scores_d2, delta=delta,
                                           confidence=CONFIDENCE)
                row.update(delta=delta, nonfinite_d=int(flags_d.sum()),
                           nonfinite_d2=int(flags_d2.sum()), lb_nonfinite=float(lb_flag),
                           lb_projection=float(test.epsilon_lower_bound),
                           projection_test=vars(test))
                rows.append(row)
                print(f"| {name} | {solver} | {eps:g} | {row['nonfinite_d']}/{args.trials} "
                      f"| {row['nonfinite_d2']}/{args.trials} | {lb_flag:.2f} "
                      f"| {test.epsilon_lower_bound:.2f} | {wall:.0f} |", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(header, args=vars(args), rows=rows), fh, indent=1, default=float)


if __name__ == "__main__":
    main()
