r"""Composition of privacy events: the one place where events are added up.

Pure functions and immutable values. A :class:`~skdpgd.PrivacyLedger`,
:func:`skdpgd.model_selection.search_privacy_cost` and
:class:`skdpgd.model_selection.DPSearchCV` all compose through this module, and all ask
:func:`check_supported` before they record or run anything.

Rules (replace-one neighbours; every event must state ``REPLACE_ONE``)
----------------------------------------------------------------------
One record's events :math:`E_1, \dots, E_k` (adaptive composition):

- **Gaussian DP only**: :math:`\mu = \sqrt{\sum_j \mu_j^2}`, exact (Dong, Roth and Su
  2022, Corollary 3.3), converted losslessly to (epsilon, delta) by their Corollary 2.13
  (:func:`skdpgd.accounting.gdp_to_epsilon`).
- **With Renyi-DP events** (no Poisson runs): the curves add up (Mironov 2017,
  Proposition 1) with the Gaussian part as :math:`\varepsilon(\alpha) = \alpha\mu^2/2`
  (Dong, Roth and Su 2022, Corollary B.6), converted by
  :func:`skdpgd.accounting.rdp_to_epsilon` (Canonne, Kamath and Steinke 2020,
  Proposition 12). All Renyi events must share their orders.
- **With Poisson-sampled Gaussian runs** (no Renyi events): one PLD accountant of
  ``dp-accounting`` under replace-one composes the Gaussian part (as
  ``GaussianDpEvent(2/mu)``, exactly mu-GDP) with every run
  (:func:`skdpgd.accounting.composed_replace_one_epsilon`; Doroshenko et al. 2022;
  pessimistic discretisation, an upper bound).
- **Renyi events together with Poisson runs**: no common currency in which skdpgd
  composes them exactly: refused (:class:`UnsupportedEventError`).
- **Gaussian DP with an additive delta** (:class:`GaussianDpWithDeltaEvent`
  ``(mu, delta_0)``, e.g. a DP pipeline whose preparation thresholds noisy counts): its
  mu joins the Gaussian part above and its :math:`\delta_0` adds to the record's additive
  delta :math:`\Delta = \sum_j \delta_{0,j}`; whatever the rest of the composition is
  (GDP, RDP or PLD), epsilon at ``delta`` is the rest's epsilon at :math:`\delta -
  \Delta` (infinite when :math:`\Delta \ge \delta`). Proof (a hybrid argument): fix
  neighbours :math:`(D, D')`; for each such release replace its output on :math:`D`
  (given the earlier outputs) by the distribution :math:`\tilde P_j` within total
  variation :math:`\delta_{0,j}` that the event's definition provides. The composed
  output on :math:`D` moves by at most :math:`\Delta` in total variation (one release
  at a time, triangle inequality), and the modified composition against the output on
  :math:`D'` is a composition of the clean guarantees, bounded as above (for GDP, Dong,
  Roth and Su 2022, Corollary 3.3, which holds for adaptive composition). So for every
  set :math:`S`, :math:`P_D(S) \le \tilde P_D(S) + \Delta \le e^\varepsilon
  P_{D'}(S) + \delta_{\mathrm{rest}}(\varepsilon) + \Delta`.

Per record (:class:`~skdpgd.accounting._record_account.RecordAccount`): an event recorded with public row ids is 0-GDP for
every record outside them (parallel composition under replace-one: the output's law does
not change when a record it never reads is replaced); an event without ids is charged to
every record, including records never named. A data set's cost is its worst record's.
The ids must be chosen from public information (ids, a seed, n), never from the data.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from ._events import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    NeighbouringRelation,
    PoissonSampledGaussianEvent,
    RenyiDpEvent,
    UnsupportedEvent,
    UnsupportedEventError,
)
from ._gdp import epsilon_delta_to_gdp, gdp_to_epsilon
from ._rdp import rdp_to_epsilon

__all__ = [
    "Cap",
    "Composition",
    "check_supported",
    "compose",
    "supports",
]

GDP_SOURCE = "Dong, Roth, Su (2022), Corollary 3.3 (exact GDP composition) and Corollary 2.13"
RDP_SOURCE = "Mironov (2017), Proposition 1 (RDP composition); Canonne, Kamath, Steinke (2020)"
PLD_SOURCE = ("PLD composition of the Gaussian and Poisson-subsampled Gaussian dominating "
              "pairs, replace-one (dp-accounting; Doroshenko et al. 2022)")

_SUPPORTED = (GaussianDpEvent, GaussianDpWithDeltaEvent, PoissonSampledGaussianEvent,
              RenyiDpEvent)
_GAUSSIAN = (GaussianDpEvent, GaussianDpWithDeltaEvent)
GDP_DELTA_SOURCE = ("additive deltas of GaussianDpWithDeltaEvent added (hybrid argument, "
                    "skdpgd.accounting._composition)")


def check_supported(events):
    """Raise :class:`UnsupportedEventError` unless this module can compose ``events``.

    Refused: objects that are not events, :class:`UnsupportedEvent`, any relation
    other than ``REPLACE_ONE``, Renyi events together with Poisson runs, and Renyi events
    on different orders.

    Parameters
    ----------
    events : event or iterable of events
        What one record (or one accountant) would compose.

    Returns
    -------
    tuple
        The events, as a tuple.
    """
    events = _as_tuple(events)
    for event in events:
        if isinstance(event, UnsupportedEvent):
            raise UnsupportedEventError(
                f"This release cannot be composed by any skdpgd accountant: {event.reason}"
            )
        if not isinstance(event, _SUPPORTED):
            raise UnsupportedEventError(
                f"Not a privacy event skdpgd can compose: {event!r}. Supported: "
                "GaussianDpEvent, GaussianDpWithDeltaEvent, PoissonSampledGaussianEvent, "
                "RenyiDpEvent."
            )
        if event.relation is not NeighbouringRelation.REPLACE_ONE:
            raise UnsupportedEventError(
                f"{event!r} is stated for {event.relation.value} neighbours; skdpgd composes "
                "replace-one guarantees only (n public), and a guarantee does not transfer "
                "between the relations at the same parameters."
            )
    kinds = {type(e) for e in events}
    if RenyiDpEvent in kinds and PoissonSampledGaussianEvent in kinds:
        raise UnsupportedEventError(
            "These events mix a Renyi-DP curve (e.g. a DPSearchCV selection) with a "
            "Poisson-sampled SGD run (composed by PLD): there is no common currency in which "
            "skdpgd can compose them exactly, so the spend is refused before it touches the "
            "data. Use separate data sets, or solver='gd'/'cyclic' with DPSearchCV."
        )
    orders = {e.orders for e in events if isinstance(e, RenyiDpEvent)}
    if len(orders) > 1:
        raise UnsupportedEventError(
            "Renyi-DP events on different orders cannot be added up; compute every curve "
            "on skdpgd.accounting.DEFAULT_ORDERS."
        )
    return events


def supports(events):
    """Whether :func:`check_supported` accepts ``events``.

    Parameters
    ----------
    events : event or iterable of events
        The events to test.

    Returns
    -------
    bool
        True when they can be composed.
    """
    try:
        check_supported(events)
    except UnsupportedEventError:
        return False
    return True


def _as_tuple(events):
    if isinstance(events, (GaussianDpEvent, GaussianDpWithDeltaEvent,
                           PoissonSampledGaussianEvent, RenyiDpEvent, UnsupportedEvent)):
        return (events,)
    return tuple(events)


@dataclass(frozen=True)
class Composition:
    """The composed cost of some events for one record.

    Attributes
    ----------
    epsilon, delta : float
    mu : float or None
        The exact GDP parameter when every event is Gaussian DP without an additive
        delta; None otherwise.
    method : str
        ``"gdp"`` (exact), ``"gdp+delta"`` (exact GDP plus additive deltas), ``"rdp"`` or
        ``"pld"``.
    source : str
        The theorems used.
    extra_delta : float, default=0.0
        The additive delta of :class:`GaussianDpWithDeltaEvent` events, already taken
        out of ``delta`` before epsilon was computed.
    """

    epsilon: float
    delta: float
    mu: float | None
    method: str
    source: str
    extra_delta: float = 0.0


def compose(events, delta):
    """Compose one record's events at ``delta`` (the rules are in the module docstring).

    Parameters
    ----------
    events : event or iterable of events
        One record's events (any order: composition is commutative).
    delta : float
        In (0, 1).

    Returns
    -------
    Composition
        epsilon at ``delta``, mu when every event is Gaussian DP, the method and sources.
    """
    events = check_supported(events)
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    mu2 = math.fsum(e.mu * e.mu for e in events if isinstance(e, _GAUSSIAN))
    extra = math.fsum(e.extra_delta for e in events if isinstance(e, GaussianDpWithDeltaEvent))
    return _compose(mu2, tuple(e.run for e in events if isinstance(e, PoissonSampledGaussianEvent)),
                    [e for e in events if isinstance(e, RenyiDpEvent)], delta, extra)


def _compose(mu2, runs, renyi, delta, extra=0.0):
    """Compose a Gaussian part (sum of mu^2), Poisson runs and Renyi events (checked),
    with an additive delta ``extra`` taken out of ``delta`` first."""
    if extra > 0.0:
        if extra >= delta:
            return Composition(math.inf, delta, None, "gdp+delta",
                               GDP_SOURCE + "; " + GDP_DELTA_SOURCE, float(extra))
        comp = _compose(mu2, runs, renyi, delta - extra)
        return Composition(comp.epsilon, delta, None,
                           "gdp+delta" if comp.method == "gdp" else comp.method,
                           comp.source + "; " + GDP_DELTA_SOURCE, float(extra))
    if runs:
        from ._sampled_sgd import composed_replace_one_epsilon

        eps = composed_replace_one_epsilon(delta, gaussian_mu=math.sqrt(mu2), poisson_runs=runs)
        return Composition(eps, delta, None, "pld", GDP_SOURCE + "; " + PLD_SOURCE)
    if renyi:
        orders = np.asarray(renyi[0].orders)
        curve = orders * mu2 / 2.0 + np.sum([e.rdp for e in renyi], axis=0)
        eps = (math.inf if not np.all(np.isfinite(curve))
               else rdp_to_epsilon(orders, curve, delta))
        return Composition(eps, delta, None, "rdp", GDP_SOURCE + "; " + RDP_SOURCE)
    mu = math.sqrt(mu2)
    eps = math.inf if mu == math.inf else gdp_to_epsilon(mu, delta)
    return Composition(eps, delta, mu, "gdp", GDP_SOURCE)


@dataclass(frozen=True)
class Cap:
    """A cap on the worst record's (epsilon, delta), tested exactly.

    When the composition is Gaussian DP the test is ``mu <= epsilon_delta_to_gdp(epsilon,
    delta)``, the largest mu that is (epsilon, delta)-DP (lossless); otherwise
    ``epsilon_at_delta <= epsilon``.

    Parameters
    ----------
    epsilon : float
        > 0 (``inf``: no limit).
    delta : float
        In (0, 1).
    """

    epsilon: float
    delta: float
    mu: float = field(init=False)

    def __post_init__(self):
        eps, delta = float(self.epsilon), float(self.delta)
        if math.isnan(eps) or eps <= 0.0:
            raise ValueError(f"cap epsilon must be a number > 0, got {self.epsilon!r}.")
        if not 0.0 < delta < 1.0:
            raise ValueError(f"cap delta must be in (0, 1), got {self.delta!r}.")
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "mu", math.inf if eps == math.inf
                           else epsilon_delta_to_gdp(eps, delta))

    def admits(self, composition):
        """Whether ``composition`` (computed at this cap's delta) is within the cap.

        Parameters
        ----------
        composition : Composition
            The worst record's cost at :attr:`delta`.

        Returns
        -------
        bool
            True when it does not exceed the cap.
        """
        if composition.mu is not None:
            return composition.mu <= self.mu
        return composition.epsilon <= self.epsilon


def __getattr__(name):
    """Old pickles name ``skdpgd.accounting._composition.RecordAccount``: still found."""
    if name == "RecordAccount":
        # only for unpickling objects saved before RecordAccount moved to _record_account
        # lazy: breaks the circle with _record_account (which imports this module)
        from ._record_account import RecordAccount

        return RecordAccount
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
