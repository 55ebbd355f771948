"""Private coefficient table on UCI Adult beside statsmodels' non-private one.

Not a test. The design is a small public encoding of Adult's training rows (n = 32,561):
six columns mapped to [0, 1] with the code book's public ranges (``load_adult().bounds``;
capital gain through log1p) or as 0/1 indicators, divided by sqrt(6) so that every row has
norm <= 1 = data_norm. ``DPLogisticRegression(epsilon, inference=True)`` and statsmodels'
``Logit`` are fitted on the same matrix; for each of ``--seeds`` private fits the script
counts sign agreement with the non-private estimates, how many private 95% intervals
contain the non-private estimate, and the ratio of interval widths (private /
non-private). Results: ``benchmarks/results/inference_adult.json``.

    python benchmarks/inference_adult.py --epsilon 1 --seeds 20
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skdpgd import DPLogisticRegression
from skdpgd.datasets import load_adult

COLUMNS = ["age", "education-num", "hours-per-week", "log1p capital-gain", "male", "married"]


def design():
    adult = load_adult(as_frame=True)
    X, bounds = adult.data, adult.bounds
    cols = []
    for name in ("age", "education-num", "hours-per-week"):
        low, high = bounds[name]
        cols.append((X[name].to_numpy(float) - low) / (high - low))
    high = math.log1p(bounds["capital-gain"][1])
    cols.append(np.log1p(np.clip(X["capital-gain"].to_numpy(float), 0, None)) / high)
    cols.append((X["sex"] == "Male").to_numpy(float))
    cols.append((X["marital-status"] == "Married-civ-spouse").to_numpy(float))
    Z = np.clip(np.column_stack(cols), 0.0, 1.0) / math.sqrt(len(cols))
    return Z, adult.target.to_numpy()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default="benchmarks/results/inference_adult.json")
    args = parser.parse_args(argv)
    import statsmodels.api as sm

    Z, y = design()
    sm_fit = sm.Logit(y, sm.add_constant(Z, prepend=False)).fit(disp=0)
    ref, ref_ci = np.asarray(sm_fit.params), np.asarray(sm_fit.conf_int(0.05))
    ref_width = ref_ci[:, 1] - ref_ci[:, 0]
    names = [*COLUMNS, "intercept"]
    signs, contains, ratios, last = [], [], [], None
    for seed in range(args.seeds):
        clf = DPLogisticRegression(epsilon=args.epsilon, classes=[0, 1], inference=True,
                                   random_state=seed).fit(Z, y)
        ci = clf.conf_int(0.05)
        est = np.r_[clf.coef_.ravel(), clf.intercept_]
        signs.append(np.sign(est) == np.sign(ref))
        contains.append((ci[:, 0] <= ref) & (ref <= ci[:, 1]))
        ratios.append((ci[:, 1] - ci[:, 0]) / ref_width)
        last = clf
    table = last.summary()
    table.index = names
    table["sm_coef"], table["sm_std_err"] = ref, np.asarray(sm_fit.bse)
    result = {
        "epsilon": args.epsilon, "seeds": args.seeds, "n": len(y), "columns": names,
        "privacy": repr(last.privacy_),
        "sign_agreement": np.mean(signs, axis=0).round(3).tolist(),
        "contains_nonprivate": np.mean(contains, axis=0).round(3).tolist(),
        "width_ratio_median": np.median(ratios, axis=0).round(3).tolist(),
        "last_table": table.round(4).to_dict(orient="index"),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(table.round(4).to_string())
    print(f"over {args.seeds} private fits at epsilon={args.epsilon:g}:")
    print("| coefficient | sign agrees | private CI contains statsmodels' estimate | "
          "width ratio (median) |")
    print("|---|---:|---:|---:|")
    for j, name in enumerate(names):
        print(f"| {name} | {result['sign_agreement'][j]:.0%} | "
              f"{result['contains_nonprivate'][j]:.0%} | {result['width_ratio_median'][j]:.2f} |")


if __name__ == "__main__":
    main()
