r"""The cyclic planner's grid: its proxy at every (lam, eta, E), from terms kept for reuse.

The planner of ``solver="gd"`` and ``"cyclic"`` (:mod:`._cyclic_planning`) scores, per
batch size, every lam of its grid, every step eta and every number of passes
E = 1..max_epochs by

.. math::

    U = \frac{\lambda r_0^2}{2} + \text{optimisation}(K = lE)
      + \frac{p\,\eta\,\sigma^2}{4} + \text{heterogeneity},\qquad
    \sigma = \frac{S\,h(E)}{b_{\min}\mu^*},

:func:`~._gd_planning.utility_proxy` with the noise of bound (C), :math:`h(E)^2` the
accountant's :func:`~skdpgd.accounting.calibration.cyclic_factors` (its one closed form).
Neither the bias and optimisation terms nor h(E) depend on the target, n or the
sensitivity: they are computed once per grid (:func:`grid_terms`) and kept, read-only,
for the next search of the same grid. ``solver="auto"``'s second choice searches it again
for the rest of its budget, and the folds of a search share it whatever their n. A
planning heuristic from public numbers only: it plays no part in any privacy claim (the
winner's noise is calibrated by the accountant).
"""

import threading
from collections import OrderedDict

import numpy as np

from ..accounting.calibration import cyclic_factors
from ._gd_planning import optimisation_error

__all__ = ["GRID_TERMS_KEPT", "GRID_TERMS_MAX_BYTES", "clear_grid_terms", "grid_proxy",
           "grid_terms"]

#: How many grids are kept, and the largest kept (bytes of both terms; at most 8 MiB in
#: all): auto's grids (21 lams x 6 steps x 50 passes, 100 KB) are, a full-batch search
#: over 1000 passes is not.
GRID_TERMS_KEPT, GRID_TERMS_MAX_BYTES = 32, 1 << 18

#: The kept terms, most recent last.
_KEPT = OrderedDict()
_LOCK = threading.Lock()


def grid_proxy(contraction, etas, lam, beta, heterogeneity, *, epochs, n_batches, sensitivity,
               denominator, r0, n_params, return_root=False, convex=None):
    r"""The cyclic proxy U at every (row, step, E): an array of shape (rows, F, E).

    Parameters
    ----------
    contraction, etas, heterogeneity : ndarray of shape (rows, F)
        c, eta and the batch heterogeneity term of each (lam, eta).
    lam, beta : ndarray of shape (rows, 1)
        lam and the smoothness beta of each row.
    epochs : ndarray of shape (E,)
        1..max_epochs.
    n_batches : int
        l.
    sensitivity, denominator : float
        S and :math:`b_{\min}\mu^*` (``inf`` for no target: sigma = 0).
    r0 : float
    n_params : int
    return_root : bool, default=False
        Also return h(E) at every point (the kept term: sigma is S h(E) / denominator).
    convex : ndarray of shape (rows, F, E), optional
        The bounded-domain factor of a run projected onto a ball (Theorem 4.3 or bound
        (F)): h(E) is then the smaller of the two (not kept: it depends on n and S).

    Returns
    -------
    ndarray of shape (rows, F, E)
        The operations of :func:`~._gd_planning.utility_proxy` in its order, plus the
        heterogeneity.
    root : ndarray of shape (rows, F, E), read-only
        h(E), with ``return_root``.
    """
    bias_and_optimisation, root = grid_terms(contraction, etas, lam, beta, epochs=epochs,
                                             n_batches=n_batches, r0=r0)
    if convex is not None:
        root = np.minimum(root, convex)
    sigmas = sensitivity * root / denominator
    noise = n_params * etas[:, :, None] * sigmas**2 / 4.0
    proxy = bias_and_optimisation + noise + heterogeneity[:, :, None]
    return (proxy, root) if return_root else proxy


def clear_grid_terms():
    """Forget the kept grid terms: the next search computes them afresh."""
    with _LOCK:
        _KEPT.clear()


def grid_terms(contraction, etas, lam, beta, *, epochs, n_batches, r0):
    r"""(bias + optimisation, h(E)) of the grid at every E, each of shape (rows, F, E).

    :math:`\lambda r_0^2/2 +` :func:`~._gd_planning.optimisation_error` at K = l E, and
    the square root of :func:`~skdpgd.accounting.calibration.cyclic_factors`. Pure
    functions of their public arguments, kept read-only for the next search of the same
    grid (module docstring).

    Parameters
    ----------
    contraction, etas : ndarray of shape (rows, F)
    lam, beta : ndarray of shape (rows, 1)
    epochs : ndarray of shape (E,)
        1..max_epochs.
    n_batches : int
        l.
    r0 : float

    Returns
    -------
    bias_and_optimisation, root : ndarray of shape (rows, F, E), read-only
    """
    key = (int(n_batches), float(r0), int(epochs[-1]), contraction.shape,
           contraction.tobytes(), etas.tobytes(), lam.tobytes(), beta.tobytes())
    with _LOCK:
        found = _KEPT.get(key)
        if found is not None:
            _KEPT.move_to_end(key)
            return found
    lam3, eta3, beta3 = lam[:, :, None], etas[:, :, None], beta[:, :, None]
    bias_and_optimisation = 0.5 * lam3 * float(r0) ** 2 + optimisation_error(
        n_batches * epochs, learning_rate=eta3, strong_convexity=lam3, smoothness=beta3,
        initial_distance=r0)
    root = np.sqrt(cyclic_factors(contraction[:, :, None], n_batches, epochs))
    found = (bias_and_optimisation, root)
    for term in found:
        term.flags.writeable = False
    if sum(term.nbytes for term in found) <= GRID_TERMS_MAX_BYTES:
        with _LOCK:
            _KEPT[key] = found
            while len(_KEPT) > GRID_TERMS_KEPT:
                _KEPT.popitem(last=False)
    return found
