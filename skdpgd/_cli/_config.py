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

A categorical value in neither its list nor ``unknown_values`` stops the fit with an
error naming the column (``handle_unknown = "ignore"`` encodes it as zeros instead).

Every column other than the target must be in ``bounds``, ``categories`` or ``drop``.
"""

import csv
import json
from pathlib import Path

CONFIG_KEYS = {
    "target", "model", "classes", "y_bound", "drop", "bounds", "categories", "epsilon",
    "delta", "random_state", "unknown_values", "handle_unknown",
}


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
            config = tomllib.load(handle)
    elif path.suffix == ".json":
        config = json.loads(path.read_text())
    else:
        raise ValueError(f"config {str(path)!r} must end in .toml or .json.")
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
    return name, (float(low), float(high))


def parse_categories(text):
    """``"name=a,b,c"`` -> (name, ["a", "b", "c"])."""
    name, sep, values = text.partition("=")
    if not (name and sep and values):
        raise ValueError(f"--categories expects NAME=A,B,C, got {text!r}.")
    return name, values.split(",")


def read_csv(path):
    """Header and rows (lists of str) of a CSV file; clear errors for bad files."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data file {str(path)!r} not found.")
    with path.open(newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]
    if len(rows) < 3:
        raise ValueError(f"{str(path)!r} needs a header line and at least 2 data rows.")
    header = [name.strip() for name in rows[0]]
    bad = [i + 2 for i, row in enumerate(rows[1:]) if len(row) != len(header)]
    if bad:
        raise ValueError(f"{str(path)!r}: line {bad[0]} has a different number of fields "
                         f"than the header ({len(header)}).")
    return header, [[value.strip() for value in row] for row in rows[1:]]


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
    """Floats of a numeric column; a clear error naming the first non-numeric value."""
    out = []
    for line, value in enumerate(values, start=2):
        try:
            out.append(float(value))
        except ValueError:
            raise ValueError(
                f"column {name!r} has the non-numeric value {value!r} on line {line}; "
                "if it is categorical, declare its values with --categories "
                f"{name}=A,B,C instead of --bounds."
            ) from None
    return out
