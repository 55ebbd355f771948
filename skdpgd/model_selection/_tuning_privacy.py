r"""Privacy of "run a random number of private trials, keep the best" (pure functions).

Papernot and Steinke (ICLR 2022), *Hyperparameter tuning with Renyi differential
privacy*, Theorem 2 (truncated negative binomial number of trials). Let
:math:`Q` satisfy :math:`(\lambda, \varepsilon)`-RDP and :math:`(\hat\lambda, \hat\varepsilon)`-RDP
for some :math:`\lambda \in (1, \infty)`, :math:`\hat\lambda \in [1, \infty)`, and let
:math:`K \sim \mathcal D_{\eta,\gamma}` with :math:`\eta \in (-1, \infty)`,
:math:`\gamma \in (0, 1)`:

.. math::

    \Pr[K = k] = \frac{(1-\gamma)^k}{\gamma^{-\eta} - 1}
                 \prod_{\ell=0}^{k-1} \frac{\ell + \eta}{\ell + 1}\quad (k \ge 1),
    \qquad \Pr[K = k] = \frac{(1-\gamma)^k}{k \log(1/\gamma)}\quad (\eta = 0).

The algorithm that runs :math:`Q` independently :math:`K` times and outputs the best
result (by a total order on outputs; nothing else, in particular not :math:`K`) is
:math:`(\lambda, \varepsilon')`-RDP with

.. math::

    \varepsilon' = \varepsilon + (1+\eta)\Big(1 - \frac{1}{\hat\lambda}\Big)\hat\varepsilon
        + \frac{(1+\eta)\log(1/\gamma)}{\hat\lambda} + \frac{\log \mathbb E[K]}{\lambda - 1},
    \qquad
    \mathbb E[K] = \frac{\eta(1-\gamma)}{\gamma(1-\gamma^\eta)}
    \;\Big(= \frac{1/\gamma - 1}{\log(1/\gamma)} \text{ for } \eta = 0\Big).

When :math:`Q` is :math:`\mu`-GDP it is :math:`(\alpha, \alpha\mu^2/2)`-RDP for every
order (:func:`skdpgd.accounting.gdp_to_rdp`), and the free order :math:`\hat\lambda` can
be optimised in closed form: :math:`(1+\eta)[(\hat\lambda - 1)\mu^2/2 + \log(1/\gamma)/\hat\lambda]`
is convex in :math:`\hat\lambda` with minimiser :math:`\sqrt{2\log(1/\gamma)}/\mu`, clipped
to :math:`\hat\lambda \ge 1`.

Liu and Talwar (STOC 2019), *Private selection from private candidates*, is the
geometric case :math:`\eta = 1`.
"""

import math

import numpy as np
from scipy import optimize

from ..accounting import gdp_to_rdp

THEOREM = ("Papernot and Steinke (ICLR 2022), Theorem 2 (truncated negative binomial "
           "number of trials); base runs mu-GDP -> RDP by Dong, Roth and Su (2022)")


def _check_eta_gamma(eta, gamma):
    eta, gamma = float(eta), float(gamma)
    if not eta > -1.0 or math.isinf(eta):
        raise ValueError(f"eta must be a finite number > -1, got {eta!r}.")
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"gamma must be in the open interval (0, 1), got {gamma!r}.")
    return eta, gamma


def expected_trials(eta, gamma):
    r"""E[K] for the truncated negative binomial :math:`\mathcal D_{\eta,\gamma}`.

    Parameters
    ----------
    eta : float
        Shape, > -1.
    gamma : float
        In (0, 1).

    Returns
    -------
    float
        :math:`\eta(1-\gamma)/(\gamma(1-\gamma^\eta))`, or
        :math:`(1/\gamma - 1)/\log(1/\gamma)` for eta = 0.
    """
    eta, gamma = _check_eta_gamma(eta, gamma)
    if eta == 0.0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * math.log(gamma)))


def gamma_for_expected_trials(mean, eta):
    """The gamma with ``expected_trials(eta, gamma) == mean`` (mean > 1).

    E[K] decreases in gamma, so the root is unique (Brent's method).

    Parameters
    ----------
    mean : float
        The wanted E[K], finite and > 1.
    eta : float
        Shape of the distribution, > -1.

    Returns
    -------
    float
        gamma in (0, 1).
    """
    mean = float(mean)
    if not mean > 1.0 or math.isinf(mean):
        raise ValueError(
            f"the expected number of trials must be a finite number > 1, got {mean!r}.")
    _check_eta_gamma(eta, 0.5)
    return optimize.brentq(lambda g: expected_trials(eta, g) - mean, 1e-15, 1.0 - 1e-12,
                           xtol=1e-15, rtol=1e-13)


def sample_trials(rng, eta, gamma):
    """Draw K from the truncated negative binomial (numpy's samplers, eta >= 0).

    eta = 0: the logarithmic distribution, ``rng.logseries(1 - gamma)``; eta > 0: a
    negative binomial (eta successes, success probability gamma) conditioned on K >= 1,
    whose law is exactly D_{eta, gamma} (the product above is Gamma(k+eta)/(Gamma(eta) k!)).

    Parameters
    ----------
    rng : numpy.random.Generator
        The search's only source of randomness.
    eta : float
        Shape, >= 0.
    gamma : float
        In (0, 1).

    Returns
    -------
    int
        K >= 1.
    """
    eta, gamma = _check_eta_gamma(eta, gamma)
    if eta < 0.0:
        raise ValueError("Sampling is implemented for eta >= 0 only.")
    if eta == 0.0:
        return int(rng.logseries(1.0 - gamma))
    while True:
        k = int(rng.negative_binomial(eta, gamma))
        if k >= 1:
            return k


def best_of_random_trials_rdp(orders, mu, *, eta, gamma):
    r"""RDP of the best of K ~ D_{eta,gamma} runs of a mu-GDP mechanism (Theorem 2).

    Parameters
    ----------
    orders : array-like of float > 1
        Renyi orders alpha at which to evaluate the bound.
    mu : float >= 0
        GDP parameter of one run (trial).
    eta, gamma : float
        Parameters of the distribution of K.

    Returns
    -------
    ndarray
        :math:`\alpha\mu^2/2 + (1+\eta)[(\hat\lambda-1)\mu^2/2 + \log(1/\gamma)/\hat\lambda]
        + \log \mathbb E[K]/(\alpha-1)` with the optimal
        :math:`\hat\lambda = \max(1, \sqrt{2\log(1/\gamma)}/\mu)`.
    """
    eta, gamma = _check_eta_gamma(eta, gamma)
    orders = np.asarray(orders, dtype=float)
    eps = gdp_to_rdp(orders, mu)
    log_inv_gamma = -math.log(gamma)
    lam_hat = math.inf if mu == 0.0 else max(1.0, math.sqrt(2.0 * log_inv_gamma) / mu)
    if lam_hat == math.inf:
        hat_term = 0.0
    else:
        eps_hat = float(gdp_to_rdp([lam_hat], mu)[0]) if lam_hat > 1.0 else mu * mu / 2.0
        hat_term = (1.0 + eta) * ((1.0 - 1.0 / lam_hat) * eps_hat + log_inv_gamma / lam_hat)
    return eps + hat_term + math.log(expected_trials(eta, gamma)) / (orders - 1.0)
