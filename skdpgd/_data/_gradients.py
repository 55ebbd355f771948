r"""Row-chunked sums of per-example losses and gradients, optionally on several threads.

.. math::

    \sum_{i=1}^n \nabla l(\theta; x_i, y_i)
    = \sum_{j=1}^{m} \Big( \sum_{i \in \mathrm{chunk}_j} \nabla l(\theta; x_i, y_i) \Big)

No randomness and no privacy logic here: workers are pure calculators that receive no
RNG (randomness enters once, in fit). The result is bit-identical for every ``n_jobs``:
the chunks are a function of the shape of X only and the partial sums are added in chunk
order, with BLAS limited to one thread whenever there is more than one chunk
(:mod:`skdpgd._data._chunks`, whose re-entrant limit this module enters once around a
whole computation).
"""

import itertools

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed

from ._chunks import chunk_bounds, single_threaded_blas
from ._design import fused_gradient_sum
from ._stacked import StackedChunks, stacks

__all__ = ["ChunkedRowSums"]


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

    A pure function of its arguments: workers receive no RNG and return one float64
    array. For a row set, the chunk gathers its own rows (a chunk-sized copy).
    """
    if rows is None:
        X_rows, y_rows, own = X[start:stop], y[start:stop], False
    else:
        index = rows[start:stop]
        X_rows, y_rows, own = X[index], y[index], True
    fused = fused_gradient_sum(method, coef, X_rows, y_rows)
    if fused is not None:  # one read of each row, GIL released (skdpgd._data._fused)
        return fused
    if not getattr(method, "scales_its_rows", False):  # the Gram pass scales its own blocks
        X_rows = _prescaled(X_rows, own=own)
    return np.array(method(coef, X_rows, y_rows), dtype=np.float64, copy=True)


def _partial_sums(method, coef, X, y, bounds, rows):
    """The partial sums of consecutive chunks, *not* added: one task of a worker.

    Returning the list (instead of its sum) keeps the reduction in the parent and in
    chunk order, so grouping chunks into tasks cannot change the rounding.
    """
    return [_partial_sum(method, coef, X, y, start, stop, rows) for start, stop in bounds]


#: Largest X (bytes of its values) whose fixed row sets are gathered once per fit: a
#: cyclic run reads each batch E times, and gathering a batch's rows by index costs about
#: as much as the pass itself on small designs; kept, the gathered batches hold one more
#: copy of X, so only small designs keep them (a function of X's shape and dtype only).
GATHER_ONCE_BYTES = 64 * 2**20


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
    once per object (once per fit; twice where ``solver="auto"`` runs cyclic GD after a
    Gram pass) instead of once per step.

    On the numpy path each chunk of a :class:`~skdpgd._data._design.ClippedDesign` has its rows
    scaled by their powers of two once per call
    (:meth:`~skdpgd._data._design.ClippedDesign.prescaled`, a chunk-sized temporary); when X is a
    single chunk, that pre-scaled copy (one chunk of memory) is kept for the object's
    life, so small problems pay the scaling once per fit. Likewise, on one thread, the
    chunks of the fixed row sets of a dense X of at most :data:`GATHER_ONCE_BYTES` are
    gathered on first use and kept for the fit (a cyclic run reads each batch once per
    epoch; gathering rows by index cost about as much as the pass): the same sums, bit
    for bit, for one more copy of a small X.

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
        self._gathered = {}  # row set -> its chunks' rows, gathered once (small X only)
        self._kept = {}  # chunk bounds -> a small CSR X's chunks, pre-scaled once
        self._stacked = {}  # the same key -> those chunks stacked (StackedChunks)

    # -- worker pool lifetime ---------------------------------------------------
    def __enter__(self):
        from contextlib import ExitStack

        from joblib import effective_n_jobs, parallel_config

        self._stack = ExitStack()
        try:
            n_chunks = max(len(bounds) for bounds in self._bounds.values())
            if n_chunks > 1:
                self._stack.enter_context(single_threaded_blas())
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
        self._gathered = {}
        self._kept = {}
        self._stacked = {}
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
        if rows is not None and self._parallel is None and self._gathers_once():
            return self._reduce_gathered(coef, row_set, bounds, method or self.method)
        return self._reduce(coef, bounds, rows, method or self.method)

    def _gathers_once(self):
        """Whether the fixed row sets' chunks are gathered once (X small, dense or CSR)."""
        X = getattr(self.X, "X", self.X)  # a ClippedDesign's values
        if sp.issparse(X):
            return X.data.nbytes <= GATHER_ONCE_BYTES
        return isinstance(X, np.ndarray) and X.nbytes <= GATHER_ONCE_BYTES

    def _keeps_sparse_chunks(self, method):
        """Whether a pass over all rows keeps its chunks pre-scaled for the fit: a
        :class:`~skdpgd._data._design.ClippedDesign` over a CSR matrix of at most
        :data:`GATHER_ONCE_BYTES` of values, on one thread, for a method on the numpy path
        (a function of X's format and size and of the method only)."""
        X = getattr(self.X, "X", None)
        return (self._parallel is None and sp.issparse(X) and X.data.nbytes <= GATHER_ONCE_BYTES
                and getattr(self.X, "prescaled", None) is not None
                and not getattr(method, "scales_its_rows", False))

    def _reduce_kept(self, coef, bounds, method):
        """:meth:`_reduce` over all rows of a small CSR design whose chunks are cut and
        pre-scaled on first use and kept for the fit: the numpy path builds a scipy matrix
        for each chunk and each call (its format checks cost about as much as the
        products on one-hot tables), here once. The same chunks and operations, the
        partial sums in the same order: the same result bit for bit."""
        key = tuple(bounds)
        chunks = self._kept.get(key)
        if chunks is None:
            chunks = [(_prescaled(self.X[a:b]), self.y[a:b]) for a, b in bounds]
            self._kept[key] = chunks
        return self._sum_kept(coef, key, method)

    def _sum_kept(self, coef, key, method):
        """The numpy path's partial sums of the kept pre-scaled chunks ``self._kept[key]``,
        added in order; a row-wise loss's gradient over all of them at once
        (:class:`~skdpgd._data._stacked.StackedChunks`, the same sums bit for bit), the
        chunks then kept as views of the stacked arrays."""
        chunks = self._kept[key]
        stacked = self._stacked.get(key)
        if stacked is None and stacks(method, chunks):
            stacked = self._stacked[key] = StackedChunks(chunks)
            self._kept[key] = chunks = stacked.chunks()  # one copy of the values, not two
        if stacked is not None and stacked.takes(method):
            return np.array(method(coef, stacked, stacked.y), dtype=np.float64, copy=True)
        total = None
        for X_rows, y_rows in chunks:
            part = np.array(method(coef, X_rows, y_rows), dtype=np.float64, copy=True)
            if total is None:
                total = part
            else:
                total += part
        return total

    def _reduce_gathered(self, coef, row_set, bounds, method):
        """:meth:`_reduce` over a fixed row set whose chunks are gathered on first use and
        kept for the fit: the same rows, the same chunks, the same order of the partial
        sums, hence the same result bit for bit (the numpy path scales a copy of a kept
        chunk, never the chunk itself)."""
        if self._keeps_sparse_chunks(method):  # CSR: gathered and pre-scaled once
            key = ("rows", row_set)
            chunks = self._kept.get(key)
            if chunks is None:
                rows = self.row_sets[row_set]
                chunks = [(_prescaled(self.X[rows[a:b]]), self.y[rows[a:b]]) for a, b in bounds]
                self._kept[key] = chunks
            return self._sum_kept(coef, key, method)
        chunks = self._gathered.get(row_set)
        if chunks is None:
            rows = self.row_sets[row_set]
            chunks = [(self.X[rows[a:b]], self.y[rows[a:b]]) for a, b in bounds]
            self._gathered[row_set] = chunks
        total = None
        for X_rows, y_rows in chunks:
            part = _partial_sum(method, coef, X_rows, y_rows, 0, len(y_rows), None)
            if total is None:
                total = np.array(part, dtype=np.float64, copy=True)
            else:
                total += part
        return total

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
        if rows is None and bounds is self._bounds[None] and self._keeps_sparse_chunks(method):
            return self._reduce_kept(coef, bounds, method)  # the engine's own chunks only
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
    return [items[a:b] for a, b in itertools.pairwise(edges)]
