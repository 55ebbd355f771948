"""Row-chunked sums of per-example gradients, optionally on several threads.

No randomness and no privacy logic here: workers are pure gradient calculators
(STYLE.md point 6). The rows are cut into chunks whose size depends on the shape of X
only, and the partial sums are added in chunk order, so the result is bit-identical
for every ``n_jobs``.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from threadpoolctl import threadpool_limits

#: Target bytes of X per chunk: large enough to amortise dispatch, small enough for cache.
CHUNK_BYTES = 4 * 2**20


def chunk_bounds(n_samples, n_features, chunk_size=None):
    """Row ranges [start, stop) of the chunks; a function of the shape only."""
    if chunk_size is None:
        chunk_size = max(256, CHUNK_BYTES // (8 * max(1, n_features)))
    starts = np.arange(0, n_samples, chunk_size)
    return [(int(s), int(min(s + chunk_size, n_samples))) for s in starts]


def _chunk_gradient(loss, coef, X, y, start, stop, limit_threads):
    if limit_threads:
        with threadpool_limits(limits=1):
            return loss.gradient_sum(coef, X[start:stop], y[start:stop])
    return loss.gradient_sum(coef, X[start:stop], y[start:stop])


def gradient_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    """Sum over rows of ``loss``'s per-example gradients at ``coef``.

    Parameters
    ----------
    loss : object with ``gradient_sum(coef, X, y)``
    coef : ndarray
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    n_jobs : int or None
        Threads (scikit-learn semantics; None means 1 unless a joblib context says
        otherwise). The result does not depend on it.
    chunk_size : int, optional
        Rows per chunk; default from the shape of X only.
    """
    bounds = chunk_bounds(X.shape[0], X.shape[1], chunk_size)
    jobs = effective_n_jobs(n_jobs)
    if jobs == 1 or len(bounds) == 1:
        parts = [loss.gradient_sum(coef, X[a:b], y[a:b]) for a, b in bounds]
    else:
        parts = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(_chunk_gradient)(loss, coef, X, y, a, b, True) for a, b in bounds
        )
    total = parts[0].copy()
    for part in parts[1:]:  # fixed order: bit-identical for every n_jobs
        total += part
    return total
