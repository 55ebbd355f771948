"""Datetime and duration columns through the raw-table pipeline, against their public bounds.

One synthetic table per shape (off every grid), with a target linear in the shaped column,
a standard normal ``z`` and a 3-level text column ``kind``:

* ``date``: datetimes uniform over 1990-01-01 to 2009-12-31 (pandas ``datetime64``), 5% NaT;
  the target is linear in the time;
* ``stay``: durations, gamma(2, 12) hours (pandas ``timedelta64``), 5% NaT; linear in the
  duration.

Per shape, n and seed (epsilon 1, medians over the seeds of the test R^2):

* ``raw``: ``make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"))`` on the table
  as it is (the column's dtype a datetime or a duration);
* ``float``: the same on the table with the column written by hand as a float (decimal
  years, days): what a user had to write before the vectorizer read these dtypes;
* ``public``: the raw table with public ``bounds`` (the laws' 1% and 99% quantiles, in
  decimal years or days) and the categories given;
* ``sklearn``: scikit-learn's impute + scale + one-hot pipeline and ``Ridge`` on the float
  table (no privacy);
* ``cli_date`` and ``cli_undeclared`` (the date shape only): ``skdpgd fit`` on the same
  split written as CSV files (the datetimes as ISO 8601 text), with ``--date x`` and
  without (the vote then types the column), scored on the test file.

Usage::

    python benchmarks/temporal_columns.py [--seeds 10] [--sizes 2000,5000,20000]
        [--out benchmarks/results/temporal_columns.json]
"""

import argparse
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results" / "temporal_columns.json"
EPSILON = 1.0
N_TEST = 5000
KIND_EFFECT = {"a": -1.0, "b": 0.0, "c": 1.0}
YEAR = 365.2425 * 86400.0
START, DAYS = pd.Timestamp("1990-01-01"), 20 * 365


def _date(rng, n):
    seconds = rng.uniform(0.0, DAYS * 86400.0, n)
    return pd.Series(START + pd.to_timedelta(seconds, unit="s"))


def _stay(rng, n):
    return pd.Series(pd.to_timedelta(rng.gamma(2.0, 12.0, n), unit="h"))


SHAPES = {"date": _date, "stay": _stay}


def as_float(column):
    """The column written by hand as a float: decimal years, or days."""
    if pd.api.types.is_timedelta64_dtype(column.dtype):
        return column.dt.total_seconds() / 86400.0
    return 1970.0 + (column - pd.Timestamp("1970-01-01")).dt.total_seconds() / YEAR


def law(shape):
    """(mean, std, 1% quantile, 99% quantile) of the float column, from 10^6 public draws."""
    sample = as_float(SHAPES[shape](np.random.default_rng(12345), 1_000_000)).to_numpy()
    low, high = np.quantile(sample, [0.01, 0.99])
    return float(sample.mean()), float(sample.std()), float(low), float(high)


def table(shape, n, seed, laws):
    """(X with the temporal column, X with its float, y)."""
    rng = np.random.default_rng(seed)
    mean, std = laws[shape][:2]
    column = SHAPES[shape](rng, n)
    value = as_float(column).to_numpy()
    column[rng.random(n) < 0.05] = pd.NaT  # missing cells, after the target's signal
    X = pd.DataFrame({"x": column, "z": rng.standard_normal(n),
                      "kind": rng.choice(list(KIND_EFFECT), n)})
    y = ((value - mean) / std + X["z"].to_numpy() + X["kind"].map(KIND_EFFECT).to_numpy()
         + 0.5 * rng.standard_normal(n))
    floats = X.assign(x=as_float(X["x"]))
    return X, floats, y


def _sklearn_r2(Xtr, ytr, Xte, yte):
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    prep = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="median", add_indicator=True),
                       StandardScaler()), ["x", "z"]),
        (OneHotEncoder(handle_unknown="ignore"), ["kind"]))
    return float(make_pipeline(prep, Ridge(alpha=1e-6)).fit(Xtr, ytr).score(Xte, yte))


def _cli_r2(X, y, n, seed, declared):
    """R^2 on the test rows of ``skdpgd fit`` on the training rows, as CSV files."""
    import contextlib
    import io
    import tempfile

    import joblib

    from skdpgd._cli import main

    frame = X.assign(x=X["x"].dt.strftime("%Y-%m-%dT%H:%M:%S"), y=y)
    with tempfile.TemporaryDirectory() as folder:
        train, model = Path(folder) / "train.csv", Path(folder) / "m.joblib"
        frame.iloc[:n].to_csv(train, index=False)
        argv = ["fit", str(train), "--target", "y", "--model", "ridge", "--epsilon",
                str(EPSILON), "--random-state", str(seed), "--output", str(model)]
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(argv + (["--date", "x"] if declared else [])) == 0
        pipeline = joblib.load(model)["pipeline"]
        test = frame.iloc[n:]
        return float(pipeline.score(test.drop(columns="y"), test["y"]))


def run(seeds, sizes):
    from skdpgd import DPRidge, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    laws = {shape: law(shape) for shape in SHAPES}
    out = {}
    for shape in SHAPES:
        low, high = laws[shape][2:]
        bounds = {"x": (low, high), "z": (-2.33, 2.33)}
        for n in sizes:
            cell = {"raw": [], "float": [], "public": [], "sklearn": [], "range": []}
            for seed in range(seeds):
                X, F, y = table(shape, n + N_TEST, seed, laws)
                arms = [("raw", X, DPTableVectorizer()), ("float", F, DPTableVectorizer()),
                        ("public", X, DPTableVectorizer(
                            bounds=bounds, categories={"kind": list(KIND_EFFECT)}))]
                for name, frame, vectorizer in arms:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = make_dp_pipeline(vectorizer, DPRidge(y_bound="auto"),
                                                 epsilon=EPSILON, random_state=seed)
                        model.fit(frame.iloc[:n], y[:n])
                    cell[name].append(float(model.score(frame.iloc[n:], y[n:])))
                    if name == "raw":
                        cell["range"].append(
                            [float(v) for v in model.pipeline_.steps[0][1].bounds_["x"]])
                cell["sklearn"].append(_sklearn_r2(F.iloc[:n], y[:n], F.iloc[n:], y[n:]))
                if shape == "date":
                    cell.setdefault("cli_date", []).append(_cli_r2(X, y, n, seed, True))
                    cell.setdefault("cli_undeclared", []).append(_cli_r2(X, y, n, seed, False))
            out[f"{shape}/{n}"] = cell
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sizes", default="2000,5000,20000")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    results = run(args.seeds, sizes)
    print(f"epsilon {EPSILON:g}, medians of {args.seeds} seeds (test R^2)")
    print("| shape | n | raw (temporal dtype) | float by hand | public bounds | raw - public "
          "| scikit-learn | CLI --date | CLI undeclared | range of x (median ends) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for key, cell in results.items():
        shape, n = key.split("/")
        med = {k: float(np.median(v)) for k, v in cell.items() if k != "range"}
        ends = np.median(np.array(cell["range"]), axis=0)
        cli = [f"{med[k]:.3f}" if k in med else "" for k in ("cli_date", "cli_undeclared")]
        print(f"| {shape} | {n} | {med['raw']:.3f} | {med['float']:.3f} | {med['public']:.3f} "
              f"| {med['raw'] - med['public']:+.3f} | {med['sklearn']:.3f} | {cli[0]} "
              f"| {cli[1]} | [{ends[0]:.4g}, {ends[1]:.4g}] |")
    command = "python benchmarks/temporal_columns.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    Path(args.out).write_text(json.dumps({
        "command": command.strip(), "machine": platform.platform(), "epsilon": EPSILON,
        "seeds": args.seeds, "results": results}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
