r"""Optional fused gradient kernels: one read of each row per gradient, without the GIL.

For the scalar-output losses (binary logistic, Huber, squared) on a dense
:class:`~skdpgd._design.ClippedDesign`, the gradient sum of a row range is

.. math::

    g_w = \sum_i s_i\, r_i\, x_i, \qquad g_b = b \sum_i r_i, \qquad
    r_i = \rho\big(s_i\,(x_i \cdot w) + b\,\theta_b,\ y_i\big),

with the row scales :math:`s_i` of the clipping and the loss's clipped residual
:math:`\rho` (binary logistic: :math:`\mathrm{clip}(\sigma(t) - y, -c, c)`; Huber:
:math:`\mathrm{clip}(t - y, -c, c)`; squared: :math:`t - y`), exactly the sum the numpy
path computes through ``X @ coef`` and ``X.T @ residual`` (see :mod:`skdpgd.losses`). The
numpy path reads each row twice (two products over the chunk); this kernel computes the
dot product, the residual and the update of one row while the row is in L1, and releases
the GIL for the whole chunk, so threads do not queue behind each other's numpy calls.

Rows stored clipped (the far rows of the design, scale 0) are skipped by the kernel and
added by the numpy path from their stored values, so no lazy product of a huge row is
ever formed. The kernels are compiled by numba (an optional dependency,
``pip install numba``: wheels for every supported platform) the first time they are used
and cached on disk; without numba, or with :data:`ENABLED` False, the numpy path runs.
Both give the same sums to rounding (tested), and each is bit-identical across ``n_jobs``
(the chunking is the same; a chunk is summed in row order).

The dot product is compiled with floating-point reassociation allowed (``fastmath`` with
``reassoc`` and ``contract`` only: no assumption about NaN or infinities), so that it is
vectorised; the result is deterministic for a given machine and build.
"""

import math

import numpy as np

__all__ = ["ENABLED", "available", "fused_gradient_sum", "fused_row_squares"]

#: Use the fused kernels when numba is installed (set False to force the numpy path).
ENABLED = True

_KERNELS = None
_UNAVAILABLE = False

#: Residual kinds: binary logistic, clipped linear (Huber; squared with c = inf).
_LOGISTIC, _LINEAR = 0, 1


def _compile():
    import numba

    flags = {"reassoc", "contract"}

    @numba.njit(nogil=True, cache=True, fastmath=flags)
    def kernel(X, scale, y, w, intercept, b, kind, clip, out):
        n, d = X.shape
        total_r = 0.0
        for i in range(n):
            s = scale[i]
            if s == 0.0:  # stored clipped: summed by the numpy path
                continue
            t = 0.0
            for j in range(d):
                t += X[i, j] * w[j]
            t = s * t + b * intercept
            if kind == 0:
                if t >= 0.0:
                    p = 1.0 / (1.0 + math.exp(-t))
                else:
                    e = math.exp(t)
                    p = e / (1.0 + e)
                r = p - y[i]
            else:
                r = t - y[i]
            if r > clip:
                r = clip
            elif r < -clip:
                r = -clip
            total_r += r
            rs = r * s
            for j in range(d):
                out[j] += rs * X[i, j]
        return total_r

    @numba.njit(nogil=True, cache=True, fastmath=flags)
    def squares(X, out):
        n, d = X.shape
        for i in range(n):
            total = 0.0
            for j in range(d):
                v = np.float64(X[i, j])
                total += v * v
            out[i] = total

    return kernel, squares


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
    from .losses import BinaryLogisticLoss, HuberLoss, SquaredLoss

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
    :class:`~skdpgd._design.ClippedDesign` over a dense C-contiguous float64 or float32
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
    total_r = _KERNELS[0](X, design.row_scale, y, np.ascontiguousarray(w), intercept, b,
                      kind[0], kind[1], out)
    if design.far_rows is not None:  # the stored rows, from their clipped values
        far = ClippedDesign(design.far_values, np.ones(design.far_rows.size),
                            design.intercept_scaling)
        part = np.asarray(method(coef, far, y[design.far_rows]), dtype=np.float64)
        out += part[:-1] if has_intercept else part
        if has_intercept:
            total_r += part[-1] / b
    if not has_intercept:
        return out
    return np.concatenate([out, [b * total_r]])


def fused_row_squares(X):
    r""":math:`\sum_j x_{ij}^2` of every row of a dense C-contiguous float64 or float32 X,
    accumulated in float64 in one read of each row (no float64 copy of a float32 X), or
    None when the kernel does not apply. Overflow gives inf and a NaN or infinite entry
    gives NaN or inf: callers redo those rows with the overflow-safe
    :func:`skdpgd.utils._clipping.row_norms`.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.flags.c_contiguous:
        return None
    if X.dtype not in (np.float64, np.float32) or not available():
        return None
    out = np.empty(X.shape[0])
    _KERNELS[1](X, out)
    return out
