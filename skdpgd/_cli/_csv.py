"""Reading the CSV files people have: the dialect from the header line, then pandas' C
parser.

The separator is ``--sep`` or, when not given, sniffed from the **header line only** (the
column names are public; no data line is looked at): the candidate among ``,`` ``;``
tab and ``|`` that splits the header (outside quotes) into the most fields, ``,`` on a
tie. A ``;``-separated file is read with a decimal comma unless ``--decimal`` says
otherwise (the export convention that writes ``;``); the choice is printed. Quoting is
the CSV standard's (``"a,b"`` is one field).

The cells are then read by :func:`pandas.read_csv` (its float parser exact: a number is
what Python's :class:`float` makes of its text, checked on 600,000 spellings; the public
missing-value markers as ``na_values``) and handed to the schema step, whose
per-cell rule (:mod:`skdpgd.preprocessing._cells`) gives the same value for a cell
whether it arrives as text or as the number pandas parsed. A cell with a decimal comma
that pandas left as text (its column also holds text) is rewritten with a point, so
that the rule reads it as the number it is.

An unnamed first column (an empty header name, or ``Unnamed: 0``: the row index that R's
``write.csv`` and pandas' ``to_csv`` write by default) is recognised from the header and
dropped, with a note. Errors name the file, the header and the problem; never a cell, a
line number or a count of rows, and they are raised outside any handler (no
``__context__`` holding the parser's message).
"""

import csv
import io
import re
from pathlib import Path

from ..utils import row_index_column

CANDIDATES = (",", ";", "\t", "|")
_DECIMAL_COMMA = re.compile(r"^\s*[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?\s*$")


def _header_line(path):
    """The first line of the file (text), or a ValueError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data file {str(path)!r} not found.")
    line = None
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # a BOM is not a name
            line = handle.readline()
    except UnicodeDecodeError:  # its text holds bytes of the file
        pass
    if line is None:
        raise ValueError(f"{str(path)!r} is not UTF-8 text; save it as UTF-8 CSV.")
    if not line.strip():
        raise ValueError(f"{str(path)!r} is empty or starts with a blank line; it needs a "
                         "header line.")
    return line


def _split(line, sep):
    return next(csv.reader(io.StringIO(line), delimiter=sep), [])


def sniff(path, sep=None, decimal=None):
    """(header, sep, decimal, notes) from the header line and the options (public).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    sep, decimal : str or None
        ``--sep`` and ``--decimal``; None: sniffed from the header line (module
        docstring).

    Returns
    -------
    header : list of str
        The column names, stripped.
    sep, decimal : str
    notes : list of str
        What was decided from the header (printed by the command).
    """
    line = _header_line(path)
    notes = []
    if sep is None:
        counts = {c: len(_split(line, c)) for c in CANDIDATES}
        sep = max(CANDIDATES, key=lambda c: (counts[c], c == ","))
        if sep != ",":
            notes.append(f"separator {sep!r} (from the header line; --sep to change it)")
    if len(sep) != 1:
        raise ValueError(f"--sep must be one character, got {sep!r}.")
    if decimal is None:
        decimal = "," if sep == ";" else "."
        if decimal == ",":
            notes.append("decimal comma (the ';' convention; --decimal . to change it)")
    if decimal not in (".", ",") or decimal == sep:
        raise ValueError(f"--decimal must be '.' or ',' and differ from the separator, "
                         f"got {decimal!r}.")
    header = [name.strip() for name in _split(line, sep)]
    return header, sep, decimal, notes


def index_column(header):
    """The name of an unnamed first column (a row index), or None (header only).

    The one rule of :func:`skdpgd.utils.row_index_column`, which
    :class:`~skdpgd.preprocessing.DPTableVectorizer` applies too.
    """
    return row_index_column(header)


def check_header(path, header):
    """Refuse repeated or empty column names (public: the header)."""
    named = header[1:] if index_column(header) is not None else header
    if any(not name for name in named):
        raise ValueError(f"{str(path)!r}: a column has no name in the header {header}; "
                         "every column needs one.")
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise ValueError(f"{str(path)!r}: the header repeats column name(s) {repeated}; "
                         "every column needs a distinct name.")


def _exact_floats(pd):
    """pandas 3 parses a float exactly by default (and deprecates the option); before,
    ``float_precision="round_trip"`` asks for Python's own parser."""
    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def read_frame(path, *, sep=None, decimal=None, markers=(), min_rows=1):
    """(frame, notes): the file's columns (unnamed index dropped) as a DataFrame.

    Numbers come as float64 or int64 columns where a whole column parses, text as
    object columns of strings; the schema step reads both alike. Errors name the
    problem, never a cell, a line or a count.
    """
    import pandas as pd

    header, sep, decimal, notes = sniff(path, sep, decimal)
    check_header(path, header)
    frame, problem = None, None
    try:
        frame = pd.read_csv(
            path, sep=sep, decimal=decimal, header=0, names=header, index_col=False,
            dtype=None, na_values=list(markers), **_exact_floats(pd),
            keep_default_na=True, encoding="utf-8-sig", skip_blank_lines=True,
            skipinitialspace=False, low_memory=False)
    except pd.errors.ParserError:  # its text holds a line number and a count
        problem = (f"{str(path)!r}: some line has a different number of fields than the "
                   f"header ({len(header)}, separated by {sep!r}); check --sep, or quote "
                   "fields that hold the separator.")
    except UnicodeDecodeError:  # its text holds bytes of the file
        problem = f"{str(path)!r} is not UTF-8 text; save it as UTF-8 CSV."
    except (ValueError, pd.errors.EmptyDataError):
        problem = f"{str(path)!r} is not a readable CSV file with the header {header}."
    if problem is not None:  # raised outside the handlers: no __context__
        raise ValueError(problem)
    if len(frame) < min_rows:
        raise ValueError(f"{str(path)!r} needs a header line and at least {min_rows} "
                         "data row(s).")
    dropped = index_column(header)
    if dropped is not None:
        frame = frame.drop(columns=[dropped])
        notes.append(f"first column {dropped!r} dropped: an unnamed column is a row index "
                     "(name it to keep it)")
    if decimal == ",":
        frame = _decimal_commas(frame)
    return frame, sep, decimal, notes


def _decimal_commas(frame):
    """Cells like ``"1,5"`` in text columns as ``"1.5"`` (a per-cell public rewrite)."""
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object:
            text = column.astype(str)
            hit = text.str.match(_DECIMAL_COMMA.pattern) & column.map(
                lambda v: isinstance(v, str))
            if hit.any():
                frame[name] = column.where(~hit, text.str.replace(",", ".", regex=False))
    return frame
