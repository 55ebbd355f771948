r"""Every row to a public Euclidean norm: :class:`RowNormClipper` clips the rows of X;
:func:`scale_rows_with_target` scales each row and its target by the same factor."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import clip_rows, row_scale_factors
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


def scale_rows_with_target(X, y, max_norm, *, intercept=True):
    r"""Scale each row of X and its target by one factor, so that the row's norm is at most R.

    .. math::

        s_i = \min\!\left(1, \frac{R}{\|\tilde x_i\|_2}\right), \qquad
        \tilde x_i \mapsto s_i\,\tilde x_i, \qquad y_i \mapsto s_i\,y_i ,

    :math:`\tilde x_i = (1, x_i)` with ``intercept=True`` (the intercept as a column of
    ones, scaled with the row), else :math:`x_i`. Fit the result with the estimator's
    ``data_norm=R`` and ``fit_intercept=False``: the first coefficient is then the
    intercept. A function of each record alone with a public R: it costs no privacy (a
    replace-one neighbour of the data maps to a replace-one neighbour of the result).

    Why the target too (docs/theory.md, "Rows scaled with their target"): clipping
    :math:`x_i` alone changes the regression, :math:`y_i = x_i^\top\beta + e_i` is not
    linear in :math:`s_i x_i` with the same :math:`\beta`; scaled together,
    :math:`s_i y_i = (s_i\tilde x_i)^\top\beta + s_i e_i`, the same :math:`\beta` with
    errors :math:`s_i e_i`. The Huber objective of :class:`~skdpgd.DPRidge` on the scaled
    rows solves :math:`\sum_i s_i\,\psi(s_i r_i)\,\tilde x_i = 0` (a Schweppe-type
    weighted M-estimator: Hampel, Ronchetti, Rousseeuw and Stahel 1986, section 6.3), whose
    population solution is the true :math:`\beta` wherever the errors are symmetric and
    independent of x: its intervals (``inference=True``) then cover :math:`\beta` with a
    row norm bound R far below the design's largest rows, the role of the Mallows weights
    :math:`\min(1, m^2/\|x\|^2)` of Avella-Medina, Bradshaw and Loh (2023). Elsewhere the
    target is that weighted regression's, not least squares'.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite values (dense).
    y : array-like of shape (n_samples,)
        The targets, scaled with their rows.
    max_norm : float
        The public bound R > 0 on each scaled row's norm (the estimator's ``data_norm``).
    intercept : bool, default=True
        Put a column of ones first, scaled with its row.

    Returns
    -------
    X_scaled : ndarray of shape (n_samples, n_features + intercept)
        Float64, every row of norm at most R (up to rounding, a few units in the last
        place). A row holding NaN or an infinity, in X or y, comes out as NaN, as its
        target does (the estimator refuses it).
    y_scaled : ndarray of shape (n_samples,)
        Float64, each target times its row's factor.

    Examples
    --------
    >>> from skdpgd.preprocessing import scale_rows_with_target
    >>> X_s, y_s = scale_rows_with_target([[0.0], [7.0]], [2.0, 14.0], max_norm=5.0)
    >>> X_s.round(3).tolist(), y_s.round(3).tolist()
    ([[1.0, 0.0], [0.707, 4.95]], [2.0, 9.899])
    """
    if (isinstance(max_norm, bool) or not isinstance(max_norm, numbers.Real)
            or not 0.0 < float(max_norm) < np.inf):
        raise ValueError(f"max_norm must be a positive finite number, got {max_norm!r}.")
    X = np.array(X, dtype=np.float64, copy=True)
    y = np.array(y, dtype=np.float64, copy=True)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with as many rows, got shapes {X.shape} "
                         f"and {y.shape}.")
    if intercept:
        X = np.c_[np.ones(X.shape[0]), X]
    bad = ~(np.isfinite(X).all(axis=1) & np.isfinite(y))
    X[bad], y[bad] = 0.0, 0.0
    factor = row_scale_factors(X, max_norm)  # min(1, R/||x||), exactly 1 inside the ball
    X *= factor[:, None]
    y *= factor
    X[bad], y[bad] = np.nan, np.nan
    return X, y
