r"""The utility proxy's error recursion, compiled: every direction updated in place, step by step.

The proxy (:mod:`skdpgd.solvers._utility`) propagates, in every direction of the public
spectral model (and every quadrature node of the Gram noise), the impulse response of
:math:`e_{k+1} = a e_k + b e_{k-1} - \sqrt q Z_k`:

.. math::

    \phi_0 = 1,\quad \phi_{-1} = 0,\quad \phi_k = a\phi_{k-1} + b\phi_{k-2},\qquad
    E e_k = \phi_k + b\phi_{k-1},\quad \mathrm{Var}\,e_k = q\sum_{i<k}\phi_i^2

(:func:`~skdpgd.solvers._utility.error_moments`, docs/theory.md#predicted-utility). Two
reductions of it are needed: the moments at a few step counts K
(:func:`impulse_moments`, the predictions of :func:`~._utility.predicted_excess_losses`)
and, for the preconditioned planner's table, the worst case over the spectrum of each
step's weighted terms (:func:`worst_over_spectrum`). Numpy steps all directions together,
one temporary array per operation and step; the kernels here update each direction in
place, a loop over independent directions that the compiler vectorises. They do the same
IEEE operations in the same order as the numpy reference (``*_reference``; no fast-math,
no fused multiply-add), so both give the same floats, bit for bit (tested). A planning
heuristic from public numbers only: it plays no part in any privacy claim.

The kernels are compiled by numba the first time they are used and cached on disk (as
:mod:`skdpgd._data._fused`'s). They run once numba is imported (by the data kernels of an
earlier fit, or by the caller); a planning alone never starts numba, whose first call in a
process costs about half a second (a fit on sparse data, or the first fit of a process,
which plans before its data kernels start, plans in numpy: a few milliseconds more). Then,
or with :data:`ENABLED` False, the numpy reference runs: the same floats.
"""

import sys

import numpy as np

__all__ = ["ENABLED", "available", "impulse_moments", "minimax_pair", "minimax_sum",
           "worst_over_spectrum", "worst_pair"]

#: Use the compiled kernels once numba is imported (set False to force numpy).
ENABLED = True

_KERNELS = None


def impulse_response(a, b, n_steps):
    r"""Yield :math:`(\phi_k, \phi_{k-1}, \sum_{i<k}\phi_i^2)` for k = 1..``n_steps``
    (module docstring; numpy, all directions at once; the arrays are updated in place by
    the next step)."""
    phi, phi_prev, total = np.ones(a.shape), np.zeros(a.shape), np.zeros(a.shape)
    for _ in range(int(n_steps)):
        total += phi * phi
        phi, phi_prev = a * phi + b * phi_prev, phi
        yield phi, phi_prev, total


def _moments(a, b, steps, means, totals, phi, prev, total):
    n = a.shape[0]
    phi[:], prev[:], total[:] = 1.0, 0.0, 0.0
    s = 0
    for k in range(1, steps[steps.shape[0] - 1] + 1):
        for j in range(n):  # independent directions: vectorised
            p = phi[j]
            total[j] += p * p
            phi[j] = a[j] * p + b[j] * prev[j]
            prev[j] = p
        if k == steps[s]:
            for j in range(n):
                means[s, j] = phi[j] + b[j] * prev[j]
                totals[s, j] = total[j]
            s += 1


def _worst(a, b, weight_opt, weight_noise, weight_flat, worst_opt, worst_noise, phi, prev,
           total, flat):
    # transposed: a, b of shape (1 + grid, rows), the weights (grid, rows), the results
    # (steps, rows); the rows are independent (vectorised), the max over g is taken one
    # column at a time; phi, prev, total (rows,) and flat (steps, rows) are work space
    columns, rows = a.shape
    n_steps = worst_opt.shape[0]
    for j in range(columns):
        phi[:], prev[:], total[:] = 1.0, 0.0, 0.0
        for k in range(n_steps):
            if j == 0:  # g = 0: its variance enters every direction's noise term
                for i in range(rows):
                    p = phi[i]
                    total[i] += p * p
                    phi[i] = a[0, i] * p + b[0, i] * prev[i]
                    prev[i] = p
                    flat[k, i] = total[i]
                    worst_opt[k, i] = -np.inf
                    worst_noise[k, i] = -np.inf
                continue
            for i in range(rows):
                p = phi[i]
                t = total[i] + p * p
                total[i] = t
                bi = b[j, i]
                q = a[j, i] * p + bi * prev[i]
                phi[i], prev[i] = q, p
                mean = bi * p + q
                value = mean * mean * weight_opt[j - 1, i]
                worst = worst_opt[k, i]  # numpy's max: NaN wins
                worst_opt[k, i] = value if worst == worst and (value > worst or value != value) \
                    else worst
                value = t * weight_noise[j - 1, i] + flat[k, i] * weight_flat[j - 1, i]
                worst = worst_noise[k, i]
                worst_noise[k, i] = value if worst == worst and (
                    value > worst or value != value) else worst


def _pairs(c, a, b):
    worst = -np.inf
    for i in range(c.shape[0]):
        for j in range(i, c.shape[0]):  # (i, j) and (j, i) give the same float
            a_pair, b_pair = a[i] + a[j], b[i] + b[j]
            kept = a_pair * a_pair / b_pair if b_pair > 0.0 else 0.0
            value = 0.5 * (c[i] + c[j] - kept)
            if worst == worst and (value > worst or value != value):  # numpy's max
                worst = value
    return worst


def _minimax_pair(c, a, b, extra):
    worst = -np.inf
    for i in range(c.shape[1]):
        for j in range(i, c.shape[1]):  # (i, j) and (j, i) give the same float
            least = np.inf
            for r in range(c.shape[0]):
                a_pair, b_pair = a[r, i] + a[r, j], b[r, i] + b[r, j]
                kept = a_pair * a_pair / b_pair if b_pair > 0.0 else 0.0
                value = 0.5 * (c[r, i] + c[r, j] - kept) + extra[r]
                if value != value:  # numpy's min: NaN wins
                    least = value
                    break
                least = min(least, value)
            if worst == worst and (least > worst or least != least):  # numpy's max
                worst = least
    return worst


def _minimax_sum(bias, opt, noise, extra):
    worst = -np.inf
    for i in range(opt.shape[1]):
        for j in range(noise.shape[1]):
            least = np.inf
            for r in range(opt.shape[0]):
                value = bias[r] + (opt[r, i] + noise[r, j]) + extra[r]
                if value != value:
                    least = value
                    break
                least = min(least, value)
            if worst == worst and (least > worst or least != least):
                worst = least
    return worst


def _compile():
    import numba

    jit = numba.njit(nogil=True, cache=True)  # IEEE arithmetic: no fast-math
    return jit(_moments), jit(_worst), jit(_pairs), jit(_minimax_pair), jit(_minimax_sum)


def available():
    """True if the compiled kernels run here: :data:`ENABLED` and numba already imported
    (module docstring)."""
    global _KERNELS
    if not ENABLED or "numba" not in sys.modules:
        return False
    if _KERNELS is None:
        _KERNELS = _compile()
    return True


def impulse_moments(a, b, steps):
    r""":math:`\phi_K + b\phi_{K-1}` and :math:`\sum_{i<K}\phi_i^2` (module docstring) at each
    K of ``steps``.

    Parameters
    ----------
    a, b : array_like
        The recursion's coefficients per direction (broadcast together).
    steps : sequence of int
        The step counts K >= 1 wanted, strictly increasing (else ValueError).

    Returns
    -------
    means, totals : ndarray of shape (len(steps),) + the broadcast shape
        The mean :math:`E e_K` and :math:`\mathrm{Var}\,e_K / q` at each K.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    steps = np.asarray(steps, dtype=np.int64)
    if steps.ndim != 1 or not steps.size or steps[0] < 1 or np.any(np.diff(steps) <= 0):
        raise ValueError("steps must be increasing step counts >= 1.")
    if not available():
        return impulse_moments_reference(a, b, steps)
    means, totals = np.empty((2, steps.size, *a.shape))
    _KERNELS[0](np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1),
                steps, means.reshape(steps.size, -1), totals.reshape(steps.size, -1),
                *np.empty((3, a.size)))
    return means, totals


def impulse_moments_reference(a, b, steps):
    """:func:`impulse_moments` in numpy, all directions at once (the kernel's reference)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    means, totals = np.empty((2, len(steps), *a.shape))
    place = {int(k): s for s, k in enumerate(steps)}
    for k, (phi, phi_prev, total) in enumerate(impulse_response(a, b, max(place)), 1):
        if k in place:
            means[place[k]], totals[place[k]] = phi + b * phi_prev, total
    return means, totals


def worst_over_spectrum(a, b, weight_opt, weight_noise, weight_flat, n_steps):
    r"""Per row and step, the worst case over the spectrum of the proxy's two terms.

    Row i holds directions g = 0 (column 0) and the grid (columns 1..): at each
    k = 1..``n_steps``, :math:`\max_j w^{o}_{ij}(\phi_k + b\phi_{k-1})_{ij}^2` and
    :math:`\max_j [w^{n}_{ij} S_{ij} + w^{f}_{ij} S_{i0}]`, S the sum of squares
    (module docstring), NaN winning as in numpy's ``max``.

    Parameters
    ----------
    a, b : ndarray of shape (rows, 1 + grid)
        The recursion's coefficients.
    weight_opt, weight_noise, weight_flat : ndarray of shape (rows, grid)
        :math:`w^o`, :math:`w^n` and :math:`w^f`.
    n_steps : int
        K.

    Returns
    -------
    worst_opt, worst_noise : ndarray of shape (n_steps, rows)
    """
    if not available():
        return worst_over_spectrum_reference(a, b, weight_opt, weight_noise, weight_flat,
                                             n_steps)
    arrays = [np.ascontiguousarray(np.asarray(x, dtype=float).T)
              for x in (*np.broadcast_arrays(a, b), weight_opt, weight_noise, weight_flat)]
    worst_opt, worst_noise, flat = np.empty((3, int(n_steps), a.shape[0]))
    _KERNELS[1](*arrays, worst_opt, worst_noise, *np.empty((3, a.shape[0])), flat)
    return worst_opt, worst_noise


def worst_over_spectrum_reference(a, b, weight_opt, weight_noise, weight_flat, n_steps):
    """:func:`worst_over_spectrum` in numpy, all directions at once (the kernel's
    reference)."""
    a, b = np.broadcast_arrays(a, b)
    worst_opt, worst_noise = np.empty((2, int(n_steps), a.shape[0]))
    opt, noise = np.empty(weight_opt.shape), np.empty(weight_noise.shape)
    # one step's arrays stay in cache
    for k, (phi, phi_prev, total) in enumerate(impulse_response(a, b, n_steps)):
        np.multiply(b[:, 1:], phi_prev[:, 1:], out=opt)
        opt += phi[:, 1:]  # the mean
        opt *= opt
        opt *= weight_opt
        opt.max(axis=1, out=worst_opt[k])
        np.multiply(total[:, 1:], weight_noise, out=noise)
        noise += total[:, :1] * weight_flat
        noise.max(axis=1, out=worst_noise[k])
    return worst_opt, worst_noise


def worst_pair(c, a, b):
    r""":math:`\max_{i,j} \frac12\big(c_i + c_j - \frac{(a_i + a_j)^2}{b_i + b_j}\big)`,
    the fraction taken as 0 where :math:`b_i + b_j \le 0`, NaN winning as in numpy's
    ``max`` (the worst pair of levels of
    :func:`~skdpgd.solvers._proxy_scores.scale_free_excess`).

    Parameters
    ----------
    c, a, b : ndarray of shape (grid,)

    Returns
    -------
    float
    """
    if not available():
        return worst_pair_reference(c, a, b)
    return float(_KERNELS[2](*(np.ascontiguousarray(x, dtype=float) for x in (c, a, b))))


def worst_pair_reference(c, a, b):
    """:func:`worst_pair` in numpy, every pair at once (the kernel's reference)."""
    a_pair, b_pair = a[:, None] + a[None, :], b[:, None] + b[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(b_pair > 0.0, a_pair * a_pair / b_pair, 0.0)
    return float(np.max(0.5 * (c[:, None] + c[None, :] - kept)))


def minimax_pair(c, a, b, extra):
    r""":math:`\max_{i \le j}\min_r \big[\frac12\big(c_{ri} + c_{rj} -
    \frac{(a_{ri} + a_{rj})^2}{b_{ri} + b_{rj}}\big) + e_r\big]`: over the pairs of levels
    of :func:`worst_pair`, the worst case of the best of several runs r (rows), each
    with its term :math:`e_r` added (``extra``); NaN wins as in numpy.

    Parameters
    ----------
    c, a, b : ndarray of shape (runs, grid)
    extra : ndarray of shape (runs,)

    Returns
    -------
    float
    """
    arrays = [np.ascontiguousarray(x, dtype=float) for x in (c, a, b, extra)]
    if not available():
        return minimax_pair_reference(*arrays)
    return float(_KERNELS[3](*arrays))


def minimax_pair_reference(c, a, b, extra):
    """:func:`minimax_pair` in numpy, every pair at once (the kernel's reference)."""
    a_pair, b_pair = a[:, :, None] + a[:, None, :], b[:, :, None] + b[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(b_pair > 0.0, a_pair * a_pair / b_pair, 0.0)
    values = 0.5 * (c[:, :, None] + c[:, None, :] - kept) + extra[:, None, None]
    return float(np.max(np.min(values, axis=0)))


def minimax_sum(bias, opt, noise, extra):
    r""":math:`\max_{i, j}\min_r \big[\beta_r + (o_{ri} + n_{rj}) + e_r\big]`: the
    worst case over the levels of the optimum (i) and of the noise (j) of the best of
    several runs r (a regressor's proxy, :func:`~skdpgd.solvers._utility.predicted_excess_losses`);
    NaN wins as in numpy.

    Parameters
    ----------
    bias, extra : ndarray of shape (runs,)
    opt, noise : ndarray of shape (runs, grid)

    Returns
    -------
    float
    """
    arrays = [np.ascontiguousarray(x, dtype=float) for x in (bias, opt, noise, extra)]
    if not available():
        return minimax_sum_reference(*arrays)
    return float(_KERNELS[4](*arrays))


def minimax_sum_reference(bias, opt, noise, extra):
    """:func:`minimax_sum` in numpy, every pair at once (the kernel's reference)."""
    values = bias[:, None, None] + (opt[:, :, None] + noise[:, None, :]) + extra[:, None, None]
    return float(np.max(np.min(values, axis=0)))
