"""Private intervals through a DP pipeline, in the units of the raw table.

A synthetic linear table (nothing here was tuned on it): ``y = 100 + 50 x + N(0, 20^2)``,
``x ~ U(0, 10)`` raw, public range [0, 10] for x (no missing indicator), through
``make_dp_pipeline(DPTableVectorizer(...), DPRidge(y_bound="auto", inference=True))``:
the range of y is released, the model fitted on y mapped to [-1, 1], and every inference
output mapped back (docs/theory.md, "Inference through a pipeline"). Per repetition (a
fresh table and seed): whether ``summary(units="original")``'s 95% intervals cover the
true slope 50 and intercept 100, whether ``conf_int()`` contains ``coef_`` and
``intercept_``, and the private standard errors over the non-private least-squares ones
on the same data (medians). Usage::

    python benchmarks/inference_pipeline_units.py [--reps 300] [--n 20000] [--epsilon 1]
        [--out benchmarks/results/inference_pipeline_units.json]
"""

import argparse
import json
import platform
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer

RESULTS = Path(__file__).resolve().parent / "results" / "inference_pipeline_units.json"
TRUTH = {"x": 50.0, "intercept": 100.0}


def one(n, epsilon, seed):
    """One table and fit: (covered per coefficient, conf_int contains coef_, se ratios)."""
    rng = np.random.default_rng(1000 + seed)
    x = rng.uniform(0.0, 10.0, n)
    y = 100.0 + 50.0 * x + rng.normal(0.0, 20.0, n)
    vectorizer = DPTableVectorizer(bounds={"x": (0.0, 10.0)}, add_indicator=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_dp_pipeline(vectorizer, DPRidge(y_bound="auto", inference=True),
                                epsilon=epsilon, random_state=seed).fit(
                                    pd.DataFrame({"x": x}), y)
    raw = pipe.summary(units="original")
    covered = [bool(raw.loc[k, "ci_low"] <= v <= raw.loc[k, "ci_high"])
               for k, v in TRUTH.items()]
    model, ci = pipe.pipeline_[-1], pipe.conf_int()
    estimate = np.r_[model.coef_, model.intercept_]
    contains = bool(np.all((ci[:, 0] < estimate) & (estimate < ci[:, 1])))
    design = np.c_[x, np.ones(n)]
    _, residual, *_ = np.linalg.lstsq(design, y, rcond=None)
    ols_se = np.sqrt(np.diag(residual[0] / (n - 2) * np.linalg.inv(design.T @ design)))
    return covered, contains, (raw.loc[list(TRUTH), "std_err"].to_numpy() / ols_se).tolist()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    runs = [one(args.n, args.epsilon, seed) for seed in range(args.reps)]
    covered = np.mean([r[0] for r in runs], axis=0)
    result = {
        "n": args.n, "epsilon": args.epsilon, "reps": args.reps,
        "coverage": dict(zip(TRUTH, covered.round(4).tolist(), strict=True)),
        "conf_int_contains_coef": float(np.mean([r[1] for r in runs])),
        "median_se_over_ols": dict(zip(TRUTH, np.median([r[2] for r in runs], axis=0)
                                       .round(3).tolist(), strict=True)),
        "machine": platform.platform(),
    }
    print(json.dumps(result, indent=2))
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
