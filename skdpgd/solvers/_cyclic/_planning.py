r"""Planning noisy GD on l cyclic batches (l = 1: ``solver="gd"``): the plain-step proxy,
the planner's grid and the planner.

docs/theory.md#calibration, step 3. The plan of ``solver="gd"`` (one batch) and
``solver="cyclic"`` (:mod:`skdpgd.solvers._cyclic`). Three parts, in this order:

* **The plain-step proxy** (:func:`utility_proxy`, :func:`optimisation_error`): the
  worst-case excess loss of full-batch noisy GD over quadratics, from public numbers only
  (not privacy maths); the SGD planner (:mod:`skdpgd.solvers._sgd`) reuses its
  optimisation term.
* **The grid** (:func:`grid_proxy`, :func:`grid_terms`): per batch size, every lam of the
  planner's grid, every step eta and every number of passes E = 1..max_epochs scored by

  .. math::

      U = \frac{\lambda r_0^2}{2} + \text{optimisation}(K = lE)
        + \frac{p\,\eta\,\sigma^2}{4} + \text{heterogeneity},\qquad
      \sigma = \frac{S\,h(E)}{b_{\min}\mu^*},

  :func:`utility_proxy` with the noise of bound (C), :math:`h(E)^2` the accountant's
  :func:`~skdpgd.accounting.calibration.cyclic_factors` (its one closed form). Neither the
  bias and optimisation terms nor h(E) depend on the target, n or the sensitivity: they
  are computed once per grid and kept, read-only, for the next search of the same grid.
  ``solver="auto"``'s second choice searches it again for the rest of its budget, and the
  folds of a search share it whatever their n.
* **The planner** (:func:`plan_noisy_cyclic_gd`): for every candidate run the noise that
  meets the target comes from the accountant's closed form of bound (C)
  (:func:`skdpgd.accounting.calibration.cyclic_factors`), the candidates are scored by
  the grid's proxy plus :func:`batch_heterogeneity`, the whole grid (lam x eta x E, per
  batch size) at once as numpy arrays with the target mu* computed once, and the winner's
  noise is calibrated exactly and conservatively by the accountant
  (:func:`~skdpgd.accounting.calibrate_noisy_cyclic_gd`).

A planning heuristic from public numbers only: it plays no part in any privacy claim (the
winner's noise is calibrated by the accountant).
"""

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from ...accounting import contraction_factor, cyclic_batch_sizes
from ...accounting.calibration import (
    calibrate_noisy_cyclic_gd,
    calibrate_noisy_gd,
    check_count,
    check_positive,
    convex_cyclic_squares,
    cyclic_factors,
    shift_ratio,
    target_mu_of,
)

__all__ = [
    "GRID_TERMS_KEPT",
    "GRID_TERMS_MAX_BYTES",
    "STEP_FRACTIONS",
    "NoisyCyclicGDPlan",
    "batch_heterogeneity",
    "clear_grid_terms",
    "grid_proxy",
    "grid_terms",
    "optimisation_error",
    "plan_noisy_cyclic_gd",
    "plan_noisy_cyclic_gd_regularization",
    "utility_proxy",
]

# --- the plain-step proxy of full-batch noisy GD, and the planner's step fractions ---

def optimisation_error(n_steps, *, learning_rate, strong_convexity, smoothness, initial_distance):
    r"""Worst-case optimisation error of K gradient steps from 0 over quadratics.

    For a quadratic whose curvatures h lie in [lam, beta] with the optimum at distance
    r0, the excess objective after K steps of size eta is at most

    .. math::

        \frac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h\,(1-\eta h)^{2K},

    attained by putting the whole of theta* on the worst curvature. The maximum is at an
    end of the interval or at the critical point :math:`h^* = 1/(\eta(2K+1))`, giving
    :math:`\approx r_0^2/(4 e \eta K)` (the O(1/K) rate of convex GD) until the
    :math:`\lambda`-contraction takes over. On a quadratic, gradient descent from 0
    multiplies the error in a direction of curvature h by :math:`(1 - \eta h)` per step,
    and that direction's excess objective is h/2 times the squared error
    (:ref:`calibration`, step 3). Vectorised over ``n_steps``. Planning only: it
    plays no part in any privacy claim.

    Parameters
    ----------
    n_steps : int or array-like of int
        K >= 0, the number of steps (broadcast against the other arguments).
    learning_rate : float or array-like of float
        eta > 0, the step size.
    strong_convexity : float or array-like of float
        lam >= 0, the smallest curvature of the objective.
    smoothness : float or array-like of float
        beta >= lam, the largest curvature of the objective.
    initial_distance : float
        r0, a public guess of the optimum's norm (the start is 0).

    Returns
    -------
    float or ndarray of float
        :math:`\frac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h\,|1-\eta h|^{2K}`, with the
        broadcast shape of the arguments.
    """
    k = np.asarray(n_steps, dtype=float)
    eta, lam, beta = (np.asarray(x, dtype=float)
                      for x in (learning_rate, strong_convexity, smoothness))

    def worst(h):  # the power as exp(2K log|1 - eta h|) (numpy's pow is not vectorised)
        with np.errstate(divide="ignore", invalid="ignore"):
            exponent = 2.0 * k * np.log(np.abs(1.0 - eta * h))
        return h * np.exp(np.where(np.isnan(exponent), 0.0, exponent))  # 0^0 = 1 at K = 0

    critical = np.clip(1.0 / (eta * (2.0 * k + 1.0)), lam, beta)
    # a step beyond 2 / beta diverges: the error is +inf, a value (the caller refuses such
    # a fixed learning_rate with its own message), not a floating-point accident to report
    with np.errstate(over="ignore"):
        return 0.5 * float(initial_distance) ** 2 * np.maximum(
            np.maximum(worst(lam), worst(beta)), worst(critical)
        )


def utility_proxy(
    n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness, initial_distance
):
    r"""Public proxy for the excess (unregularised) loss of the released iterate.

    .. math::

        U = \underbrace{\tfrac{\lambda}{2} r_0^2}_{\text{regularisation bias}}
          + \underbrace{\tfrac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h(1-\eta
          h)^{2K}}_{\text{optimisation}} + \underbrace{\tfrac{p\,\eta\,\sigma^2}{4}}_{\text{noise}}

    :ref:`calibration`, step 3, with each term a worst case over quadratic objectives whose
    curvatures lie in [lam, beta]: the bias term is the classical bound
    :math:`L(\theta^*_\lambda) - L(\theta^*_0) \le \frac{\lambda}{2}\|\theta^*_0\|^2`; the
    optimisation term is :func:`optimisation_error` (it refines the textbook
    :math:`\frac{\beta}{2}c^{2K}r_0^2`, which pairs the largest curvature with the slowest
    contraction, a combination no quadratic attains); the noise term is the stationary
    excess loss of noisy GD, :math:`p\,\eta\sigma^2/(2(2-\eta h)) \le p\,\eta\sigma^2/4`
    per direction of curvature h <= 1/eta, whatever the curvature. ``r0``
    (``initial_distance``) is a public guess of the optimum's norm and ``p`` the number
    of parameters. Vectorised over ``n_steps`` / ``noise_std``. Planning only: it plays
    no part in any privacy claim.

    Parameters
    ----------
    n_steps : int or array-like of int
        K >= 0, the number of steps.
    noise_std : float or array-like of float
        sigma >= 0, the noise on the averaged gradient (broadcast against ``n_steps``).
    n_params : int
        p, the number of parameters.
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the L2 regularisation (the smallest curvature of the objective).
    smoothness : float
        beta >= lam, the smoothness of the objective.
    initial_distance : float
        r0, a public guess of the optimum's norm (the start is 0).

    Returns
    -------
    float or ndarray of float
        U, with the broadcast shape of ``n_steps`` and ``noise_std``.

    Raises
    ------
    ValueError
        When eta, lam or beta is out of range (:func:`~skdpgd.accounting.contraction_factor`
        validates them).
    """
    contraction_factor(learning_rate, strong_convexity, smoothness)  # validates
    return _proxy(n_steps, noise_std, n_params=n_params, learning_rate=learning_rate,
                  strong_convexity=strong_convexity, smoothness=smoothness,
                  initial_distance=initial_distance)


def _proxy(n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness,
           initial_distance):
    """:func:`utility_proxy` without its checks, elementwise in K, sigma, eta, lam, beta."""
    optimisation = optimisation_error(
        n_steps, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness, initial_distance=initial_distance,
    )
    noise = n_params * learning_rate * np.asarray(noise_std, dtype=float) ** 2 / 4.0
    return 0.5 * strong_convexity * float(initial_distance) ** 2 + optimisation + noise


#: Step sizes the planner tries, as fractions of 2/(beta + lam). The largest minimises
#: the contraction factor (less noise) but leaves the top-curvature direction oscillating
#: at the same slow rate; a slightly smaller step damps it at a small privacy cost.
STEP_FRACTIONS = (1.0, 0.95, 0.9, 0.8, 0.65, 0.5)


# --- the planner's grid: its proxy at every (lam, eta, E), from terms kept for reuse ---


#: How many grids are kept, and the largest kept (bytes of both terms; at most 8 MiB in
#: all): auto's grids (21 lams x 6 steps x 50 passes, 100 KB) are, a full-batch search
#: over 1000 passes is not.
GRID_TERMS_KEPT, GRID_TERMS_MAX_BYTES = 32, 1 << 18

#: The kept terms, most recent last.
_KEPT: OrderedDict[tuple, tuple] = OrderedDict()
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
        The operations of :func:`utility_proxy` in its order, plus the
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

    :math:`\lambda r_0^2/2 +` :func:`optimisation_error` at K = l E, and
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


# --- the planner ---



@dataclass(frozen=True)
class NoisyCyclicGDPlan:
    """Run parameters chosen by :func:`plan_noisy_cyclic_gd` (all public), and the proxy value.

    It is also the plan the ``"gd"`` and ``"cyclic"`` solvers run (``solver`` and ``notes``
    set by the solver): the planner's answer is passed down whole, not copied.

    Parameters
    ----------
    batch_size : int
        The smallest batch size b of the cyclic partition (n for full batch).
    n_batches : int
        The number of batches l per pass.
    n_epochs : int
        The number of passes E; the run takes K = l E steps.
    noise_std : float
        The noise scale sigma of each step (calibrated to the target).
    learning_rate : float
        The step size eta.
    strong_convexity : float
        lam, the L2 regularisation (strong convexity of the objective).
    smoothness : float
        beta, the smoothness of the objective.
    contraction : float
        c = max(abs(1 - eta lam), abs(1 - eta beta)), the contraction of one step.
    utility_proxy : float
        The planner's predicted excess loss of the run.
    solver : object, default=None
        The solver that runs the plan (set by the solver).
    notes : tuple of str, default=()
        Notes the solver adds to the report.
    projection_radius : float, default=inf
        r, the radius of the public ball every iterate is projected onto (set by the
        solver, :func:`~skdpgd.solvers._base.projection_radius`; ``inf``: none).
    """

    batch_size: int
    n_batches: int
    n_epochs: int
    noise_std: float
    learning_rate: float
    strong_convexity: float
    smoothness: float
    contraction: float
    utility_proxy: float
    solver: object = None
    notes: tuple = ()
    projection_radius: float = math.inf

    @property
    def n_steps(self):
        """K = l E."""
        return self.n_batches * self.n_epochs


def batch_heterogeneity(learning_rate, *, gradient_bound, batch_size, n_samples):
    r"""Proxy term for the error of using one batch's gradient instead of the full one.

    .. math::

        \frac{\eta}{4}\,V_b, \qquad V_b = G^2\,\frac{n - b}{b\,(n - 1)},

    where :math:`V_b` bounds the variance of the mean of b per-example gradients drawn
    without replacement from n vectors of norm at most G (the finite-population
    correction), and :math:`\eta V/4` is the stationary excess loss of a gradient method
    with step eta and gradient noise of total variance V (the same rule as the noise
    term of :func:`utility_proxy`; :ref:`predicted-utility`, "Mini-batches"). It
    is a planning heuristic, used only to choose public run parameters; it is 0 for full
    batches (b = n) and plays no part in any privacy claim.

    Parameters
    ----------
    learning_rate : float or array-like of float
        eta > 0, the step size (the result has its shape).
    gradient_bound : float
        G >= 0, a bound on the norm of a per-example gradient.
    batch_size : int
        b in [1, n], the batch size (the smallest batch of a cyclic partition).
    n_samples : int
        n, the number of rows.

    Returns
    -------
    float or ndarray of float
        :math:`\eta V_b / 4` (0 when b >= n), a float for a scalar ``learning_rate``.
    """
    b, n = float(batch_size), float(n_samples)
    eta = np.asarray(learning_rate, dtype=float)
    if b >= n:
        term = np.zeros(eta.shape)
    else:
        term = eta * float(gradient_bound) ** 2 * (n - b) / (b * (n - 1.0)) / 4.0
    return float(term) if term.ndim == 0 else term


def _search_cyclic(target_mu, *, sensitivity, gradient_bound, n_samples, n_params, beta_l,
                   lams, learning_rate, r0, max_epochs, batch_sizes, each=False, budgets=None,
                   diameters=None):
    r"""(proxy, lam, E, eta, b, h(E)) of the best run over the whole grid (h(E) the square
    root of bound (C)'s factor there: the candidate's closed-form noise is
    :math:`S\,h(E)/(b_{\min}\mu^*)`).

    For every lam, every step (:data:`STEP_FRACTIONS` of 2/(beta + lam), or the fixed
    one), every batch size and E = 1..max_epochs the noise meeting the target under bound
    (C), :math:`\sigma = S\,h(E)/(b_{\min}\mu^*)`, and the cyclic proxy are evaluated at
    once (arrays of shape (lam, eta, E)). The winner: for each lam the smallest
    (proxy, E, eta, b) in that order, then the first lam with the smallest proxy.
    ``each``: a dict with the winner of every batch size b and every compute budget B of
    ``budgets`` (default: ``max_epochs``; E <= B), keyed (b, B), instead
    (``solver="auto"``'s cyclic candidates). ``diameters`` (one per lam, ``inf`` for none):
    the diameter D of each lam's projection ball, whose bounded-domain factor joins h(E)'s
    minimum (:func:`~skdpgd.accounting.convex_cyclic_squares`, as the accountant does).
    """
    lam = np.asarray(lams, dtype=float)[:, None]  # (L, 1)
    beta = beta_l + lam
    if learning_rate is None:
        etas = np.asarray(STEP_FRACTIONS)[None, :] * 2.0 / (beta + lam)  # (L, F)
    else:
        etas = np.full(lam.shape, float(learning_rate))
    contraction = np.maximum(np.abs(1.0 - etas * lam), np.abs(1.0 - etas * beta))
    epochs = np.arange(1, max_epochs + 1)
    budgets = sorted({int(budget) for budget in budgets or (max_epochs,)})
    shape = (*etas.shape, len(batch_sizes), len(budgets))
    proxies, best_epochs = np.full(shape, np.inf), np.ones(shape, dtype=int)
    roots = np.full(shape, np.nan)
    # every term but the bias lam r0^2 / 2 is >= 0: the smaller half of the lams is scored
    # first, and of the others only those whose bias does not exceed the best value found
    # for that batch size and each budget (the rest are larger everywhere, at every E <= B:
    # the winners are those of the grid)
    first = lam[:, 0] <= np.median(lam)
    bias = 0.5 * lam[:, 0] * r0**2
    diameter = (np.full(lam.shape, np.inf) if diameters is None
                else np.asarray(diameters, dtype=float).reshape(lam.shape))
    for j, b in enumerate(batch_sizes):
        sizes = cyclic_batch_sizes(n_samples, b)
        n_batches, b_min = len(sizes), int(sizes.min())
        for rows in (first, None):
            if rows is None:
                rows = ~first & (bias <= proxies[:, :, j].min(axis=(0, 1)).max())
            if not rows.any():
                continue
            proxy, root = grid_proxy(
                contraction[rows], etas[rows], lam[rows], beta[rows],
                batch_heterogeneity(etas[rows], gradient_bound=gradient_bound,
                                    batch_size=b_min, n_samples=n_samples),
                epochs=epochs, n_batches=n_batches, sensitivity=sensitivity,
                denominator=b_min * target_mu, r0=r0, n_params=n_params, return_root=True,
                convex=_convex_roots(diameter[rows], etas[rows], epochs, n_batches=n_batches,
                                     size=b_min, sensitivity=sensitivity))
            for t, budget in enumerate(budgets):
                best = np.argmin(proxy[:, :, :budget], axis=2)  # the first of equal values
                # the minimum is the value at the first minimiser (NaN: both the first NaN)
                proxies[rows, :, j, t] = proxy[:, :, :budget].min(axis=2)
                best_epochs[rows, :, j, t] = epochs[best]
                roots[rows, :, j, t] = np.take_along_axis(root, best[:, :, None], axis=2)[..., 0]
    if each:
        return {(b, budget): _winner(proxies[:, :, [j], t], best_epochs[:, :, [j], t],
                                     roots[:, :, [j], t], lam, etas, [b])
                for j, b in enumerate(batch_sizes) for t, budget in enumerate(budgets)}
    # every lam was scored against its own batch size's best, a superset of the rows that
    # a common best keeps: the whole grid's winner, by the same order
    return _winner(proxies[..., -1], best_epochs[..., -1], roots[..., -1], lam, etas,
                   batch_sizes)


def _convex_roots(diameter, etas, epochs, *, n_batches, size, sensitivity):
    """The bounded-domain factor at every (row, step, E), or None where no row has a ball."""
    if sensitivity == 0.0 or not np.isfinite(diameter).any():
        return None
    ratio = shift_ratio(diameter=diameter, size=size, sensitivity=sensitivity,
                        learning_rate=etas)
    return np.sqrt(convex_cyclic_squares(n_batches, epochs[None, None, :], ratio[:, :, None]))


def _winner(proxies, best_epochs, roots, lam, etas, batch_sizes):
    """(proxy, lam, E, eta, b, h(E)) of :func:`_search_cyclic`'s order over (lam, eta, b)."""
    shape = proxies.shape
    flat = (-1, shape[1] * shape[2])
    keys = (np.broadcast_to(np.asarray(batch_sizes), shape).reshape(flat),
            np.broadcast_to(etas[:, :, None], shape).reshape(flat),
            best_epochs.reshape(flat), proxies.reshape(flat))
    pick = np.lexsort(keys, axis=-1)[:, 0]  # per lam: smallest (proxy, E, eta, b)
    rows = np.arange(len(lam))
    row = int(np.argmin(proxies.reshape(flat)[rows, pick]))  # the first lam of equal values
    f, j = divmod(int(pick[row]), shape[2])
    return (float(proxies[row, f, j]), float(lam[row, 0]), int(best_epochs[row, f, j]),
            float(etas[row, f]), int(batch_sizes[j]), float(roots[row, f, j]))


def plan_noisy_cyclic_gd(
    epsilon,
    delta,
    *,
    sensitivity,
    gradient_bound,
    n_samples,
    n_params,
    data_smoothness,
    strong_convexity,
    initial_distance,
    max_epochs,
    batch_sizes,
    learning_rate=None,
    n_epochs=None,
    calibrate=True,
    diameter=None,
):
    r"""Choose b, E, eta and sigma for cyclic mini-batch noisy GD under bound (C).

    For every candidate batch size b, step eta (:data:`STEP_FRACTIONS` of 2/(beta + lam)
    unless given) and number of epochs E = 1..``max_epochs`` (the compute budget, in
    passes over the data), the noise that meets the target under bound (C),
    :math:`\sigma = S\,h(E)/(b_{\min}\mu^*)`, is computed and the public proxy

    .. math::

        U = \text{utility\_proxy}(K = lE, \sigma)
          + \text{batch\_heterogeneity}(\eta, b_{\min})

    evaluated (:func:`utility_proxy`, :func:`batch_heterogeneity`); the best plan is kept
    and its noise calibrated exactly (:func:`calibrate_noisy_cyclic_gd`). With b = n
    this is full-batch noisy GD with K = E (``solver="gd"``). Everything used is public.

    Parameters
    ----------
    epsilon, delta : float
        Privacy target.
    sensitivity : float
        S, replace-one sensitivity of a per-example gradient.
    gradient_bound : float
        G, a bound on the norm of a per-example gradient (for the heterogeneity term).
    n_samples, n_params : int
        n and p.
    data_smoothness, strong_convexity : float
        beta_l and lam > 0 (the objective is (beta_l + lam)-smooth).
    initial_distance : float
        r0, public guess of ||theta*||.
    max_epochs : int
        Largest E considered.
    batch_sizes : sequence of int
        Candidate batch sizes b (each <= n).
    learning_rate : float, optional
        A fixed eta.
    n_epochs : int, optional
        A fixed number of epochs (``max_iter``): b, eta (and lam) are chosen as above and
        the noise is calibrated for E = ``n_epochs`` epochs.
    calibrate : bool, default=True
        False leaves ``noise_std`` at the closed form of bound (C),
        :math:`S\,h(E)/(b_{\min}\mu^*)`, before the accountant's conservative rounding
        (a candidate of a larger search, which calibrates its winner only).
    diameter : float, optional
        D of the ball the run projects onto: the bounded-domain bounds (Theorem 4.3, (F))
        join the minimum the noise is calibrated to.

    Returns
    -------
    NoisyCyclicGDPlan
        The chosen b (smallest batch), l, E, eta, lam, beta, contraction and proxy value,
        with the noise calibrated by :func:`calibrate_noisy_cyclic_gd` (nan when
        ``calibrate`` is False).
    """
    lam = check_positive("strong_convexity", strong_convexity, allow_zero=diameter is not None)
    beta_l = check_positive("data_smoothness", data_smoothness, allow_zero=True)
    return _plan_cyclic(
        epsilon, delta, lams=[lam], sensitivity=sensitivity, gradient_bound=gradient_bound,
        n_samples=n_samples, n_params=n_params, data_smoothness=beta_l,
        initial_distance=initial_distance, max_epochs=max_epochs, batch_sizes=batch_sizes,
        learning_rate=learning_rate, n_epochs=n_epochs, calibrate=calibrate,
        diameter_of=None if diameter is None else (lambda _: float(diameter)),
    )


def _plan_cyclic(epsilon, delta, *, lams, sensitivity, gradient_bound, n_samples, n_params,
                 data_smoothness, initial_distance, max_epochs, batch_sizes, learning_rate=None,
                 n_epochs=None, calibrate=True, each=False, budgets=None, diameter_of=None,
                 mu=None):
    """:func:`plan_noisy_cyclic_gd` over the grid ``lams`` (checked here, searched at once);
    ``each``: a dict of the plans of every batch size b and compute budget B of
    ``budgets`` (E <= B <= ``max_epochs``), keyed (b, B) (``solver="auto"``'s candidates).
    ``diameter_of(lam)``: the diameter D of the run's ball (None: no ball; lam = 0 needs
    one), whose bounded-domain bound joins the minimum. ``mu``: the target in mu instead
    (``epsilon`` None; :func:`~skdpgd.accounting.calibration.target_mu_of`)."""
    epsilon, delta, target_mu = target_mu_of(epsilon, delta, mu)
    lams = [check_positive("strong_convexity", lam, allow_zero=diameter_of is not None)
            for lam in lams]
    diameters = None if diameter_of is None else [
        math.inf if diameter_of(lam) is None else diameter_of(lam) for lam in lams]
    max_epochs = check_count("max_epochs", max_epochs)
    n = check_count("n_samples", n_samples)
    r0 = check_positive("initial_distance", initial_distance)
    gradient_bound = check_positive("gradient_bound", gradient_bound, allow_zero=True)
    batch_sizes = sorted({check_count("batch_size", b) for b in batch_sizes})
    if not batch_sizes:
        raise ValueError("batch_sizes must contain at least one batch size.")
    if learning_rate is not None:
        learning_rate = check_positive("learning_rate", learning_rate)
    found = _search_cyclic(
        target_mu, sensitivity=sensitivity, gradient_bound=gradient_bound, n_samples=n,
        n_params=n_params, beta_l=data_smoothness, lams=lams, learning_rate=learning_rate,
        r0=r0, max_epochs=max_epochs, batch_sizes=batch_sizes, each=each, budgets=budgets,
        diameters=diameters,
    )
    plans = {}
    for key, (proxy, lam, epochs, eta, batch_size, root) in (
            found if each else {0: found}).items():
        if n_epochs is not None and n_epochs != epochs:  # a fixed number: calibrated for it
            epochs, root = check_count("n_epochs", n_epochs), None
        beta = data_smoothness + lam
        sizes = cyclic_batch_sizes(n, batch_size)
        contraction = contraction_factor(eta, lam, beta)
        plan = NoisyCyclicGDPlan(batch_size, len(sizes), epochs, math.nan, eta, lam, beta,
                                 contraction, proxy)
        diameter = None if diameter_of is None else diameter_of(lam)
        if diameter is not None and not math.isfinite(diameter):
            diameter = None
        if calibrate:
            plan = _calibrate_cyclic(plan, epsilon, delta, sensitivity, n, diameter, mu=mu)
        elif target_mu == math.inf or sensitivity == 0:
            plan = replace(plan, noise_std=0.0)
        else:  # the closed form of bound (C) before the accountant's conservative rounding:
            # h(E) as the search computed it at this (lam, eta, E), or at a fixed E here
            if root is None:
                squares = float(cyclic_factors(contraction, len(sizes), np.array([epochs]))[0])
                if diameter is not None:
                    ratio = shift_ratio(diameter=diameter, size=int(sizes.min()),
                                        sensitivity=sensitivity, learning_rate=eta)
                    squares = min(squares, float(convex_cyclic_squares(len(sizes), epochs,
                                                                       ratio)))
                root = math.sqrt(squares)
            plan = replace(plan, noise_std=sensitivity * root / (int(sizes.min()) * target_mu))
        plans[key] = plan
    return plans if each else plans[0]


def _calibrate_cyclic(plan, epsilon, delta, sensitivity, n_samples, diameter=None, mu=None):
    """``plan`` with its noise calibrated by the accountant (once, for the winning plan):
    the one that reports it (bounds (A), (B) for one batch; (C), (F) else; ``diameter`` D
    of the ball, None without one; ``mu``: the target in mu, ``epsilon`` None)."""
    if plan.n_batches == 1:
        return replace(plan, noise_std=calibrate_noisy_gd(
            epsilon, delta, sensitivity=sensitivity, n_samples=n_samples,
            learning_rate=plan.learning_rate, strong_convexity=plan.strong_convexity,
            smoothness=plan.smoothness, n_steps=plan.n_epochs, diameter=diameter, mu=mu,
        ))
    return replace(plan, noise_std=calibrate_noisy_cyclic_gd(
        epsilon, delta, batch_size=plan.batch_size, sensitivity=sensitivity,
        n_samples=n_samples, learning_rate=plan.learning_rate,
        strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
        n_epochs=plan.n_epochs, diameter=diameter, mu=mu,
    ))


def plan_noisy_cyclic_gd_regularization(
    epsilon, delta, *, data_smoothness, strong_convexity_grid=None, **kwargs
):
    r"""Choose lam too: :func:`plan_noisy_cyclic_gd` on a log grid of lam, smallest proxy wins.

    The proxy of :func:`plan_noisy_cyclic_gd` (:ref:`calibration`, step 3) is
    minimised jointly over lam, b, eta and E, all candidates scored at once; its bias
    term :math:`\lambda r_0^2/2` and the contraction factor, hence the noise of bound (C),
    depend on lam. The default grid spans 1e-8 to 1 times beta_l (41 points, five per
    decade). ``solver="gd"`` and ``solver="cyclic"`` plan with ``C="auto"`` /
    ``alpha="auto"`` through it. Planning only: everything used is public.

    Parameters
    ----------
    epsilon : float
        Target epsilon > 0 (``inf``: no noise).
    delta : float
        Target delta in (0, 1).
    data_smoothness : float
        beta_l > 0, the smoothness of the data term; the objective is
        (beta_l + lam)-smooth.
    strong_convexity_grid : array-like of float, optional
        The candidate lam > 0; default ``beta_l * numpy.logspace(-8, 0, 41)``.
    **kwargs
        The other keyword arguments of :func:`plan_noisy_cyclic_gd` (``sensitivity``,
        ``gradient_bound``, ``n_samples``, ``n_params``, ``initial_distance``,
        ``max_epochs``, ``batch_sizes``, and optionally ``learning_rate``, ``n_epochs``,
        ``calibrate``), with the same meaning.

    Returns
    -------
    NoisyCyclicGDPlan
        The plan with the smallest proxy over the grid (the first lam of the grid on ties), its
        noise calibrated as in :func:`plan_noisy_cyclic_gd`.
    """
    beta_l = check_positive("data_smoothness", data_smoothness)
    if strong_convexity_grid is None:
        strong_convexity_grid = beta_l * np.logspace(-8, 0, 41)
    return _plan_cyclic(epsilon, delta, lams=np.asarray(strong_convexity_grid, dtype=float),
                        data_smoothness=beta_l, **kwargs)
