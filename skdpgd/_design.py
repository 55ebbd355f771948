r"""The clipped, intercept-augmented design matrix, used without ever being materialised.

Training uses the rows :math:`\tilde x_i = (\mathrm{clip}_R(x_i),\ b)` with the clipped
row :math:`\mathrm{clip}_R(x) = x \min(1, R/\|x\|)` (a per-row map, see the theory page,
"Public constants") and the intercept constant b. Building that matrix would copy X twice
(clip, then append a column). This module keeps the validated X untouched and applies both
maps inside the products, with the clipping scale :math:`s_i = \min(1, R/\|x_i\|)`:

.. math::

    \tilde X \theta = s \odot (X w) + b\,\theta_b, \qquad
    \tilde X^\top r = \big(X^\top (s \odot r),\ b \textstyle\sum_i r_i\big),

where :math:`\theta = (w, \theta_b)`. The losses of :mod:`skdpgd.losses` only use
``X @ coef`` and ``X.T @ residual``, so a :class:`ClippedDesign` stands in for the array.

**Rows far outside the bound.** For a row with :math:`\|x_i\| > 2^{10} R` the lazy product
:math:`s_i (x_i \cdot w)` is not safe: :math:`x_i \cdot w` may overflow (a finite row such
as ``[1.2e308, -1.2e308]``) and :math:`s_i` may be subnormal or 0, so the row would not
enter as its clipped value and one record could turn the model into NaN, revealing its
presence. Such rows (:data:`FAR_ROW_FACTOR`) are stored clipped, as the float64 rows
:math:`R\,x_i/\|x_i\|` (:func:`skdpgd.utils._clipping.clipped_values`: every intermediate
finite); their lazy scale is 0 and their entries of the products are computed from the
stored rows. Every finite row of any magnitude and dtype thus enters every product as its
clipped value, to rounding. Real data have no such rows, so nothing is copied; an
adversarial record costs one stored row.

X may be a dense array or a CSR matrix, in float64 or float32. Products with a float32
X are computed in float32 (``coef`` is cast, X never is: no upcast copy, half the memory
traffic); the row scales and the returned products are float64, and the row-chunk partial
sums are added in float64 by :mod:`skdpgd._gradients`.
"""

import numpy as np
import scipy.sparse as sp

from ._fused import fused_row_squares
from ._gradients import chunk_bounds
from .utils._clipping import _positive_bound, check_finite_norms, clipped_values, row_norms

__all__ = ["FAR_ROW_FACTOR", "ClippedDesign", "clipping_scales"]

#: Rows of norm above ``FAR_ROW_FACTOR * data_norm`` are stored clipped (module docstring).
#: Below it the lazy scale is at least 2**-10 (never subnormal) and a lazy product is at
#: most 2**10 times the clipped row's, so both ways of computing it agree to rounding.
FAR_ROW_FACTOR = 2.0**10


def _chunk_norms(X, start, stop):
    """Row norms of rows ``start:stop`` in float64 (worker side; returns them).

    With the fused kernel (:func:`skdpgd._fused.fused_row_squares`) a dense chunk is read
    once, without a float64 temporary; rows whose sum of squares is not finite (overflow,
    NaN, infinity) are redone by the overflow-safe :func:`row_norms`, as without it.
    """
    rows = _csr_row_view(X, slice(start, stop)) if sp.issparse(X) else X[start:stop]
    squares = fused_row_squares(rows)
    if squares is not None:
        norms = np.sqrt(squares)
        redo = ~np.isfinite(norms)
        if np.any(redo):
            norms[redo] = row_norms(rows[redo].astype(np.float64))
        return norms
    if rows.dtype != np.float64:
        rows = rows.astype(np.float64)  # a chunk-sized temporary, never a copy of X
    return row_norms(rows)


def _row_norms(X, *, n_jobs=None):
    """Row norms of X in float64, chunk by chunk, on up to ``n_jobs`` local threads.

    Each norm depends on its own row only, so the result does not depend on ``n_jobs``.
    This is also the fit's finiteness check of X (a NaN or infinite entry gives a NaN
    norm, refused here), so the fit reads X once for both, on the fit's threads.
    A finite row gets its norm without overflow, ``inf`` only where the norm itself
    exceeds the largest float (:func:`skdpgd.utils._clipping.row_norms`); such a row is
    stored clipped, with scale 0.
    """
    from ._passes import map_chunks

    bounds = chunk_bounds(X.shape[0], X.shape[1])
    parts = map_chunks(lambda start, stop: _chunk_norms(X, start, stop), bounds, n_jobs)
    norms = np.concatenate(parts) if parts else np.empty(0)
    check_finite_norms(norms)
    return norms


def _scales(norms, max_norm):
    scales = np.ones(norms.shape[0])
    over = norms > max_norm
    scales[over] = max_norm / norms[over]
    return scales


def clipping_scales(X, max_norm, *, n_jobs=None):
    r"""Per-row factors :math:`s_i = \min(1, R/\|x_i\|)`, in float64.

    Row norms are computed in float64, chunk by chunk (so the temporary of a float32 X is
    bounded), on up to ``n_jobs`` local threads (joblib semantics, at most the number of
    CPUs of this machine: this one-off pass stays local even under a cluster backend).
    Each norm depends on its own row only, so the result does not depend on ``n_jobs``.
    Rows of norm 0 get scale 1.

    Raises
    ------
    ValueError
        If ``max_norm`` is not positive and finite, or a row contains NaN or infinity.
    """
    max_norm = _positive_bound("data_norm", max_norm)
    return _scales(_row_norms(X, n_jobs=n_jobs), max_norm)


def _csr_row_view(X, rows):
    """Consecutive rows of a CSR matrix sharing its data and indices (scipy's slicing
    copies them, which cost more than the products themselves on chunks)."""
    start, stop, step = rows.indices(X.shape[0])
    if step != 1:
        return X[rows]
    first, last = X.indptr[start], X.indptr[stop]
    return sp.csr_matrix(
        (X.data[first:last], X.indices[first:last], X.indptr[start:stop + 1] - first),
        shape=(stop - start, X.shape[1]), copy=False,
    )


#: How a dense X is multiplied by a vector: ``"einsum"`` (numpy's einsum loop, the
#: default) or ``"blas"`` (``X @ w``, OpenBLAS's gemv). On whole 4-32 MiB chunks einsum
#: streams X as fast as gemv or faster on thin matrices; on rows already in cache (the
#: second product of a cache-sized block, :data:`skdpgd._gradients.CACHE_BLOCK_BYTES`)
#: gemv is about twice as fast (measured in benchmarks/README.md, "Scale":
#: ``benchmarks/bandwidth.py --products einsum blas``).
DENSE_PRODUCT = "einsum"


def _product(X, weights):
    """X @ weights (einsum for a dense X and a vector if :data:`DENSE_PRODUCT` says so)."""
    if DENSE_PRODUCT == "einsum" and weights.ndim == 1 and not sp.issparse(X):
        return np.einsum("ij,j->i", X, weights)
    return np.asarray(X @ weights)


def _transposed_product(X, residual):
    """X.T @ residual (einsum for a dense X if :data:`DENSE_PRODUCT` says so)."""
    if sp.issparse(X) or DENSE_PRODUCT != "einsum":
        return X.T @ residual
    if residual.ndim == 1:
        return np.einsum("i,ij->j", residual, X)
    return np.einsum("ik,ij->jk", residual, X)


class ClippedDesign:
    r"""The matrix :math:`\tilde X` with rows :math:`(\mathrm{clip}_R(x_i), b)`, applied lazily.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features), float64 or float32
        The validated data; never modified or copied.
    row_scale : ndarray of shape (n_samples,)
        The clipping factors s (see :func:`clipping_scales`); 0 for the stored rows.
    intercept_scaling : float or None
        b, the value of the appended constant column; None for no intercept column.
    far_rows : ndarray of int, optional
        Sorted indices of the rows stored clipped (norm above ``FAR_ROW_FACTOR * R``).
    far_values : ndarray or CSR matrix of shape (len(far_rows), n_features), optional
        Those rows, clipped, in float64.

    Attributes
    ----------
    shape : (int, int)
        (n_samples, n_features + 1 if an intercept column else n_features).
    """

    def __init__(self, X, row_scale, intercept_scaling=None, far_rows=None, far_values=None):
        self.X = X
        self.row_scale = np.asarray(row_scale, dtype=np.float64)
        self.intercept_scaling = None if intercept_scaling is None else float(intercept_scaling)
        self.shape = (X.shape[0], X.shape[1] + int(self.intercept_scaling is not None))
        if far_rows is None or len(far_rows) == 0:
            self.far_rows, self.far_values = None, None
        else:
            self.far_rows = np.asarray(far_rows, dtype=np.intp)
            self.far_values = far_values

    @classmethod
    def from_data(cls, X, max_norm, intercept_scaling=None, *, n_jobs=None):
        """Clip every row of X to ``max_norm`` and append the intercept column.

        Rows are clipped lazily, except those of norm above ``FAR_ROW_FACTOR * max_norm``,
        which are stored clipped in float64 (see the module docstring).
        """
        max_norm = _positive_bound("data_norm", max_norm)
        norms = _row_norms(X, n_jobs=n_jobs)
        scales = _scales(norms, max_norm)
        far_rows = np.flatnonzero(norms > FAR_ROW_FACTOR * max_norm)
        far_values = None
        if far_rows.size:
            far_values = clipped_values(X[far_rows], max_norm)
            scales[far_rows] = 0.0
        return cls(X, scales, intercept_scaling, far_rows, far_values)

    @property
    def dtype(self):
        return self.X.dtype

    def __sizeof__(self):
        """Bytes held (X, row scales, stored rows): what a dask worker counts against its
        memory limit, so that a persisted block of a dask X can be spilled to disk."""
        held = [self.X.data, self.X.indices, self.X.indptr] if sp.issparse(self.X) else [self.X]
        held.append(self.row_scale)
        if self.far_rows is not None:
            far = self.far_values
            held += [self.far_rows] + ([far.data, far.indices, far.indptr] if sp.issparse(far) else [far])
        return object.__sizeof__(self) + sum(np.asarray(a).nbytes for a in held)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        """Rows ``rows``: a slice gives a view (dense or CSR), an index array a copy."""
        if isinstance(rows, slice) and sp.issparse(self.X):
            X = _csr_row_view(self.X, rows)
        else:
            X = self.X[rows]
        far_rows, far_values = self._far_subset(rows)
        return ClippedDesign(X, self.row_scale[rows], self.intercept_scaling, far_rows, far_values)

    def _far_subset(self, rows):
        """The stored rows among ``rows``: their positions within ``rows``, and values."""
        if self.far_rows is None:
            return None, None
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.shape[0])
            if step == 1:
                lo, hi = np.searchsorted(self.far_rows, [start, stop])
                return self.far_rows[lo:hi] - start, self.far_values[lo:hi]
            rows = np.arange(start, stop, step)
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        rows = np.where(rows < 0, rows + self.shape[0], rows)
        position = np.searchsorted(self.far_rows, rows)
        found = position < self.far_rows.size
        found[found] = self.far_rows[position[found]] == rows[found]
        return np.flatnonzero(found), self.far_values[position[found]]

    def _split(self, coef):
        coef = np.asarray(coef, dtype=np.float64)
        if self.intercept_scaling is None:
            return coef, None
        return coef[:-1], coef[-1]

    def __matmul__(self, coef):
        r""":math:`\tilde X \theta` for theta of shape (d,) or (d, k); float64 result."""
        weights, intercept = self._split(coef)
        # the stored rows' lazy products may overflow (their scale is 0): replaced below
        with np.errstate(over="ignore", invalid="ignore"):
            product = _product(self.X, weights.astype(self.X.dtype, copy=False))
            product = (self.row_scale if product.ndim == 1 else self.row_scale[:, None]) * product
        if self.far_rows is not None:
            product[self.far_rows] = _product(self.far_values, weights)
        if intercept is not None:
            product += self.intercept_scaling * intercept
        return product

    @property
    def T(self):
        return _TransposedDesign(self)

    def gram(self):
        r""":math:`\tilde X^\top \tilde X` in float64, block by block.

        The clipped features of each block of rows (about ``CHUNK_BYTES`` in float64,
        :func:`~skdpgd._gradients.chunk_bounds`) are built in float64, scaled in place
        (stored rows enter as stored), and the intercept column enters through the
        column sums, so no augmented copy and no temporary larger than a block is made,
        whatever the length of this design.
        """
        d = self.X.shape[1]
        top, column = np.zeros((d, d)), np.zeros(d)
        for start, stop in chunk_bounds(self.shape[0], d):
            block = self[start:stop]
            X = block.X.toarray() if sp.issparse(block.X) else block.X
            rows = np.array(X, dtype=np.float64, copy=True)
            rows *= block.row_scale[:, None]
            if block.far_rows is not None:
                far = block.far_values
                rows[block.far_rows] = far.toarray() if sp.issparse(far) else far
            top += rows.T @ rows
            column += rows.sum(axis=0)
        if self.intercept_scaling is None:
            return top
        b = self.intercept_scaling
        out = np.empty((d + 1, d + 1))
        out[:d, :d] = top
        out[:d, d] = out[d, :d] = b * column
        out[d, d] = b * b * self.shape[0]
        return out

    def toarray(self):
        """The materialised float64 matrix (for tests and small problems only)."""
        X = self.X.toarray() if sp.issparse(self.X) else np.asarray(self.X)
        X = X.astype(np.float64) * self.row_scale[:, None]
        if self.far_rows is not None:
            far = self.far_values
            X[self.far_rows] = far.toarray() if sp.issparse(far) else far
        if self.intercept_scaling is not None:
            X = np.hstack([X, np.full((X.shape[0], 1), self.intercept_scaling)])
        return X


class _TransposedDesign:
    r""":math:`\tilde X^\top`, only for ``design.T @ residual``."""

    def __init__(self, design):
        self._design = design
        self.shape = design.shape[::-1]

    def __matmul__(self, residual):
        design = self._design
        residual = np.asarray(residual, dtype=np.float64)
        scale = design.row_scale if residual.ndim == 1 else design.row_scale[:, None]
        scaled = (scale * residual).astype(design.X.dtype, copy=False)
        top = np.asarray(_transposed_product(design.X, scaled), dtype=np.float64)
        if design.far_rows is not None:  # scale 0 above: add the stored rows' terms
            top = top + np.asarray(
                _transposed_product(design.far_values, residual[design.far_rows]),
                dtype=np.float64,
            )
        if design.intercept_scaling is None:
            return top
        bottom = design.intercept_scaling * residual.sum(axis=0)
        return np.concatenate([top, np.atleast_1d(bottom)[None] if top.ndim == 2 else [bottom]])
