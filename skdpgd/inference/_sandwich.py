r"""The private estimate and its covariance: one Newton step, sandwich, leftover noise.

From the releases (the last iterate :math:`\theta_K`; at it, the gradient
:math:`\tilde g` of the data loss, the Hessian M and the score covariance Q;
:mod:`skdpgd.inference._releases`) and public plan numbers only (post-processing;
docs/theory.md, "Private inference for the coefficients"):

1. **Repair.** :math:`M_+ = V\max(\Lambda, f_M)V^\top` with the public floor
   :math:`f_M = 2\tau_M\sqrt p`, the edge of the semicircle of the noise's eigenvalues
   (a released curvature below it is indistinguishable from noise), and likewise
   :math:`Q_+` with :math:`f_Q = 2\tau_Q\sqrt p`.
2. **One Newton step on the unpenalised loss.**
   :math:`\hat\theta = \theta_K - M_+^{-1}\tilde g`. It removes, to first order, what
   moves :math:`\theta_K` away from the minimiser :math:`\hat\theta_n` of the data loss
   L: the regularisation (:math:`\nabla L(\theta_\lambda) = -\lambda\theta_\lambda`),
   the shrinkage of a run stopped after K steps, and the run's own noise. With
   :math:`\nabla L(\theta_K) \approx H(\theta_K - \hat\theta_n)`,

   .. math::

       \hat\theta - \hat\theta_n \approx (I - M_+^{-1}H)(\theta_K - \hat\theta_n)
       - \sigma_g M_+^{-1}Z .

3. **Covariance.**

   .. math::

       \Sigma = \frac1n M_+^{-1}Q_+M_+^{-1} + \sigma_g^2 M_+^{-2} + \Lambda,

   the sandwich of the M-estimator (Huber 1967; made private with noisy matrices as in
   Avella-Medina, Bradshaw and Loh 2023), the gradient's noise through the step, and
   :math:`\Lambda`, the covariance of the leftover
   :math:`(I - M^{-1}H)(\theta_K - \hat\theta_n) = M^{-1}E_M(\theta_K - \hat\theta_n)`.
   The run's error has second moment :math:`W = V_{\mathrm{opt}} + (C\hat\theta)(C\hat\theta)^\top`
   (covariance and mean computed exactly for the solver that ran,
   :func:`skdpgd.inference._optimizer_noise.optimizer_noise`), independent of
   :math:`E_M`, whose entries are i.i.d. :math:`\mathcal N(0, \tau_M^2)` on and above the
   diagonal, so :math:`E[E_M W E_M] = \tau_M^2(W + \mathrm{tr}(W) I)` up to the diagonal's
   share, and to first order in :math:`E_M`

   .. math::

       \Lambda = \tau_M^2\,M_+^{-1}\big(W + \mathrm{tr}(W)\,I\big)M_+^{-1} .

   With :math:`\rho = \min(1, f_M/\lambda_{\min}(M_+))`, on the event
   :math:`\lVert E_M\rVert_2 \le f_M` the step's factor :math:`M^{-1}E_M` has norm at most
   :math:`\rho`. Where :math:`\rho` > :data:`FIRST_ORDER_LIMIT` = 1/2 the first order does
   not hold (the noise is comparable to the curvature, or the repair raised an
   eigenvalue): then :math:`\Lambda = \rho^2\lVert W\rVert_2 I`, the bound in every
   direction, and the table says so (W itself is computed with the repaired Hessian, which
   overstates a raised direction's curvature: not a guarantee there).
"""

import numpy as np

from ._optimizer_noise import optimizer_noise

__all__ = ["FIRST_ORDER_LIMIT", "coefficient_covariance"]

#: Above this rho the leftover takes its bound instead of its first-order covariance.
FIRST_ORDER_LIMIT = 0.5


def coefficient_covariance(coef, gradient, hessian, score_cov, *, n_samples,
                           gradient_noise_std, hessian_noise_std, score_noise_std,
                           strong_convexity, learning_rate, noise_std, n_steps, momentum=0.0,
                           preconditioner=None):
    r"""The private estimate and its covariance (module docstring), augmented coordinates.

    Parameters
    ----------
    coef : ndarray of shape (p,)
        :math:`\theta_K`, the released last iterate (intercept column last).
    gradient : ndarray of shape (p,)
        The released :math:`\tilde g` (averaged data-loss gradient at :math:`\theta_K`).
    hessian, score_cov : ndarray of shape (p, p)
        The released M and Q.
    n_samples : int
        n.
    gradient_noise_std, hessian_noise_std, score_noise_std : float
        sigma_g, tau_M, tau_Q.
    strong_convexity, learning_rate, noise_std : float
        lam, eta and sigma of the run's plan.
    n_steps : int
        K (every batch step).
    momentum : float, default=0
        beta of the run.
    preconditioner : ndarray of shape (p, p), optional
        The preconditioned solver's P.

    Returns
    -------
    estimate : ndarray of shape (p,)
        :math:`\hat\theta`.
    covariance : ndarray of shape (p, p)
        :math:`\Sigma`.
    diagnostics : dict
        ``hessian_floored``, ``score_floored`` (eigenvalues raised to the floor),
        ``unfinished`` (:math:`\|C\|_2`), ``hessian_noise_ratio`` (rho) and
        ``leftover_share`` (trace of the leftover bound over the trace of
        :math:`\Sigma`): post-processing of the releases.
    """
    coef = np.asarray(coef, dtype=np.float64)
    p = coef.shape[0]
    eye = np.eye(p)
    f_m = 2.0 * hessian_noise_std * np.sqrt(p)
    hess, hess_floored = _floor(hessian, f_m)
    score, score_floored = _floor(score_cov, 2.0 * score_noise_std * np.sqrt(p))
    hess_inv = np.linalg.inv(hess)
    estimate = coef - hess_inv @ np.asarray(gradient, dtype=np.float64)
    v_opt, unfinished = optimizer_noise(
        hess, strong_convexity=strong_convexity, learning_rate=learning_rate,
        noise_std=noise_std, n_steps=n_steps, momentum=momentum, preconditioner=preconditioner,
    )
    smallest = float(np.linalg.eigvalsh(hess)[0])
    rho = min(1.0, f_m / smallest)
    shift = unfinished @ estimate
    second = v_opt + np.outer(shift, shift)
    leftover = hessian_noise_std**2 * (hess_inv @ (second + np.trace(second) * eye) @ hess_inv)
    if rho > FIRST_ORDER_LIMIT:  # no first order: the bound, in every direction
        leftover = rho**2 * float(np.linalg.eigvalsh(second)[-1]) * eye
    sandwich = hess_inv @ score @ hess_inv / n_samples
    covariance = sandwich + gradient_noise_std**2 * (hess_inv @ hess_inv) + leftover
    covariance = 0.5 * (covariance + covariance.T)
    diagnostics = {
        "hessian_floored": hess_floored, "score_floored": score_floored,
        "unfinished": float(np.linalg.norm(unfinished, 2)), "hessian_noise_ratio": rho,
        "leftover_share": float(np.trace(leftover) / np.trace(covariance)),
    }
    return estimate, covariance, diagnostics


def _floor(matrix, floor):
    """:math:`V\\max(\\Lambda, f)V^\\top` and how many eigenvalues were raised."""
    matrix = np.asarray(matrix, dtype=np.float64)
    w, v = np.linalg.eigh(0.5 * (matrix + matrix.T))
    floor = max(float(floor), 1e-12 * max(float(np.max(np.abs(w))), 1e-300))
    raised = int(np.sum(w < floor))
    return (v * np.maximum(w, floor)) @ v.T, raised
