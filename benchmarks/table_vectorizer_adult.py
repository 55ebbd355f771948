"""DPTableVectorizer + DPLogisticRegression on raw Adult, nothing hand-written.

The vectorizer gets a public share of the budget (10% of mu^2) and the additive delta
of its thresholds (10% of delta); the estimator gets the rest. The total is
(epsilon, delta)-DP by exact GDP composition plus the additive delta
(docs/theory.md#table-vectorizer). Test accuracy on the original test split, median
over seeds.

    python benchmarks/table_vectorizer_adult.py [--seeds 5] [--epsilons 0.1 0.5 1 4]
"""

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from skdpgd import DPLogisticRegression
from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon
from skdpgd.datasets import load_adult
from skdpgd.preprocessing import DPTableVectorizer

SHARE = 0.1  # of mu^2 for the vectorizer, and of delta for its thresholds


def run(epsilon, delta, seed, X, y, X_test, y_test, **vectorizer_params):
    extra_delta = SHARE * delta
    mu_total = epsilon_delta_to_gdp(epsilon, delta - extra_delta)
    mu_vec, mu_est = math.sqrt(SHARE) * mu_total, math.sqrt(1 - SHARE) * mu_total
    vec = DPTableVectorizer(**vectorizer_params)._fit_private(
        X, mu=mu_vec, extra_delta=extra_delta, random_state=seed)
    eps_est = float(gdp_to_epsilon(mu_est, delta - extra_delta))
    est = DPLogisticRegression(epsilon=eps_est, delta=delta - extra_delta,
                               data_norm=vec.row_norm_bound_, random_state=seed + 1000)
    est.fit(vec.transform(X), y)
    mu_fit = est.privacy_.mu
    assert math.hypot(vec.privacy_.mu, mu_fit) <= mu_total * (1 + 1e-9)
    return float(est.score(vec.transform(X_test), y_test))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.5, 1.0, 4.0])
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    X, y = load_adult("train", as_frame=True, return_X_y=True)
    X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
    rows = []
    for epsilon in args.epsilons:
        start = time.perf_counter()
        scores = [run(epsilon, args.delta, s, X, y, X_test, y_test) for s in range(args.seeds)]
        rows.append({"epsilon": epsilon, "delta": args.delta, "share_mu2": SHARE,
                     "median_accuracy": float(np.median(scores)), "accuracies": scores,
                     "seconds_per_fit": (time.perf_counter() - start) / args.seeds})
        print(f"epsilon {epsilon:g}: median {np.median(scores):.4f}  {np.round(scores, 4)}")
    out = Path(__file__).parent / "results" / "table_vectorizer_adult.json"
    out.write_text(json.dumps({"command": "python benchmarks/table_vectorizer_adult.py",
                               "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
