r"""Per-row maps applied before training: clipping to public bounds, intercept column.

Clipping a row to a public norm bound is a function of that row alone, so it costs no
privacy; it is what makes the loss constants hold for every data set
(docs/theory.md#row-clipping):

.. math::

    x \leftarrow x \cdot \min\!\left(1, \frac{R}{\|x\|}\right), \qquad
    y \leftarrow \mathrm{clip}(y, -B, B), \qquad
    \tilde x = (x, b), \ \|\tilde x\| \le \tilde R = \sqrt{R^2 + b^2}.

Dense arrays and scipy CSR matrices are both handled; a sparse input gives a CSR output.

**One formula for every row.** A finite row may be huge (``[1.2e308, -1.2e308]``): its
sum of squares overflows and :math:`R/\|x\|` is subnormal or 0. Rather than detect such
rows and treat them apart (a branch whose cost would reveal that the data hold one), every
row is written :math:`x = (p\,x)/p` with a power of two :math:`p = 2^{-e}` that brings its
largest entry below 4 (:func:`power_of_two_scales`; exact, since scaling by a power of two
only shifts exponents), and

.. math::

    \mathrm{clip}_R(x) = q\,(p\,x), \qquad
    q = \min\!\left(\frac1p,\ \frac{R}{\|p\,x\|}\right),

because :math:`\min(1, R/\|x\|) = p \min(1/p, R/(p\|x\|))` and :math:`p\|x\| = \|p\,x\|`.
Every intermediate is finite for every finite row (:math:`\|p\,x\| < 4\sqrt d`, and
:math:`\|p\,x\| \ge 1/2` whenever the second term is the minimum, so :math:`q \le 2R`), and
a row inside the bound gets :math:`q = 1/p`, so :math:`q\,(p\,x) = x` exactly. The fit's
design (:class:`skdpgd._data._design.ClippedDesign`) keeps the two per-row factors and applies
them inside its products; the steps are the same for every row.
"""

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_finite_norms", "clip_rows", "clip_targets", "clipped_values",
    "clipping_factors", "power_of_two_scales", "row_norms", "scaled_row_norms",
]

#: The refusal of a row holding NaN or infinity. It names no row, no count and no value
#: (each would be a statistic of the private data: see the privacy model page).
NON_FINITE_MESSAGE = (
    "X has non-finite values (NaN or infinity). skdpgd does not say where: a row index or "
    "a count would describe the private data. Replace them before fitting: impute with a "
    "public constant (e.g. sklearn.impute.SimpleImputer(strategy='constant', fill_value=0.0)), "
    "drop the incomplete rows, or encode the column with skdpgd.preprocessing "
    "(PublicOneHotEncoder encodes listed missing markers as all zeros)."
)


def _positive_bound(name, value):
    value = float(value)
    if not (np.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive finite public bound, got {value!r}.")
    return value


def _row_sums_sparse(X, values):
    """Per-row sums of ``values`` (aligned with ``X.data``) for a CSR matrix X."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return np.bincount(rows, weights=values, minlength=X.shape[0])


def exponent_cap(dtype):
    r"""The largest exponent e used by :func:`power_of_two_scales` for an X of ``dtype``.

    :math:`e_{\max} = \texttt{maxexp} - 2` (1022 for float64, 126 for float32): then
    :math:`2^{-e}` is a normal number of that dtype (so it is exact, and no
    flush-to-zero mode can turn it into 0), and a finite entry, below
    :math:`2^{\texttt{maxexp}}`, times :math:`2^{-e_{\max}}` is below 4.
    Non-float dtypes are treated as float64.
    """
    dtype = np.dtype(dtype)
    info = np.finfo(dtype if dtype.kind == "f" else np.float64)
    return int(info.maxexp) - 2


def power_of_two_scales(peak, cap):
    r"""Per row :math:`p = 2^{-e}` with :math:`e = \min(\max(e(m), 0), e_{\max})`.

    :math:`e(m)` is the binary exponent of the row's largest magnitude m
    (:math:`m = f\,2^{e(m)}`, :math:`f \in [1/2, 1)`, ``numpy.frexp``), so the pre-scaled
    row :math:`u = p\,x` has :math:`\max_j |u_j| < 4`, and below 1 when e is clamped at 0
    (rows whose largest entry is below 1 are not scaled). A power of two scales exactly:
    :math:`p\,x_j` is :math:`x_j` with a shifted exponent, and a product or sum of
    pre-scaled numbers is the unscaled one times the power of two, bit for bit, unless
    an entry is too small to stay normal. ``nan`` and ``inf`` give ``p = 1``.

    Parameters
    ----------
    peak : ndarray of float64
        :math:`\max_j |x_j|` of every row.
    cap : int
        :math:`e_{\max}` (:func:`exponent_cap`).

    Returns
    -------
    pre : ndarray of float64, powers of two in :math:`[2^{-e_{\max}}, 1]`
    """
    _, exponent = np.frexp(np.asarray(peak, dtype=np.float64))
    return np.ldexp(1.0, -np.clip(exponent, 0, int(cap)))


def scaled_row_norms(X):
    r"""Per row, the power of two :math:`p` of :func:`power_of_two_scales` and
    :math:`\|p\,x\|`, for a dense 2-D array or a CSR matrix of any float dtype.

    The same operations for every row, whatever its values: the row's largest magnitude,
    its power of two, and the norm of the pre-scaled row :math:`u = p\,x`. Every finite
    row, however large, gets a finite :math:`\|u\| \in [1/2, 4\sqrt d)` (or below
    :math:`\sqrt d` when :math:`p = 1`), and :math:`\|x\| = \|u\|/p` exactly up to
    rounding; a row holding NaN or infinity gets ``nan`` or ``inf``
    (:func:`check_finite_norms` refuses those). The pre-scaling is what makes the row's
    own magnitude irrelevant: no sum of squares can overflow, so no row is ever computed
    twice or differently (a "redo" branch for large rows would show in the fit's time).

    Returns
    -------
    pre : ndarray of float64 of shape (n_samples,)
    scaled_norm : ndarray of float64 of shape (n_samples,)
    """
    cap = exponent_cap(X.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        if sp.issparse(X):
            n_rows = X.shape[0]
            counts = np.diff(X.indptr)
            magnitude = np.append(np.abs(X.data.astype(np.float64, copy=False)), 0.0)
            peak = np.zeros(n_rows)
            if n_rows:  # the appended 0 makes every start a valid index (empty rows)
                peak = np.maximum.reduceat(magnitude, X.indptr[:-1].astype(np.intp))
                peak = np.where(counts > 0, peak, 0.0)
            pre = power_of_two_scales(peak, cap)
            scaled = X.data * np.repeat(pre, counts)
            scaled_norm = np.sqrt(_row_sums_sparse(X, scaled * scaled))
        else:
            X = np.asarray(X)
            peak = np.max(np.abs(X), axis=1, initial=0.0)  # NaN propagates
            pre = power_of_two_scales(peak, cap)
            scaled = X * pre[:, None]  # float64 (pre is), exact
            scaled_norm = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return pre, scaled_norm


def clipping_factors(pre, scaled_norm, max_norm):
    r"""The post-scale :math:`q = \min(1/p,\ R/\|p\,x\|)` of every row.

    The clipped row is :math:`\mathrm{clip}_R(x) = x \min(1, R/\|x\|) = q\,(p\,x)`:
    multiply :math:`\min(1, R/\|x\|)` by :math:`1/p` inside the minimum and use
    :math:`\|x\|/\ldots = \|p x\|/(p \ldots)`. Every factor is finite for every
    finite row: :math:`1/p \le 2^{e_{\max}}` and, when the minimum is the second term,
    :math:`\|p\,x\| \ge 1/2` so :math:`q \le 2R`. A row with :math:`\|x\| \le R`
    (rows of norm 0 included) gets :math:`q = 1/p`, so :math:`q\,(p\,x) = x` exactly.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.minimum(1.0 / pre, float(max_norm) / scaled_norm)


def row_norms(X):
    r"""Euclidean norm of every row of a dense 2-D array or a CSR matrix.

    Computed as :math:`\|p\,x\|/p` (:func:`scaled_row_norms`), the same operations for
    every row: a finite row gets its norm, finite whenever it is representable; a finite
    row whose norm exceeds the largest float (e.g. ``[1.7e308, 1.7e308]``) gets ``inf``,
    and a row holding NaN or infinity gets NaN (callers refuse those).
    """
    pre, scaled_norm = scaled_row_norms(X)
    with np.errstate(over="ignore", invalid="ignore"):  # a norm above the largest float is inf
        return np.where(np.isfinite(scaled_norm), scaled_norm / pre, np.nan)


def check_finite_norms(norms):
    r"""Refuse X if a row holds NaN or infinity.

    ``norms`` are the :func:`scaled_row_norms` (finite exactly for the finite rows) or the
    :func:`row_norms` of rows whose norms are representable. The test is one reduction
    over every row (:math:`\sum_i 0 \cdot \|x_i\|` is NaN exactly when some norm is not
    finite), so its cost does not depend on where, or whether, a bad row is.

    Raises
    ------
    ValueError
        Saying that X has non-finite values and how to fix it, without a row index, a
        count of rows or a value (:data:`NON_FINITE_MESSAGE`).
    """
    with np.errstate(invalid="ignore"):
        total = np.sum(np.asarray(norms, dtype=np.float64) * 0.0)
    if not np.isfinite(total):
        raise ValueError(NON_FINITE_MESSAGE)


def clipped_values(rows, max_norm):
    r"""The clipped value :math:`R\, x / \|x\|` of rows whose norm exceeds R, in float64.

    Computed as :math:`q\,(p\,x)` (:func:`scaled_row_norms`, :func:`clipping_factors`):
    every intermediate is finite, so a finite row of any magnitude, even one whose norm
    overflows, gets its clipped value to rounding (``x * (R / ||x||)`` would lose its
    digits where ``R / ||x||`` is subnormal, or be 0 where the norm overflows).

    Parameters
    ----------
    rows : ndarray of shape (m, d) or CSR matrix
        Finite rows of norm above ``max_norm`` (any float dtype; not modified).
    max_norm : float
        R.

    Returns
    -------
    clipped : ndarray of float64 or CSR matrix of float64, shape (m, d)
    """
    pre, scaled_norm = scaled_row_norms(rows)
    factor = float(max_norm) / scaled_norm
    if sp.issparse(rows):
        rows = sp.csr_matrix(rows, dtype=np.float64, copy=True)
        counts = np.diff(rows.indptr)
        rows.data = rows.data * np.repeat(pre, counts) * np.repeat(factor, counts)
        return rows
    rows = np.asarray(rows, dtype=np.float64)
    return rows * pre[:, None] * factor[:, None]


def row_scale_factors(X, max_norm):
    r""":math:`\min(1, R/\|x\|)` of every row of a dense 2-D float array (finite rows).

    The factor :func:`clip_rows` applies, computed the same way (:func:`scaled_row_norms`,
    :func:`clipping_factors`: no sum of squares overflows, a row of norm at most R gets
    exactly 1), for a caller that scales something else with the row (its target:
    :func:`skdpgd.preprocessing.scale_rows_with_target`).
    """
    pre, norm = scaled_row_norms(np.asarray(X, dtype=np.float64))
    return clipping_factors(pre, norm, float(max_norm)) * pre


def clip_rows(X, max_norm):
    r"""Scale each row by :math:`\min(1, R/\|x\|)` so that every row has norm at most R.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or scipy sparse matrix
        Rows to clip. Not modified.
    max_norm : float
        The public bound R > 0 (``data_norm``).

    Returns
    -------
    X_clipped : ndarray of float64 or CSR matrix of float64
        A new array (CSR for sparse input, keeping the matrix/array flavour): rows of
        norm above R are replaced by :math:`R\,x/\|x\|`, computed as :math:`q\,(p\,x)`
        (:func:`scaled_row_norms`, :func:`clipping_factors`: on the sphere of radius R up
        to rounding, a few units in the last place, for every finite row, however large),
        the other rows, including rows of norm 0, are copied unchanged. Every row goes
        through the same operations, so the time taken does not depend on which rows are
        clipped.

    Raises
    ------
    ValueError
        If ``max_norm`` is not positive and finite, X is not 2-D, or a row contains
        NaN or infinity (its norm would be undefined).

    Notes
    -----
    A per-row map, so it costs no privacy (see the theory page, "Public constants"). For
    CSR input the scale of each row is applied to its stored entries in ``X.data``
    (duplicates are summed first so the norm is that of the matrix the CSR represents).
    """
    max_norm = _positive_bound("max_norm", max_norm)
    if sp.issparse(X):
        X = X.tocsr(copy=True).astype(np.float64, copy=False)
        X.sum_duplicates()
    else:
        X = np.array(X, dtype=np.float64, copy=True)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}.")
    pre, scaled_norm = scaled_row_norms(X)
    check_finite_norms(scaled_norm)
    post = clipping_factors(pre, scaled_norm, max_norm)
    keep = post == 1.0 / pre  # norm <= R: the row as it is (q p x = x, but exactly)
    # The same operations on every row (clipped or not), so the time does not tell
    # which rows were above the bound.
    if sp.issparse(X):  # same sparsity pattern, same entry order
        counts = np.diff(X.indptr)
        scaled = X.data * np.repeat(pre, counts) * np.repeat(post, counts)
        X.data = np.where(np.repeat(keep, counts), X.data, scaled)
        return X
    return np.where(keep[:, None], X, X * pre[:, None] * post[:, None])


def clip_targets(y, bound):
    """Clip regression targets to the public interval [-B, B] (a new float64 array)."""
    bound = _positive_bound("bound", bound)
    return np.clip(np.asarray(y, dtype=np.float64), -bound, bound)
