"""Accountants: one small interface (:class:`Accountant`), a registry, and skdpgd's three.

Each declares its ``priority``, the order :func:`accountant_for` tries them (smallest
first; unique, refused otherwise):

- ``"gdp"`` (:class:`GdpAccountant`, priority 0): exact Gaussian-DP composition, first,
  so that Gaussian-DP events alone always get the exact answer;
- ``"pld"`` (:class:`PldAccountant`, 10): Poisson-subsampled Gaussian runs with the
  Gaussian part, by privacy loss distributions;
- ``"rdp"`` (:class:`RdpAccountant`, 20): Renyi-DP curves with the Gaussian part.

The last two never both compose one list of skdpgd's events (neither takes the other's
form), so their order does not change any result.
"""

from ._base import (
    Accountant,
    Composition,
    accountant_for,
    accountant_names,
    get_accountant,
    register_accountant,
)
from ._gdp import GdpAccountant
from ._pld import PldAccountant
from ._rdp import RdpAccountant

__all__ = [
    "Accountant",
    "Composition",
    "GdpAccountant",
    "PldAccountant",
    "RdpAccountant",
    "accountant_for",
    "accountant_names",
    "get_accountant",
    "register_accountant",
]
