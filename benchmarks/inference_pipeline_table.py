"""A DP pipeline's coefficient table on raw UCI Adult, before and after reference levels
and centring, beside the non-private logistic MLE (not a test).

The raw training table (32,561 rows): age, education-num, hours-per-week and capital gain
(log1p) on the code book's public ranges, sex, race and marital status with the code
book's public category lists (so the vectorizer releases nothing and every fit sees the
same encoding). ``make_dp_pipeline(DPTableVectorizer(...), DPLogisticRegression(
classes=[0, 1], inference=True), epsilon=...)`` is fitted twice per seed:

* ``before``: ``one_hot_reference=None, centre=False``, the encoding every fit had
  before: all levels of each group (the group sums to the intercept column) and numeric
  columns on [0, 1];
* ``kept``: the defaults, which inside a pipeline with ``inference=True`` mean a
  reference level per group (its first listed category) and numeric columns centred on
  [-1, 1], with every column in the inference block (the rule of
  ``skdpgd.inference._inference_block`` switched off: the columns the data leave empty,
  ``__other`` and ``__missing`` of the three groups, stay in the released Hessian, raised
  to its floor);
* ``after``: the defaults with that rule: the columns whose released curvature is that of
  an empty column leave the inference block (NaN, with the reason in their rows).

Both tables are read with ``summary(units="original")`` (numeric slopes per raw unit,
a level per unit of its indicator), which makes the numeric slopes the same quantity in
both. The reference is the logistic MLE by Newton on the ``after`` design (identifiable)
with its inverse-information covariance, mapped to the same units by the same map. Per
coefficient and fit: whether the private interval is finite (NaN: not identified at the
release's noise level, or dropped from the inference block, a column whose released
curvature is that of an empty column), whether it contains the non-private estimate, and
its width over the non-private width.

    python benchmarks/inference_pipeline_table.py --epsilon 1 --seeds 20

Results: ``benchmarks/results/inference_pipeline_table.json``.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skdpgd import DPLogisticRegression, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.inference import CoefficientTable, _inference_block
from skdpgd.pipeline._units import coefficient_table_in_column_units
from skdpgd.preprocessing import DPTableVectorizer

NUMERIC = ["age", "education-num", "hours-per-week", "capital-gain"]
TEXT = ["sex", "race", "marital-status"]


def table():
    adult = load_adult(as_frame=True)
    frame = adult.data[NUMERIC + TEXT]
    return frame, adult.target.to_numpy(), adult.bounds, adult.categories


def vectorizer(bounds, categories, **options):
    return DPTableVectorizer(bounds={c: bounds[c] for c in NUMERIC},
                             categories={c: categories[c] for c in TEXT},
                             log1p=["capital-gain"], **options)


def mle(Z, y):
    """Logistic MLE with intercept (last) by Newton; covariance = inverse information."""
    design = np.column_stack([Z, np.ones(len(y))])
    keep = design.any(axis=0)  # columns the data leave empty are not estimable
    D = design[:, keep]
    coef = np.zeros(D.shape[1])
    for _ in range(100):
        prob = expit(D @ coef)
        info = D.T @ (D * (prob * (1 - prob))[:, None])
        step = np.linalg.solve(info, D.T @ (y - prob))
        coef += step
        if np.max(np.abs(step)) < 1e-10:
            break
    prob = expit(D @ coef)
    cov_kept = np.linalg.inv(D.T @ (D * (prob * (1 - prob))[:, None]))
    m = design.shape[1]
    estimate, cov = np.full(m, np.nan), np.full((m, m), np.nan)
    estimate[keep] = coef
    cov[np.ix_(keep, keep)] = cov_kept
    return estimate, cov


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default="benchmarks/results/inference_pipeline_table.json")
    args = parser.parse_args(argv)
    frame, y, bounds, categories = table()
    options = {"before": ({"one_hot_reference": None, "centre": False}, True),
               "kept": ({}, False), "after": ({}, True)}
    records = {arm: [] for arm in options}
    names = {}
    reference = None
    start = time.perf_counter()
    for seed in range(args.seeds):
        for arm, (extra, drop) in options.items():
            _inference_block.ENABLED = drop
            pipe = make_dp_pipeline(
                vectorizer(bounds, categories, **extra),
                DPLogisticRegression(classes=[0, 1], inference=True),
                epsilon=args.epsilon, random_state=seed).fit(frame, y)
            summary = pipe.summary(units="original")
            names[arm] = list(summary.index)
            if reference is None and arm == "after":
                vec = pipe.pipeline_[0]
                estimate, cov = mle(vec.transform(frame), y)
                ref_table = coefficient_table_in_column_units(
                    vec, CoefficientTable(summary.index, estimate, cov))
                ci = ref_table.conf_int(0.05)
                reference = {name: (float(est), float(hi - lo)) for name, est, (lo, hi)
                             in zip(summary.index, ref_table.estimate, ci, strict=True)}
            summary["dropped"] = summary["note"].str.contains("dropped from the inference")
            records[arm].append(
                summary[["coef", "ci_low", "ci_high", "dropped"]].to_dict("index"))
    _inference_block.ENABLED = True
    result = {"epsilon": args.epsilon, "seeds": args.seeds, "n": len(y),
              "wall_s": time.perf_counter() - start, "rows": []}
    for name in dict.fromkeys(names["before"] + names["after"]):
        ref_est, ref_width = reference.get(name, (np.nan, np.nan))
        row = {"coefficient": name, "non_private": ref_est}
        for arm in options:
            fits = [r[name] for r in records[arm] if name in r]
            if not fits:
                row[arm] = None
                continue
            lo = np.array([f["ci_low"] for f in fits])
            hi = np.array([f["ci_high"] for f in fits])
            finite = np.isfinite(lo) & np.isfinite(hi)
            contains = (lo <= ref_est) & (ref_est <= hi) & finite
            row[arm] = {
                "finite": float(finite.mean()),
                "dropped": float(np.mean([f["dropped"] for f in fits])),
                "contains_non_private": (float(contains.sum() / finite.sum())
                                         if finite.any() else None),
                "width_ratio": (float(np.median((hi - lo)[finite] / ref_width))
                                if finite.any() and np.isfinite(ref_width) else None),
            }
        result["rows"].append(row)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"epsilon {args.epsilon}, {args.seeds} seeds, n = {len(y)}; per coefficient: "
          "finite share / contains the non-private estimate (of the finite) / median "
          "width over the non-private width")
    print("| coefficient | non-private | before | kept | after |")
    print("|---|---:|---|---|---|")

    def cell(r):
        if r is None:
            return "not in the table"
        dropped = f" (dropped {r['dropped']:.0%})" if r["dropped"] else ""
        if r["contains_non_private"] is None:
            return f"NaN in {1 - r['finite']:.0%}{dropped}"
        ratio = "" if r["width_ratio"] is None else f" / {r['width_ratio']:.2f}x"
        return f"{r['finite']:.2f} / {r['contains_non_private']:.2f}{ratio}{dropped}"

    for row in result["rows"]:
        print(f"| {row['coefficient']} | {row['non_private']:.4g} | {cell(row['before'])} | "
              f"{cell(row['kept'])} | {cell(row['after'])} |")
    print(f"total {result['wall_s']:.1f}s")


if __name__ == "__main__":
    main()
