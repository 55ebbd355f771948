"""The privacy reports: one small base, one class per accountant (docs/theory.md#calibration).

:class:`PrivacyReport` is what every report has: the (epsilon, delta) point asked for,
the curve through it (:meth:`~PrivacyReport.epsilon_at`, :meth:`~PrivacyReport.delta_at`),
the release as a privacy event (:attr:`~PrivacyReport.event`, what the ledger composes),
notes, :meth:`~PrivacyReport.to_dict` and the one header every report prints.
:class:`RunPrivacyReport` adds the public numbers of a noisy optimisation run and
:class:`GaussianRunPrivacyReport` a run that is mu-GDP. The accountants' reports:

* :class:`~skdpgd.accounting.NoisyGDPrivacyReport` (full-batch noisy GD, bound (A)),
* :class:`~skdpgd.accounting.NoisyCyclicGDPrivacyReport` (cyclic mini-batches, bound (C)),
* :class:`~skdpgd.accounting.PreconditionedPrivacyReport` (Gram release + K steps),
* :class:`~skdpgd.accounting.SampledSGDPrivacyReport` (sampled SGD, min over bounds),

each with only the fields that mean something for it.
"""

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ._events import GaussianDpEvent, NeighbouringRelation, PrivacyEvent
from ._format import DIGITS, format_contraction, format_near, format_up  # noqa: F401
from ._gdp import gdp_to_epsilon
from .allowance import Allowance, EpsilonCurve

__all__ = ["GaussianRunPrivacyReport", "PrivacyReport", "RunPrivacyReport"]

NEIGHBOURING_RELATION = "replace-one"

#: The note of a classifier that read its label set from y (``classes=None``); a report
#: holding it says so in its headline, since the guarantee does not cover that release.
LABELS_READ_NOTE = "label set read from y and treated as public (pass classes= to fix it)"


def epsilon_of(mu: float, delta: float) -> float:
    """``gdp_to_epsilon(mu, delta)``, inf for an infinite mu."""
    return math.inf if mu == math.inf else gdp_to_epsilon(mu, delta)


@dataclass(frozen=True, repr=False, kw_only=True)
class PrivacyReport:
    """What a release guarantees: the base of every report.

    Every report has the (epsilon, delta) point it is stated at and the curve through it,
    :meth:`epsilon_at` and :meth:`delta_at`, written here once: a report class only says
    what its curve is (``_curve``: an ``accounting.allowance.Allowance``
    for the Gaussian-DP releases, mu plus an additive delta; an
    ``accounting.allowance.EpsilonCurve`` for the others).

    Parameters
    ----------
    epsilon : float, default=nan
        As the attribute; computed from the curve when only ``delta`` is given.
    delta : float, default=nan
        As the attribute.
    notes : tuple of str, default=()
        As the attribute.
    neighbouring_relation : str, default="replace-one"
        As the attribute.

    Attributes
    ----------
    epsilon, delta : float
        The (epsilon, delta)-DP guarantee at the requested delta (``epsilon`` is the
        smallest epsilon the accountant supports, never above the target of a calibrated
        run). Both NaN for a release stated at no delta (a private step's release, whose
        guarantee is its whole curve: read it with :meth:`epsilon_at`).
    notes : tuple of str
        Anything else the user should know (e.g. which inputs were treated as public).
    neighbouring_relation : str
        Always ``"replace-one"`` (n is public).
    """

    epsilon: float = math.nan
    delta: float = math.nan
    notes: tuple[str, ...] = ()
    neighbouring_relation: str = NEIGHBOURING_RELATION

    #: The name the header prints.
    title: ClassVar[str] = "PrivacyReport"

    #: What was released, as the header says it.
    released: ClassVar[str] = "last iterate only"

    def __post_init__(self) -> None:
        if math.isnan(self.epsilon) and not math.isnan(self.delta):
            object.__setattr__(self, "epsilon", float(self.epsilon_at(self.delta)))

    def _curve(self) -> Allowance | EpsilonCurve:
        """The release's privacy curve: ``epsilon_at(delta)`` and ``delta_at(epsilon)``."""
        raise NotImplementedError  # pragma: no cover - each report class defines it

    def epsilon_at(self, delta: float) -> float:
        """Smallest epsilon such that the release is (epsilon, delta)-DP.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        epsilon : float
            From the report's curve (each report class says which).
        """
        return self._curve().epsilon_at(delta)

    def delta_at(self, epsilon: float) -> float:
        """Smallest delta such that the release is (epsilon, delta)-DP.

        Exact for a Gaussian-DP curve (``Allowance.delta_at``); otherwise within 1e-3
        relative, rounded up (``EpsilonCurve.delta_at``).

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        delta : float
            1.0 when no delta below 1 works.
        """
        return self._curve().delta_at(epsilon)

    @property
    def event(self) -> PrivacyEvent:
        """What was released, as a privacy event (:mod:`skdpgd.accounting._events`)."""
        raise NotImplementedError  # pragma: no cover - each accountant's report defines it

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (JSON-serialisable).

        Returns
        -------
        fields : dict
            Every attribute by name; ``notes`` as a list.
        """
        out = dataclasses.asdict(self)
        out["notes"] = list(self.notes)
        return out

    def _guarantee(self) -> str:
        """What the header says after (epsilon, delta) (e.g. ``"mu=0.3-GDP, "``)."""
        return ""

    def _lines(self) -> list[str]:
        """The lines under the header (each report class its own)."""
        return []

    def __repr__(self) -> str:
        caveat = ("; NOT COVERED: the label set was read from the data"
                  if LABELS_READ_NOTE in self.notes else "")
        point = ("" if math.isnan(self.delta)
                 else f"({format_up(self.epsilon)}, {format_up(self.delta)})-DP, ")
        head = (f"{self.title}({point}{self._guarantee()}{self.neighbouring_relation} "
                f"neighbours, {self.released}{caveat})")
        notes = [f"  note: {note}" for note in self.notes]
        return "\n".join([head, *self._lines(), *notes])


@dataclass(frozen=True, repr=False, kw_only=True)
class RunPrivacyReport(PrivacyReport):
    """:class:`PrivacyReport` of a noisy optimisation run: the public numbers it used.

    Attributes
    ----------
    accountant : str
        Which accountant produced the report (``"noisy_gd"``, ``"noisy_cyclic_gd"``,
        ``"sampled_sgd"``, ``"preconditioned_gd"``).
    theorem : str
        The theorems the bound comes from.
    binding_bound : str
        The bound that gives ``epsilon`` (``"convergent"``, ``"composition"``, ...).
    noise_std, n_steps, learning_rate, strong_convexity, smoothness, sensitivity
        sigma, K, eta, lam, beta and S (:ref:`conventions`, :ref:`loss-constants`).
    n_samples : int
        n (public).
    """

    accountant: str
    theorem: str
    binding_bound: str
    noise_std: float
    n_steps: int
    learning_rate: float
    strong_convexity: float
    smoothness: float
    sensitivity: float
    n_samples: int

    def _lines(self) -> list[str]:
        return [f"  bound: {self.theorem}; binding: {self.binding_bound}"]


@dataclass(frozen=True, repr=False, kw_only=True)
class GaussianRunPrivacyReport(RunPrivacyReport):
    """:class:`RunPrivacyReport` of a run that is mu-GDP: its whole curve is ``mu``.

    Attributes
    ----------
    mu : float
        Gaussian-DP parameter of the run (exact composition across runs:
        sqrt(sum mu_i^2)).
    """

    mu: float

    def _curve(self) -> Allowance:
        """``Allowance(mu)``: ``gdp_to_epsilon(mu, delta)`` and ``gdp_to_delta(mu, epsilon)``
        (Dong, Roth, Su 2022, Corollary 2.13)."""
        return Allowance(self.mu)

    @property
    def event(self) -> PrivacyEvent:
        """What this run released, as a privacy event: ``GaussianDpEvent(mu)``.

        The currency the ledger and the searches compose (:mod:`skdpgd.accounting._events`),
        with the neighbouring relation as a :class:`~skdpgd.accounting.NeighbouringRelation`.
        """
        return GaussianDpEvent(self.mu, NeighbouringRelation.parse(self.neighbouring_relation))

    def _guarantee(self) -> str:
        return f"mu={format_up(self.mu)}-GDP, "
