"""Where the raw pipeline loses a column's signal at small n: range, transform or budget.

A diagnosis of ``benchmarks/column_shapes.py``'s cells where the raw-table pipeline
``make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"))`` trails the same pipeline
given public bounds (the laws' 1% and 99% quantiles), on the same tables (``column_shapes.table``)
and seeds. Per shape, n and seed, for the shaped column ``x``:

* what the vectorizer released: the range ``[low, high]`` (``bounds_``), the map chosen
  (``linear``, or both scales ``two:log1p`` / ``two:logratio``), the imputed value, the
  column's share ``mu_c`` and its histogram noise ``sigma_c = sqrt(2) / mu_c`` in records;
* the training records outside the released range (below / above), and the true counts of
  the four public-grid cells beyond each end in units of ``sigma_c`` (non-private: what the
  release would have had to see);
* the test R^2 of the private pipeline (``raw``) and of a non-private ``Ridge`` on the
  vectorizer's features with x's block rebuilt from (a) the released range and map (the
  vectorizer's own features), (b) the public range, linear (the public pipeline's map),
  (c) the released map on the public range, (d) the released low end with the public top
  (the larger of the two), (e) the public low end (the smaller) with the released top.
  (a) against (b) is what the preparation loses; (c) says whether the map matters,
  (d) and (e) which end;
* with ``--shares``: the private pipeline's test R^2 at other preparation shares rho of
  mu^2 (``make_dp_pipeline(preparation_share=rho)``; 0.1 is the default), the public
  pipeline at the default.

Usage::

    python benchmarks/column_shapes_diagnosis.py [--shapes zeros,lognormal,count,t3]
        [--n 2000] [--seeds 8] [--shares 0.1,0.2,0.3]
        [--out benchmarks/results/column_shapes_diagnosis.json]
"""

import argparse
import json
import math
import platform
import sys
import warnings
from pathlib import Path

import column_shapes as cs
import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "column_shapes_diagnosis.json"


def _block(low, high, scale, median):
    """x's encoding on [low, high] with the map ``scale`` ("linear", "log1p", "logratio")."""
    from skdpgd.preprocessing._column_maps import NumericEncoding, scale_to_unit
    from skdpgd.preprocessing._two_scales import two_scales

    if scale in ("log1p", "logratio"):
        return two_scales("x", low, high, scale, median, False, "diagnosis")
    impute = float(scale_to_unit(np.array([median]), low, high, "linear")[0])
    return NumericEncoding("x", low, high, "linear", impute, False, "diagnosis")


def _features_r2(vectorizer, block, Xtr, ytr, Xte, yte):
    """Non-private Ridge R^2 on the vectorizer's features, x's block replaced by ``block``."""
    from sklearn.linear_model import Ridge

    names = list(vectorizer.get_feature_names_out())
    keep = [i for i, name in enumerate(names) if not (name == "x" or name.startswith("x__"))]

    def features(X):
        return np.column_stack([block.transform(X["x"].to_numpy(float)),
                                vectorizer.transform(X)[:, keep]])

    ridge = Ridge(alpha=1e-6).fit(features(Xtr), ytr)
    return float(ridge.score(features(Xte), yte))


def _cells_beyond(x, low, high, integer, sigma):
    """True counts / sigma of the 4 public-grid cells below low and above high (an integer
    column: its grid, the cells that hold an integer)."""
    from skdpgd.preprocessing._column_range import integer_grid
    from skdpgd.preprocessing._private_range import public_grid
    from skdpgd.preprocessing._range_reading import cells_holding_integers

    edges = integer_grid(public_grid()) if integer else public_grid()
    counts = np.bincount(np.searchsorted(edges, x, side="right"), minlength=edges.size + 1)
    lower = np.concatenate([[-np.inf], edges])
    upper = np.concatenate([edges, [np.inf]])
    holds = cells_holding_integers(edges) if integer else np.ones(lower.size, dtype=bool)
    above = np.flatnonzero(holds & ((lower > high) if integer else (lower >= high)))[:4]
    below = np.flatnonzero(holds & (upper <= low))[::-1][:4]
    return ([round(float(counts[k] / sigma), 2) for k in below],
            [round(float(counts[k] / sigma), 2) for k in above])


def diagnose(shape, n, seed):
    """One seed's record (module docstring)."""
    from skdpgd import DPRidge, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer
    from skdpgd.preprocessing._two_scales import TwoScaleEncoding

    public_low, public_high = cs.law(shape)[2:]
    X, y = cs.table(shape, n + cs.N_TEST, seed)
    Xtr, ytr, Xte, yte = X.iloc[:n], y[:n], X.iloc[n:], y[n:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"),
                                 epsilon=cs.EPSILON, random_state=seed).fit(Xtr, ytr)
    vectorizer = model.pipeline_.steps[0][1]
    enc = next(e for e in vectorizer.encodings_ if e.name == "x")
    scale = enc.log_scale if isinstance(enc, TwoScaleEncoding) else enc.scale
    mu_c = next(mu for what, mu in vectorizer.privacy_.releases if what.startswith("x:"))
    sigma = math.sqrt(2.0) / mu_c
    x = Xtr["x"].to_numpy(float)
    median = float(np.median(x))  # of the rebuilt maps' imputed value only: x has no NaN
    low, high = float(enc.low), float(enc.high)
    below, above = _cells_beyond(x, low, high, Xtr["x"].dtype.kind in "iu", sigma)

    def r2(block):
        return _features_r2(vectorizer, block, Xtr, ytr, Xte, yte)

    released_scale = scale
    public_scale = released_scale
    if released_scale == "logratio" and not public_low > 0.0:
        public_scale = "log1p"
    return {
        "seed": seed, "range": [low, high], "map": ("two:" + scale) if scale != "linear"
        else "linear", "impute": float(enc.impute), "mu_c": float(mu_c), "sigma_c": sigma,
        "public": [public_low, public_high],
        "share_below": float(np.mean(x < low)), "share_above": float(np.mean(x > high)),
        "cells_below_in_sigma": below, "cells_above_in_sigma": above,
        "raw": float(model.score(Xte, yte)),
        "a_released": r2(_block(low, high, released_scale, median)),
        "b_public": r2(_block(public_low, public_high, "linear", median)),
        "c_released_map_public_range": r2(_block(public_low, public_high, public_scale,
                                                 median)),
        "d_released_low_public_top": r2(_block(low, max(high, public_high), released_scale,
                                               median)),
        "e_public_low_released_top": r2(_block(min(low, public_low), high, "linear", median)),
    }


def shares_r2(shape, n, seeds, shares):
    """{rho: [raw R^2 per seed]} and the public pipeline's, at the default share."""
    from skdpgd import DPRidge, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    low, high = cs.law(shape)[2:]
    out = {f"{rho:g}": [] for rho in shares}
    out["public"] = []
    for seed in range(seeds):
        X, y = cs.table(shape, n + cs.N_TEST, seed)
        Xtr, ytr, Xte, yte = X.iloc[:n], y[:n], X.iloc[n:], y[n:]
        kinds = [(f"{rho:g}", DPTableVectorizer(), rho) for rho in shares]
        kinds.append(("public", DPTableVectorizer(
            bounds={"x": (low, high), "z": (-2.33, 2.33)},
            categories={"kind": list(cs.KIND_EFFECT)}), 0.1))
        for key, vectorizer, rho in kinds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_dp_pipeline(vectorizer, DPRidge(y_bound="auto"),
                                         epsilon=cs.EPSILON, preparation_share=rho,
                                         random_state=seed).fit(Xtr, ytr)
            out[key].append(float(model.score(Xte, yte)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="zeros,lognormal,count,t3")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--shares", default="")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    shapes = args.shapes.split(",")
    shares = [float(s) for s in args.shares.split(",") if s]
    med = lambda xs: float(np.median(xs))  # noqa: E731
    out = {}
    keys = ("raw", "a_released", "b_public", "c_released_map_public_range",
            "d_released_low_public_top", "e_public_low_released_top")
    for shape in shapes:
        rows = [diagnose(shape, args.n, seed) for seed in range(args.seeds)]
        out[shape] = {"seeds": rows}
        print(f"== {shape}, n = {args.n}, public range [{rows[0]['public'][0]:.4g}, "
              f"{rows[0]['public'][1]:.4g}], sigma_c {rows[0]['sigma_c']:.1f} records "
              f"(mu_c {rows[0]['mu_c']:.4f})")
        for r in rows:
            print(f"seed {r['seed']}: [{r['range'][0]:.4g}, {r['range'][1]:.4g}] {r['map']} "
                  f"impute {r['impute']:.3f}; outside {r['share_below']:.3f} / "
                  f"{r['share_above']:.3f}; cells beyond (counts / sigma) below "
                  f"{r['cells_below_in_sigma']} above {r['cells_above_in_sigma']}; "
                  + " ".join(f"{k.split('_')[0]} {r[k]:.3f}" for k in keys))
        summary = {k: med([r[k] for r in rows]) for k in keys}
        out[shape]["medians"] = summary
        print("medians: " + " ".join(f"{k} {v:.3f}" for k, v in summary.items()))
        if shares:
            by_share = shares_r2(shape, args.n, args.seeds, shares)
            out[shape]["shares"] = by_share
            print("preparation share: " + " ".join(
                f"{k} {med(v):.3f} [{min(v):.3f}]" for k, v in by_share.items()))
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join(["python", "benchmarks/column_shapes_diagnosis.py"]
                         + (argv if argv is not None else sys.argv[1:])),
        machine=f"{platform.machine()}, Python {platform.python_version()}",
        epsilon=cs.EPSILON, n=args.n, seeds=args.seeds, shares=shares, results=out),
        indent=1) + "\n")


if __name__ == "__main__":
    main()
