r"""Composition of privacy events: the one entry point where events are added up.

Pure functions and immutable values over the accountants of
:mod:`skdpgd.accounting._accountants` (each event declares the forms it composes in; the
first registered accountant that takes every event composes them). A
:class:`~skdpgd.PrivacyLedger`, :func:`skdpgd.model_selection.search_privacy_cost` and
:class:`skdpgd.model_selection.DPSearchCV` all compose through this module, and all ask
:func:`check_supported` before they record or run anything.

Rules (replace-one neighbours; every event must state ``REPLACE_ONE``)
----------------------------------------------------------------------
One record's events :math:`E_1, \dots, E_k` (adaptive composition):

- **Gaussian DP only** (accountant ``gdp``): :math:`\mu = \sqrt{\sum_j \mu_j^2}`, exact (Dong, Roth
and Su
  2022, Corollary 3.3), converted losslessly to (epsilon, delta) by their Corollary 2.13
  (:func:`skdpgd.accounting.gdp_to_epsilon`).
- **With Renyi-DP events** (no Poisson runs; accountant ``rdp``): the curves add up (Mironov 2017,
  Proposition 1) with the Gaussian part as :math:`\varepsilon(\alpha) = \alpha\mu^2/2`
  (Dong, Roth and Su 2022, Corollary B.6), converted by
  :func:`skdpgd.accounting.rdp_to_epsilon` (Canonne, Kamath and Steinke 2020,
  Proposition 12). All Renyi events must share their orders.
- **With Poisson-sampled Gaussian runs** (no Renyi events; accountant ``pld``): one PLD accountant
of
  ``dp-accounting`` under replace-one composes the Gaussian part (as
  ``GaussianDpEvent(2/mu)``, exactly mu-GDP) with every run
  (:func:`skdpgd.accounting.composed_replace_one_epsilon`; Doroshenko et al. 2022;
  pessimistic discretisation, an upper bound).
- **Renyi events together with Poisson runs**: no common currency in which skdpgd
  composes them exactly: no accountant takes both, so they are refused
  (:class:`UnsupportedEventError`).
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

Per record (:class:`~skdpgd.accounting._record_account.RecordAccount`): an event recorded with
public row ids is 0-GDP for every record outside them (parallel composition under replace-one: the
output's law does not change when a record it never reads is replaced); an event without ids is
charged to every record, including records never named. A data set's cost is its worst record's.
The ids must be chosen from public information (ids, a seed, n), never from the data.
"""

import math
from dataclasses import dataclass, field

from ._accountants import Composition, accountant_for
from ._accountants._base import as_events
from ._gdp import epsilon_delta_to_gdp

__all__ = [
    "Cap",
    "Composition",
    "check_supported",
    "compose",
]


def check_supported(events):
    """Raise :class:`UnsupportedEventError` unless some accountant can compose ``events``.

    Refused: objects that are not events, :class:`UnsupportedEvent`, any relation
    other than ``REPLACE_ONE``, Renyi events together with Poisson runs, and Renyi events
    on different orders: whatever no registered accountant takes as a whole.

    Parameters
    ----------
    events : event or iterable of events
        What one record (or one accountant) would compose.

    Returns
    -------
    tuple
        The events, as a tuple.
    """
    events = as_events(events)
    accountant_for(events)
    return events


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
    accountant = accountant_for(events)
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    return accountant.composition(delta)


@dataclass(frozen=True)
class Cap:
    """A cap on the worst record's (epsilon, delta), tested exactly.

    When the composition is Gaussian DP it is admitted if either of two certificates
    holds: ``mu <= epsilon_delta_to_gdp(epsilon, delta)``, the largest mu that is
    (epsilon, delta)-DP (lossless, rounded down), or its epsilon at delta,
    ``gdp_to_epsilon(mu, delta)`` (rounded up), ``<= epsilon``. Each proves
    (epsilon, delta)-DP on its own; they can disagree only inside the two conversions'
    rounding margins (about 1e-10 relative), where a fit whose report states exactly
    the cap's epsilon would otherwise be refused by that cap
    (docs/theory.md#conservative-rounding). Otherwise the test is
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
        if composition.mu is not None and composition.mu <= self.mu:
            return True
        return composition.epsilon <= self.epsilon
