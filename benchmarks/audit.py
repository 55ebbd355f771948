"""Empirical privacy audit: lower bound on epsilon vs the claim.

For each estimator and budget, ``skdpgd.audit.audit_epsilon`` trains the estimator
``--trials`` times on D and on D' (the gradient canary: row 0 is the anti-canary in D and
the canary in D', both ten times beyond the public bounds), scores every released model
by its signed output at the canary, and reports the Clopper-Pearson lower bound on
epsilon at the claimed delta (95% confidence, threshold chosen on a quarter of the
trials, bound on the rest). Data: n = 20 rows in 2 dimensions, uniform in [-0.3, 0.3]
on the first coordinate and 0 on the second (the canary's coordinate).

* ``DPLogisticRegression(eps, C=1, max_iter=10)`` and ``DPRidge(eps, alpha=1, max_iter=10, y_bound=1.0)``
  (fixed hyperparameters: the "auto" planner would cost ~0.2 s per fit);
* ``NoisyGDMean(eps)`` (eta = 0.5, K = 10): the quadratic instance on which the claimed
  epsilon is exact, i.e. the audit's own tightness; ``--exact-trials`` trials.

Usage::

    python benchmarks/audit.py [--trials 1000] [--exact-trials 50000] [--epsilons 0.5 1 2 4]
        [--estimators logistic ridge exact] [--n-jobs 1] [--seed 0]
        [--out benchmarks/results/audit.json]
"""

import argparse
import json
import time

import numpy as np

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.audit import NoisyGDMean, audit_epsilon


def audit_data(seed=0, n=20):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.3, 0.3, size=(n, 2))
    X[:, 1] = 0.0
    labels = (rng.random(n) < 0.5).astype(int)
    targets = rng.uniform(-0.5, 0.5, size=n)
    return X, labels, targets


def cases(epsilons, trials, exact_trials, which):
    for eps in epsilons:
        if "logistic" in which:
            yield "DPLogisticRegression", DPLogisticRegression(
                eps, C=1.0, max_iter=10
            ), "labels", trials
        if "ridge" in which:
            yield "DPRidge", DPRidge(eps, alpha=1.0, max_iter=10, y_bound=1.0), "targets", trials
        if "exact" in which:
            yield "NoisyGDMean (exact case)", NoisyGDMean(eps), None, exact_trials


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--exact-trials", type=int, default=50000)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--estimators",
        nargs="+",
        default=["logistic", "ridge", "exact"],
        choices=["logistic", "ridge", "exact"],
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    X, labels, targets = audit_data()
    rows = []
    print(
        "| estimator | claimed eps | delta | mu | trials / data set | eps lower bound | ratio | wall (s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, est, target, n_trials in cases(
        args.epsilons, args.trials, args.exact_trials, args.estimators
    ):
        y = {"labels": labels, "targets": targets, None: None}[target]
        start = time.perf_counter()
        result = audit_epsilon(
            est, X, y, n_trials=n_trials, n_jobs=args.n_jobs, random_state=args.seed
        )
        wall = time.perf_counter() - start
        row = dict(
            estimator=name,
            epsilon=result.epsilon_claimed,
            delta=result.delta,
            mu=result.mu_claimed,
            trials=n_trials,
            lower_bound=result.epsilon_lower_bound,
            ratio=result.epsilon_lower_bound / result.epsilon_claimed,
            wall_s=wall,
            passed=result.passed,
            test=vars(result.test),
        )
        rows.append(row)
        print(
            f"| {name} | {row['epsilon']:.3g} | {row['delta']:.0e} | {row['mu']:.3f} | {n_trials} "
            f"| {row['lower_bound']:.3f} | {row['ratio']:.2f} | {wall:.1f} |",
            flush=True,
        )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(args=vars(args), rows=rows), fh, indent=1, default=float)


if __name__ == "__main__":
    main()
