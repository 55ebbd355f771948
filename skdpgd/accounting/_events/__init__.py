r"""Privacy events: what a run released, as a value every accountant can read.

One module per event kind, each a frozen dataclass on :class:`PrivacyEvent`
(:mod:`._base`: the stored ``kind`` registry, the JSON form, the composition hooks and
the stored format's evolution rules). Reports expose one (``PrivacyReport.event``), the
ledger stores them, and the accountants (:mod:`skdpgd.accounting._accountants`) compose
them by the hooks each event overrides. Every event states its neighbouring relation
with :class:`NeighbouringRelation`; skdpgd's own runs are all ``REPLACE_ONE`` (n is
public).

Events
------
- :class:`GaussianDpEvent` ``(mu)``, stored as ``"gaussian"``: a :math:`\mu`-GDP
  mechanism (Dong, Roth and Su 2022, Definition 2.6): every full-batch or cyclic skdpgd
  fit.
- :class:`GaussianDpWithDeltaEvent` ``(mu, extra_delta)``, ``"gaussian_with_delta"``: a
  release that is :math:`\mu`-GDP except on an event of probability at most
  ``extra_delta`` (a private preparation step that thresholds noisy counts, and a DP
  pipeline that contains one).
- :class:`PoissonSampledGaussianEvent` ``(q, z, K)``, ``"poisson_sampled_gaussian"``: K
  steps of the Poisson-subsampled Gaussian mechanism (``solver="sgd"``).
- :class:`RenyiDpEvent` ``(orders, rdp)``, ``"renyi"``: a mechanism known by an upper
  bound on its Renyi-DP curve (Mironov 2017, Definition 4), e.g. the private selection of
  ``DPSearchCV``.
- :class:`UnsupportedEvent` ``(reason)``, ``"unsupported"``: a release no skdpgd
  accountant can compose; every accountant refuses it.

Events are frozen, hashable and serialise to plain JSON-compatible dicts
(:meth:`PrivacyEvent.to_dict`, :meth:`PrivacyEvent.from_dict`; :func:`event_to_dict`
and :func:`event_from_dict` are the same as functions) so that a ledger file can store
them.
"""

from ._base import (
    NeighbouringRelation,
    PrivacyEvent,
    UnsupportedEventError,
    event_from_dict,
    event_kinds,
    event_to_dict,
)
from ._gaussian import GaussianDpEvent, GaussianDpWithDeltaEvent
from ._poisson import PoissonSampledGaussianEvent
from ._renyi import RenyiDpEvent
from ._unsupported import UnsupportedEvent

__all__ = [
    "GaussianDpEvent",
    "GaussianDpWithDeltaEvent",
    "NeighbouringRelation",
    "PoissonSampledGaussianEvent",
    "PrivacyEvent",
    "RenyiDpEvent",
    "UnsupportedEvent",
    "UnsupportedEventError",
    "event_from_dict",
    "event_kinds",
    "event_to_dict",
]
