"""One CSV cell -> missing, a number or a text, by a public per-cell rule.

The same rule reads a cell whether it arrives as the raw text of the CSV file (what
``skdpgd fit`` reads) or as the value :func:`pandas.read_csv` made of it (an int, a
float, a bool, a string, ``NaN``), so a model fitted by the command line predicts the
same on a DataFrame read by plain ``pd.read_csv``. The rule looks at one cell only:
applied to every cell of a column it is a row-by-row map, fixed before any data are
seen (post-processing of nothing private).

- **missing**: the one missing-value rule of :func:`skdpgd.preprocessing.is_missing`:
  ``None``, a float NaN (``np.nan``, ``math.nan``, ``float("nan")``,
  ``np.float64("nan")``), ``pd.NA``, ``pd.NaT``, and the strings pandas reads as missing
  by default (:data:`MISSING_STRINGS`: ``""``, ``"NA"``, ``"N/A"``, ``"NaN"``,
  ``"null"``, ...), also after stripping spaces, and every spelling of NaN; plus any
  public marker the user adds.
- **number**: a Python or NumPy int or float (not a bool), or a string that Python's
  :class:`float` parses (``"3"``, ``"-1.5e3"``, ``"inf"``) and holds no ``_``.
- **text**: anything else (``"Male"``, ``"<=50K"``, a bool, ``"1_000"``).

A categorical column keeps a cell as its *canonical text*: a number as its shortest
exact spelling (``1``, ``1.0`` and ``"01"`` are all ``"1"``; ``0.5`` is ``"0.5"``), so
that the category ``"1"`` of a file read as text matches the int 1 that ``pd.read_csv``
makes of the same cell; bools and the strings ``"true"``/``"TRUE"`` as ``"True"``
(pandas reads them as bools), other text stripped of surrounding spaces.
"""

import math
import numbers

import numpy as np

from ._category_codes import column_cells
from ._distinct import TEXT_TYPES, group_equal_cells
from ._missing import DEFAULT_MISSING_STRINGS, is_missing

#: The strings ``pandas.read_csv`` reads as missing by default (pandas' ``STR_NA_VALUES``,
#: copied so that the command line does not need pandas to read a file): the one list of
#: :data:`skdpgd.preprocessing.DEFAULT_MISSING_STRINGS`, as a set.
MISSING_STRINGS = frozenset(DEFAULT_MISSING_STRINGS)

MISSING, NUMBER, TEXT = "missing", "number", "text"

_BOOLS = {"true": "True", "false": "False"}


def _number_text(text):
    """Canonical spelling of the number in ``text`` (already known to parse)."""
    try:
        return str(int(text))  # exact for integers of any size
    except ValueError:
        return _float_text(float(text))


def _float_text(value):
    """Shortest exact spelling: integral floats without ``.0`` (``1.0`` -> ``"1"``)."""
    if math.isfinite(value) and value == math.floor(value):
        return str(int(value))
    return repr(float(value))


def classify(value, markers=frozenset()):
    """The kind of one cell and its value.

    Parameters
    ----------
    value : object
        A cell: a string from the CSV file, or what a DataFrame holds.
    markers : frozenset of str, default=frozenset()
        Public extra spellings of a missing value (compared after stripping spaces).

    Returns
    -------
    kind : {"missing", "number", "text"}
    number : float or None
        The number (``kind == "number"``).
    text : str or None
        The canonical text (``kind`` "number" or "text"); see the module docstring.
    """
    if not isinstance(value, str) and is_missing(value):
        return MISSING, None, None
    if isinstance(value, (bool, np.bool_)):
        return TEXT, None, str(bool(value))
    if isinstance(value, (numbers.Integral, np.integer)):
        return NUMBER, float(value), str(int(value))
    if isinstance(value, (numbers.Real, np.floating)):
        return NUMBER, float(value), _float_text(float(value))
    text = value.strip() if isinstance(value, str) else str(value).strip()
    if is_missing(text, MISSING_STRINGS) or text in markers:
        return MISSING, None, None
    if text.lower() in _BOOLS:
        return TEXT, None, _BOOLS[text.lower()]
    if "_" not in text:
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            return NUMBER, number, _number_text(text)
    return TEXT, None, text


def grouped_cells(values):
    """(codes, cells): a column's distinct cells and each cell's code, grouped so that
    the rule of this module reads the cells of a group alike.

    Cells share a group when they are of the same type among strings, None, bools and
    Python or NumPy ints, and equal
    (:func:`~skdpgd.preprocessing._distinct.group_equal_cells`); any other cell is a group
    of its own: a float (``0.0 == -0.0``, whose numbers and texts differ), a ``Decimal``,
    a tuple, an unhashable object. (A column of floats is a float array, read whole.)

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's cells.

    Returns
    -------
    codes : ndarray of shape (n,), intp
        ``cells[codes[i]]`` stands for cell i.
    cells : ndarray of object
        One cell per group.
    """
    array = column_cells(values)
    array = array if array.dtype.kind == "O" else array.astype(object)
    codes, first = group_equal_cells(array, _READ_ALIKE)
    return codes, array[first]


#: Cell types whose equal cells this module's rule reads alike.
_READ_ALIKE = TEXT_TYPES | {bool, int, np.bool_, np.int64, np.int32}


def _classified(values, markers):
    """(codes, results): :func:`classify` of each group of :func:`grouped_cells` (one
    call per distinct cell) and each cell's code."""
    codes, cells = grouped_cells(values)
    return codes, [classify(cell, markers) for cell in cells]


def _numeric_dtype(values):
    return isinstance(values, np.ndarray) and values.dtype.kind in "iuf"


def to_numbers(values, markers=frozenset()):
    """A column as float64: numbers as themselves, missing and text cells as NaN.

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's cells.
    markers : frozenset of str, default=frozenset()
        Public extra missing-value spellings.

    Returns
    -------
    column : ndarray of float64, shape (n,)
    """
    if _numeric_dtype(values):
        return values.astype(np.float64)
    codes, results = _classified(values, markers)
    return np.array([number if kind == NUMBER else np.nan for kind, number, _ in results],
                    dtype=np.float64).reshape(-1)[codes]


def _datetime_cell(value, markers, date_format=None):
    """One cell as a naive UTC ``datetime``, or None: a text in ISO 8601
    (:meth:`datetime.datetime.fromisoformat`) or, with ``date_format``, in that public
    :meth:`~datetime.datetime.strptime` format, offsets converted to UTC; or a datetime.
    Missing cells, numbers and any other text give None."""
    import datetime

    kind, _, text = classify(value, markers)
    if kind == MISSING:
        return None
    if isinstance(value, datetime.datetime):  # pandas' Timestamp too
        moment = value
    elif kind == TEXT and text is not None:
        try:
            moment = (datetime.datetime.strptime(text, date_format) if date_format
                      else datetime.datetime.fromisoformat(text))
        except ValueError:
            return None
    else:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def to_datetimes(values, markers=frozenset(), date_format=None):
    """A column as ``datetime64[us]`` in UTC: ISO 8601 texts (or texts in ``date_format``)
    and datetimes as themselves, missing cells, numbers and other texts as NaT.

    The rule of one cell, the same for every data set (Python's ``fromisoformat``: a
    date, a date and time, an offset; or ``strptime`` with the public ``date_format``; a
    time-zone-aware value in UTC, a naive one as UTC). A datetime column is then read as
    decimal years by the vectorizer
    (:func:`~skdpgd.preprocessing._schema.temporal_to_float`).

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's cells.
    markers : frozenset of str, default=frozenset()
        Public extra missing-value spellings.
    date_format : str or None, default=None
        A :meth:`~datetime.datetime.strptime` format (public: ``"%m/%d/%Y"``,
        ``"%d.%m.%Y %H:%M"``); None reads ISO 8601.

    Returns
    -------
    column : ndarray of datetime64[us], shape (n,)
    """
    array = np.asarray(values)
    if array.dtype.kind == "M":  # already datetimes (naive: read as UTC)
        return array.astype("datetime64[us]")
    codes, cells = grouped_cells(values)
    moments = [_datetime_cell(cell, markers, date_format) for cell in cells]
    parsed = np.array([np.datetime64("NaT", "us") if m is None else np.datetime64(m, "us")
                       for m in moments], dtype="datetime64[us]").reshape(-1)
    return parsed[codes]


def to_categories(values, markers=frozenset()):
    """A column as canonical texts (object array), missing cells as ``None``.

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's cells.
    markers : frozenset of str, default=frozenset()
        Public extra missing-value spellings.

    Returns
    -------
    column : ndarray of object, shape (n,)
        Canonical texts (see the module docstring) and ``None`` (a singleton, so it
        survives pickling as itself, unlike a NaN float that an identity test matches).
    """
    codes, results = _classified(values, markers)
    texts = np.empty(len(results), dtype=object)
    texts[:] = [None if kind == MISSING else text for kind, _, text in results]
    return texts[codes]


def canonical(value):
    """The canonical text of one public value (a category or a label); None if missing."""
    return classify(value)[2]


def number_minus_text(values, markers=frozenset()):
    """(number of number cells) - (number of text cells) of a column.

    Replacing one record changes one cell of the column, so this count moves by at
    most 2 (a number becomes a text: -1 - 1): its sensitivity is 2.
    """
    if _numeric_dtype(values):
        return int(np.count_nonzero(~np.isnan(values.astype(np.float64))))
    codes, results = _classified(values, markers)
    counts = np.bincount(codes, minlength=len(results))
    return sum(int(count) if kind == NUMBER else -int(count) if kind == TEXT else 0
               for (kind, _, _), count in zip(results, counts, strict=True))
