r"""Clipping every row to a public Euclidean norm: :class:`RowNormClipper`."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._clipping import clip_rows
from ..utils._sklearn_compat import Interval, _fit_context, validate_data
from ..utils._validation import validate_private
from ._missing import as_float_input


class RowNormClipper(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Scale each row down to Euclidean norm at most ``max_norm`` (longer rows only).

    .. math::

        x \mapsto x \cdot \min\!\left(1, \frac{R}{\|x\|_2}\right)

    The same per-row map the estimators apply with ``data_norm=R`` (:ref:`row-clipping`); as a
    pipeline step it makes the clipping visible and lets later steps (or other libraries) rely on
    the bound. A function of each row alone with a public R, so it costs no privacy; ``fit`` only
    records the shape and feature names.

    Parameters
    ----------
    max_norm : float, default=1.0
        The public bound R > 0.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when X has feature names that are all strings.

    Notes
    -----
    Dense input gives a float64 array, sparse input a float64 CSR matrix (rows scaled
    entry-wise, the sparsity pattern kept). Rows of norm 0 are left as they are.

    A row holding NaN (a missing value in any spelling: ``np.nan``, ``None``,
    ``pd.NA``, or a string that is not a number) or an infinity has no norm: it comes
    out as a row of NaN (its stored entries, for sparse input) instead of an error, so
    that the skdpgd estimator that follows refuses it after its ledger charge, never
    for free before it.

    Examples
    --------
    >>> from skdpgd.preprocessing import RowNormClipper
    >>> RowNormClipper(max_norm=1.0).fit_transform([[3.0, 4.0], [0.3, 0.4]])
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """

    _parameter_constraints = {
        "max_norm": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True  # a value that is not a number becomes NaN, no error
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check X; no value of X is kept.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self : RowNormClipper
            The fitted transformer (nothing of X is stored).
        """
        validate_private(validate_data, self, as_float_input(X), role="X",
                         estimator=type(self).__name__, reset=True,
                         accept_sparse=("csr", "csc"), ensure_all_finite=False)
        if not np.isfinite(self.max_norm):
            raise ValueError(f"max_norm must be finite, got {self.max_norm!r}.")
        return self

    def transform(self, X):
        """Clip every row to norm ``max_norm``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_clipped : ndarray or CSR matrix of shape (n_samples, n_features)
            Float64, every row of norm at most ``max_norm``.
        """
        check_is_fitted(self)
        X = validate_private(validate_data, self, as_float_input(X), role="X",
                             estimator=type(self).__name__, reset=False,
                             accept_sparse=("csr", "csc"), ensure_all_finite=False)
        if sp.issparse(X):
            X = X.tocsr(copy=True).astype(np.float64, copy=False)
            bad_entries = ~np.isfinite(X.data)
            bad_rows = np.zeros(X.shape[0], dtype=bool)
            bad_rows[np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[bad_entries]] = True
            X.data[bad_entries] = 0.0
            out = clip_rows(X, self.max_norm)
            out.data[np.repeat(bad_rows, np.diff(out.indptr))] = np.nan
            return out
        X = np.array(X, dtype=np.float64, copy=True)
        bad_rows = ~np.isfinite(X).all(axis=1)
        X[bad_rows] = 0.0
        out = clip_rows(X, self.max_norm)
        out[bad_rows] = np.nan
        return out
