"""Fit time of DPLogisticRegression (defaults) against scikit-learn's lbfgs on Adult.

Both run in the same process on the same arrays; median of --repeats fits each, reported
as a ratio. Usage: python benchmarks/fit_time.py [--repeats 5] [--epsilons 0.1 1 8]
"""

import argparse
import time

import numpy as np
from datasets import load_adult
from sklearn.linear_model import LogisticRegression

from skdpgd import DPLogisticRegression


def median_seconds(fit, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0, 8.0])
    args = parser.parse_args()
    X, y, _, _ = load_adult()
    print("| epsilon | skdpgd fit (s) | steps K | lbfgs fit (s) | ratio |")
    print("|---:|---:|---:|---:|---:|")
    for epsilon in args.epsilons:
        model = DPLogisticRegression(epsilon=epsilon, delta=1e-5, random_state=0)
        ours = median_seconds(lambda: model.fit(X, y), args.repeats)
        ref = median_seconds(lambda: LogisticRegression(max_iter=1000).fit(X, y), args.repeats)
        print(f"| {epsilon:g} | {ours:.3f} | {model.n_iter_} | {ref:.3f} | {ours / ref:.2f} |")


if __name__ == "__main__":
    main()
