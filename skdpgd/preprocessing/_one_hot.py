"""One-hot encoding over public category lists: :class:`PublicOneHotEncoder`,
:func:`public_one_hot`.

Missing values match in every spelling: ``np.nan``, ``math.nan``, ``float("nan")``,
``np.float64("nan")``, ``None``, ``pd.NA`` and ``pd.NaT`` are one value, so a list or an
``unknown_values`` that names one of them names them all.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import StrOptions, _fit_context
from ._cells import grouped_cells
from ._missing import is_missing

#: Stands for every missing spelling (np.nan, math.nan, None, pd.NA, pd.NaT) in lookups.
_MISSING = ("skdpgd", "missing")


def _canonical(value):
    """The lookup key of a cell: every non-string missing spelling is one key."""
    if type(value) is str:  # fast path: most cells
        return value
    return _MISSING if is_missing(value, ()) else value

_FIX_HINT = (
    "The values and the number of rows that have them are not shown: they are private "
    "data. Compare the column with its code book (a frequent cause: a CSV read without "
    "skipinitialspace=True keeps the space after each comma, so ' Male' is not 'Male'); "
    "add the value to the list if it is public that it can occur; list a public "
    "missing-value marker such as '?' in unknown_values (encoded as all zeros); or pass "
    "handle_unknown='ignore' to encode every unlisted value as all zeros."
)


def _check_lists(categories):
    if isinstance(categories, str):
        raise ValueError(
            f"categories={categories!r}: the category lists must be given explicitly "
            "(public, e.g. from the code book); reading them from the data leaks them."
        )
    categories = [list(values) for values in categories]
    empty = [j for j, values in enumerate(categories) if not values]
    if not categories or empty:
        raise ValueError(
            f"categories must be a non-empty list of non-empty lists; column(s) {empty} "
            "have no category."
        )
    return categories


def _is_scalar(value):
    """A single marker: a string, a number, or a missing spelling such as pd.NA."""
    return isinstance(value, str) or np.isscalar(value) or is_missing(value, ())


def _unknown_lists(unknown_values, n_columns):
    """One list of tolerated markers per column from None, a scalar or a list of lists."""
    if unknown_values is None:
        return [[] for _ in range(n_columns)]
    if _is_scalar(unknown_values):
        return [[unknown_values] for _ in range(n_columns)]
    lists = [[v] if _is_scalar(v) else list(v) for v in unknown_values]
    if len(lists) != n_columns:
        raise ValueError(
            f"unknown_values has {len(lists)} entries but there are {n_columns} category "
            "lists; give one marker for every column or one list per column."
        )
    return lists


def _columns(X):
    """Columns of X as object arrays (DataFrame or array-like), without reading them twice."""
    if hasattr(X, "iloc"):
        return [X.iloc[:, j].to_numpy(dtype=object) for j in range(X.shape[1])]
    array = np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise ValueError(f"expected a 2-D array of categories, got shape {array.shape}.")
    return [array[:, j] for j in range(array.shape[1])]


class PublicOneHotEncoder(TransformerMixin, BaseEstimator):
    """One-hot encoding over category lists given explicitly; unlisted values give NaN.

    ``OneHotEncoder(categories="auto")`` reads the category list from the training data:
    a rare category then appears in the released model only if some individual has it,
    a leak no accountant sees. Here the lists are parameters (the data's code book), so
    fitting reads no value into the model. Each group has at most one 1, so g groups
    add at most g to the squared row norm: d numeric features in [0, 1] plus g groups
    give rows of norm at most sqrt(d + g) (a public ``data_norm``).

    A value outside its list is almost always a mistake (a typo, a spelling that differs
    from the code book, a leading space) that would otherwise encode the whole column as
    zeros without a word. By default (``handle_unknown="nan"``) its group of output
    columns is NaN, so the skdpgd estimator that follows refuses the fit *after* its
    ledger charge (see Notes); markers listed in ``unknown_values`` (for instance Adult's
    ``"?"``) are encoded as all zeros.

    Parameters
    ----------
    categories : list of list
        One list of the allowed values per encoded column, in the output order.
    unknown_values : None, scalar or list, default=None
        Public markers of a missing value, encoded as all zeros: one scalar for every
        column, or one list per column.
    handle_unknown : {"nan", "error", "ignore"}, default="nan"
        What an unlisted value (in neither list) does: ``"nan"`` makes its group NaN
        (no error here; the estimator refuses after its charge); ``"error"`` raises a
        ``ValueError`` naming the column, at once (for checking data you hold, outside
        a ledger: the refusal is not charged); ``"ignore"`` encodes it as all zeros
        silently (the opt-out, for data whose spelling you have checked).
    sparse_output : bool, default=False
        Return a CSR matrix.
    dtype : dtype, default=float
        Output dtype (a float dtype is used when ``handle_unknown="nan"`` needs NaN).

    Attributes
    ----------
    encoder_ : sklearn.preprocessing.OneHotEncoder
        The fitted encoder over ``categories`` (unlisted values -> zeros).
    categories_ : list of ndarray
        The public category lists, as scikit-learn stores them.
    n_features_in_ : int
        Number of encoded columns.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when X has feature names that are all strings.

    See Also
    --------
    public_one_hot : The same, as a function (the usual entry point).

    Notes
    -----
    Why NaN by default. Whether some record holds an unlisted value is a fact about the
    private data; so is how many records do and which values they hold. A refusal in
    a transformer comes before the estimator's ledger charge, so it would reveal that
    bit for free to whoever can run fits; a NaN passes through to the estimator, which
    refuses after its charge (:doc:`/privacy_model`, "Which errors depend on the
    data"). With ``handle_unknown="error"`` the message names the column only (its
    name, or its position when X has no names), never a value or a count. A warning
    instead would let a model trained on a silently zeroed column be released, and a
    count in it would be an unaccounted statistic. ``fit`` reads no value of X.

    Examples
    --------
    >>> from skdpgd.preprocessing import PublicOneHotEncoder
    >>> enc = PublicOneHotEncoder([["Female", "Male"]], unknown_values="?")
    >>> enc.fit_transform([["Male"], ["?"], ["male"]])
    array([[ 0.,  1.],
           [ 0.,  0.],
           [nan, nan]])
    """

    _parameter_constraints = {
        "categories": [list, tuple],
        "unknown_values": "no_validation",
        "handle_unknown": [StrOptions({"nan", "error", "ignore"})],
        "sparse_output": ["boolean"],
        "dtype": "no_validation",
    }

    def __init__(self, categories, *, unknown_values=None, handle_unknown="nan",
                 sparse_output=False, dtype=float):
        self.categories = categories
        self.unknown_values = unknown_values
        self.handle_unknown = handle_unknown
        self.sparse_output = sparse_output
        self.dtype = dtype

    def _encode(self, X):
        """One-hot blocks over the public lists; unlisted values as ``handle_unknown`` says."""
        names = getattr(self, "feature_names_in_", None)
        lists = _check_lists(self.categories)
        markers = _unknown_lists(self.unknown_values, len(lists))
        columns = _columns(X)
        if len(columns) != len(lists):
            raise ValueError(
                f"X has {len(columns)} columns but there are {len(lists)} category lists."
            )
        blocks = []
        for j, column in enumerate(columns):
            position = {}
            for i, value in enumerate(lists[j]):
                position.setdefault(_canonical(value), i)
            tolerated = {_canonical(v) for v in markers[j]}
            block = np.zeros((len(column), len(lists[j])))
            codes, cells = grouped_cells(column)  # each group of equal cells looked up once
            hot = np.full(len(cells), -1, dtype=np.intp)  # the listed position, or -1
            unlisted = np.zeros(len(cells), dtype=bool)  # neither listed nor a marker
            for g, value in enumerate(cells):
                key = _canonical(value)
                try:
                    i = position.get(key)
                    listed_marker = i is None and key in tolerated
                except TypeError:  # unhashable: in no list
                    i, listed_marker = None, False
                if i is not None:
                    hot[g] = i
                else:
                    unlisted[g] = not listed_marker
            hot, unknown = hot[codes], unlisted[codes]
            rows = np.flatnonzero(hot >= 0)
            block[rows, hot[rows]] = 1.0
            if unknown.any() and self.handle_unknown != "ignore":
                if self.handle_unknown == "error":
                    where = f"column {names[j]!r}" if names is not None else f"column {j}"
                    raise ValueError(
                        f"{where} has a value outside its public category list"
                        + (" and its unknown_values" if markers[j] else "") + ". "
                        + _FIX_HINT
                    )
                block[unknown] = np.nan
            blocks.append(block)
        out = np.hstack(blocks)
        dtype = np.result_type(self.dtype, np.float16) if np.isnan(out).any() else self.dtype
        out = out.astype(dtype)
        return sp.csr_matrix(out) if self.sparse_output else out

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Record the public lists and X's shape and names; no value of X is read.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The categorical columns, in the order of ``categories``.
        y : None
            Ignored.

        Returns
        -------
        self : PublicOneHotEncoder
            The fitted encoder.

        Raises
        ------
        ValueError
            If X's number of columns differs from the number of lists (public), or,
            with ``handle_unknown="error"``, if a column holds a value in neither its
            category list nor ``unknown_values`` (the message names the column only).
        """
        lists = _check_lists(self.categories)
        _unknown_lists(self.unknown_values, len(lists))  # validates the shape
        n_columns = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else len(
            _columns(X))
        if n_columns != len(lists):
            raise ValueError(
                f"X has {n_columns} columns but there are {len(lists)} category lists."
            )
        # fitted on a public row made of the lists' first values: no value of X enters
        public_row = np.array([[values[0] for values in lists]], dtype=object)
        self.encoder_ = OneHotEncoder(
            categories=lists, handle_unknown="ignore", sparse_output=self.sparse_output,
            dtype=self.dtype,
        ).fit(public_row)
        self.categories_ = self.encoder_.categories_
        self.n_features_in_ = len(lists)
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(list(columns), dtype=object)
            self.encoder_.feature_names_in_ = self.feature_names_in_
        if self.handle_unknown == "error":
            self._encode(X)
        return self

    def transform(self, X):
        """One-hot encode X over the public lists.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The categorical columns, in the order of ``categories``.

        Returns
        -------
        X_encoded : ndarray or CSR matrix of shape (n_samples, sum of list lengths)
            One group of columns per list; a marker of ``unknown_values`` gives zeros,
            an unlisted value NaN (``handle_unknown="nan"``) or zeros (``"ignore"``).

        Raises
        ------
        ValueError
            With ``handle_unknown="error"``, if a column holds a value in neither its
            category list nor ``unknown_values`` (the message names the column only).
        """
        check_is_fitted(self)
        return self._encode(X)

    def get_feature_names_out(self, input_features=None):
        """Output names ``<column>_<category>``, as scikit-learn's ``OneHotEncoder``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Column names; by default ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column.
        """
        check_is_fitted(self)
        return self.encoder_.get_feature_names_out(input_features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.two_d_array = True
        return tags


def public_one_hot(categories, *, unknown_values=None, handle_unknown="nan",
                   sparse_output=False, dtype=float):
    """A one-hot encoder over category lists given explicitly (public).

    The usual entry point to :class:`PublicOneHotEncoder`; see it for the privacy
    reasoning. ``OneHotEncoder(categories="auto")`` would read the lists from the data.
    An unlisted value makes its group NaN (the skdpgd estimator then refuses after its
    ledger charge), or, with ``handle_unknown="error"``, raises a ``ValueError`` that names
    the column (not the value, not a count); a public missing-value marker listed in
    ``unknown_values``, or ``handle_unknown="ignore"``, encodes it as all zeros.

    Parameters
    ----------
    categories : list of list
        One list of the allowed values per encoded column, in the output order.
    unknown_values : None, scalar or list, default=None
        Public missing-value markers, encoded as all zeros (one for every column, or one
        list per column).
    handle_unknown : {"nan", "error", "ignore"}, default="nan"
        ``"nan"``: NaN (refused by the estimator after its charge); ``"error"``: raise
        at once, naming the column; ``"ignore"``: all zeros without an error.
    sparse_output : bool, default=False
        Return a CSR matrix.
    dtype : dtype, default=float
        Output dtype.

    Returns
    -------
    encoder : PublicOneHotEncoder
        Unfitted; fitting it reads no value into the encoder (the categories are fixed).

    Raises
    ------
    ValueError
        If ``categories`` is ``"auto"`` or not a list of non-empty lists.

    See Also
    --------
    PublicOneHotEncoder : The class, with the reasoning on what an error may reveal.

    Examples
    --------
    >>> from skdpgd.preprocessing import public_one_hot
    >>> enc = public_one_hot([["Female", "Male"]], unknown_values="?")
    >>> enc.fit_transform([["Male"], ["?"]])
    array([[0., 1.],
           [0., 0.]])
    >>> public_one_hot([["Female", "Male"]]).fit_transform([[" Male"]])
    array([[nan, nan]])
    >>> public_one_hot([["Female", "Male"]], handle_unknown="error").fit_transform(
    ...     [[" Male"]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: column 0 has a value outside its public category list. The values ...
    """
    _check_lists(categories)
    return PublicOneHotEncoder(
        categories, unknown_values=unknown_values, handle_unknown=handle_unknown,
        sparse_output=sparse_output, dtype=dtype,
    )
