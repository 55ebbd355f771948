"""Time of the raw-table path against scikit-learn's non-private pipeline, same run.

Raw UCI Adult (32,561 rows, 14 columns: 8 text, 6 numbers, shipped with skdpgd) as a
DataFrame, three ways a user may hold its text columns: pandas' string dtype (pandas 3's
default), ``object`` (pandas 2's default, NaN for a missing cell) and ``category``. For
each, medians of ``--repeats``:

* ``vectorizer_fit`` / ``vectorizer_transform``: ``DPTableVectorizer().fit(X)`` and its
  ``transform(X)`` (epsilon 1);
* ``pipeline_fit``: ``make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=
  [0, 1]), epsilon=1).fit(X, y)``, everything by default;
* ``sklearn_fit``: scikit-learn's non-private pipeline on the same DataFrame:
  ``SimpleImputer`` + ``OneHotEncoder`` on the text columns, ``StandardScaler`` on the
  numbers, ``LogisticRegression(max_iter=1000)`` (lbfgs), and the ratio of the two fits.

``--before PATH`` measures the skdpgd package under PATH first, in a subprocess
(``PYTHONPATH=PATH``), so that both versions run on one machine in one run::

    git archive HEAD~1 skdpgd | tar -x -C /tmp/before
    python benchmarks/raw_table_fit_time.py --before /tmp/before [--repeats 7]
"""

import time
from pathlib import Path

import numpy as np
from _before_after import main_run

RESULTS = Path(__file__).resolve().parent / "results"


def _tables():
    import pandas as pd

    from skdpgd.datasets import load_adult

    train = load_adult("train", as_frame=True)
    X, y = train.data, train.target
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c].dtype)]
    return {
        "string dtype": X,
        "object dtype": X.astype({c: object for c in text}),
        "category dtype": X.astype({c: "category" for c in text}),
    }, y, text


def _sklearn_pipeline(text, numbers):
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    return make_pipeline(
        make_column_transformer(
            (make_pipeline(SimpleImputer(strategy="most_frequent"),
                           OneHotEncoder(handle_unknown="ignore")), text),
            (StandardScaler(), numbers)),
        LogisticRegression(max_iter=1000))


def _median_seconds(action, repeats):
    times = []
    for _ in range(repeats):
        tic = time.perf_counter()
        action()
        times.append(time.perf_counter() - tic)
    return float(np.median(times)), times


def measure(repeats, sklearn=True):
    """The timings of the skdpgd importable here (a dict)."""
    import skdpgd
    from skdpgd import DPLogisticRegression, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    tables, y, text = _tables()
    result = {"skdpgd": str(Path(skdpgd.__file__).parent)}
    for name, X in tables.items():
        numbers = [c for c in X.columns if c not in text]
        DPTableVectorizer(random_state=0).fit(X)  # warm-up (imports, numba kernels)
        fitted = DPTableVectorizer(random_state=0).fit(X)
        row = {}
        row["vectorizer_fit"], _ = _median_seconds(
            lambda X=X: DPTableVectorizer(random_state=0).fit(X), repeats)
        row["vectorizer_transform"], _ = _median_seconds(
            lambda fitted=fitted, X=X: fitted.transform(X), repeats)
        row["pipeline_fit"], raw = _median_seconds(lambda X=X: make_dp_pipeline(
            DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]), epsilon=1.0,
            random_state=0).fit(X, y), repeats)
        row["pipeline_fit_raw"] = raw
        if sklearn:
            row["sklearn_fit"], _ = _median_seconds(
                lambda numbers=numbers, X=X: _sklearn_pipeline(text, numbers).fit(X, y), repeats)
            row["pipeline_over_sklearn"] = row["pipeline_fit"] / row["sklearn_fit"]
        result[name] = row
    return result


def main(argv=None):
    result = main_run(__file__, __doc__.splitlines()[0], argv, RESULTS / "raw_table_fit_time.json",
                      lambda args, baseline: measure(args.repeats, sklearn=not baseline),
                      repeats=7)
    if result is None:
        return
    for name, row in result["after"].items():
        if not isinstance(row, dict):
            continue
        before = result.get("before", {}).get(name)
        line = (f"{name:15s} vectorizer fit {row['vectorizer_fit']:.3f} s, transform "
                f"{row['vectorizer_transform']:.3f} s | pipeline fit {row['pipeline_fit']:.3f}"
                f" s, scikit-learn {row['sklearn_fit']:.3f} s, ratio "
                f"{row['pipeline_over_sklearn']:.2f}")
        if before:
            line += (f" | before: vectorizer fit {before['vectorizer_fit']:.3f} s, transform "
                     f"{before['vectorizer_transform']:.3f} s, pipeline fit "
                     f"{before['pipeline_fit']:.3f} s")
        print(line)


if __name__ == "__main__":
    main()
