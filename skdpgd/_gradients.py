r"""Row-chunked sums of per-example losses and gradients, optionally on several threads.

.. math::

    \sum_{i=1}^n \nabla l(\theta; x_i, y_i)
    = \sum_{j=1}^{m} \Big( \sum_{i \in \mathrm{chunk}_j} \nabla l(\theta; x_i, y_i) \Big)

No randomness and no privacy logic here: workers are pure calculators that receive no
RNG (STYLE.md point 6). The result is bit-identical for every ``n_jobs`` because

* the chunks are a function of the shape (n, d) of X only (:func:`chunk_bounds`), never
  of ``n_jobs``, of the data values or of the sparsity pattern;
* the partial sums are added in chunk order, whichever thread finished first;
* whenever there is more than one chunk, every chunk is computed with BLAS limited to
  one thread, in the serial path as well as in the threaded one: a multi-threaded BLAS
  may split a product differently and round differently (observed with OpenBLAS on
  ``X @ coef.T`` of the multinomial loss).

The BLAS limit is entered once by the calling thread around the whole computation,
not inside each worker: thread-pool limits are process-wide, and workers entering and
leaving them concurrently could restore them in the wrong order.
"""

import math

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import ThreadpoolController

__all__ = ["chunk_bounds", "gradient_sum", "value_sum"]

#: Bytes of a dense float64 X per chunk: about 4 MiB, enough to amortise the dispatch
#: of a chunk and small enough to leave work for several threads.
CHUNK_BYTES = 4 * 2**20

#: Fewest rows per chunk, so that very wide X does not give one-row chunks.
MIN_CHUNK_ROWS = 64


def chunk_bounds(n_samples, n_features, chunk_size=None):
    r"""Row ranges ``[start, stop)`` of the chunks: a function of (n, d) only.

    The target is ``max(MIN_CHUNK_ROWS, CHUNK_BYTES // (8 d))`` rows, i.e. about 4 MiB
    of a dense float64 X (the same rule for CSR X: the sparsity pattern is data and is
    not used). The n rows are then cut into :math:`m = \lceil n / \mathrm{target}\rceil`
    consecutive chunks of sizes :math:`\lfloor n/m \rfloor` or :math:`\lceil n/m \rceil`.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of X.
    chunk_size : int, optional
        Rows per chunk instead of the target above (chunks are then exactly that size,
        the last one possibly shorter).

    Returns
    -------
    bounds : list of (int, int)
    """
    n_samples, n_features = int(n_samples), int(n_features)
    if n_samples <= 0:
        raise ValueError(f"X must have at least one row, got n_samples={n_samples}.")
    if chunk_size is not None:
        chunk_size = int(chunk_size)
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
        starts = range(0, n_samples, chunk_size)
        return [(s, min(s + chunk_size, n_samples)) for s in starts]
    target = max(MIN_CHUNK_ROWS, CHUNK_BYTES // (8 * max(1, n_features)))
    n_chunks = math.ceil(n_samples / target)
    edges = [(k * n_samples) // n_chunks for k in range(n_chunks + 1)]
    return list(zip(edges[:-1], edges[1:]))


_CONTROLLER = None


def _single_threaded_blas():
    """Context limiting the BLAS / OpenMP pools to one thread (process-wide).

    The ``ThreadpoolController`` is built once, at the first multi-chunk sum (numpy's
    BLAS, the one the losses use, is loaded by then): building it scans the loaded
    libraries and costs about ten times more than entering its limit.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)


def _use_threads(n_jobs, n_chunks):
    return n_jobs is not None and n_jobs != 1 and n_chunks > 1


def _chunked_sum(method, coef, X, y, n_jobs, chunk_size):
    """Sum of ``method(coef, X[a:b], y[a:b])`` over the chunks, reduced in chunk order."""
    if X.shape[0] != len(y):
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} entries.")
    bounds = chunk_bounds(X.shape[0], X.shape[1], chunk_size)
    if len(bounds) == 1:
        return method(coef, X, y)
    with _single_threaded_blas():  # same rounding in every path; see module docstring
        if _use_threads(n_jobs, len(bounds)):
            parts = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(method)(coef, X[a:b], y[a:b]) for a, b in bounds
            )
        else:
            parts = (method(coef, X[a:b], y[a:b]) for a, b in bounds)
        total = None
        for part in parts:  # chunk order, whatever n_jobs: bit-identical results
            if total is None:
                total = np.array(part, dtype=np.float64, copy=True)
            else:
                total += part
    return total


def gradient_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    r"""Sum over rows of the per-example gradients :math:`\sum_i \nabla l(\theta; x_i, y_i)`.

    Parameters
    ----------
    loss : loss object
        Anything with ``gradient_sum(coef, X, y)`` (see :mod:`skdpgd.losses`).
    coef : ndarray
        theta, of the shape the loss takes.
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Clipped rows, intercept column included.
    y : ndarray of shape (n_samples,)
        Targets or label codes.
    n_jobs : int or None, default=None
        Threads (joblib semantics: -1 means all CPUs). ``None`` and 1 run serially;
        other values dispatch the chunks with ``joblib.Parallel(prefer="threads")``
        when there is more than one chunk. The result does not depend on it.
    chunk_size : int, optional
        Rows per chunk; by default a function of the shape of X only (:func:`chunk_bounds`).

    Returns
    -------
    grad : ndarray of float64, same shape as ``coef``
        Bit-identical for every ``n_jobs``.
    """
    return _chunked_sum(loss.gradient_sum, coef, X, y, n_jobs, chunk_size)


def value_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    r"""Sum over rows of the per-example losses :math:`\sum_i l(\theta; x_i, y_i)`.

    Same chunking, threading and determinism as :func:`gradient_sum`.

    Returns
    -------
    value : float
    """
    return float(_chunked_sum(loss.value_sum, coef, X, y, n_jobs, chunk_size))
