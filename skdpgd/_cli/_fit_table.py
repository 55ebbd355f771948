"""``skdpgd fit`` without a public bound for every column: one private pipeline, one budget.

When some feature column has no public bound or category list (or a ridge target has no
``--y-bound``), the command fits

``make_dp_pipeline(schema, DPTableVectorizer(bounds=..., categories=...), estimator,
epsilon=..., delta=...)``

- ``schema``: :class:`~skdpgd.preprocessing._table_schema.TableSchema` when every column's type is
  public (declared by a bound, a category list, ``--numeric`` / ``--categorical`` or
  the config's ``numeric`` / ``categorical``), else
  :class:`~skdpgd.preprocessing._table_schema.PrivateTableSchema`, which decides the undeclared
  types by a noisy vote charged to the same budget (its module docstring has the mechanism);
- :class:`~skdpgd.preprocessing.DPTableVectorizer`: the declared bounds and category
  lists are public (free); the other columns get private ranges / categories;
- the estimator, whose ``data_norm`` (and ``y_bound="auto"``) the pipeline sets.

The pipeline splits the budget by its public rule and reports every release composed;
the command prints that report and nothing computed from the data.
"""

import math

import numpy as np

from .._version import __version__
from ..preprocessing._cells import to_numbers
from ._brief import column_lines, fit_line, guarantee_line, warnings_as_lines
from ._config import _names
from ._csv import index_column, read_frame, sniff
from ._table import (
    PrivateTableSchema,
    TableSchema,
    canonical_list,
    canonical_texts,
    label_type,
    schema_of,
    to_labels,
)

NOT_AVAILABLE = (
    "fitting a column without a public bound needs skdpgd.preprocessing."
    "DPTableVectorizer and skdpgd.make_dp_pipeline, which this version of skdpgd does not "
    "have yet; give every column a public bound (--bounds NAME=LOW:HIGH), a category list "
    "(--categories NAME=A,B,C) or --drop NAME (and --y-bound for ridge)."
)


def read_header(path, config=None):
    """The column names of a CSV file (its first line, the dialect of ``config``'s
    ``sep``): public, read without any cell; an unnamed first column (a row index) is
    left out, as :func:`~skdpgd._cli._csv.read_frame` drops it."""
    config = config or {}
    header, _, _, _ = sniff(path, config.get("sep"), config.get("decimal"))
    return header[1:] if index_column(header) is not None else header


def count_rows(path):
    """The number of data rows n (public), counted by the CSV reader without keeping a
    cell (quoted fields may hold line breaks)."""
    import csv

    with open(path, newline="", encoding="utf-8-sig", errors="replace") as handle:
        return max(sum(1 for row in csv.reader(handle) if row) - 1, 0)


def _typed(config):
    """(numeric, categorical) column names declared in the config and flags."""
    numeric = set(_names("numeric", config.get("numeric", [])))
    numeric |= set(config.get("bounds", {})) | set(config.get("log1p", []))
    numeric |= set(_names("dates", config.get("dates", [])))  # dates are numbers (years)
    categorical = set(_names("categorical", config.get("categorical", [])))
    categorical |= set(config.get("categories", {}))
    return numeric, categorical


def needs_private_preparation(path, config):
    """Whether the fit needs the private pipeline (header and config only, public).

    True when a feature column has no public bound or category list, or when a ridge
    fit has no public ``y_bound``. False when the target is not in the file (the fully
    public path then names the problem).
    """
    header = read_header(path, config)
    target = config.get("target")
    if target not in header:
        return False
    if config.get("model") == "logistic" and "classes" not in config:
        return True  # the label set is released privately
    if config.get("dates"):
        return True  # the public pipeline reads numbers only; a date is read here
    drop = set(config.get("drop", []))
    public = set(config.get("bounds", {})) | set(config.get("categories", {}))
    features = [c for c in header if c != target and c not in drop]
    if any(c not in public for c in features):
        return True
    if config.get("model", "logistic") == "ridge" and "y_bound" not in config:
        return True
    table_plan(header, config)  # --numeric / --categorical: known columns, no conflict
    return False


def table_plan(header, config):
    """(features, declared numeric, declared categorical) after the public checks."""
    target = config["target"]
    if target not in header:
        raise ValueError(f"target column {target!r} is not in the file; columns: {header}.")
    numeric, categorical = _typed(config)
    drop = set(config.get("drop", []))
    named = numeric | categorical | drop
    unknown = sorted(named - set(header))
    if unknown:
        raise ValueError(f"column(s) {unknown} in the config are not in the file; "
                         f"columns: {header}.")
    both = sorted(numeric & categorical)
    if both:
        raise ValueError(f"column(s) {both} are declared both numeric (bounds, --numeric) "
                         "and categorical (categories, --categorical).")
    if target in named:
        raise ValueError(f"the target {target!r} cannot also be a feature or dropped.")
    features = [c for c in header if c != target and c not in drop]
    if not features:
        raise ValueError("no feature column: every column is the target or dropped.")
    return features, numeric, categorical


def _markers(config):
    markers = config.get("unknown_values") or []
    return [markers] if isinstance(markers, str) else list(markers)


def _raw_bounds(span):
    """A ``log1p`` column's config bounds (on the log1p scale) on the raw scale, as
    DPTableVectorizer takes them: ``[expm1(low), expm1(high)]`` (its map is then
    ``log(1 + x - L) / log(1 + H - L)``, which is the config's ``log1p(x) / high`` when
    ``low = 0``)."""
    low, high = (float(v) for v in span)
    return math.expm1(low), math.expm1(high)


def make_table_estimator(config):
    """The estimator inside the pipeline (the pipeline sets its budget, seed, data_norm)."""
    from ..linear_model import DPLogisticRegression, DPRidge

    model = config.get("model", "logistic")
    common = {key: config[key] for key in ("solver", "n_jobs", "verbose", "inference",
                                           "max_coef_norm", "sampling")
              if config.get(key) is not None}
    wrong = {"logistic": "alpha", "ridge": "C"}[model]
    if wrong in config:
        right = "C" if wrong == "alpha" else "alpha"
        raise ValueError(f"{wrong} is a parameter of the other model; model {model!r} "
                         f"takes {right} (regularisation).")
    if model == "logistic":  # no --classes: the pipeline releases the label set
        return DPLogisticRegression(classes=config.get("classes", "private"),
                                    C=config.get("C", "auto"), **common)
    return DPRidge(y_bound=config.get("y_bound", "auto"), alpha=config.get("alpha", "auto"),
                   **common)


def build_table_pipeline(features, numeric, categorical, config, *, epsilon, delta,
                         random_state, ledger=None):
    """The unfitted private pipeline: schema, DPTableVectorizer, estimator."""
    try:
        from ..pipeline import DPPipeline
        from ..preprocessing import DPTableVectorizer
    except ImportError:
        raise ValueError(NOT_AVAILABLE) from None
    try:
        import pandas  # noqa: F401 - the column types travel as DataFrame dtypes
    except ImportError:  # pragma: no cover - pandas is in the test extra
        raise ImportError("fitting without a public bound for every column needs pandas: "
                          "pip install 'skdpgd[pandas]'.") from None
    undeclared = [c for c in features if c not in numeric | categorical]
    schema_class = PrivateTableSchema if undeclared else TableSchema
    dates = set(config.get("dates", []))
    schema = schema_class(features, numeric=[c for c in features if c in numeric],
                          categorical=[c for c in features if c in categorical],
                          missing_values=_markers(config),
                          dates=[c for c in features if c in dates],
                          date_format=config.get("date_format"))
    logged = {name: True for name in config.get("log1p", []) if name in features}
    bounds = {name: _raw_bounds(span) if name in logged else tuple(float(v) for v in span)
              for name, span in config.get("bounds", {}).items() if name in features}
    categories = {name: canonical_list(name, values)
                  for name, values in config.get("categories", {}).items()
                  if name in features}
    # the schema step has decided every type (declared or voted): read them as dtypes
    vectorizer = DPTableVectorizer(bounds=bounds or None, categories=categories or None,
                                   log1p=logged or "auto", types="dtype")
    estimator = make_table_estimator(config)
    steps = [("column_types", schema), ("vectorizer", vectorizer), ("model", estimator)]
    return DPPipeline(steps, epsilon=epsilon, delta=delta, random_state=random_state,
                      ledger=ledger)


def _type_sources(schema):
    """Where the schema's types came from: declared (public) or the private vote."""
    declared = set(schema.numeric) | set(schema.categorical)
    return {c: "declared" if c in declared else "vote" for c in schema.columns}


def _check_target(y, model, classes, target):
    """Refuse a target cell outside the label set (or not a number, for ridge).

    The message names the column and the kind of problem, never the cell, its line or a
    count. Only without ``--ledger``: with one, the same refusal comes from the estimator
    after the charge (a refusal before it would tell something about the data for free).
    With a private label set a missing or rare label is no error: its row gets weight 0.
    """
    if model == "ridge":
        if not np.all(np.isfinite(y)):
            raise ValueError(f"the target column {target!r} holds a cell that is not a finite "
                             "number (missing or text; not quoted: cells are private); every "
                             "row needs a target.")
        return
    if classes is not None:
        allowed = set(classes)
        if not all(value in allowed for value in y.tolist()):
            raise ValueError(f"the target column {target!r} holds a cell that is not one of "
                             f"--classes {list(classes)} (missing or another label; not "
                             "quoted: cells are private).")


def _target(cells, model, classes):
    """The target column for the estimator: numbers (ridge), labels in the type of the
    public ``classes``, or texts with missing cells as None (a private label set)."""
    if model == "ridge":
        return to_numbers(cells)
    if classes is not None:
        return to_labels(cells, classes)
    return canonical_texts(cells)


#: Python spellings in the pipeline's report -> the command line's (notes use the
#: spelling of the interface in use).
CLI_SPELLING = (
    ("label set (classes='private')", "label set (no --classes: released privately)"),
    ("target range (y_bound='auto')", "target range (no --y-bound: released privately)"),
    ("(pass classes= to fix it)", "(give --classes to fix it)"),
)


def cli_spelling(text):
    """``text`` with the Python parameter spellings of :data:`CLI_SPELLING` replaced."""
    for python, cli in CLI_SPELLING:
        text = text.replace(python, cli)
    return text


def ledger_line(ledger):
    """One line after a charged fit: the ledger file and its worst record's total."""
    delta = ledger.delta if ledger.delta is not None else 1e-5
    spent = ledger.spent(delta)
    entries = f"{spent.n_fits} entr{'y' if spent.n_fits == 1 else 'ies'}"
    return (f"charged to the ledger {ledger.path}: {entries}, the worst-off "
            f"record at epsilon={spent.epsilon:.6g} (delta={delta:.3g}); `skdpgd ledger "
            "show` lists them")


def fit_table(path, config, *, epsilon, delta="auto", random_state=None, output=None,
              ledger=None):
    """Fit the private pipeline on a CSV file, save the bundle, print the report.

    Returns
    -------
    pipeline, bundle
        The fitted DPPipeline, and the bundle (saved with :func:`joblib.dump` when
        ``output`` is given): ``pipeline`` (its fitted steps as a scikit-learn
        ``Pipeline``; predicts from ``pd.read_csv`` of any file with the feature
        columns), ``dp_pipeline`` (the DPPipeline: ``privacy_``, ``budget_``),
        ``feature_columns``, ``target``, ``model``, ``classes``, ``label_type``,
        ``privacy`` (the report as a dict) and ``skdpgd_version``.
    """
    import joblib

    frame, sep, decimal, notes = read_frame(path, sep=config.get("sep"),
                                            decimal=config.get("decimal"),
                                            markers=_markers(config), min_rows=2)
    header = [str(c) for c in frame.columns]
    features, numeric, categorical = table_plan(header, config)
    pipeline = build_table_pipeline(features, numeric, categorical, config, epsilon=epsilon,
                                    delta=delta, random_state=random_state, ledger=ledger)
    target = config["target"]
    cells = frame[target].to_numpy(dtype=object)
    model = config["model"]
    y = _target(cells, model, config.get("classes"))
    if ledger is None:
        _check_target(y, model, config.get("classes"), target)
    warned = []
    with warnings_as_lines(warned):
        pipeline.fit(frame[features], y)
    report = pipeline.privacy_
    classes = config.get("classes")
    if model == "logistic" and classes is None:  # released privately: texts
        classes = list(pipeline.classes_)
    bundle = {
        # The fitted steps as a plain scikit-learn Pipeline: its first step picks the
        # feature columns by name, so it predicts on any frame that holds them (the
        # DPPipeline reads a frame by name too: one predict contract).
        "pipeline": pipeline.pipeline_, "dp_pipeline": pipeline,
        "feature_columns": features, "target": target, "model": model,
        "classes": classes, "label_type": label_type(classes) if classes else None,
        "privacy": report.to_dict() if hasattr(report, "to_dict") else repr(report),
        "skdpgd_version": __version__, "csv": {"sep": sep, "decimal": decimal},
    }
    if output is not None:
        joblib.dump(bundle, output)
    schema = schema_of(pipeline)
    print(f"skdpgd fit: {type(pipeline.steps[-1][1]).__name__} on {path} "
          f"({len(schema.numeric_columns_)} numeric, {len(schema.categorical_columns_)} "
          f"categorical columns; target {target!r})")
    for note in notes:
        print(fit_line(f"read: {note}"))
    if config.get("verbose", 0) >= 1:
        print(cli_spelling(repr(report)))
        print(pipeline.pipeline_[1].summary_text(type_from=_type_sources(schema)))
    else:
        print(guarantee_line(report))
        print("\n".join(column_lines(pipeline.pipeline_[1], _type_sources(schema))))
    for line in warned:
        print(line)
    if ledger is not None:
        print(ledger_line(ledger))
    if output:
        print(f"saved to {output} (joblib: pipeline, dp_pipeline, classes, privacy)")
    else:
        print("(no --output given: the model was not saved)")
    return pipeline, bundle
