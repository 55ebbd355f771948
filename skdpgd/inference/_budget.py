r"""The public split of one budget between the fit and the two inference releases.

With ``inference=True`` a fit makes three releases about the data: the estimate (the
solver's run, itself a composition), the Hessian M and the score covariance Q at the
estimate. The target :math:`(\varepsilon, \delta)` is met by Gaussian DP,
:math:`\mu = \mathrm{epsilon\_delta\_to\_gdp}(\varepsilon, \delta)` (Dong, Roth and Su
2022, Corollary 2.13), split as

.. math::

    \mu_{\mathrm{fit}}^2 = (1 - s)\,\mu^2, \qquad \mu_M^2 = \mu_Q^2 = \frac s2\,\mu^2,
    \qquad \mu_{\mathrm{fit}}^2 + \mu_M^2 + \mu_Q^2 = \mu^2

(adaptive composition, their Corollary 3.3), with the public share s =
:data:`INFERENCE_SHARE` (derivation in docs/theory.md, "The budget of the releases").
The fit is planned at :math:`\varepsilon_{\mathrm{fit}} =
\mathrm{gdp\_to\_epsilon}(\mu_{\mathrm{fit}}, \delta)`, so its report's mu is at most
:math:`\mu_{\mathrm{fit}}`; each matrix release gets the noise
:math:`\tau = S/(n\mu_i)` with S its sensitivity
(:func:`skdpgd.inference._releases.matrix_sensitivity`).
"""

import math
from dataclasses import dataclass

from ..accounting._gdp import epsilon_delta_to_gdp, gdp_to_epsilon

__all__ = ["INFERENCE_SHARE", "InferenceBudget", "split_inference_budget"]

#: Share s of mu^2 spent on the two matrix releases together.
INFERENCE_SHARE = 0.2

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
    hessian_mu, score_mu : float
        mu of the Hessian and of the score-covariance release.
    share : float
        s.
    """

    mu: float
    fit_mu: float
    fit_epsilon: float
    hessian_mu: float
    score_mu: float
    share: float


def split_inference_budget(epsilon, delta, share=INFERENCE_SHARE):
    """Split (epsilon, delta) between the fit and the two matrix releases (module docstring).

    Parameters
    ----------
    epsilon : float
        > 0 or inf.
    delta : float
        In (0, 1).
    share : float, default=INFERENCE_SHARE
        s in (0, 1).

    Returns
    -------
    InferenceBudget
    """
    epsilon, delta, share = float(epsilon), float(delta), float(share)
    if not 0.0 < share < 1.0:
        raise ValueError(f"the inference share must be in (0, 1), got {share!r}.")
    if epsilon == math.inf:
        return InferenceBudget(math.inf, math.inf, math.inf, math.inf, math.inf, share)
    mu = float(epsilon_delta_to_gdp(epsilon, delta)) * _MARGIN
    fit_mu = mu * math.sqrt(1.0 - share)
    part = mu * math.sqrt(share / 2.0)
    return InferenceBudget(
        mu=mu, fit_mu=fit_mu, fit_epsilon=float(gdp_to_epsilon(fit_mu * _MARGIN, delta)),
        hessian_mu=part, score_mu=part, share=share,
    )


def release_noise_std(sensitivity, n_samples, mu):
    r""":math:`\tau = S/(n\mu)`, the Gaussian mechanism at mu (0 for an infinite mu)."""
    return 0.0 if mu == math.inf else float(sensitivity) / (int(n_samples) * float(mu))
