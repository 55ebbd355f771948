r"""Renyi-DP bounds used for comparison reports, and RDP -> (epsilon, delta).

skdpgd's guarantees come from the Gaussian-DP bounds in :mod:`._noisy_gd`; the Renyi
bounds here exist so that reports can show what the RDP literature (and DP-SGD
libraries) would have claimed for the same run.
"""

import math

import numpy as np

from ..exceptions import BoundNotApplicableError
from ._checks import as_orders, check_count, check_positive, check_probability
from ._noisy_gd import _check_common, contraction_factor


def gdp_to_rdp(orders, mu):
    r"""Renyi-DP implied by mu-GDP: :math:`\varepsilon(\alpha) = \alpha\mu^2/2`.

    A mu-GDP mechanism is dominated by the pair N(0,1), N(mu,1), whose Renyi divergence
    of order alpha is alpha mu^2 / 2 (Dong, Roth and Su 2022, Corollary B.6; Mironov 2017,
    Proposition 7; :ref:`GDP to Rényi DP <gdp-to-rdp>`).

    Parameters
    ----------
    orders : float or array-like of float
        Renyi orders alpha > 1 (a 1-D sequence).
    mu : float
        mu >= 0, the GDP parameter (``inf`` allowed).

    Returns
    -------
    ndarray of float
        :math:`\alpha\mu^2/2` for each order, with the shape of ``orders``.
    """
    orders = as_orders(orders)
    mu = check_positive("mu", mu, allow_zero=True, allow_inf=True)
    return orders * mu * mu / 2.0


def composition_rdp(orders, noise_std, n_steps, *, sensitivity, n_samples):
    r"""RDP of K noisy full-batch gradient steps by composition (baseline (E)).

    .. math:: \varepsilon(\alpha) = K\,\alpha\,\frac{(S/n)^2}{2\sigma^2}

    Mironov (2017), Proposition 7 (the Gaussian mechanism with sensitivity S/n and noise
    sigma on the averaged gradient) and Proposition 1 (composition of K of them);
    :ref:`bound-e`. Reported next to the GDP bounds for comparison.

    Parameters
    ----------
    orders : float or array-like of float
        Renyi orders alpha > 1 (a 1-D sequence).
    noise_std : float
        sigma >= 0, standard deviation of the noise on the averaged gradient.
    n_steps : int or float
        K >= 0, the number of steps (``inf`` allowed).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).

    Returns
    -------
    ndarray of float
        :math:`\varepsilon(\alpha)` for each order: zeros when K = 0, S = 0 or
        sigma = inf; ``inf`` when sigma = 0 and K, S > 0.
    """
    orders = as_orders(orders)
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    k = check_count("n_steps", n_steps, minimum=0, allow_inf=True)
    if k == 0 or s == 0.0 or sigma == math.inf:
        return np.zeros_like(orders)
    if sigma == 0.0:
        return np.full_like(orders, math.inf)
    return k * orders * (s / n) ** 2 / (2.0 * sigma * sigma)


def chourasia_rdp(
    orders,
    noise_std,
    n_steps,
    *,
    sensitivity,
    n_samples,
    learning_rate,
    strong_convexity,
    smoothness,
):
    r"""Chourasia, Ye and Shokri's Renyi-DP bound for noisy GD (bound D), per order.

    With :math:`s = \sigma\sqrt{\eta/2}` (their noise :math:`\sqrt{2\eta}\,s\,N(0,I)`),

    .. math::

        \varepsilon(\alpha) = \frac{\alpha S^2}{\lambda s^2 n^2}
            \big(1 - e^{-\lambda\eta K/2}\big)

    Chourasia, Ye and Shokri (NeurIPS 2021), Corollary 1 (:ref:`bound-d`), for
    lam-strongly convex, beta-smooth objectives and ``eta < 1/beta``. Their hypotheses
    also include a random start, which skdpgd's runs (theta_0 = 0) do not meet: reports
    show this bound for comparison only, never as a guarantee.

    Parameters
    ----------
    orders : float or array-like of float
        Renyi orders alpha > 1 (a 1-D sequence).
    noise_std : float
        sigma >= 0, standard deviation of the noise on the averaged gradient.
    n_steps : int or float
        K >= 0, the number of steps (``inf`` gives the limit, :math:`1 - e^{-\infty} = 1`).
    sensitivity : float
        S >= 0, replace-one sensitivity of one per-example gradient.
    n_samples : int
        n >= 1, number of records (public).
    learning_rate : float
        eta in (0, 1/beta).
    strong_convexity : float
        lam > 0, the strong convexity of the objective.
    smoothness : float
        beta >= lam, the smoothness of the objective.

    Returns
    -------
    ndarray of float
        :math:`\varepsilon(\alpha)` for each order: zeros when K = 0, S = 0 or
        sigma = inf; ``inf`` when sigma = 0 and K, S > 0.

    Raises
    ------
    BoundNotApplicableError
        When ``learning_rate >= 1 / smoothness`` or ``strong_convexity == 0``: the
        theorem says nothing about such runs (skdpgd's default step 2/(beta+lam) is
        larger than 1/beta, so reports then say "does not apply").
    """
    orders = as_orders(orders)
    sigma, s, n = _check_common(noise_std, sensitivity, n_samples)
    k = check_count("n_steps", n_steps, minimum=0, allow_inf=True)
    contraction_factor(learning_rate, strong_convexity, smoothness)  # validates
    eta, lam, beta = float(learning_rate), float(strong_convexity), float(smoothness)
    if not eta * beta < 1.0:
        raise BoundNotApplicableError(
            f"Chourasia et al.'s bound needs learning_rate < 1/smoothness = {1.0 / beta!r}, "
            f"got learning_rate={eta!r}."
        )
    if lam == 0.0:
        raise BoundNotApplicableError("Chourasia et al.'s bound needs strong_convexity > 0.")
    if k == 0 or s == 0.0 or sigma == math.inf:
        return np.zeros_like(orders)
    if sigma == 0.0:
        return np.full_like(orders, math.inf)
    s_sq = sigma * sigma * eta / 2.0
    decay = 1.0 if k == math.inf else -math.expm1(-lam * eta * k / 2.0)
    return orders * s * s / (lam * s_sq * n * n) * decay


def rdp_to_epsilon(orders, rdp, delta):
    r"""Convert a Renyi-DP curve to (epsilon, delta)-DP, taking the best order.

    For each order alpha the better of

    - Canonne, Kamath and Steinke (2020), Proposition 12:
      :math:`\varepsilon(\alpha) + \log\frac{\alpha-1}{\alpha}
      - \frac{\log\delta + \log\alpha}{\alpha-1}`, and
    - Mironov (2017), Proposition 3: :math:`\varepsilon(\alpha) + \frac{\log(1/\delta)}{\alpha-1}`,

    minimised over the given orders and clipped at 0 (:ref:`rdp-conversion`).
    Both are valid upper bounds, so is their minimum.

    Parameters
    ----------
    orders : float or array-like of float
        Renyi orders alpha > 1 (a 1-D sequence), e.g. :data:`DEFAULT_ORDERS`.
    rdp : float or array-like of float
        :math:`\varepsilon(\alpha) \ge 0` at each order (broadcast to the shape of
        ``orders``; ``inf`` allowed, nan refused).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        The smallest epsilon over the orders and the two conversions, at least 0.
    """
    orders = as_orders(orders)
    rdp = np.broadcast_to(np.asarray(rdp, dtype=float), orders.shape)
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise ValueError("rdp values must be >= 0 and not nan.")
    delta = check_probability("delta", delta)
    log_delta = math.log(delta)
    cks = rdp + np.log((orders - 1.0) / orders) - (log_delta + np.log(orders)) / (orders - 1.0)
    mironov = rdp - log_delta / (orders - 1.0)
    return float(max(0.0, np.min(np.minimum(cks, mironov))))


#: Renyi orders used by reports (a grid in the style of Opacus / dp_accounting): 191
#: orders, 1.1 to 10.9 in steps of 0.1, the integers 12 to 63, and 40 geometrically
#: spaced from 64 to 1e5.
#:
#: :meta hide-value:
DEFAULT_ORDERS = np.concatenate(
    [1.0 + np.arange(1, 100) / 10.0, np.arange(12, 64, dtype=float), np.geomspace(64, 1e5, 40)]
)
