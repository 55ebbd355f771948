r"""The releases in their adaptive order and the Newton step's second-order correction.

The first Hessian and the score covariance are released; where the first Hessian shows
rho > 1/2 the gradient's reserve buys a second one (inverse-variance average); then, for a
loss with a bounded third derivative where rho <= 1/2, the step's second-order term is
released and removed; the gradient comes last (docs/theory.md, "The inference budget" and
"The Newton step's second-order term"). Every decision is post-processing of the Hessian
released before it, so the composition is adaptive (Dong, Roth and Su 2022, Cor. 3.3).
"""

import math

import numpy as np

from ..optim import symmetric_gaussian
from ._sandwich import FIRST_ORDER_LIMIT, repaired_hessian

__all__ = ["adaptive_release", "correction_applies", "step_correction"]


def step_correction(estimate, covariance, drift, moment, repaired, report, rng, keep=None):
    r"""Remove the one Newton step's second-order term (docs/theory.md, "The Newton
    step's second-order term").

    The step from :math:`\theta_K` with M released there lands at
    :math:`\hat\theta_n + \frac12 M^{-1}T[e, e]` to second order in the run's error e
    (T the loss's third-derivative tensor); its mean :math:`\frac12 M^{-1}T[W]` is removed
    with the released drift :math:`\tilde v = T[W] + \sigma_c Z`
    (:func:`~skdpgd.inference._releases.curvature_drift_at`), whose noise adds
    :math:`\frac14\sigma_c^2 M_+^{-2}` to the covariance.

    Parameters
    ----------
    estimate, covariance : ndarray
        From :func:`~skdpgd.inference._sandwich.coefficient_covariance`.
    drift : ndarray of shape (p,)
        T[W] before noise.
    moment : ndarray of shape (p, p)
        W.
    repaired : ndarray of shape (p, p)
        :math:`M_+`.
    report : InferencePrivacyReport
        Gives :math:`\mu_c` and the sensitivity per unit :math:`\lambda_{\max}(W)`.
    rng : numpy.random.Generator
        Draws the drift's p normals (after every other release).
    keep : ndarray of shape (p,), bool, optional
        The inference block's coordinates (``estimate``, ``covariance`` and ``repaired``
        are the block's; the drift is released whole and its kept part corrects them).
        None: every coordinate.

    Returns
    -------
    estimate, covariance : ndarray
        Corrected.
    """
    dim = drift.shape[0]
    sigma = 0.0
    if report.correction_mu != math.inf:
        top = max(float(np.linalg.eigvalsh(0.5 * (moment + moment.T))[-1]), 0.0)
        sigma = report.correction_sensitivity * top / (report.n_samples * report.correction_mu)
        drift = drift + sigma * rng.standard_normal(dim)
    if keep is not None:
        drift = drift[keep]
    inverse = np.linalg.inv(repaired)
    covariance = covariance + 0.25 * sigma**2 * (inverse @ inverse)
    return estimate - 0.5 * inverse @ drift, covariance


def adaptive_release(exact, report, rng):
    r"""The releases in their adaptive order: the Hessian, the score covariance, then the
    reserve's use, then the gradient (:ref:`inference-budget`).

    The first Hessian :math:`M_1 = \bar H + E_1` (noise :math:`\tau_1`) and Q are released;
    where :math:`M_1` shows :math:`\rho > 1/2`, i.e. :math:`\lambda_{\min}(M_1) <
    2f_1` with :math:`f_1 = 2\tau_1\sqrt p` (post-processing of it), a second
    :math:`M_2 = \bar H + E_2` is released with the reserve (noise :math:`\tau_2`) and
    the two are averaged with inverse-variance weights, :math:`M = (M_1/\tau_1^2 +
    M_2/\tau_2^2)\tau^2`, :math:`\tau^{-2} = \tau_1^{-2} + \tau_2^{-2}` (i.i.d.
    :math:`\mathcal N(0, \tau^2)` entries again: the noise of one release at
    :math:`\sqrt{\mu_M^2 + \mu_r^2}`), and the gradient gets the rest of its share;
    otherwise the gradient gets all of it.

    Parameters
    ----------
    exact : tuple
        (gradient, Hessian, score covariance) before noise
        (:func:`~skdpgd.inference._releases.exact_at`).
    report : InferencePrivacyReport
        The noise of each release (``reserve_mu`` 0: no reserve).
    rng : numpy.random.Generator
        Draws M_1's and Q's noise, then M_2's (if released), then the gradient's.

    Returns
    -------
    gradient, hessian, score : ndarray
        The released gradient, M and Q.
    gradient_noise_std, hessian_noise_std : float
        sigma_g and tau of what was released.
    second : bool
        Whether the reserve went to a second Hessian.
    """
    gradient, hessian, score = exact
    dim = gradient.shape[0]
    tau, sigma = report.hessian_noise_std, report.gradient_noise_std
    first = hessian + symmetric_gaussian(dim, tau, rng)
    score = score + symmetric_gaussian(dim, report.score_noise_std, rng)
    edge = 2.0 * tau * math.sqrt(dim)
    second = bool(report.reserve_mu > 0.0 and tau > 0.0
                  and np.linalg.eigvalsh(0.5 * (first + first.T))[0] < edge / FIRST_ORDER_LIMIT)
    if second:
        tau_2 = report.reserve_hessian_noise_std
        other = hessian + symmetric_gaussian(dim, tau_2, rng)
        weight = tau_2**2 / (tau**2 + tau_2**2)
        first = weight * first + (1.0 - weight) * other
        tau = tau * tau_2 / math.sqrt(tau**2 + tau_2**2)
        sigma = report.reserve_gradient_noise_std
    if (getattr(report, "correction_mu", 0.0) > 0.0 and sigma > 0.0
            and not correction_applies(first, tau)):
        # the correction will not be released (decided from M): its mu_c goes back to the
        # gradient, which is then the one mechanism of its mu_g (or mu_g0) after M
        rest = (math.sqrt(report.gradient_mu**2 - report.reserve_mu**2) if second
                else report.gradient_mu)
        sigma = report.gradient_sensitivity / (report.n_samples * rest)
    if sigma > 0.0:
        gradient = gradient + sigma * rng.standard_normal(dim)
    return gradient, first, score, sigma, tau, second


def correction_applies(hessian, hessian_noise_std):
    r"""Whether the step's correction is released: :math:`\rho \le 1/2` for the released M.

    Post-processing of M alone (the same :math:`\rho = \min(1, f_M/\lambda_{\min}(M_+))`
    as :func:`~skdpgd.inference._sandwich.coefficient_covariance`), so the gradient's
    release that follows may take the correction's :math:`\mu_c` where it is not spent.

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M (after the reserve's average, if any).
    hessian_noise_std : float
        Its tau.

    Returns
    -------
    bool
    """
    floor = 2.0 * hessian_noise_std * math.sqrt(hessian.shape[0])
    smallest = float(np.linalg.eigvalsh(repaired_hessian(hessian, hessian_noise_std))[0])
    return min(1.0, floor / smallest) <= FIRST_ORDER_LIMIT
