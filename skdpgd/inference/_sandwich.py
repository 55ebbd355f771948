r"""The private estimate and its covariance: one Newton step, sandwich, leftover noise.

From the releases (the last iterate :math:`\theta_K`; at it, the gradient
:math:`\tilde g` of the data loss, the Hessian M and the score covariance Q;
:mod:`skdpgd.inference._releases`) and public plan numbers only (post-processing;
docs/theory.md, "Private inference for the coefficients"):

1. **Repair.** :math:`M_+ = V\max(\Lambda, f_M)V^\top` with the public floor
   :math:`f_M = 2\tau_M\sqrt p`, the edge of the semicircle of the noise's eigenvalues
   (a released curvature below it is indistinguishable from noise, and :math:`M_+` is
   inverted). Q is never inverted: the sandwich below is linear in it and the release is
   unbiased, :math:`E\,Q = \frac1n\sum_i\psi_i^2\tilde x_i\tilde x_i^\top`, so it is
   repaired at 0 only, :math:`Q_+ = V\max(\Lambda, 0)V^\top` (the nearest positive
   semi-definite matrix in Frobenius norm; it raises only negative eigenvalues, so
   :math:`Q_+ \succeq Q`: never narrower than the unbiased sandwich). A floor at the
   edge :math:`2\tau_Q\sqrt p` raised eigenvalues the data have and overstated the
   sandwich: logistic, independent design, p = 8, n = 20,000, epsilon 1, 400 fits: the
   private sandwich's variance 1.15x the non-private one (1.03x at 0), interval 1.545x
   the non-private width (1.510x at 0), coverage mean .959 (.954 at 0).
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
   eigenvalue), and the leftover takes a bound that holds on that event:

   * **the factor.** The leftover is :math:`D = (I - M_+^{-1}H)e`, e the run's error
     :math:`\theta_K - \theta^*`. On the event, :math:`0 \preceq H \preceq M + f_M I
     \preceq 2M_+` and :math:`H \succeq M - f_M I`, so
     :math:`A = M_+^{-1/2}HM_+^{-1/2}` has its eigenvalues in
     :math:`[\max(0, 1 - \rho), 1 + \rho]` and :math:`\lVert I - A\rVert_2 \le \rho`;
     since :math:`I - M_+^{-1}H = M_+^{-1/2}(I - A)M_+^{1/2}`, every linear functional
     has :math:`(u^\top D)^2 \le \rho^2\,(u^\top M_+^{-1}u)\,\lVert M_+^{1/2}e\rVert^2`,
     hence :math:`\Lambda = \rho^2\,\mathrm{tr}(M_+W)\,M_+^{-1}` bounds the second moment
     of every :math:`u^\top D` given :math:`E_M`;
   * **the run's error** W is computed at the smallest curvature the release allows,
     :math:`H_{\mathrm{low}} = V\max(\Lambda_M - f_M, 0)V^\top`
     (:func:`lowest_curvature`; on the event :math:`H \succeq M - f_M I`): a run moves
     less, and its noise accumulates more, along a flatter direction, so the repaired
     :math:`M_+` (whose raised eigenvalues overstate the curvature) would understate W
     there (coverage .42 on an equicorrelated design, docs/theory.md). W
     (:func:`run_error_moment`) is the run's noise covariance, its mean
     :math:`-(\theta^* - (I - C)\theta_\lambda)` with :math:`\hat\theta` for
     :math:`\theta^*`, and the sampling covariance of :math:`\theta_\lambda`.

   Coefficients the release does not identify
   (:mod:`skdpgd.inference._identification`) get NaN in their row and column.
"""

import numpy as np

from ._identification import unidentified
from ._optimizer_noise import optimizer_noise

__all__ = ["FIRST_ORDER_LIMIT", "coefficient_covariance", "repaired_hessian"]

#: Above this rho the leftover takes its bound instead of its first-order covariance.
FIRST_ORDER_LIMIT = 0.5


def coefficient_covariance(coef, gradient, hessian, score_cov, *, n_samples,
                           gradient_noise_std, hessian_noise_std, score_noise_std,
                           strong_convexity, learning_rate, noise_std, n_steps, momentum=0.0,
                           preconditioner=None, noise_covariance=None):
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
    noise_covariance : ndarray of shape (p, p), optional
        The covariance of the step's noise direction, when it is not :math:`P^{-2}`
        (:func:`~skdpgd.inference._optimizer_noise.optimizer_noise`).

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
    score, score_floored = _floor(score_cov, 0.0)  # not inverted: repaired at 0 only
    hess_inv = np.linalg.inv(hess)
    estimate = coef - hess_inv @ np.asarray(gradient, dtype=np.float64)
    plan = {"strong_convexity": strong_convexity, "learning_rate": learning_rate,
            "noise_std": noise_std, "n_steps": n_steps, "momentum": momentum,
            "preconditioner": preconditioner, "noise_covariance": noise_covariance}
    smallest = float(np.linalg.eigvalsh(hess)[0])
    rho = min(1.0, f_m / smallest)
    if rho <= FIRST_ORDER_LIMIT:  # first order in E_M, W with the released Hessian
        v_opt, unfinished = optimizer_noise(hess, **plan)
        shift = unfinished @ estimate
        second = v_opt + np.outer(shift, shift)
        leftover = hessian_noise_std**2 * (hess_inv @ (second + np.trace(second) * eye)
                                           @ hess_inv)
    else:  # the leftover's two parts, with W at the smallest curvature the release allows
        low = lowest_curvature(hessian, f_m)
        second, unfinished = run_error_moment(low, estimate, score / n_samples, **plan)
        repair = hess - 0.5 * (hessian + hessian.T)  # R = M_+ - M, so M_+ - H = R + E_M
        noise_part = hessian_noise_std**2 * (second + np.trace(second) * eye)
        leftover = 2.0 * hess_inv @ (repair @ second @ repair + noise_part) @ hess_inv
    sandwich = hess_inv @ score @ hess_inv / n_samples
    covariance = sandwich + gradient_noise_std**2 * (hess_inv @ hess_inv) + leftover
    covariance = 0.5 * (covariance + covariance.T)
    not_identified, identified_ratio = unidentified(hessian, f_m)
    diagnostics = {
        "hessian_floored": hess_floored, "score_floored": score_floored,
        "unfinished": float(np.linalg.norm(unfinished, 2)), "hessian_noise_ratio": rho,
        "leftover_share": float(np.trace(leftover) / np.trace(covariance)),
        "not_identified": not_identified, "identified_ratio": identified_ratio,
        "run_error_moment": second,
    }
    covariance[not_identified, :] = np.nan  # no interval where the release sees nothing
    covariance[:, not_identified] = np.nan
    return estimate, covariance, diagnostics


def repaired_hessian(hessian, hessian_noise_std):
    r""":math:`M_+ = V\max(\Lambda, f_M)V^\top`, :math:`f_M = 2\tau_M\sqrt p` (step 1).

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M.
    hessian_noise_std : float
        :math:`\tau_M`.

    Returns
    -------
    ndarray of shape (p, p)
    """
    return _floor(hessian, 2.0 * hessian_noise_std * np.sqrt(hessian.shape[0]))[0]


def lowest_curvature(hessian, floor):
    r"""The smallest curvature the release allows: :math:`V\max(\Lambda - f_M, 0)V^\top`.

    On the event :math:`\lVert E_M\rVert_2 \le f_M`, :math:`H \succeq M - f_M I` and
    :math:`H \succeq 0` (module docstring).

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M.
    floor : float
        :math:`f_M`.

    Returns
    -------
    ndarray of shape (p, p)
        The lower curvature.
    """
    matrix = np.asarray(hessian, dtype=np.float64)
    w, v = np.linalg.eigh(0.5 * (matrix + matrix.T))
    return (v * np.maximum(w - float(floor), 0.0)) @ v.T


def run_error_moment(hessian, estimate, score_over_n, *, strong_convexity, **plan):
    r"""Second moment of the run's error :math:`\theta_K - \theta^*` at curvature ``hessian``.

    :math:`W = V_{\mathrm{opt}} + bb^\top + (I - C)H_\lambda^{-1}(Q/n)H_\lambda^{-1}(I - C)^\top`
    with :math:`b = E\theta_K - \theta^* = (I - C)H_\lambda^{+}H\theta^* - \theta^*` its
    mean (:math:`E\theta_K = (I - C)\theta_\lambda`, :math:`\theta_\lambda =
    H_\lambda^{+}(H\theta^* - S_n)` for the quadratic model of the loss, :math:`S_n` the
    score at the target, :math:`H_\lambda^{+}` the pseudo-inverse: a direction without
    curvature or penalty is one the run never moves, C = 1 there) and the last term the
    sampling covariance of :math:`\theta_\lambda` carried by the run (module docstring).

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        H, positive semi-definite.
    estimate : ndarray of shape (p,)
        :math:`\hat\theta`, in place of :math:`\theta^*`.
    score_over_n : ndarray of shape (p, p)
        Q/n.
    strong_convexity : float
        lam.
    **plan : dict
        The other arguments of :func:`~skdpgd.inference._optimizer_noise.optimizer_noise`.

    Returns
    -------
    second : ndarray of shape (p, p)
        W.
    unfinished : ndarray of shape (p, p)
        C.
    """
    p = estimate.shape[0]
    v_opt, unfinished = optimizer_noise(hessian, strong_convexity=strong_convexity, **plan)
    h_lam_inv = np.linalg.pinv(hessian + strong_convexity * np.eye(p), hermitian=True)
    carried = (np.eye(p) - unfinished) @ h_lam_inv
    shift = estimate - carried @ (hessian @ estimate)
    second = v_opt + np.outer(shift, shift) + carried @ score_over_n @ carried.T
    return 0.5 * (second + second.T), unfinished


def _floor(matrix, floor):
    """:math:`V\\max(\\Lambda, f)V^\\top` and how many eigenvalues were raised."""
    matrix = np.asarray(matrix, dtype=np.float64)
    w, v = np.linalg.eigh(0.5 * (matrix + matrix.T))
    floor = max(float(floor), 1e-12 * max(float(np.max(np.abs(w))), 1e-300))
    raised = int(np.sum(w < floor))
    return (v * np.maximum(w, floor)) @ v.T, raised
