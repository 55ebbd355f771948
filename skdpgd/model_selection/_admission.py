"""A search under a capped ledger, admitted or refused as a whole before its first fit.

A ``GridSearchCV`` charges its ledger fit by fit, so under a cap it can spend its folds and
then be refused its refit (folds spent, no model). :func:`check_search_budget` prices the
whole search from public numbers (:func:`~._cost.search_privacy_cost`'s plan: every fold
fit and the costliest possible refit, as the ledger will charge them: to the fold's
``sample_ids``, or to every record without ids) and applies the ledger's own cap test
(:meth:`skdpgd.PrivacyLedger.check_charges`) to all of them at once, after what the ledger
already holds. It raises :class:`~skdpgd.exceptions.PrivacyBudgetExceeded` before any fit,
or returns the ledger's total after the search; nothing is recorded.
"""

import numpy as np

from ._cost import public_sizes
from ._dpsearch import DPSearchCV
from ._pipeline import split_estimator
from ._search_fits import search_fits

__all__ = ["check_search_budget"]


def _ledger_of(search, ledger):
    """The ledger the search charges (its estimator's, or a DPSearchCV's own)."""
    if isinstance(search, DPSearchCV):
        carried = search.ledger
    else:
        carried = getattr(split_estimator(search.estimator)[1], "ledger", None)
    if ledger is not None and carried is not None and ledger is not carried:
        raise ValueError("ledger= is not the ledger the search charges (its estimator's): "
                         "check the search against the ledger it will spend.")
    ledger = carried if ledger is None else ledger
    if ledger is None:
        raise ValueError("The search charges no ledger: give its estimator ledger=... "
                         "(DPSearchCV: ledger=...), or pass ledger= to check against one.")
    return ledger


def _name(search, n_fits, refit):
    base = type(split_estimator(search.estimator)[1]).__name__
    what = f"{n_fits} charges" if isinstance(search, DPSearchCV) else (
        f"{n_fits} fold fits" + (" and the refit of the costliest candidate" if refit else ""))
    return (f"this search ({type(search).__name__} over {base}: {what}; nothing of it has "
            "been fitted)")


def search_charges(search, X=None, y=None, *, sample_ids=None, n_samples=None,
                   n_features=None):
    """Every charge the search will make, as ``(event, n_rows, ids)``, per possible refit.

    Returns
    -------
    fixed : list of (event, int, ndarray or None)
        The fold fits (a DPSearchCV: its charges).
    refits : list of (event, int, ndarray or None)
        One per distinct possible refit (empty without refit); exactly one of them is
        charged.
    """
    if isinstance(search, DPSearchCV):
        if X is None:
            raise ValueError("Pass X (read for its shape and structure only): a DPSearchCV "
                             "plans from n, d and a table's columns.")
        n = int(X.shape[0])
        return [(report.event, n, sample_ids)
                for _, report in search.planned_charges(X, y)], []
    n, d, width = public_sizes(search, X, y, sample_ids, n_samples, n_features)
    fits = search_fits(search, n, d, X=X, fitted=False, width_in=width)
    ids = None if sample_ids is None or not fits.exact else np.asarray(sample_ids)

    def charge(fit):
        return fit.report.event, fit.rows.size, None if ids is None else ids[fit.rows]
    refits = {}
    for _, fit in fits.refits:
        refits.setdefault(fit.report.event, charge(fit))
    return [charge(fit) for fit in fits.folds], list(refits.values())


def check_search_budget(search, X=None, y=None, *, sample_ids=None, ledger=None,
                        n_samples=None, n_features=None):
    """Admit a whole search under its ledger's cap, or refuse it before its first fit.

    Call it right before ``search.fit(X, y, sample_ids=ids)`` with the same arguments:
    the search's charges are planned from public numbers (n, the grid, the splitter's
    folds, each fit's planned report; the refit priced at the costliest candidate, since
    the best one is not known before the run) as the ledger will record them (each fold
    fit to ``sample_ids[train]``; without ids, every fit to every record), and the
    ledger's cap test is applied to all of them together after what it already holds.
    Nothing is recorded or fitted, and no value of X or y is read.

    Parameters
    ----------
    search : GridSearchCV, RandomizedSearchCV or DPSearchCV
        As :func:`~skdpgd.model_selection.search_privacy_cost` takes it (not fitted).
    X : table or None, default=None
        The data the search will be fitted on, read for its shape and structure only.
    y : array-like or None, default=None
        Read for its length only.
    sample_ids : array-like or None, default=None
        The ids that will be passed to ``search.fit`` (None: the fits are charged to
        every record, as the ledger then charges them).
    ledger : skdpgd.PrivacyLedger or None, default=None
        Default: the ledger the search's estimator carries (a DPSearchCV's ``ledger``).
    n_samples, n_features : int or None, default=None
        Instead of X: its rows, and the columns entering the skdpgd estimator.

    Returns
    -------
    LedgerSpend
        The ledger's worst-record total after the search (costliest refit), at its delta.

    Raises
    ------
    PrivacyBudgetExceeded
        If the whole search would take the worst record past the cap; nothing was
        recorded and nothing fitted.

    Notes
    -----
    The check holds for what the ledger holds now: another writer of the same ledger
    file charging between the check and the fits can still make a fit refused.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgd import DPLogisticRegression, PrivacyLedger
    >>> from skdpgd.exceptions import PrivacyBudgetExceeded
    >>> from skdpgd.model_selection import check_search_budget
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) / 2
    >>> y = (X[:, 0] > 0).astype(int)
    >>> ids = np.arange(300)
    >>> ledger = PrivacyLedger(epsilon=2.0, delta=1e-5)
    >>> clf = DPLogisticRegression(classes=[0, 1], max_iter=20, ledger=ledger, random_state=0)
    >>> search = GridSearchCV(clf, {"epsilon": [0.5, 1.0]}, cv=KFold(3))
    >>> try:
    ...     check_search_budget(search, X, y, sample_ids=ids)  # before any fit
    ...     _ = search.fit(X, y, sample_ids=ids)
    ... except PrivacyBudgetExceeded:
    ...     print("refused; spent:", len(ledger.entries), "fits")
    refused; spent: 0 fits
    """
    ledger = _ledger_of(search, ledger)
    fixed, refits = search_charges(search, X, y, sample_ids=sample_ids, n_samples=n_samples,
                                   n_features=n_features)
    source = _name(search, len(fixed), bool(refits))
    options = [[*fixed, refit] for refit in refits] or [fixed]  # exactly one is charged
    totals = [ledger.check_charges(charges, source=source) for charges in options]
    return max(totals, key=lambda spend: (spend.epsilon, spend.extra_delta))
