"""Coverage of the private confidence intervals of ``inference=True`` (not a test).

For each cell (model, p, n, budget) it simulates ``--reps`` data sets from a known model,
fits ``DPRidge`` / ``DPLogisticRegression(..., inference=True)`` and records, for every
coefficient (features and intercept): whether the nominal 95% interval covers the TRUE
coefficient of the data-generating model, and its width; the width of the non-private
statsmodels interval (OLS / Logit, on the same data, for the first ``--sm-reps``
repetitions: it barely varies); whether the fit refused inference (public rule) and
whether the table carried a warning.

Data (public constants; rows of norm <= 1 = data_norm, so row clipping is a no-op):
x ~ Uniform(-1, 1)^p / sqrt(p); linear: y = x.beta + 0.2 + 0.5 e with e a standard normal
clipped at +-4 (symmetric, so the Huber target is beta) and y_bound = sum|beta|/sqrt(p) +
0.2 + 2 (|y| never exceeds it); logistic: P(y = 1 | x) = expit(x.beta + 0.2). beta_j runs
evenly over [-1, 1] (linear) or [-2, 2] (logistic). delta = min(1e-5, 0.1/n) (1e-5 is
refused at n = 1e5, where it is not below 1/n).

Grid: model in {linear, logistic} x p in {4, 10, 30} x n in {1e3, 1e4, 1e5} x epsilon in
{0.5, 1, 4}, plus the anchor's design (linear, p = 4, mu = 1, n in {250, 500, 1000,
2000}; Avella-Medina, Bradshaw and Loh 2023, Figure 6). Cell names look like
``linear-p4-n1000-eps1`` or ``anchor-p4-n250-mu1``; ``--cells`` keeps the cells whose
name contains any of the given substrings.

Usage (the full grid on 16 cores, in two commands of a few minutes each, then merged)::

    python benchmarks/inference_coverage.py --reps 500 --n-jobs 16 \\
        --cells n1000- n10000- anchor --out small.json
    python benchmarks/inference_coverage.py --reps 500 --n-jobs 16 \\
        --cells n100000 --out large.json
    python benchmarks/inference_coverage.py --merge small.json large.json \\
        --out benchmarks/results/inference_coverage.json
    python benchmarks/inference_coverage.py --reps 100 --cells linear-p4-n1000 --n-jobs 2

Results are written after every cell (an interrupted run keeps the finished cells, and a
rerun with ``--cells`` adds the missing ones to the same ``--out``).
"""

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

# one BLAS thread per worker: --n-jobs workers share the cores (statsmodels' OLS and Logit
# at n = 1e5 are 5-10x slower with oversubscribed BLAS threads)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.accounting import gdp_to_epsilon

Z95 = 1.959963984540054
NOISE_SD = 0.5


def cells():
    out = []
    for model in ("linear", "logistic"):
        for p in (4, 10, 30):
            for n in (1000, 10000, 100000):
                for eps in (0.5, 1.0, 4.0):
                    out.append({"name": f"{model}-p{p}-n{n}-eps{eps:g}", "model": model,
                                "p": p, "n": n, "epsilon": eps, "mu": None})
    for n in (250, 500, 1000, 2000):
        out.append({"name": f"anchor-p4-n{n}-mu1", "model": "linear", "p": 4, "n": n,
                    "epsilon": None, "mu": 1.0})
    return out


def truth(model, p):
    beta = np.linspace(-1.0, 1.0, p) * (1.0 if model == "linear" else 2.0)
    return beta, 0.2


def simulate(model, n, p, rng):
    beta, b0 = truth(model, p)
    X = rng.uniform(-1.0, 1.0, (n, p)) / math.sqrt(p)
    t = X @ beta + b0
    if model == "linear":
        y = t + NOISE_SD * np.clip(rng.standard_normal(n), -4.0, 4.0)
    else:
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-t))).astype(float)
    return X, y


def estimator(cell, seed):
    n, p = cell["n"], cell["p"]
    delta = min(1e-5, 0.1 / n)
    eps = cell["epsilon"] if cell["mu"] is None else float(gdp_to_epsilon(cell["mu"], delta))
    if cell["model"] == "linear":
        beta, b0 = truth("linear", p)
        bound = float(np.abs(beta).sum() / math.sqrt(p) + abs(b0) + 4 * NOISE_SD)
        return DPRidge(epsilon=eps, delta=delta, y_bound=bound, random_state=seed,
                       inference=True)
    return DPLogisticRegression(epsilon=eps, delta=delta, classes=[0, 1], random_state=seed,
                                inference=True)


def statsmodels_width(model, X, y):
    import statsmodels.api as sm

    design = sm.add_constant(X, prepend=False)
    fit = sm.OLS(y, design).fit() if model == "linear" else sm.Logit(y, design).fit(disp=0)
    return 2 * Z95 * np.asarray(fit.bse), np.asarray(fit.params)


def one_rep(cell, rep, with_sm):
    rng = np.random.default_rng([cell["n"], cell["p"], rep, 30])
    X, y = simulate(cell["model"], cell["n"], cell["p"], rng)
    beta, b0 = truth(cell["model"], cell["p"])
    target = np.r_[beta, b0]
    out = {"rep": rep}
    start = time.perf_counter()
    try:
        est = estimator(cell, rep).fit(X, y)
    except ValueError as err:
        if "inference" not in str(err):
            raise
        out.update(refused=True, reason=str(err))
        return out
    out["fit_s"] = time.perf_counter() - start
    ci = est.conf_int(0.05)
    out.update(
        refused=False, covered=((ci[:, 0] <= target) & (target <= ci[:, 1])).tolist(),
        width=(ci[:, 1] - ci[:, 0]).tolist(),
        warned=len(est.inference_.notes) > 1,
        mu=float(est.privacy_.mu), epsilon=float(est.privacy_.epsilon), solver=est.solver_,
    )
    if with_sm:
        width, params = statsmodels_width(cell["model"], X, y)
        out["sm_width"] = width.tolist()
        lo, hi = ci[:, 0], ci[:, 1]
        out["contains_sm"] = ((lo <= params) & (params <= hi)).tolist()
    return out


def summarise(cell, reps):
    done = [r for r in reps if not r["refused"]]
    row = {k: cell[k] for k in ("name", "model", "p", "n", "epsilon", "mu")}
    row["reps"] = len(reps)
    row["refused"] = len(reps) - len(done)
    if not done:
        row["reason"] = reps[0]["reason"]
        return row
    covered = np.array([r["covered"] for r in done], dtype=float)
    width = np.array([r["width"] for r in done])
    warned = np.array([r["warned"] for r in done])
    row.update(
        coverage=float(covered.mean()),
        coverage_per_coef=covered.mean(axis=0).round(4).tolist(),
        coverage_min_coef=float(covered.mean(axis=0).min()),
        warned=float(warned.mean()),
        coverage_unwarned=float(covered[~warned].mean()) if (~warned).any() else None,
        median_width=np.median(width, axis=0).round(6).tolist(),
        solver=sorted({r["solver"] for r in done}), mu=done[0]["mu"],
        epsilon_reported=done[0]["epsilon"],
        mean_fit_s=float(np.mean([r["fit_s"] for r in done])),
    )
    sm = [r for r in done if "sm_width" in r]
    if sm:
        sm_width = np.median(np.array([r["sm_width"] for r in sm]), axis=0)
        ratio = np.median(width, axis=0) / sm_width
        row.update(width_ratio=ratio.round(4).tolist(), width_ratio_median=float(np.median(ratio)))
    return row


def print_table(results):
    """Markdown: one row per (model, p, budget), one column per n: coverage (width ratio)."""
    rows = {}
    for row in results["cells"]:
        budget = row["name"].rsplit("-", 1)[1].replace("eps", "eps ").replace("mu", "mu ")
        key = ("anchor" if row["name"].startswith("anchor") else row["model"], row["p"], budget)
        if row.get("coverage") is None:
            text = "refused"
        else:
            text = f"{row['coverage']:.3f} ({row.get('width_ratio_median', float('nan')):.2f})"
            if row.get("warned"):
                text += f" w{row['warned']:.2f}"
        rows.setdefault(key, {})[row["n"]] = text
    sizes = sorted({n for cols in rows.values() for n in cols})
    print(f"repetitions per cell: {results['reps']}; coverage (median width / statsmodels); "
          "wX: share of tables that warn")
    print("| model | p | budget | " + " | ".join(f"n = {n}" for n in sizes) + " |")
    print("|---|---:|---|" + "---:|" * len(sizes))
    for (model, p, budget), cols in rows.items():
        print(f"| {model} | {p} | {budget} | "
              + " | ".join(cols.get(n, "") for n in sizes) + " |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--sm-reps", type=int, default=20)
    parser.add_argument("--cells", nargs="*", default=None)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/results/inference_coverage.json")
    parser.add_argument("--merge", nargs="*", default=None, metavar="JSON",
                        help="only merge these result files (later files win) into --out")
    parser.add_argument("--table", action="store_true",
                        help="only print the results in --out as a markdown table")
    args = parser.parse_args(argv)
    if args.table:
        print_table(json.loads(Path(args.out).read_text()))
        return
    if args.merge is not None:
        merged = {}
        for path in args.merge:
            data = json.loads(Path(path).read_text())
            merged.update({row["name"]: row for row in data["cells"]})
            reps = data["reps"]
        Path(args.out).write_text(json.dumps({
            "reps": reps, "python": platform.python_version(),
            "cells": [merged[c["name"]] for c in cells() if c["name"] in merged],
        }, indent=1))
        return
    chosen = [c for c in cells() if not args.cells or any(s in c["name"] for s in args.cells)]
    results = {}
    out = Path(args.out)
    if out.exists():
        results = {row["name"]: row for row in json.loads(out.read_text())["cells"]}
    start = time.perf_counter()
    with Parallel(n_jobs=args.n_jobs) as parallel:
        for cell in chosen:
            t0 = time.perf_counter()
            reps = parallel(delayed(one_rep)(cell, rep, rep < args.sm_reps)
                            for rep in range(args.reps))
            row = summarise(cell, reps)
            row["wall_s"] = time.perf_counter() - t0
            results[cell["name"]] = row
            print(json.dumps({k: row.get(k) for k in (
                "name", "refused", "coverage", "coverage_min_coef", "warned",
                "coverage_unwarned", "width_ratio_median", "solver", "wall_s")}), flush=True)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({
                "reps": args.reps, "python": platform.python_version(),
                "cells": [results[c["name"]] for c in cells() if c["name"] in results],
            }, indent=1))
    print(f"total {time.perf_counter() - start:.1f}s", flush=True)


if __name__ == "__main__":
    main()
