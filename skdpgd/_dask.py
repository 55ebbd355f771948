r"""Training on a ``dask.array`` X: the row blocks stay on the cluster for the whole fit.

Requires the optional extra ``skdpgd[dask]`` (``dask[distributed]``). The algorithm is the
one of :mod:`skdpgd.linear_model._base`; only where the gradient sums are computed
changes:

* X is rechunked so that every block holds whole rows (``{1: -1}``), and y is cut into the
  same row blocks;
* every block is turned, on the worker that holds it, into a
  :class:`~skdpgd._design.ClippedDesign` (row clipping is a per-row map) and *persisted*:
  the data are read and placed once per fit;
* each step sends the current coefficients, computes one partial gradient sum per block
  where the block lives, and adds the partial sums in block order in the parent (a fixed
  order, so a fit is reproducible for a given chunking). All noise is drawn in the
  parent; workers are pure gradient calculators (randomness enters once, in fit).

Without a ``distributed.Client`` dask's local threaded scheduler is used, which keeps the
persisted blocks in this process's memory.
"""

import numpy as np

from ._design import ClippedDesign

__all__ = ["DaskRowSums", "is_dask_array", "validate_dask_X_y"]


def is_dask_array(X):
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed")


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

    Returns
    -------
    X : dask.array.Array
        float32 or float64 (other dtypes are cast lazily to float64), rechunked to
        whole rows.
    y : ndarray of shape (n_samples,)
        y is a vector of n numbers, small next to X; a dask y is computed.
    """
    _import_dask()
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got a dask array of shape {X.shape}.")
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
        raise ValueError(f"Found array with {X.shape[0]} sample(s) while a minimum of 2 is required.")
    return X, y


def _block_design(block, y_block, max_norm, intercept_scaling):
    """One row block as (clipped design, targets), built where the block lives."""
    return ClippedDesign.from_data(np.asarray(block), max_norm, intercept_scaling), y_block


def _block_sum(method, coef, block):
    design, y_block = block
    return method(coef, design, y_block)


class DaskRowSums:
    r"""Gradient sums over the row blocks of a dask X, with the same interface as
    :class:`skdpgd._gradients.ChunkedRowSums` (``with`` block, then ``sum(coef)``).

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
    """

    def __init__(self, method, X, y, *, max_norm, intercept_scaling):
        self.method = method
        self._X, self._y = X, y
        self._max_norm, self._intercept_scaling = max_norm, intercept_scaling
        self._blocks = None

    def __enter__(self):
        dask, _ = _import_dask()
        from dask import delayed

        edges = np.cumsum((0,) + self._X.chunks[0])
        blocks = self._X.to_delayed().ravel()
        build = [
            delayed(_block_design)(
                block, self._y[a:b], self._max_norm, self._intercept_scaling
            )
            for block, a, b in zip(blocks, edges[:-1], edges[1:])
        ]
        self._blocks = dask.persist(*build)  # read, clip and place once per fit
        return self

    def __exit__(self, *exc_info):
        self._blocks = None
        return False

    def sum(self, coef, row_set=None, *, method=None):
        """Sum of ``method`` over all rows (block partial sums added in block order).

        ``method`` replaces the engine's method for this call (e.g. a Gram pass).
        """
        if row_set is not None:
            raise NotImplementedError("mini-batches of a dask array are not supported")
        import dask
        from dask import delayed

        coef = np.asarray(coef, dtype=np.float64)
        method = method or self.method
        parts = dask.compute(*[delayed(_block_sum)(method, coef, b) for b in self._blocks])
        total = np.array(parts[0], dtype=np.float64, copy=True)
        for part in parts[1:]:
            total += part
        return total
