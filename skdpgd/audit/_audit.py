r"""End-to-end empirical privacy audit of a fitted-from-scratch DP estimator.

Formula-level tests (exact quadratic cases) catch a wrong bound; only an end-to-end
audit catches plumbing: noise on the wrong scale, a row that is not clipped, a default
computed from the data. :func:`audit_epsilon` trains the estimator ``n_trials`` times on
D and on a neighbour D' (one row replaced by a canary, :mod:`._canaries`), scores each
released model, and turns the two score samples into a threshold test and a
Clopper-Pearson lower bound on epsilon (:mod:`._bounds`): if the estimator really is
(epsilon, delta)-DP, the bound exceeds the claimed epsilon with probability at most
1 - confidence. A bound above the claim is therefore evidence of a bug; a bound below
it proves nothing more than "this attack did not find one".

References
----------
.. [1] M. Jagielski, J. Ullman, A. Oprea. Auditing differentially private machine
   learning: how private is private SGD? NeurIPS 2020.
.. [2] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary instantiation:
   lower bounds for differentially private machine learning. IEEE S&P 2021.
.. [3] J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS-B 2022 (the
   trade-off curve of mu-GDP).
"""

import math
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.utils.validation import check_array

from ..model_selection._pipeline import split_estimator
from ..model_selection._scoring import estimator_rows
from ._bounds import epsilon_from_scores
from ._canaries import custom_canary, make_canary
from ._result import AuditResult

__all__ = ["AuditError", "audit_epsilon", "default_statistic"]

#: Fits per joblib task: large enough to amortise dispatch, small enough to balance.
TRIALS_PER_TASK = 64


class AuditError(RuntimeError):
    """The audit itself found the estimator unfit to audit, or a privacy bug in plumbing.

    Raised, for example, when the privacy report differs between runs on D and on D'
    (a report computed from the data is a leak in itself).
    """


def _model_and_point(estimator, x):
    """The model the statistic reads and the row it reads it at.

    For an skdpgd estimator, a Pipeline ending in one, or a search that released one
    (``best_estimator_``): the final skdpgd estimator and the canary row as its fit sees
    it, after the pipeline's public-bound steps and clipped to its ``data_norm``
    (:func:`skdpgd.model_selection._scoring.estimator_rows`), so a canary of any
    magnitude (``[1.797e308] * d``) gives a finite statistic. Any other estimator: itself
    and x unchanged.
    """
    model = getattr(estimator, "best_estimator_", estimator)
    try:
        split_estimator(model)
    except TypeError:
        return estimator, x
    return estimator_rows(model, x)


def default_statistic(estimator, x, y):
    """Signed output of the released model at the canary point (the "auto" statistic).

    Classifiers: the decision function at x, signed towards the canary's label (binary),
    or the canary class's score minus the mean of the others (multiclass); thresholding
    it is thresholding the canary's logistic loss, which is monotone in it. Regressors:
    the prediction at x times sign(y). Other estimators: ``coef_ . x``. For linear models
    each is the projection of the (intercept-augmented) parameter onto the canary row,
    the direction in which the canary's gradient pulls. skdpgd models (also inside a
    Pipeline or a DPSearchCV) are read at the canary row as their fit sees it: clipped to
    ``data_norm`` by the fit's overflow-safe clip. The arithmetic runs under
    ``np.errstate(all="ignore")`` and warnings raised while it runs are dropped.

    Parameters
    ----------
    estimator : fitted estimator
        A released model: a classifier with ``decision_function`` and ``classes_``, a
        regressor with ``predict``, or any model with ``coef_``.
    x : array-like of shape (n_features,)
        The canary's point (``Canary.score_x``).
    y : object or None
        The canary's label (classifiers: one of ``classes_``), target (regressors) or
        None (unsupervised estimators).

    Returns
    -------
    statistic : float
        The signed output above; larger when the model leans towards the canary.
    """
    x = np.asarray(x, dtype=float)[None, :]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        estimator, x = _model_and_point(estimator, x)
        return _signed_output(estimator, x, y)


def _signed_output(estimator, x, y):
    if is_classifier(estimator):
        scores = np.asarray(estimator.decision_function(x), dtype=float)
        classes = list(estimator.classes_)
        if scores.ndim == 1 or scores.shape[1] == 1:
            return float(scores.ravel()[0]) * (1.0 if y == classes[-1] else -1.0)
        k = classes.index(y)
        return float(scores[0, k] - np.delete(scores[0], k).mean())
    if hasattr(estimator, "predict") and y is not None:
        return float(np.ravel(estimator.predict(x))[0]) * (1.0 if y >= 0 else -1.0)
    return float(np.ravel(estimator.coef_) @ x.ravel())


def _report_key(estimator):
    report = getattr(estimator, "privacy_", None)
    if report is None or not hasattr(report, "epsilon") or not hasattr(report, "delta"):
        raise AuditError(
            f"{type(estimator).__name__} has no privacy_ report with epsilon and delta after "
            "fit; there is no claim to audit."
        )
    claim = (float(report.epsilon), float(report.delta), float(getattr(report, "mu", math.nan)))
    try:  # a frozen dataclass (PrivacyReport) hashes and compares by all its fields
        hash(report)
        return claim, report
    except TypeError:
        return claim, repr(report)


def _report_fields(report):
    if hasattr(report, "to_dict"):
        return {(k, repr(v)) for k, v in report.to_dict().items()}
    return {("report", repr(report))}


def _run_trials(estimator, X, y, seeds, score_x, score_y, statistic):
    """Fit a clone per seed and score it; returns (scores, distinct report keys)."""
    scores, keys = np.empty(len(seeds)), set()
    for i, seed in enumerate(seeds):
        est = clone(estimator).set_params(random_state=int(seed))
        est.fit(X) if y is None else est.fit(X, y)
        scores[i] = statistic(est, score_x, score_y)
        keys.add(_report_key(est))
    return scores, keys


def _check_auditable(estimator):
    params = estimator.get_params()
    if "random_state" not in params:
        raise ValueError(
            f"{type(estimator).__name__} has no random_state parameter: the audit seeds every "
            "trial through it to be reproducible."
        )
    if params.get("ledger") is not None:
        raise ValueError(
            "the estimator has a ledger: an audit fits it thousands of times on data sets "
            "of your choosing, which would charge the ledger for each. Audit a clone with "
            "ledger=None."
        )


def _check_trials(n_trials):
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 8:
        raise ValueError(f"n_trials must be an integer >= 8, got {n_trials!r}.")
    return int(n_trials)


def _resolve_canary(estimator, X, y, canary, replace_index, canary_scale):
    if (
        not isinstance(replace_index, (int, np.integer))
        or not -X.shape[0] <= replace_index < X.shape[0]
    ):
        raise ValueError(
            f"replace_index must be a row of X (0..{X.shape[0] - 1}), got {replace_index!r}."
        )
    index = int(replace_index) % X.shape[0]
    if isinstance(canary, str):
        return make_canary(estimator, X, y, kind=canary, index=index, scale=canary_scale)
    return custom_canary(X, y, canary, index=index)


def audit_epsilon(
    estimator,
    X,
    y=None,
    *,
    canary="gradient",
    n_trials=1000,
    confidence=0.95,
    statistic="auto",
    replace_index=0,
    canary_scale=10.0,
    selection_fraction=0.25,
    n_jobs=None,
    random_state=None,
):
    r"""Lower-bound the epsilon of a DP estimator by training it on neighbouring data sets.

    Trains ``clone(estimator)`` ``n_trials`` times on D and ``n_trials`` times on D'
    (row ``replace_index`` replaced by a canary), each fit with its own seed, scores every
    released model with ``statistic``, and bounds epsilon from below with a threshold
    test (:func:`epsilon_from_scores`: the test is chosen on the first
    ``selection_fraction`` of the trials, the Clopper-Pearson bound is computed on the
    rest, so the threshold search is not a multiple comparison). If the estimator is
    (epsilon, delta)-DP as it claims, the returned ``epsilon_lower_bound`` exceeds the
    claimed epsilon with probability at most ``1 - confidence``.

    Parameters
    ----------
    estimator : estimator
        An unfitted DP estimator with a ``random_state`` parameter and, after ``fit``, a
        ``privacy_`` report with ``epsilon`` and ``delta`` (and ``mu``); e.g.
        :class:`skdpgd.DPLogisticRegression`. Use fixed hyperparameters (not ``"auto"``)
        for speed. It must have no ledger.
    X : array-like of shape (n_samples, n_features)
        The auditor's data (dense). The audit is a test of the mechanism, not a private
        computation: nothing it returns is differentially private.
    y : array-like of shape (n_samples,) or None
        Labels / targets, None for unsupervised estimators.
    canary : {"gradient", "input"} or tuple (x, y), default="gradient"
        See :mod:`skdpgd.audit._canaries`: ``"gradient"`` puts the anti-canary in D and
        the canary in D' (largest gradient difference); ``"input"`` replaces a real row
        of D; a tuple is a custom canary replacing row ``replace_index``.
    n_trials : int, default=1000
        Fits on each data set (>= 8).
    confidence : float, default=0.95
        In (0, 1): the returned bound exceeds the estimator's true epsilon with
        probability at most 1 - confidence.
    statistic : "auto" or callable, default="auto"
        ``statistic(fitted_estimator, x, y) -> float``; "auto" is
        :func:`default_statistic` (the model's signed output at the canary).
    replace_index : int, default=0
        The row of X that differs between D and D' (negative values count from the
        end, as in numpy).
    canary_scale : float, default=10.0
        The built canaries lie this many times beyond the public bounds ``data_norm`` /
        ``y_bound``, so a missing clip is caught; a correct estimator clips them back.
    selection_fraction : float, default=0.25
        Share of the trials used to choose the test (the rest give the bound).
    n_jobs : int or None, default=None
        joblib workers; the result does not depend on it.
    random_state : int, numpy Generator or None, default=None
        Seeds of all 2 * n_trials fits are drawn from it in the calling process, so the
        result is a deterministic function of it (None: fresh OS entropy).

    Returns
    -------
    result : AuditResult
        The lower bound ``epsilon_lower_bound``, the estimator's claim, the chosen test,
        the canary and every trial's score (``result.passed``, ``result.plot()``).

    Raises
    ------
    AuditError
        If fits do not report a privacy claim, or their reports (every field of
        ``privacy_.to_dict()`` when it exists: epsilon, mu, sensitivity, noise, ...)
        differ between D and D' or across seeds: the report would then depend on the data.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd.audit import NoisyGDMean, audit_epsilon
    >>> X = np.zeros((20, 2))
    >>> result = audit_epsilon(NoisyGDMean(epsilon=2.0), X, n_trials=200, random_state=0)
    >>> result.epsilon_lower_bound <= result.epsilon_claimed
    True
    """
    _check_auditable(estimator)
    n_trials = _check_trials(n_trials)
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in the open interval (0, 1), got {confidence!r}.")
    X = check_array(X, dtype=np.float64, ensure_min_samples=2)
    if y is not None:
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},) like X's rows, got {y.shape}.")
    canary = _resolve_canary(estimator, X, y, canary, replace_index, canary_scale)
    if statistic == "auto":
        statistic, name = default_statistic, "auto: signed model output at the canary"
    elif callable(statistic):
        name = getattr(statistic, "__name__", repr(statistic))
    else:
        raise TypeError(f"statistic must be 'auto' or a callable, got {statistic!r}.")
    X0, y0, X1, y1 = canary.datasets(X, y)
    for array in (X0, y0, X1, y1):  # shared by every trial: an estimator must not write to it
        if array is not None:
            array.setflags(write=False)
    seeds = np.random.default_rng(random_state).integers(0, 2**32, size=(2, n_trials))
    chunks = [slice(s, s + TRIALS_PER_TASK) for s in range(0, n_trials, TRIALS_PER_TASK)]
    jobs = [(X0, y0, seeds[0, c]) for c in chunks] + [(X1, y1, seeds[1, c]) for c in chunks]
    out = Parallel(n_jobs=n_jobs)(
        delayed(_run_trials)(estimator, Xd, yd, s, canary.score_x, canary.y, statistic)
        for Xd, yd, s in jobs
    )
    keys = set().union(*(k for _, k in out))
    fields = [_report_fields(report) for _, report in keys]
    differing = set.union(*fields) - set.intersection(*fields)  # by repr: NaN == NaN here
    if differing or len({claim for claim, _ in keys}) != 1:
        raise AuditError(
            "the privacy report differs between fits on D and D' (or between seeds) in "
            f"{sorted({name for name, _ in differing}) or 'epsilon/delta/mu'}: a report "
            "computed from the private data leaks it (e.g. a bound read from the data). "
            "Fix the estimator."
        )
    (eps_claimed, delta, mu), _ = next(iter(keys))
    scores = np.concatenate([s for s, _ in out])
    s0, s1 = scores[:n_trials], scores[n_trials:]
    if not (np.all(np.isfinite(s0)) and np.all(np.isfinite(s1))):
        raise AuditError("the statistic returned NaN or infinity for some fit.")
    test = epsilon_from_scores(
        s0, s1, delta=delta, confidence=confidence, selection_fraction=selection_fraction
    )
    return AuditResult(
        epsilon_lower_bound=test.epsilon_lower_bound,
        epsilon_claimed=eps_claimed,
        delta=delta,
        mu_claimed=None if math.isnan(mu) else mu,
        confidence=float(confidence),
        n_trials=n_trials,
        test=test,
        scores_without_canary=s0,
        scores_with_canary=s1,
        canary=canary,
        statistic=name,
    )
