"""A table's columns grouped once while one step reads them several times.

A :class:`~skdpgd.preprocessing.DPTableVectorizer` reads each text column up to three
times in one fit: the type vote, the category discovery, and (in a pipeline's fit, or
``fit_transform``) the transform of the same table. Each reading starts by grouping the
column's equal cells (:func:`~skdpgd.preprocessing._category_codes.distinct_cells`), the
costly part of an object column: a hash of every cell, by type and value.

Within :func:`reading_once` (X), :func:`column_groups` groups each column of X once and
hands the same groups to every later reading of that column; outside it, every reading
groups afresh. The groups are a function of the cells alone, so what each reading
computes from them is the same either way (tested); only the time changes. The groups
are kept only for the block's duration, and only for the very object X (``is``): the
block is entered around a fit and a transform of one table with none of the caller's
code in between, so the table cannot change while its groups are kept.
"""

import threading
from contextlib import contextmanager

import numpy as np

from ._category_codes import distinct_cells, keys_of_groups
from ._missing import DEFAULT_MISSING_STRINGS
from ._schema import _column, _is_polars

__all__ = ["column_groups", "column_values", "key_column", "reading_once"]

_LOCAL = threading.local()  # .scope: (X, {position: (codes, cells)}) or None


@contextmanager
def reading_once(X):
    """Context within which each column of X is grouped once (:func:`column_groups`).

    Re-entrant: inside a block for the same X, the outer block's groups are used; a
    block for another table keeps its own and restores the outer one on exit. Each
    thread has its own.

    Parameters
    ----------
    X : table
        The table read in the block (a pandas or polars DataFrame, an array, a list
        of rows).

    Yields
    ------
    None
    """
    outer = getattr(_LOCAL, "scope", None)
    if outer is not None and outer[0] is X:
        yield
        return
    _LOCAL.scope = (X, {})
    try:
        yield
    finally:
        _LOCAL.scope = outer


def column_values(X, position, label):
    """One column's cells as the category and vote readings take them.

    A pandas column as its Series (a string or categorical dtype is grouped by pandas
    whole), a polars column as a list of Python values, an array's column as it is.

    Parameters
    ----------
    X : table
    position : int
        The column's position.
    label : object
        Its label (used for polars).

    Returns
    -------
    values : pandas.Series, list or ndarray of shape (n,)
    """
    column = _column(X, position, label)
    return column.to_list() if _is_polars(X) else column


def column_groups(X, position, label):
    """(codes, cells): :func:`~skdpgd.preprocessing._category_codes.distinct_cells` of
    one column of X, computed once per column within :func:`reading_once` (X).

    Parameters
    ----------
    X : table
    position : int
        The column's position.
    label : object
        Its label (used for polars).

    Returns
    -------
    codes : ndarray of shape (n,), intp, read-only
    cells : ndarray of shape (n_groups,), read-only
        As :func:`~skdpgd.preprocessing._category_codes.distinct_cells` returns them.
    """
    scope = getattr(_LOCAL, "scope", None)
    kept = scope[1] if scope is not None and scope[0] is X else None
    if kept is not None and position in kept:
        return kept[position]
    codes, cells = distinct_cells(column_values(X, position, label))
    codes, cells = np.asarray(codes), np.asarray(cells)
    for array in (codes, cells):  # shared between readings: nobody writes to them
        array.flags.writeable = False
    if kept is not None:
        kept[position] = (codes, cells)
    return codes, cells


def key_column(X, position, label, missing_strings=DEFAULT_MISSING_STRINGS):
    """One column as category keys (text), None for a missing value in any spelling.

    Parameters
    ----------
    X : table
        The table.
    position : int
        The column's position.
    label : object
        Its label (used for polars).
    missing_strings : collection of str
        Strings read as missing.

    Returns
    -------
    keys : CategoryCodes
        The keys of the column's distinct values and a code per cell
        (:func:`~skdpgd.preprocessing._category_codes.category_codes` of
        :func:`column_values`, from the column's :func:`column_groups`).
    """
    return keys_of_groups(*column_groups(X, position, label), missing_strings)
