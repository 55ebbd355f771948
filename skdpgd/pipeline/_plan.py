"""A DPPipeline's plan: its private releases, their budget split, the planned report.

All of it is a function of the parameters, of n and of the table's structure (columns
and dtypes) only, so the planned report is what the ledger is charged before any value
is read, and what :meth:`skdpgd.DPPipeline.plan_privacy` returns.
"""

import dataclasses

from ..accounting._release import ReleasePrivacyReport
from ..linear_model import DPRidge
from ..utils._validation import check_epsilon, resolve_delta
from ._budget import EXTRA_DELTA_SHARE, split_budget
from ._checks import is_auto, is_balanced, is_private, is_private_classes, is_skip
from ._report import PipelinePrivacyReport

#: The name of the target's range release in reports.
TARGET_RANGE = "target range (y_bound='auto')"

#: The name of the label-set release in reports.
LABEL_SET = "label set (classes='private')"

#: The name of the class-count release in reports.
CLASS_COUNTS = "class counts (class_weight='balanced')"


def privacy_plan(step, X):
    """(Gaussian releases, thresholded releases) a private step plans; (1, 1) if unknown."""
    hook = getattr(step, "_privacy_plan", None)
    if not callable(hook):
        return 1, 1
    if X is not None:  # the schema's problems (public) are refused here, before the charge
        n_gdp, n_thresholded = hook(X)
        return int(n_gdp), int(n_thresholded)
    try:
        n_gdp, n_thresholded = hook(None)
    except Exception:  # noqa: BLE001 - cannot plan without data: assume it spends both
        return 1, 1
    return int(n_gdp), int(n_thresholded)


def first_step_guessed(pre):
    """Whether the first private step cannot plan without the table's structure.

    Only the first private step plans from X's structure in a fit (see
    :func:`planned_releases`); when its ``_privacy_plan(None)`` cannot answer, a plan
    without X assumes it spends and thresholds, which a fit that sees X may not do.
    """
    for _, step in pre:
        if is_skip(step) or not is_private(step):
            continue
        hook = getattr(step, "_privacy_plan", None)
        if not callable(hook):
            return False
        try:
            hook(None)
        except Exception:  # noqa: BLE001 - the same fallback as privacy_plan
            return True
        return False
    return False


def planned_releases(pre, final, X):
    """The private releases in order: (name, step or None, needs an additive delta).

    A private step says from X's structure (``_privacy_plan(X)``: its number of
    Gaussian releases and of thresholded ones) whether it spends anything; a step
    that spends nothing gets no share. Only the first step sees X's structure: a
    step after another one (whose output's columns and dtypes may differ, or depend
    on a release) and every step when planning without data get ``None``. A step
    without the hook, or that cannot answer, is assumed to spend both.
    """
    releases, structure = [], X
    for name, step in pre:
        if is_skip(step):
            continue
        if is_private(step):
            n_gdp, n_thresholded = privacy_plan(step, structure)
            if n_gdp or n_thresholded:
                releases.append((name, step, bool(n_thresholded)))
        # what a step hands on may have other columns and dtypes (a private step's
        # output may even depend on its release): later steps plan without it
        structure = None
    if isinstance(final, DPRidge) and is_auto(final.y_bound):
        releases.append((TARGET_RANGE, None, False))
    if is_private_classes(final):  # thresholded: an additive delta
        releases.append((LABEL_SET, None, True))
    if is_balanced(final):
        releases.append((CLASS_COUNTS, None, False))
    return releases


def plan_budget(pipeline, releases, n_samples):
    """The split of the pipeline's budget for these releases on n rows (public numbers)."""
    epsilon = check_epsilon(pipeline.epsilon)
    delta = resolve_delta(pipeline.delta, n_samples)
    return split_budget(epsilon, delta, [needs for _, _, needs in releases],
                        preparation_share=float(pipeline.preparation_share),
                        extra_delta_share=EXTRA_DELTA_SHARE)


def dominating_budget(pipeline, releases, budget, n_samples):
    r"""A budget that bounds every fit's, when the plan cannot see the table's structure.

    Without X, a private step that may threshold is planned with an additive-delta
    reserve :math:`\delta_0`, which lowers the GDP part to
    :math:`\mu(\varepsilon, \delta - \delta_0)`. A fit that sees the structure and
    finds nothing to threshold reserves nothing and spends the larger
    :math:`\mu(\varepsilon, \delta)`. Neither plan bounds the other at every delta, so
    the plan without X takes the larger of each part: the GDP split of the budget
    without reserve and the reserve's additive deltas. Every fit's (mu, delta_0) is
    then at most the plan's in both coordinates, so its privacy curve lies below the
    plan's at every epsilon (the trade-off curve of a mu-GDP release plus an additive
    delta is increasing in both). Its epsilon at the requested delta may therefore
    exceed the target slightly: it is an upper bound, not the fit's guarantee.
    """
    free = plan_budget(pipeline, [(name, step, False) for name, step, _ in releases],
                       n_samples)
    return dataclasses.replace(free, extra_delta=budget.extra_delta,
                               step_extra_delta=budget.step_extra_delta)


def planned_report(releases, budget, last_name, n_samples):
    """The planned report: every allowance as an upper bound (public numbers only)."""
    steps = [
        (name, ReleasePrivacyReport(mu=mu, extra_delta=extra,
                                    mechanism="planned allowance (upper bound)"))
        for (name, _, _), mu, extra in zip(releases, budget.step_mu,
                                           budget.step_extra_delta)
    ]
    steps.append((last_name, ReleasePrivacyReport(
        mu=budget.estimator_mu, extra_delta=0.0,
        mechanism=(f"planned: calibrated to (epsilon={budget.estimator_epsilon:.6g}, "
                   f"delta={budget.estimator_delta:.3g}), at most this mu"))))
    return PipelinePrivacyReport.compose(
        steps, delta=budget.delta, n_samples=n_samples,
        preparation_share=budget.preparation_share, planned=True,
        notes=("planned cost: the allowances, upper bounds of what a fit spends",),
    )
