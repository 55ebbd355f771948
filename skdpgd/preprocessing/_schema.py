"""The public schema of a table: column names, kinds and nullability, from dtypes only.

A column's kind (numeric, boolean, categorical, unsupported) and whether it may hold a
missing value are read from its dtype, which is public (it is fixed by how the table is
declared or read, and the same for every neighbouring data set), never from its values.
Works on pandas and polars DataFrames (polars is optional and never imported unless X is
one) and on NumPy arrays (the array's dtype is every column's dtype).

Kinds:

- ``"numeric"``: integer, unsigned and float dtypes (NumPy, pandas nullable, polars), and
  the temporal ones: datetimes and dates (read as decimal years, UTC) and durations (read
  as days) by :func:`temporal_to_float`, a fixed public map of each cell;
- ``"boolean"``: bool dtypes;
- ``"categorical"``: object, string and category dtypes (pandas), String/Utf8,
  Categorical, Enum (polars), str/bytes arrays (NumPy);
- ``"unsupported"``: everything else (periods, intervals, times of day, durations in
  months or years, complex, nested): refused by name and dtype, or dropped when asked.

May hold missing values (a missing-indicator column is added): float dtypes (NaN),
temporal dtypes (NaT), pandas nullable extension dtypes and object/string/category
columns, every polars column (polars has no non-nullable dtype); not NumPy/pandas int
and bool columns.
"""

import numpy as np

from ._missing import DEFAULT_MISSING_STRINGS, to_float

#: Seconds in a mean Gregorian year (365.2425 days): a datetime is read as
#: 1970 + (seconds since 1970-01-01 UTC) / SECONDS_PER_YEAR, a decimal year.
SECONDS_PER_YEAR = 365.2425 * 86400.0

#: Seconds in a day: a duration is read in days.
SECONDS_PER_DAY = 86400.0

#: Seconds in one tick of each fixed NumPy datetime unit (months and years are not fixed).
_UNIT_SECONDS = {"W": 604800.0, "D": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0,
                 "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15, "as": 1e-18}


def temporal_kind(dtype):
    """``"datetime"``, ``"duration"`` or None: what a dtype (or its text: NumPy, pandas,
    polars) holds, for the messages and the vote (the dtype decides it, never a value)."""
    text = str(dtype)
    if text.startswith(("timedelta64", "Duration")):
        return "duration"
    if text.startswith(("datetime64", "Datetime", "Date")):
        return "datetime"
    return None


def _numpy_temporal(dtype):
    """Whether a NumPy dtype is a datetime, or a duration in a fixed unit (both numeric)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "M":
        return True
    return dtype.kind == "m" and np.datetime_data(dtype)[0] in _UNIT_SECONDS


def temporal_to_float(values):
    r"""Datetimes as decimal years (UTC), durations as days; NaT as NaN.

    A fixed public map of each cell, the same for every data set:
    :math:`1970 + s / (365.2425 \cdot 86400)` for a datetime s seconds after
    1970-01-01T00:00 UTC (a date at its midnight; months and years at their first
    day), :math:`s / 86400` for a duration of s seconds. Every cell that is not NaT
    gives a finite float (NumPy's int64 ticks, at most about 2.9e11 years).

    Parameters
    ----------
    values : ndarray of datetime64 or timedelta64 dtype, shape (n,)
        Naive datetimes are read as UTC (a time-zone-aware column is converted first).

    Returns
    -------
    x : ndarray of shape (n,), float64
    """
    values = np.asarray(values)
    missing = np.isnat(values)
    unit, count = np.datetime_data(values.dtype)
    if unit not in _UNIT_SECONDS:  # datetimes in months or years: their first day
        # ticks clipped to 2^40 years first, so that the conversion to days cannot wrap
        limit = 2**40 * (12 if unit == "M" else 1) // count
        ticks = np.clip(values.view(np.int64), -limit, limit)
        values = ticks.view(values.dtype).astype("datetime64[D]")
        unit, count = "D", 1
    seconds = values.view(np.int64).astype(np.float64) * (count * _UNIT_SECONDS[unit])
    x = 1970.0 + seconds / SECONDS_PER_YEAR if values.dtype.kind == "M" else (
        seconds / SECONDS_PER_DAY)
    x[missing] = np.nan
    return x


def _is_pandas(X):
    return type(X).__module__.split(".")[0] == "pandas" and hasattr(X, "iloc")


def _is_polars(X):
    return type(X).__module__.split(".")[0] == "polars" and hasattr(X, "schema")


def _numpy_kind(dtype):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return "boolean", False
    if kind in "iu":
        return "numeric", False
    if kind == "f":
        return "numeric", True
    if kind in "OUS":
        return "categorical", True
    if _numpy_temporal(dtype):
        return "numeric", True
    return "unsupported", False


def _pandas_kind(dtype):
    import pandas as pd

    types = pd.api.types
    extension = isinstance(dtype, pd.api.extensions.ExtensionDtype)
    # categorical first: a category dtype's own categories may come from the data
    # (astype("category")), so its kind must not depend on them
    if isinstance(dtype, pd.CategoricalDtype) or types.is_string_dtype(dtype) or (
            types.is_object_dtype(dtype)):
        return "categorical", True
    if types.is_bool_dtype(dtype):
        return "boolean", extension
    if types.is_complex_dtype(dtype):
        return "unsupported", False
    if types.is_datetime64_any_dtype(dtype) or types.is_timedelta64_dtype(dtype):
        if isinstance(dtype, pd.ArrowDtype):  # pyarrow's temporal types: not read here
            return "unsupported", False
        return "numeric", True  # read by temporal_to_float; NaT is missing
    if types.is_numeric_dtype(dtype):
        return "numeric", extension or types.is_float_dtype(dtype)
    return "unsupported", False


def _polars_kind(dtype):
    import polars as pl

    if dtype == pl.Boolean:
        return "boolean", True
    if dtype.is_numeric() or dtype == pl.Date or isinstance(dtype, (pl.Datetime,
                                                                    pl.Duration)):
        return "numeric", True
    if dtype in (pl.String, pl.Categorical, pl.Null) or isinstance(
            dtype, (pl.Categorical, pl.Enum)):
        return "categorical", True
    return "unsupported", True


def table_schema(X):
    """Column labels, kinds, nullability and dtype text of a table, from its dtypes.

    Parameters
    ----------
    X : pandas.DataFrame, polars.DataFrame or array-like of shape (n, d)
        The table.

    Returns
    -------
    labels : list
        Column labels (DataFrame column names; 0..d-1 for an array).
    kinds : list of str
        ``"numeric"``, ``"boolean"``, ``"categorical"`` or ``"unsupported"``.
    nullable : list of bool
        Whether the dtype may hold a missing value.
    dtypes : list of str
        The dtypes as text (for messages).
    """
    if _is_pandas(X):
        labels = list(X.columns)
        pairs = [_pandas_kind(dtype) for dtype in X.dtypes]
        dtypes = [str(dtype) for dtype in X.dtypes]
    elif _is_polars(X):
        labels = list(X.columns)
        pairs = [_polars_kind(dtype) for dtype in X.dtypes]
        dtypes = [str(dtype) for dtype in X.dtypes]
    else:
        array = as_2d_array(X)
        labels = list(range(array.shape[1]))
        pairs = [_numpy_kind(array.dtype)] * array.shape[1]
        dtypes = [str(array.dtype)] * array.shape[1]
    kinds = [k for k, _ in pairs]
    nullable = [m for _, m in pairs]
    return labels, kinds, nullable, dtypes


def as_2d_array(X):
    """X as a 2-D NumPy array: an array as it is; anything else as an object array.

    A list's dtype, as NumPy would infer it, depends on its values (one string among
    numbers makes every column text); an object array keeps the schema a public rule:
    every column of a list is categorical unless ``column_types`` says otherwise.
    """
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):
        raise TypeError(
            "A sparse matrix was passed, but DPTableVectorizer does not accept sparse "
            "input (a table's columns are typed): convert it with X.toarray()."
        )
    array = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise ValueError(
            f"Expected a 2-D table (a DataFrame or an array of shape (n_samples, "
            f"n_features)), got an array with {array.ndim} dimension(s). Reshape your "
            "data with array.reshape(-1, 1) for a single feature."
        )
    return array


def n_rows(X):
    """The number of rows, read from the container's shape (public)."""
    if _is_pandas(X) or _is_polars(X):
        return int(X.shape[0])
    return int(as_2d_array(X).shape[0])


def _column(X, position, label):
    if _is_pandas(X):
        return X.iloc[:, position]
    if _is_polars(X):
        return X.get_column(label)
    return as_2d_array(X)[:, position]


def numeric_column(X, position, label, missing_strings=DEFAULT_MISSING_STRINGS):
    """One column as float64, every missing spelling as NaN (never raises on a value).

    Parameters
    ----------
    X : table
        The table.
    position : int
        The column's position.
    label : object
        Its label (used for polars).
    missing_strings : collection of str
        Strings read as missing (object columns forced to numeric).

    Returns
    -------
    x : ndarray of shape (n,), float64
    """
    column = _column(X, position, label)
    if _is_pandas(X):
        import pandas as pd

        if isinstance(column.dtype, pd.DatetimeTZDtype):  # its instants, in UTC
            column = column.dt.tz_convert("UTC").dt.tz_localize(None)
        values = None
        if pd.api.types.is_datetime64_any_dtype(column.dtype) or (
                pd.api.types.is_timedelta64_dtype(column.dtype)):
            values = column.to_numpy()
        elif column.dtype != object:
            try:  # numeric and nullable dtypes; pd.NA -> NaN
                values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            except Exception:  # a conversion that fails on some value: cell by cell
                values = None
        if values is None:
            values = column.to_numpy(dtype=object)
    elif _is_polars(X):
        values = column.to_numpy()
    else:
        values = column
    if np.asarray(values).dtype.kind in "Mm":
        return temporal_to_float(values)
    return to_float(values, missing_strings)
