r"""Per-row maps applied before training: clipping to public bounds, intercept column.

Clipping a row to a public norm bound is a function of that row alone, so it costs no
privacy; it is what makes the loss constants hold for every data set
(docs/theory.md#row-clipping):

.. math::

    x \leftarrow x \cdot \min\!\left(1, \frac{R}{\|x\|}\right), \qquad
    y \leftarrow \mathrm{clip}(y, -B, B), \qquad
    \tilde x = (x, b), \ \|\tilde x\| \le \tilde R = \sqrt{R^2 + b^2}.

Dense arrays and scipy CSR matrices are both handled; a sparse input gives a CSR output.
"""

import numpy as np
import scipy.sparse as sp

__all__ = [
    "add_intercept_column", "check_finite_norms", "clip_rows", "clip_targets", "clipped_values",
    "row_norms",
]


def _positive_bound(name, value):
    value = float(value)
    if not (np.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive finite public bound, got {value!r}.")
    return value


def _row_sums_sparse(X, values):
    """Per-row sums of ``values`` (aligned with ``X.data``) for a CSR matrix X."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return np.bincount(rows, weights=values, minlength=X.shape[0])


def _max_and_scaled_norm(X):
    r"""Per row, :math:`m = \max_j |x_j|` and :math:`\|x/m\|` (1 for all-zero rows).

    Both are finite for every finite row, however large: :math:`\|x\| = m \|x/m\|` with
    :math:`1 \le \|x/m\| \le \sqrt{d}`. A row holding NaN or infinity gets NaN.
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if sp.issparse(X):
            rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
            peak = np.zeros(X.shape[0])
            np.maximum.at(peak, rows, np.abs(X.data))  # NaN propagates
            safe = np.where(peak > 0, peak, 1.0)
            scaled = X.data / safe[rows]
            scaled_norm = np.sqrt(_row_sums_sparse(X, scaled * scaled))
        else:
            X = np.asarray(X, dtype=np.float64)
            peak = np.max(np.abs(X), axis=1, initial=0.0)  # NaN propagates
            safe = np.where(peak > 0, peak, 1.0)
            scaled_norm = np.linalg.norm(X / safe[:, None], axis=1)
    bad = ~np.isfinite(peak)
    scaled_norm = np.where(bad, np.nan, np.where(peak > 0, scaled_norm, 1.0))
    return np.where(bad, np.nan, peak), scaled_norm


def row_norms(X):
    """Euclidean norm of every row of a dense 2-D array or a CSR matrix.

    Rows whose sum of squares overflows are recomputed with a per-row rescaling, so a
    finite row gets its norm, finite whenever it is representable; a finite row whose
    norm exceeds the largest float (e.g. ``[1.7e308, 1.7e308]``) gets ``inf``, and a row
    holding NaN or infinity gets NaN (callers refuse those).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflowing rows are redone below
        if sp.issparse(X):
            squares = _row_sums_sparse(X, X.data * X.data)
        else:
            squares = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(squares)
    redo = ~np.isfinite(norms)
    if np.any(redo):  # rare: entries above ~1e154 or non-finite entries
        rows = X[np.flatnonzero(redo)] if sp.issparse(X) else X[redo]
        peak, scaled_norm = _max_and_scaled_norm(rows)
        with np.errstate(over="ignore"):  # a norm above the largest float is inf
            norms[redo] = peak * scaled_norm
    return norms


def check_finite_norms(norms):
    """Refuse rows holding NaN or infinity (their :func:`row_norms` is NaN).

    Raises
    ------
    ValueError
        Naming the number of such rows and the first one.
    """
    if np.any(np.isnan(norms)):
        bad = np.flatnonzero(np.isnan(norms))
        raise ValueError(
            f"X has non-finite values (NaN or infinity) in {bad.size} row(s), e.g. row {bad[0]}; "
            "remove or impute them before fitting."
        )


def clipped_values(rows, max_norm):
    r"""The clipped value :math:`R\, x / \|x\|` of rows whose norm exceeds R, in float64.

    Computed as :math:`R\, u/\|u\|` with :math:`u = x / \max_j |x_j|`, so every
    intermediate lies in [-sqrt(d), sqrt(d)]: a finite row of any magnitude, even one
    whose norm overflows, gets its clipped value to rounding (``x * (R / ||x||)`` would
    lose its digits where ``R / ||x||`` is subnormal, or be 0 where the norm overflows).

    Parameters
    ----------
    rows : ndarray of shape (m, d) or CSR matrix
        Finite rows of norm above ``max_norm`` (any float dtype; not modified).
    max_norm : float
        R.

    Returns
    -------
    clipped : ndarray of float64 or CSR matrix of float64, shape (m, d)
    """
    peak, scaled_norm = _max_and_scaled_norm(rows)
    if sp.issparse(rows):
        rows = sp.csr_matrix(rows, dtype=np.float64, copy=True)
        per_entry = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
        rows.data = rows.data / peak[per_entry] / scaled_norm[per_entry] * max_norm
        return rows
    rows = np.asarray(rows, dtype=np.float64)
    return rows / peak[:, None] / scaled_norm[:, None] * max_norm


def clip_rows(X, max_norm):
    r"""Scale each row by :math:`\min(1, R/\|x\|)` so that every row has norm at most R.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or scipy sparse matrix
        Rows to clip. Not modified.
    max_norm : float
        The public bound R > 0 (``data_norm``).

    Returns
    -------
    X_clipped : ndarray of float64 or CSR matrix of float64
        A new array (CSR for sparse input, keeping the matrix/array flavour): rows of
        norm above R are replaced by :math:`R\,x/\|x\|` (:func:`clipped_values`: on the
        sphere of radius R up to rounding, a few units in the last place, for every finite
        row, however large), the other rows, including rows of norm 0, are copied
        unchanged. No division by zero happens: only rows with norm > R > 0 are divided.

    Raises
    ------
    ValueError
        If ``max_norm`` is not positive and finite, X is not 2-D, or a row contains
        NaN or infinity (its norm would be undefined).

    Notes
    -----
    A per-row map, so it costs no privacy (see the theory page, "Public constants"). For
    CSR input the scale of each row is applied to its stored entries in ``X.data``
    (duplicates are summed first so the norm is that of the matrix the CSR represents).
    """
    max_norm = _positive_bound("max_norm", max_norm)
    if sp.issparse(X):
        X = X.tocsr(copy=True).astype(np.float64, copy=False)
        X.sum_duplicates()
    else:
        X = np.array(X, dtype=np.float64, copy=True)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}.")
    norms = row_norms(X)
    check_finite_norms(norms)
    over = np.flatnonzero(norms > max_norm)
    if over.size == 0:
        return X
    clipped = clipped_values(X[over], max_norm)
    if sp.issparse(X):  # same sparsity pattern, same entry order: write the entries back
        X.data[np.repeat(norms > max_norm, np.diff(X.indptr))] = clipped.data
    else:
        X[over] = clipped
    return X


def clip_targets(y, bound):
    """Clip regression targets to the public interval [-B, B] (a new float64 array)."""
    bound = _positive_bound("bound", bound)
    return np.clip(np.asarray(y, dtype=np.float64), -bound, bound)


def add_intercept_column(X, scaling):
    r"""Append a constant column of value b = ``scaling`` to X (dense or CSR).

    The augmented rows have norm at most :math:`\sqrt{R^2 + b^2}` when the rows of X have
    norm at most R; the coefficient of that column times b is the intercept
    (docs/theory.md#row-clipping). Dense input gives a float64 array (``np.hstack``), sparse
    input a CSR matrix (``scipy.sparse.hstack``).
    """
    scaling = float(scaling)
    column = np.full((X.shape[0], 1), scaling)
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(column)], format="csr", dtype=np.float64)
    return np.hstack([np.asarray(X, dtype=np.float64), column])
