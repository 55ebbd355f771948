"""The command line's table: the schema steps it saves, reading a CSV file and its labels.

The first step of every pipeline the command line saves is a
:class:`~skdpgd.preprocessing._table_schema.TableSchema` (every type public) or a
:class:`~skdpgd.preprocessing._table_schema.PrivateTableSchema` (the undeclared types
decided by a private vote); both live in :mod:`skdpgd.preprocessing` with the per-cell
rule they read by (:mod:`skdpgd.preprocessing._cells`). This module reads the CSV file
(every cell as its raw text) and the target's labels.
"""

import csv
from pathlib import Path

import numpy as np

from ..preprocessing._cells import canonical, grouped_cells
from ..preprocessing._table_schema import PrivateTableSchema, TableSchema

__all__ = ["PrivateTableSchema", "TableSchema", "canonical_list", "label_type",
           "parse_classes", "public_categories", "raw_frame", "read_table", "schema_of",
           "to_labels"]


def _pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        return None
    return pd


def schema_of(pipeline):
    """The fitted first step of a saved pipeline (a scikit-learn Pipeline or a DPPipeline)."""
    inner = getattr(pipeline, "pipeline_", pipeline)
    steps = getattr(inner, "steps", None)
    return steps[0][1] if steps else None


# -- reading a CSV file and its labels ------------------------------------------------------

def read_table(path, *, min_rows=1):
    """(header, rows) of a CSV file, every cell as its raw text.

    Errors name the file and the header only: no cell value, no line number, no count
    of rows (``min_rows`` is a public requirement).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data file {str(path)!r} not found.")
    rows = None
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # a BOM is not a name
            rows = [row for row in csv.reader(handle) if row]
    except (UnicodeDecodeError, csv.Error):  # the error holds the raw bytes of the file
        pass
    if rows is None:  # raised outside the handler: neither __cause__ nor __context__
        raise ValueError(f"{str(path)!r} is not a readable CSV file (UTF-8 text with "
                         "comma-separated fields).")
    if not rows:
        raise ValueError(f"{str(path)!r} is empty; it needs a header line.")
    header = [name.strip() for name in rows[0]]
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise ValueError(f"{str(path)!r}: the header repeats column name(s) {repeated}; "
                         "every column needs a distinct name.")
    if len(rows) - 1 < min_rows:
        raise ValueError(f"{str(path)!r} needs a header line and at least {min_rows} "
                         f"data row(s).")
    if any(len(row) != len(header) for row in rows[1:]):
        raise ValueError(f"{str(path)!r}: some line has a different number of fields than "
                         f"the header ({len(header)}).")
    return header, rows[1:]


def raw_frame(header, rows, columns=None):
    """The raw text cells of ``columns`` (default: all) as a DataFrame of object columns."""
    pd = _pandas()
    columns = header if columns is None else columns
    position = {name: j for j, name in enumerate(header)}
    if pd is None:  # pragma: no cover - pandas is in the test extra
        return np.array([[row[position[c]] for c in columns] for row in rows], dtype=object)
    return pd.DataFrame({c: pd.Series([row[position[c]] for row in rows], dtype=object)
                         for c in columns})


def parse_classes(text):
    """``--classes`` as typed labels: ints if every label is an int, else floats if every
    label is a number, else strings (``"0,1"`` -> ``[0, 1]``; ``"yes,no"`` -> strings)."""
    labels = [label.strip() for label in text.split(",")]
    for kind in (int, float):
        try:
            return [kind(label) for label in labels]
        except ValueError:
            continue
    return labels


def label_type(classes):
    """``"int"``, ``"float"`` or ``"str"``: the type predictions are written in."""
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in classes):
        return "int"
    if all(isinstance(c, (int, float, np.number)) and not isinstance(c, bool)
           for c in classes):
        return "float"
    return "str"


def to_labels(cells, classes):
    """Target cells as the labels of ``classes`` (their type), matched by canonical text.

    A cell whose text (or canonical text: ``"1.0"`` for the class 1) names a class
    becomes that class; any other cell is kept as its text (the estimator refuses it,
    after its charge, without quoting it). With ``classes=None`` every cell is its text.
    """
    codes, distinct = grouped_cells(np.asarray(cells, dtype=object))  # each read once
    if classes is None:
        labels = [str(c).strip() for c in distinct]
    else:
        lookup = {canonical(c): c for c in classes}
        lookup.update({str(c).strip(): c for c in classes if isinstance(c, str)})
        labels = []
        for cell in distinct:
            text = cell.strip() if isinstance(cell, str) else None
            label = lookup.get(text) if text is not None else None
            if label is None:
                label = lookup.get(canonical(cell), text if text is not None else cell)
            labels.append(label)
    kind = None if classes is None else label_type(classes)
    # numeric classes and every cell one of them: numbers; anything else (a text, a
    # missing cell, another number: 2.5 is no int class, not even truncated to 2) stays
    # an object for the estimator to refuse
    allowed = set() if kind in (None, "str") else set(classes)
    if labels and allowed and all(
            not isinstance(v, (bool, np.bool_)) and isinstance(
                v, (int, float, np.integer, np.floating)) and v in allowed for v in labels):
        return np.asarray(labels, dtype=np.int64 if kind == "int" else np.float64)[codes]
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out[codes]


def canonical_texts(cells):
    """The canonical text of every cell, None for a missing one (a private label set's
    target), read once per group of equal cells.

    Parameters
    ----------
    cells : array-like of shape (n,)

    Returns
    -------
    ndarray of object, shape (n,)
    """
    codes, distinct = grouped_cells(cells)
    texts = np.empty(len(distinct), dtype=object)
    texts[:] = [canonical(cell) for cell in distinct]
    return texts[codes]


def canonical_list(name, values):
    """A public category list in canonical texts (as :class:`TableSchema` reads cells):
    missing spellings dropped, repeats (``"1"`` and ``"01"``) merged, order kept."""
    out = []
    for value in values:
        text = canonical(value)
        if text is not None and text not in out:
            out.append(text)
    if not out:
        raise ValueError(f"categories for column {name!r} hold only missing-value "
                         "spellings; list the values a cell may take.")
    return out


def public_categories(config, categorical):
    """The config for the fully public pipeline after :class:`TableSchema`: category lists
    in canonical texts, and ``None`` (a missing cell, or a marker of ``unknown_values``,
    both read as missing by the schema) encoded as all zeros in every categorical column."""
    config = dict(config)
    config["categories"] = {name: canonical_list(name, values)
                            for name, values in config.get("categories", {}).items()}
    config["unknown_values"] = [[None] for _ in categorical]
    return config
