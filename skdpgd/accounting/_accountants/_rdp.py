r"""The ``rdp`` accountant: Renyi-DP curves added up with the Gaussian part.

The curves add (Mironov 2017, Proposition 1) with the Gaussian part as
:math:`\varepsilon(\alpha) = \alpha\mu^2/2` (Dong, Roth and Su 2022, Corollary B.6),
converted by :func:`skdpgd.accounting.rdp_to_epsilon` (Canonne, Kamath and Steinke 2020,
Proposition 12). All Renyi events must share their orders.
"""

import math
from dataclasses import dataclass

import numpy as np

from .._events import UnsupportedEventError
from .._rdp import DEFAULT_ORDERS, rdp_to_epsilon
from ._base import GDP_SOURCE, Accountant, register_accountant

__all__ = ["RdpAccountant"]

RDP_SOURCE = "Mironov (2017), Proposition 1 (RDP composition); Canonne, Kamath, Steinke (2020)"


@register_accountant
@dataclass(frozen=True)
class RdpAccountant(Accountant):
    """Composes Gaussian-DP events and Renyi-DP curves (registered as ``"rdp"``).

    Parameters
    ----------
    mu2 : float, default=0.0
        Sum of :math:`\\mu_j^2` of the Gaussian part.
    extra_delta : float, default=0.0
        Sum of the additive deltas.
    orders : tuple of float or None, default=None
        The orders every curve is given at (None: no curve yet; the Gaussian part alone
        is read on :data:`~skdpgd.accounting.DEFAULT_ORDERS`).
    curves : tuple of tuple of float, default=()
        The Renyi-DP curves composed, one per event.
    """

    orders: tuple | None = None
    curves: tuple = ()

    name = "rdp"
    source = GDP_SOURCE + "; " + RDP_SOURCE
    priority = 20

    def _compose_rest(self, events):
        orders, curves = self.orders, list(self.curves)
        for event in events:
            form = event.renyi_dp()
            if form is None:
                raise UnsupportedEventError(
                    f"{event!r} has neither a Gaussian-DP form nor a Renyi-DP curve, the "
                    "forms the rdp accountant composes."
                )
            if orders is not None and tuple(form[0]) != orders:
                raise UnsupportedEventError(
                    "Renyi-DP events on different orders cannot be added up; compute "
                    "every curve on skdpgd.accounting.DEFAULT_ORDERS."
                )
            orders = tuple(form[0])
            curves.append(tuple(form[1]))
        return {"orders": orders, "curves": tuple(curves)}

    def _epsilon(self, delta):
        orders = np.asarray(DEFAULT_ORDERS if self.orders is None else self.orders)
        curve = orders * self.mu2 / 2.0
        if self.curves:
            curve = curve + np.sum(self.curves, axis=0)
        return (math.inf if not np.all(np.isfinite(curve))
                else rdp_to_epsilon(orders, curve, delta))
