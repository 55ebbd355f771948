r"""The guarantee of a private data-preparation release, and the private-step protocol.

A private preparation step (for example a transformer that releases noisy per-column
histograms to find a column's range, or noisy category counts to find its categories)
spends a Gaussian-DP budget :math:`\mu` and, where a release is thresholded, an additive
:math:`\delta` (the chance that a value held by a single record survives the threshold).
Its guarantee is therefore a pair :math:`(\mu, \delta_0)`: for every :math:`\varepsilon`,
the step is :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP, where
:math:`\delta_\mu` is the exact :math:`\mu`-GDP trade-off curve (Dong, Roth and Su 2022,
Corollary 2.13; ``docs/theory.md``). Composition of such steps with the estimator:
:math:`\mu = \sqrt{\sum_i \mu_i^2}` (Dong, Roth and Su 2022, Corollary 3.3) and the
additive deltas add (basic composition of the events on which a threshold fails).

The private-step protocol (``_privacy_plan``, ``_fit_private``, ``privacy_``, the
standalone ``fit``) is written once, with its base class, in
:mod:`skdpgd.preprocessing._private_step` (``PrivateStepMixin``); this layer only holds
the report and the class attribute that marks a private step.
"""

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._events import PrivacyEvent
from ._format import format_up
from ._report import PrivacyReport
from .allowance import Allowance

#: Class attribute that marks a private step (set by
#: ``skdpgd.preprocessing._private_step.PrivateStepMixin``; the pipeline reads it).
PRIVATE_FIT_ATTRIBUTE = "__skdpgd_private_fit__"


@dataclass(frozen=True, repr=False, kw_only=True)
class ReleasePrivacyReport(PrivacyReport):
    r"""What a private preparation step released and what it cost.

    A :class:`~skdpgd.PrivacyReport` whose curve is ``Allowance(mu, extra_delta)``: for
    every epsilon the step is :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP.
    A step releases within an allowance and states no delta of its own: ``epsilon`` and
    ``delta`` are NaN unless ``delta`` is given (then ``epsilon = epsilon_at(delta)``);
    :meth:`~skdpgd.PrivacyReport.epsilon_at` reads the curve at any delta.

    Parameters
    ----------
    epsilon, delta : float, default=nan
        The point the report is stated at (``epsilon`` computed from ``delta``).
    notes : tuple of str, default=()
        As the attribute.
    neighbouring_relation : str, default="replace-one"
        As the attribute.
    mu, extra_delta : float
        As the attributes.
    mechanism : str
        As the attribute.
    releases : tuple of (str, float), default=()
        As the attribute.

    Attributes
    ----------
    mu : float
        Gaussian-DP parameter of all the step's noisy releases together (exact
        composition: the square root of the sum of their squares).
    extra_delta : float
        Additive delta of the thresholded releases (0 when nothing is thresholded).
    mechanism : str
        One line naming the mechanism and its source.
    releases : tuple of (str, float)
        Each release's name (a column and what was released, never a value) and its mu.
    epsilon, delta : float
        The stated point (NaN when none was asked for).
    notes : tuple of str
        Anything else the user should know.
    neighbouring_relation : str
        ``"replace-one"`` (n is public).
    """

    mu: float
    extra_delta: float
    mechanism: str
    releases: tuple[tuple[str, float], ...] = field(default_factory=tuple)

    title: ClassVar[str] = "ReleasePrivacyReport"
    released: ClassVar[str] = "the step's releases"

    def _curve(self) -> Allowance:
        r"""``Allowance(mu, extra_delta)``: the GDP curve at :math:`\delta - \delta_0`."""
        return Allowance(self.mu, self.extra_delta)

    @property
    def event(self) -> PrivacyEvent:
        """The release as a privacy event: Gaussian DP, plus the additive delta if any."""
        return Allowance(self.mu, self.extra_delta).event

    def to_dict(self) -> dict[str, Any]:
        """Plain-type summary (for logs and the ledger); holds no data value.

        The stored format of a step's report (unchanged): the stated point, which a step
        does not have of its own, is not part of it.

        Returns
        -------
        dict
            Every field but ``epsilon`` and ``delta`` by name, tuples as lists.
        """
        return {
            "mu": self.mu, "extra_delta": self.extra_delta, "mechanism": self.mechanism,
            "releases": [list(r) for r in self.releases], "notes": list(self.notes),
            "neighbouring_relation": self.neighbouring_relation,
        }

    def _guarantee(self) -> str:
        extra = f" + additive delta {format_up(self.extra_delta)}" if self.extra_delta else ""
        return f"mu={format_up(self.mu)}-GDP{extra}, "

    def _lines(self) -> list[str]:
        return [f"  mechanism: {self.mechanism}",
                *(f"  {name}: mu={format_up(mu)}" for name, mu in self.releases)]
