r"""The accountant interface and its registry (in the spirit of Opacus' ``IAccountant``
and ``accountants/registry.py``, and of ``dp_accounting``'s ``PrivacyAccountant``).

An :class:`Accountant` is an immutable value: the composition of the events given so far
in one currency. :meth:`~Accountant.compose` returns a new accountant with more events;
:meth:`~Accountant.epsilon` and :meth:`~Accountant.delta` read the guarantee of the
composition. Every accountant composes two parts the same way:

* the **Gaussian part**: the events with a Gaussian-DP form
  (:meth:`~skdpgd.accounting.PrivacyEvent.gaussian_dp`), whose :math:`\mu_j^2` add (Dong,
  Roth and Su 2022, Corollary 3.3, adaptive composition; ``Accountant.mu2`` is their
  exact sum, ``math.fsum``); how that part enters the accountant's currency is the
  subclass's business (exactly, in each of skdpgd's three);
* the **additive delta** :math:`\Delta = \sum_j \delta_{0,j}` of those events: the
  composition is :math:`(\varepsilon, \delta_{\mathrm{rest}}(\varepsilon) + \Delta)`-DP
  (the hybrid argument of :mod:`skdpgd.accounting._composition`), so epsilon at
  ``delta`` is the rest's epsilon at ``delta - Delta`` (infinite when
  :math:`\Delta \ge \delta`).

A subclass declares ``name``, ``source`` and ``priority``, composes the events without a
Gaussian-DP form in ``_compose_rest`` (refusing with :class:`UnsupportedEventError` what it
cannot bound) and computes epsilon of the rest in ``_epsilon``. :func:`register_accountant`
adds it to the registry; :func:`accountant_for` picks, for a list of events, the
registered accountant of smallest priority that composes every one of them.
"""

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

from .._events import (
    NeighbouringRelation,
    PrivacyEvent,
    UnsupportedEventError,
    event_kinds,
)
from .._inverter import TargetUnreachableError, invert_monotone

__all__ = [
    "Accountant",
    "Composition",
    "accountant_for",
    "accountant_names",
    "get_accountant",
    "register_accountant",
]

GDP_SOURCE = "Dong, Roth, Su (2022), Corollary 3.3 (exact GDP composition) and Corollary 2.13"
GDP_DELTA_SOURCE = ("additive deltas of GaussianDpWithDeltaEvent added (hybrid argument, "
                    "skdpgd.accounting._composition)")


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
        ``"pld"``: the accountant's name.
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


def as_events(events):
    """``events`` as a tuple (one event alone becomes a 1-tuple)."""
    if isinstance(events, PrivacyEvent):
        return (events,)
    return tuple(events)


def check_event(event, relation=None):
    """Raise :class:`UnsupportedEventError` for a non-event, an event that refuses every
    accountant, or (when ``relation`` is given) one stated for another relation."""
    if not isinstance(event, PrivacyEvent):
        kinds = ", ".join(cls.__name__ for cls in event_kinds().values())
        raise UnsupportedEventError(
            f"Not a privacy event skdpgd can compose: {event!r}. Events are instances of "
            f"skdpgd.accounting.PrivacyEvent ({kinds})."
        )
    event.check_composable()
    if relation is not None and event.relation is not relation:
        raise UnsupportedEventError(
            f"{event!r} is stated for {event.relation.value} neighbours; skdpgd composes "
            f"{relation.value} guarantees only (n public), and a guarantee does not "
            "transfer between the relations at the same parameters."
        )


@dataclass(frozen=True)
class Accountant:
    """The composition of privacy events in one currency (an immutable value).

    Subclasses set the class attributes ``name`` and ``source`` and implement
    ``_compose_rest(events)`` (the events without a Gaussian-DP form: a dict of the new
    field values, or :class:`UnsupportedEventError`) and ``_epsilon(delta)`` (epsilon of
    the composition without its additive delta).

    Parameters
    ----------
    mu2 : float, default=0.0
        Sum of :math:`\\mu_j^2` of the Gaussian part.
    extra_delta : float, default=0.0
        Sum of the additive deltas of the Gaussian part.
    """

    mu2: float = 0.0
    extra_delta: float = 0.0

    #: The registry's name of the accountant (also the ``method`` of its compositions).
    name: ClassVar[str] = ""
    #: The theorems it composes by.
    source: ClassVar[str] = ""
    #: The neighbouring relation its guarantees are stated for.
    relation: ClassVar[NeighbouringRelation] = NeighbouringRelation.REPLACE_ONE
    #: Its place in the order ``accountant_for`` tries the accountants (smallest
    #: first): declared by every registered accountant, and unique, so that which one
    #: composes a list of events never depends on an import order.
    priority: ClassVar[int | None] = None

    @property
    def mu(self):
        """The exact GDP parameter of the composition, when this accountant states one.

        Returns
        -------
        float or None
            None on the base (only the ``gdp`` accountant has one).
        """
        return None

    def supports(self, event):
        """Whether this accountant can add ``event`` to its composition.

        Parameters
        ----------
        event : PrivacyEvent
            One event.

        Returns
        -------
        bool
            False when :meth:`compose` would refuse it.
        """
        try:
            self.compose((event,))
        except UnsupportedEventError:
            return False
        return True

    def compose(self, events):
        """A new accountant: this composition followed by ``events``.

        Parameters
        ----------
        events : PrivacyEvent or iterable of PrivacyEvent
            One record's events (any order: composition is commutative).

        Returns
        -------
        Accountant
            Of the same class; this one is unchanged.

        Raises
        ------
        UnsupportedEventError
            When some event cannot be composed by this accountant.
        """
        events = as_events(events)
        for event in events:
            check_event(event, self.relation)
        forms = [event.gaussian_dp() for event in events]
        rest = tuple(event for event, form in zip(events, forms, strict=True) if form is None)
        changes = self._compose_rest(rest) if rest else {}
        parts = [form for form in forms if form is not None]
        if parts:
            changes["mu2"] = math.fsum([self.mu2, *(mu * mu for mu, _ in parts)])
            changes["extra_delta"] = math.fsum([self.extra_delta, *(d for _, d in parts)])
        return dataclasses.replace(self, **changes)

    def _compose_rest(self, events):
        """New field values after ``events`` (none has a Gaussian-DP form)."""
        raise UnsupportedEventError(
            f"{events[0]!r} has no Gaussian-DP form, the only one the {self.name} "
            "accountant composes."
        )

    def _epsilon(self, delta):
        """Epsilon at ``delta`` of the composition without its additive delta."""
        raise NotImplementedError  # pragma: no cover - every accountant defines it

    def epsilon(self, delta):
        """The smallest epsilon this accountant proves at ``delta`` for the composition.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        float
            ``inf`` when the additive delta is at least ``delta``.
        """
        delta = float(delta)
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
        if self.extra_delta >= delta:
            return math.inf
        return self._epsilon(delta - self.extra_delta if self.extra_delta else delta)

    def delta(self, epsilon):
        """A delta (within 1e-3 relative, on the safe side) at which the composition is
        (epsilon, delta)-DP.

        By the one conservative inverter on :meth:`epsilon` (its answer's epsilon was
        computed and is at most ``epsilon``); the ``gdp`` accountant has a closed form.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        float
            1.0 when no delta below 1 works.
        """
        try:
            return invert_monotone(self.epsilon, float(epsilon), lower=1e-300,
                                   upper=1.0 - 1e-12, increasing=False, rtol=1e-3)
        except TargetUnreachableError:
            return 1.0

    def composition(self, delta):
        """The :class:`Composition` (epsilon, method and sources) at ``delta``.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        Composition
            ``mu`` only for an exact GDP composition without additive delta.
        """
        epsilon = self.epsilon(delta)
        delta, extra = float(delta), self.extra_delta
        if extra > 0.0:
            if extra >= delta:
                return Composition(math.inf, delta, None, "gdp+delta",
                                   GDP_SOURCE + "; " + GDP_DELTA_SOURCE, float(extra))
            method = "gdp+delta" if self.name == "gdp" else self.name
            return Composition(epsilon, delta, None, method,
                               self.source + "; " + GDP_DELTA_SOURCE, float(extra))
        return Composition(epsilon, delta, self.mu, self.name, self.source)


#: name -> Accountant subclass, by ascending ``priority`` (the order accountant_for tries).
_ACCOUNTANTS: dict[str, type[Accountant]] = {}


def register_accountant(accountant_class):
    """Add an :class:`Accountant` subclass to the registry under its ``name``.

    Usable as a class decorator. :func:`compose` (and so the ledger) tries the registered
    accountants by their declared ``priority``, smallest first, so a new one is used only
    for events that no accountant of a smaller priority composes. A class without a
    priority, or with one another accountant has, is refused: no silent order.

    Parameters
    ----------
    accountant_class : type
        A subclass of :class:`Accountant` with a non-empty ``name``.

    Returns
    -------
    type
        ``accountant_class``.
    """
    cls = accountant_class
    if not (isinstance(cls, type) and issubclass(cls, Accountant) and cls.name):
        raise TypeError(f"not an Accountant subclass with a name: {cls!r}")
    known = _ACCOUNTANTS.get(cls.name)
    if known is not None and known is not cls:
        raise ValueError(f"an accountant named {cls.name!r} is already registered: {known!r}")
    if not isinstance(cls.priority, int) or isinstance(cls.priority, bool):
        raise TypeError(f"{cls.__name__} declares no integer priority (Accountant.priority).")
    same = [other for other in _ACCOUNTANTS.values()
            if other.priority == cls.priority and other is not cls]
    if same:
        raise ValueError(f"{cls.__name__} has the priority {cls.priority} of {same[0]!r}: "
                         "the order of the accountants must be explicit.")
    ordered = sorted({**_ACCOUNTANTS, cls.name: cls}.items(), key=lambda item: item[1].priority)
    _ACCOUNTANTS.clear()
    _ACCOUNTANTS.update(ordered)
    return cls


def accountant_names():
    """The registered accountants' names, by priority: the order :func:`accountant_for`
    tries them.

    Returns
    -------
    tuple of str
        E.g. ``("gdp", "rdp", "pld")``.
    """
    return tuple(_ACCOUNTANTS)


def get_accountant(name):
    """A new, empty accountant of the registered class ``name``.

    Parameters
    ----------
    name : str
        A registered name: ``"gdp"``, ``"pld"``, ``"rdp"``, or one added with
        :func:`register_accountant`.

    Returns
    -------
    Accountant
        With no event composed yet.
    """
    if name not in _ACCOUNTANTS:
        raise ValueError(f"unknown accountant {name!r}; registered: {accountant_names()}.")
    return _ACCOUNTANTS[name]()


def accountant_for(events, *, mu2=0.0, extra_delta=0.0):
    """The registered accountant of smallest priority that composes ``events`` (after a
    Gaussian part).

    Parameters
    ----------
    events : PrivacyEvent or iterable of PrivacyEvent
        One record's events.
    mu2, extra_delta : float, default=0.0
        A Gaussian part already summed (``Accountant.mu2``, ``Accountant.extra_delta``).

    Returns
    -------
    Accountant
        Holding the whole composition.

    Raises
    ------
    UnsupportedEventError
        When no registered accountant composes them all.
    """
    events = as_events(events)
    for event in events:
        check_event(event)
    reasons = {}
    for name, cls in _ACCOUNTANTS.items():
        try:
            return cls(mu2=mu2, extra_delta=extra_delta).compose(events)
        except UnsupportedEventError as exc:
            reasons[name] = str(exc)
    if len(set(reasons.values())) == 1:
        raise UnsupportedEventError(next(iter(reasons.values())))
    why = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    raise UnsupportedEventError(
        "No skdpgd accountant composes these events together (they have no common "
        "currency in which they add up exactly), so the spend is refused before it touches "
        f"the data ({why}). Use separate data sets, or releases one accountant composes "
        "(e.g. solver='gd'/'cyclic' with DPSearchCV)."
    )
