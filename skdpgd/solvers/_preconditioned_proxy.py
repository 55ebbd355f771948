r"""The preconditioned planner's utility proxy: U(K) for every momentum, lam and K at once.

:func:`preconditioned_utility_proxy` states the proxy (a public quadratic model of
Gram-preconditioned noisy GD); :func:`_search_tables` scores it, for the planner
(:mod:`skdpgd.solvers._preconditioned_planning`), for every setting, pair (momentum, lam)
and number of steps in one recursion (:func:`~skdpgd.solvers._utility.error_moments`),
reducing each step's moments over the spectrum as they come. A planning heuristic from
public numbers only: it plays no part in any privacy claim.
"""

import numpy as np

from ..accounting.calibration import check_count
from ._proxy_kernels import worst_over_spectrum

__all__ = ["SPECTRUM_GRID", "preconditioned_utility_proxy"]


#: Points of the log grid of Gram eigenvalues (relative to Rt^2) the proxy maximises over.
SPECTRUM_GRID = np.logspace(-8.0, 0.0, 121)


def _recursion(eigenvalues, *, margin, curvature, strong_convexity, learning_rate, momentum):
    r"""(a, b, q, h) of the error recursion in each direction.

    The recursion of :func:`preconditioned_utility_proxy`.

    ``eigenvalues``, ``strong_convexity`` and ``momentum`` broadcast together (the planner
    passes columns of lam and beta against a row of eigenvalues): h the curvature,
    :math:`e_{k+1} = a e_k + b e_{k-1} - \sqrt q Z_k` the step for unit noise std, whose
    moments :func:`~._utility.error_moments` yields; the proxy's
    :math:`O_g(K) = \frac h2 (E e_K)^2` and :math:`N_g(K) = \frac h2 \mathrm{Var}(e_K)`.
    """
    g = np.asarray(eigenvalues, dtype=float)
    lam, beta = np.asarray(strong_convexity, dtype=float), np.asarray(momentum, dtype=float)
    h = curvature * g + lam
    p = curvature * (g + margin) + lam
    r = np.minimum(learning_rate * h / p, 1.0)
    a, b = (1.0 - r) * (1.0 + beta), -(1.0 - r) * beta
    return a, b, (learning_rate / p) ** 2, np.broadcast_to(h, a.shape)


def preconditioned_utility_proxy(
    max_steps, unit_noise_std, *, margin, curvature, strong_convexity, learning_rate, momentum,
    n_params, initial_distance, row_norm, n_outputs=1,
):
    r"""Public proxy for the excess loss after K = 1..max_steps preconditioned noisy steps.

    The preconditioner is :math:`P = c\,(\tilde G + mI)_+ + \lambda I`
    (:class:`skdpgd.optim._preconditioned.GramPreconditioner`; c the loss's curvature bound, m
    the margin of :func:`~skdpgd.solvers._preconditioned_planning.gram_noise_margin`) and the
    noise std of a K-step run is
    :math:`\sigma_K = \sqrt K\,\sigma_1` (``unit_noise_std`` is :math:`\sigma_1`, composition).
    The proxy takes the quadratic model in which P is exact up to the margin: in an
    eigendirection of G with eigenvalue g the curvature is :math:`h = c g + \lambda` and P's
    eigenvalue :math:`p = c(g + m) + \lambda`. With :math:`r = \eta h/p \le 1` and momentum
    beta, the error :math:`e_k = \theta_k - \theta_*` of the step of
    :func:`skdpgd.optim._preconditioned.preconditioned_noisy_gradient_descent` follows

    .. math::

        e_{k+1} = (1 - r)\big((1+\beta) e_k - \beta e_{k-1}\big) - \frac{\eta\sigma_K}{p} Z_k,

    a 2x2 linear recursion whose mean and variance are propagated exactly: the excess loss
    in that direction after K steps is :math:`\theta_*^2 O_g(K) + \sigma_K^2 N_g(K)`, with
    :math:`O_g = \frac h2 e_K^2` (from :math:`e_0 = e_{-1} = 1`) and
    :math:`N_g = \frac h2 \mathrm{Var}(e_K)` per unit noise (:func:`_recursion`). For
    beta = 0 these are :math:`\frac h2(1-r)^{2K}` and
    :math:`\frac{\eta}{2p}\,\frac{1-(1-r)^{2K}}{2-r}`.

    The spectrum of G is private; the proxy takes the worst case over what is public.
    Every row has :math:`\|\tilde x\| \le \tilde R`, so :math:`\mathrm{tr}\,G \le \tilde R^2`
    and at most :math:`t_g = \min(p_{\mathrm{params}}, k\tilde R^2/g)` parameter directions
    (k outputs) have eigenvalue g; the optimum has norm r0, spread evenly over the
    directions (the assumption of :func:`skdpgd.linear_model._defaults.initial_distance`):

    .. math::

        U(K) = \frac\lambda2 r_0^2
          + \frac{r_0^2}{p_{\mathrm{params}}} \max_g t_g O_g(K)
          + \sigma_K^2 \max_g \big[t_g N_g(K) + (p_{\mathrm{params}} - t_g) N_0(K)\big],

    the maxima over a log grid of g in :math:`[10^{-8}, 1]\,\tilde R^2`. It is a planning
    heuristic from public numbers only and plays no part in any privacy claim. Its weak
    point is r0: the optimal K grows like r0 (noise ~ K, optimisation ~ r0^2/K), so a
    guess below the optimum's true norm plans too few steps (measured in
    ``benchmarks/optimizer_study.py``). It is also invariant under
    :math:`(m, \sigma_1) \to (a m, a \sigma_1)` once t_g saturates nowhere, so it does not
    pin down the Gram share: the planner takes the share as given.

    Returns
    -------
    proxy : ndarray of shape (max_steps,)
        U(K) for K = 1..max_steps.
    """
    max_steps = check_count("max_steps", max_steps)
    table = _proxy_table(
        max_steps, float(unit_noise_std), margin=float(margin), curvature=float(curvature),
        lams=np.array([float(strong_convexity)]), momenta=np.array([float(momentum)]),
        learning_rate=float(learning_rate), n_params=int(n_params),
        initial_distance=float(initial_distance), row_norm=float(row_norm),
        n_outputs=int(n_outputs),
    )
    return table[:, 0]


def _proxy_table(max_steps, sigma1, *, margin, curvature, lams, momenta, learning_rate,
                 n_params, initial_distance, row_norm, n_outputs):
    """U(K) of :func:`preconditioned_utility_proxy` for every pair (lams[i], momenta[i]):
    an array of shape (max_steps, len(lams)), one recursion for all of them."""
    worst_opt, worst_noise = _worst_terms(
        max_steps, margin=margin, curvature=curvature, lams=lams, momenta=momenta,
        learning_rate=learning_rate, n_params=n_params, initial_distance=initial_distance,
        row_norm=row_norm, n_outputs=n_outputs,
    )
    return _combine(worst_opt, worst_noise, sigma1, lams, initial_distance)


def _combine(worst_opt, worst_noise, sigma1, lams, r0):
    """U(K) from the two worst-case terms of :func:`_worst_terms` and sigma_1."""
    sigma2 = np.arange(1, worst_opt.shape[0] + 1)[:, None] * np.asarray(sigma1) ** 2
    return 0.5 * lams[None, :] * r0 * r0 + worst_opt + sigma2 * worst_noise


def _worst_terms(max_steps, *, margin, curvature, lams, momenta, learning_rate, n_params,
                 initial_distance, row_norm, n_outputs):
    r"""The proxy's worst cases over the spectrum, each of shape (max_steps, len(lams)):
    :math:`\frac{r_0^2}{p}\max_g t_g O_g(K)` and
    :math:`\max_g [t_g N_g(K) + (p - t_g) N_0(K)]` per unit noise."""
    rt2 = row_norm**2
    g = np.concatenate([[0.0], rt2 * SPECTRUM_GRID])[None, :]  # column 0: g = 0
    a, b, q, h = _recursion(
        g, margin=margin, curvature=curvature, strong_convexity=lams[:, None],
        learning_rate=learning_rate, momentum=momenta[:, None],
    )
    count = np.minimum(float(n_params), n_outputs * rt2 / g[:, 1:])
    r0 = initial_distance
    # the weights of each direction, folded once: r0^2/p t_g h/2 (optimisation), t_g q h/2
    # and (p - t_g) q_0 h_0/2 (noise); each step's moments are reduced over g as they come
    half = 0.5 * h
    weight_opt = r0 * r0 / n_params * count * half[:, 1:]
    weight_noise = count * (q * half)[:, 1:]
    weight_flat = (n_params - count) * (q * half)[:, :1]
    # error_moments with q = 1 (the variance is the sum of squares), each step's moments
    # reduced over g as they come
    worst_opt, worst_noise = worst_over_spectrum(a, b, weight_opt, weight_noise, weight_flat,
                                                 max_steps)
    return worst_opt, worst_noise


def _search_tables(max_steps, sigma1s, margins, *, pairs, noisy, initial_distance,
                   budgets=None, **kwargs):
    """:func:`_proxy_table` of every setting (``sigma1s[i]``, ``margins[i]``) over ``pairs``
    (momentum, lam), all scored in one recursion; the pairs that cannot win left at +inf.

    Every term of the proxy but the bias is >= 0, so U >= lam r0^2 / 2 for every K. The
    pairs with the smaller half of the lams are scored first; a pair of the others whose
    bias exceeds the best value of its setting is larger than that setting's minimum at
    every K and is not scored (the minimum and its place are those of the full table). A
    noiseless plan compares sums over K: every pair is scored. ``budgets[i]``: setting i
    is searched over K <= budgets[i] only (default ``max_steps``; the pruning uses the
    best value there, and the rows beyond are left to the caller). Returns an array of shape
    (settings, max_steps, pairs); each column is computed alone (bit for bit the same
    whatever the other columns).
    """
    lams = np.array([lam for _, lam in pairs])
    momenta = np.array([beta for beta, _ in pairs])
    sigma1s, margins = np.asarray(sigma1s, dtype=float), np.asarray(margins, dtype=float)
    r0 = initial_distance
    budgets = [max_steps] * len(margins) if budgets is None else budgets
    tables = np.full((len(margins), max_steps, len(pairs)), np.inf)
    first = lams <= np.median(lams) if noisy else np.ones(len(pairs), dtype=bool)
    chosen = np.broadcast_to(first, (len(margins), len(pairs)))
    for phase in ("first", "rest"):
        if phase == "rest":  # unless its bias (the same float as the table's) loses
            best = np.array([table[:budget].min() for table, budget in zip(tables, budgets)])
            chosen = ~first & (0.5 * lams * r0 * r0 <= best[:, None])
        settings, columns = np.nonzero(chosen)
        if not settings.size:
            continue
        # settings with the same margin share the recursion (sigma_1 enters after it):
        # each distinct (margin, pair) is scored once
        keys, inverse = np.unique(np.stack([margins[settings], columns]), axis=1,
                                  return_inverse=True)
        unique_columns = keys[1].astype(int)
        worst_opt, worst_noise = _worst_terms(
            max_steps, margin=keys[0][:, None], lams=lams[unique_columns],
            momenta=momenta[unique_columns], initial_distance=r0, **kwargs,
        )
        inverse = inverse.ravel()
        tables[settings, :, columns] = _combine(
            worst_opt[:, inverse], worst_noise[:, inverse], sigma1s[settings],
            lams[columns], r0,
        ).T
    return tables
