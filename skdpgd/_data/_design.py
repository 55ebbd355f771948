r"""The clipped, intercept-augmented design matrix, used without ever being materialised.

Training uses the rows :math:`\tilde x_i = (\mathrm{clip}_R(x_i),\ b)` with the clipped
row :math:`\mathrm{clip}_R(x) = x \min(1, R/\|x\|)` (a per-row map, see the theory page,
"Public constants") and the intercept constant b. Building that matrix would copy X twice
(clip, then append a column). This module keeps the validated X untouched and applies both
maps inside the products, with two factors per row (:mod:`skdpgd.utils._clipping`, "One
formula for every row"): a power of two :math:`p_i` that brings the row's largest entry
below 4, and the post-scale :math:`q_i = \min(1/p_i, R/\|p_i x_i\|)`, so that
:math:`\mathrm{clip}_R(x_i) = q_i\,(p_i x_i)`:

.. math::

    \tilde X \theta = q \odot \big((P X) w\big) + b\,\theta_b, \qquad
    \tilde X^\top r = \big((P X)^\top (q \odot r),\ b \textstyle\sum_i r_i\big),

where :math:`\theta = (w, \theta_b)` and :math:`P = \mathrm{diag}(p)`. The losses of
:mod:`skdpgd.losses` only use ``X @ coef`` and ``X.T @ residual``, so a
:class:`ClippedDesign` stands in for the array.

**Every row the same way.** Every finite row, of any magnitude and dtype (a row such as
``[1.2e308, -1.2e308]`` included), enters every product as its clipped value, to
rounding: :math:`p_i x_i` has entries below 4 (exact: a power of two only shifts
exponents) and :math:`q_i \le \max(1/p_i, 2R)`, so no product overflows and no factor is
subnormal. And every row goes through the same operations: there is no set of rows kept
apart, no branch on a row's norm and no second pass for large rows, so the work of a fit
on dense X, hence its time, does not depend on the values of X
(``tests/data/test_constant_work.py``; measured in ``benchmarks/far_row_timing.py``). A row inside
the bound has
:math:`q_i = 1/p_i` and its products are those of the unscaled row bit for bit (the
power of two cancels exactly), so ordinary data give the products of the plain lazy
scaling :math:`\min(1, R/\|x_i\|)\,(x_i \cdot w)`.

X may be a dense array or a CSR matrix, in float64 or float32. Products with a float32
X are computed in float32 (``coef`` is cast, X never is: no upcast copy of X); the
pre-scaled rows :math:`P X` of a chunk are a chunk-sized temporary in X's dtype (the fused
kernel, :mod:`skdpgd._data._fused`, applies :math:`p_i` as it reads each entry instead); the
row factors and the returned products are float64, and the row-chunk partial sums are
added in float64 by :mod:`skdpgd._data._gradients`. The fused kernel is chosen by the
name the loss declares (:func:`fused_gradient_sum`), never by the loss's type.
"""

import numpy as np
import scipy.sparse as sp

from ..utils._clipping import (
    _positive_bound,
    check_finite_norms,
    clipping_factors,
    scaled_row_norms,
)
from ._chunks import chunk_bounds
from ._fused import fused_csr_gram, fused_gradient, fused_gram, fused_row_factors
from ._passes import map_chunks

__all__ = ["ClippedDesign", "fused_gradient_sum"]


def _chunk_factors(X, start, stop, max_norm, pre, post):
    r"""The factors (p, q) of rows ``start:stop`` written into ``pre`` and ``post``; returns
    :math:`\sum_i 0 \cdot \|p_i x_i\|`, NaN exactly where some row is not finite (worker side).

    With the fused kernel (:func:`skdpgd._data._fused.fused_row_factors`) a dense chunk is
    read once, without a temporary; without it,
    :func:`~skdpgd.utils._clipping.scaled_row_norms` and
    :func:`~skdpgd.utils._clipping.clipping_factors` (the same steps in numpy, with
    chunk-sized temporaries). Either way the same operations for every row.
    """
    total = fused_row_factors(X, start, stop, max_norm, pre, post)  # None for CSR
    if total is not None:
        return total
    rows = _csr_row_view(X, slice(start, stop)) if sp.issparse(X) else X[start:stop]
    pre[start:stop], scaled_norm = scaled_row_norms(rows)
    post[start:stop] = clipping_factors(pre[start:stop], scaled_norm, max_norm)
    with np.errstate(invalid="ignore"):
        return np.sum(scaled_norm * 0.0)


def _row_factors(X, max_norm, *, n_jobs=None):
    r"""The per-row factors (p, q) of X, chunk by chunk, on up to ``n_jobs`` local threads.

    Each depends on its own row only, so the result does not depend on ``n_jobs``.
    This is also the fit's finiteness check of X (a NaN or infinite entry gives a
    non-finite ``||p x||``, refused here by
    :func:`~skdpgd.utils._clipping.check_finite_norms`, one reduction over every row: each
    chunk's :math:`0 \cdot \sum_i \|p_i x_i\|`, then their sum), so the fit reads X once
    for both, on the fit's threads. Each chunk writes its factors into the two arrays
    itself: no step over all n rows runs on one thread after the chunks.
    """
    pre, post = np.empty(X.shape[0]), np.empty(X.shape[0])
    bounds = chunk_bounds(X.shape[0], X.shape[1])
    totals = map_chunks(
        lambda start, stop: _chunk_factors(X, start, stop, max_norm, pre, post), bounds, n_jobs)
    check_finite_norms(np.array(totals))  # each 0, or NaN where a row is not finite
    return pre, post


#: Bytes of float64 clipped rows per block of the Gram pass (:meth:`ClippedDesign.gram`): a
#: block stays in a core's cache between its scaling and its product.
GRAM_BLOCK_BYTES = 512 * 2**10


def _gram_block_rows(n_features):
    """Rows per block of :meth:`ClippedDesign.gram`: a function of d only (bit-identity).

    :data:`GRAM_BLOCK_BYTES` of float64 rows, and at least d/2 rows for wide designs, so
    that adding a block's d x d product to the sum (d^2 additions) stays small next to
    the product itself (m d^2 / 2 multiply-adds for m rows).
    """
    d = max(1, int(n_features))
    return max(8, GRAM_BLOCK_BYTES // (8 * d), d // 2)


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


def post_scaled(post_scale, residual, dtype):
    r"""(r as float64, :math:`q \odot r` in X's dtype): the residual of a transposed
    product, each row scaled by its post-scale q (a column of them for k outputs)."""
    residual = np.asarray(residual, dtype=np.float64)
    post = post_scale if residual.ndim == 1 else post_scale[:, None]
    with np.errstate(over="ignore", invalid="ignore"):  # only a non-finite residual
        return residual, (post * residual).astype(dtype, copy=False)


def _product(X, weights):
    """X @ weights (numpy's einsum loop for a dense X and a vector: on whole 4-32 MiB
    chunks it streams X as fast as gemv or faster on thin matrices, benchmarks/README.md,
    "Scale")."""
    if weights.ndim == 1 and not sp.issparse(X):
        return np.einsum("ij,j->i", X, weights)
    return np.asarray(X @ weights)


def _transposed_product(X, residual, transposed=None):
    """X.T @ residual (einsum for a dense X and a vector, as :func:`_product`; BLAS's
    product for a matrix of residuals, the multinomial loss's: einsum's loop for
    ``"ik,ij->jk"`` is 14x slower on an 8,333 x 50 chunk with 4 classes). ``transposed``:
    X.T already built (a CSR X's CSC view, the same product)."""
    if sp.issparse(X) or residual.ndim != 1:
        return (X.T if transposed is None else transposed) @ residual
    return np.einsum("i,ij->j", residual, X)


def _prescaled(X, pre):
    """:math:`P X`: every row times its power of two, in X's dtype (exact), a new array or
    CSR matrix (indices and indptr shared) of the size of X's values."""
    pre = pre.astype(X.dtype, copy=False)  # powers of two, normal in X's dtype: exact
    if sp.issparse(X):
        data = X.data * np.repeat(pre, np.diff(X.indptr))
        return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape, copy=False)
    return X * pre[:, None]


class ClippedDesign:
    r"""The matrix :math:`\tilde X` with rows :math:`(\mathrm{clip}_R(x_i), b)`, applied lazily.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features), float64 or float32
        The validated data; never modified or copied.
    pre_scale : ndarray of shape (n_samples,) or None
        The powers of two :math:`p_i` (:func:`skdpgd.utils._clipping.power_of_two_scales`);
        None when X holds the pre-scaled rows :math:`P X` already (:meth:`prescaled`).
    post_scale : ndarray of shape (n_samples,)
        :math:`q_i = \min(1/p_i, R/\|p_i x_i\|)`
        (:func:`skdpgd.utils._clipping.clipping_factors`).
    intercept_scaling : float or None
        b, the value of the appended constant column; None for no intercept column.

    Attributes
    ----------
    shape : (int, int)
        (n_samples, n_features + 1 if an intercept column else n_features).
    """

    def __init__(self, X, pre_scale, post_scale, intercept_scaling=None):
        self.X = X
        self.pre_scale = None if pre_scale is None else np.asarray(pre_scale, dtype=np.float64)
        self.post_scale = np.asarray(post_scale, dtype=np.float64)
        self.intercept_scaling = None if intercept_scaling is None else float(intercept_scaling)
        self.shape = (X.shape[0], X.shape[1] + int(self.intercept_scaling is not None))

    @classmethod
    def from_data(cls, X, max_norm, intercept_scaling=None, *, n_jobs=None):
        """Clip every row of X to ``max_norm`` (lazily) and append the intercept column.

        One chunked pass over X computes the two factors of every row and checks that X
        is finite (see the module docstring); nothing else is stored.
        """
        max_norm = _positive_bound("data_norm", max_norm)
        pre, post = _row_factors(X, max_norm, n_jobs=n_jobs)
        return cls(X, pre, post, intercept_scaling)

    @property
    def dtype(self):
        return self.X.dtype

    def prescaled(self, out=None):
        r"""The same design over the pre-scaled rows :math:`P X` (a new array, or CSR values,
        of X's size and dtype; exact).

        For a chunk on which several products are taken in a row (the numpy path of one
        gradient: ``X @ coef``, then ``X.T @ residual``), so that its rows are scaled once
        instead of once per product. Meant for chunk-sized designs: the result holds a
        copy of their values.

        Parameters
        ----------
        out : ndarray, optional
            For a dense X: a C-contiguous array of X's shape and dtype to write
            :math:`P X` into (X itself when X is a private copy, e.g. rows gathered by an
            index).
        """
        if self.pre_scale is None:
            return self
        if out is None:
            X = _prescaled(self.X, self.pre_scale)
        else:
            pre = self.pre_scale.astype(self.X.dtype, copy=False)
            X = np.multiply(self.X, pre[:, None], out=out)
        return ClippedDesign(X, None, self.post_scale, self.intercept_scaling)

    def _kept_transpose(self):
        """X.T of a pre-scaled CSR design, built once and kept with it (a CSC view of the
        same arrays, no copy): a chunk kept for the fit
        (:class:`~skdpgd._data._gradients.ChunkedRowSums`) is transposed at every gradient
        otherwise. None for a dense X or rows still to be scaled."""
        if self.pre_scale is not None or not sp.issparse(self.X):
            return None
        transposed = getattr(self, "_transposed", None)
        if transposed is None:
            transposed = self._transposed = self.X.T
        return transposed

    def _scaled_rows(self):
        """:math:`P X` for one product (X itself if already pre-scaled)."""
        if self.pre_scale is None:
            return self.X
        return _prescaled(self.X, self.pre_scale)

    def __sizeof__(self):
        """Bytes held (X and the two row factors): what a dask worker counts against its
        memory limit, so that a persisted block of a dask X can be spilled to disk."""
        held = [self.X.data, self.X.indices, self.X.indptr] if sp.issparse(self.X) else [self.X]
        held += [a for a in (self.pre_scale, self.post_scale) if a is not None]
        return object.__sizeof__(self) + sum(np.asarray(a).nbytes for a in held)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        """Rows ``rows``: a slice gives a view (dense or CSR), an index array a copy."""
        if isinstance(rows, slice) and sp.issparse(self.X):
            X = _csr_row_view(self.X, rows)
        else:
            X = self.X[rows]
        pre = None if self.pre_scale is None else self.pre_scale[rows]
        return ClippedDesign(X, pre, self.post_scale[rows], self.intercept_scaling)

    def _split(self, coef):
        coef = np.asarray(coef, dtype=np.float64)
        if self.intercept_scaling is None:
            return coef, None
        return coef[:-1], coef[-1]

    def __matmul__(self, coef):
        r""":math:`\tilde X \theta` for theta of shape (d,) or (d, k); float64 result."""
        weights, intercept = self._split(coef)
        scaled = self._scaled_rows()
        with np.errstate(over="ignore", invalid="ignore"):  # only a non-finite coef overflows
            product = _product(scaled, weights.astype(self.X.dtype, copy=False))
            post = self.post_scale if product.ndim == 1 else self.post_scale[:, None]
            product = post * product
        if intercept is not None:
            product += self.intercept_scaling * intercept
        return product

    @property
    def T(self):
        return _TransposedDesign(self)

    def gram(self):
        r""":math:`\tilde X^\top \tilde X` in float64, block by block.

        The clipped features of each block of rows (about :data:`GRAM_BLOCK_BYTES`, a
        function of d only: :func:`_gram_block_rows`) are written as
        :math:`q_i (p_i x_i)` into one float64 buffer reused for every block, which
        stays in the processor's cache for the product that follows: :math:`B^\top B`
        of the block (numpy's symmetric rank-k update, half the multiplications of a
        general product) and its column sums. The
        intercept column enters through the column sums, so no augmented copy and no
        temporary larger than a block is made, whatever the length of this design; every
        row goes through the same operations. A dense X is read by one compiled call
        where numba is available (:func:`skdpgd._data._fused.fused_gram`: the same
        blocks and operations, BLAS called from the kernel, numpy's result to rounding),
        so that threads do not queue on the GIL between the blocks' products; a CSR X by
        one compiled call over its stored entries
        (:func:`skdpgd._data._fused.fused_csr_gram`, to rounding as well).
        """
        d = self.X.shape[1]
        step = _gram_block_rows(d)
        sparse = sp.issparse(self.X)
        fused = None
        if self.pre_scale is not None:  # CSR: a kernel over the stored entries
            fused = fused_csr_gram(self.X, self.pre_scale, self.post_scale) if sparse \
                else fused_gram(self.X, self.pre_scale, self.post_scale, step)
        if fused is not None:
            top, column = fused
        else:
            top, column = self._gram_by_numpy(step)
        if self.intercept_scaling is None:
            return top
        b = self.intercept_scaling
        out = np.empty((d + 1, d + 1))
        out[:d, :d] = top
        out[:d, d] = out[d, :d] = b * column
        out[d, d] = b * b * self.shape[0]
        return out

    def _gram_by_numpy(self, step):
        """:meth:`gram`'s sums without the intercept column, block by block in numpy."""
        d = self.X.shape[1]
        top, column = np.zeros((d, d)), np.zeros(d)
        product = np.empty((d, d))
        buffer = np.empty((min(step, self.shape[0]), d))
        sparse = sp.issparse(self.X)
        for start in range(0, self.shape[0], step):
            stop = min(start + step, self.shape[0])
            rows = buffer[:stop - start]
            X = self.X[start:stop] if not sparse else _csr_row_view(
                self.X, slice(start, stop)).toarray()
            if self.pre_scale is not None:
                np.multiply(X, self.pre_scale[start:stop, None], out=rows)
            else:
                rows[...] = X
            rows *= self.post_scale[start:stop, None]
            np.matmul(rows.T, rows, out=product)
            top += product
            column += rows.sum(axis=0)
        return top, column

    def toarray(self):
        """The materialised float64 matrix (for tests and small problems only)."""
        X = self.X.toarray() if sp.issparse(self.X) else np.asarray(self.X)
        X = X.astype(np.float64)
        if self.pre_scale is not None:
            X = X * self.pre_scale[:, None]
        X = X * self.post_scale[:, None]
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
        residual, scaled = post_scaled(design.post_scale, residual, design.X.dtype)
        with np.errstate(over="ignore", invalid="ignore"):  # only a non-finite residual
            top = np.asarray(
                _transposed_product(design._scaled_rows(), scaled, design._kept_transpose()),
                dtype=np.float64,
            )
        if design.intercept_scaling is None:
            return top
        bottom = design.intercept_scaling * residual.sum(axis=0)
        return np.concatenate([top, np.atleast_1d(bottom)[None] if top.ndim == 2 else [bottom]])


def fused_gradient_sum(method, coef, design, y):
    """``method(coef, design, y)`` by the fused kernel, or None when it does not apply.

    Applies when ``method`` is the ``gradient_sum`` of an object that names a kernel of
    :data:`skdpgd._data._fused.KERNELS` in its ``fused_kernel`` attribute (with its
    residual clip in ``fused_residual_clip``; a loss that names none, or whose
    ``gradient_sum`` a subclass overrode, gets the numpy path), ``design`` is a
    :class:`ClippedDesign` over a dense C-contiguous float64 or float32 array, coef is a
    vector, and the kernels are available. Returns a float64 array of coef's shape. The
    choice reads public declarations only, never the type of the loss or the data.
    """
    owner = getattr(method, "__self__", None)
    if getattr(method, "__name__", None) != "gradient_sum" or owner is None:
        return None
    kernel = getattr(owner, "fused_kernel", None)
    if kernel is None or not isinstance(design, ClippedDesign):
        return None
    coef = np.asarray(coef, dtype=np.float64)
    if coef.ndim != 1:
        return None
    has_intercept = design.intercept_scaling is not None
    w = coef[:-1] if has_intercept else coef
    pre = np.ones(design.shape[0]) if design.pre_scale is None else design.pre_scale
    result = fused_gradient(
        kernel, float(owner.fused_residual_clip), design.X, pre, design.post_scale,
        np.asarray(y, dtype=np.float64), np.ascontiguousarray(w),
        float(coef[-1]) if has_intercept else 0.0,
        design.intercept_scaling if has_intercept else 0.0,
    )
    if result is None:
        return None
    out, total_r = result
    if not has_intercept:
        return out
    return np.concatenate([out, [design.intercept_scaling * total_r]])
