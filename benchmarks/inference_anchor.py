"""skdpgd's private intervals beside Avella-Medina, Bradshaw and Loh's on their Figure-6 design.

Not a test. The design of their Figure 6 (authors' code, github.com/cbr92/PrivateOptimization,
``figs/Figure6.R``): x = (1, z), z ~ N(0, S) with S = [[1, .5, 0], [.5, 2, 0], [0, 0, 2]],
y = x.beta + 2 e, beta = (1, 1, 1, 1), e standard normal; n in {250, 500, 750, 1000, 1500,
2000, 4000} with T = 15, 16, 17, 17, 18, 18, 19 Newton steps; mu = 1; step 0.5; known scale
s0 = 2; private stopping. Their figure plots the coverage of the third coefficient (the
coefficient of z_2, "private stopping, corrected"): about .873, .921, .930, .925, .934, .938,
.942 read off the published plot.

On the SAME data (seeded by n and the repetition), three methods:

* ``theirs``: the port in ``inference_anchor_port.py`` as the authors' code calibrates it;
* ``theirs_replace_one``: the same with the matrices' noise at their replace-one sensitivity
  (x sqrt 2), mu = 1 in skdpgd's convention;
* ``skdpgd``: ``DPRidge(epsilon=gdp_to_epsilon(1, delta), delta=min(1e-5, 0.1/n),
  data_norm=6, y_bound=15, residual_clip=2 * 1.345, inference=True)`` on z (intercept fitted),
  mu = 1. data_norm 6 is exceeded by 2.5e-4 of the rows under the design (target moves by
  < .002, Monte Carlo), y_bound 15 by 7.5e-6; the Huber threshold is theirs (k s0);
* ``skdpgd_unit``: the same, the intercept a column of ones inside the row norm bound:
  ``scale_rows_with_target(x, y, 6)`` (each row (1, z) and its y scaled together to norm at
  most 6: a row beyond it is scaled, not clipped alone) and ``fit_intercept=False``,
  ``data_norm=6``;
* ``skdpgd_scaled``: ``scale_rows_with_target(x, y, sqrt 2)``, ``data_norm=sqrt 2``: their
  Mallows norm m = sqrt 2 as the public row norm bound (Schweppe-type weights min(1,
  m/||x||) on the row and its residual, the same true beta under their symmetric errors;
  docs/theory.md, "Rows scaled with their target").

Per n and method: coverage of the TRUE beta per coefficient (intercept first), the median
width per coefficient over its finite intervals, the share of NaN intervals, and ratios skdpgd / theirs of the median widths; the median OLS
width (non-private, same data) for scale. Coverage is printed over finite intervals, with the share of NaN (skdpgd gives no
interval where the release does not identify a coefficient); ``coverage`` in the JSON
counts NaN as not covering.

Usage::

    nice -n 10 python benchmarks/inference_anchor.py --reps 200 \\
        --out benchmarks/results/inference_anchor.json
    python benchmarks/inference_anchor.py --table --out benchmarks/results/inference_anchor.json
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from inference_anchor_port import HUBER_K, noisy_newton

from skdpgd import DPRidge
from skdpgd.accounting import gdp_to_epsilon
from skdpgd.preprocessing import scale_rows_with_target

Z95 = 1.959963984540054
SIGMA = np.array([[1.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 2.0]])
BETA = np.ones(4)
S0 = 2.0
STEPS = {250: 15, 500: 16, 750: 17, 1000: 17, 1500: 18, 2000: 18, 4000: 19}
PUBLISHED = {250: .873, 500: .921, 750: .930, 1000: .925, 1500: .934, 2000: .938, 4000: .942}
DATA_NORM = 6.0
Y_BOUND = 15.0
#: The row norm bounds of the two variants whose rows are scaled with their target.
SCALED_NORMS = {"skdpgd_unit": DATA_NORM, "skdpgd_scaled": float(np.sqrt(2.0))}
SKDPGD = ("skdpgd", *SCALED_NORMS)
METHODS = ("theirs", "theirs_replace_one", *SKDPGD)


def simulate(n, rep):
    rng = np.random.default_rng([n, rep, 46])
    z = rng.standard_normal((n, 3)) @ np.linalg.cholesky(SIGMA).T
    x = np.c_[np.ones(n), z]
    return x, x @ BETA + S0 * rng.standard_normal(n)


def intervals(n, rep):
    """(centre, half-width) per method, intercept first, and the OLS half-width."""
    x, y = simulate(n, rep)
    out = {}
    for name, factor in (("theirs", 1.0), ("theirs_replace_one", np.sqrt(2.0))):
        beta, var, _ = noisy_newton(x, y, np.random.default_rng([n, rep, 46, 1]),
                                    maxiter=STEPS[n], matrix_sensitivity_factor=factor)
        with np.errstate(invalid="ignore"):
            out[name] = (beta, Z95 * np.sqrt(np.diag(var)))
    delta = min(1e-5, 0.1 / n)
    est = DPRidge(epsilon=float(gdp_to_epsilon(1.0, delta)), delta=delta, data_norm=DATA_NORM,
                  y_bound=Y_BOUND, residual_clip=HUBER_K * S0, inference=True,
                  random_state=rep).fit(x[:, 1:], y)
    ci = np.asarray(est.conf_int(0.05))[[3, 0, 1, 2]]
    out["skdpgd"] = ((ci[:, 0] + ci[:, 1]) / 2, (ci[:, 1] - ci[:, 0]) / 2)
    for name, norm in SCALED_NORMS.items():  # x has its column of ones: intercept=False
        x_s, y_s = scale_rows_with_target(x, y, norm, intercept=False)
        est = DPRidge(epsilon=float(gdp_to_epsilon(1.0, delta)), delta=delta, data_norm=norm,
                      y_bound=Y_BOUND, residual_clip=HUBER_K * S0, inference=True,
                      fit_intercept=False, random_state=rep).fit(x_s, y_s)
        ci = np.asarray(est.conf_int(0.05))
        out[name] = ((ci[:, 0] + ci[:, 1]) / 2, (ci[:, 1] - ci[:, 0]) / 2)
    resid = y - x @ np.linalg.lstsq(x, y, rcond=None)[0]
    cov = np.linalg.inv(x.T @ x) * (resid @ resid) / (n - 4)
    out["ols"] = (None, Z95 * np.sqrt(np.diag(cov)))
    return out


def summarise(n, reps):
    row = {"n": n, "steps": STEPS[n], "published_coef3": PUBLISHED[n]}
    for name in METHODS:
        centre = np.array([r[name][0] for r in reps])
        half = np.array([r[name][1] for r in reps])
        covered = np.abs(centre - BETA) <= half
        finite = ~np.isnan(half)
        with np.errstate(invalid="ignore"):
            on_finite = (covered & finite).sum(axis=0) / finite.sum(axis=0)
        row[name] = {"coverage": covered.mean(axis=0).round(4).tolist(),
                     "coverage_finite": np.round(on_finite, 4).tolist(),
                     "median_width": np.nanmedian(2 * half, axis=0).round(5).tolist(),
                     "nan_fraction": np.isnan(half).mean(axis=0).round(4).tolist()}
    row["ols_median_width"] = np.median([2 * r["ols"][1] for r in reps], axis=0).round(5).tolist()
    for ref in ("theirs", "theirs_replace_one"):
        row[f"width_ratio_vs_{ref}"] = (np.array(row["skdpgd"]["median_width"])
                                        / np.array(row[ref]["median_width"])).round(3).tolist()
    for name in SCALED_NORMS:
        row[f"width_ratio_{name}_vs_theirs"] = (
            np.array(row[name]["median_width"])
            / np.array(row["theirs"]["median_width"])).round(3).tolist()
    return row


def coverage_text(row, name):
    """One method's coverage per coefficient over its finite intervals (share NaN)."""
    pairs = zip(row[name]["coverage_finite"], row[name]["nan_fraction"], strict=True)
    return " ".join(f"{c:.3f}" + (f" ({f:.0%} NaN)" if f else "") for c, f in pairs)


def ratio_text(row, key):
    return " ".join(f"{c:.2f}" for c in row[key])


def print_table(results):
    print(f"repetitions per n: {results['reps']}; coefficients (intercept, z1, z2, z3); "
          "coverage over finite intervals (share NaN); width: skdpgd over theirs")
    print("| n | published (z2) | theirs | theirs, replace-one | skdpgd | width skdpgd / theirs "
          "| / theirs replace-one |")
    print("|---:|---:|---|---|---|---|---|")
    for row in results["cells"]:
        print(f"| {row['n']} | {row['published_coef3']:.3f} | {coverage_text(row, 'theirs')} | "
              f"{coverage_text(row, 'theirs_replace_one')} | {coverage_text(row, 'skdpgd')} | "
              f"{ratio_text(row, 'width_ratio_vs_theirs')} | "
              f"{ratio_text(row, 'width_ratio_vs_theirs_replace_one')} |")
    cells = [row for row in results["cells"] if all(name in row for name in SCALED_NORMS)]
    if not cells:
        return
    print("\nrows scaled with their target (scale_rows_with_target): coverage over finite "
          "intervals; width over theirs")
    print("| n | theirs | skdpgd, unit intercept, norm 6 | width / theirs | skdpgd, norm sqrt 2 "
          "| width / theirs |")
    print("|---:|---|---|---|---|---|")
    for row in cells:
        print(f"| {row['n']} | {coverage_text(row, 'theirs')} | "
              f"{coverage_text(row, 'skdpgd_unit')} | "
              f"{ratio_text(row, 'width_ratio_skdpgd_unit_vs_theirs')} | "
              f"{coverage_text(row, 'skdpgd_scaled')} | "
              f"{ratio_text(row, 'width_ratio_skdpgd_scaled_vs_theirs')} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="*", default=sorted(STEPS))
    parser.add_argument("--out", default="benchmarks/results/inference_anchor.json")
    parser.add_argument("--table", action="store_true", help="print the table of --out")
    args = parser.parse_args(argv)
    if args.table:
        print_table(json.loads(Path(args.out).read_text()))
        return
    results = {"reps": args.reps, "command": " ".join(sys.argv), "machine": platform.node(),
               "cells": []}
    for n in args.sizes:
        start = time.perf_counter()
        reps = [intervals(n, rep) for rep in range(args.reps)]
        row = summarise(n, reps)
        row["seconds"] = round(time.perf_counter() - start, 1)
        results["cells"].append(row)
        Path(args.out).write_text(json.dumps(results, indent=1))
        print(n, row["seconds"], "s", flush=True)
    print_table(results)


if __name__ == "__main__":
    main()
