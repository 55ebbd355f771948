r"""Optional fused kernels on raw arrays: one read of each row per pass, without the GIL.

Four compiled kernels, each called once per chunk of rows: the gradient sum of a
scalar-output loss (below), the row factors of the clipping with the finiteness check
(:func:`fused_row_factors`), the Gram pass (:func:`fused_gram`, which calls scipy's
BLAS from the kernel) and the Gram pass of a CSR matrix over its stored entries
(:func:`fused_csr_gram`). Called per chunk rather than per block, they let the fit's threads
run without queueing on the GIL.

For a scalar-output loss whose clipped residual is one of the kernels below, the gradient
sum of a dense row range is

.. math::

    g_w = \sum_i q_i\, r_i\, (p_i x_i), \qquad g_b = b \sum_i r_i, \qquad
    r_i = \rho\big(q_i\,((p_i x_i) \cdot w) + b\,\theta_b,\ y_i\big),

with the per-row power of two :math:`p_i` and post-scale :math:`q_i` of the clipping
(:math:`q_i (p_i x_i) = \mathrm{clip}_R(x_i)`, :mod:`skdpgd.utils._clipping`) and the
clipped residual :math:`\rho` named by the loss (:data:`KERNELS`): ``"logistic"``,
:math:`\mathrm{clip}(\sigma(t) - y, -c, c)` (binary logistic); ``"clipped_linear"``,
:math:`\mathrm{clip}(t - y, -c, c)` (Huber; squared with :math:`c = \infty`). This is
exactly the sum the numpy path computes through ``X @ coef`` and ``X.T @ residual`` (see
:mod:`skdpgd.losses`). This module works on arrays only and knows no loss: a loss
declares the name of its kernel (``fused_kernel``) and the design layer
(:func:`skdpgd._data._design.fused_gradient_sum`) passes that name here.
The numpy path reads each row twice (two products over the chunk); this kernel computes the
dot product, the residual and the update of one row while the row is in L1, and releases
the GIL for the whole chunk, so threads do not queue behind each other's numpy calls.

**The same steps for every row.** Each row is first multiplied by its :math:`p_i` into a
row buffer, :math:`u = p_i x_i` (every :math:`|u_j| < 4`, :mod:`skdpgd.utils._clipping`),
and only :math:`u` enters the dot product :math:`u \cdot w` and the update
:math:`g_w \mathrel{+}= (r_i q_i)\, u`, computed in that order: a product of the dot
product is at most :math:`4|w_j|` (it overflows only where :math:`w` itself is near the
largest float), and the row's term is :math:`\mathrm{fl}(\mathrm{fl}(r_i q_i)\, u_j)`, of
norm at most :math:`c R` up to rounding (:math:`|r_i| \le c`,
:math:`\|q_i u\| = \|\mathrm{clip}_R(x_i)\| \le R`), whatever finite values the row holds.
The kernel has no branch on the data: no row is skipped or treated apart; both
overflow-free forms of the logistic function are computed and one is selected, and the
residual is clipped by ``min`` and ``max`` (the only branch is on the kernel's name, which
is public). The time of a call depends on the shape of the chunk only, up to the
processor's own data-dependent latencies (nanoseconds per row, e.g. in ``exp``).

The kernels are compiled by numba (an optional dependency, ``pip install numba``: wheels
for every supported platform) the first time they are used and cached on disk; without
numba, or with :data:`ENABLED` False, the numpy path runs. Both give the same sums to
rounding (tested), and each is bit-identical across ``n_jobs`` (the chunking is the same;
a chunk is summed in row order).

**Where the compiler may reorder.** Only the dot product ``_dot`` (of :math:`u` and
:math:`w`, and :math:`u \cdot u` for the row factors) is compiled with floating-point
reassociation allowed (``fastmath`` with ``reassoc`` and ``contract`` only: no assumption
about NaN or infinities), so that its sum is vectorised; the result is deterministic for a
given machine and build. Everything else, the multiplication by :math:`p_i` and the update
included, is compiled with ``fastmath=False`` said explicitly (a numba function that leaves
it unset inherits its caller's flags), so the compiler must keep IEEE order there. The
buffer is the barrier: a reassociation flag on an instruction lets LLVM rewrite the
products that feed it. An earlier version multiplied by :math:`p_i` in a helper called
from the fast-math loops: the helper inherited the flags, and the update was compiled to
:math:`x\,(p\,(r q))`, where :math:`p\,r q` underflows to zero for a far row
(:math:`p = 2^{-1022}`) with a small residual; with ``fastmath=False`` on the helper,
LLVM still computed :math:`((r q)\,p)\,x` in a vectorised remainder loop. Here the
fast-math products read :math:`u` from memory, never the multiplication itself (LLVM's
pipeline does not forward a store in one loop to a load in another; the tests read the
compiled code: every fast-math multiplication takes two loads, and no fast-math
instruction reads a value computed without flags,
``tests/data/test_fused_kernel_far_rows.py``).
"""

import ctypes
import math

import numpy as np
import scipy.sparse as sp

from ..utils._clipping import exponent_cap

__all__ = [
    "ENABLED", "KERNELS", "available", "fused_csr_gram", "fused_gradient", "fused_gram",
    "fused_row_factors",
]

#: Use the fused kernels when numba is installed (set False to force the numpy path).
ENABLED = True

_KERNELS = None
_UNAVAILABLE = False

#: The kernels a loss may name (its ``fused_kernel``), and their residual kind in the
#: compiled loop: logistic, clipped linear (Huber; squared with c = inf).
KERNELS = {"logistic": 0, "clipped_linear": 1}


def _dot(u, w):
    t = 0.0
    for j in range(u.shape[0]):
        t += u[j] * w[j]
    return t


def _kernel(X, pre, post, y, w, intercept, b, kind, clip, out):
    n, d = X.shape
    u = np.empty(d)  # the pre-scaled row p x, stored: the barrier (module docstring)
    total_r = 0.0
    for i in range(n):
        p = pre[i]
        for j in range(d):
            u[j] = np.float64(X[i, j]) * p
        t = post[i] * _dot_jit(u, w) + b * intercept
        if kind == 0:  # public (the loss): sigma(t), its two overflow-free forms
            e = math.exp(-abs(t))
            positive, negative = 1.0 / (1.0 + e), e / (1.0 + e)  # both computed
            r = (positive if t >= 0.0 else negative) - y[i]
        else:
            r = t - y[i]
        r = min(max(r, -clip), clip)
        total_r += r
        rq = r * post[i]
        for j in range(d):
            out[j] += rq * u[j]
    return total_r


def _factors(X, bits, magnitude, shift, bias, start, stop, cap, max_norm, pre, post):
    d = X.shape[1]
    u = np.empty(d)
    total = 0.0
    for i in range(start, stop):
        peak = 0  # the largest magnitude's bit pattern: an integer maximum (vectorised)
        for j in range(d):
            b = bits[i, j] & magnitude
            peak = b if b > peak else peak
        exponent = (peak >> shift) - bias  # frexp's exponent of a normal peak
        exponent = min(max(exponent, 0), cap)
        p = math.ldexp(1.0, -exponent)
        for j in range(d):
            u[j] = np.float64(X[i, j]) * p
        norm = math.sqrt(_dot_jit(u, u))
        inverse, ratio = 1.0 / p, max_norm / norm  # numpy's error model: R / 0 = inf
        pre[i] = p
        post[i] = inverse if inverse <= ratio else ratio  # np.minimum: NaN stays NaN
        total += norm * 0.0
    return total


def _gram_rows(X, pre, post, step, syrk, top, column):
    n, d = X.shape
    block = np.empty((min(step, n), d))
    block_column = np.empty(d)
    lower, no_transpose = np.array([76], np.uint8), np.array([78], np.uint8)  # "L", "N"
    width, rows = np.array([d], np.int32), np.array([0], np.int32)
    one = np.array([1.0])
    for start in range(0, n, step):
        m = min(step, n - start)
        for j in range(d):
            block_column[j] = 0.0
        for i in range(m):
            p, q = pre[start + i], post[start + i]
            for j in range(d):
                v = (np.float64(X[start + i, j]) * p) * q
                block[i, j] = v
                block_column[j] += v
        rows[0] = m
        # Fortran's lower triangle of (block^T)(block^T)^T, the column-major view of the
        # C-ordered block: the upper triangle of block^T block, added to top (beta = 1)
        syrk(lower.ctypes, no_transpose.ctypes, width.ctypes, rows.ctypes, one.ctypes,
             block.ctypes, width.ctypes, one.ctypes, top.ctypes, width.ctypes)
        for j in range(d):
            column[j] += block_column[j]


def _csr_gram_rows(data, indices, indptr, pre, post, top, column):
    for i in range(indptr.shape[0] - 1):
        p, q = pre[i], post[i]
        for a in range(indptr[i], indptr[i + 1]):
            value = (np.float64(data[a]) * p) * q
            j = indices[a]
            column[j] += value
            for c in range(a, indptr[i + 1]):  # the upper triangle (indices sorted)
                top[j, indices[c]] += value * ((np.float64(data[c]) * p) * q)


#: The compiled dot product the kernels call (a module global, so that numba's on-disk
#: cache finds the kernels again in a new process: a kernel defined inside a function
#: closes over it, and such a closure is compiled afresh in every process).
_dot_jit = None

#: The fast-math flags of the one function compiled with them, :func:`_dot`.
FAST_FLAGS = frozenset({"reassoc", "contract"})


def _compile(cache=True):
    """Compile the kernels (module-level functions, cached on disk by numba).

    numba writes the cache next to this file (``__pycache__``) when that directory is
    writable, else in ``NUMBA_CACHE_DIR`` or the user's cache directory (numba's own
    fallback), so an installed, read-only package caches too. Every function but
    :func:`_dot` says ``fastmath=False`` explicitly: a numba function that leaves it
    unset inherits the flags of the function that calls it.
    """
    global _dot_jit
    import numba

    strict = numba.njit(nogil=True, cache=cache, fastmath=False)
    _dot_jit = numba.njit(nogil=True, cache=cache, fastmath=set(FAST_FLAGS))(_dot)
    divides = numba.njit(nogil=True, cache=cache, fastmath=False, error_model="numpy")
    return strict(_kernel), divides(_factors), strict(_gram_rows), strict(_csr_gram_rows)


def available():
    """True if the fused kernels can run here (numba importable and :data:`ENABLED`)."""
    global _KERNELS, _UNAVAILABLE
    if not ENABLED or _UNAVAILABLE:
        return False
    if _KERNELS is None:
        try:
            _KERNELS = _compile()
        except ImportError:
            _UNAVAILABLE = True
            return False
    return True


def fused_gradient(kernel, clip, X, pre, post, y, w, intercept, b):
    r"""The gradient sum of the row range X by the compiled kernel ``kernel`` (module
    docstring), or None when it does not apply.

    Applies when ``kernel`` is a name of :data:`KERNELS`, X a dense C-contiguous float64
    or float32 array and :func:`available`.

    Parameters
    ----------
    kernel : str or None
        The clipped residual's kernel name, as declared by the loss.
    clip : float
        c, the residual clip (``inf`` for none).
    X : ndarray of shape (n, d)
        The rows as stored (entries are pre-scaled as they are read).
    pre, post : ndarray of shape (n,), float64
        :math:`p_i` and :math:`q_i`.
    y : ndarray of shape (n,), float64
    w : ndarray of shape (d,), float64, C-contiguous
    intercept, b : float
        :math:`\theta_b` and the intercept column's value (both 0 for no intercept).

    Returns
    -------
    (g_w, total_r) : (ndarray of shape (d,), float) or None
        :math:`g_w` and :math:`\sum_i r_i` (so :math:`g_b = b \sum_i r_i`).
    """
    kind = KERNELS.get(kernel) if isinstance(kernel, str) else None
    if kind is None or not isinstance(X, np.ndarray) or not X.flags.c_contiguous:
        return None
    if X.dtype not in (np.float64, np.float32) or not available():
        return None
    out = np.zeros(X.shape[1])
    total_r = _KERNELS[0](X, pre, post, y, w, intercept, b, kind, clip, out)
    return out, total_r


def fused_row_factors(X, start, stop, max_norm, pre, post):
    r"""The clipping factors of rows ``start:stop`` of a dense C-contiguous float64 or
    float32 X, written into ``pre`` and ``post`` at those rows, in one read of each row
    (no float64 copy of a float32 X, no temporary); the sum :math:`\sum_i 0 \cdot
    \|p_i x_i\|` (0, or NaN exactly when some row holds NaN or infinity) is returned.
    None when the kernel does not apply.

    The same steps for every row: the binary exponent of the largest magnitude, clamped to
    :math:`[0, e_{\max}]`, the power of two :math:`p = 2^{-e}` of
    :func:`skdpgd.utils._clipping.power_of_two_scales`, the pre-scaled norm
    :math:`\|p\,x\|` accumulated in float64 (a finite row gets a finite norm below
    :math:`4 \sqrt d`), and :math:`q = \min(1/p,\ R/\|p\,x\|)` of
    :func:`skdpgd.utils._clipping.clipping_factors`, with numpy's division (:math:`R/0 =
    \infty`) and minimum (NaN stays NaN): the numpy path's factors (tested).

    The largest magnitude is found on the entries' bit patterns: with the sign bit masked
    off, the IEEE patterns of non-negative floats are ordered as the values, so an integer
    maximum (which the compiler vectorises, where a float maximum that must pass NaN over
    is not) gives the largest magnitude's pattern, and its exponent field less the bias is
    ``frexp``'s exponent wherever the clamp does not apply (a peak below 1/2, zero and
    subnormals included, gives an exponent <= 0, clamped to 0): the same p for every
    finite row, and the pass over X 1.8 times faster (2,000,000 x 100: 0.123 -> 0.069 s on
    one thread). A row holding NaN or infinity gets the largest exponent, clamped to
    :math:`e_{\max}`, and a NaN or infinite norm, which the caller refuses.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.flags.c_contiguous:
        return None
    if X.dtype not in (np.float64, np.float32) or not available():
        return None
    if X.dtype == np.float64:  # sign bit masked off; 52 fraction bits; frexp's bias 1022
        bits, magnitude, shift, bias = X.view(np.int64), np.int64(2**63 - 1), 52, 1022
    else:
        bits, magnitude, shift, bias = X.view(np.int32), np.int32(2**31 - 1), 23, 126
    return _KERNELS[1](X, bits, magnitude, shift, bias, int(start), int(stop),
                       exponent_cap(X.dtype), float(max_norm), pre, post)


_SYRK = None


def _blas_syrk():
    """scipy's BLAS ``dsyrk`` as a C function numba can call without the GIL, or None.

    Passed to the kernel as an argument, not read as a global: numba caches a kernel on
    disk only if it holds no function address, and the address differs in every process.
    """
    global _SYRK
    if _SYRK is None:
        try:
            from numba.extending import get_cython_function_address

            address = get_cython_function_address("scipy.linalg.cython_blas", "dsyrk")
        except (ImportError, ValueError):  # pragma: no cover - scipy always has it
            _SYRK = False
        else:
            pointer = ctypes.c_void_p
            _SYRK = ctypes.CFUNCTYPE(None, *[pointer] * 10)(address)
    return _SYRK or None


def fused_gram(X, pre, post, step):
    r""":math:`\sum_i \tilde x_i \tilde x_i^\top` and :math:`\sum_i \tilde x_i` of a dense
    C-contiguous float64 or float32 X, clipped, in one compiled call without the GIL; or
    None when the kernel does not apply (the caller then runs numpy).

    The Gram pass of :meth:`skdpgd._data._design.ClippedDesign.gram`, block by block of
    ``step`` rows: each block is written into one float64 buffer as
    :math:`(x_{ij} p_i)\, q_i` (the two products in that order, rounded as numpy rounds
    them: ``fastmath=False``), its column sums are added in row order, and its product is
    added to the sum by BLAS's symmetric rank-k update (scipy's ``dsyrk``, called from the
    kernel with :math:`\beta = 1`). The numpy path computes the same sums with the same
    operations per row; the products are grouped differently inside BLAS, so the two
    agree to float64 rounding (tested), not bit for bit. Bit-identical across ``n_jobs``
    all the same: a chunk's computation does not depend on the threads.

    One call per chunk instead of five numpy calls per block: on 16 threads the numpy
    path's calls queued on the GIL and the Gram pass of a 2,000,000 x 100 design scaled
    3.2x (``benchmarks/README.md``, "Multi-core scaling of the default fit").

    Returns
    -------
    (top, column) : (ndarray of shape (d, d), ndarray of shape (d,)) or None
        The exactly symmetric Gram matrix of the clipped rows and their column sums.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.flags.c_contiguous:
        return None
    if X.dtype not in (np.float64, np.float32) or not available():
        return None
    syrk = _blas_syrk()
    if syrk is None:  # scipy always has it (tested by patching it away)
        return None
    d = X.shape[1]
    top, column = np.zeros((d, d)), np.zeros(d)
    if X.shape[0]:
        _KERNELS[2](X, pre, post, int(step), syrk, top, column)
    upper = np.triu(top)
    return upper + np.triu(top, 1).T, column


def fused_csr_gram(X, pre, post):
    r""":meth:`skdpgd._data._design.ClippedDesign.gram`'s sums of a CSR X by one compiled
    call over its stored entries, or None when the kernel does not apply (then numpy).

    Applies to a CSR matrix of float64 or float32 values in canonical form (indices sorted
    and unique within each row, as the estimators' input checks make it). Each stored
    entry is clipped as :math:`\tilde x_{ia} = (x_{ia} p_i)\, q_i` (the dense kernel's two
    products, in that order), its column sum is added in row order, and
    :math:`\tilde x_{ia} \tilde x_{ic}` is added to entry :math:`(j_a, j_c)` of the upper
    triangle for every pair :math:`a \le c` of the row's entries: nnz(row)^2 / 2 products
    instead of the d^2 / 2 of the dense blocks that the numpy path makes of each chunk
    (one-hot Adult, 10% of the entries stored: 19.5 -> 4 ms). The numpy path sums the
    same products in another grouping (BLAS), so the two agree to rounding. Like the
    numpy path's, its time grows with the stored entries, which are data
    (``docs/privacy_model.md``, "Timing").

    Returns
    -------
    (top, column) : (ndarray of shape (d, d), ndarray of shape (d,)) or None
        The exactly symmetric Gram matrix of the clipped rows and their column sums.
    """
    if not sp.issparse(X) or X.format != "csr" or X.dtype not in (np.float64, np.float32):
        return None
    if not X.has_canonical_format or not available():
        return None
    d = X.shape[1]
    top, column = np.zeros((d, d)), np.zeros(d)
    _KERNELS[3](X.data, X.indices, X.indptr, pre, post, top, column)
    upper = np.triu(top)
    return upper + np.triu(top, 1).T, column
