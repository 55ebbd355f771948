r"""Scores of private rows: on the rows the fit sees, in their stated range, silently.

A score computed on private rows (the validation part of :class:`DPSearchCV`, the folds
of a privacy-utility curve, the canary of an audit) is part of a release, so its range
must hold for *every* row an adversary can write, as the fit's does. The fit never sees
a raw row: it sees :math:`\mathrm{clip}_R(x) = x \min(1, R/\|x\|)` with the estimator's
public ``data_norm`` R, and a target clipped to ``[-B, B]`` (``y_bound``). Scoring the
raw row instead breaks the range: for a finite row such as ``[M, M, M, M]``,
``M = 1.797e308``, ``x @ coef_`` overflows, a mix of signs gives ``inf - inf = NaN``,
``np.clip`` keeps the NaN, and one NaN score decides the whole selection (the bug this
module fixes). Here every score is computed on

.. math::

    \tilde x = \mathrm{clip}_R(x) \quad (\text{zero row if } x \text{ holds NaN or
    infinity}), \qquad \tilde y = \mathrm{clip}(y, -B, B)
    \quad (0 \text{ for NaN}),

with :func:`skdpgd.utils._clipping.clip_rows` (the fit's overflow-safe clip:
:math:`R\,u/\|u\|`, :math:`u = x/\max_j |x_j|`), after the public-bound preprocessing
of a pipeline, so that

* accuracy is a mean of per-row terms in {0, 1}, and
* minus the clipped squared error is a mean of per-row terms
  :math:`\min\big((\mathrm{clip}_B(\hat y) - \tilde y)^2, (2B)^2\big)` (a NaN
  prediction counts as 0 before the clip),

each a function of its own row and of the model only: replacing one of the m rows moves
the mean by at most 1/m, resp. :math:`(2B)^2/m`, for every pair of rows, the
sensitivity :class:`DPSearchCV` calibrates its noise to. Rows holding NaN or infinity
are refused by the search after its ledger charge; mapping them to the zero row here only
keeps the scoring total (a fixed per-row map, so the bound above still holds).

No floating-point or other warning leaves a score: the arithmetic runs under
``np.errstate(all="ignore")`` (its result is mapped into the range anyway) and warnings
raised while predicting are dropped, since a warning printed for some rows and not
others would be an unaccounted output.
"""

import warnings

import numpy as np
import scipy.sparse as sp

from ..utils._clipping import clip_rows
from ._pipeline import is_dp_pipeline, split_estimator

__all__ = ["clipped_accuracy", "clipped_squared_error", "labels_equal", "scoring_rows"]


def _non_finite_rows(X):
    """Boolean mask of the rows of a float64 dense array or CSR matrix holding NaN/inf."""
    if sp.issparse(X):
        bad_entry = ~np.isfinite(X.data)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        mask = np.zeros(X.shape[0], dtype=bool)
        mask[rows[bad_entry]] = True
        return mask
    return ~np.all(np.isfinite(X), axis=1)


def scoring_rows(X, data_norm):
    r"""The rows the fit sees: each row clipped to norm ``data_norm`` (a new float64 array).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (m, d)
        Rows in the estimator's input space (after any preprocessing); not modified.
    data_norm : float
        The estimator's public bound R.

    Returns
    -------
    ndarray or CSR matrix of float64, shape (m, d)
        :math:`\mathrm{clip}_R(x)` for every finite row, whatever its magnitude (the fit's
        overflow-safe :func:`~skdpgd.utils._clipping.clip_rows`); the zero row for a row
        holding NaN or infinity (the fit refuses such rows; scoring maps them to a fixed
        public value so that it never fails or returns NaN).
    """
    with np.errstate(all="ignore"):
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
        else:
            X = np.array(X, dtype=np.float64, copy=True)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (rows, features); got shape {X.shape}.")
        bad = _non_finite_rows(X)
        if np.any(bad):
            if sp.issparse(X):
                X.data[np.repeat(bad, np.diff(X.indptr))] = 0.0
            else:
                X[bad] = 0.0
        return clip_rows(X, data_norm)


def estimator_rows(model, X):
    """(final skdpgd estimator, its input rows clipped as in its fit) of a fitted model.

    ``model`` is a fitted skdpgd estimator or a fitted Pipeline of public-bound steps ending
    in one; a pipeline's rows are ``model[:-1].transform(X)``, then clipped to the final
    estimator's ``data_norm``.
    """
    if is_dp_pipeline(model):  # fitted steps in pipeline_ (private ones included)
        fitted = model.pipeline_
        final = fitted.steps[-1][1]
        if len(fitted.steps) > 1:
            with np.errstate(all="ignore"):
                X = fitted[:-1].transform(X)  # per-row maps fixed by the fit
        return final, scoring_rows(X, final.data_norm)
    pre, final, _ = split_estimator(model)
    if pre:
        with np.errstate(all="ignore"):
            X = model[:-1].transform(X)
    return final, scoring_rows(X, final.data_norm)


def _quiet_predict(estimator, rows):
    """``estimator.predict(rows)`` with every warning dropped (see the module docstring)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(estimator.predict(rows))


def clipped_accuracy(model, X, y):
    """Accuracy on the clipped rows: the mean of per-row hits, in [0, 1].

    Parameters
    ----------
    model : fitted skdpgd classifier or Pipeline ending in one
    X : array-like or sparse matrix of shape (m, n_features)
        Validation rows (any finite or non-finite values).
    y : ndarray of shape (m,)
        Labels, each one of the model's ``classes_`` (the search checks them after its
        charge); a label outside them never counts as a hit.

    Returns
    -------
    float
        In [0, 1]; replace-one sensitivity 1/m.
    """
    final, rows = estimator_rows(model, X)
    pred = _quiet_predict(final, rows)
    hits = np.zeros(len(y), dtype=bool)
    for label in np.asarray(final.classes_):  # same-type comparisons, class by class
        hits |= labels_equal(pred, label) & labels_equal(y, label)
    return float(np.mean(hits))


def labels_equal(values, label):
    """Elementwise ``values == label`` as a boolean array, never a warning or a scalar."""
    values = np.asarray(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            equal = np.asarray(values == label)
        except (TypeError, ValueError):
            equal = None
    if equal is None or equal.shape != values.shape or equal.dtype != bool:
        equal = np.fromiter((_same(v, label) for v in values.ravel()), dtype=bool,
                            count=values.size).reshape(values.shape)
    return equal


def _same(value, label):
    try:
        return bool(value == label)
    except (TypeError, ValueError):
        return False


def _into_range(values, bound):
    """Map to [-bound, bound]: NaN to 0, +-inf to +-bound (a fixed map, per entry)."""
    values = np.asarray(values, dtype=np.float64).ravel()
    return np.clip(np.nan_to_num(values, nan=0.0, posinf=bound, neginf=-bound), -bound, bound)


def clipped_squared_error(model, X, y, bound):
    r"""Minus the mean clipped squared error on the clipped rows, in :math:`[-(2B)^2, 0]`.

    Parameters
    ----------
    model : fitted skdpgd regressor or Pipeline ending in one
    X : array-like or sparse matrix of shape (m, n_features)
        Validation rows.
    y : array-like of shape (m,)
        Targets (float64), clipped to [-B, B] here (NaN to 0).
    bound : float
        B, the public target bound of the score.

    Returns
    -------
    float
        :math:`-\frac1m \sum_i (\mathrm{clip}_B(\hat y_i) - \mathrm{clip}_B(y_i))^2`;
        replace-one sensitivity :math:`(2B)^2/m`.
    """
    bound = float(bound)
    final, rows = estimator_rows(model, X)
    pred = _into_range(_quiet_predict(final, rows), bound)
    with np.errstate(all="ignore"):
        target = _into_range(y, bound)
        loss = np.minimum((pred - target) ** 2, (2.0 * bound) ** 2)
    return -float(np.mean(loss))
