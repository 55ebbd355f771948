r"""The base of every privacy event: a stored ``kind``, a JSON form, and its currencies.

An *event* names a mechanism by the parameters that determine its privacy, not by the
estimator that ran it (the idea of ``dp_accounting``'s ``DpEvent``). A subclass of
:class:`PrivacyEvent` is a frozen dataclass that

* names its stored kind in its class statement (``class MyEvent(PrivacyEvent,
  kind="my_kind")``), which registers it: :meth:`PrivacyEvent.from_dict` finds the class
  by that name, and :meth:`PrivacyEvent.to_dict` writes it;
* states its neighbouring relation (a field ``relation``, :class:`NeighbouringRelation`);
* declares the currencies it can be composed in, by overriding the hooks that apply:
  :meth:`~PrivacyEvent.gaussian_dp` (mu-GDP up to an additive delta),
  :meth:`~PrivacyEvent.renyi_dp` (a Renyi-DP curve) and
  :meth:`~PrivacyEvent.poisson_runs` (Poisson-subsampled Gaussian runs). Each hook
  returns None on the base: the event has no such form. The accountants
  (:mod:`skdpgd.accounting._accountants`) read these hooks and nothing else.

**Stored format, evolution rules.** A ledger file keeps every event as the dict of
:meth:`~PrivacyEvent.to_dict` (``kind``, ``relation`` and the dataclass fields, in
declaration order; an infinite float as the string ``"inf"``), so that dict is a file
format. As ``dp_accounting``'s ``dp_event.py`` states for its own events: a stored kind
is never removed or renamed, and the meaning of its fields never changes; a new kind (or
a new meaning) is added under a new name, never as a field added to a stored kind, and
:meth:`~PrivacyEvent.from_dict` refuses a dict whose fields are not exactly those of its
kind. ``tests/accounting/test_stored_events.py``
holds the frozen table of every stored kind and its fields, and old stored dicts that
must keep loading.
"""

import dataclasses
import enum
import math
from typing import ClassVar

__all__ = [
    "NeighbouringRelation",
    "PrivacyEvent",
    "UnsupportedEventError",
    "event_from_dict",
    "event_kinds",
    "event_to_dict",
]


class UnsupportedEventError(ValueError):
    """An accountant was asked to compose an event (or a mix of events) it cannot bound."""


class NeighbouringRelation(enum.Enum):
    """Which data sets are neighbours (the relation a guarantee is stated for).

    The two relations below are not interchangeable: a guarantee under one does not
    transfer to the other at the same parameters, so accountants refuse to mix them
    (:ref:`neighbouring data sets <neighbours>`). A member is looked up by its value with
    ``NeighbouringRelation("replace-one")`` or :meth:`parse`.

    Attributes
    ----------
    REPLACE_ONE : NeighbouringRelation
        Value ``"replace-one"``: one record replaced by another, n fixed and public
        (skdpgd's relation everywhere).
    ADD_OR_REMOVE_ONE : NeighbouringRelation
        Value ``"add-or-remove-one"``: one record added or removed (n changes by one).
    """

    REPLACE_ONE = "replace-one"
    ADD_OR_REMOVE_ONE = "add-or-remove-one"

    @classmethod
    def parse(cls, value):
        """The relation named by ``value`` (a member or its string value).

        Parameters
        ----------
        value : NeighbouringRelation or str
            A member, or its value (``"replace-one"``, ``"add-or-remove-one"``).

        Returns
        -------
        NeighbouringRelation
            The member.
        """
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

#: Stored kind -> event class, filled by ``PrivacyEvent.__init_subclass__``.
_KINDS = {}


def _json_value(value):
    """A field as JSON: inf as ``"inf"``, tuples as lists, the relation by its value."""
    if isinstance(value, NeighbouringRelation):
        return value.value
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value


def _from_json(kind, value):
    """A stored field back as its declared type (the class's checks run afterwards)."""
    if kind is float:
        return float(value)
    if kind is tuple:
        return tuple(float(v) for v in value)
    if kind is str:
        return str(value)
    return value


def _check_stored_fields(target, data):
    """Refuse a stored dict whose fields are not exactly those of its kind.

    A field the kind does not have would be dropped on loading (a stored
    ``"extra_delta"`` beside a ``"gaussian"`` kind would load as an exact mu-GDP event,
    an under-count), and a missing one has no default a stored file may rely on; the
    evolution rules add a new meaning under a new kind, never as a new field.
    """
    expected = ("kind", *target.stored_fields())
    unknown = [name for name in data if name not in expected]
    missing = [name for name in expected if name not in data]
    if unknown or missing:
        found = "; ".join(part for part in (f"unknown fields {unknown}" if unknown else "",
                                            f"missing fields {missing}" if missing else "")
                          if part)
        raise ValueError(
            f"a stored {data['kind']!r} event ({target.__name__}) has exactly the fields "
            f"{list(expected)}; this one has {found}: {data!r}. The file was not written "
            "by skdpgd or was edited: a field is never added to or dropped from a stored "
            "kind, so it cannot be read without changing what it charges.")


class PrivacyEvent:
    """The base of every privacy event (subclasses are frozen dataclasses).

    A subclass names its stored kind in its class statement, ``class
    MyEvent(PrivacyEvent, kind="my_kind")``, has a field ``relation``
    (:class:`NeighbouringRelation`) and overrides the composition hooks that apply to it.
    The module docstring of ``skdpgd.accounting._events._base`` states the stored
    format's evolution rules.

    Attributes
    ----------
    kind : str
        The name it is stored under (class attribute).
    """

    kind: ClassVar[str]

    def __init_subclass__(cls, kind=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if kind is None:
            raise TypeError(f"{cls.__name__} must name its stored kind: "
                            f"class {cls.__name__}(PrivacyEvent, kind='...').")
        known = _KINDS.get(kind)
        if known is not None and (known.__module__, known.__qualname__) != (
                cls.__module__, cls.__qualname__):
            raise ValueError(f"event kind {kind!r} is already {known.__name__}; a "
                             "stored kind names one class forever.")
        cls.kind = kind
        _KINDS[kind] = cls

    @classmethod
    def stored_fields(cls):
        """The names the stored dict holds besides ``kind``, in their stored order.

        Returns
        -------
        tuple of str
            ``"relation"`` first, then the dataclass fields in declaration order.
        """
        names = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "relation"]
        return ("relation", *names)

    def to_dict(self):
        """A JSON-compatible dict: ``kind``, ``relation`` and the fields (inf as ``"inf"``).

        Returns
        -------
        dict
            What a ledger file stores; :meth:`from_dict` reads it back.
        """
        out = {"kind": self.kind}
        for name in self.stored_fields():
            out[name] = _json_value(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data):
        """The event a :meth:`to_dict` wrote (its class found by ``kind``; re-validated).

        Parameters
        ----------
        data : dict
            ``kind``, ``relation`` and the fields of that kind.

        Returns
        -------
        PrivacyEvent
            An instance of the class registered under ``data["kind"]``.

        Raises
        ------
        ValueError
            If ``kind`` is not registered, or the dict has a field its kind does not
            have, or lacks one it has (a dropped field could under-count the release).
        """
        if (not isinstance(data, dict) or not isinstance(data.get("kind"), str)
                or data["kind"] not in _KINDS):
            raise ValueError(f"not a serialised privacy event: {data!r}")
        target = _KINDS[data["kind"]]
        if cls is not PrivacyEvent and not issubclass(target, cls):
            raise ValueError(f"a serialised {target.__name__}, not a {cls.__name__}: {data!r}")
        _check_stored_fields(target, data)
        types = {f.name: f.type for f in dataclasses.fields(target)}
        values = {name: _from_json(types[name], data[name])
                  for name in target.stored_fields() if name != "relation"}
        return target(**values, relation=data["relation"])

    def check_composable(self):
        """Raise :class:`UnsupportedEventError` if no accountant may compose this event.

        The base accepts; :class:`~skdpgd.accounting.UnsupportedEvent` refuses with its
        reason.
        """

    def form(self, currency):
        """The release's form in ``currency``, or None: the one hook of a new currency.

        ``currency`` names the method of the event kind that states the form:
        ``"gaussian_dp"``, ``"renyi_dp"``, ``"poisson_runs"`` below, or the method a new
        kind defines for a new currency (``pure_dp``, say). An event whose kind has no such
        method has no such form, so a new currency adds nothing to this base: its event
        kind defines the method, its accountant reads ``event.form("pure_dp")``
        (docs/architecture.md, "Adding an event kind").

        Parameters
        ----------
        currency : str
            The method's name.

        Returns
        -------
        object or None
            What that method returns; None without one.
        """
        method = getattr(type(self), currency, None)
        return None if method is None else method(self)

    def gaussian_dp(self):
        r"""``(mu, extra_delta)`` when the release is mu-GDP up to an additive delta.

        For every pair of neighbours there is a distribution within total variation
        ``extra_delta`` of the release's output whose trade-off against the other
        output is mu-GDP (Dong, Roth and Su 2022, Definition 2.6; ``extra_delta = 0``:
        exactly mu-GDP). Every accountant composes this form.

        Returns
        -------
        tuple of float or None
            None on the base: no Gaussian-DP form.
        """
        return None

    def renyi_dp(self):
        r"""``(orders, rdp)`` when the release is known by an upper bound on its RDP curve.

        The release is :math:`(\alpha, \varepsilon(\alpha))`-RDP at every listed order
        (Mironov 2017, Definition 4). The ``rdp`` accountant composes this form.

        Returns
        -------
        tuple of (tuple of float, tuple of float) or None
            None on the base: no Renyi-DP form.
        """
        return None

    def poisson_runs(self):
        """``((q, z, K), ...)`` when the release is Poisson-subsampled Gaussian runs.

        Each run is K steps at sampling rate q with noise multiplier z relative to the
        per-example bound (the dominating pair of
        :class:`~skdpgd.accounting.PoissonSampledGaussianEvent`). The ``pld`` accountant
        composes this form.

        Returns
        -------
        tuple of (float, float, int) or None
            None on the base: no such form.
        """
        return None


def event_kinds():
    """Every registered event kind and its class, in registration order.

    Returns
    -------
    dict
        Stored kind -> :class:`PrivacyEvent` subclass (a copy).
    """
    return dict(_KINDS)


def event_to_dict(event):
    """A JSON-compatible dict for ``event`` (``kind`` plus its fields; inf as ``"inf"``).

    Parameters
    ----------
    event : PrivacyEvent
        Any registered event.

    Returns
    -------
    dict
        ``event.to_dict()``.
    """
    if not isinstance(event, PrivacyEvent):
        raise TypeError(f"not a privacy event: {event!r}")
    return event.to_dict()


def event_from_dict(data):
    """The event :func:`event_to_dict` wrote (fields are re-validated).

    Parameters
    ----------
    data : dict
        A stored event.

    Returns
    -------
    PrivacyEvent
        ``PrivacyEvent.from_dict(data)``.
    """
    return PrivacyEvent.from_dict(data)
