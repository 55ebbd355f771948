r"""Optional fused kernels: one read of each row per gradient, without the GIL.

For the scalar-output losses (binary logistic, Huber, squared) on a dense
:class:`~skdpgd._data._design.ClippedDesign`, the gradient sum of a row range is

.. math::

    g_w = \sum_i q_i\, r_i\, (p_i x_i), \qquad g_b = b \sum_i r_i, \qquad
    r_i = \rho\big(q_i\,((p_i x_i) \cdot w) + b\,\theta_b,\ y_i\big),

with the per-row power of two :math:`p_i` and post-scale :math:`q_i` of the clipping
(:math:`q_i (p_i x_i) = \mathrm{clip}_R(x_i)`, :mod:`skdpgd.utils._clipping`) and the loss's
clipped residual :math:`\rho` (binary logistic: :math:`\mathrm{clip}(\sigma(t) - y, -c, c)`;
Huber: :math:`\mathrm{clip}(t - y, -c, c)`; squared: :math:`t - y`), exactly the sum the
numpy path computes through ``X @ coef`` and ``X.T @ residual`` (see :mod:`skdpgd.losses`).
The numpy path reads each row twice (two products over the chunk); this kernel computes the
dot product, the residual and the update of one row while the row is in L1, and releases
the GIL for the whole chunk, so threads do not queue behind each other's numpy calls.

**The same steps for every row.** Each entry is multiplied by its row's :math:`p_i` as it
is read (so no product can overflow, whatever the row), and the kernel has no branch on
the data: no row is skipped or treated apart; both overflow-free forms of the logistic
function are computed and one is selected, and the residual is clipped by ``min`` and
``max`` (the only branch is on the loss, which is public). The time of a call depends on
the shape of the chunk only, up to the processor's own data-dependent latencies
(nanoseconds per row, e.g. in ``exp``). The multiplication by :math:`p_i` is a helper
compiled without fast-math flags, so that the compiler cannot reassociate it with the
rest of the product (``(x p) w`` into ``p (x w)``, which could overflow).

The kernels are compiled by numba (an optional dependency, ``pip install numba``: wheels
for every supported platform) the first time they are used and cached on disk; without
numba, or with :data:`ENABLED` False, the numpy path runs. Both give the same sums to
rounding (tested), and each is bit-identical across ``n_jobs`` (the chunking is the same;
a chunk is summed in row order).

The dot product is compiled with floating-point reassociation allowed (``fastmath`` with
``reassoc`` and ``contract`` only: no assumption about NaN or infinities), so that it is
vectorised; the result is deterministic for a given machine and build.
"""

import math

import numpy as np

from ..utils._clipping import exponent_cap

__all__ = ["ENABLED", "available", "fused_gradient_sum", "fused_row_factors"]

#: Use the fused kernels when numba is installed (set False to force the numpy path).
ENABLED = True

_KERNELS = None
_UNAVAILABLE = False

#: Residual kinds: binary logistic, clipped linear (Huber; squared with c = inf).
_LOGISTIC, _LINEAR = 0, 1


def _compile():
    import numba

    flags = {"reassoc", "contract"}

    @numba.njit(nogil=True, cache=True)  # no fast-math: a barrier to reassociation
    def prescaled(x, p):
        return np.float64(x) * p

    @numba.njit(nogil=True, cache=True, fastmath=flags)
    def kernel(X, pre, post, y, w, intercept, b, kind, clip, out):
        n, d = X.shape
        total_r = 0.0
        for i in range(n):
            p = pre[i]
            t = 0.0
            for j in range(d):
                t += prescaled(X[i, j], p) * w[j]
            t = post[i] * t + b * intercept
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
                out[j] += rq * prescaled(X[i, j], p)
        return total_r

    @numba.njit(nogil=True, cache=True, fastmath=flags)
    def factors(X, cap, pre, squares):
        n, d = X.shape
        for i in range(n):
            peak = 0.0
            for j in range(d):
                a = abs(np.float64(X[i, j]))
                peak = a if a > peak else peak
            exponent = math.frexp(peak)[1]
            exponent = min(max(exponent, 0), cap)
            p = math.ldexp(1.0, -exponent)
            total = 0.0
            for j in range(d):
                v = prescaled(X[i, j], p)
                total += v * v
            pre[i] = p
            squares[i] = total

    return kernel, factors


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


def _residual_kind(loss):
    """(kind, clip) for a supported loss, else None (by exact type: no subclass guesses)."""
    from ..losses import BinaryLogisticLoss, HuberLoss, SquaredLoss

    if type(loss) is BinaryLogisticLoss:
        return _LOGISTIC, float(loss.residual_clip)
    if type(loss) is HuberLoss:
        return _LINEAR, float(loss.residual_clip)
    if type(loss) is SquaredLoss:
        return _LINEAR, math.inf
    return None


def fused_gradient_sum(method, coef, design, y):
    """``method(coef, design, y)`` by the fused kernel, or None when it does not apply.

    Applies when ``method`` is the ``gradient_sum`` of a supported loss, ``design`` is a
    :class:`~skdpgd._data._design.ClippedDesign` over a dense C-contiguous float64 or float32
    array, and :func:`available`. Returns a float64 array of coef's shape.
    """
    from ._design import ClippedDesign

    loss = getattr(method, "__self__", None)
    if getattr(method, "__name__", None) != "gradient_sum" or loss is None:
        return None
    if not isinstance(design, ClippedDesign) or not isinstance(design.X, np.ndarray):
        return None
    X = design.X
    if X.dtype not in (np.float64, np.float32) or not X.flags.c_contiguous:
        return None
    kind = _residual_kind(loss)
    if kind is None or not available():
        return None
    coef = np.asarray(coef, dtype=np.float64)
    if coef.ndim != 1:
        return None
    has_intercept = design.intercept_scaling is not None
    w = coef[:-1] if has_intercept else coef
    intercept = float(coef[-1]) if has_intercept else 0.0
    b = design.intercept_scaling if has_intercept else 0.0
    y = np.asarray(y, dtype=np.float64)
    out = np.zeros(X.shape[1])
    pre = np.ones(X.shape[0]) if design.pre_scale is None else design.pre_scale
    total_r = _KERNELS[0](X, pre, design.post_scale, y, np.ascontiguousarray(w),
                          intercept, b, kind[0], kind[1], out)
    if not has_intercept:
        return out
    return np.concatenate([out, [b * total_r]])


def fused_row_factors(X):
    r"""Per row of a dense C-contiguous float64 or float32 X, the power of two
    :math:`p = 2^{-e}` of :func:`skdpgd.utils._clipping.power_of_two_scales` and the sum
    of squares :math:`\|p\,x\|^2`, accumulated in float64 in one read of each row (no
    float64 copy of a float32 X), or None when the kernel does not apply.

    The same steps for every row: the largest magnitude (NaN entries are passed over
    there, but give a NaN sum), its binary exponent, clamped to
    :math:`[0, e_{\max}]`, the pre-scaled sum of squares. A finite row gets a finite sum
    below :math:`16 d`; a row holding NaN or infinity gets NaN or inf, which the caller
    refuses.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.flags.c_contiguous:
        return None
    if X.dtype not in (np.float64, np.float32) or not available():
        return None
    pre, squares = np.empty(X.shape[0]), np.empty(X.shape[0])
    _KERNELS[1](X, exponent_cap(X.dtype), pre, squares)
    return pre, squares
