"""Numeric columns of every shape through the raw-table pipeline, against their public bounds.

One synthetic table per shape (off every grid: nothing was tuned on them): the shaped
column ``x``, a standard normal ``z`` and a 3-level text column ``kind``, with a target
linear in all three, ``y = (x - m)/s + z + kind effect + 0.5 noise`` (m, s the law's mean
and standard deviation, so each shape carries the same signal). The shapes:

* ``year``: integers 1871-2007 (offset: the public grid gives it one cell);
* ``sensor``: normal(1013, 8) (offset);
* ``code``: integers 10000-99999 (an integer code read as a number);
* ``shifted``: normal(0.5, 1) (a score that crosses 0, 31% of it below);
* ``t3``: Student t, 3 degrees of freedom (two-sided heavy tails);
* ``count``: negative binomial(1, 0.05) (a heavy top tail);
* ``zeros``: 85% zeros, else geometric(0.1) (mostly zero);
* ``school``: round(normal(12, 3)) clipped to 0-18 (a lower tail, integer);
* ``lognormal``: lognormal(3, 1) (a wide positive range).

Per shape, n, epsilon and seed, medians over the seeds of the test R^2 of:

* ``raw``: ``make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"))``, with
  ``--before PATH`` also on the skdpgd package under PATH (a subprocess, same draws);
* ``public``: the same pipeline with ``bounds`` for ``x`` and ``z`` (the laws' 1% and 99%
  quantiles, from 10^6 draws of a seed of their own: public) and the categories given;
* ``sklearn``: scikit-learn's impute + scale + one-hot pipeline and ``Ridge`` (no privacy);
* ``features``: a non-private ``Ridge`` on the raw pipeline's own features (its vectorizer's
  ``transform``): what the preparation keeps of the signal before any noise.

Usage::

    git archive <commit> skdpgd | tar -x -C /tmp/before
    python benchmarks/column_shapes.py [--seeds 5] [--sizes 5000,20000] [--before /tmp/before]
        [--out benchmarks/results/column_shapes.json]
"""

import argparse
import functools
import json
import os
import platform
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results" / "column_shapes.json"
EPSILON = 1.0
N_TEST = 5000
KIND_EFFECT = {"a": -1.0, "b": 0.0, "c": 1.0}

SHAPES = {
    "year": lambda rng, n: rng.integers(1871, 2008, n),
    "sensor": lambda rng, n: rng.normal(1013.0, 8.0, n),
    "code": lambda rng, n: rng.integers(10000, 100000, n),
    "shifted": lambda rng, n: rng.normal(0.5, 1.0, n),
    "t3": lambda rng, n: rng.standard_t(3, n),
    "count": lambda rng, n: rng.negative_binomial(1, 0.05, n),
    "zeros": lambda rng, n: np.where(rng.random(n) < 0.85, 0, rng.geometric(0.1, n)),
    "school": lambda rng, n: np.clip(np.round(rng.normal(12.0, 3.0, n)), 0, 18).astype(int),
    "lognormal": lambda rng, n: rng.lognormal(3.0, 1.0, n),
}


@functools.lru_cache(maxsize=None)
def law(shape):
    """(mean, std, 1% quantile, 99% quantile) of a shape's law, from 10^6 public draws."""
    sample = SHAPES[shape](np.random.default_rng(12345), 1_000_000).astype(float)
    low, high = np.quantile(sample, [0.01, 0.99])
    return float(sample.mean()), float(sample.std()), float(low), float(high)


def table(shape, n, seed):
    """(X, y) of one shape (module docstring)."""
    rng = np.random.default_rng(seed)
    mean, std = law(shape)[:2]
    X = pd.DataFrame({"x": SHAPES[shape](rng, n), "z": rng.standard_normal(n),
                      "kind": rng.choice(list(KIND_EFFECT), n)})
    y = ((X["x"] - mean) / std + X["z"] + X["kind"].map(KIND_EFFECT)
         + 0.5 * rng.standard_normal(n))
    return X, y.to_numpy()


def _sklearn_r2(Xtr, ytr, Xte, yte):
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    prep = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), ["x", "z"]),
        (OneHotEncoder(handle_unknown="ignore"), ["kind"]))
    return float(make_pipeline(prep, Ridge(alpha=1e-6)).fit(Xtr, ytr).score(Xte, yte))


def run(seeds, sizes, public=True):
    """{shape/n: {"raw": [...], "features": [...], ("public", "sklearn")}} on this skdpgd."""
    from sklearn.linear_model import Ridge

    from skdpgd import DPRidge, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    out = {}
    for shape in SHAPES:
        low, high = law(shape)[2:]
        bounds = {"x": (low, high), "z": (-2.33, 2.33)}
        for n in sizes:
            cell = {"raw": [], "features": [], "public": [], "sklearn": [], "range": []}
            for seed in range(seeds):
                X, y = table(shape, n + N_TEST, seed)
                Xtr, ytr, Xte, yte = X.iloc[:n], y[:n], X.iloc[n:], y[n:]
                kinds = [("raw", DPTableVectorizer())]
                if public:
                    kinds.append(("public", DPTableVectorizer(
                        bounds=bounds, categories={"kind": list(KIND_EFFECT)})))
                for name, vectorizer in kinds:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = make_dp_pipeline(vectorizer, DPRidge(y_bound="auto"),
                                                 epsilon=EPSILON, random_state=seed).fit(Xtr, ytr)
                    cell[name].append(float(model.score(Xte, yte)))
                    if name == "raw":
                        fitted = model.pipeline_.steps[0][1]
                        ridge = Ridge(alpha=1e-6).fit(fitted.transform(Xtr), ytr)
                        cell["features"].append(float(ridge.score(fitted.transform(Xte), yte)))
                        cell["range"].append([float(v) for v in fitted.bounds_["x"]])
                if public:
                    cell["sklearn"].append(_sklearn_r2(Xtr, ytr, Xte, yte))
            out[f"{shape}/{n}"] = {k: v for k, v in cell.items() if v}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--before", default=None)
    parser.add_argument("--raw-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.raw_only:  # the --before subprocess
        print(json.dumps(run(args.seeds, sizes, public=False)))
        return
    before = None
    if args.before:
        env = dict(os.environ, PYTHONPATH=args.before)
        text = subprocess.run([sys.executable, __file__, "--raw-only", "--seeds",
                               str(args.seeds), "--sizes", args.sizes], env=env,
                              capture_output=True, text=True, check=True).stdout
        before = json.loads(text.strip().splitlines()[-1])
    after = run(args.seeds, sizes)
    med = lambda xs: float(np.median(xs))  # noqa: E731
    print(f"epsilon {EPSILON}, medians of {args.seeds} seeds (test R^2)")
    print("| shape | n | raw (before) | public bounds | raw - public (before) | features "
          "(before) | scikit-learn | features - sklearn (before) | range of x (before) |")
    print("|---|---:|---|---:|---|---|---:|---|---|")
    for key, cell in after.items():
        shape, n = key.split("/")
        old = before[key] if before else None

        def both(stat, old_stat=None, cell=cell, old=old):
            now = f"{stat(cell):.3f}"
            return now + (f" ({(old_stat or stat)(old):.3f})" if old else "")

        r = np.median(np.array(cell["range"]), axis=0)
        text_range = f"[{r[0]:.4g}, {r[1]:.4g}]"
        if old:
            q = np.median(np.array(old["range"]), axis=0)
            text_range += f" ([{q[0]:.4g}, {q[1]:.4g}])"
        public_r2, sk = med(cell["public"]), med(cell["sklearn"])
        print(f"| {shape} | {n} | {both(lambda c: med(c['raw']))} | {public_r2:.3f} "
              f"| {both(lambda c, public_r2=public_r2: med(c['raw']) - public_r2)} "
              f"| {both(lambda c: med(c['features']))} | {sk:.3f} "
              f"| {both(lambda c, sk=sk: med(c['features']) - sk)} | {text_range} |")
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join(["python", "benchmarks/column_shapes.py"] + (argv or sys.argv[1:])),
        machine=f"{platform.machine()}, Python {platform.python_version()}",
        epsilon=EPSILON, seeds=args.seeds, sizes=sizes, before=args.before, after=after,
        before_raw=before), indent=1) + "\n")


if __name__ == "__main__":
    main()
