"""Coverage of ``inference=True`` on hard designs (not a test): where a number is printed.

The grid of an independent study of the intervals. For each cell (model, design, p, n,
epsilon) it simulates ``--reps`` data sets from a known model, fits ``DPRidge`` / ``DPLogisticRegression(..., inference=True)``
and records, per coefficient (features, then the intercept): whether the nominal 95%
interval is finite (NaN: not identified at the release's noise level, docs/theory.md,
"When a coefficient gets no interval"), whether it covers the TRUE coefficient, its width,
and the width of the non-private reference interval on the same data (computed here with
numpy only: the OLS estimate with its HC0 sandwich for the linear model, the logistic MLE
by Newton with its sandwich for the logistic one).

Per cell: ``coverage_min`` (the smallest coverage over coefficients with at least 10
finite intervals), ``type1_max`` (the largest rejection rate of 0 over the null
coefficients, beta_j = 0, among their finite intervals), ``nan_fraction`` (of
coefficient-fits), ``width_ratio`` (median over finite coefficient-fits of the private
width over the reference width of the same fit), ``refused`` (fits refused before the
charge).

Data: p features, rows scaled by public constants so that no row is longer than 1 =
data_norm (clipping is a no-op); beta_j runs over [-1, 1] (x2 for logistic), with
beta_j = 0 for every j = 1 mod 3 (the null coefficients); intercept 0.2. Designs:

* ``indep``: x ~ U(-1, 1)^p / sqrt(p);
* ``equi``: Gaussian, equicorrelated 0.8, clipped at +-3, / (3 sqrt(p));
* ``pair``: ``indep`` with x_1 = clip(x_0 + 0.1 u), u ~ U(-1, 1) (correlation ~.995);
* ``skew``: even columns lognormal(0, 1) clipped to the public range [0, 10] and mapped
  to [0, 1] (not centred), odd columns t3 clipped to [-5, 5] and mapped to [-1, 1];
  / sqrt(p);
* ``imbal`` (logistic): ``indep`` with intercept logit(0.1) (about 10% positives);
* ``hetero`` (linear): ``indep``, e ~ 0.5 (0.5 + sqrt(p) |x_0|) z, z standard normal
  clipped at +-4 (symmetric given x: the Huber target is beta);
* ``heavy`` (linear): ``indep``, e ~ 0.5 t3 clipped at +-8.
* ``adult`` and ``adultc`` (logistic, p = 6, n in {10,000, 32,561, 100,000}, epsilon in
  {1, 4}): an Adult-like design, the SAME data in both: age 17 + Gamma(2, 10) on the
  public range [17, 90], education-num round(N(10, 2.5)) on [1, 16], hours N(40, 12) on
  [1, 99], capital gain (8% positive, lognormal(8, 1)) as log1p(x)/log1p(99,999), sex
  Bernoulli(.67), race Bernoulli(.85) (a null coefficient); logit = -6 + 2 age + 4 edu
  + 3 hours + 4 gain + 1 sex + 0 race in the [0, 1] units v. ``adult`` gives the model
  v / sqrt(p), the [0, 1] maps of BoundedScaler and DPTableVectorizer (not centred: every
  column lines up with the intercept column); ``adultc`` gives (2v - 1) / sqrt(p), the
  maps centred by the public midpoints (``centre=True``). The true coefficients are
  those of each parametrisation (beta sqrt(p), and beta sqrt(p) / 2 with the intercept
  -6 + sum(beta) / 2).

Linear: y = x.beta + b0 + e, e = 0.5 z (z clipped at +-4) unless the design says
otherwise; y_bound is the largest |y| the model allows (public). Logistic:
P(y = 1 | x) = expit(x.beta + b0). delta = min(1e-5, 0.1/n). Cell names look like
``linear-equi-p8-n2000-eps1``; ``--cells`` keeps the cells whose name contains all of
the given comma-separated substrings of any one argument.

Usage (the whole grid, 300 repetitions per cell, on a machine with many cores)::

    python benchmarks/inference_coverage_grid.py --reps 300 --n-jobs 16

The reduced run of docs/theory.md ("Coverage on hard designs") names its cells there;
``--cells equi,n2000`` keeps every equicorrelated cell at n = 2000.

Results are written after every cell (a rerun with ``--cells`` adds to the same
``--out``; ``--resume`` skips the cells it already holds at ``--reps`` or more, so a cut
run goes on where it stopped); ``--table`` prints the markdown table of ``--out``,
``--by-design`` one row per model, design and n (cells meeting the rule: every counted
finite coefficient covers >= .90 and no null coefficient's type-I error exceeds .10).
"""

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from joblib import Parallel, delayed
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skdpgd import DPLogisticRegression, DPRidge

Z95 = 1.959963984540054
NOISE_SD = 0.5
DESIGNS = {"linear": ("indep", "equi", "pair", "skew", "hetero", "heavy"),
           "logistic": ("indep", "equi", "pair", "skew", "imbal")}
#: The Adult-like design's logit in the [0, 1] units of its six columns, and intercept.
ADULT_BETA, ADULT_B0 = np.array([2.0, 4.0, 3.0, 4.0, 1.0, 0.0]), -6.0


def cells():
    out = []
    for model, designs in DESIGNS.items():
        for design in designs:
            for p in (3, 8, 20):
                for n in (2000, 20000, 100000):
                    for eps in (0.5, 1.0, 4.0):
                        out.append({"name": f"{model}-{design}-p{p}-n{n}-eps{eps:g}",
                                    "model": model, "design": design, "p": p, "n": n,
                                    "epsilon": eps})
    for design in ("adult", "adultc"):
        for n in (10000, 32561, 100000):
            for eps in (1.0, 4.0):
                out.append({"name": f"logistic-{design}-p6-n{n}-eps{eps:g}",
                            "model": "logistic", "design": design, "p": 6, "n": n,
                            "epsilon": eps})
    return out


def truth(cell):
    p = cell["p"]
    if cell["design"] == "adult":  # x = v / sqrt(p)
        return ADULT_BETA * math.sqrt(p), ADULT_B0
    if cell["design"] == "adultc":  # x = (2 v - 1) / sqrt(p): v = (sqrt(p) x + 1) / 2
        return ADULT_BETA * math.sqrt(p) / 2.0, ADULT_B0 + ADULT_BETA.sum() / 2.0
    beta = np.linspace(-1.0, 1.0, p) * (1.0 if cell["model"] == "linear" else 2.0)
    beta[1::3] = 0.0
    b0 = math.log(0.1 / 0.9) if cell["design"] == "imbal" else 0.2
    return beta, b0


def adult_columns(n, rng):
    """The six Adult-like columns mapped to [0, 1] by their public ranges (docstring)."""
    age = np.clip(17.0 + rng.gamma(2.0, 10.0, n), 17.0, 90.0)
    edu = np.clip(np.round(rng.normal(10.0, 2.5, n)), 1.0, 16.0)
    hours = np.clip(rng.normal(40.0, 12.0, n), 1.0, 99.0)
    gain = np.where(rng.random(n) < 0.08, np.clip(rng.lognormal(8.0, 1.0, n), 0, 99999), 0)
    return np.column_stack([
        (age - 17.0) / 73.0, (edu - 1.0) / 15.0, (hours - 1.0) / 98.0,
        np.log1p(gain) / np.log1p(99999.0), rng.random(n) < 0.67, rng.random(n) < 0.85,
    ]).astype(np.float64)


def features(design, n, p, rng):
    if design in ("adult", "adultc"):
        v = adult_columns(n, rng)
        return (2.0 * v - 1.0 if design == "adultc" else v) / math.sqrt(p)
    if design == "equi":
        cov = 0.8 * np.ones((p, p)) + 0.2 * np.eye(p)
        x = rng.standard_normal((n, p)) @ np.linalg.cholesky(cov).T
        return np.clip(x, -3.0, 3.0) / (3.0 * math.sqrt(p))
    x = rng.uniform(-1.0, 1.0, (n, p))
    if design == "pair":
        x[:, 1] = np.clip(x[:, 0] + 0.1 * rng.uniform(-1.0, 1.0, n), -1.0, 1.0)
    if design == "skew":
        x[:, 0::2] = np.clip(rng.lognormal(0.0, 1.0, (n, len(range(0, p, 2)))), 0, 10) / 10
        x[:, 1::2] = np.clip(rng.standard_t(3, (n, len(range(1, p, 2)))), -5, 5) / 5
    return x / math.sqrt(p)


def errors(design, x, rng):
    n, p = x.shape
    if design == "heavy":
        return NOISE_SD * np.clip(rng.standard_t(3, n), -8.0, 8.0)
    e = NOISE_SD * np.clip(rng.standard_normal(n), -4.0, 4.0)
    if design == "hetero":
        e = e * (0.5 + math.sqrt(p) * np.abs(x[:, 0]))
    return e


def error_bound(design):
    return NOISE_SD * {"heavy": 8.0, "hetero": 4.0 * 1.5}.get(design, 4.0)


def simulate(cell, rng):
    beta, b0 = truth(cell)
    x = features(cell["design"], cell["n"], cell["p"], rng)
    t = x @ beta + b0
    if cell["model"] == "linear":
        return x, t + errors(cell["design"], x, rng)
    return x, (rng.random(cell["n"]) < expit(t)).astype(float)


def estimator(cell, seed):
    delta = min(1e-5, 0.1 / cell["n"])
    if cell["model"] == "linear":
        beta, b0 = truth(cell)
        bound = float(np.abs(beta).sum() / math.sqrt(cell["p"]) + abs(b0)
                      + error_bound(cell["design"]))
        return DPRidge(epsilon=cell["epsilon"], delta=delta, y_bound=bound,
                       random_state=seed, inference=True)
    return DPLogisticRegression(epsilon=cell["epsilon"], delta=delta, classes=[0, 1],
                                random_state=seed, inference=True)


def reference_width(model, x, y):
    """Width of the non-private 95% sandwich interval (OLS HC0 / logistic MLE), numpy."""
    design = np.column_stack([x, np.ones(len(y))])
    n = len(y)
    if model == "linear":
        bread = design.T @ design / n
        coef = np.linalg.solve(bread, design.T @ y / n)
        resid = y - design @ coef
    else:
        coef = np.zeros(design.shape[1])
        for _ in range(50):
            prob = expit(design @ coef)
            bread = design.T @ (design * (prob * (1 - prob))[:, None]) / n
            step = np.linalg.solve(bread, design.T @ (y - prob) / n)
            coef += step
            if np.max(np.abs(step)) < 1e-10:
                break
        prob = expit(design @ coef)
        bread = design.T @ (design * (prob * (1 - prob))[:, None]) / n
        resid = y - prob
    meat = design.T @ (design * (resid * resid)[:, None]) / n
    inv = np.linalg.inv(bread)
    cov = inv @ meat @ inv / n
    return 2.0 * Z95 * np.sqrt(np.diag(cov))


def one_rep(cell, rep):
    key = len(cell["design"].replace("adultc", "adult"))  # adult, adultc: the same data
    rng = np.random.default_rng([cell["n"], cell["p"], rep, 46, key])
    x, y = simulate(cell, rng)
    beta, b0 = truth(cell)
    target = np.r_[beta, b0]
    start = time.perf_counter()
    try:
        est = estimator(cell, rep).fit(x, y)
    except ValueError as err:
        if "inference" not in str(err):
            raise
        return {"rep": rep, "refused": True, "reason": str(err)}
    ci = est.conf_int(0.05)
    finite = np.isfinite(ci).all(axis=1)
    return {
        "rep": rep, "refused": False, "fit_s": time.perf_counter() - start,
        "finite": finite.tolist(),
        "covered": ((ci[:, 0] <= target) & (target <= ci[:, 1])).tolist(),
        "width": np.where(finite, ci[:, 1] - ci[:, 0], np.nan).tolist(),
        "ref_width": reference_width(cell["model"], x, y).tolist(),
        "solver": est.solver_,
    }


def summarise(cell, reps):
    done = [r for r in reps if not r["refused"]]
    row = {k: cell[k] for k in ("name", "model", "design", "p", "n", "epsilon")}
    row.update(reps=len(reps), refused=len(reps) - len(done))
    if not done:
        row["reason"] = reps[0]["reason"]
        return row
    beta, _ = truth(cell)
    null = np.r_[beta == 0.0, False]
    finite = np.array([r["finite"] for r in done])
    covered = np.array([r["covered"] for r in done]) & finite
    width = np.array([r["width"] for r in done])
    ratio = width / np.array([r["ref_width"] for r in done])
    n_finite = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_coef = covered.sum(axis=0) / n_finite
    counted = n_finite >= 10
    row.update(
        coverage_per_coef=np.round(per_coef, 4).tolist(),
        finite_per_coef=(n_finite / len(done)).round(4).tolist(),
        coverage_min=float(per_coef[counted].min()) if counted.any() else None,
        type1_max=(float((1.0 - per_coef[counted & null]).max())
                   if (counted & null).any() else None),
        nan_fraction=float(1.0 - finite.mean()),
        width_ratio=float(np.median(ratio[finite])) if finite.any() else None,
        width_ratio_per_coef=[float(np.median(ratio[finite[:, j], j]))
                              if finite[:, j].any() else None for j in range(ratio.shape[1])],
        solver=sorted({r["solver"] for r in done}),
        mean_fit_s=float(np.mean([r["fit_s"] for r in done])),
    )
    return row


def _fmt(value, spec):
    return "" if value is None else format(value, spec)


def print_table(results):
    print(f"repetitions per cell: {results['reps']}")
    print("| cell | coverage min | type-I max | NaN | width / non-private | refused |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in results["cells"]:
        print(f"| {row['name']} | {_fmt(row.get('coverage_min'), '.3f')} | "
              f"{_fmt(row.get('type1_max'), '.3f')} | {_fmt(row.get('nan_fraction'), '.2f')} | "
              f"{_fmt(row.get('width_ratio'), '.2f')} | {row['refused']} |")


def meets(row):
    """The rule of a cell: every counted finite coefficient covers >= .90, type-I <= .10
    (None for a cell refused before the charge in every repetition)."""
    if row["refused"] == row["reps"]:
        return None
    cover, type1 = row.get("coverage_min"), row.get("type1_max")
    return (cover is None or cover >= 0.90) and (type1 is None or type1 <= 0.10)


def _span(values, spec):
    return f"{min(values):{spec}}-{max(values):{spec}}" if values else "-"


def print_by_design(results):
    """One row per model, design and n: cells meeting the rule, worst coverage and type-I,
    the NaN share's and the median width ratio's range over the cells."""
    groups = {}
    for row in results["cells"]:
        groups.setdefault((row["model"], row["design"], row["n"]), []).append(row)
    print("| model, design | n | cells (refused) | meeting the rule | reps | coverage min | "
          "type-I max | NaN share | width / non-private |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (model, design, n), rows in groups.items():
        fit = [r for r in rows if meets(r) is not None]
        cover = [r["coverage_min"] for r in fit if r.get("coverage_min") is not None]
        type1 = [r["type1_max"] for r in fit if r.get("type1_max") is not None]
        nan = [r["nan_fraction"] for r in fit]
        width = [r["width_ratio"] for r in fit if r.get("width_ratio") is not None]
        reps = sorted({r["reps"] for r in rows})
        print(f"| {model}, {design} | {n} | {len(rows)} ({len(rows) - len(fit)}) | "
              f"{sum(bool(meets(r)) for r in fit)} | {'/'.join(map(str, reps))} | "
              f"{_fmt(min(cover) if cover else None, '.3f')} | "
              f"{_fmt(max(type1) if type1 else None, '.3f')} | {_span(nan, '.2f')} | "
              f"{_span(width, '.2f')} |")


def chosen_cells(patterns):
    """The cells whose name contains every comma-separated substring of some pattern."""
    if not patterns:
        return cells()
    return [cell for cell in cells()
            if any(all(s in cell["name"] for s in pat.split(",") if s) for pat in patterns)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--cells", nargs="*", default=None)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/results/inference_coverage_grid.json")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--by-design", action="store_true",
                        help="print --out's cells grouped by model, design and n")
    parser.add_argument("--resume", action="store_true",
                        help="skip the cells --out already holds at >= --reps repetitions")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.table or args.by_design:
        (print_by_design if args.by_design else print_table)(json.loads(out.read_text()))
        return
    results = {}
    if out.exists():
        results = {row["name"]: row for row in json.loads(out.read_text())["cells"]}
    start = time.perf_counter()
    with Parallel(n_jobs=args.n_jobs) as parallel:
        for cell in chosen_cells(args.cells):
            if args.resume and results.get(cell["name"], {}).get("reps", 0) >= args.reps:
                continue
            t0 = time.perf_counter()
            reps = parallel(delayed(one_rep)(cell, rep) for rep in range(args.reps))
            row = summarise(cell, reps)
            row["wall_s"] = time.perf_counter() - t0
            results[cell["name"]] = row
            print(json.dumps({k: row.get(k) for k in (
                "name", "refused", "coverage_min", "type1_max", "nan_fraction",
                "width_ratio", "solver", "wall_s")}), flush=True)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({
                "reps": args.reps, "python": platform.python_version(),
                "cells": [results[c["name"]] for c in cells() if c["name"] in results],
            }, indent=1))
    print(f"total {time.perf_counter() - start:.1f}s", flush=True)


if __name__ == "__main__":
    main()
