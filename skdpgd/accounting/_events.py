r"""Privacy events: what a run released, as a value every accountant can read.

An *event* names a mechanism by the parameters that determine its privacy, not by the
estimator that ran it (the idea of ``dp_accounting``'s ``DpEvent``). Reports expose one
(``PrivacyReport.event``), the ledger stores them, and :mod:`._composition` is the one
place that composes them. Every event states its neighbouring relation explicitly with
:class:`NeighbouringRelation`; skdpgd's own runs are all ``REPLACE_ONE`` (n is public).

Events
------
- :class:`GaussianDpEvent` ``(mu)``: a :math:`\mu`-GDP mechanism (Dong, Roth and Su 2022,
  Definition 2.6): every full-batch or cyclic skdpgd fit (Bok, Su and Altschuler 2024,
  Theorems 4.2 and 4.5 give its exact mu).
- :class:`GaussianDpWithDeltaEvent` ``(mu, extra_delta)``: a release that is
  :math:`\mu`-GDP except on an event of probability at most ``extra_delta`` (the
  thresholded releases of a private preparation step, and a DP pipeline that contains
  one); for every epsilon it is :math:`(\varepsilon, \delta_\mu(\varepsilon) +
  \delta_0)`-DP. The precise condition, and why such deltas add under composition, are
  in :mod:`._composition`.
- :class:`PoissonSampledGaussianEvent` ``(q, z, K)``: K steps of the Poisson-subsampled
  Gaussian mechanism, rate q, noise multiplier z relative to the per-example bound L
  (the steps of ``solver="sgd"``; the dominating pair is in
  :mod:`skdpgd.accounting._sampled_sgd`).
- :class:`RenyiDpEvent` ``(orders, rdp)``: a mechanism known by an upper bound on its
  Renyi-DP curve at the given orders (Mironov 2017, Definition 4), e.g. the private
  selection of ``DPSearchCV``.
- :class:`UnsupportedEvent`: a release no skdpgd accountant can compose; every
  accountant refuses it.

Events are frozen, hashable and serialise to plain JSON-compatible dicts
(:func:`event_to_dict`, :func:`event_from_dict`) so that a ledger file can store them.
"""

import enum
import math
from dataclasses import dataclass

import numpy as np

from ._checks import as_orders, check_count, check_positive

__all__ = [
    "GaussianDpEvent",
    "GaussianDpWithDeltaEvent",
    "NeighbouringRelation",
    "PoissonSampledGaussianEvent",
    "RenyiDpEvent",
    "UnsupportedEvent",
    "UnsupportedEventError",
    "event_from_dict",
    "event_to_dict",
]


class UnsupportedEventError(ValueError):
    """An accountant was asked to compose an event (or a mix of events) it cannot bound."""


class NeighbouringRelation(enum.Enum):
    """Which data sets are neighbours (the relation a guarantee is stated for).

    ``REPLACE_ONE``: one record replaced by another, n fixed and public (skdpgd's
    relation everywhere). ``ADD_OR_REMOVE_ONE``: one record added or removed. The two
    are not interchangeable: a guarantee under one does not transfer to the other at
    the same parameters, so accountants refuse to mix them.
    """

    REPLACE_ONE = "replace-one"
    ADD_OR_REMOVE_ONE = "add-or-remove-one"

    @classmethod
    def parse(cls, value):
        """The relation named by ``value`` (a member or its string value)."""
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except ValueError:
            names = [m.value for m in cls]
            raise ValueError(
                f"unknown neighbouring relation {value!r}; expected one of {names}."
            ) from None


REPLACE_ONE = NeighbouringRelation.REPLACE_ONE


def _relation(value):
    return NeighbouringRelation.parse(value)


@dataclass(frozen=True)
class GaussianDpEvent:
    r"""A :math:`\mu`-GDP release (Dong, Roth and Su 2022, Definition 2.6).

    Parameters
    ----------
    mu : float
        >= 0; ``inf`` for a release without noise.
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    mu: float
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "mu", check_positive("mu", self.mu, allow_zero=True,
                                                      allow_inf=True))
        object.__setattr__(self, "relation", _relation(self.relation))


@dataclass(frozen=True)
class GaussianDpWithDeltaEvent:
    r"""A :math:`\mu`-GDP release up to an additive :math:`\delta_0`.

    For every pair of neighbouring data sets :math:`(D, D')` there is a distribution
    :math:`\tilde P` within total variation :math:`\delta_0` of the release's output on
    :math:`D` such that :math:`\tilde P` against the output on :math:`D'` is
    :math:`\mu`-GDP (Dong, Roth and Su 2022, Definition 2.6). Then the release is
    :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP for every
    :math:`\varepsilon`, and under composition the :math:`\mu` add in squares while the
    :math:`\delta_0` add (:mod:`skdpgd.accounting._composition`). A thresholded noisy
    histogram is the example: :math:`\delta_0` bounds the chance that a value held by one
    record passes the threshold.

    Parameters
    ----------
    mu : float
        >= 0; ``inf`` for a release without noise.
    extra_delta : float
        The additive :math:`\delta_0`, in [0, 1).
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    mu: float
    extra_delta: float
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "mu", check_positive("mu", self.mu, allow_zero=True,
                                                      allow_inf=True))
        extra = check_positive("extra_delta", self.extra_delta, allow_zero=True)
        if extra >= 1.0:
            raise ValueError(f"extra_delta must be in [0, 1), got {self.extra_delta!r}.")
        object.__setattr__(self, "extra_delta", extra)
        object.__setattr__(self, "relation", _relation(self.relation))


@dataclass(frozen=True)
class PoissonSampledGaussianEvent:
    r"""K steps of the Poisson-subsampled Gaussian mechanism.

    Each step releases a sum over a Poisson sample (rate q) of vectors of norm at most L
    plus :math:`\mathcal N(0, z^2L^2 I)` noise. Under replace-one its dominating pair is
    :math:`(q\mathcal N(-1, z^2) + (1-q)\mathcal N(0, z^2),\; q\mathcal N(1, z^2) +
    (1-q)\mathcal N(0, z^2))` (``dp_accounting``'s ``PoissonSampledDpEvent`` with a
    ``GaussianDpEvent(z)`` under ``REPLACE_ONE``).

    Parameters
    ----------
    sampling_rate : float
        q in [0, 1].
    noise_multiplier : float
        z >= 0 (``inf``: no information released).
    n_steps : int
        K >= 0.
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    sampling_rate: float
    noise_multiplier: float
    n_steps: int
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        q = check_positive("sampling_rate", self.sampling_rate, allow_zero=True)
        if q > 1.0:
            raise ValueError(f"sampling_rate must be in [0, 1], got {self.sampling_rate!r}.")
        object.__setattr__(self, "sampling_rate", q)
        object.__setattr__(self, "noise_multiplier", check_positive(
            "noise_multiplier", self.noise_multiplier, allow_zero=True, allow_inf=True))
        object.__setattr__(self, "n_steps", check_count("n_steps", self.n_steps, minimum=0))
        object.__setattr__(self, "relation", _relation(self.relation))

    @property
    def run(self):
        """``(q, z, K)``."""
        return (self.sampling_rate, self.noise_multiplier, self.n_steps)


@dataclass(frozen=True)
class RenyiDpEvent:
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
        object.__setattr__(self, "relation", _relation(self.relation))

    def __repr__(self):
        return (f"RenyiDpEvent({len(self.orders)} orders in [{self.orders[0]:g}, "
                f"{self.orders[-1]:g}], relation={self.relation.value})")


@dataclass(frozen=True)
class UnsupportedEvent:
    """A release that no skdpgd accountant can compose.

    Parameters
    ----------
    reason : str
        Why (shown in the refusal).
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation of the release.
    """

    reason: str
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "relation", _relation(self.relation))


_KINDS = {
    "gaussian": GaussianDpEvent,
    "gaussian_with_delta": GaussianDpWithDeltaEvent,
    "poisson_sampled_gaussian": PoissonSampledGaussianEvent,
    "renyi": RenyiDpEvent,
    "unsupported": UnsupportedEvent,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def _json_float(x):
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _from_json_float(x):
    return float(x)


def event_to_dict(event):
    """A JSON-compatible dict for ``event`` (``kind`` plus its fields; inf as ``"inf"``)."""
    name = _NAMES.get(type(event))
    if name is None:
        raise TypeError(f"not a privacy event: {event!r}")
    out = {"kind": name, "relation": event.relation.value}
    if isinstance(event, GaussianDpEvent):
        out["mu"] = _json_float(event.mu)
    elif isinstance(event, GaussianDpWithDeltaEvent):
        out.update(mu=_json_float(event.mu), extra_delta=event.extra_delta)
    elif isinstance(event, PoissonSampledGaussianEvent):
        out.update(sampling_rate=event.sampling_rate,
                   noise_multiplier=_json_float(event.noise_multiplier), n_steps=event.n_steps)
    elif isinstance(event, RenyiDpEvent):
        out.update(orders=list(event.orders), rdp=[_json_float(e) for e in event.rdp])
    else:
        out["reason"] = event.reason
    return out


def event_from_dict(data):
    """The event :func:`event_to_dict` wrote (fields are re-validated)."""
    if not isinstance(data, dict) or data.get("kind") not in _KINDS:
        raise ValueError(f"not a serialised privacy event: {data!r}")
    kind, relation = data["kind"], data.get("relation")
    if kind == "gaussian":
        return GaussianDpEvent(_from_json_float(data["mu"]), relation)
    if kind == "gaussian_with_delta":
        return GaussianDpWithDeltaEvent(_from_json_float(data["mu"]),
                                        float(data["extra_delta"]), relation)
    if kind == "poisson_sampled_gaussian":
        return PoissonSampledGaussianEvent(
            data["sampling_rate"], _from_json_float(data["noise_multiplier"]),
            data["n_steps"], relation)
    if kind == "renyi":
        return RenyiDpEvent(tuple(data["orders"]),
                            tuple(_from_json_float(e) for e in data["rdp"]), relation)
    return UnsupportedEvent(str(data["reason"]), relation)
