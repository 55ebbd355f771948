"""``skdpgd fit`` inputs: the CSV file and the public-bounds config (TOML or JSON).

Config keys (all public knowledge about the data, never computed from it)::

    target = "income"                 # column to predict
    model = "logistic"                # or "ridge"
    classes = ["<=50K", ">50K"]       # logistic: the public label set (else read from y)
    y_bound = 1.0                     # ridge: public bound on |y| (targets clipped to it)
    drop = ["fnlwgt"]                 # columns not used
    [bounds]                          # numeric features: public [low, high]
    age = [17, 90]
    unknown_values = "?"              # public missing-value marker(s) -> all zeros
    [categories]                      # categorical features: every allowed value
    sex = ["Female", "Male"]
    log1p = ["capital-gain"]          # x -> log(1 + max(x, 0)) first; bounds then apply
                                      # to the transformed value (e.g. [0, 12])
    solver = "auto"                   # estimator parameters: solver, C (logistic),
    C = 1.0                           # alpha (ridge), n_jobs, verbose
    numeric = ["hours"]               # types only (public); the range or the categories
    categorical = ["zip"]             # are then found privately (skdpgd._cli._fit_table)
    dates = ["visit"]                 # ISO 8601 dates: decimal years (UTC), numeric
    date_format = "%m/%d/%Y"          # the dates' spelling (strptime), if not ISO 8601

A categorical value in neither its list nor ``unknown_values`` stops the fit with an
error naming the column (``handle_unknown = "ignore"`` encodes it as zeros instead).

A column in none of ``bounds``, ``categories`` and ``drop`` makes the fit go through the
private pipeline (:mod:`skdpgd._cli._fit_table`); with every column declared the fully
public pipeline of :mod:`skdpgd._cli._fit` is fitted.
Every value is type-checked (:func:`check_config`): a wrong shape (``bounds`` as a list,
a bound with one number, ``epsilon`` as a list) is a ValueError naming the key.
"""

import csv
import json
import math
import numbers
from pathlib import Path

CONFIG_KEYS = {
    "target", "model", "classes", "y_bound", "drop", "bounds", "categories", "epsilon",
    "delta", "random_state", "unknown_values", "handle_unknown", "log1p", "solver", "C",
    "alpha", "n_jobs", "verbose", "numeric", "categorical", "dates", "date_format", "sep",
    "decimal", "inference",
    "max_coef_norm", "sampling",
}


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _number(key, value, *, positive=False, allow_inf=False):
    """A real number (a numeric string such as "inf" too); ValueError naming ``key``."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{key} must be a number, got {value!r}.") from None
    if not _is_number(value):
        raise ValueError(f"{key} must be a number, got {value!r} ({type(value).__name__}).")
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{key} must be a finite number, got {value!r}.")
    if positive and not value > 0:
        raise ValueError(f"{key} must be > 0, got {value!r}.")
    return value


def _names(key, value):
    """A list of column names (str); a single str is not accepted (say ["a"])."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} must be a list of column names, got {value!r}.")
    return list(value)


def _table(key, value):
    if not isinstance(value, dict):
        raise ValueError(
            f"{key} must be a table of column -> value (TOML [{key}] section, JSON object), "
            f"got {value!r}."
        )
    return value


def check_bound(name, span):
    """(low, high) of a column: two finite numbers with low < high."""
    if not isinstance(span, (list, tuple)) or len(span) != 2:
        raise ValueError(
            f"bounds for column {name!r} must be [low, high] (two numbers), got {span!r}."
        )
    low = _number(f"bounds[{name!r}] low", span[0])
    high = _number(f"bounds[{name!r}] high", span[1])
    if not high > low:
        raise ValueError(f"bounds for column {name!r}: high must be > low, got [{low!r}, "
                         f"{high!r}].")
    return low, high


def check_config(config):
    """Type-check every key of a merged config; returns a normalised copy.

    Raises ValueError naming the key (and the column) for any value of the wrong shape,
    so that no malformed config reaches the estimator as a traceback.
    """
    from ..solvers import DEFAULT as DEFAULT_SOLVER
    from ..solvers import names as solver_names

    config = dict(config)
    unknown = set(config) - CONFIG_KEYS
    if unknown:
        raise ValueError(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(CONFIG_KEYS)}.")
    for key in ("target", "model", "handle_unknown", "solver", "sep", "decimal"):
        if key in config and not isinstance(config[key], str):
            raise ValueError(f"{key} must be a string, got {config[key]!r}.")
    if "inference" in config and not isinstance(config["inference"], bool):
        raise ValueError(f"inference must be true or false, got {config['inference']!r}.")
    if config.get("model", "logistic") not in ("logistic", "ridge"):
        raise ValueError(f"model must be 'logistic' or 'ridge', got {config['model']!r}.")
    if config.get("solver", DEFAULT_SOLVER) not in solver_names():  # the registry's
        raise ValueError(f"solver must be one of {solver_names()}, got {config['solver']!r}.")
    if config.get("handle_unknown", "error") not in ("error", "ignore"):
        raise ValueError("handle_unknown must be 'error' or 'ignore', got "
                         f"{config['handle_unknown']!r}.")
    if "epsilon" in config:
        config["epsilon"] = _number("epsilon", config["epsilon"], positive=True,
                                    allow_inf=True)
    if "delta" in config and config["delta"] != "auto":
        config["delta"] = _number("delta", config["delta"], positive=True)
    for key in ("y_bound", "C", "alpha", "max_coef_norm"):
        if key in config:  # C = inf, alpha = 0: unregularised (the estimator needs a radius)
            config[key] = _number(key, config[key], positive=key != "alpha",
                                  allow_inf=key == "C")
    if config.get("alpha", 0.0) < 0:
        raise ValueError(f"alpha must be >= 0, got {config['alpha']!r}.")
    if config.get("sampling", "poisson") not in ("poisson", "uniform"):
        raise ValueError("sampling must be 'poisson' or 'uniform', got "
                         f"{config['sampling']!r}.")
    for key in ("random_state", "n_jobs", "verbose"):
        value = config.get(key)
        if value is not None and not (isinstance(value, numbers.Integral)
                                      and not isinstance(value, bool)):
            raise ValueError(f"{key} must be an integer, got {value!r}.")
    if config.get("verbose", 0) < 0:
        raise ValueError(f"verbose must be >= 0, got {config['verbose']!r}.")
    if "classes" in config:
        classes = config["classes"]
        if not isinstance(classes, (list, tuple)) or len(classes) < 2 or not all(
                isinstance(c, (str, numbers.Real)) and not isinstance(c, bool) for c in classes):
            raise ValueError(f"classes must be a list of at least two labels, got {classes!r}.")
        if len({str(c) for c in classes}) != len(classes):
            raise ValueError(f"classes has repeated labels: {classes!r}.")
    config["drop"] = _names("drop", config.get("drop", []))
    config["dates"] = _names("dates", config.get("dates", []))
    if config.get("date_format") is not None:
        config["date_format"] = check_date_format(config["date_format"], config["dates"])
    config["log1p"] = _names("log1p", config.get("log1p", []))
    config["bounds"] = {
        str(name): check_bound(name, span)
        for name, span in _table("bounds", config.get("bounds", {})).items()
    }
    categories = _table("categories", config.get("categories", {}))
    for name, values in categories.items():
        if not isinstance(values, (list, tuple)) or not values or not all(
                isinstance(v, (str, numbers.Real)) and not isinstance(v, bool) for v in values):
            raise ValueError(f"categories for column {name!r} must be a non-empty list of "
                             f"values, got {values!r}.")
    config["categories"] = {str(name): list(values) for name, values in categories.items()}
    markers = config.get("unknown_values")
    if markers is not None and not isinstance(markers, str) and not (
            isinstance(markers, (list, tuple)) and all(isinstance(m, str) for m in markers)):
        raise ValueError(f"unknown_values must be a string or a list of strings, got "
                         f"{markers!r}.")
    not_bounded = [name for name in config["log1p"] if name not in config["bounds"]]
    if not_bounded:
        raise ValueError(f"log1p column(s) {not_bounded} need bounds (on the log1p scale).")
    return config


def check_date_format(date_format, dates):
    """The public ``date_format``, checked before any cell is read (ValueError otherwise).

    A string with a ``%`` directive that :meth:`~datetime.datetime.strptime` reads back
    from a fixed public moment written in it (an unknown directive fails there), and
    date columns to read with it.
    """
    import datetime

    if not isinstance(date_format, str) or "%" not in date_format:
        raise ValueError(f"date_format must be a strptime format such as '%m/%d/%Y', got "
                         f"{date_format!r}.")
    if not dates:
        raise ValueError("date_format (--date-format) needs date columns: name them with "
                         "--date NAME or the config's dates.")
    moment = datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)
    try:
        datetime.datetime.strptime(moment.strftime(date_format), date_format)
    except ValueError as exc:
        raise ValueError(f"date_format {date_format!r} cannot read the dates it writes "
                         f"({exc}); check its directives.") from None
    return date_format


def load_config(path):
    """Read a TOML (``.toml``, via :mod:`tomllib`) or JSON config into a dict."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} not found.")
    if path.suffix == ".toml":
        try:
            import tomllib
        except ModuleNotFoundError as exc:  # Python 3.10
            raise ImportError(
                "TOML configs need Python >= 3.11 (tomllib); use a .json config instead."
            ) from exc
        with path.open("rb") as handle:
            try:
                config = tomllib.load(handle)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"config {str(path)!r} is not valid TOML: {exc}.") from None
    elif path.suffix == ".json":
        try:
            config = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"config {str(path)!r} is not valid JSON: {exc}.") from None
    else:
        raise ValueError(f"config {str(path)!r} must end in .toml or .json.")
    if not isinstance(config, dict):
        raise ValueError(f"config {str(path)!r} must hold a table of keys, got "
                         f"{type(config).__name__}.")
    unknown = set(config) - CONFIG_KEYS
    if unknown:
        raise ValueError(f"unknown key(s) {sorted(unknown)} in {str(path)!r}; "
                         f"allowed: {sorted(CONFIG_KEYS)}.")
    return config


def parse_bound(text):
    """``"name=low:high"`` -> (name, (low, high))."""
    name, _, span = text.partition("=")
    low, sep, high = span.partition(":")
    if not (name and sep):
        raise ValueError(f"--bounds expects NAME=LOW:HIGH, got {text!r}.")
    try:
        return name, (float(low), float(high))
    except ValueError:
        raise ValueError(f"--bounds expects NAME=LOW:HIGH with numbers, got {text!r}.") from None


def parse_categories(text):
    """``"name=a,b,c"`` -> (name, ["a", "b", "c"])."""
    name, sep, values = text.partition("=")
    if not (name and sep and values):
        raise ValueError(f"--categories expects NAME=A,B,C, got {text!r}.")
    return name, values.split(",")


def read_csv(path, sep=None, decimal=None):
    """Header and rows (lists of str) of a CSV file; clear errors for bad files.

    The dialect comes from the header line (:func:`skdpgd._cli._csv.sniff`); a number
    with a decimal comma (``decimal=","``) is rewritten with a point, an unnamed first
    column (a row index) is dropped.
    """
    from ._csv import _DECIMAL_COMMA, check_header, index_column, sniff

    header, sep, decimal, _ = sniff(path, sep, decimal)
    check_header(path, header)
    rows = None
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as handle:
            rows = [row for row in csv.reader(handle, delimiter=sep) if row]
    except (UnicodeDecodeError, csv.Error):  # its text quotes bytes and positions
        pass
    if rows is None:  # raised outside the handler: no __context__ quoting the file
        raise ValueError(f"{str(path)!r} is not a readable CSV file (not UTF-8 text, or "
                         "malformed quoting); save it as UTF-8 CSV.")
    if len(rows) < 3:
        raise ValueError(f"{str(path)!r} needs a header line and at least 2 data rows.")
    if any(len(row) != len(header) for row in rows[1:]):  # no line number: a row index
        raise ValueError(f"{str(path)!r}: some line has a different number of fields than "
                         f"the header ({len(header)}, separated by {sep!r}); check --sep, "
                         "or quote fields that hold the separator.")
    rows = [[value.strip() for value in row] for row in rows[1:]]
    if decimal == ",":
        rows = [[v.replace(",", ".") if _DECIMAL_COMMA.match(v) else v for v in row]
                for row in rows]
    if index_column(header) is not None:
        header, rows = header[1:], [row[1:] for row in rows]
    return header, rows


def column_plan(header, config):
    """Check the config against the header; returns (numeric, categorical) column names."""
    target = config.get("target")
    if target not in header:
        raise ValueError(f"target column {target!r} is not in the file; columns: {header}.")
    bounds, categories = config.get("bounds", {}), config.get("categories", {})
    drop = set(config.get("drop", []))
    declared = list(bounds) + list(categories) + list(drop)
    unknown = [name for name in declared if name not in header]
    if unknown:
        raise ValueError(f"column(s) {unknown} in the config are not in the file; "
                         f"columns: {header}.")
    both = set(bounds) & set(categories)
    if both:
        raise ValueError(f"column(s) {sorted(both)} are given both bounds and categories.")
    undeclared = [name for name in header if name != target and name not in declared]
    if undeclared:
        raise ValueError(
            f"column(s) {undeclared} have no public bound: give numeric columns "
            "--bounds NAME=LOW:HIGH, categorical ones --categories NAME=A,B,C (the full "
            "public list of values), or --drop NAME. Bounds must come from documentation "
            "of the data, never from the data themselves."
        )
    numeric = [name for name in header if name in bounds]
    categorical = [name for name in header if name in categories]
    if not numeric and not categorical:
        raise ValueError("no feature columns: declare at least one in bounds or categories.")
    return numeric, categorical


def numeric_column(name, values):
    """Floats of a numeric column; a clear error naming the column (never the value or its
    line: cells are private data).

    (Like the other file checks, this runs before the estimator and its ledger see the
    data: the CLI reads the file with no budget attached.)
    """
    out = []
    for value in values:
        try:
            out.append(float(value))
        except ValueError:
            break
    else:
        return out
    raise ValueError(  # outside the handler: no __context__ quoting the value
        f"column {name!r} holds a non-numeric value (not quoted: cells are private); if "
        "it is categorical, "
        f"declare its values with --categories {name}=A,B,C instead of --bounds, else "
        "correct the file."
    )
