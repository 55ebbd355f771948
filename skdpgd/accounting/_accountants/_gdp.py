r"""The ``gdp`` accountant: exact composition of Gaussian-DP events.

:math:`\mu = \sqrt{\sum_j \mu_j^2}` (Dong, Roth and Su 2022, Corollary 3.3, adaptive
composition), converted losslessly to (epsilon, delta) by their Corollary 2.13
(:func:`skdpgd.accounting.gdp_to_epsilon`, :func:`skdpgd.accounting.gdp_to_delta`); the
additive deltas of :class:`~skdpgd.accounting.GaussianDpWithDeltaEvent` add on top.
"""

import math
from dataclasses import dataclass

from .._gdp import gdp_to_delta, gdp_to_epsilon
from ._base import GDP_SOURCE, Accountant, register_accountant

__all__ = ["GdpAccountant"]


@register_accountant
@dataclass(frozen=True)
class GdpAccountant(Accountant):
    """Composes events with a Gaussian-DP form only, exactly (registered as ``"gdp"``).

    Parameters
    ----------
    mu2 : float, default=0.0
        Sum of :math:`\\mu_j^2`.
    extra_delta : float, default=0.0
        Sum of the additive deltas.
    """

    name = "gdp"
    source = GDP_SOURCE
    priority = 0

    @property
    def mu(self):
        """The composition's exact GDP parameter, :math:`\\sqrt{\\sum_j \\mu_j^2}`.

        Returns
        -------
        float
            ``inf`` when some event is.
        """
        return math.sqrt(self.mu2)

    def _epsilon(self, delta):
        mu = self.mu
        return math.inf if mu == math.inf else gdp_to_epsilon(mu, delta)

    def delta(self, epsilon):
        """The smallest delta with the composition (epsilon, delta)-DP (closed form).

        :func:`~skdpgd.accounting.gdp_to_delta` of :attr:`mu` (Dong, Roth and Su 2022,
        Corollary 2.13, lossless) plus the additive delta, at most 1.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        float
            In [0, 1].
        """
        return min(1.0, float(gdp_to_delta(self.mu, epsilon)) + self.extra_delta)
