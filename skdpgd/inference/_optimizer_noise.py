r"""The covariance of the optimizer's own noise, for the solver that ran (post-processing).

Every solver inference supports runs, from :math:`\theta_0 = 0`, the recursion

.. math::

    y_k = \theta_k + \beta(\theta_k - \theta_{k-1}),\qquad
    \theta_{k+1} = y_k - \eta P^{-1}\big(\nabla F_{B_k}(y_k) + \sigma Z_k\big),
    \qquad k = 0, \dots, K-1,

with :math:`P = I, \beta = 0` for ``"gd"`` (one batch) and ``"cyclic"`` (l batches,
K = l E) and the released Gram preconditioner with Nesterov momentum for
``"preconditioned"``. Linearised at the minimiser :math:`\theta_\lambda` of
:math:`F = L + \frac\lambda2\|\theta\|^2`, with :math:`H_\lambda = H + \lambda I` (every
batch Hessian replaced by the full one), the error :math:`e_k = \theta_k - \theta_\lambda`
follows :math:`e_{k+1} = (I - \eta P^{-1}H_\lambda)((1+\beta)e_k - \beta e_{k-1})
- \eta\sigma P^{-1}Z_k`. With :math:`u = P^{1/2}e` and
:math:`S = P^{-1/2}H_\lambda P^{-1/2} = U\,\mathrm{diag}(s)\,U^\top` the dynamics are
diagonal in :math:`w = U^\top u`: coordinate i follows the scalar recursion
:math:`w_{k+1} = a_i w_k + b_i w_{k-1} + \xi_k` with :math:`a_i = (1 - \eta s_i)(1+\beta)`,
:math:`b_i = -(1-\eta s_i)\beta`, and the noise
:math:`\xi_k \sim \mathcal N(0, \eta^2\sigma^2 N)`, :math:`N = U^\top P^{-1}U`. Hence,
exactly for the linear recursion,

.. math::

    \mathrm{Cov}(\theta_K) = \eta^2\sigma^2\,P^{-1/2}U\,(N\circ\Phi)\,U^\top P^{-1/2},
    \qquad \Phi_{ij} = \sum_{m=0}^{K-1} h_i(m)\,h_j(m),

with :math:`h_i` the impulse response (:math:`h_i(0) = 1, h_i(1) = a_i,
h_i(m) = a_i h_i(m-1) + b_i h_i(m-2)`), and the mean

.. math::

    E\,\theta_K = (I - C)\,\theta_\lambda,\qquad
    C = P^{-1/2}U\,\mathrm{diag}(g_i(K))\,U^\top P^{1/2},

with :math:`g_i` the same recursion started at :math:`g(0) = g(-1) = 1` (the start
:math:`e_0 = -\theta_\lambda`). For plain GD, :math:`\Phi` is diagonal and this is the
finite Lyapunov sum :math:`\eta^2\sigma^2\sum_{k<K}(I - \eta H_\lambda)^{2k}` of the
issue's anchor (Avella-Medina, Bradshaw and Loh 2023 keep the last term only). It is the
recursion of :func:`skdpgd.solvers._utility.error_moments`, here with the released
Hessian instead of a public worst case. Everything here is a function of public plan
numbers and of releases (the Hessian, the preconditioner's Gram), hence post-processing.
"""

import numpy as np

__all__ = ["impulse_responses", "optimizer_noise"]


def impulse_responses(a, b, n_steps):
    r"""Impulse responses and mean factors of :math:`x_{m+1} = a_i x_m + b_i x_{m-1}`.

    Parameters
    ----------
    a, b : ndarray of shape (p,)
        The coefficients of each coordinate's recursion.
    n_steps : int
        K.

    Returns
    -------
    h : ndarray of shape (K, p)
        :math:`h_i(m)`, m < K, from :math:`h(0) = 1, h(-1) = 0`.
    g : ndarray of shape (p,)
        :math:`g_i(K)` from :math:`g(0) = g(-1) = 1`.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    k = int(n_steps)
    h = np.empty((max(k, 1), a.size))
    prev, cur = np.zeros(a.size), np.ones(a.size)
    g_prev, g = np.ones(a.size), np.ones(a.size)
    for m in range(k):
        h[m] = cur
        prev, cur = cur, a * cur + b * prev
        g_prev, g = g, a * g + b * g_prev
    return h[:k], g


def optimizer_noise(hessian, *, strong_convexity, learning_rate, noise_std, n_steps,
                    momentum=0.0, preconditioner=None, noise_covariance=None):
    r"""Covariance and mean factor of the optimizer's noise (module docstring).

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        H, symmetric positive semi-definite (the repaired released Hessian).
    strong_convexity : float
        lam; :math:`H_\lambda = H + \lambda I`.
    learning_rate, noise_std : float
        eta and sigma of the plan.
    n_steps : int
        K (``"cyclic"``: l E, every batch step counted).
    momentum : float, default=0
        beta.
    preconditioner : ndarray of shape (p, p), optional
        P (symmetric positive definite); None for the identity.
    noise_covariance : ndarray of shape (p, p), optional
        S, the covariance of the step's noise direction (the step adds
        :math:`-\eta\sigma\,\xi`, :math:`\xi \sim \mathcal N(0, S)`); None for
        :math:`P^{-2}` (:math:`\xi = P^{-1}Z`). The block of a run whose other
        coordinates were dropped has the drift of :math:`((P^{-1})_{KK})^{-1}` and the
        noise :math:`S = (P^{-2})_{KK}` (:mod:`skdpgd.inference._inference_block`): then
        :math:`N = U^\top P^{1/2}SP^{1/2}U`.

    Returns
    -------
    covariance : ndarray of shape (p, p)
        :math:`\mathrm{Cov}(\theta_K)` of the linearised run.
    unfinished : ndarray of shape (p, p)
        C, with :math:`E\theta_K = (I - C)\theta_\lambda`.
    """
    hessian = np.asarray(hessian, dtype=np.float64)
    p = hessian.shape[0]
    if preconditioner is None:
        root_inv, root = np.eye(p), np.eye(p)
    else:
        w, v = np.linalg.eigh(np.asarray(preconditioner, dtype=np.float64))
        root_inv, root = (v / np.sqrt(w)) @ v.T, (v * np.sqrt(w)) @ v.T
    scaled = root_inv @ (hessian + strong_convexity * np.eye(p)) @ root_inv
    s, u = np.linalg.eigh(0.5 * (scaled + scaled.T))
    # a run that ran contracts: 0 <= eta s < 2 (a noisy Hessian may say otherwise)
    s = np.clip(s, 0.0, 1.999 / learning_rate)
    contraction = 1.0 - learning_rate * s
    h, g = impulse_responses(contraction * (1.0 + momentum), -contraction * momentum, n_steps)
    phi = h.T @ h
    left = root_inv @ u
    if noise_covariance is None:
        n_matrix = left.T @ left  # U^T P^{-1} U
    else:
        right = root @ u
        n_matrix = right.T @ np.asarray(noise_covariance, dtype=np.float64) @ right
    covariance = (learning_rate * noise_std) ** 2 * (left @ (n_matrix * phi) @ left.T)
    unfinished = left @ np.diag(g) @ u.T @ root
    return 0.5 * (covariance + covariance.T), unfinished
