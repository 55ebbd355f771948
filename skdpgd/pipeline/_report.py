r"""The privacy report of a DP pipeline: every release composed into one guarantee.

The pipeline's releases (each private preparation step, the target's private range, the
estimator) are composed exactly: their Gaussian-DP parameters add in squares (Dong, Roth
and Su 2022, Corollary 3.3) and the additive deltas of thresholded releases add
(:mod:`skdpgd.accounting._composition` proves it), so for every epsilon the pipeline is
:math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP with

.. math:: \mu = \sqrt{\textstyle\sum_i \mu_i^2}, \qquad \delta_0 = \textstyle\sum_i
    \delta_{0,i},

and :math:`\delta_\mu` the exact GDP curve (Dong, Roth and Su 2022, Corollary 2.13).
"""

import math
from dataclasses import dataclass

from ..accounting import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    PrivacyReport,
)
from ..accounting._format import format_up
from ..accounting.allowance import Allowance

SOURCE = ("Dong, Roth, Su (2022), Corollary 3.3 (exact GDP composition) and Corollary 2.13; "
          "additive deltas of thresholded releases added (skdpgd.accounting._composition)")


@dataclass(frozen=True, repr=False, kw_only=True)
class PipelinePrivacyReport(PrivacyReport):
    r"""What a :class:`~skdpgd.DPPipeline` released and what it cost, composed.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee at the requested delta: ``epsilon = epsilon_at(delta)``, never above
        the pipeline's target.
    mu : float
        Gaussian-DP parameter of all the releases together, :math:`\sqrt{\sum_i \mu_i^2}`.
    extra_delta : float
        The sum of the additive deltas of the thresholded releases (0 without any).
    steps : tuple of (str, report)
        Each release in order: the step's name and its own report (a
        :class:`~skdpgd.accounting._release.ReleasePrivacyReport` for a private
        preparation step or the target's range, the estimator's
        :class:`~skdpgd.PrivacyReport`); for a planned report, the allowances.
    n_samples : int
        n (public).
    preparation_share : float
        The share of :math:`\mu^2` the budget rule gave the private preparation.
    planned : bool
        True for :meth:`~skdpgd.DPPipeline.plan_privacy` (upper bounds, what the ledger
        is charged), False for a fit's report (what was spent).
    shared : tuple of (str, report)
        Steps released once by :meth:`~skdpgd.DPPipeline.prepare` and reused here: their
        cost was charged once when they were prepared; reusing them is post-processing,
        so they are listed with their cost but not composed into ``mu`` or
        ``extra_delta`` (:doc:`/budgets`, "Prepare once, search many").
    notes : tuple of str
        Anything else the user should know.
    neighbouring_relation : str
        ``"replace-one"`` (n is public).
    """

    mu: float
    extra_delta: float
    steps: tuple
    n_samples: int
    preparation_share: float
    planned: bool = False
    shared: tuple = ()

    title = "PipelinePrivacyReport"

    @classmethod
    def compose(cls, steps, *, delta, n_samples, preparation_share, planned, notes=(),
                shared=()):
        """The report of releases ``steps`` composed at ``delta``.

        Parameters
        ----------
        steps : sequence of (str, report)
            Each report has ``mu`` and optionally ``extra_delta``.
        delta : float
            The delta at which epsilon is stated.
        n_samples : int
            n.
        preparation_share : float
            As the attribute.
        planned : bool
            As the attribute.
        notes : sequence of str, default=()
            As the attribute.
        shared : sequence of (str, report), default=()
            As the attribute (listed, not composed).

        Returns
        -------
        PipelinePrivacyReport
            The composed report.
        """
        steps = tuple(steps)
        mu2 = math.fsum(float(r.mu) ** 2 for _, r in steps)
        extra = math.fsum(float(getattr(r, "extra_delta", 0.0)) for _, r in steps)
        mu = math.sqrt(mu2)
        return cls(
            epsilon=Allowance(mu, extra).epsilon_at(float(delta)), delta=float(delta), mu=mu,
            extra_delta=extra, steps=steps, n_samples=int(n_samples),
            preparation_share=float(preparation_share), planned=bool(planned),
            notes=tuple(notes), shared=tuple(shared),
        )

    def _curve(self):
        r"""``Allowance(mu, extra_delta)``: :math:`\delta_\mu(\varepsilon) + \delta_0`, and
        epsilon inf when ``delta`` is at most ``extra_delta``."""
        return Allowance(self.mu, self.extra_delta)

    @property
    def event(self):
        """The privacy event the ledger records: Gaussian DP, plus the additive delta."""
        if self.extra_delta > 0.0:
            return GaussianDpWithDeltaEvent(self.mu, self.extra_delta)
        return GaussianDpEvent(self.mu)

    @property
    def theorem(self):
        """The theorems the composition uses (what the ledger records as description)."""
        return SOURCE

    def to_dict(self):
        """Plain-type summary (for logs and the ledger); holds no data value.

        Returns
        -------
        dict
            Numbers, strings and lists only.
        """
        return {
            "epsilon": self.epsilon, "delta": self.delta, "mu": self.mu,
            "extra_delta": self.extra_delta, "n_samples": self.n_samples,
            "preparation_share": self.preparation_share, "planned": self.planned,
            "steps": [{"name": name, **_step_dict(report)} for name, report in self.steps],
            "shared": [{"name": name, **_step_dict(report)} for name, report in self.shared],
            "notes": list(self.notes), "neighbouring_relation": self.neighbouring_relation,
            "source": SOURCE,
        }

    @property
    def released(self):
        """What the header says was released: the plan's upper bound, or what was spent."""
        return "planned (upper bound)" if self.planned else "spent"

    def _guarantee(self):
        extra = f" + additive delta {format_up(self.extra_delta)}" if self.extra_delta else ""
        return f"mu={format_up(self.mu)}-GDP{extra}, "

    def _lines(self):  # under the header every report shares (PrivacyReport.__repr__)
        lines = [f"  composition: {SOURCE}"]
        for name, report in self.steps:
            extra = float(getattr(report, "extra_delta", 0.0))
            share = (float(report.mu) ** 2 / self.mu ** 2
                     if self.mu not in (0.0, math.inf) else float("nan"))
            what = getattr(report, "mechanism", None) or getattr(report, "theorem", "")
            lines.append(
                f"  {name}: mu={format_up(report.mu)} ({share:.1%} of mu^2)"
                + (f", additive delta {format_up(extra)}" if extra else "")
                + (f"; {what}" if what else "")
            )
            lines.extend(f"    {note}" for note in getattr(report, "notes", ())
                         if str(note).startswith("fallback"))
        for name, report in self.shared:
            extra = float(getattr(report, "extra_delta", 0.0))
            lines.append(
                f"  {name}: shared, released once before this fit (mu={format_up(report.mu)}"
                + (f", additive delta {format_up(extra)}" if extra else "")
                + "; DPPipeline.prepare or DPSearchCV charged it once); reused here as "
                "post-processing, not composed above")
        return lines


def _step_dict(report):
    to_dict = getattr(report, "to_dict", None)
    if callable(to_dict):
        return {"report": to_dict()}
    return {"report": {"mu": float(report.mu),
                       "extra_delta": float(getattr(report, "extra_delta", 0.0))}}
