r"""Row-chunked sums of per-example losses and gradients, optionally on several threads.

.. math::

    \sum_{i=1}^n \nabla l(\theta; x_i, y_i)
    = \sum_{j=1}^{m} \Big( \sum_{i \in \mathrm{chunk}_j} \nabla l(\theta; x_i, y_i) \Big)

No randomness and no privacy logic here: workers are pure calculators that receive no
RNG (randomness enters once, in fit). The result is bit-identical for every ``n_jobs`` because

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

from ._fused import fused_gradient_sum

__all__ = ["ChunkedRowSums", "chunk_bounds", "gradient_sum", "value_sum"]

#: Bytes of a dense float64 X per chunk, at least: about 4 MiB, enough to amortise the
#: Python work of a chunk on one thread.
CHUNK_BYTES = 4 * 2**20

#: Large X is cut into about this many chunks (enough for 16 workers with a few tasks
#: each), with chunks of up to :data:`MAX_CHUNK_BYTES`: each chunk costs a few dozen numpy
#: calls whose GIL hand-offs serialise threads, so with many threads bigger chunks scale
#: better (measured in benchmarks/README.md, "multi-core scaling").
TARGET_CHUNKS = 64
MAX_CHUNK_BYTES = 32 * 2**20

#: Fewest rows per chunk, so that very wide X does not give one-row chunks.
MIN_CHUNK_ROWS = 64

#: Inside a chunk, rows may be summed in blocks of about this many bytes of X, counted as
#: dense (``itemsize * d`` per row, at least :data:`MIN_CHUNK_ROWS` rows): a block's two
#: products (``X w``, then ``X^T r``) then run while its rows are in the core's cache, so
#: X is read from memory once per pass instead of twice. None (the default): each chunk
#: in one call. Measured in benchmarks/README.md ("Scale"): 1 MiB blocks with BLAS
#: products are 5-70% faster on one core, but each block costs about fifteen numpy calls
#: that hold the GIL, and the 16-core run of the chunk sizes showed such calls
#: serialising the threads (4 MiB chunks: 2.7x at 16 threads, 32 MiB: 10x), which 1 MiB
#: blocks would multiply by 30: compare on the many-core machine before turning it on
#: (``benchmarks/bandwidth.py --n-jobs 1 16 --cache-blocks 0 1024 --products einsum blas``).
CACHE_BLOCK_BYTES = None


def chunk_bounds(n_samples, n_features, chunk_size=None):
    r"""Row ranges ``[start, stop)`` of the chunks: a function of (n, d) only.

    The target is ``max(MIN_CHUNK_ROWS, B // (8 d))`` rows with
    ``B = min(max(CHUNK_BYTES, 8 n d / TARGET_CHUNKS), MAX_CHUNK_BYTES)``: chunks of 4 MiB of
    a dense float64 X, growing to 32 MiB for X above 256 MiB so that a large X still
    has about 64 chunks (the same rule for CSR X: the sparsity pattern is data and is not
    used). The n rows are then cut into :math:`m = \lceil n / \mathrm{target}\rceil`
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
    row_bytes = 8 * max(1, n_features)
    chunk_bytes = min(max(CHUNK_BYTES, n_samples * row_bytes // TARGET_CHUNKS), MAX_CHUNK_BYTES)
    target = max(MIN_CHUNK_ROWS, chunk_bytes // row_bytes)
    n_chunks = math.ceil(n_samples / target)
    edges = [(k * n_samples) // n_chunks for k in range(n_chunks + 1)]
    return list(zip(edges[:-1], edges[1:]))


_CONTROLLER = None


def _single_threaded_blas():
    """Context limiting the BLAS / OpenMP pools to one thread (process-wide).

    Also used by the estimators around the whole optimisation loop.

    The ``ThreadpoolController`` is built once, at the first multi-chunk sum (numpy's
    BLAS, the one the losses use, is loaded by then): building it scans the loaded
    libraries and costs about ten times more than entering its limit.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)


def cache_blocks(n_rows, n_features, itemsize=8):
    """Row ranges of the cache-sized blocks of a chunk of ``n_rows`` rows: a function of
    the chunk's length, d and the dtype's size only (see :data:`CACHE_BLOCK_BYTES`)."""
    if CACHE_BLOCK_BYTES is None:
        return [(0, n_rows)]
    row_bytes = int(itemsize) * max(1, int(n_features))
    size = max(MIN_CHUNK_ROWS, int(CACHE_BLOCK_BYTES) // row_bytes)
    return [(a, min(a + size, n_rows)) for a in range(0, n_rows, size)]


def _prescaled(rows, own=False):
    """A chunk of a :class:`~skdpgd._data._design.ClippedDesign` with its rows pre-scaled once
    for the products of one call (:meth:`~skdpgd._data._design.ClippedDesign.prescaled`): the
    numpy path takes two products of each chunk. A dense chunk that is a private copy
    (``own``: rows gathered by an index) is scaled in place. Other row containers as they
    are."""
    prescaled = getattr(rows, "prescaled", None)
    if prescaled is None:
        return rows
    if own and isinstance(rows.X, np.ndarray) and rows.X.flags.c_contiguous:
        return prescaled(out=rows.X)
    return prescaled()


def _partial_sum(method, coef, X, y, start, stop, rows):
    """One chunk's partial sum: rows ``start:stop`` of X, or of ``X[rows]`` (worker side).

    The chunk is summed block by block (:func:`cache_blocks`), in block order, into one
    float64 array. A pure function of its arguments: workers receive no RNG and return
    one array. For a row set, each block gathers its own rows (a cache-sized copy).
    """
    if rows is None:
        fused = fused_gradient_sum(method, coef, X[start:stop], y[start:stop])
    else:
        index = rows[start:stop]
        fused = fused_gradient_sum(method, coef, X[index], y[index])
    if fused is not None:  # one read of each row, GIL released (skdpgd._data._fused)
        return fused
    total = None
    itemsize = getattr(getattr(X, "dtype", None), "itemsize", 8)
    for a, b in cache_blocks(stop - start, X.shape[1], itemsize):
        if rows is None:
            part = method(coef, _prescaled(X[start + a:start + b]), y[start + a:start + b])
        else:
            index = rows[start + a:start + b]
            part = method(coef, _prescaled(X[index], own=True), y[index])
        if total is None:
            total = np.array(part, dtype=np.float64, copy=True)
        else:
            total += part
    return total


def _partial_sums(method, coef, X, y, bounds, rows):
    """The partial sums of consecutive chunks, *not* added: one task of a worker.

    Returning the list (instead of its sum) keeps the reduction in the parent and in
    chunk order, so grouping chunks into tasks cannot change the rounding.
    """
    return [_partial_sum(method, coef, X, y, start, stop, rows) for start, stop in bounds]


#: Tasks per worker and per sum: a few, so that uneven chunks still balance, while the
#: dispatch cost (tens of microseconds a task for threads) stays small next to the work.
TASKS_PER_WORKER = 4


def _active_dask_backend():
    """The joblib Dask backend of the enclosing ``parallel_config``, or None."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if type(backend).__name__ == "DaskDistributedBackend":
        return backend
    return None


class ChunkedRowSums:
    r"""Sums over rows computed chunk by chunk, on joblib workers, for one fit.

    The chunks of a row set (all rows, or the rows of a mini-batch) are fixed when the
    object is built, from the shape of X only; each call reduces the partial sums in
    chunk order, so the result is bit-identical for every ``n_jobs`` and every joblib
    backend (see the module docstring). Use it as a context manager around the whole
    optimisation loop: the worker pool is started once, and under
    ``joblib.parallel_config(backend="dask")`` the data are scattered to the cluster
    once per fit instead of once per step.

    On the numpy path each chunk of a :class:`~skdpgd._data._design.ClippedDesign` has its rows
    scaled by their powers of two once per call
    (:meth:`~skdpgd._data._design.ClippedDesign.prescaled`, a chunk-sized temporary); when X is a
    single chunk, that pre-scaled copy (one chunk of memory) is kept for the object's
    life, so small problems pay the scaling once per fit.

    Parameters
    ----------
    method : callable
        ``method(coef, X_rows, y_rows)`` returning a partial sum (e.g. ``loss.gradient_sum``).
    X : ndarray, CSR matrix or :class:`skdpgd._data._design.ClippedDesign`
    y : ndarray of shape (n_samples,)
    n_jobs : int or None
        joblib semantics: None means 1 unless an enclosing ``joblib.parallel_config``
        sets n_jobs; -1 means all CPUs. Threads are preferred (numpy releases the GIL).
    chunk_size : int, optional
        Rows per chunk instead of :func:`chunk_bounds`' default.
    row_sets : list of ndarray, optional
        Index sets (e.g. the batches of a cyclic partition) that :meth:`sum` may be
        restricted to; their chunks are fixed here too.
    """

    def __init__(self, method, X, y, *, n_jobs=None, chunk_size=None, row_sets=()):
        if X.shape[0] != len(y):
            raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} entries.")
        self.method, self.X, self.y = method, X, y
        self.n_jobs, self.chunk_size = n_jobs, chunk_size
        self.row_sets = [np.asarray(rows, dtype=np.intp) for rows in row_sets]
        self._bounds = {None: chunk_bounds(X.shape[0], X.shape[1], chunk_size)}
        for j, rows in enumerate(self.row_sets):
            self._bounds[j] = chunk_bounds(len(rows), X.shape[1], chunk_size)
        self._parallel = None
        self._n_workers = 1
        self._stack = None
        self._whole = None  # X with its rows pre-scaled, kept while X is one chunk

    # -- worker pool lifetime ---------------------------------------------------
    def __enter__(self):
        from contextlib import ExitStack

        from joblib import effective_n_jobs, parallel_config

        self._stack = ExitStack()
        try:
            n_chunks = max(len(bounds) for bounds in self._bounds.values())
            if n_chunks > 1:
                self._stack.enter_context(_single_threaded_blas())
                if effective_n_jobs(self.n_jobs) != 1:
                    dask_backend = _active_dask_backend()
                    if dask_backend is not None:  # X, y, row sets go to the cluster once
                        scattered = type(dask_backend)(
                            client=dask_backend.client, scatter=[self.X, self.y, *self.row_sets]
                        )
                        self._stack.enter_context(parallel_config(backend=scattered))
                    self._parallel = self._stack.enter_context(
                        Parallel(n_jobs=self.n_jobs, prefer="threads")
                    )
                    self._n_workers = max(1, effective_n_jobs(self.n_jobs))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc_info):
        self._parallel = None
        self._whole = None
        stack, self._stack = self._stack, None
        return stack.__exit__(*exc_info) if stack is not None else False

    # -- the sums ---------------------------------------------------------------
    def sum(self, coef, row_set=None, *, method=None, chunk_size=None):
        """Sum of ``method`` over all rows, or over the rows of ``row_sets[row_set]``.

        ``method`` replaces the engine's method for this call (e.g. a Gram pass next to
        the gradient passes, on data already placed on the workers), and ``chunk_size``
        the rows per chunk of a pass over all rows (a function of public numbers: e.g.
        fewer, larger chunks for a pass whose partial sums are d x d).
        """
        if chunk_size is not None and row_set is None:
            bounds = chunk_bounds(self.X.shape[0], self.X.shape[1], chunk_size)
            return self._reduce(coef, bounds, None, method or self.method)
        bounds = self._bounds[row_set]
        rows = None if row_set is None else self.row_sets[row_set]
        return self._reduce(coef, bounds, rows, method or self.method)

    def sum_rows(self, coef, rows):
        """Sum of ``method`` over the rows ``rows`` (an index array drawn per step, e.g. a
        sampled batch; may be empty). Chunks are a function of (len(rows), d) only."""
        rows = np.asarray(rows, dtype=np.intp)
        if rows.size == 0:
            return np.zeros(np.shape(coef))
        bounds = chunk_bounds(rows.size, self.X.shape[1], self.chunk_size)
        return self._reduce(coef, bounds, rows, self.method)

    def _reduce(self, coef, bounds, rows, method):
        if len(bounds) == 1 and rows is None:
            fused = fused_gradient_sum(method, coef, self.X, self.y)
            if fused is not None:
                return fused
            if self._whole is None:  # one chunk: its pre-scaled rows are kept for the fit
                self._whole = _prescaled(self.X)
            return np.asarray(method(coef, self._whole, self.y), dtype=np.float64)
        if self._parallel is not None and len(bounds) > 1:
            n_tasks = min(len(bounds), TASKS_PER_WORKER * self._n_workers)
            groups = [list(group) for group in _split(bounds, n_tasks)]
            lists = self._parallel(
                delayed(_partial_sums)(method, coef, self.X, self.y, group, rows)
                for group in groups
            )
            parts = (part for sublist in lists for part in sublist)
        else:
            parts = (_partial_sum(method, coef, self.X, self.y, a, b, rows) for a, b in bounds)
        total = None
        for part in parts:  # chunk order, whatever n_jobs: bit-identical results
            if total is None:
                total = np.array(part, dtype=np.float64, copy=True)
            else:
                total += part
        return total


def _split(items, n_groups):
    """``items`` cut into ``n_groups`` consecutive, nearly equal groups (order kept)."""
    edges = [(k * len(items)) // n_groups for k in range(n_groups + 1)]
    return [items[a:b] for a, b in zip(edges[:-1], edges[1:])]


def _one_shot_sum(method, coef, X, y, n_jobs, chunk_size):
    with ChunkedRowSums(method, X, y, n_jobs=n_jobs, chunk_size=chunk_size) as sums:
        return sums.sum(coef)


def gradient_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    r"""Sum over rows of the per-example gradients :math:`\sum_i \nabla l(\theta; x_i, y_i)`.

    Parameters
    ----------
    loss : loss object
        Anything with ``gradient_sum(coef, X, y)`` (see :mod:`skdpgd.losses`).
    coef : ndarray
        theta, of the shape the loss takes.
    X : ndarray, CSR matrix or ClippedDesign of shape (n_samples, n_features)
        Clipped rows, intercept column included.
    y : ndarray of shape (n_samples,)
        Targets or label codes.
    n_jobs : int or None, default=None
        Threads (joblib semantics: -1 means all CPUs; None means 1 unless a
        ``joblib.parallel_config`` says otherwise). The result does not depend on it.
    chunk_size : int, optional
        Rows per chunk; by default a function of the shape of X only (:func:`chunk_bounds`).

    Returns
    -------
    grad : ndarray of float64, same shape as ``coef``
        Bit-identical for every ``n_jobs``.

    See Also
    --------
    ChunkedRowSums : the same sums, with the worker pool kept for a whole fit.
    """
    return _one_shot_sum(loss.gradient_sum, coef, X, y, n_jobs, chunk_size)


def value_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    r"""Sum over rows of the per-example losses :math:`\sum_i l(\theta; x_i, y_i)`.

    Same chunking, threading and determinism as :func:`gradient_sum`.

    Returns
    -------
    value : float
    """
    return float(_one_shot_sum(loss.value_sum, coef, X, y, n_jobs, chunk_size))
