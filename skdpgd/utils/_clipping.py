r"""Per-row maps applied before training: clipping to public bounds, intercept column.

Clipping a row to a public norm bound is a function of that row alone, so it costs no
privacy; it is what makes the loss constants hold for every data set (DESIGN.md
section 2):

.. math::

    x \leftarrow x \cdot \min\!\left(1, \frac{R}{\|x\|}\right), \qquad
    y \leftarrow \mathrm{clip}(y, -B, B), \qquad
    \tilde x = (x, b), \ \|\tilde x\| \le \tilde R = \sqrt{R^2 + b^2}.

Dense arrays and scipy CSR matrices are both handled; a sparse input gives a CSR output.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["add_intercept_column", "clip_rows", "clip_targets", "row_norms"]


def _positive_bound(name, value):
    value = float(value)
    if not (np.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive finite public bound, got {value!r}.")
    return value


def _row_sums_sparse(X, values):
    """Per-row sums of ``values`` (aligned with ``X.data``) for a CSR matrix X."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return np.bincount(rows, weights=values, minlength=X.shape[0])


def row_norms(X):
    """Euclidean norm of every row of a dense 2-D array or a CSR matrix.

    Rows whose sum of squares overflows are recomputed with a per-row rescaling, so a
    finite row always gets its finite norm.
    """
    with np.errstate(over="ignore"):  # overflowing rows are redone below
        if sp.issparse(X):
            squares = _row_sums_sparse(X, X.data * X.data)
        else:
            squares = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(squares)
    overflow = np.isinf(norms)
    if np.any(overflow):  # rare: entries above ~1e154; rescale those rows by their max
        if sp.issparse(X):
            absdata = np.abs(X.data)
            rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
            scale = np.zeros(X.shape[0])
            np.maximum.at(scale, rows, absdata)
            with np.errstate(invalid="ignore", divide="ignore"):  # all-zero rows: unused
                scaled = X.data / scale[rows]
            sub = _row_sums_sparse(X, scaled * scaled)
            norms[overflow] = scale[overflow] * np.sqrt(sub[overflow])
        else:
            big = X[overflow]
            scale = np.max(np.abs(big), axis=1)
            norms[overflow] = scale * np.linalg.norm(big / scale[:, None], axis=1)
    return norms


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
        norm above R are rescaled onto the sphere of radius R (up to rounding, a few
        units in the last place), the other rows, including rows of norm 0, are copied
        unchanged. No division by zero happens: only rows with norm > R > 0 are divided.

    Raises
    ------
    ValueError
        If ``max_norm`` is not positive and finite, X is not 2-D, or a row contains
        NaN or infinity (its norm would be undefined).

    Notes
    -----
    A per-row map, so it costs no privacy (DESIGN.md section 2). For CSR input the
    scale of each row is applied to its stored entries in ``X.data`` (duplicates are
    summed first so the norm is that of the matrix the CSR represents).
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
    if not np.all(np.isfinite(norms)):
        bad = np.flatnonzero(~np.isfinite(norms))
        raise ValueError(
            f"X has non-finite values (NaN or inf) in {bad.size} row(s), e.g. row {bad[0]}; "
            "remove or impute them before fitting."
        )
    over = norms > max_norm
    scale = np.ones_like(norms)
    scale[over] = max_norm / norms[over]
    if sp.issparse(X):
        X.data *= np.repeat(scale, np.diff(X.indptr))
    else:
        X *= scale[:, None]
    return X


def clip_targets(y, bound):
    """Clip regression targets to the public interval [-B, B] (a new float64 array)."""
    bound = _positive_bound("bound", bound)
    return np.clip(np.asarray(y, dtype=np.float64), -bound, bound)


def add_intercept_column(X, scaling):
    r"""Append a constant column of value b = ``scaling`` to X (dense or CSR).

    The augmented rows have norm at most :math:`\sqrt{R^2 + b^2}` when the rows of X have
    norm at most R; the coefficient of that column times b is the intercept
    (DESIGN.md section 2). Dense input gives a float64 array (``np.hstack``), sparse
    input a CSR matrix (``scipy.sparse.hstack``).
    """
    scaling = float(scaling)
    column = np.full((X.shape[0], 1), scaling)
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(column)], format="csr", dtype=np.float64)
    return np.hstack([np.asarray(X, dtype=np.float64), column])
