r"""A DP pipeline's private preparation in a private search: released once, then shared.

``DPSearchCV`` over ``make_dp_pipeline(DPTableVectorizer(), estimator)`` cannot put the
vectorizer inside each trial: its category thresholds add an additive delta, which the
selection's Renyi-DP bound does not cover. So the search releases the preparation once,
on all n rows, before the trials (after the ledger charge), and every trial fits a
pipeline whose private steps are frozen (:class:`skdpgd.pipeline.PreparedStep`):

1. **Budget (public).** With :math:`\rho` the pipeline's ``preparation_share``, the
   preparation gets :math:`\mu_p = c\,\mu` with :math:`c = \sqrt{\rho/(1-\rho)}`, the
   ratio one pipeline fit gives it against its estimator; when a step thresholds, the
   additive delta :math:`\delta_0 = \kappa\delta` (:math:`\kappa` = 0.1, as in a fit).
   The trial mu is the largest whose total (below) is at most (epsilon, delta).
2. **Total.** The preparation is :math:`\mu_p`-GDP up to :math:`\delta_0`; given its
   output (a fixed public map), the selection is the Papernot-Steinke mechanism over
   trials that are :math:`\mu`-GDP. By adaptive composition in Renyi DP (Mironov 2017,
   Proposition 1; a :math:`\mu_p`-GDP release is :math:`(\alpha, \alpha\mu_p^2/2)`-RDP,
   Dong, Roth and Su 2022, Corollary B.6) and the hybrid argument for the additive
   delta (:mod:`skdpgd.accounting._composition`), the search is
   :math:`(\varepsilon(\delta - \delta_0), \delta)`-DP with
   :math:`\varepsilon(\cdot)` the conversion of the curve
   :math:`\mathrm{rdp}_{\mathrm{sel}}(\alpha) + \alpha\mu_p^2/2`.
3. **Trials.** Reusing the released preparation in each trial is post-processing: a
   trial is the same :math:`\mu`-GDP fit-and-score of a pipeline whose first map is
   fixed (``docs/budgets.md``, "Prepare once, search many").
"""

import math
from dataclasses import dataclass

from sklearn.base import clone

from ..accounting import ReleasePrivacyReport
from ..pipeline import PipelinePrivacyReport
from ..pipeline._budget import EXTRA_DELTA_SHARE
from ..pipeline._checks import check_steps
from ..pipeline._plan import planned_releases
from ..pipeline._prepare import freeze, preparation_source, prepare_generator
from ._pipeline import is_dp_pipeline


@dataclass(frozen=True)
class SharedPreparation:
    """The public plan of a preparation released once before a private search.

    Attributes
    ----------
    names : tuple of str
        The private steps released once.
    needs_extra_delta : tuple of bool
        Per step, whether it thresholds (needs an additive delta).
    ratio : float
        c, so that the preparation's mu is c times the trial mu.
    extra_delta : float
        The additive delta the thresholded steps share (0 without any).
    """

    names: tuple
    needs_extra_delta: tuple
    ratio: float
    extra_delta: float

    def allowance(self, trial_mu):
        """``{step: (mu, additive delta)}``: equal shares of :math:`\\mu_p^2` and of delta_0."""
        mu_p = self.ratio * trial_mu
        k, k_thr = len(self.names), sum(self.needs_extra_delta)
        return {name: (mu_p / math.sqrt(k), self.extra_delta / k_thr if need else 0.0)
                for name, need in zip(self.names, self.needs_extra_delta, strict=True)}

    def planned_report(self, trial_mu, delta, n_samples):
        """The preparation's charge (its allowances), a PipelinePrivacyReport."""
        steps = [(name, ReleasePrivacyReport(mu=mu, extra_delta=extra,
                                             mechanism="planned allowance (upper bound)"))
                 for name, (mu, extra) in self.allowance(trial_mu).items()]
        return PipelinePrivacyReport.compose(
            steps, delta=delta, n_samples=n_samples, preparation_share=0.0, planned=True,
            notes=("DPSearchCV: the preparation, released once and shared by every trial",))


def plan_shared_preparation(estimator, X, grid, delta):
    """The shared preparation of a DP pipeline with private steps that spend, or None.

    Reads the parameters and X's structure only (dtypes, columns). Refuses a grid that
    changes a private step's parameters (one release is shared by every candidate).
    """
    if not is_dp_pipeline(estimator):
        return None
    pre, _, final = check_steps(estimator)
    releases = [(name, needs) for name, step, needs in planned_releases(pre, final, X)
                if step is not None]
    if not releases:
        return None
    names = tuple(name for name, _ in releases)
    changed = sorted({key for params in grid for key in params
                      if key.split("__", 1)[0] in names})
    if changed:
        raise ValueError(
            f"DPSearchCV releases the pipeline's private preparation ({', '.join(names)}) "
            f"once and shares it with every candidate, so the grid cannot change its "
            f"parameters {changed}: set them on the pipeline, or search over the estimator's "
            "parameters only.")
    rho = float(estimator.preparation_share)
    needs = tuple(bool(need) for _, need in releases)
    return SharedPreparation(names=names, needs_extra_delta=needs,
                             ratio=math.sqrt(rho / (1.0 - rho)),
                             extra_delta=EXTRA_DELTA_SHARE * delta if any(needs) else 0.0)


def planning_stand_in(estimator, shared):
    """A clone whose shared steps are ``"passthrough"``: it plans as the prepared one."""
    stand_in = clone(estimator)
    stand_in.steps = [(name, "passthrough" if name in shared.names else step)
                      for name, step in stand_in.steps]
    return stand_in


def release_shared(estimator, shared, X, y, trial_mu, seed):
    """The pipeline with its preparation released on all of X and frozen (after the charge)."""
    return freeze(estimator, X, y, shared.allowance(trial_mu), prepare_generator(seed))


def shared_source(estimator, shared):
    """How the ledger names the shared preparation."""
    return "DPSearchCV: " + preparation_source(estimator, dict.fromkeys(shared.names))
