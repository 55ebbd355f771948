r"""Kept CSR chunks of one pass as one matrix: the chunks' gradient sums in two calls.

A small CSR design's chunks are cut, pre-scaled and kept for the fit
(:class:`~skdpgd._data._gradients.ChunkedRowSums`). On a one-hot table a chunk holds a
few thousand stored entries, and the numpy path's dozen calls per chunk cost more than
its products (8,000 chunk calls in a default fit of a 160,000 x 480 one-hot design).
:class:`StackedChunks` takes a loss's gradient sum over all the chunks of a pass at once,
with the same result bit for bit:

* ``X @ coef`` over the stacked rows: each row's product is computed by the same
  routine over the same stored entries, in the same order, as in its chunk;
* the loss's residual, row by row (a loss that declares ``row_wise_gradient``), is the
  same for each row;
* ``X.T @ r`` is one product with the block matrix whose chunk c holds its entries in
  columns :math:`c d + j`: each output of chunk c accumulates that chunk's rows in order
  from zero, as the chunk's own transpose product does, and the chunks' partial sums
  (features, then the intercept column's :math:`b \sum r` over the chunk) are added in
  chunk order, as :meth:`~skdpgd._data._gradients.ChunkedRowSums.sum` adds them.
"""

import numpy as np
import scipy.sparse as sp

from ._design import ClippedDesign, _csr_row_view, post_scaled

__all__ = ["MAX_BLOCK_BYTES", "StackedChunks", "block_fits", "stacks"]

#: The most bytes the block product's output (chunks x d x outputs float64 values) may
#: take: the chunks of a wide CSR design (d of a million hashed features, chunks of 64
#: rows) would need gigabytes, and are summed chunk by chunk instead. A function of the
#: shape only.
MAX_BLOCK_BYTES = 16 * 2**20


def stacks(method, chunks=None):
    """Whether ``method`` over ``chunks`` may be taken by :class:`StackedChunks`.

    ``method`` must be the ``gradient_sum`` of a loss that declares
    ``row_wise_gradient`` (X read only through ``X @ coef`` and ``X.T @ r``, the residual
    r computed row by row), and every chunk a pre-scaled CSR
    :class:`~skdpgd._data._design.ClippedDesign` of one dtype and intercept scaling (at
    least two; None: ``method`` alone is checked), with a block product's output of at
    most :data:`MAX_BLOCK_BYTES`: a function of the loss's declaration and of X's format
    and shape, never of the data.
    """
    owner = getattr(method, "__self__", None)
    if getattr(method, "__name__", None) != "gradient_sum" or owner is None:
        return False
    if getattr(owner, "row_wise_gradient", False) is not True:
        return False
    if chunks is None:
        return True
    if len(chunks) < 2:
        return False
    first = chunks[0][0]
    if not block_fits(method, len(chunks), first.X.shape[1]):
        return False  # the block product's output would be too large: chunk by chunk
    return all(
        sp.issparse(getattr(X, "X", None)) and getattr(X, "pre_scale", 0) is None
        and X.X.dtype == first.X.dtype and X.intercept_scaling == first.intercept_scaling
        for X, _ in chunks)


def block_fits(method, n_chunks, n_features):
    """Whether the block product's output, ``n_chunks x n_features x`` the loss's
    outputs float64 values, takes at most :data:`MAX_BLOCK_BYTES` (shape only)."""
    outputs = int(getattr(getattr(method, "__self__", None), "n_outputs", 1))
    return 8 * int(n_chunks) * int(n_features) * outputs <= MAX_BLOCK_BYTES


class StackedChunks:
    """The kept chunks of one pass, stacked (module docstring).

    Parameters
    ----------
    chunks : list of (ClippedDesign, ndarray)
        The pre-scaled CSR chunks and their targets, in chunk order (:func:`stacks`).

    Attributes
    ----------
    y : ndarray
        The chunks' targets, stacked.
    shape : (int, int)
        The stacked design's shape (with its intercept column).
    """

    def __init__(self, chunks):
        designs = [X for X, _ in chunks]
        self.y = np.concatenate([np.asarray(y) for _, y in chunks])
        d = designs[0].X.shape[1]
        sizes = [X.X.shape[0] for X in designs]
        self._ends = np.cumsum(sizes)
        self._starts = self._ends - sizes
        data = np.concatenate([X.X.data for X in designs])
        indices = np.concatenate([X.X.indices for X in designs])
        nnz = [X.X.indptr[-1] - X.X.indptr[0] for X in designs]
        offsets = np.concatenate([[0], np.cumsum(nnz)[:-1]])
        indptr = np.concatenate([[0]] + [X.X.indptr[1:] - X.X.indptr[0] + offset
                                         for X, offset in zip(designs, offsets, strict=True)])
        n = int(self._ends[-1])
        self.X = sp.csr_matrix((data, indices, indptr), shape=(n, d), copy=False)
        # chunk c's entries in columns c d + j, transposed once (a CSC view, no copy)
        block = indices + np.repeat(np.arange(len(designs)) * d, nnz).astype(indices.dtype)
        self._block_transpose = sp.csr_matrix(
            (data, block, indptr), shape=(n, len(designs) * d), copy=False).T
        self.post_scale = np.concatenate([X.post_scale for X in designs])
        self.intercept_scaling = designs[0].intercept_scaling
        # the forward product is the clipped design's own, over the stacked rows
        self._rows = ClippedDesign(self.X, None, self.post_scale, self.intercept_scaling)
        self._d = d
        self.shape = (n, d + (self.intercept_scaling is not None))

    def __len__(self):
        return self.shape[0]

    def takes(self, method):
        """Whether ``method`` may be summed over these stacked chunks (:func:`stacks`'s
        rule for the method: a declared row-wise gradient whose block product fits)."""
        return stacks(method) and block_fits(method, len(self._starts), self._d)

    def chunks(self):
        """The chunks again, as views of the stacked arrays (no copy of the values):
        what the caller keeps in place of the chunks it stacked.

        Returns
        -------
        list of (ClippedDesign, ndarray)
        """
        return [(ClippedDesign(_csr_row_view(self.X, slice(a, b)), None,
                               self.post_scale[a:b], self.intercept_scaling), self.y[a:b])
                for a, b in zip(self._starts.tolist(), self._ends.tolist(), strict=True)]

    def __matmul__(self, coef):
        r""":math:`\tilde X \theta` over every stacked row (each row as in its chunk)."""
        return self._rows @ coef

    @property
    def T(self):
        return _StackedTranspose(self)


class _StackedTranspose:
    r""":math:`\sum_c \tilde X_c^\top r_c` in chunk order, only for ``stacked.T @ r``."""

    def __init__(self, stacked):
        self._stacked = stacked

    def __matmul__(self, residual):
        s = self._stacked
        residual, scaled = post_scaled(s.post_scale, residual, s.X.dtype)
        with np.errstate(over="ignore", invalid="ignore"):  # only a non-finite residual
            tops = np.asarray(s._block_transpose @ scaled, dtype=np.float64)
        tops = tops.reshape((len(s._starts), s._d, *residual.shape[1:]))
        total = None
        for c, (start, end) in enumerate(zip(s._starts, s._ends, strict=True)):
            part = tops[c]
            if s.intercept_scaling is not None:  # the chunk's own sum, as in its chunk
                bottom = s.intercept_scaling * residual[start:end].sum(axis=0)
                part = np.concatenate([part, np.atleast_1d(bottom)[None] if part.ndim == 2
                                       else [bottom]])
            if total is None:
                total = np.array(part, dtype=np.float64, copy=True)
            else:
                total += part
        return total
