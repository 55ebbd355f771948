r"""Predictions of the DP linear models on the fit's clipped rows.

A fitted model is a function of the clipped row (docs/theory.md#row-clipping): ``fit``
scales every row to norm at most the public ``data_norm`` R before it reaches the loss,

.. math::

    x \mapsto x \cdot \min\!\Big(1, \frac{R}{\|x\|}\Big),

so the model is fitted on, and is only meaningful for, rows of norm at most R. The
prediction functions (``predict``, ``decision_function``, ``predict_proba``,
``predict_log_proba`` and, through them, ``score``) apply the same map to the rows they
are given, so a ``data_norm`` below the rows' norms shrinks the rows at prediction time
exactly as it did in training, instead of feeding the model rows it never saw.

The map is the overflow-safe one of :func:`skdpgd.utils._clipping.clip_rows` (its
building blocks :func:`~skdpgd.utils._clipping.row_norms` and
:func:`~skdpgd.utils._clipping.clipped_values`), applied without copying X: rows of norm
at most R enter the product as they are (dense or CSR, float64 or float32), and only the
rows above R are replaced by their clipped values, computed as :math:`R\,u/\|u\|` with
:math:`u = x/\max_j |x_j|`, so a finite row of any magnitude (entries of 1.797e308
included) gets a finite score and no floating-point warning.

Prediction is post-processing of the released model on new rows; nothing here is
accounted, and the error for a non-finite entry follows scikit-learn's wording ("Input X
contains NaN or infinity") and names no row and no value.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from ..utils._clipping import clipped_values, row_norms
from ..utils._sklearn_compat import validate_data
from ..utils._validation import validate_private

__all__ = ["clipped_decision", "decision_on_clipped_rows"]

#: Rows of X clipped (or cast to float64) at once: their float64 copies are all that is
#: allocated besides the scores.
CLIP_BLOCK_ROWS = 4096

_NON_FINITE = (
    "Input X contains NaN or infinity. {name} predicts on the rows clipped to data_norm, "
    "which needs every entry finite; remove or impute those rows first."
)


def _product(X, weights):
    """``X @ weights`` in float64; a dense float32 X is cast block by block, so no
    float64 copy of the whole X is made (CSR: scipy casts the stored entries only)."""
    if sp.issparse(X) or X.dtype == np.float64:
        return np.asarray(safe_sparse_dot(X, weights, dense_output=True), dtype=np.float64)
    out = np.empty((X.shape[0], *weights.shape[1:]))
    for start in range(0, X.shape[0], CLIP_BLOCK_ROWS):
        block = np.asarray(X[start:start + CLIP_BLOCK_ROWS], dtype=np.float64)
        out[start:start + CLIP_BLOCK_ROWS] = block @ weights
    return out


def clipped_decision(X, coef, intercept, max_norm, *, name="The model"):
    r"""Scores :math:`\mathrm{clip}_R(x_i)\,\theta^\top + b` of every row, without copying X.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Validated rows (float64 or float32; any finite values).
    coef : ndarray of shape (n_features,) or (n_outputs, n_features)
        The fitted ``coef_``.
    intercept : float or ndarray of shape (n_outputs,)
        The fitted ``intercept_``.
    max_norm : float
        R, the ``data_norm`` of the fit.
    name : str, default="The model"
        The estimator's name, for the error message.

    Returns
    -------
    scores : ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        ``(n_samples,)`` when ``coef`` is 1-D.

    Raises
    ------
    ValueError
        If some entry of X is NaN or infinite (the message names no row and no value).
    """
    if sp.issparse(X) and not X.has_canonical_format:  # the norm of the matrix it represents
        X = X.copy()
        X.sum_duplicates()
    norms = row_norms(X)  # overflow-safe; NaN marks a row with a NaN or infinite entry
    if np.isnan(norms).any():
        raise ValueError(_NON_FINITE.format(name=name))
    weights = np.asarray(coef, dtype=np.float64).T
    with np.errstate(over="ignore", invalid="ignore"):  # rows above R are redone below
        scores = _product(X, weights)
    over = np.flatnonzero(norms > max_norm)
    for start in range(0, over.size, CLIP_BLOCK_ROWS):
        rows = over[start:start + CLIP_BLOCK_ROWS]
        clipped = clipped_values(X[rows], max_norm)
        scores[rows] = np.asarray(safe_sparse_dot(clipped, weights, dense_output=True))
    return scores + intercept


def decision_on_clipped_rows(estimator, X):
    """The fitted ``estimator``'s scores on X's rows clipped to the fit's ``data_norm``.

    Validates X as scikit-learn does for a fitted linear model (dense or CSR, float64 or
    float32 kept as given, the fit's number of features and feature names), then
    :func:`clipped_decision` with ``coef_``, ``intercept_`` and ``data_norm_``.

    Parameters
    ----------
    estimator : fitted DPLogisticRegression or DPRidge
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    scores : ndarray of float64
    """
    check_is_fitted(estimator)
    X = validate_private(  # a refusal names X, never a value of it (scoring rows are private)
        validate_data, estimator, X, role="X", data=X, estimator=type(estimator).__name__,
        reset=False, accept_sparse="csr", dtype=[np.float64, np.float32],
        ensure_all_finite=False,  # checked by the overflow-safe row norms, without a warning
    )
    max_norm = getattr(estimator, "data_norm_", estimator.data_norm)
    return clipped_decision(
        X, estimator.coef_, estimator.intercept_, max_norm, name=type(estimator).__name__
    )
