"""Raw tables whose numeric columns are spread over many cells of the public grid.

A synthetic raw table (off every grid: nothing here was tuned on it) with three spread
numeric columns (standard normal, exponential, lognormal) and one text column, the
target linear in the columns (regression: ``DPRidge(y_bound="auto")``, the target's
range released too; classification: its sign, ``DPLogisticRegression(classes=[0, 1])``),
through the raw-table path a user takes,
``make_dp_pipeline(DPTableVectorizer(), estimator, epsilon=...)``, against the same
pipeline with the columns' ranges and categories given as public bounds (the hand-bounded
pipeline: the 1% and 99% quantiles of the generating laws, nothing released but the
model; for the regression ``y_bound`` the 99.5% quantile of |y|'s law).

Per n (training rows; 5,000 test rows), epsilon and seed: a fresh table drawn from the
seed, both pipelines at that seed; medians over the seeds of test R^2 and accuracy.
With ``--before PATH`` the raw-table pipeline is also run on the skdpgd package found
under PATH (a subprocess with ``PYTHONPATH=PATH``), in the same run. Usage::

    git archive <commit> skdpgd | tar -x -C /tmp/before
    python benchmarks/spread_columns.py [--seeds 5] [--before /tmp/before]
        [--out benchmarks/results/spread_columns.json]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results" / "spread_columns.json"
SIZES = (2000, 5000, 20000)
EPSILONS = (1.0, 4.0)
N_TEST = 5000
# the generating laws' 1% and 99% quantiles (public bounds of the hand-bounded pipeline)
PUBLIC_BOUNDS = {"normal": (-2.33, 2.33), "exponential": (0.01, 4.61),
                 "lognormal": (np.exp(-2.33), np.exp(2.33))}
TARGET_BOUND = 7.0  # about the 99.5% quantile of |y|'s law below


def table(n, seed):
    """(X, y): the raw table and the regression target (module docstring)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "normal": rng.standard_normal(n),
        "exponential": rng.exponential(1.0, n),
        "lognormal": rng.lognormal(0.0, 1.0, n),
        "kind": rng.choice(["a", "b", "c"], n),
    })
    y = (1.5 * X["normal"] + 1.0 * (X["exponential"] - 1.0)
         + 0.5 * np.log(X["lognormal"]) + X["kind"].map({"a": -1.0, "b": 0.0, "c": 1.0})
         + 0.5 * rng.standard_normal(n))
    return X, y.to_numpy()


def run_raw(seeds, sizes=SIZES, epsilons=EPSILONS, hand=True):
    """{(n, epsilon): {"ridge": [...], "logistic": [...], ...}} on the skdpgd found here."""
    from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    out = {}
    for n in sizes:
        for eps in epsilons:
            cell = {"ridge": [], "logistic": [], "ridge_hand": [], "logistic_hand": []}
            for seed in range(seeds):
                X, y = table(n + N_TEST, seed)
                Xtr, ytr, Xte, yte = X.iloc[:n], y[:n], X.iloc[n:], y[n:]
                kinds = [("", DPTableVectorizer(), "auto")]
                if hand:
                    kinds.append(("_hand", DPTableVectorizer(
                        bounds=PUBLIC_BOUNDS, categories={"kind": ["a", "b", "c"]}),
                        TARGET_BOUND))
                for suffix, vectorizer, y_bound in kinds:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ridge = make_dp_pipeline(vectorizer, DPRidge(y_bound=y_bound),
                                                 epsilon=eps, random_state=seed).fit(Xtr, ytr)
                        logistic = make_dp_pipeline(
                            vectorizer, DPLogisticRegression(classes=[0, 1]), epsilon=eps,
                            random_state=seed).fit(Xtr, (ytr > 0).astype(int))
                    cell["ridge" + suffix].append(float(ridge.score(Xte, yte)))
                    cell["logistic" + suffix].append(
                        float(logistic.score(Xte, (yte > 0).astype(int))))
            out[f"{n}/{eps:g}"] = {k: v for k, v in cell.items() if v}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--before", default=None)
    parser.add_argument("--raw-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    if args.raw_only:  # the --before subprocess
        print(json.dumps(run_raw(args.seeds, hand=False)))
        return
    before = None
    if args.before:
        env = dict(os.environ, PYTHONPATH=args.before)
        text = subprocess.run([sys.executable, __file__, "--raw-only", "--seeds",
                               str(args.seeds)], env=env, capture_output=True, text=True,
                              check=True).stdout
        before = json.loads(text.strip().splitlines()[-1])
    after = run_raw(args.seeds)
    med = lambda xs: float(np.median(xs))  # noqa: E731
    print("| n | eps | R^2 raw (before) | R^2 hand-bounded | accuracy raw (before) "
          "| accuracy hand-bounded |")
    print("|---:|---:|---|---:|---|---:|")
    for key, cell in after.items():
        n, eps = key.split("/")
        old = before[key] if before else None
        ridge = f"{med(cell['ridge']):.3f}" + (f" ({med(old['ridge']):.3f})" if old else "")
        logit = f"{med(cell['logistic']):.3f}" + (
            f" ({med(old['logistic']):.3f})" if old else "")
        print(f"| {n} | {eps} | {ridge} | {med(cell['ridge_hand']):.3f} | {logit} "
              f"| {med(cell['logistic_hand']):.3f} |")
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join(["python", "benchmarks/spread_columns.py"] + (argv or sys.argv[1:])),
        machine=f"{platform.machine()}, Python {platform.python_version()}",
        seeds=args.seeds, before=args.before, after=after, before_raw=before), indent=1)
        + "\n")


if __name__ == "__main__":
    main()
