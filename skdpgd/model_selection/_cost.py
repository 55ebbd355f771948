r"""The privacy cost of a fitted scikit-learn search over skdpgd estimators.

A ``GridSearchCV`` / ``RandomizedSearchCV`` over an skdpgd estimator runs
``n_candidates x n_splits`` fits on training folds plus (with ``refit``) one fit on all
rows. Each fit is exactly mu-GDP, so the search's *training* cost per record is exact:

.. math:: \mu_i = \sqrt{\sum_{(c, f):\, i \in \mathrm{train}_f} \mu_{c,f}^2
    + \mu_{\mathrm{refit}}^2}

(Dong, Roth and Su 2022, Corollary 3.3; parallel composition over folds that do not
contain record i). With K-fold splits every record is in ``n_splits - 1`` training folds.
Fits that threshold noisy counts (a DP pipeline's category discovery, or its private label
set, ``classes="private"``) each add their additive delta over the same fits, and epsilon
is taken at ``delta`` minus record i's sum (docs/budgets.md, "What a scikit-learn search
costs"). A ledger charged by the search without ``sample_ids`` charges every fit to every
record, so it may show more; with ``sample_ids`` it shows the same.

**Not covered:** the search also *selects* a candidate by validation scores computed
on the private data without noise, and publishes those scores in ``cv_results_``. That
selection is a further release whose cost no theorem bounds; use
:class:`skdpgd.model_selection.DPSearchCV` for a selection with an end-to-end guarantee.
"""

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import (
    KFold,
    LeaveOneOut,
    LeavePOut,
    PredefinedSplit,
    RepeatedKFold,
    ShuffleSplit,
    TimeSeriesSplit,
)

from .._ledger import PrivacyLedger
from ..accounting import check_supported
from ..pipeline import PipelinePrivacyReport
from ..preprocessing._public_steps import features_out
from ..utils._sklearn_compat import _CVIterableWrapper
from ..utils._validation import resolve_delta
from ._pipeline import candidate, is_dp_pipeline, split_estimator

#: What search_privacy_cost does not account for.
NOT_COVERED = (
    "Not covered: choosing the best candidate by validation scores computed on the "
    "private data (and publishing cv_results_) is an additional release that this cost "
    "does not include; no finite bound is known for it. Use DPSearchCV for a private "
    "selection with an end-to-end guarantee."
)

#: Splitters whose folds depend on n (and a seed) only, never on the data values.
_DATA_INDEPENDENT = (KFold, RepeatedKFold, ShuffleSplit, LeaveOneOut, LeavePOut,
                     PredefinedSplit, TimeSeriesSplit, _CVIterableWrapper)


@dataclass(frozen=True)
class SearchPrivacyCost:
    """The training cost of a search's fits, for the worst-off record.

    Attributes
    ----------
    mu : float or None
        Worst record's exact GDP parameter over all fits of the search; None where one of
        that record's events is not Gaussian DP (a fit with ``solver="sgd"``, composed by
        PLD; see :class:`~skdpgd.PrivacyLedger` and :class:`~skdpgd.LedgerSpend`).
    epsilon, delta : float
        The same as (epsilon, delta)-DP (lossless GDP conversion, or the PLD's epsilon).
    n_fits, n_candidates, n_splits : int
    refit : bool
        Whether the refit on all rows is included.
    per_record : str
        ``"exact"`` (folds reproduced from the splitter) or ``"every fit charged to
        every record"`` (folds not reproducible, e.g. shuffling without a fixed seed).
    ledger : skdpgd.PrivacyLedger
        An uncapped ledger holding one entry per fit (for inspection), and one per
        shared preparation.
    extra_delta : float
        The worst record's accumulated additive delta (thresholded releases).
    shared : tuple of (str, float, float)
        The preparations released once by :meth:`skdpgd.DPPipeline.prepare` that the
        candidates reuse: (step, mu, additive delta), each counted once for every record.
    why_infinite : str or None
        When ``epsilon`` is infinite: which releases made it so and what fixes it.
    not_covered : str
        The selection step, which this cost does not include.
    """

    mu: float | None
    epsilon: float
    delta: float
    n_fits: int
    n_candidates: int
    n_splits: int
    refit: bool
    per_record: str
    ledger: PrivacyLedger
    extra_delta: float = 0.0
    shared: tuple = ()
    why_infinite: str | None = None
    not_covered: str = NOT_COVERED


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
        labels = getattr(estimator, "classes", None)
        labels = classes if labels is None else labels
        if labels is None:
            raise ValueError("The label set is unknown: set classes= on the estimator.")
        n_classes = np.unique(np.asarray(labels)).size
    if is_dp_pipeline(estimator):
        return estimator.plan_privacy(int(n_samples), int(n_features), n_classes, X=X)
    return estimator.plan_privacy(int(n_samples), int(n_features), n_classes)


def _splitter(search):
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


def _reproducible(cv):
    if isinstance(cv, (KFold,)) and not cv.shuffle:
        return True
    state = getattr(cv, "random_state", None)
    if isinstance(cv, (KFold, RepeatedKFold, ShuffleSplit)):
        return isinstance(state, numbers.Integral)
    return True


def _estimator_features(search, pre, name, params, n_features, refit_features):
    """Columns entering the skdpgd estimator of one candidate (public)."""
    if name is None or all(k.startswith(f"{name}__") for k in params):
        return refit_features if n_features is None else n_features
    # the candidate changes the preprocessing: follow the widths through its steps
    width = getattr(search, "n_features_in_", None)
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


def search_privacy_cost(search, *, n_samples=None, n_features=None, delta=None, X=None):
    """Exact per-record privacy cost of all the fits a fitted search ran.

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV, fitted
        Over a :class:`~skdpgd.DPLogisticRegression` or :class:`~skdpgd.DPRidge`, a
        ``Pipeline`` of public-bound transformers ending in one
        (:mod:`skdpgd.preprocessing._public_steps` says which), or a
        :class:`~skdpgd.DPPipeline` (each fit priced by its ``plan_privacy``: the
        allowances of its budget rule, additive delta included; its candidates may change
        ``epsilon``), with a splitter whose folds depend on n and a seed only.
    n_samples, n_features : int or None
        Rows of the X the search was fitted on, and the columns entering the skdpgd
        estimator (after the pipeline's transformers; public); read from
        ``best_estimator_`` when the search refitted, required otherwise.
    delta : float or None
        The delta at which to state epsilon; default: the refit's (or the first
        fit's) delta.
    X : table or None, default=None
        The table the search was fitted on, read for its structure only (columns and
        dtypes), as a :class:`~skdpgd.DPPipeline` fit reads it to decide whether its
        vectorizer thresholds: with it, each fit is priced exactly as the ledger charged
        it. Without it, a pipeline whose first private step cannot plan from its
        parameters is priced by its plan without X (an upper bound: it reserves the
        additive delta of thresholding).

    Returns
    -------
    SearchPrivacyCost
        ``mu`` = max over records of sqrt(sum of mu^2 over the fits that trained on the
        record) (Dong, Roth and Su 2022, Corollary 3.3), and the same as (epsilon,
        delta). Folds x candidates + refit are all counted; the *selection* by
        non-private validation scores is not (see ``not_covered``). A preparation
        shared by the candidates (:meth:`skdpgd.DPPipeline.prepare`) is counted once
        (``shared``); ``extra_delta`` is the worst record's accumulated additive delta,
        and ``why_infinite`` says what made an infinite epsilon. Each fit's privacy
        event (``report.event``) is checked with
        :func:`skdpgd.accounting.check_supported` and composed by
        :mod:`skdpgd.accounting._composition` (through an uncapped ledger).
    """
    if not hasattr(search, "cv_results_"):
        raise ValueError("search_privacy_cost needs a fitted search (call search.fit first).")
    base = search.estimator
    try:
        _, _, name = split_estimator(base)
    except TypeError as exc:
        raise TypeError(
            f"search_privacy_cost supports searches over skdpgd estimators and pipelines of "
            f"public-bound transformers ending in one: {exc}"
        ) from None
    refit = bool(search.refit) and hasattr(search, "best_estimator_")
    refit_features = None
    if refit:
        best = split_estimator(search.best_estimator_)[1]
        refit_features = best.n_features_in_
        n_samples = best.privacy_.n_samples if n_samples is None else n_samples
    if n_samples is None or (n_features is None and not refit):
        raise ValueError("Pass n_samples= and n_features= (the search did not refit, so "
                         "the shape of X is not recorded).")
    n_samples = int(n_samples)
    cv = _splitter(search)
    exact = _reproducible(cv)
    splits = [train for train, _ in cv.split(np.zeros((n_samples, 1)))]
    classes = getattr(search, "classes_", None)
    candidates = search.cv_results_["params"]
    planned, shared = [], {}
    for params in candidates:
        pipeline, estimator = candidate(base, params)
        d = _estimator_features(search, split_estimator(pipeline)[0], name, params, n_features,
                                refit_features)
        shared.update(shared_steps(estimator, n_samples))
        by_size = {}  # folds of one size share one plan (public numbers only: n, d, classes)
        for train in splits:
            if train.size not in by_size:
                by_size[train.size] = planned_report(estimator, train.size, d, classes, X=X)
            planned.append((estimator, by_size[train.size], train))
    if refit:  # a DP pipeline was charged its plan, which its privacy_ may undercut
        refit_report = (best.plan_privacy(n_samples, X=X) if is_dp_pipeline(best)
                        else best.privacy_)
        planned.append((best, refit_report, np.arange(n_samples)))
    everyone = np.arange(n_samples)
    planned = [(f"{step_name} (shared, prepared once)", report, everyone)
               for step_name, report in shared.values()] + planned
    check_supported([report.event for _, report, _ in planned])  # before composing any
    ledger = PrivacyLedger()
    for estimator, report, rows in planned:
        ledger.charge(estimator, report, n_samples=rows.size,
                      sample_ids=rows if exact else None)
    if delta is None:
        delta = ledger.entries[-1].delta
    spend = ledger.spent(delta)
    return SearchPrivacyCost(
        mu=spend.mu, epsilon=spend.epsilon, delta=spend.delta, n_fits=len(ledger.entries),
        n_candidates=len(candidates), n_splits=len(splits), refit=refit,
        per_record="exact" if exact else "every fit charged to every record",
        ledger=ledger, extra_delta=spend.extra_delta,
        shared=tuple((step_name, float(report.mu),
                      float(getattr(report, "extra_delta", 0.0)))
                     for step_name, report in shared.values()),
        why_infinite=why_infinite(spend),
    )


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


def why_infinite(spend):
    """Which releases make a total infinite, and what fixes it (None when finite)."""
    if spend.epsilon != np.inf:
        return None
    if spend.extra_delta >= spend.delta:
        return (f"The worst-off record's additive deltas add up to {spend.extra_delta:.3g}, "
                f"at or above delta={spend.delta:.3g}: every fit whose vectorizer thresholds "
                "noisy counts (category discovery) reserves one. Prepare the pipeline once "
                "(DPPipeline.prepare(X)) and search over the prepared pipeline, or give the "
                "vectorizer public category lists or categorical='hash'; or state epsilon "
                "at a larger delta.")
    return ("Some fit is not private (epsilon=inf among the candidates) or its cost "
            "cannot be bounded at this delta: remove epsilon=inf from the grid.")
