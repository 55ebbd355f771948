r"""Training on a ``dask.array`` X: the row blocks stay on the cluster for the whole fit.

Requires the optional extra ``skdpgd[dask]`` (``dask[distributed]``). The algorithm is the
one of :mod:`skdpgd.linear_model._base`; only where the gradient sums are computed
changes:

* X is rechunked so that every block holds whole rows (``{1: -1}``), and y is cut into the
  same row blocks;
* every block is turned, on the worker that holds it, into a
  :class:`~skdpgd._data._design.ClippedDesign` (row clipping is a per-row map) and *persisted*:
  the data are read and placed once per fit;
* each step sends the current coefficients, computes one partial gradient sum per block
  where the block lives, and adds the partial sums in block order in the parent (a fixed
  order, so a fit is reproducible for a given chunking). All noise is drawn in the
  parent; workers are pure gradient calculators (randomness enters once, in fit);
* a mini-batch step (``solver="cyclic"``, ``"sgd"``) is the same sum over a row set: the
  batch is drawn in the parent from the seed and n (public numbers), split by block from
  the public block edges, and each block sums its own rows of the batch where it lives
  (only block-local row indices travel).

Without a ``distributed.Client`` dask's local threaded scheduler is used, which keeps the
persisted blocks in this process's memory.
"""

import itertools

import numpy as np

from ._design import ClippedDesign, fused_gradient_sum

__all__ = ["DaskRowSums", "is_dask_array", "refuse_dask_table", "validate_dask_X_y"]


def is_dask_array(X):
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.split(".")[:2] == ["dask", "array"] and hasattr(X, "to_delayed")


def refuse_dask_table(X):
    """Refuse a dask DataFrame or Series (any dask collection but an array) as X, from
    its type alone, saying what to do (an estimator, a DPPipeline and DPSearchCV call
    it before the charge).

    Its number of rows is not known without reading its partitions, while a fit reads n
    and d from the structure before the charge; and a table's column names and dtypes
    (public schema) would be lost in an object array. A dask array with known chunk
    sizes has n and d; a pandas DataFrame has the schema.
    """
    module = type(X).__module__.split(".")
    if module[0] == "dask" and not is_dask_array(X) and hasattr(X, "to_delayed"):
        raise ValueError(
            f"X is a dask {type(X).__name__}, which skdpgd does not read: its length is "
            "unknown until its partitions are read, and its column names and dtypes would "
            "be lost. For an estimator, convert its numeric columns to a dask array with "
            "known chunk sizes, X.to_dask_array(lengths=True); for a DPPipeline with a "
            "DPTableVectorizer, pass X.compute() (a pandas DataFrame).")


def _import_dask():
    try:
        import dask
        import dask.array as da
    except ImportError as error:  # pragma: no cover - only without the extra
        raise ImportError(
            "A dask array X needs the optional extra: pip install 'skdpgd[dask]'."
        ) from error
    return dask, da


def validate_dask_X_y(X, y):
    """Check a dask X (2-D, known chunk sizes, float) and bring y into memory.

    The checks read the array's structure only (its shape and chunk sizes, public), so
    they may run before the charge. A block of zero rows (``chunks=((1000, 0, 2000),
    (4,))``, or a filter whose ``compute_chunk_sizes()`` found an empty partition) is
    removed by merging: the row blocks, their order and hence the model are those of
    the same array without it.

    Returns
    -------
    X : dask.array.Array
        float32 or float64 (other dtypes are cast lazily to float64), rechunked to
        whole rows, with no empty row block.
    y : ndarray of shape (n_samples,)
        y is a vector of n numbers, small next to X; a dask y is computed.
    """
    _import_dask()
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got a dask array of shape {X.shape}.")
    if any(np.isnan(size) for size in X.shape):
        raise ValueError(
            "X has unknown chunk sizes (NaN in its shape); call X.compute_chunk_sizes() first."
        )
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = X.rechunk({1: -1})
    if hasattr(y, "compute"):
        y = y.compute()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.shape != (X.shape[0],):
        raise ValueError(f"X has {X.shape[0]} rows but y has shape {y.shape}.")
    if X.shape[0] < 2:
        raise ValueError(
            f"Found array with {X.shape[0]} sample(s) while a minimum of 2 is required.")
    rows = tuple(int(size) for size in X.chunks[0] if size > 0)
    if len(rows) != len(X.chunks[0]):  # an empty block holds no row: merged away
        X = X.rechunk({0: rows})
    return X, y


def _block_design(block, y_block, max_norm, intercept_scaling):
    """One row block as (clipped design, targets), built where the block lives."""
    return ClippedDesign.from_data(np.asarray(block), max_norm, intercept_scaling), y_block


def _place(arrays):
    """``arrays`` scattered to the cluster of the active ``distributed.Client`` (futures),
    or as they are without one: y's blocks then travel once, not inside the task graph."""
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client: local scheduler
        return arrays
    return client.scatter(arrays)


def _block_sum(method, coef, block, rows=None):
    """One block's partial sum, over its rows ``rows`` (block-local indices) or all of them."""
    design, y_block = block
    if rows is not None:
        design, y_block = design[rows], y_block[rows]
    fused = fused_gradient_sum(method, coef, design, y_block)  # None: not applicable
    if fused is not None:
        return fused
    if not getattr(method, "scales_its_rows", False):  # the Gram pass scales its own blocks
        design = design.prescaled()
    return method(coef, design, y_block)


def _split_by_block(rows, edges):
    """``rows`` (global indices, in the caller's order) cut by block: a list of
    ``(block index, block-local indices)`` for the blocks holding at least one of them.

    A function of the indices and of the public block edges only; each block's rows keep
    their order in ``rows``.
    """
    rows = np.asarray(rows, dtype=np.intp)
    if rows.size and (rows.min() < 0 or rows.max() >= edges[-1]):
        raise IndexError(f"row indices must lie in [0, {edges[-1]}).")
    block = np.searchsorted(edges, rows, side="right") - 1
    order = np.argsort(block, kind="stable")
    counts = np.bincount(block, minlength=len(edges) - 1)
    pieces, start = [], 0
    for j, count in enumerate(counts):
        if count:
            picked = rows[order[start:start + count]]
            pieces.append((j, picked - edges[j]))
            start += count
    return pieces


class DaskRowSums:
    r"""Sums over the rows of a dask X, block by block where the blocks live, with the
    interface of :class:`skdpgd._data._gradients.ChunkedRowSums` (``with`` block, then
    ``sum(coef)``, ``sum(coef, j)`` or ``sum_rows(coef, rows)``).

    A sum over a row set (a cyclic batch, a Poisson-sampled batch) is computed the same
    way as a full pass: the rows are split by block from the public block edges, each
    block sums its own rows where it lives, and the partial sums are added in block
    order in the parent. Only the block-local indices travel to the workers; the row
    sets themselves are drawn in the parent from the seed and n (public numbers).

    Parameters
    ----------
    method : callable
        ``method(coef, design_block, y_block)``, e.g. ``loss.gradient_sum``.
    X : dask.array.Array
        Validated by :func:`validate_dask_X_y` (whole rows per block).
    y : ndarray of shape (n_samples,)
    max_norm : float
        data_norm R (rows are clipped on the workers).
    intercept_scaling : float or None
        b, or None for no intercept column.
    row_sets : list of ndarray, optional
        Index sets (e.g. the batches of a cyclic partition) that :meth:`sum` may be
        restricted to; they are split by block once, here.
    """

    def __init__(self, method, X, y, *, max_norm, intercept_scaling, row_sets=()):
        self.method = method
        self._X, self._y = X, y
        self._max_norm, self._intercept_scaling = max_norm, intercept_scaling
        self._edges = np.cumsum((0, *X.chunks[0]))
        self._row_sets = [_split_by_block(rows, self._edges) for rows in row_sets]
        self._blocks = None

    def __enter__(self):
        dask, _ = _import_dask()
        from dask import delayed

        edges = self._edges
        blocks = self._X.to_delayed().ravel()
        y_blocks = _place([self._y[a:b] for a, b in itertools.pairwise(edges)])
        build = [
            delayed(_block_design)(block, y_block, self._max_norm, self._intercept_scaling)
            for block, y_block in zip(blocks, y_blocks, strict=True)
        ]
        self._blocks = dask.persist(*build)  # read, clip and place once per fit
        return self

    def __exit__(self, *exc_info):
        self._blocks = None
        return False

    def sum(self, coef, row_set=None, *, method=None, chunk_size=None):
        """Sum of ``method`` over all rows, or over the rows of ``row_sets[row_set]``
        (block partial sums added in block order).

        ``method`` replaces the engine's method for this call (e.g. a Gram pass);
        ``chunk_size`` is ignored (one partial sum per block of the dask array).
        """
        if row_set is None:
            pieces = [(j, None) for j in range(len(self._blocks))]
        else:
            pieces = self._row_sets[row_set]
        return self._reduce(coef, pieces, method or self.method)

    def sum_rows(self, coef, rows):
        """Sum of the method over the rows ``rows`` (global indices drawn per step, e.g. a
        Poisson-sampled batch; may be empty, then the sum is 0)."""
        return self._reduce(coef, _split_by_block(rows, self._edges), self.method)

    def _reduce(self, coef, pieces, method):
        import dask
        from dask import delayed

        coef = np.asarray(coef, dtype=np.float64)
        if not pieces:
            return np.zeros(coef.shape)
        parts = dask.compute(
            *[delayed(_block_sum)(method, coef, self._blocks[j], rows) for j, rows in pieces]
        )
        total = np.array(parts[0], dtype=np.float64, copy=True)
        for part in parts[1:]:
            total += part
        return total
