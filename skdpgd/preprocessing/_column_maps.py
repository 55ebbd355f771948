r"""The per-column encodings a fitted :class:`DPTableVectorizer` applies, row by row.

Each encoding is a small frozen record of released (or public) constants and a
``transform`` that maps one column to its output block. Every map acts on each row
alone with those constants, so applying it is post-processing of the fit's release.
Every block has a squared norm of at most ``sq_norm_bound`` for every possible input
(checked against adversarial values in the tests), which gives the vectorizer's row
norm bound :math:`\sqrt{\sum_j b_j^2}`.

For inference (docs/theory.md, "What a pipeline's table covers") two public options
change the blocks, never the releases: a numeric value is *centred*, mapped to
:math:`2v - 1 \in [-1, 1]` (its public midpoint goes to 0, so the column does not line
up with the intercept column), and a one-hot block drops its *reference level*, its
first column (the first kept category in the released order; ``__other`` when none is
kept; bucket 0 when hashing), and its ``__missing`` column when the column's dtype cannot
hold a missing value: the block's columns then no longer sum to the intercept column,
and each remaining coefficient is the contrast of its level against the reference.
"""

from dataclasses import dataclass, replace

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
    """A numeric column: [low, high] -> [0, 1] (or [-1, 1], centred), imputed.

    The map is linear, log1p, logratio or symlog (``scale_to_unit``); centred, the
    value v in [0, 1] is written as 2v - 1.

    Attributes
    ----------
    name : str
        The column's name.
    low, high : float
        Its range (public, released, or the public default).
    scale : str
        ``"linear"``, ``"log1p"``, ``"logratio"`` or ``"symlog"``.
    impute : float
        The value of a missing cell on the [0, 1] scale (written 2 impute - 1 centred).
    indicator : bool
        Whether a missing-indicator column follows.
    source : str
        ``"public"`` (given bounds), ``"private"`` (released) or ``"default"``.
    centred : bool, default=False
        Write the value as 2v - 1 in [-1, 1] (the imputed one too).
    """

    name: str
    low: float
    high: float
    scale: str
    impute: float
    indicator: bool
    source: str
    centred: bool = False

    def _written(self, v):
        """v in [0, 1] as the block writes it (2v - 1 when centred)."""
        return 2.0 * v - 1.0 if self.centred else v

    def linear_map(self):
        r"""(slope, origin) of a linear column: its value is slope * (x - origin) on
        [low, high] (before the row divisor), i.e. :math:`(x - \ell)/(h - \ell)`, or
        :math:`2(x - (\ell + h)/2)/(h - \ell)` centred.

        Returns
        -------
        slope, origin : float
            None for a column mapped otherwise (log rules; a block of more than one
            value, such as a subclass's two scales, which says its own map).
        """
        if (self.scale != "linear" or not self.high > self.low
                or len(self.feature_names()) != 1 + bool(self.indicator)):
            return None
        width = self.high - self.low
        if self.centred:
            return 2.0 / width, 0.5 * (self.low + self.high)
        return 1.0 / width, self.low

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
        """Largest squared norm of the block: 1 (a value in [0, 1] or [-1, 1]), or
        1 + w**2 with an indicator, w the written imputed value (a missing cell's row
        holds w and 1)."""
        return 1.0 + self._written(self.impute) ** 2 if self.indicator else 1.0

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
        v = self._written(scale_to_unit(x, self.low, self.high, self.scale))
        v[missing] = self._written(self.impute)
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

    Exactly one column of the full block is 1 in every row: a listed category, the
    ``other`` column (an unlisted value), or the ``missing`` column; with hashing, the
    value's bucket or ``missing``. With a reference level the first column of the block
    is not written (its rows are all zero in the block), and without a missing column
    neither is ``missing`` (a column whose dtype cannot hold a missing value).

    Attributes
    ----------
    name : str
    categories : tuple of str
        The category keys (empty when hashing).
    n_buckets : int
        Number of hash buckets (0 when not hashing).
    source : str
        ``"public"`` (given list), ``"private"`` (discovered) or ``"hash"``.
    reference : bool, default=False
        Drop the block's first column, the reference level (:attr:`reference_name`).
    missing_column : bool, default=True
        Write the ``__missing`` column.
    """

    name: str
    categories: tuple
    n_buckets: int
    source: str
    reference: bool = False
    missing_column: bool = True

    def _full_names(self):
        """[(name, is a data level)] of every column of the full block, in order."""
        if self.n_buckets:
            body = [(f"{self.name}__hash{b}", False) for b in range(self.n_buckets)]
        else:
            body = [(f"{self.name}_{c}", True) for c in self.categories]
            body.append((f"{self.name}__other", False))
        return [*body, (f"{self.name}__missing", False)]

    def _kept(self):
        """The positions of the full block that are written, in order."""
        full = len(self._full_names())
        stop = full if self.missing_column else full - 1
        return list(range(1 if self.reference else 0, stop))

    def named_levels(self):
        """[(name, is a data level)] of the written columns, in order.

        Returns
        -------
        list of (str, bool)
            The output names and whether each is made from a category's text.
        """
        full = self._full_names()
        return [full[k] for k in self._kept()]

    def feature_names(self):
        """Output column names.

        Returns
        -------
        list of str
            One name per output column of the block, in order.
        """
        return [name for name, _ in self.named_levels()]

    @property
    def reference_name(self):
        """The full block's first column name when it is the dropped reference, else None."""
        return self._full_names()[0][0] if self.reference else None

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
            One-hot rows: a kept category (or hash bucket), ``__other``, or ``__missing``;
            a row of zeros for the reference level (or a missing cell without
            ``__missing``).
        """
        hot = self.hot_columns(keys)
        out = np.zeros((hot.shape[0], len(self.feature_names())))
        rows = np.flatnonzero(hot >= 0)
        out[rows, hot[rows]] = 1.0
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
            The written column of a kept category (or hash bucket), ``__other`` or
            ``__missing`` (the last); -1 where the full block's column is not written
            (the reference level, a missing cell without ``__missing``).
        """
        missing_col = len(self._full_names()) - 1
        column = as_category_codes(keys)  # each distinct key's output column, once
        if self.n_buckets:
            index = [missing_col if k is None else hash_bucket(k, self.n_buckets)
                     for k in column.keys]
        else:
            position = {c: i for i, c in enumerate(self.categories)}
            other = len(self.categories)
            index = [missing_col if k is None else position.get(k, other) for k in column.keys]
        written = np.full(missing_col + 1, -1, dtype=np.intp)
        kept = self._kept()
        written[kept] = np.arange(len(kept))
        return column.per_cell(written[index].tolist(), dtype=np.intp)


def check_inference_options(one_hot_reference, centre):
    """Refuse values of ``one_hot_reference`` or ``centre`` that are not rules (public)."""
    if not (one_hot_reference is None or (isinstance(one_hot_reference, str)
                                          and one_hot_reference in ("auto", "first"))):
        raise ValueError(f"one_hot_reference must be 'auto', None or 'first', got "
                         f"{one_hot_reference!r}.")
    if not (isinstance(centre, bool) or (isinstance(centre, str) and centre == "auto")):
        raise ValueError(f"centre must be 'auto', True or False, got {centre!r}.")


def with_inference_options(encodings, nullable, *, one_hot_reference, centre,
                           add_indicator="auto"):
    """The encodings with the public options of inference applied (module docstring).

    Post-processing of the releases: only public fields change (which columns a block
    writes, whether a value is centred, where a missing cell next to its indicator is
    written), never a released constant. ``"auto"`` is the plain encoding (a
    :class:`~skdpgd.DPPipeline` whose final estimator asks for inference sets
    ``"first"``, ``True`` and ``"zero"``).

    Parameters
    ----------
    encodings : list
        The fitted encodings, in order.
    nullable : dict
        ``{name: bool}``: whether the column's dtype may hold a missing value (the
        public plan's), for the categorical columns.
    one_hot_reference : {"auto", None, "first"}
        ``"first"``: every one-hot block drops its first column, and its ``__missing``
        column where the dtype cannot hold a missing value.
    centre : {"auto", False, True}
        True: numeric values are written in [-1, 1].
    add_indicator : {"auto", "zero", False}, default="auto"
        ``"zero"``: a numeric column with a missing indicator writes a missing cell as 0
        (:func:`written_zero`), so that its block's squared norm bound is 1.

    Returns
    -------
    list
        The encodings to use.
    """
    check_inference_options(one_hot_reference, centre)
    reference = isinstance(one_hot_reference, str) and one_hot_reference == "first"
    centred = centre is True
    at_zero = isinstance(add_indicator, str) and add_indicator == "zero"
    out = []
    for encoding in encodings:
        if centred and isinstance(encoding, NumericEncoding):
            encoding = replace(encoding, centred=True)
        elif reference and isinstance(encoding, CategoricalEncoding):
            encoding = replace(encoding, reference=True,
                               missing_column=bool(nullable.get(encoding.name, True)))
        if at_zero and isinstance(encoding, NumericEncoding) and encoding.indicator:
            encoding = written_zero(encoding)
        out.append(encoding)
    return out


def written_zero(encoding):
    r"""A numeric encoding with an indicator whose missing cell is written as 0.

    Next to its indicator, the value a missing cell gets is a free choice: with an
    intercept, :math:`\beta m + \gamma` (value m, indicator coefficient
    :math:`\gamma`) is :math:`\beta\cdot 0 + \gamma'` with :math:`\gamma' = \gamma +
    \beta m`, the same model, the indicator's coefficient then the missing rows' level
    against a row written at 0 (the range's midpoint centred, its low end otherwise). A
    row holds either a value (squared norm at most 1) or the written m and the indicator
    (:math:`1 + m^2`); with :math:`m = 0` the block's squared norm bound is 1, that of a
    column without an indicator, so the indicators add nothing to the row norm bound and
    the other columns' scale is what it would be without them. Public (the dtype decides
    the indicator, the parameter the value): no release changes.

    Parameters
    ----------
    encoding : NumericEncoding
        With ``indicator=True`` (a two-scale encoding's second map too).

    Returns
    -------
    NumericEncoding
        The same encoding with the imputed value(s) on [0, 1] that write as 0.
    """
    zero = 0.5 if encoding.centred else 0.0  # 2v - 1 = 0 centred; v = 0 otherwise
    fields = {"impute": zero}
    if hasattr(encoding, "log_impute"):
        fields["log_impute"] = zero
    return replace(encoding, **fields)
