"""A DPPipeline's plan: its private releases, their budget split, the planned report.

All of it is a function of the parameters, of n and of the table's structure (columns
and dtypes) only, so the planned report is what the ledger is charged before any value
is read, and what :meth:`skdpgd.DPPipeline.plan_privacy` returns.
"""

from sklearn.base import clone, is_classifier

from ..accounting import ReleasePrivacyReport
from ..utils._validation import check_epsilon, resolve_delta
from ._budget import EXTRA_DELTA_SHARE, split_budget
from ._checks import is_prepared, is_private, is_skip
from ._report import PipelinePrivacyReport

#: The name of the target's range release in reports.
TARGET_RANGE = "target range (y_bound='auto')"

#: The name of the label-set release in reports.
LABEL_SET = "label set (classes='private')"

#: The name of the class-count release in reports.
CLASS_COUNTS = "class counts (class_weight='balanced')"

#: The releases an estimator may ask for (``_pipeline_releases()``,
#: :mod:`skdpgd.linear_model._pipeline_releases`): kind -> (its name in reports, whether
#: it is thresholded, so needs an additive delta).
ESTIMATOR_RELEASES = {
    "target_range": (TARGET_RANGE, False),
    "label_set": (LABEL_SET, True),
    "class_counts": (CLASS_COUNTS, False),
}


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
    except Exception:  # cannot plan without data: assume it spends both
        return 1, 1
    return int(n_gdp), int(n_thresholded)


def requested_mu(step, n_samples):
    """The most mu a private step says it needs on n rows (``_requested_mu(n)``, from its
    parameters and n only), or None (an equal part of the preparation's share)."""
    hook = getattr(step, "_requested_mu", None)
    if step is None or not callable(hook) or n_samples is None:
        return None
    return hook(int(n_samples))


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
    for kind in final._pipeline_releases():  # what the estimator declares it needs
        name, thresholded = ESTIMATOR_RELEASES[kind]
        releases.append((name, None, thresholded))
    return releases


def plan_budget(pipeline, releases, n_samples, pre=None, final=None):
    r"""The split of the pipeline's budget for these releases on n rows (public numbers).

    With ``pre`` and ``final`` given, the Gaussian part is met at
    :math:`\delta - \kappa\delta` whenever the plan made *without* the table's
    structure reserves an additive delta (:func:`may_threshold`), even when the table's
    structure lets the fit reserve none: every fit is then at most the plan without X
    in both coordinates (the same :math:`\mu`, an additive delta no larger), and that
    plan's epsilon is the target (:doc:`/budgets`, "Plans without the table").
    """
    epsilon = check_epsilon(pipeline.epsilon)
    delta = resolve_delta(pipeline.delta, n_samples)
    reserve = None if pre is None else may_threshold(pre, final)
    budget = split_budget(epsilon, delta, [needs for _, _, needs in releases],
                          preparation_share=float(pipeline.preparation_share),
                          extra_delta_share=EXTRA_DELTA_SHARE, reserve=reserve,
                          requested=[requested_mu(step, n_samples)
                                     for _, step, _ in releases])
    if final is not None:
        check_table_plan(final, budget, n_samples)
    return budget


def check_table_plan(final, budget, n_samples):
    """Refuse ``inference=True`` (and the estimator's parameters: a sampler its solver does
    not run, lam = 0 without a radius) before the charge wherever public numbers decide it.

    The parameters (solver, weights, residual clip, a public label set of more than two
    classes) are checked as the estimator checks them; the width is known only after the
    preparation's release, so the identifiability rule is read here at the smallest
    width any preparation can give (one column, plus the intercept): refused there, it
    refuses every width. A larger width, or a private label set of more than two labels,
    that the rules refuse after the release gives the model with a table of NaN and the
    reason (the estimator's ``table_refusal``; docs/theory.md, "Inference through a
    pipeline").
    """
    refuse = getattr(final, "_refuse_public_parameters", None)
    if callable(refuse):  # a sampler it cannot run, lam = 0 without max_coef_norm
        refuse(n_samples)
    if not getattr(final, "inference", False):
        return
    classes = final._pipeline_classes()
    public = classes is not None
    n_classes = len(classes) if public else None
    final._check_inference_parameters(n_classes)
    estimator = clone(final).set_params(epsilon=budget.estimator_epsilon,
                                        delta=budget.estimator_delta)
    if "target_range" in final._pipeline_releases():  # as the fit sets it: y in [-1, 1]
        estimator._use_pipeline_release("target_range", (-1.0, 1.0))
    smallest = n_classes if public or not is_classifier(final) else 2  # two labels at least
    refusal = estimator._table_refusal(n_samples, 1, smallest)
    if refusal is not None:
        raise ValueError(refusal)


def may_threshold(pre, final):
    """Whether the plan without the table's structure reserves an additive delta."""
    return any(needs for _, _, needs in planned_releases(pre, final, None))


def shared_releases(pre):
    """``[(name, report)]`` of the steps released once by ``prepare`` (not charged again)."""
    return [(name, step.privacy_) for name, step in pre if is_prepared(step)]


def planned_report(releases, budget, last_name, n_samples, shared=(), post_fit=(None, None)):
    """The planned report: every allowance as an upper bound (public numbers only);
    with ``post_fit`` (the plans of the mean correction and of the constant check, None
    where one does not run) the estimator's allowance, unchanged, says how it is split
    between the fit and those releases."""
    correction, check = post_fit[:2]
    steps = [
        (name, ReleasePrivacyReport(mu=mu, extra_delta=extra,
                                    mechanism="planned allowance (upper bound)"))
        for (name, _, _), mu, extra in zip(releases, budget.step_mu,
                                           budget.step_extra_delta, strict=True)
    ]
    split = ("" if correction is None else
             f" and the mean correction within mu={correction.release_mu:.6g} "
             f"({correction.share:.3g} of mu^2)")
    if check is not None:
        of = "mu^2" if correction is None else "what is left"  # mean_correction=False: as before
        split += (f" and the constant check within mu={check.check_mu:.6g} (fit within "
                  f"mu={check.fit_mu:.6g}; {check.share:.3g} of {of} to the check)")
    elif correction is not None:
        split += f" (fit within mu={correction.fit_mu:.6g})"
    steps.append((last_name, ReleasePrivacyReport(
        mu=budget.estimator_mu, extra_delta=0.0,
        mechanism=(f"planned: fitted within mu={budget.estimator_mu:.6g} (reported at "
                   f"delta={budget.estimator_delta:.3g}){split}, at most this mu"))))
    return PipelinePrivacyReport.compose(
        steps, delta=budget.delta, n_samples=n_samples,
        preparation_share=budget.preparation_share, planned=True,
        notes=("planned cost: the allowances, upper bounds of what a fit spends",),
        shared=shared,
    )
