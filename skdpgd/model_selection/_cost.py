r"""The privacy cost of a scikit-learn search over skdpgd estimators, before or after it runs.

A ``GridSearchCV`` / ``RandomizedSearchCV`` over an skdpgd estimator runs
``n_candidates x n_splits`` fits on training folds plus (with ``refit``) one fit on all
rows, each charged the report it plans from public numbers
(:mod:`._search_fits`). Each fit is exactly mu-GDP, so the search's *training* cost per
record is exact:

.. math:: \mu_i = \sqrt{\sum_{(c, f):\, i \in \mathrm{train}_f} \mu_{c,f}^2
    + \mu_{\mathrm{refit}}^2}

(Dong, Roth and Su 2022, Corollary 3.3; parallel composition over folds that do not
contain record i). With K-fold splits every record is in ``n_splits - 1`` training folds.
Fits that threshold noisy counts (a DP pipeline's category discovery, or its private label
set, ``classes="private"``) each add their additive delta over the same fits, and epsilon
is taken at ``delta`` minus record i's sum (docs/budgets.md, "What a scikit-learn search
costs"). A ledger charged by the search with ``sample_ids`` shows exactly this total; one
charged without charges every fit to every record (``without_ids``).

Before the search runs, the refit's candidate is unknown (the best by validation scores):
the cost counts the costliest candidate's refit, so the search spends at most the cost,
and exactly ``by_refit[j]`` when candidate j wins.

**Not covered:** the search also *selects* a candidate by validation scores computed
on the private data without noise, and publishes those scores in ``cv_results_``. That
selection is a further release whose cost no theorem bounds; use
:class:`skdpgd.model_selection.DPSearchCV` for a selection with an end-to-end guarantee.
"""

import math
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import ParameterGrid

from .._ledger import LedgerSpend, PrivacyLedger
from ..accounting import check_supported, gdp_to_epsilon
from ..accounting.allowance import admit
from ._dpsearch import DPSearchCV
from ._pipeline import split_estimator
from ._search_fits import PlannedFit, estimator_width, planned_report, search_fits

__all__ = ["NOT_COVERED", "SearchPrivacyCost", "planned_report", "search_privacy_cost"]

#: What search_privacy_cost does not account for.
NOT_COVERED = (
    "Not covered: choosing the best candidate by validation scores computed on the "
    "private data (and publishing cv_results_) is an additional release that this cost "
    "does not include; no finite bound is known for it. Use DPSearchCV for a private "
    "selection with an end-to-end guarantee."
)


@dataclass(frozen=True)
class SearchPrivacyCost:
    """The cost of a search's fits for the worst-off record, before or after it runs.

    Attributes
    ----------
    mu : float or None
        The worst record's Gaussian-DP parameter over all fits of the search,
        sqrt(sum of mu^2). With ``extra_delta`` > 0 (fits that threshold noisy counts: a
        raw-table pipeline's category discovery or private label set) it is the
        Gaussian part of a guarantee that holds up to that additive delta: the search is
        (``gdp_to_epsilon(mu, delta - extra_delta)``, ``delta``)-DP, and is not mu-GDP
        on its own. None where one of that record's events has no Gaussian-DP form (a
        fit with ``solver="sgd"``, composed by PLD; a DPSearchCV, a Renyi-DP curve).
    epsilon, delta : float
        The same as (epsilon, delta)-DP (lossless GDP conversion at ``delta`` minus the
        additive delta, or the PLD's / RDP's epsilon).
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
    planned : bool
        True when priced before the search ran (from its parameters).
    refit_params : dict or None
        The candidate whose refit is counted: the best one of a fitted search, the
        costliest one before the search runs.
    by_refit : tuple of (dict, LedgerSpend)
        Before the search runs, with refit: for each candidate, the total a ledger charged
        with ``sample_ids`` shows if that candidate is refitted (the cost is the largest).
    without_ids : LedgerSpend or None
        The total a ledger shows when the search is fitted without ``sample_ids`` (every
        fit charged to every record; costliest refit), a bound at least the cost.
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
    planned: bool = False
    refit_params: dict | None = None
    by_refit: tuple = ()
    without_ids: LedgerSpend | None = None


def public_sizes(search, X=None, y=None, sample_ids=None, n_samples=None, n_features=None,
                 fitted=False):
    """(n, d, width of X) from the structure of X, y, the ids or the numbers given.

    ``d`` is the number of columns entering the skdpgd estimator (after public-bound
    steps), None when a fitted search's refit records it. Nothing but shapes and lengths
    is read.
    """
    sizes = {}
    if X is not None:
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2:
            raise ValueError("X must be a 2-D container with a shape (an array, a sparse "
                             "matrix or a DataFrame); or pass n_samples= and n_features=.")
        sizes["X"] = int(shape[0])
    if y is not None:
        sizes["y"] = len(y)
    if sample_ids is not None:
        sizes["sample_ids"] = len(sample_ids)
    if n_samples is not None:
        sizes["n_samples"] = int(n_samples)
    if len(set(sizes.values())) > 1:
        raise ValueError(f"The sizes given disagree: {sizes}.")
    width = None if X is None else int(X.shape[1])
    if width is None and fitted:
        width = getattr(search, "n_features_in_", None)
    n = next(iter(sizes.values()), None)
    best = getattr(search, "best_estimator_", None) if fitted else None
    if n is None and best is not None:
        n = split_estimator(best)[1].privacy_.n_samples
    d = n_features
    if d is None and best is None and width is not None:
        d = estimator_width(search.estimator, width)
    if n is None or (d is None and best is None):
        raise ValueError(
            "Pass X (read for its shape and structure only) or n_samples= and n_features= "
            "(the columns entering the skdpgd estimator): " + (
                "the search did not refit, so the shape of X is not recorded."
                if fitted else "the search is not fitted, so it is priced from n and d."))
    return n, d, width


def search_privacy_cost(search, X=None, y=None, *, sample_ids=None, n_samples=None,
                        n_features=None, delta=None):
    """Exact per-record privacy cost of the fits a search runs (before it runs) or ran.

    Parameters
    ----------
    search : GridSearchCV, RandomizedSearchCV or DPSearchCV, fitted or not
        Over a :class:`~skdpgd.DPLogisticRegression` or :class:`~skdpgd.DPRidge`, a
        ``Pipeline`` of public-bound transformers ending in one
        (:mod:`skdpgd.preprocessing._public_steps` says which), or a
        :class:`~skdpgd.DPPipeline` (each fit priced by its ``plan_privacy``: the
        allowances of its budget rule, additive delta included; its candidates may change
        ``epsilon``), with a splitter whose folds depend on n and a seed only. Not
        fitted: priced from its parameters (a ``RandomizedSearchCV`` needs an int
        ``random_state``), every candidate a possible refit. A classifier needs its
        public label set in ``classes`` (or ``"private"`` in a DPPipeline).
    X : table or None, default=None
        The data the search is (was) fitted on, read for its shape and structure only
        (columns and dtypes), as a :class:`~skdpgd.DPPipeline` fit reads it to decide
        whether its vectorizer thresholds: with it, each fit is priced exactly as the
        ledger charges it. Without it, a pipeline whose first private step cannot plan
        from its parameters is priced by its plan without X (an upper bound: it reserves
        the additive delta of thresholding).
    y : array-like or None, default=None
        The target, read for its length only.
    sample_ids : array-like or None, default=None
        The ids the search's fit is given, read for their number only (the cost is
        per record, whatever the ids).
    n_samples, n_features : int or None
        Rows of X, and the columns entering the skdpgd estimator (after the pipeline's
        transformers; public); default: from X, or from ``best_estimator_`` when a fitted
        search refitted.
    delta : float or None
        The delta at which to state epsilon; default: the refit's (or the last fit's)
        delta.

    Returns
    -------
    SearchPrivacyCost
        ``mu`` = max over records of sqrt(sum of mu^2 over the fits that train on the
        record) (Dong, Roth and Su 2022, Corollary 3.3), with the worst record's
        ``extra_delta`` beside it, and the same as (epsilon, delta). Folds x candidates +
        refit are all counted (before the run: the costliest candidate's refit,
        ``by_refit`` each one's); the *selection* by non-private validation scores is
        not (see ``not_covered``). A preparation shared by the candidates
        (:meth:`skdpgd.DPPipeline.prepare`) is counted once (``shared``); ``why_infinite``
        says what made an infinite epsilon. Each fit's privacy event (``report.event``)
        is checked with :func:`skdpgd.accounting.check_supported` and composed by
        :mod:`skdpgd.accounting._composition` (through an uncapped ledger). It equals the
        total of a ledger that starts empty and is charged by the search with
        ``sample_ids`` (``without_ids``: without them).

    Examples
    --------
    Price a search before it runs, then run it under a ledger with ids:

    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgd import DPLogisticRegression, PrivacyLedger
    >>> from skdpgd.model_selection import search_privacy_cost
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) / 2
    >>> y = (X[:, 0] > 0).astype(int)
    >>> ledger = PrivacyLedger()
    >>> clf = DPLogisticRegression(classes=[0, 1], max_iter=20, ledger=ledger, random_state=0)
    >>> search = GridSearchCV(clf, {"C": [0.1, 1.0]}, cv=KFold(3))
    >>> cost = search_privacy_cost(search, X, y)  # nothing fitted, no value read
    >>> cost.n_fits  # 2 candidates x 3 folds + the refit
    7
    >>> # each record: in 2 training folds x 2 candidates, and the refit; each fit mu-GDP
    >>> round(cost.mu / clf.plan_privacy(300, 3, 2).mu, 4), round(5 ** 0.5, 4)
    (2.2361, 2.2361)
    >>> _ = search.fit(X, y, sample_ids=np.arange(300))
    >>> bool(abs(ledger.spent(cost.delta).epsilon - cost.epsilon) <= 1e-9 * cost.epsilon)
    True
    """
    if isinstance(search, DPSearchCV):
        return dpsearch_cost(search, X, y, sample_ids, delta)
    fitted = hasattr(search, "cv_results_")
    try:
        split_estimator(search.estimator)
    except TypeError as exc:
        raise TypeError(
            f"search_privacy_cost supports searches over skdpgd estimators and pipelines of "
            f"public-bound transformers ending in one: {exc}"
        ) from None
    n, d, width = public_sizes(search, X, y, sample_ids, n_samples, n_features, fitted)
    fits = search_fits(search, n, d, X=X, fitted=fitted, width_in=width)
    return compose_fits(fits, delta, fitted)


def _charged(ledger, fit, exact):
    admit(ledger, [(fit.estimator, fit.report)], n_samples=fit.rows.size,
          sample_ids=fit.rows if exact else None)


def _worst_refit(ledger, refits, exact, delta):
    """(params, fit, spend) of the refit whose charge gives the largest total, and each
    candidate's (params, spend)."""
    options, seen = [], {}
    for params, fit in refits:
        if fit.report.event not in seen:
            ids = fit.rows if exact else None
            seen[fit.report.event] = ledger.check_charges(
                [(fit.report.event, fit.rows.size, ids)], delta=delta)
        options.append((params, fit, seen[fit.report.event]))
    worst = max(options, key=lambda o: (o[2].epsilon, o[2].extra_delta,
                                        -math.inf if o[2].mu is None else o[2].mu))
    return worst, tuple((params, spend) for params, _, spend in options)


def compose_fits(fits, delta, fitted):
    """:class:`SearchPrivacyCost` of planned :class:`~._search_fits.SearchFits`."""
    everything = fits.shared + fits.folds + [fit for _, fit in fits.refits]
    check_supported([fit.report.event for fit in everything])  # before composing any
    if delta is None:
        delta = (fits.refits or [(None, fits.folds[-1])])[-1][1].report.delta
    exact_ledger, ledger_without = PrivacyLedger(), PrivacyLedger()
    for fit in fits.shared + fits.folds:
        _charged(exact_ledger, fit, fits.exact)
        _charged(ledger_without, fit, False)
    refit_params, by_refit = None, ()
    if fits.refits:
        (refit_params, fit, _), by_refit = _worst_refit(exact_ledger, fits.refits,
                                                        fits.exact, delta)
        _charged(exact_ledger, fit, fits.exact)
        (_, fit_without, _), _ = _worst_refit(ledger_without, fits.refits, False, delta)
        _charged(ledger_without, fit_without, False)
    spend = exact_ledger.spent(delta)
    counted = fits.shared + fits.folds + ([fit] if fits.refits else [])
    mu = spend.mu if spend.mu is not None else gaussian_part(
        counted, fits.n_samples, delta, fits.exact)
    return SearchPrivacyCost(
        mu=mu, epsilon=spend.epsilon, delta=spend.delta, n_fits=len(exact_ledger.entries),
        n_candidates=fits.n_candidates, n_splits=fits.n_splits, refit=bool(fits.refits),
        per_record="exact" if fits.exact else "every fit charged to every record",
        ledger=exact_ledger, extra_delta=spend.extra_delta,
        shared=tuple((fit.name, float(fit.report.mu),
                      float(getattr(fit.report, "extra_delta", 0.0))) for fit in fits.shared),
        why_infinite=why_infinite(spend), planned=not fitted, refit_params=refit_params,
        by_refit=() if fitted else by_refit, without_ids=ledger_without.spent(delta),
    )


def gaussian_part(fits, n_samples, delta, exact):
    r"""The worst record's :math:`\mu` when every fit is Gaussian DP up to an additive delta.

    Record i pays :math:`\mu_i^2 = \sum_{j \ni i} \mu_j^2` and :math:`\Delta_i = \sum_{j
    \ni i} \delta_{0,j}`; the worst record maximises ``gdp_to_epsilon(mu_i, delta -
    Delta_i)`` (the ledger's rule, docs/budgets.md "Composition with additive deltas").
    None when some fit has no Gaussian-DP form.
    """
    forms = [fit.report.event.gaussian_dp() for fit in fits]
    if any(form is None for form in forms):
        return None
    mu2, extra = np.zeros(n_samples), np.zeros(n_samples)
    for fit, (mu, delta0) in zip(fits, forms, strict=True):
        rows = fit.rows if exact else slice(None)
        mu2[rows] += mu * mu
        extra[rows] += delta0
    pairs = np.unique(np.column_stack([mu2, extra]), axis=0)

    def epsilon(pair):
        m2, d0 = pair
        return math.inf if d0 >= delta else gdp_to_epsilon(math.sqrt(m2), delta - d0)
    worst = max(pairs, key=lambda pair: (epsilon(pair), pair[0]))
    return float(math.sqrt(worst[0]))


def dpsearch_cost(search, X, y, sample_ids, delta):
    """:class:`SearchPrivacyCost` of a :class:`DPSearchCV` (its charges, planned)."""
    if X is None:
        raise ValueError("Pass X (read for its shape and structure only): a DPSearchCV "
                         "plans from n, d and a table's columns.")
    charges = search.planned_charges(X, y)
    n = int(X.shape[0])
    ledger = PrivacyLedger()
    admit(ledger, charges, n_samples=n, sample_ids=None)
    delta = charges[-1][1].delta if delta is None else delta
    spend = ledger.spent(delta)
    everyone = np.arange(n)
    mu = spend.mu if spend.mu is not None else gaussian_part(
        [PlannedFit(source, report, everyone) for source, report in charges], n, delta, True)
    return SearchPrivacyCost(
        mu=mu, epsilon=spend.epsilon, delta=spend.delta, n_fits=len(charges),
        n_candidates=len(ParameterGrid(search.param_grid)), n_splits=1,
        refit=bool(search.refit),
        per_record="exact", ledger=ledger, extra_delta=spend.extra_delta,
        why_infinite=why_infinite(spend), not_covered="", planned=True,
        without_ids=spend)


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
