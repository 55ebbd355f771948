"""The public schema of a table: column names, kinds and nullability, from dtypes only.

A column's kind (numeric, boolean, categorical, unsupported) and whether it may hold a
missing value are read from its dtype, which is public (it is fixed by how the table is
declared or read, and the same for every neighbouring data set), never from its values.
Works on pandas and polars DataFrames (polars is optional and never imported unless X is
one) and on NumPy arrays (the array's dtype is every column's dtype).

Kinds:

- ``"numeric"``: integer, unsigned and float dtypes (NumPy, pandas nullable, polars);
- ``"boolean"``: bool dtypes;
- ``"categorical"``: object, string and category dtypes (pandas), String/Utf8,
  Categorical, Enum (polars), str/bytes arrays (NumPy);
- ``"unsupported"``: everything else (datetimes, timedeltas, periods, intervals,
  complex, nested): refused by name and dtype, or dropped when asked.

May hold missing values (a missing-indicator column is added): float dtypes (NaN),
pandas nullable extension dtypes and object/string/category columns, every polars
column (polars has no non-nullable dtype); not NumPy/pandas int and bool columns.
"""

import numpy as np

from ._missing import DEFAULT_MISSING_STRINGS, to_float


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
    if types.is_numeric_dtype(dtype) and not (
            types.is_datetime64_any_dtype(dtype) or types.is_timedelta64_dtype(dtype)):
        return "numeric", extension or types.is_float_dtype(dtype)
    return "unsupported", False


def _polars_kind(dtype):
    import polars as pl

    if dtype == pl.Boolean:
        return "boolean", True
    if dtype.is_numeric():
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
        values = None
        if column.dtype != object:
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
    return to_float(values, missing_strings)
