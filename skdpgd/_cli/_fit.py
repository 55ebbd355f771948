"""``skdpgd fit``: train a DP model on a CSV file with public bounds, save it, print the report.

The pipeline saved is ``ColumnTransformer(BoundedScaler on numeric columns (after
x -> log1p(max(x, 0)) on the ``log1p`` ones), public_one_hot on categorical ones) ->
divide rows by sqrt(#numeric + #categorical) -> estimator``: numeric features land in
[0, 1], each one-hot group contributes at most 1 to the squared norm, so every row has
norm <= 1 = ``data_norm`` (all public; the log map is fixed in advance and applied row
by row, so it is post-processing of nothing private). The pipeline is fitted on a
DataFrame with the column names when pandas is installed, so it predicts on a DataFrame
of ``feature_columns`` without warnings (and on an array in that column order).
Nothing computed from the data is printed except the privacy report (a function of
public numbers); in particular no training accuracy, which would be an unaccounted
release.
"""

import math

import joblib
import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from .._version import __version__
from ..linear_model import DPLogisticRegression, DPRidge
from ..preprocessing import BoundedScaler, public_one_hot
from ._config import column_plan, numeric_column, read_csv
from ._table import TableSchema, label_type, public_categories, to_labels


def divide_rows(X, scale):
    """Divide every row by the public constant ``scale``."""
    return X / scale


def log1p_positive(X):
    r"""The public per-value map :math:`x \mapsto \log(1 + \max(x, 0))` (money columns).

    Defined for every real (negative values map to 0, +inf to +inf, which the bounds
    then clip), so it raises no data-dependent error.
    """
    return np.log1p(np.maximum(np.asarray(X, dtype=float), 0.0))


def build_pipeline(numeric, categorical, config, estimator):
    """The (unfitted) preprocessing + estimator pipeline for the declared columns."""
    bounds, categories = config.get("bounds", {}), config.get("categories", {})
    logged = set(config.get("log1p", []))
    parts = []
    for part, names in (("numeric", [c for c in numeric if c not in logged]),
                        ("log1p", [c for c in numeric if c in logged])):
        if not names:
            continue
        scaler = BoundedScaler(bounds=([float(bounds[c][0]) for c in names],
                                       [float(bounds[c][1]) for c in names]))
        if part == "log1p":
            scaler = Pipeline([("log1p", FunctionTransformer(log1p_positive)),
                               ("bounds", scaler)])
        parts.append((part, scaler, [numeric.index(c) for c in names]))
    if categorical:
        lists = [[str(v) for v in categories[name]] for name in categorical]
        columns = list(range(len(numeric), len(numeric) + len(categorical)))
        parts.append(("categorical", public_one_hot(
            lists, unknown_values=config.get("unknown_values"),
            handle_unknown=config.get("handle_unknown", "error")), columns))
    scale = math.sqrt(len(numeric) + len(categorical))  # ||row||^2 <= #numeric + #groups
    return Pipeline([
        ("features", ColumnTransformer(parts)),
        ("scale", FunctionTransformer(divide_rows, kw_args={"scale": scale})),
        ("model", estimator),
    ])


def make_estimator(config, epsilon, delta, random_state):
    """DPLogisticRegression or DPRidge with ``data_norm=1`` and the config's public inputs
    (``solver``, ``C`` / ``alpha``, ``max_coef_norm``, ``sampling``, ``n_jobs``,
    ``verbose`` when given)."""
    model = config.get("model", "logistic")
    common = dict(epsilon=epsilon, delta=delta, data_norm=1.0, random_state=random_state)
    common.update({key: config[key] for key in ("solver", "n_jobs", "verbose", "inference",
                                                "max_coef_norm", "sampling")
                   if config.get(key) is not None})
    wrong = {"logistic": "alpha", "ridge": "C"}.get(model)
    if wrong in config:
        right = "C" if wrong == "alpha" else "alpha"
        raise ValueError(f"{wrong} is a parameter of the other model; model {model!r} "
                         f"takes {right} (regularisation).")
    if model == "logistic":
        classes = config.get("classes")
        classes = None if classes is None else list(classes)  # typed: 0/1 stay ints
        return DPLogisticRegression(classes=classes, C=config.get("C", "auto"), **common)
    if model == "ridge":
        if "y_bound" not in config:
            raise ValueError("model 'ridge' needs a public y_bound (targets are clipped to it).")
        return DPRidge(y_bound=float(config["y_bound"]), alpha=config.get("alpha", "auto"),
                       **common)
    raise ValueError(f"model must be 'logistic' or 'ridge', got {model!r}.")


def _as_frame(X, numeric, categorical):
    """X as a DataFrame with the column names (numeric columns as float) when pandas is
    installed, so the fitted pipeline records ``feature_names_in_``; else X unchanged."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        return X
    frame = pd.DataFrame(X, columns=numeric + categorical)
    return frame.astype({name: float for name in numeric})


def load_table(path, config):
    """(X: DataFrame or object array of feature columns, y, numeric names, categorical names)."""
    header, rows = read_csv(path, config.get("sep"), config.get("decimal"))
    numeric, categorical = column_plan(header, config)
    columns = {name: [row[j] for row in rows] for j, name in enumerate(header)}
    X = np.empty((len(rows), len(numeric) + len(categorical)), dtype=object)
    for j, name in enumerate(numeric):
        X[:, j] = numeric_column(name, columns[name])
    for j, name in enumerate(categorical, start=len(numeric)):
        X[:, j] = columns[name]
    X = _as_frame(X, numeric, categorical)
    y = columns[config["target"]]
    if config.get("model", "logistic") == "ridge":
        y = np.asarray(numeric_column(config["target"], y))
    else:
        y = to_labels(y, config.get("classes"))  # in the type of the public classes
    return X, y, numeric, categorical


def _markers(config):
    markers = config.get("unknown_values") or []
    return [markers] if isinstance(markers, str) else list(markers)


def fit_csv(path, config, *, epsilon, delta="auto", random_state=None, output=None):
    """Fit the pipeline on a CSV file; returns (pipeline, bundle) and saves the bundle.

    The bundle (a dict, written with :func:`joblib.dump` when ``output`` is given) holds
    ``pipeline`` (predicts from an array or DataFrame of ``feature_columns``, in order),
    ``feature_columns``, ``target``, ``privacy`` (the report as a dict) and
    ``skdpgd_version``.
    """
    X, y, numeric, categorical = load_table(path, config)
    estimator = make_estimator(config, epsilon, delta, random_state)
    # The schema step (first) reads a DataFrame from plain pd.read_csv like the file.
    schema = TableSchema(numeric + categorical, numeric=numeric, categorical=categorical,
                         missing_values=_markers(config))
    config = public_categories(config, categorical)
    pipeline = Pipeline([("schema", schema),
                         *build_pipeline(numeric, categorical, config, estimator).steps])
    pipeline.fit(X, y)
    report = pipeline[-1].privacy_
    bundle = {
        "pipeline": pipeline, "feature_columns": numeric + categorical,
        "target": config["target"], "privacy": report.to_dict(), "skdpgd_version": __version__,
        "model": config.get("model", "logistic"), "classes": config.get("classes"),
        "label_type": label_type(config["classes"]) if config.get("classes") else None,
    }
    if output is not None:
        joblib.dump(bundle, output)
    return pipeline, bundle
