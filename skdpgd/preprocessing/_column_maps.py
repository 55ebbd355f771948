r"""The per-column encodings a fitted :class:`DPTableVectorizer` applies, row by row.

Each encoding is a small frozen record of released (or public) constants and a
``transform`` that maps one column to its output block. Every map acts on each row
alone with those constants, so applying it is post-processing of the fit's release.
Every block has a squared norm of at most ``sq_norm_bound`` for every possible input
(checked against adversarial values in the tests), which gives the vectorizer's row
norm bound :math:`\sqrt{\sum_j b_j^2}`.
"""

from dataclasses import dataclass

import numpy as np

from ._category_codes import as_category_codes
from ._private_categories import hash_bucket


def scale_to_unit(x, low, high, scale):
    r"""The public map of a numeric column to [0, 1] (NaN stays NaN).

    .. math::

        \text{linear: } \frac{c - \ell}{h - \ell}, \quad
        \text{log1p: } \frac{\log(1 + c - \ell)}{\log(1 + h - \ell)}, \quad
        \text{logratio: } \frac{\log(c/\ell)}{\log(h/\ell)}\ (\ell > 0), \quad
        \text{symlog: } \frac12 + \frac{\operatorname{sign}(c)\log(1 + |c|)}{2\log(1 + h)},

    with :math:`c = \mathrm{clip}(x, \ell, h)` (symlog: :math:`\ell = -h`), clipped to
    [0, 1]. Clipping first keeps every intermediate finite for any float input
    (:math:`|\ell|, |h|` are finite and :math:`h - \ell` is checked finite).

    Parameters
    ----------
    x : ndarray of float64
        Values (NaN for missing, infinities allowed).
    low, high : float
        The column's range, ``low < high``.
    scale : {"linear", "log1p", "logratio", "symlog"}
        Which map.

    Returns
    -------
    v : ndarray of float64
        In [0, 1] where x is not NaN.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        c = np.clip(x, low, high)
        if scale == "linear":
            v = (c - low) / (high - low)
        elif scale == "log1p":
            v = np.log1p(c - low) / np.log1p(high - low)
        elif scale == "logratio":
            v = np.log(c / low) / np.log(high / low)
        else:
            v = 0.5 + 0.5 * np.sign(c) * np.log1p(np.abs(c)) / np.log1p(high)
    return np.clip(v, 0.0, 1.0)


@dataclass(frozen=True)
class NumericEncoding:
    """A numeric column: [low, high] -> [0, 1] (linear, log1p, logratio or symlog), imputed.

    Attributes
    ----------
    name : str
        The column's name.
    low, high : float
        Its range (public, released, or the public default).
    scale : str
        ``"linear"``, ``"log1p"``, ``"logratio"`` or ``"symlog"``.
    impute : float
        The output value of a missing cell, in [0, 1].
    indicator : bool
        Whether a missing-indicator column follows.
    source : str
        ``"public"`` (given bounds), ``"private"`` (released) or ``"default"``.
    """

    name: str
    low: float
    high: float
    scale: str
    impute: float
    indicator: bool
    source: str

    def feature_names(self):
        """Output column names.

        Returns
        -------
        list of str
            One name per output column of the block, in order.
        """
        return [self.name] + ([f"{self.name}__missing"] if self.indicator else [])

    @property
    def sq_norm_bound(self):
        """Largest squared norm of the block: 1, or 1 + impute**2 with an indicator."""
        return 1.0 + self.impute ** 2 if self.indicator else 1.0

    def transform(self, x):
        """The block for float values x (NaN for missing).

        Parameters
        ----------
        x : ndarray of shape (n_samples,)
            The column as floats, NaN for a missing cell.

        Returns
        -------
        ndarray of shape (n_samples, 1 or 2)
            The scaled value (the imputed value for a missing cell), then the missing
            indicator when there is one.
        """
        missing = np.isnan(x)
        v = scale_to_unit(x, self.low, self.high, self.scale)
        v[missing] = self.impute
        if not self.indicator:
            return v[:, None]
        return np.column_stack([v, missing.astype(np.float64)])


@dataclass(frozen=True)
class BooleanEncoding:
    """A boolean column: 1.0 for true, 0.0 for false or missing (then the indicator is 1).

    Attributes
    ----------
    name : str
    indicator : bool
    """

    name: str
    indicator: bool

    def feature_names(self):
        """Output column names.

        Returns
        -------
        list of str
            One name per output column of the block, in order.
        """
        return [self.name] + ([f"{self.name}__missing"] if self.indicator else [])

    sq_norm_bound = 1.0

    def transform(self, x):
        """The block for float values x (1 true, 0 false, NaN missing; else false).

        Parameters
        ----------
        x : ndarray of shape (n_samples,)
            The column as floats: 1.0 true, 0.0 false, NaN missing.

        Returns
        -------
        ndarray of shape (n_samples, 1 or 2)
            1.0 for true, 0.0 otherwise, then the missing indicator when there is one.
        """
        missing = np.isnan(x)
        v = (x == 1.0).astype(np.float64)
        if not self.indicator:
            return v[:, None]
        return np.column_stack([v, missing.astype(np.float64)])


@dataclass(frozen=True)
class CategoricalEncoding:
    """A categorical column: one-hot over categories, or over public hash buckets.

    Exactly one output column of the block is 1 in every row: a listed category, the
    ``other`` column (an unlisted value), or the ``missing`` column; with hashing, the
    value's bucket or ``missing``.

    Attributes
    ----------
    name : str
    categories : tuple of str
        The category keys (empty when hashing).
    n_buckets : int
        Number of hash buckets (0 when not hashing).
    source : str
        ``"public"`` (given list), ``"private"`` (discovered) or ``"hash"``.
    """

    name: str
    categories: tuple
    n_buckets: int
    source: str

    def feature_names(self):
        """Output column names.

        Returns
        -------
        list of str
            One name per output column of the block, in order.
        """
        if self.n_buckets:
            body = [f"{self.name}__hash{b}" for b in range(self.n_buckets)]
        else:
            body = [f"{self.name}_{c}" for c in self.categories] + [f"{self.name}__other"]
        return body + [f"{self.name}__missing"]

    sq_norm_bound = 1.0

    def transform(self, keys):
        """The one-hot block for category keys (None for missing).

        Parameters
        ----------
        keys : CategoryCodes or sequence of (str or None)
            The column's category keys, None for a missing cell
            (:func:`~skdpgd.preprocessing._category_codes.category_codes`, or a list).

        Returns
        -------
        ndarray of shape (n_samples, len(feature_names()))
            One-hot rows: a kept category (or hash bucket), ``__other``, or ``__missing``.
        """
        hot = self.hot_columns(keys)
        out = np.zeros((hot.shape[0], len(self.feature_names())))
        out[np.arange(hot.shape[0]), hot] = 1.0
        return out

    def hot_columns(self, keys):
        """The column of the block that is 1 in each row (:meth:`transform`'s).

        Parameters
        ----------
        keys : CategoryCodes or sequence of (str or None)
            As in :meth:`transform`.

        Returns
        -------
        ndarray of shape (n_samples,), intp
            A kept category's (or hash bucket's) position, ``__other``'s, or
            ``__missing``'s (the last).
        """
        missing_col = len(self.feature_names()) - 1
        column = as_category_codes(keys)  # each distinct key's output column, once
        if self.n_buckets:
            index = [missing_col if k is None else hash_bucket(k, self.n_buckets)
                     for k in column.keys]
        else:
            position = {c: i for i, c in enumerate(self.categories)}
            other = len(self.categories)
            index = [missing_col if k is None else position.get(k, other) for k in column.keys]
        return column.per_cell(index, dtype=np.intp)
