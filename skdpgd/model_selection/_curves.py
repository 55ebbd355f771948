r"""Privacy-utility curves: cross-validated scores of one estimator across privacy budgets.

This is **analysis on data you may look at** (public data, synthetic data, or a
benchmark), for choosing a budget before a private run. Its scores are computed on the
data without noise and are not private. If the data are private, what it costs is this
(and it is recorded when the estimator carries a :class:`~skdpgd.PrivacyLedger`): every
fit is mu_e-GDP, and with K-fold splits every record is in ``n_splits - 1`` training folds
per budget, so record i pays

.. math:: \mu_i = \sqrt{(n_{\mathrm{splits}} - 1)\sum_{e} \mu_e^2}

(Dong, Roth and Su 2022, Corollary 3.3), *plus* the unbounded cost of publishing the
noiseless scores and of a non-private baseline; so a private data set must not be used
for curves that are published. The ``mu_per_record`` column is that training cost.

Every score is computed on the test rows as the fit sees them (:mod:`._scoring`): each
row clipped to the estimator's ``data_norm`` by the fit's overflow-safe clip, a regression
target clipped to ``y_bound``, under ``np.errstate(all="ignore")`` and with warnings
raised while scoring dropped; so a far row such as ``[1.797e308] * d`` in a test fold
gives a finite score and no warning, as it gives a finite model.
"""

import math
import numbers
import warnings

import numpy as np
from sklearn.base import clone, is_regressor
from sklearn.metrics import check_scoring
from sklearn.model_selection import KFold, cross_validate

from .._ledger import PrivacyLedger
from ..accounting.allowance import admit
from ..linear_model._base import BaseDPLinearModel
from ._pipeline import is_dp_pipeline
from ._scoring import estimator_rows
from ._search_fits import _DATA_INDEPENDENT


class _ClippedScorer:
    """``scorer(estimator, X, y)`` on the rows the fit sees (module docstring); a DP
    pipeline's rows go through its fitted steps first, and its final estimator scores."""

    def __init__(self, scorer):
        self.scorer = scorer

    def __call__(self, estimator, X, y):
        estimator, rows = estimator_rows(estimator, X)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            bound = estimator._public_target_bound() if is_regressor(estimator) else None
            if is_regressor(estimator) and not isinstance(bound, str):
                bound = float(bound)
                y = np.clip(np.nan_to_num(np.asarray(y, dtype=np.float64), nan=0.0,
                                          posinf=bound, neginf=-bound), -bound, bound)
            return self.scorer(estimator, rows, y)


class _Tee:
    """Charges the user's ledger (which may refuse) and then a local one that counts."""

    def __init__(self, *ledgers):
        self.ledgers = ledgers

    def __sklearn_clone__(self):
        return self

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        for ledger in self.ledgers:  # the protocol's admission, once per ledger, in order
            admit(ledger, [(estimator, report)], n_samples=n_samples, sample_ids=sample_ids)


def privacy_utility_curve(estimator, X, y, epsilons, *, cv=None, scoring=None, baseline=True,
                          as_frame=False):
    r"""Cross-validated score of ``estimator`` at each epsilon, and a non-private baseline.

    Parameters
    ----------
    estimator : DPLogisticRegression, DPRidge or DPPipeline
        Everything but ``epsilon`` is kept (its ``ledger``, if any, is charged). A
        pipeline prepared once (:meth:`skdpgd.DPPipeline.prepare`) shares its released
        preparation across every epsilon and fold: each point's epsilon is then the
        model's, and the preparation was charged once when it was prepared.
    X, y : array-like
        Data you may look at (see the module docstring for the cost on private data).
    epsilons : sequence of float
        Budgets per fit, each > 0 and finite.
    cv : int or splitter, default=None
        ``None`` is ``KFold(5, shuffle=True, random_state=0)``; an int is ``KFold(cv)``.
        With a ledger only splitters that ignore the data values are allowed (folds are
        passed to the ledger by row index).
    scoring : str, callable or None
        As in ``cross_validate`` (one metric); None is the estimator's ``score``. It is
        evaluated on the test rows clipped to ``data_norm`` (and, for a regressor, the
        targets clipped to ``y_bound``), as the fit sees them.
    baseline : bool, default=True
        Add a row with ``epsilon=inf``: the same algorithm without noise (same clipping,
        regularisation and steps), the line a plot compares against. Refused with a
        ledger: a non-private fit cannot be accounted.
    as_frame : bool, default=False
        Return a pandas DataFrame (needs pandas) instead of a list of dicts.

    Returns
    -------
    list of dict or pandas.DataFrame
        One row per epsilon (baseline last) with keys ``epsilon``, ``mean_score``,
        ``std_score``, ``scores`` (one per fold), ``mu`` (the GDP parameter of one fit,
        largest over folds), ``mu_per_record`` (training cost so far for the worst
        record, cumulative over the rows above; None when a fit has an additive delta,
        i.e. an unprepared pipeline whose vectorizer thresholds), ``baseline`` (bool).
    """
    if not (isinstance(estimator, BaseDPLinearModel) or is_dp_pipeline(estimator)):
        raise TypeError(f"privacy_utility_curve needs an skdpgd estimator or a DPPipeline, "
                        f"got {type(estimator).__name__}.")
    epsilons = [float(e) for e in epsilons]
    if not epsilons or any(not (0 < e < math.inf) for e in epsilons):
        raise ValueError(
            f"epsilons must be a non-empty list of finite numbers > 0, got {epsilons!r}.")
    user_ledger = estimator.ledger
    if user_ledger is not None and baseline:
        raise ValueError("baseline=True fits without noise, which no ledger can account; "
                         "pass baseline=False when the estimator carries a ledger.")
    if cv is None:
        cv = KFold(5, shuffle=True, random_state=0)
    elif isinstance(cv, numbers.Integral):
        cv = KFold(int(cv))
    if user_ledger is not None and not isinstance(cv, _DATA_INDEPENDENT):
        raise ValueError(f"cv={cv!r} may depend on the labels; with a ledger use KFold, "
                         "ShuffleSplit or another splitter that ignores the data values.")
    scorer = _ClippedScorer(check_scoring(estimator, scoring=scoring))
    n = len(y)
    ids = np.arange(n)
    local = PrivacyLedger()
    ledgers = (local,) if user_ledger is None else (user_ledger, local)
    rows = []
    for epsilon in epsilons + ([math.inf] if baseline else []):
        est = clone(estimator).set_params(epsilon=epsilon)
        if epsilon != math.inf:
            est.set_params(ledger=_Tee(*ledgers))
        result = cross_validate(est, X, y, cv=cv, scoring=scorer, params={"sample_ids": ids},
                                return_estimator=True, error_score="raise")
        scores = np.asarray(result["test_score"], dtype=float)
        # a sampled-SGD report has no mu (not Gaussian DP): nan in the table
        mus = [getattr(fitted.privacy_, "mu", math.nan) for fitted in result["estimator"]]
        rows.append(dict(
            epsilon=epsilon, mean_score=float(scores.mean()), std_score=float(scores.std()),
            scores=scores.tolist(), mu=float(max(mus)),
            mu_per_record=(math.inf if epsilon == math.inf else local.spent(1e-5).mu),
            baseline=epsilon == math.inf,
        ))
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("as_frame=True needs pandas: pip install pandas "
                              "(or pip install 'skdpgd[pandas]').") from exc
        return pd.DataFrame(rows)
    return rows


def plot_privacy_utility_curve(table, ax=None, *, label=None):
    """Plot mean score +- one std against epsilon (log scale), the baseline as a line.

    Parameters
    ----------
    table : list of dict or pandas.DataFrame
        The output of :func:`privacy_utility_curve`.
    ax : matplotlib Axes or None
        Where to draw; None creates a figure.
    label : str or None
        Legend label of the private curve.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("Plotting needs matplotlib: pip install matplotlib "
                          "(or pip install 'skdpgd[plot]').") from exc
    rows = table.to_dict("records") if hasattr(table, "to_dict") else list(table)
    private = [r for r in rows if not r["baseline"]]
    if ax is None:
        _, ax = plt.subplots()
    eps = [r["epsilon"] for r in private]
    mean = np.array([r["mean_score"] for r in private])
    std = np.array([r["std_score"] for r in private])
    ax.errorbar(eps, mean, yerr=std, marker="o", capsize=3, label=label or "private")
    for r in rows:
        if r["baseline"]:
            ax.axhline(r["mean_score"], linestyle="--", color="gray", label="non-private baseline")
    ax.set_xscale("log")
    ax.set_xlabel("epsilon per fit")
    ax.set_ylabel("cross-validated score")
    ax.legend()
    return ax
