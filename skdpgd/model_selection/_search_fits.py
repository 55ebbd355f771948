r"""The fits a scikit-learn search runs, planned from public numbers only.

A ``GridSearchCV`` / ``RandomizedSearchCV`` over an skdpgd estimator (or a ``Pipeline``
of public-bound steps ending in one, or a :class:`~skdpgd.DPPipeline`) fits every
candidate on every training fold, then (``refit``) the best candidate on all rows. Each
fit charges its ledger the report its estimator plans from public numbers (n, d, the
public label set, a table's structure), before it reads any value. So the fits, their
rows and their charges follow from the search's parameters, n and the table's structure:

- the candidates: ``ParameterGrid(param_grid)``, or ``ParameterSampler(param_distributions,
  n_iter, random_state)`` (reproducible with an int ``random_state``, or when every
  distribution is a list that ``n_iter`` exhausts), or a fitted search's
  ``cv_results_["params"]``;
- the training folds: the splitter's ``split`` of n rows (splitters whose folds depend on
  n and a seed only; label- and group-dependent ones are refused);
- the refit: the best candidate's plan on all n rows. Before the search runs the best is
  unknown (it is chosen by validation scores), so every candidate is a possible refit
  (:class:`SearchFits` ``refits``); a fitted search's is its ``best_estimator_``'s.

A preparation released once by :meth:`~skdpgd.DPPipeline.prepare` and shared by every
candidate is one more charge, on all rows, made by ``prepare`` (not by the search).
"""

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    LeaveOneOut,
    LeavePOut,
    ParameterGrid,
    ParameterSampler,
    PredefinedSplit,
    RandomizedSearchCV,
    RepeatedKFold,
    ShuffleSplit,
    TimeSeriesSplit,
)

from ..pipeline import PipelinePrivacyReport
from ..preprocessing._public_steps import features_out
from ..utils._sklearn_compat import _CVIterableWrapper
from ..utils._validation import resolve_delta
from ._pipeline import candidate, is_dp_pipeline, split_estimator

#: Splitters whose folds depend on n (and a seed) only, never on the data values.
_DATA_INDEPENDENT = (KFold, RepeatedKFold, ShuffleSplit, LeaveOneOut, LeavePOut,
                     PredefinedSplit, TimeSeriesSplit, _CVIterableWrapper)


@dataclass(frozen=True)
class PlannedFit:
    """One charge a search makes: what spends, its planned report, its rows (positions)."""

    estimator: object
    report: object
    rows: np.ndarray
    name: str = ""


@dataclass(frozen=True)
class SearchFits:
    """Every charge of one search, planned (public numbers only).

    Attributes
    ----------
    shared : list of PlannedFit
        Preparations released once (:meth:`~skdpgd.DPPipeline.prepare`), on all rows.
    folds : list of PlannedFit
        One per candidate and training fold.
    refits : list of (dict, PlannedFit)
        The refit of each candidate that may be refitted, with its parameters: the best
        one for a fitted search, every candidate before the search runs; empty without
        refit.
    n_samples, n_candidates, n_splits : int
    exact : bool
        Whether the folds' rows are reproduced (otherwise each is charged to every record).
    """

    shared: list
    folds: list
    refits: list
    n_samples: int
    n_candidates: int
    n_splits: int
    exact: bool


def planned_report(estimator, n_samples, n_features, classes=None, *, X=None):
    """The PrivacyReport ``estimator`` would have on ``n_samples`` rows, without data.

    :meth:`~skdpgd.DPLogisticRegression.plan_privacy`: the plan and its report use public
    numbers only, so no data are needed.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPRidge
        The estimator to plan.
    n_samples, n_features : int
        Shape of the data it would see (public).
    classes : array-like or None, default=None
        The public label set of a classifier that does not carry one in ``classes``.
    X : table or None, default=None
        A :class:`~skdpgd.DPPipeline`'s table, read for its structure only.

    Returns
    -------
    skdpgd.PrivacyReport
        Exactly ``estimator.fit(X, y).privacy_`` for any X of that shape.
    """
    n_classes = None
    if is_classifier(estimator):
        labels = estimator._public_label_set()
        labels = classes if labels is None else labels
        if labels is None:
            raise ValueError("The label set is unknown: set classes= on the estimator.")
        n_classes = np.unique(np.asarray(labels)).size
    if is_dp_pipeline(estimator):
        return estimator.plan_privacy(int(n_samples), int(n_features), n_classes, X=X)
    return estimator.plan_privacy(int(n_samples), int(n_features), n_classes)


def splitter(search):
    """The search's splitter, if its folds depend on n and a seed only (else ValueError)."""
    cv = search.cv
    if cv is None or isinstance(cv, numbers.Integral):
        if is_classifier(search.estimator):
            raise ValueError(
                "This search used cv=None or an int with a classifier, i.e. StratifiedKFold: "
                "its folds depend on the private labels (replacing one label can move many "
                "records between folds), so no per-fit bound covers it. Search with "
                "cv=KFold(n_splits, shuffle=True, random_state=seed) instead."
            )
        return KFold(5 if cv is None else int(cv))
    if isinstance(cv, (list, tuple)):  # explicit (train, test) pairs: public by assumption
        cv = _CVIterableWrapper(cv)
    if not isinstance(cv, _DATA_INDEPENDENT):
        if hasattr(cv, "split"):
            raise ValueError(
                f"cv={cv!r} is not a splitter known to depend on n and a seed only (stratified "
                "and group splitters read labels or groups). Use KFold, ShuffleSplit, "
                "RepeatedKFold, PredefinedSplit or an explicit list of (train, test) indices."
            )
        raise ValueError(
            "The search's cv is an iterator that has been consumed; pass a list of "
            "(train, test) index pairs, or a splitter object, to make its folds reproducible."
        )
    return cv


def reproducible(cv):
    """Whether the splitter's folds are the same at every call (a fixed seed, or none)."""
    if isinstance(cv, (KFold,)) and not cv.shuffle:
        return True
    state = getattr(cv, "random_state", None)
    if isinstance(cv, (KFold, RepeatedKFold, ShuffleSplit)):
        return isinstance(state, numbers.Integral)
    return True


def candidate_params(search, fitted):
    """The candidates' parameters, in the search's order (from its parameters alone)."""
    if fitted:
        return list(search.cv_results_["params"])
    if isinstance(search, GridSearchCV):
        return list(ParameterGrid(search.param_grid))
    if isinstance(search, RandomizedSearchCV):
        dists = search.param_distributions
        dists = dists if isinstance(dists, list) else [dists]
        lists = all(all(not hasattr(v, "rvs") for v in d.values()) for d in dists)
        sampler = ParameterSampler(search.param_distributions, search.n_iter,
                                   random_state=search.random_state)
        if not (isinstance(search.random_state, numbers.Integral)
                or (lists and search.n_iter >= len(ParameterGrid(dists)))):
            raise ValueError(
                f"RandomizedSearchCV(random_state={search.random_state!r}) draws its "
                "candidates at fit time, so they cannot be priced before: give it an int "
                "random_state (or price the fitted search)."
            )
        return list(sampler)
    raise TypeError(
        f"Only GridSearchCV, RandomizedSearchCV and DPSearchCV can be priced before they "
        f"run (their candidates follow from their parameters); got {type(search).__name__}: "
        "price it after fitting."
    )


def estimator_width(estimator, width):
    """Columns the public-bound steps of ``estimator`` hand its skdpgd estimator, for
    ``width`` columns of X (None when a step cannot say without data)."""
    for _, step in split_estimator(estimator)[0]:
        width = None if width is None else features_out(step, width)
    return width


def _estimator_features(width_in, pre, name, params, n_features):
    """Columns entering the skdpgd estimator of one candidate (public)."""
    if name is None or all(k.startswith(f"{name}__") for k in params):
        return n_features
    # the candidate changes the preprocessing: follow the widths through its steps
    width = width_in
    for _, step in pre:
        width = None if width is None else features_out(step, width)
    if width is None:
        raise ValueError(
            f"Candidates {sorted(k for k in params if not k.startswith(f'{name}__'))} change "
            "the preprocessing, and the number of columns it hands the estimator cannot be "
            "computed without data for these steps. Search over the estimator's parameters "
            "(or over BoundedScaler / RowNormClipper / public_one_hot settings) only."
        )
    return width


def search_fits(search, n_samples, n_features, *, X=None, fitted, width_in=None):
    """:class:`SearchFits` of ``search`` on ``n_samples`` rows (public numbers only).

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        Over an skdpgd estimator, a Pipeline of public-bound steps ending in one, or a
        DPPipeline.
    n_samples : int
        Rows of X.
    n_features : int or None
        Columns entering the skdpgd estimator (None: a fitted search's refit says).
    X : table or None, default=None
        Read for its structure only (a DPPipeline plans from its columns' dtypes).
    fitted : bool
        Read the candidates and the refit from the fitted search (else from its
        parameters: every candidate a possible refit).
    width_in : int or None, default=None
        Columns of X, followed through public steps that a candidate changes.

    Returns
    -------
    SearchFits
    """
    base = search.estimator
    _, _, name = split_estimator(base)
    n_samples = int(n_samples)
    cv = splitter(search)
    splits = [train for train, _ in cv.split(np.zeros((n_samples, 1)))]
    classes = getattr(search, "classes_", None) if fitted else None
    params_list = candidate_params(search, fitted)
    refit = bool(search.refit) and (hasattr(search, "best_estimator_") or not fitted)
    best = split_estimator(search.best_estimator_)[1] if refit and fitted else None
    d_refit = best.n_features_in_ if best is not None else None
    folds, refits, shared = [], [], {}
    everyone = np.arange(n_samples)
    for params in params_list:
        pipeline, estimator = candidate(base, params)
        d = _estimator_features(width_in, split_estimator(pipeline)[0], name, params,
                                n_features if n_features is not None else d_refit)
        shared.update(shared_steps(estimator, n_samples))
        by_size = {}  # folds of one size share one plan (public numbers only: n, d, classes)
        for train in splits:
            if train.size not in by_size:
                by_size[train.size] = planned_report(estimator, train.size, d, classes, X=X)
            folds.append(PlannedFit(estimator, by_size[train.size], train))
        if refit and not fitted:
            report = planned_report(estimator, n_samples, d, classes, X=X)
            refits.append((params, PlannedFit(estimator, report, everyone)))
    if best is not None:  # a DP pipeline was charged its plan, which its privacy_ may undercut
        report = best.plan_privacy(n_samples, X=X) if is_dp_pipeline(best) else best.privacy_
        refits.append((search.best_params_, PlannedFit(best, report, everyone)))
    return SearchFits(
        shared=[PlannedFit(f"{step_name} (shared, prepared once)", report, everyone,
                           step_name) for step_name, report in shared.values()],
        folds=folds, refits=refits, n_samples=n_samples, n_candidates=len(params_list),
        n_splits=len(splits), exact=reproducible(cv))


def shared_steps(estimator, n_samples):
    """``{id: (name, report)}`` of the prepared steps of a DPPipeline (none otherwise);
    each report is the release alone, composed (its event carries the additive delta)."""
    if not is_dp_pipeline(estimator):
        return {}
    delta = resolve_delta(estimator.delta, n_samples)
    return {id(step): (step_name, PipelinePrivacyReport.compose(
                [(step_name, step.privacy_)], delta=delta, n_samples=n_samples,
                preparation_share=0.0, planned=False))
            for step_name, step in estimator.steps
            if getattr(type(step), "__skdpgd_prepared__", False) is True}
