"""A column's category keys, factorised: one code per cell into the distinct keys.

The categorical steps of :class:`~skdpgd.preprocessing.DPTableVectorizer` (the type vote's
missing cells, the private category counts, the one-hot transform) each need the
:func:`~skdpgd.preprocessing._missing.category_key` of every cell. A key depends on the
cell's value alone, so a column is read as its distinct cells and one code per cell
(:func:`distinct_cells`): the keys are computed once per distinct cell, and the counts and
the one-hot rows are array operations on the codes (:class:`CategoryCodes`). The keys
are exactly those of :func:`~skdpgd.preprocessing._missing.category_key` cell by cell
(tested against it); only the time changes. A pandas string or categorical column and a
NumPy column of numbers are grouped by value (their dtype fixes the type of every cell);
an object column by type and value (:func:`~skdpgd.preprocessing._distinct.group_equal_cells`),
so that ``1`` and ``True``, equal in Python with distinct keys, stay apart.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._distinct import TEXT_TYPES, group_equal_cells
from ._missing import DEFAULT_MISSING_STRINGS, category_key

__all__ = ["KEYED_TYPES", "CategoryCodes", "as_category_codes", "category_codes",
           "category_keys", "column_cells", "distinct_cells", "keys_of_groups"]


@dataclass(frozen=True, eq=False)
class CategoryCodes:
    """The category keys of a column's cells as codes into its distinct keys.

    Attributes
    ----------
    codes : ndarray of shape (n_cells,), intp
        ``keys[codes[i]]`` is cell i's key.
    keys : tuple of (str or None)
        The distinct keys, in the order the cells first show them; None is the missing
        value.
    """

    codes: np.ndarray
    keys: tuple

    def __len__(self):
        return self.codes.shape[0]

    def to_list(self):
        """The key of every cell, as a list (None for a missing cell)."""
        return [self.keys[code] for code in self.codes.tolist()]

    def per_cell(self, values_of_keys, dtype):
        """``values_of_keys[codes]``: a value per distinct key, spread to every cell.

        Parameters
        ----------
        values_of_keys : sequence
            One value per key of :attr:`keys`, in its order.
        dtype : data-type
            The result's dtype.

        Returns
        -------
        ndarray of shape (n_cells,)
        """
        return np.asarray(values_of_keys, dtype=dtype).reshape(-1)[self.codes]


def category_codes(values, missing_strings=DEFAULT_MISSING_STRINGS):
    """:func:`~skdpgd.preprocessing._missing.category_key` of every cell, factorised.

    Parameters
    ----------
    values : array-like of shape (n_cells,)
        The cells of one column (a NumPy array of any dtype, a list, or a pandas Series
        of a string or categorical dtype, whose distinct values pandas holds already).
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing" (public).

    Returns
    -------
    CategoryCodes
        ``result.keys[result.codes[i]] == category_key(values[i], missing_strings)``.

    Examples
    --------
    >>> import numpy as np
    >>> column = category_codes(np.array(["a", "NA", "b", "a", 1, True], dtype=object))
    >>> column.keys, column.codes.tolist()
    (('a', None, 'b', '1', 'True'), [0, 1, 2, 0, 3, 4])
    """
    return keys_of_groups(*distinct_cells(values), missing_strings)


def keys_of_groups(codes, cells, missing_strings=DEFAULT_MISSING_STRINGS):
    """:class:`CategoryCodes` of a column grouped by :func:`distinct_cells`.

    Parameters
    ----------
    codes : ndarray of shape (n_cells,), intp
    cells : ndarray of shape (n_groups,)
        What :func:`distinct_cells` returns for the column.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing" (public).

    Returns
    -------
    CategoryCodes
        The key of each group, computed once, spread to its cells by ``codes``.
    """
    missing_strings = frozenset(missing_strings)
    return _merged(codes, [category_key(cell, missing_strings) for cell in cells])


def distinct_cells(values):
    """(codes, cells): a column's distinct cells and a code per cell.

    Cells put together have the same
    :func:`~skdpgd.preprocessing._missing.category_key` and are alike numbers, text or
    missing (what the type vote counts): a rule applied to ``cells`` is applied to every
    cell through ``codes``. A pandas string or categorical Series and a NumPy column of
    integers, booleans or float32/64 are grouped by value; any other column as objects, by
    type and value (:func:`~skdpgd.preprocessing._distinct.group_equal_cells`, the types
    of :data:`KEYED_TYPES` grouped, every other cell alone).

    Parameters
    ----------
    values : array-like of shape (n_cells,)
        One column (as :func:`category_codes` takes it).

    Returns
    -------
    codes : ndarray of shape (n_cells,), intp
        ``cells[codes[i]]`` stands for cell i.
    cells : ndarray
        One cell per group (object, or the column's numeric dtype).
    """
    if isinstance(values, pd.Series) and isinstance(values.dtype, _FACTORISED_DTYPES):
        # equal cells are equal strings (or one category): pandas' codes are exact
        codes, uniques = values.factorize(use_na_sentinel=False)
        return codes, np.asarray(uniques, dtype=object)
    array = column_cells(values)
    if array.dtype.kind in "biu" or array.dtype in (np.float32, np.float64):
        return pd.factorize(array, use_na_sentinel=False)
    array = array if array.dtype.kind == "O" else array.astype(object)
    codes, first = group_equal_cells(array, KEYED_TYPES)
    return codes, array[first]


def column_cells(values):
    """The cells of one column as a 1-D array: an array as it is (NumPy strings as
    objects, whose keys are Python's), a Series as its NumPy numbers or as objects, any
    other sequence as one object per cell (a cell that is itself a sequence stays one
    object).

    Parameters
    ----------
    values : array-like of shape (n_cells,)

    Returns
    -------
    ndarray of shape (n_cells,)
    """
    if isinstance(values, pd.Series):
        plain = isinstance(values.dtype, np.dtype) and values.dtype.kind in "biuf"
        return values.to_numpy() if plain else values.to_numpy(dtype=object)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values.astype(object) if values.dtype.kind == "U" else values
    values = list(values)
    return np.fromiter(values, dtype=object, count=len(values))


def category_keys(values, missing_strings=DEFAULT_MISSING_STRINGS):
    """:func:`~skdpgd.preprocessing._missing.category_key` of every cell, as a list.

    Parameters
    ----------
    values : array-like of shape (n_cells,)
        The cells of one column.
    missing_strings : collection of str, default=DEFAULT_MISSING_STRINGS
        Strings that mean "missing".

    Returns
    -------
    keys : list of (str or None)
        One key per cell; None marks a missing value.
    """
    return category_codes(values, missing_strings).to_list()


def as_category_codes(keys):
    """``keys`` as :class:`CategoryCodes`: a :class:`CategoryCodes` as it is, or a list
    of keys (str or None, one per cell) factorised.

    Parameters
    ----------
    keys : CategoryCodes or sequence of (str or None)

    Returns
    -------
    CategoryCodes
    """
    if isinstance(keys, CategoryCodes):
        return keys
    position = {}
    codes = np.fromiter((position.setdefault(key, len(position)) for key in keys),
                        dtype=np.intp, count=len(keys))
    return CategoryCodes(codes, tuple(position))


def _merged(codes, keys):
    """:class:`CategoryCodes` with equal keys merged (distinct values of one key: ``"NA"``
    and ``""``, both missing; ``1`` and ``1.0``)."""
    position = {}
    remap = np.fromiter((position.setdefault(key, len(position)) for key in keys),
                        dtype=np.intp, count=len(keys))
    codes = np.asarray(codes, dtype=np.intp)
    if len(position) < len(keys):
        codes = remap[codes]
    return CategoryCodes(codes, tuple(position))


#: Cell types of an object column whose equal cells (of one type) have one key and one
#: kind: text, None, Python and NumPy numbers, bytes (not Decimal or tuples, whose equal
#: values may print differently).
KEYED_TYPES = TEXT_TYPES | {float, int, bool, bytes, np.float64, np.float32, np.int64,
                            np.int32, np.bool_}

#: pandas dtypes whose cells are strings or one of a column's categories, or missing.
_FACTORISED_DTYPES = (pd.StringDtype, pd.CategoricalDtype)
