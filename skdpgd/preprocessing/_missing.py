r"""Missing values in every spelling, and the text key of a category.

A missing value reaches a transformer in many spellings: ``np.nan``, ``math.nan``,
``float("nan")``, ``np.float64("nan")`` (all NaN floats, but distinct objects, so
``value in [np.nan]`` is true for one of them only), ``None``, ``pd.NA``, ``pd.NaT``,
``np.datetime64("NaT")``, a polars null (``None`` once converted), and, in a CSV read as
strings, ``""`` or ``"NA"``. The functions here recognise all of them the same way, by
type and value, never by identity, so every skdpgd transformer maps them alike.

The strings that mean "missing" are a public convention (:data:`DEFAULT_MISSING_STRINGS`,
the list :func:`pandas.read_csv` uses); they are parameters, never learned from the data.

This is the one missing-value rule of skdpgd (its non-text half is
:func:`skdpgd.utils.is_missing_label`, the rule for labels, which reads no text as
missing): the transformers, the type vote
(:mod:`skdpgd.preprocessing._table_schema`) and the command line's per-cell reading
(:mod:`skdpgd.preprocessing._cells`) all call :func:`is_missing`. A string is missing
when it, or its text stripped of surrounding spaces, is one of the missing strings, or
when it spells a NaN that Python's :class:`float` reads (``"nan"``, ``"-NaN"``,
``" nAn "``): a CSV field ``a, NA`` has a space before ``NA``.
"""

import math
import numbers

import numpy as np

from ..utils import is_missing_label
from ._distinct import TEXT_TYPES, group_equal_cells

#: Strings read as missing by default: the spellings pandas.read_csv treats as NaN
#: (its ``na_values`` default list), so a CSV read as text and a CSV read by
#: ``pd.read_csv`` give the same missing values.
DEFAULT_MISSING_STRINGS = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)

#: The spellings of NaN that :class:`float` reads, in lower case (after stripping).
_NAN_TEXTS = frozenset({"nan", "+nan", "-nan"})


def is_missing_text(text, missing_strings=DEFAULT_MISSING_STRINGS):
    """Whether the string ``text`` means "missing" (the string half of :func:`is_missing`).

    Parameters
    ----------
    text : str
        One cell.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing" (public), compared as given and after stripping.

    Returns
    -------
    missing : bool
        True when ``text`` or ``text.strip()`` is in ``missing_strings``, or when
        ``text.strip()`` spells NaN (``"nan"``, ``"+NaN"``, ``"-nan"``, any case).
    """
    if text in missing_strings:
        return True
    stripped = text.strip() if text[:1].isspace() or text[-1:].isspace() else text
    if stripped is not text and stripped in missing_strings:
        return True
    return len(stripped) <= 4 and stripped.lower() in _NAN_TEXTS


def is_missing(value, missing_strings=DEFAULT_MISSING_STRINGS):
    """Whether ``value`` is a missing value in any of its spellings.

    Parameters
    ----------
    value : object
        One cell.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing" (public).

    Returns
    -------
    missing : bool
        True for None, every NaN float (Python or NumPy, any width), ``pd.NA``,
        ``pd.NaT``, ``NaT`` and the strings of
        :func:`~skdpgd.preprocessing._missing.is_missing_text` (those in
        ``missing_strings``, also after stripping spaces, and the spellings of NaN).

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> [is_missing(v) for v in (None, math.nan, np.float32("nan"), "NA", " NA", "", "x", 0.0)]
    [True, True, True, True, True, True, False, False]
    """
    if isinstance(value, str):
        return is_missing_text(value, missing_strings)
    return is_missing_label(value)  # the one rule for every other value


def category_key(value, missing_strings=DEFAULT_MISSING_STRINGS):
    """The text a category is matched and named by, or None for a missing value.

    Values are matched by their text, so the integer ``1``, the float ``1.0``, NumPy's
    ``np.int64(1)`` and the string ``"1"`` are the same category (a CSV read by
    ``pd.read_csv`` gives numbers where a code book lists strings): strings are kept as
    they are, booleans become ``"True"``/``"False"``, integral numbers their integer
    text, other numbers ``repr`` of the float, anything else ``str(value)``.

    Parameters
    ----------
    value : object
        One cell.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing".

    Returns
    -------
    key : str or None
        None when ``value`` is missing (:func:`is_missing`).

    Examples
    --------
    >>> import numpy as np
    >>> [category_key(v) for v in ("a", 1, 1.0, np.int64(1), "1", True, 2.5, None)]
    ['a', '1', '1', '1', '1', 'True', '2.5', None]
    """
    if type(value) is str:  # fast path: most cells
        return None if is_missing_text(value, missing_strings) else value
    if is_missing(value, missing_strings):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        as_float = float(value)
        if math.isfinite(as_float) and as_float == int(as_float) and abs(as_float) < 2**63:
            return str(int(as_float))
        return repr(as_float)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    try:
        return str(value)
    except Exception:  # an object whose str() fails: one key for its type, no error
        return f"<{type(value).__name__}>"


def to_float(values, missing_strings=DEFAULT_MISSING_STRINGS):
    """The cells of one column as float64, every missing spelling as NaN; never raises.

    Numbers convert as ``float(value)`` (``inf`` stays ``inf``; integers beyond float64
    range become ``inf``); missing values and anything that is not a number (a string
    such as ``"abc"``, an object) become NaN. Which cells are numbers is a fact about
    the data, so no error can depend on it: the caller treats NaN as missing.

    Parameters
    ----------
    values : array-like of shape (n,)
        One column (a NumPy array of any dtype, a list, a pandas or polars Series
        converted to NumPy).
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing".

    Returns
    -------
    x : ndarray of shape (n,), float64

    Examples
    --------
    >>> import numpy as np
    >>> to_float(np.array([1, "2.5", None, "abc", np.inf], dtype=object))
    array([1. , 2.5, nan, nan, inf])
    """
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        with np.errstate(over="ignore"):
            return array.astype(np.float64)
    if array.ndim == 1 and array.dtype.kind in "OU":  # each distinct cell parsed once
        cells = array.astype(object) if array.dtype.kind == "U" else array
        codes, first = group_equal_cells(cells, _PARSED_ALIKE)
        return np.array([_one_float(cell, missing_strings) for cell in cells[first]],
                        dtype=np.float64).reshape(-1)[codes]
    return np.array([_one_float(value, missing_strings) for value in array.tolist()],
                    dtype=np.float64).reshape(-1)


#: Cell types whose equal cells parse to the same float (not float itself: 0.0 == -0.0).
_PARSED_ALIKE = TEXT_TYPES | {int, bool}


def _one_float(value, missing_strings):
    if is_missing(value, missing_strings):
        return math.nan
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return math.nan
    if isinstance(value, (numbers.Number, np.number)) and not isinstance(
            value, (complex, np.complexfloating)):  # Real, Decimal, NumPy numbers
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
        except Exception:
            return math.nan
    return math.nan


def as_float_input(X, missing_strings=DEFAULT_MISSING_STRINGS):
    """X with every column as float64 and every missing spelling as NaN; never raises.

    For the public-bound transformers, whose refusals would come before an estimator's
    ledger charge: a DataFrame keeps its column names (non-float columns converted by
    :func:`to_float`, so ``pd.NA``, ``None`` and strings that are not numbers become
    NaN), an object array or a list is converted column by column; a float or integer
    array and a sparse matrix are returned as they are.

    Parameters
    ----------
    X : DataFrame, array-like or sparse matrix
        The input of a transformer.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing".

    Returns
    -------
    X_float : same kind as X
    """
    if hasattr(X, "iloc") and hasattr(X, "columns"):  # pandas
        kinds = [getattr(dtype, "kind", "O") for dtype in X.dtypes]
        plain = [isinstance(dtype, np.dtype) for dtype in X.dtypes]
        if all(p and k in "iuf" for p, k in zip(plain, kinds, strict=True)):
            return X
        converted = X.copy()
        for j, name in enumerate(X.columns):
            column = X.iloc[:, j]
            try:
                if column.dtype == object:
                    raise TypeError  # cell by cell, never pandas' own conversion
                values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            except Exception:
                values = to_float(column.to_numpy(dtype=object), missing_strings)
            converted[name] = values
        return converted.astype(np.float64)
    if hasattr(X, "tocsr") or hasattr(X, "schema"):  # sparse, or polars (converted later)
        return X
    if isinstance(X, np.ndarray) and X.dtype.kind not in "OUS":
        return X  # numbers as they are; complex, datetime: refused by the dtype (public)
    try:
        array = np.asarray(X, dtype=object)
    except (TypeError, ValueError):
        return X
    if array.ndim != 2:
        return X
    return np.column_stack([to_float(array[:, j], missing_strings)
                            for j in range(array.shape[1])]) if array.shape[1] else (
        np.zeros(array.shape, dtype=np.float64))
