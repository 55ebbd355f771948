"""A DPPipeline's fit after the charge: each release within its allowance, then composed.

Every step is fitted on a clone (the user's steps are never changed); a private step gets
its allowance and its own seed, and a release that reports more than its allowance is
refused (a broken step contract). The estimator's own seed is dropped from the fitted
model, and every release is composed into ``privacy_``.
"""

from sklearn.base import clone, is_classifier
from sklearn.pipeline import Pipeline

from ..accounting.allowance import Allowance
from ..accounting.calibration import round_down
from ..preprocessing import check_allowance
from ..utils._validation import make_generator
from ._checks import fit_transform_private, is_prepared, is_private, is_skip
from ._constant_fallback import CONSTANT_CHECK, run_constant_check
from ._labels import PrivateClassCounts, release_label_set
from ._mean_correction import MEAN_CORRECTION, post_fit_plans, run_mean_correction
from ._plan import CLASS_COUNTS, LABEL_SET, TARGET_RANGE
from ._report import PipelinePrivacyReport
from ._table_notes import indicator_columns, preparation_notes
from ._target import PrivateTargetRange, scale_target
from ._units import TargetUnits


def fit_charged(pipeline, X, y, pre, last_name, final, releases, budget, n):
    """Steps 4-5 of :mod:`skdpgd.pipeline._dp_pipeline` (the ledger has been charged).

    Fits clones of the steps with their allowances and sets ``pipeline``'s fitted
    attributes; returns ``pipeline``.
    """
    rng = make_generator(pipeline.random_state)
    allowance = {name: (mu, extra) for (name, _, _), mu, extra in
                 zip(releases, budget.step_mu, budget.step_extra_delta, strict=True)}
    fitted, spent, shared, Xt = [], [], [], X
    for name, step in pre:
        if is_skip(step):
            fitted.append((name, step))
            continue
        step = clone(step)
        if is_private(step):
            mu, extra = allowance.get(name, (0.0, 0.0))
            Xt_next = fit_transform_private(step, Xt, y, mu=mu, extra_delta=extra,
                                            random_state=_child_seed(rng))
            check_allowance(name, step.privacy_, mu, extra)
            spent.append((name, step.privacy_))
            Xt = Xt_next
        else:
            Xt = step.fit_transform(Xt, y)
            if is_prepared(step):  # released once by prepare(): reused, not charged here
                shared.append((name, step.privacy_))
        fitted.append((name, step))
    # public: the releases after the fit (None: not run) and what is left for the fit
    correction, check, fit_mu = post_fit_plans(final, budget, n, pipeline.mean_correction,
                                               pipeline.constant_check)
    estimator = clone(final).set_params(ledger=None, random_state=_child_seed(rng))
    # the estimator's share in mu (the one currency inside): all of it, or the fit's part
    within = (budget.estimator_allowance if correction is None and check is None
              else Allowance(round_down(fit_mu)))
    norm = _row_norm_bound(fitted)
    if norm is not None:
        estimator.set_params(data_norm=norm)
    y_fit = y
    if TARGET_RANGE in allowance:
        mu, _ = allowance[TARGET_RANGE]
        target = PrivateTargetRange()._fit_private(None, y, mu=mu,
                                                   random_state=_child_seed(rng))
        check_allowance(TARGET_RANGE, target.privacy_, mu, 0.0)
        (low, high), report = target.range_, target.privacy_
        spent.append((TARGET_RANGE, report))
        y_fit = scale_target(y, low, high)
        estimator._use_pipeline_release("target_range", (low, high, target.spread_))
        pipeline.target_range_ = (low, high)
    classes, sample_weight = final._pipeline_classes(), None
    if LABEL_SET in allowance:
        mu, extra = allowance[LABEL_SET]
        classes, y_fit, sample_weight, report = release_label_set(
            y, mu=mu, delta0=extra, random_state=_child_seed(rng))
        check_allowance(LABEL_SET, report, mu, extra)
        spent.append((LABEL_SET, report))
        estimator._use_pipeline_release("label_set", classes)
    if CLASS_COUNTS in allowance:
        mu, _ = allowance[CLASS_COUNTS]
        counts = PrivateClassCounts(classes)._fit_private(
            None, y_fit, mu=mu, random_state=_child_seed(rng))
        check_allowance(CLASS_COUNTS, counts.privacy_, mu, 0.0)
        weights, report = counts.class_weight_, counts.privacy_
        spent.append((CLASS_COUNTS, report))
        estimator._use_pipeline_release("class_counts", weights)
        pipeline.class_weight_ = weights
    # public numbers the preparation released may leave no table: a model, no interval
    no_table = _table_refusal(estimator, n, Xt, classes, within.epsilon_at,
                              budget.estimator_delta)
    if getattr(estimator, "inference", False):  # the columns that may leave the block
        estimator._inference_indicators = indicator_columns(fitted, int(Xt.shape[1]))
    estimator._fit_within(Xt, y_fit, allowance=within, delta=budget.estimator_delta,
                          sample_weight=sample_weight, table_refusal=no_table, name=last_name)
    # The seed that drew the estimator's noise is not kept in the fitted (pickled)
    # model: whoever held it could regenerate the noise and test a neighbouring table
    # by refitting (docs/privacy_model.md, "Fixed seeds"); the pipeline's own
    # random_state is the only seed the user chose. The clone's epsilon and delta are
    # what it spent (its report's: no conversion).
    estimator.set_params(random_state=None, epsilon=estimator.privacy_.epsilon,
                         delta=estimator.privacy_.delta)
    check_allowance(last_name, estimator.privacy_, fit_mu, 0.0)
    if getattr(estimator, "inference_", None) is not None:
        names = _feature_names(fitted, estimator.n_features_in_)
        if names is not None:
            estimator._name_table(names, *preparation_notes(fitted, estimator.n_features_in_))
    spent.append((last_name, estimator.privacy_))
    if correction is not None:  # the intercept at the mean residual, in the fit's scale
        pipeline.mean_correction_, report = run_mean_correction(
            estimator, Xt, y_fit, correction, _child_seed(rng))
        check_allowance(MEAN_CORRECTION, report, correction.release_mu, 0.0)
        spent.append((MEAN_CORRECTION, report))
    if check is not None:  # the model against the private constant, in the fit's scale
        pipeline.constant_check_, report = run_constant_check(estimator, Xt, y_fit, check,
                                                              _child_seed(rng))
        check_allowance(CONSTANT_CHECK, report, check.check_mu, 0.0)
        spent.append((CONSTANT_CHECK, report))
    if TARGET_RANGE in allowance:
        TargetUnits(*pipeline.target_range_).apply(estimator)
    fitted.append((last_name, estimator))
    pipeline.pipeline_ = Pipeline(fitted)
    pipeline.budget_ = budget
    notes = list(getattr(estimator.privacy_, "notes", ()))
    if norm is not None:
        notes.append(f"the estimator's data_norm is {norm:.6g}, the row-norm bound of the "
                     "last transformer's construction")
    if LABEL_SET in allowance:
        notes.append("the label set was released privately (thresholded noisy counts); "
                     "rows whose label was not released had weight 0 in the fit")
    if TARGET_RANGE in allowance:
        notes.append("DPRidge was fitted on y mapped by the released range to [-1, 1] "
                     "(y_bound=1); its coef_, intercept_ and every inference output "
                     "(inference_, coef_cov_, coef_se_, intercept_se_, pvalues_, conf_int, "
                     "summary) are on the scale of y")
    if no_table is not None:
        notes.append("inference=True: the model was fitted, its coefficient table has no "
                     f"interval ({no_table})")
    report = PipelinePrivacyReport.compose(
        spent, delta=budget.delta, n_samples=n,
        preparation_share=budget.preparation_share, planned=False, notes=notes,
        shared=shared)
    if not report.epsilon <= budget.epsilon:  # the composition theorem says it cannot
        raise RuntimeError(
            f"internal error: the composed epsilon {report.epsilon!r} exceeds the budget "
            f"{budget.epsilon!r}; please report it.")
    if is_classifier(estimator):
        pipeline.classes_ = estimator.classes_
    pipeline.privacy_ = report
    return pipeline


def _child_seed(rng):
    """An independent seed drawn from the pipeline's generator (one per release)."""
    return int(rng.integers(2**32))


def _row_norm_bound(fitted):
    """``row_norm_bound_`` of the last non-skipped transformer, or None."""
    for _, step in reversed(fitted):
        if is_skip(step):
            continue
        bound = getattr(step, "row_norm_bound_", None)
        return None if bound is None else float(bound)
    return None


def _table_refusal(estimator, n, Xt, classes, epsilon_at, delta):
    """Why the estimator's table cannot be released at the width and label set the
    preparation gave (public numbers), or None (also without ``inference=True``); its
    target is ``epsilon_at(delta)`` (inference splits its budget in epsilon)."""
    if not getattr(estimator, "inference", False) or (
            is_classifier(estimator) and classes is None):
        return None  # labels read from y (no ledger): the estimator's own plan decides
    n_classes = len(classes) if is_classifier(estimator) else None
    return estimator._table_refusal(n, int(Xt.shape[1]), n_classes, epsilon_at(delta), delta)


def _feature_names(fitted, n_features):
    """The names of the columns the estimator saw: ``get_feature_names_out()`` of the
    fitted transformers (public structure), or None when a step cannot say."""
    steps = [(name, step) for name, step in fitted if not is_skip(step)]
    if not steps:
        return None
    try:
        names = [str(name) for name in Pipeline(steps).get_feature_names_out()]
    except (AttributeError, TypeError, ValueError, NotImplementedError):
        return None  # a step without feature names: the table keeps x0, x1, ...
    return names if len(names) == n_features else None
