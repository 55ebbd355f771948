r"""A release known by an upper bound on its Renyi-DP curve (e.g. ``DPSearchCV``'s
selection), composed by the ``rdp`` accountant through
:meth:`~skdpgd.accounting.PrivacyEvent.renyi_dp`."""

from dataclasses import dataclass

import numpy as np

from .._checks import as_orders
from ._base import REPLACE_ONE, NeighbouringRelation, PrivacyEvent

__all__ = ["RenyiDpEvent"]


@dataclass(frozen=True)
class RenyiDpEvent(PrivacyEvent, kind="renyi"):
    r"""A release known by an upper bound on its Renyi-DP curve.

    The mechanism is :math:`(\alpha, \varepsilon(\alpha))`-RDP at every listed order
    (Mironov 2017, Definition 4).

    Parameters
    ----------
    orders : tuple of float
        Orders alpha > 1.
    rdp : tuple of float
        epsilon(alpha) >= 0 at each order (``inf`` allowed).
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    orders: tuple
    rdp: tuple
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        orders = as_orders(self.orders)
        rdp = np.atleast_1d(np.asarray(self.rdp, dtype=float))
        if rdp.shape != orders.shape or np.any(np.isnan(rdp)) or np.any(rdp < 0):
            raise ValueError(
                f"rdp must hold one value >= 0 per order ({orders.size} orders); got "
                f"shape {rdp.shape} with min {np.min(rdp) if rdp.size else None!r}."
            )
        object.__setattr__(self, "orders", tuple(float(a) for a in orders))
        object.__setattr__(self, "rdp", tuple(float(e) for e in rdp))
        object.__setattr__(self, "relation", NeighbouringRelation.parse(self.relation))

    def __repr__(self):
        return (f"RenyiDpEvent({len(self.orders)} orders in [{self.orders[0]:g}, "
                f"{self.orders[-1]:g}], relation={self.relation.value})")

    def renyi_dp(self):
        """``(orders, rdp)``: the curve as given.

        Returns
        -------
        tuple of (tuple of float, tuple of float)
            ``(self.orders, self.rdp)``.
        """
        return (self.orders, self.rdp)
