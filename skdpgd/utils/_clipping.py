"""Per-row maps applied before training: clipping to public bounds, intercept column.

Clipping a row to a public norm bound is a function of that row alone, so it costs no
privacy (DESIGN.md section 2); it is what makes the loss constants hold for every data set.
"""

import numpy as np
import scipy.sparse as sp


def row_norms(X):
    """Euclidean norm of every row of a dense array or sparse matrix."""
    if sp.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def clip_rows(X, max_norm):
    r"""Scale each row by :math:`\min(1, R/\|x\|)` so that every row has norm <= R.

    Returns a new float array (or CSR matrix); rows of norm 0 are left as they are.
    """
    if not max_norm > 0:
        raise ValueError(f"max_norm must be > 0, got {max_norm!r}.")
    norms = row_norms(X)
    scale = np.ones_like(norms)
    over = norms > max_norm
    scale[over] = max_norm / norms[over]
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=float, copy=True)
        X.data *= np.repeat(scale, np.diff(X.indptr))
        return X
    return np.asarray(X, dtype=float) * scale[:, None]


def clip_targets(y, bound):
    """Clip regression targets to the public interval [-bound, bound]."""
    return np.clip(np.asarray(y, dtype=float), -bound, bound)


def add_intercept_column(X, scaling):
    """Append a constant column of value ``scaling`` (dense or CSR)."""
    column = np.full((X.shape[0], 1), float(scaling))
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(column)], format="csr")
    return np.hstack([X, column])
