r"""The one conservative rounding rule: a budget is met with a relative margin of 1e-9.

A release calibrated to a target :math:`(\varepsilon, \delta)` is given
:math:`\mu = (1 - 10^{-9})\,\mu^*(\varepsilon, \delta)`, with :math:`\mu^*` the largest
GDP parameter meeting the target (:func:`~skdpgd.accounting.epsilon_delta_to_gdp`). The
two conversions are each conservative against the exact curve, but the round trip
:math:`\varepsilon \to \mu^* \to \varepsilon'` is the identity only to their rounding
steps (about :math:`3 \times 10^{-14}` relative above :math:`\varepsilon`), and the splits
and compositions of :math:`\mu` add a few float roundings; the margin keeps every
reported epsilon at or below the target with a thousand-fold room, at a cost of
:math:`10^{-9}` relative in the noise. The same margin is the tolerance with which a
step's reported :math:`\mu` is compared to its allowance. Derivation and measurement:
``docs/theory.md#conservative-rounding``.
"""

import math

from ._gdp import epsilon_delta_to_gdp

#: Relative margin of every calibration (docs/theory.md#conservative-rounding).
ROUNDING_MARGIN = 1e-9


def round_down(mu):
    """``mu`` lowered by the relative margin (``inf`` stays ``inf``).

    Parameters
    ----------
    mu : float
        A GDP parameter that meets a target exactly (up to the conversions' rounding).

    Returns
    -------
    float
        :math:`(1 - 10^{-9})\\,\\mu`.
    """
    return mu * (1.0 - ROUNDING_MARGIN)


def calibrated_mu(epsilon, delta):
    """The GDP parameter a release spends for the target ``(epsilon, delta)``.

    Parameters
    ----------
    epsilon : float
        > 0, or ``inf`` (no noise).
    delta : float
        In (0, 1): the part of delta met by Gaussian DP.

    Returns
    -------
    float
        :func:`round_down` of :func:`~skdpgd.accounting.epsilon_delta_to_gdp`;
        ``inf`` for ``epsilon=inf``.
    """
    if epsilon == math.inf:
        return math.inf
    return round_down(float(epsilon_delta_to_gdp(epsilon, delta)))


def within_allowance(spent, allowance):
    """Whether a reported cost is within its allowance, up to the relative margin.

    Parameters
    ----------
    spent, allowance : float
        A reported mu (or additive delta) and what it was allowed.

    Returns
    -------
    bool
    """
    return spent <= allowance * (1.0 + ROUNDING_MARGIN)
