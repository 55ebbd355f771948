"""One-hot encoding over public category lists: :class:`PublicOneHotEncoder`, :func:`public_one_hot`."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import StrOptions, _fit_context

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


def _unknown_lists(unknown_values, n_columns):
    """One list of tolerated markers per column from None, a scalar or a list of lists."""
    if unknown_values is None:
        return [[] for _ in range(n_columns)]
    if isinstance(unknown_values, str) or np.isscalar(unknown_values):
        return [[unknown_values] for _ in range(n_columns)]
    lists = [[v] if isinstance(v, str) or np.isscalar(v) else list(v) for v in unknown_values]
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
    """One-hot encoding over category lists given explicitly; unlisted values are refused.

    ``OneHotEncoder(categories="auto")`` reads the category list from the training data:
    a rare category then appears in the released model only if some individual has it,
    a leak no accountant sees. Here the lists are parameters (the data's code book), so
    fitting reads no value into the model. Each group has at most one 1, so g groups
    add at most g to the squared row norm: d numeric features in [0, 1] plus g groups
    give rows of norm at most sqrt(d + g) (a public ``data_norm``).

    A value outside its list is almost always a mistake (a typo, a spelling that differs
    from the code book, a leading space) that would otherwise encode the whole column as
    zeros without a word. By default it raises a ``ValueError`` that names the column
    and nothing else (see Notes); markers listed in ``unknown_values`` (for instance
    Adult's ``"?"``) are encoded as all zeros without an error.

    Parameters
    ----------
    categories : list of list
        One list of the allowed values per encoded column, in the output order.
    unknown_values : None, scalar or list, default=None
        Public markers of a missing value, encoded as all zeros: one scalar for every
        column, or one list per column.
    handle_unknown : {"error", "ignore"}, default="error"
        What an unlisted value (in neither list) does: ``"error"`` raises a
        ``ValueError`` naming the column; ``"ignore"`` encodes it as all zeros silently
        (the opt-out, for data whose spelling you have checked).
    sparse_output : bool, default=False
        Return a CSR matrix.
    dtype : dtype, default=float
        Output dtype.

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
    What the error may say. Whether some record holds an unlisted value is a fact about
    the private data; so is how many records do and which values they hold. The error
    message names the column only (its name, or its position when X has no names);
    it shows no value and no count. Raising at all reveals one bit (that the column has
    an unlisted value) to whoever runs the fit, who holds the data anyway; nothing is
    fitted or released in that case. A warning instead would let a model trained on a
    silently zeroed column be released, and a count in it would be an unaccounted
    statistic.

    Examples
    --------
    >>> from skdpgd.preprocessing import PublicOneHotEncoder
    >>> enc = PublicOneHotEncoder([["Female", "Male"]], unknown_values="?")
    >>> enc.fit_transform([["Male"], ["?"]])
    array([[0., 1.],
           [0., 0.]])
    """

    _parameter_constraints = {
        "categories": [list, tuple],
        "unknown_values": "no_validation",
        "handle_unknown": [StrOptions({"error", "ignore"})],
        "sparse_output": ["boolean"],
        "dtype": "no_validation",
    }

    def __init__(self, categories, *, unknown_values=None, handle_unknown="error",
                 sparse_output=False, dtype=float):
        self.categories = categories
        self.unknown_values = unknown_values
        self.handle_unknown = handle_unknown
        self.sparse_output = sparse_output
        self.dtype = dtype

    def _check_unknown(self, X):
        """Raise (column name only) when a value is in neither public list."""
        if self.handle_unknown == "ignore":
            return
        names = getattr(self, "feature_names_in_", None)
        lists = _check_lists(self.categories)
        markers = _unknown_lists(self.unknown_values, len(lists))
        for j, column in enumerate(_columns(X)):
            allowed = set(lists[j]) | set(markers[j])
            if any(value not in allowed for value in column):
                where = f"column {names[j]!r}" if names is not None else f"column {j}"
                raise ValueError(
                    f"{where} has a value outside its public category list"
                    + (" and its unknown_values" if markers[j] else "") + ". " + _FIX_HINT
                )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check X against the public lists; no value of X enters the encoder.

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
            With ``handle_unknown="error"``, if a column holds a value in neither its
            category list nor ``unknown_values`` (the message names the column only).
        """
        lists = _check_lists(self.categories)
        _unknown_lists(self.unknown_values, len(lists))  # validates the shape
        self.encoder_ = OneHotEncoder(
            categories=lists, handle_unknown="ignore", sparse_output=self.sparse_output,
            dtype=self.dtype,
        ).fit(X)
        self.categories_ = self.encoder_.categories_
        self.n_features_in_ = self.encoder_.n_features_in_
        if hasattr(self.encoder_, "feature_names_in_"):
            self.feature_names_in_ = self.encoder_.feature_names_in_
        self._check_unknown(X)
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
            One group of columns per list; a marker of ``unknown_values`` gives zeros.

        Raises
        ------
        ValueError
            With ``handle_unknown="error"``, if a column holds a value in neither its
            category list nor ``unknown_values`` (the message names the column only).
        """
        check_is_fitted(self)
        self._check_unknown(X)
        return self.encoder_.transform(X)

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


def public_one_hot(categories, *, unknown_values=None, handle_unknown="error",
                   sparse_output=False, dtype=float):
    """A one-hot encoder over category lists given explicitly (public).

    The usual entry point to :class:`PublicOneHotEncoder`; see it for the privacy
    reasoning. ``OneHotEncoder(categories="auto")`` would read the lists from the data.
    An unlisted value raises a ``ValueError`` that names the column (not the value, not
    a count) unless it is a public missing-value marker listed in ``unknown_values`` or
    ``handle_unknown="ignore"``; both encode it as all zeros.

    Parameters
    ----------
    categories : list of list
        One list of the allowed values per encoded column, in the output order.
    unknown_values : None, scalar or list, default=None
        Public missing-value markers, encoded as all zeros (one for every column, or one
        list per column).
    handle_unknown : {"error", "ignore"}, default="error"
        ``"ignore"`` encodes every unlisted value as all zeros without an error.
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
    >>> public_one_hot([["Female", "Male"]]).fit_transform([[" Male"]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: column 0 has a value outside its public category list. The values ...
    """
    _check_lists(categories)
    return PublicOneHotEncoder(
        categories, unknown_values=unknown_values, handle_unknown=handle_unknown,
        sparse_output=sparse_output, dtype=dtype,
    )
