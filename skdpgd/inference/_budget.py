r"""The public split of one budget between the fit and the two inference releases.

With ``inference=True`` a fit makes four releases about the data: the estimate
:math:`\theta_K` (the solver's run, itself a composition), then at :math:`\theta_K` the
gradient g of the data loss, the Hessian M and the score covariance Q. The target
:math:`(\varepsilon, \delta)` is met by Gaussian DP,
:math:`\mu = \mathrm{epsilon\_delta\_to\_gdp}(\varepsilon, \delta)` (Dong, Roth and Su
2022, Corollary 2.13), split with public shares (:data:`INFERENCE_SHARES`, derived in
:ref:`inference-budget`) as

.. math::

    \mu_{\mathrm{fit}}^2 = s_\theta\mu^2,\quad \mu_g^2 = s_g\mu^2,\quad
    \mu_M^2 = s_M\mu^2,\quad \mu_Q^2 = s_Q\mu^2,\qquad
    \mu_{\mathrm{fit}}^2 + \mu_g^2 + \mu_M^2 + \mu_Q^2 = \mu^2

(adaptive composition, their Corollary 3.3).
The fit is planned at :math:`\varepsilon_{\mathrm{fit}} =
\mathrm{gdp\_to\_epsilon}(\mu_{\mathrm{fit}}, \delta)`, so its report's mu is at most
:math:`\mu_{\mathrm{fit}}`; each matrix release gets the noise
:math:`\tau = S/(n\mu_i)` with S its sensitivity
(:func:`skdpgd.inference._releases.matrix_sensitivity`), and the gradient
:math:`\sigma_g = S/(n\mu_g)` with S the loss's replace-one sensitivity. The gradient's
share carries a reserve :math:`r = s_g - 0.2` (:func:`hessian_reserve`) that a second
Hessian release takes where the first shows :math:`\rho > 1/2`
(:func:`skdpgd.inference.adaptive_release`; the same mu either way).
"""

import math
from dataclasses import dataclass

from ..accounting import epsilon_delta_to_gdp, gdp_to_epsilon

__all__ = ["INFERENCE_SHARES", "InferenceBudget", "inference_shares",
           "split_inference_budget"]

#: Shares of mu^2: (the run, the gradient, the Hessian, the score covariance).
INFERENCE_SHARES = (0.3, 0.5, 0.1, 0.1)

#: The Hessian's share grows (from the gradient's) up to this where the shape needs it.
MAX_HESSIAN_SHARE = 0.3

#: The public noise ratio rho_pub the Hessian's share aims at (inference_shares).
HESSIAN_RATIO_TARGET = 0.04

#: The gradient keeps this share of mu^2 when its reserve goes to a second Hessian release.
MIN_GRADIENT_SHARE = 0.2

#: The fit is calibrated to this fraction of its mu (the GDP inverses are conservative to
#: about 1e-10 relative; the pipeline's budget uses the same margin).
_MARGIN = 1.0 - 1e-9


@dataclass(frozen=True)
class InferenceBudget:
    """The split of a budget (public numbers only).

    Attributes
    ----------
    mu : float
        Gaussian-DP parameter of the whole fit (estimate and both matrices).
    fit_mu, fit_epsilon : float
        The largest mu of the solver's run, and the epsilon at delta it is planned at.
    gradient_mu, hessian_mu, score_mu : float
        mu of the gradient, the Hessian and the score-covariance releases.
    shares : tuple of float
        The four shares of mu^2.
    """

    mu: float
    fit_mu: float
    fit_epsilon: float
    gradient_mu: float
    hessian_mu: float
    score_mu: float
    shares: tuple


def split_inference_budget(epsilon, delta, shares=INFERENCE_SHARES):
    """Split (epsilon, delta) between the run and the three releases (module docstring).

    Parameters
    ----------
    epsilon : float
        > 0 or inf.
    delta : float
        In (0, 1).
    shares : tuple of 4 floats, default=INFERENCE_SHARES
        Positive, summing to 1.

    Returns
    -------
    InferenceBudget
        The split (every mu infinite for an infinite epsilon).
    """
    epsilon, delta = float(epsilon), float(delta)
    shares = tuple(float(s) for s in shares)
    if len(shares) != 4 or min(shares) <= 0.0 or abs(sum(shares) - 1.0) > 1e-12:
        raise ValueError(f"the inference shares must be 4 positive numbers summing to 1, "
                         f"got {shares!r}.")
    if epsilon == math.inf:
        return InferenceBudget(*(math.inf,) * 6, shares)
    mu = float(epsilon_delta_to_gdp(epsilon, delta)) * _MARGIN
    fit_mu, grad_mu, hess_mu, score_mu = (mu * math.sqrt(s) for s in shares)
    return InferenceBudget(
        mu=mu, fit_mu=fit_mu, fit_epsilon=float(gdp_to_epsilon(fit_mu * _MARGIN, delta)),
        gradient_mu=grad_mu, hessian_mu=hess_mu, score_mu=score_mu, shares=shares,
    )


def inference_shares(epsilon, delta, n_samples, n_params):
    r"""The public shares of a fit: :data:`INFERENCE_SHARES`, with more for the Hessian
    where the shape needs it (:ref:`inference-budget`).

    With :math:`\rho_{\mathrm{pub}}(s_M) = 2\sqrt2\,p^{3/2}/(n\mu\sqrt{s_M})`
    (:func:`skdpgd.inference.public_noise_ratio`), the Hessian gets
    :math:`s_M = \min(0.3, \max(0.1, 0.1\,(\rho_{\mathrm{pub}}(0.1)/0.04)^2))`, i.e.
    the share that brings :math:`\rho_{\mathrm{pub}}` to 0.04 within [0.1, 0.3], taken from
    the gradient's: :math:`(0.3,\ 0.6 - s_M,\ s_M,\ 0.1)`. Public numbers only.

    Parameters
    ----------
    epsilon, delta : float
        The fit's target.
    n_samples, n_params : int
        n and p (coefficients, intercept included).

    Returns
    -------
    tuple of 4 floats
        (run, gradient, Hessian, score covariance), summing to 1.
    """
    run, gradient, hessian, score = INFERENCE_SHARES
    if float(epsilon) == math.inf:
        return INFERENCE_SHARES
    mu = float(epsilon_delta_to_gdp(float(epsilon), float(delta))) * _MARGIN
    ratio = 2.0 * math.sqrt(2.0) * int(n_params) ** 1.5 / (int(n_samples) * mu * math.sqrt(hessian))
    share = min(MAX_HESSIAN_SHARE, max(hessian, hessian * (ratio / HESSIAN_RATIO_TARGET) ** 2))
    return (run, gradient + hessian - share, share, score)


def hessian_reserve(shares):
    r"""The share :math:`r = s_g - 0.2` of the gradient's that a second Hessian release
    takes where the first shows :math:`\rho > 1/2` (:ref:`inference-budget`).

    Parameters
    ----------
    shares : tuple of 4 floats
        (run, gradient, Hessian, score covariance).

    Returns
    -------
    float
        r, in [0, s_g): with the reserve spent the gradient keeps
        :data:`MIN_GRADIENT_SHARE` and the two Hessians :math:`s_M + r`.
    """
    return max(0.0, float(shares[1]) - MIN_GRADIENT_SHARE)


def release_noise_std(sensitivity, n_samples, mu):
    r""":math:`\tau = S/(n\mu)`, the Gaussian mechanism at mu (0 for an infinite mu)."""
    return 0.0 if mu == math.inf else float(sensitivity) / (int(n_samples) * float(mu))
