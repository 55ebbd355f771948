r"""The one release protocol: public plan, admission by the ledger, run, check, store.

An internal layer of skdpgd, not API: no ``__all__`` and no API page; what it
charges and checks is documented in :doc:`/architecture`.

Every private computation of skdpgd (an estimator's fit, a private step's standalone
fit, a DPPipeline's fit and ``prepare``, a DPSearchCV, ``privacy_utility_curve``, the
planned costs of a search) follows one order, written here once:

1. **plan** -- from public numbers only (n, d, the parameters, a table's column
   dtypes): what will be released and what it costs, as reports whose ``event`` a
   ledger composes. Every refusal that public numbers decide is made here.
2. **admit** -- the ledger is charged with the planned cost (:func:`admit`), before
   any value is read. The ledger may refuse (its cap); nothing is then read.
3. **run** -- the values are read and the computation runs within the
   :class:`Allowance` the charge covered.
4. **check** -- what the run reports it spent is within that allowance
   (:meth:`Allowance.check`).
5. **store** -- only then are the fitted attributes set.

**The contract of admission.** After :func:`admit` has charged a ledger, nothing may
raise for a reason known at plan time: a refusal after the charge may depend only on one
record being outside the domain (a NaN, a label outside ``classes``), never on public
numbers and never on the data set as a whole (``docs/privacy_model.md``, "Which errors
depend on the data"). :func:`release` enforces the order by construction: it calls
``plan`` first, and ``run`` only after the charge; a site that cannot pass its run as a
function (the estimators, whose run is written in their ``fit``) calls :func:`admit`
directly after its plan, and its run follows. This module is the only one outside the
ledger that calls a ledger's ``charge`` (``tests/accounting/test_release_protocol.py``
counts them).

**The currency.** Inside, an allowance is a Gaussian-DP parameter :math:`\mu` plus an
additive :math:`\delta_0` (:class:`Allowance`); epsilon exists only at the edges: what a
user passes (turned into :math:`\mu` once, by the one rounding rule of
:mod:`skdpgd.accounting._margin`), and what a report prints (:meth:`Allowance.epsilon_at`).

The ledger is duck-typed: any object with ``charge(source, report, *, n_samples,
sample_ids)`` (and ``charge_event`` for an :class:`Allowance` charged as such), so that
this layer, below the estimators, needs no import of :mod:`skdpgd._ledger`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

from ._events import GaussianDpEvent, GaussianDpWithDeltaEvent, PrivacyEvent
from ._gdp import gdp_to_delta, gdp_to_epsilon
from ._inverter import TargetUnreachableError, invert_monotone
from ._margin import within_allowance

PlanT = TypeVar("PlanT")
ResultT = TypeVar("ResultT")


class Ledger(Protocol):
    """What the protocol charges: an object with the ledger's ``charge`` method."""

    def charge(self, estimator: Any, report: Any, *, n_samples: int,
               sample_ids: Any = None) -> None:
        """Record a release, or refuse it (``skdpgd.PrivacyLedger.charge``)."""


@dataclass(frozen=True)
class Allowance:
    r"""What a release may spend: :math:`\mu`-GDP plus an additive :math:`\delta_0`.

    The mechanism is then :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP
    for every :math:`\varepsilon` (Dong, Roth and Su 2022, Corollary 2.13; the additive
    part by basic composition of the events on which a threshold fails).

    Parameters
    ----------
    mu : float
        The Gaussian-DP parameter, ``>= 0`` (``inf``: no noise).
    extra_delta : float, default=0.0
        The additive delta, in [0, 1).
    """

    mu: float
    extra_delta: float = 0.0

    @property
    def event(self) -> PrivacyEvent:
        """The allowance as a privacy event (Gaussian DP, plus the additive delta if any)."""
        if self.extra_delta > 0.0:
            return GaussianDpWithDeltaEvent(self.mu, self.extra_delta)
        return GaussianDpEvent(self.mu)

    def epsilon_at(self, delta: float) -> float:
        r"""Smallest epsilon at ``delta`` (an edge: what a report or a ledger prints).

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        float
            :math:`\varepsilon_\mu(\delta - \delta_0)`; ``inf`` when ``delta`` is at most
            the additive delta.
        """
        if delta <= self.extra_delta:
            return math.inf
        return float(gdp_to_epsilon(self.mu, delta - self.extra_delta))

    def delta_at(self, epsilon: float) -> float:
        r"""Smallest delta at ``epsilon``: :math:`\delta_\mu(\varepsilon) + \delta_0`.

        Exact (Dong, Roth and Su 2022, Corollary 2.13), plus the additive delta.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        float
            The smallest delta at which the release is (epsilon, delta)-DP.
        """
        return float(gdp_to_delta(self.mu, epsilon)) + self.extra_delta

    def covers(self, mu: float, extra_delta: float = 0.0) -> bool:
        """Whether a spend of ``(mu, extra_delta)`` is within this allowance.

        Up to the one relative margin of :mod:`skdpgd.accounting._margin`.

        Parameters
        ----------
        mu, extra_delta : float
            A reported spend.

        Returns
        -------
        bool
        """
        return within_allowance(mu, self.mu) and within_allowance(extra_delta,
                                                                   self.extra_delta)

    def check(self, name: str, report: Any) -> None:
        """Refuse a release that reports more than this allowance (a broken contract).

        Parameters
        ----------
        name : str
            What released (for the message).
        report : object with ``mu`` and optionally ``extra_delta``
            What it reports it spent.

        Raises
        ------
        RuntimeError
            When the report has no Gaussian-DP ``mu`` (a release here must be mu-GDP: a
            solver declares it with ``reports_mu`` and is refused before any charge
            otherwise), or exceeds the allowance by more than the rounding margin.
        """
        if getattr(report, "mu", None) is None:
            raise RuntimeError(
                f"Step {name!r} reports {type(report).__name__}, which has no Gaussian-DP mu "
                f"to check against its allowance mu={self.mu!r}: a release here must be "
                "mu-GDP (a solver declares it with reports_mu; "
                "skdpgd.preprocessing._private_step)."
            )
        spent_mu = float(report.mu)
        spent_extra = float(getattr(report, "extra_delta", 0.0))
        if not self.covers(spent_mu, spent_extra):
            raise RuntimeError(
                f"Step {name!r} reports mu={spent_mu!r}, additive delta={spent_extra!r}, "
                f"above its allowance mu={self.mu!r}, delta={self.extra_delta!r}: it does "
                "not follow the private-step protocol (skdpgd.preprocessing._private_step)."
            )

    def charge_at(self, delta: float, description: str) -> AllowanceCharge:
        """This allowance as what a ledger is charged, its epsilon read at ``delta``.

        Parameters
        ----------
        delta : float
            The delta the ledger records with it (the release's target).
        description : str
            What is released (one line, recorded).

        Returns
        -------
        AllowanceCharge
            The event, ``epsilon_at(delta)``, ``delta`` and the description.
        """
        return AllowanceCharge(self, float(delta), str(description))


class EpsilonCurve:
    """A privacy curve known through its epsilon at each delta.

    What a report whose curve has no closed-form delta gives :meth:`skdpgd.PrivacyReport.delta_at`
    (the Gaussian curves are :class:`Allowance`, exact both ways).

    Parameters
    ----------
    epsilon_at : callable (delta) -> float
        The smallest epsilon at ``delta``, non-increasing in ``delta``.
    """

    def __init__(self, epsilon_at: Callable[[float], float]) -> None:
        self.epsilon_at = epsilon_at

    def delta_at(self, epsilon: float) -> float:
        """A delta (within 1e-3 relative, rounded up) at which the curve gives ``epsilon``.

        Bisection on log delta over ``epsilon_at`` with the conservative inverter
        (:func:`~skdpgd.accounting._inverter.invert_monotone`): the returned delta's
        epsilon was computed and is <= ``epsilon``.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        delta : float
            1.0 when no delta below 1 works.
        """
        try:
            return invert_monotone(self.epsilon_at, float(epsilon), lower=1e-300,
                                   upper=1.0 - 1e-12, increasing=False, rtol=1e-3)
        except TargetUnreachableError:
            return 1.0


@dataclass(frozen=True)
class AllowanceCharge:
    """An :class:`Allowance` charged as such (a private step's standalone fit).

    Parameters
    ----------
    allowance : Allowance
        What the release may spend.
    delta : float
        The delta recorded beside it.
    description : str
        What is released.
    """

    allowance: Allowance
    delta: float
    description: str

    @property
    def event(self) -> PrivacyEvent:
        """The allowance's event (what the ledger composes)."""
        return self.allowance.event

    @property
    def epsilon(self) -> float:
        """The allowance's epsilon at :attr:`delta` (recorded, not composed)."""
        return self.allowance.epsilon_at(self.delta)


class Charge(NamedTuple):
    """One planned charge: what spends (``source``) and its planned report (``report``).

    ``report`` has the ``event`` a ledger composes (a report of
    :mod:`skdpgd.accounting`, or an :class:`AllowanceCharge`).
    """

    source: Any
    report: Any


def admit(ledger: Any, charges: Sequence[Charge | tuple[Any, Any]], *, n_samples: int,
          sample_ids: Any = None) -> None:
    """Charge ``ledger`` with the planned charges, in order, before any value is read.

    The one place outside :mod:`skdpgd._ledger` where a ledger is charged. A ``None``
    ledger charges nothing. Nothing after this call may raise for a reason known at
    plan time (the module's contract).

    Parameters
    ----------
    ledger : object with ``charge`` (and ``charge_event``), or None
        The ledger; it may refuse (``PrivacyBudgetExceeded``): nothing is read then.
    charges : sequence of (source, report)
        The plan's charges (:class:`Charge`): a report of :mod:`skdpgd.accounting` is
        charged by ``ledger.charge``; an :class:`AllowanceCharge` by
        ``ledger.charge_event`` with its epsilon, delta and description.
    n_samples : int
        Rows the release reads (public).
    sample_ids : array-like of shape (n_samples,) or None, default=None
        Public ids of those rows; None charges every record.
    """
    if ledger is None:
        return
    for source, report in charges:
        if isinstance(report, AllowanceCharge):
            ledger.charge_event(source, report.event, n_samples=n_samples,
                                epsilon=report.epsilon, delta=report.delta,
                                sample_ids=sample_ids, description=report.description)
        else:
            ledger.charge(source, report, n_samples=n_samples, sample_ids=sample_ids)


def release(ledger: Any, plan: Callable[[], tuple[Sequence[Charge | tuple[Any, Any]], PlanT]],
            run: Callable[[PlanT], ResultT], *, n_samples: int,
            sample_ids: Any = None) -> ResultT:
    """Plan, admit, then run: the protocol's order, by construction.

    Parameters
    ----------
    ledger : object with ``charge``, or None
        Charged between the plan and the run (:func:`admit`).
    plan : callable () -> (charges, planned)
        Public numbers only; every refusal they decide is raised here, before the
        charge. ``charges`` is what the ledger is charged (:class:`Charge`), ``planned``
        whatever the run needs (the allowances included).
    run : callable (planned) -> result
        Reads the values and runs within the planned allowances, checks what it spent
        (:meth:`Allowance.check`) and stores; it is called only after the charge.
    n_samples : int
        Rows the release reads (public).
    sample_ids : array-like of shape (n_samples,) or None, default=None
        Public ids of those rows.

    Returns
    -------
    result : object
        What ``run`` returns.
    """
    charges, planned = plan()
    admit(ledger, charges, n_samples=n_samples, sample_ids=sample_ids)
    return run(planned)
