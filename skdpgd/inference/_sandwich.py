r"""The private covariance of the coefficients: sandwich, optimizer noise, corrections.

From the releases (the last iterate :math:`\theta_K`, the Hessian M, the score covariance
Q; :mod:`skdpgd.inference._releases`) and public plan numbers only (post-processing;
docs/theory.md, "Private inference for the coefficients"):

1. **Repair.** :math:`M_+ = V\max(\Lambda, f_M)V^\top` with the public floor
   :math:`f_M = 2\tau_M\sqrt p` (the edge of the semicircle of the noise's
   eigenvalues: a released curvature below it is indistinguishable from noise), and
   likewise :math:`Q_+` with :math:`f_Q = 2\tau_Q\sqrt p`.
2. **Optimizer noise.** :math:`V_{\mathrm{opt}}` and C of the run
   (:func:`skdpgd.inference._optimizer_noise.optimizer_noise`), with
   :math:`E\theta_K = (I - C)\theta_\lambda`.
3. **Unfinished run and regularisation.** :math:`\hat\theta_\lambda = (I - C)^{-1}\theta_K`
   undoes the linearised shrinkage of a run stopped after K steps, and the one-step
   Newton correction :math:`\hat\theta = (I + \lambda M_+^{-1})\hat\theta_\lambda` moves
   the minimiser of :math:`L + \frac\lambda2\|\theta\|^2` to that of L (exact for a
   quadratic L: :math:`(I + \lambda H^{-1})(H + \lambda I)^{-1}H\theta^* = \theta^*`).
   With :math:`A = (I + \lambda M_+^{-1})(I - C)^{-1}`, :math:`\hat\theta = A\theta_K`.
4. **Covariance.**

   .. math::

       \Sigma = \frac1n M_+^{-1}Q_+M_+^{-1} + A V_{\mathrm{opt}}A^\top
       + \lambda^2\tau_M^2 M_+^{-1}\big(\|v\|^2 I + vv^\top - \mathrm{diag}(v^2)\big)M_+^{-1},

   the sandwich of the M-estimator (Huber 1967; made private by noisy matrices as in
   Avella-Medina, Bradshaw and Loh 2023), the optimizer's noise carried through A, and the noise the debiasing
   step takes from M (:math:`v = M_+^{-1}\hat\theta_\lambda`; the covariance of
   :math:`E v` for a symmetric E with i.i.d. upper triangle).
"""

import numpy as np

from ._optimizer_noise import optimizer_noise

__all__ = ["coefficient_covariance"]


def coefficient_covariance(coef, hessian, score_cov, *, n_samples, hessian_noise_std,
                           score_noise_std, strong_convexity, learning_rate, noise_std,
                           n_steps, momentum=0.0, preconditioner=None):
    r"""The corrected estimate and its covariance (module docstring), augmented coordinates.

    Parameters
    ----------
    coef : ndarray of shape (p,)
        :math:`\theta_K`, the released last iterate (intercept column last).
    hessian, score_cov : ndarray of shape (p, p)
        The released M and Q.
    n_samples : int
        n.
    hessian_noise_std, score_noise_std : float
        tau_M, tau_Q.
    strong_convexity, learning_rate, noise_std : float
        lam, eta and sigma of the plan.
    n_steps : int
        K (every batch step).
    momentum : float, default=0
    preconditioner : ndarray of shape (p, p), optional
        The preconditioned solver's P.

    Returns
    -------
    estimate : ndarray of shape (p,)
        :math:`\hat\theta = A\theta_K`.
    covariance : ndarray of shape (p, p)
        :math:`\Sigma`.
    diagnostics : dict
        ``hessian_floored``, ``score_floored`` (eigenvalues raised to the floor),
        ``unfinished`` (:math:`\|C\|_2`), ``hessian_noise_ratio``
        (:math:`f_M / \lambda_{\min}(M_+)`, 1 when M was floored) and
        ``optimizer_share`` (trace of the optimizer's part over the trace of
        :math:`\Sigma`): post-processing of the releases.
    """
    coef = np.asarray(coef, dtype=np.float64)
    p = coef.shape[0]
    eye = np.eye(p)
    f_m = 2.0 * hessian_noise_std * np.sqrt(p)
    f_q = 2.0 * score_noise_std * np.sqrt(p)
    hess, hess_floored = _floor(hessian, f_m)
    score, score_floored = _floor(score_cov, f_q)
    hess_inv = np.linalg.inv(hess)
    v_opt, unfinished = optimizer_noise(
        hess, strong_convexity=strong_convexity, learning_rate=learning_rate,
        noise_std=noise_std, n_steps=n_steps, momentum=momentum, preconditioner=preconditioner,
    )
    restart = np.linalg.inv(eye - unfinished)
    transform = (eye + strong_convexity * hess_inv) @ restart
    estimate = transform @ coef
    sandwich = hess_inv @ score @ hess_inv / n_samples
    optimizer = transform @ v_opt @ transform.T
    v = hess_inv @ (restart @ coef)
    debias = strong_convexity**2 * hessian_noise_std**2 * (
        hess_inv @ (v @ v * eye + np.outer(v, v) - np.diag(v * v)) @ hess_inv
    )
    covariance = sandwich + optimizer + debias
    covariance = 0.5 * (covariance + covariance.T)
    smallest = float(np.linalg.eigvalsh(hess)[0])
    diagnostics = {
        "hessian_floored": hess_floored, "score_floored": score_floored,
        "unfinished": float(np.linalg.norm(unfinished, 2)),
        "hessian_noise_ratio": float(f_m / smallest) if smallest > 0 else float("inf"),
        "optimizer_share": float(np.trace(optimizer) / np.trace(covariance)),
    }
    return estimate, covariance, diagnostics


def _floor(matrix, floor):
    """:math:`V\\max(\\Lambda, f)V^\\top` and how many eigenvalues were raised."""
    matrix = np.asarray(matrix, dtype=np.float64)
    w, v = np.linalg.eigh(0.5 * (matrix + matrix.T))
    floor = max(float(floor), 1e-12 * max(float(np.max(np.abs(w))), 1e-300))
    raised = int(np.sum(w < floor))
    return (v * np.maximum(w, floor)) @ v.T, raised
