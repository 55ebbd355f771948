r"""DPSearchCV: hyperparameter selection with an end-to-end privacy guarantee.

The mechanism (everything random comes from ``random_state``; the split from the seed and
n only):

1. Split the rows at random into a training part and a validation part of public size
   m = ceil(validation_size * n).
2. Draw K from the truncated negative binomial D_{eta, gamma} (never released).
3. K times, independently (one *trial* Q): draw a candidate uniformly from the grid, fit
   it on the training part as a mu-GDP run, and score it on the validation part with a
   score of replace-one sensitivity Delta (accuracy: 1/m; clipped squared error:
   (2 y_bound)^2 / m) plus Gaussian noise N(0, (Delta/mu)^2).
4. Release the best trial only (its parameters, model and noisy score); optionally refit
   the winning parameters on all rows as one more mu-GDP run.

Why a trial is mu-GDP: replacing a training row changes only the fit (mu-GDP; the score
is post-processing of the fit on unchanged validation rows), replacing a validation row
changes only the score (the Gaussian mechanism with sensitivity Delta and noise Delta/mu
is mu-GDP, Dong, Roth and Su 2022, Theorem 2.7). The two parts are disjoint and the split
ignores the data, so the trial is mu-GDP (parallel composition), for every candidate; a
uniform draw of the candidate is a data-independent mixture of mu-GDP mechanisms, which is
(alpha, alpha mu^2/2)-RDP by the joint quasi-convexity of Renyi divergence (van Erven and
Harremoes 2014, Theorem 13). Papernot and Steinke's Theorem 2 then bounds steps 2-4; the
refit composes in RDP (Mironov 2017, Proposition 1); the total converts to (epsilon,
delta) with :func:`skdpgd.accounting.rdp_to_epsilon`. mu is the largest value whose total
is at most the requested epsilon.
"""

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.model_selection import ParameterGrid
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from ..accounting import DEFAULT_ORDERS, gdp_to_epsilon, gdp_to_rdp, rdp_to_epsilon
from ..linear_model._base import BaseDPLinearModel
from ..utils._validation import check_epsilon, make_generator, resolve_delta
from ._tuning_privacy import (
    THEOREM,
    best_of_random_trials_rdp,
    gamma_for_expected_trials,
    sample_trials,
)

#: Parameters DPSearchCV sets itself on every candidate.
_RESERVED = ("epsilon", "delta", "ledger", "random_state")


@dataclass(frozen=True)
class SelectionPrivacyReport:
    """The end-to-end guarantee of a :class:`DPSearchCV` fit.

    Attributes
    ----------
    epsilon, delta : float
        (epsilon, delta)-DP of everything released (best parameters, model, noisy score,
        and the refit if any), replace-one neighbours.
    trial_mu : float
        GDP parameter of one trial (each candidate fit, each noisy score, and the refit).
    score_sensitivity, score_noise_std : float
        Delta and the noise standard deviation of the validation score.
    n_validation : int
        m, rows in the validation part.
    eta, gamma, expected_trials : float
        The distribution of the number of trials K (K itself is not released).
    refit : bool
    theorem : str
    orders, rdp : tuple of float
        The total Renyi-DP curve the epsilon comes from.
    """

    epsilon: float
    delta: float
    trial_mu: float
    score_sensitivity: float
    score_noise_std: float
    n_validation: int
    eta: float
    gamma: float
    expected_trials: float
    refit: bool
    theorem: str
    orders: tuple
    rdp: tuple

    def epsilon_at(self, delta):
        """The same release at another delta (RDP conversion)."""
        return rdp_to_epsilon(np.asarray(self.orders), np.asarray(self.rdp), delta)


def selection_rdp(orders, trial_mu, *, eta, gamma, refit):
    """Total RDP: best of K trials (Papernot-Steinke Thm 2) plus an optional mu-GDP refit."""
    total = best_of_random_trials_rdp(orders, trial_mu, eta=eta, gamma=gamma)
    if refit:
        total = total + gdp_to_rdp(orders, trial_mu)
    return total


def calibrate_trial_mu(epsilon, delta, *, eta, gamma, refit, orders=DEFAULT_ORDERS):
    """Largest trial mu (to a relative 1e-9, rounded down) whose total is (epsilon, delta)-DP.

    Every term of :func:`selection_rdp` is non-decreasing in mu (the optimised order term
    is a minimum of non-decreasing functions), so bisection on log mu is valid.
    """
    def total_epsilon(mu):
        return rdp_to_epsilon(orders, selection_rdp(orders, mu, eta=eta, gamma=gamma,
                                                    refit=refit), delta)

    if total_epsilon(0.0) > epsilon:
        raise ValueError(
            f"epsilon={epsilon!r} is below what the selection costs even with perfectly private "
            f"trials (log E[K] term: {total_epsilon(0.0):.4g} at delta={delta:.3g}). Ask for "
            "fewer expected trials or a larger epsilon."
        )
    lo, hi = math.log(1e-8), math.log(1e3)
    if total_epsilon(math.exp(lo)) > epsilon:
        raise ValueError(f"epsilon={epsilon!r} is too small for any useful trial.")
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if total_epsilon(math.exp(mid)) <= epsilon:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


class _MuGuard:
    """Stands in for a ledger on each candidate: refuses a run above the trial's mu."""

    def __init__(self, mu_max):
        self.mu_max = mu_max

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        if not report.mu <= self.mu_max:
            raise RuntimeError(
                f"A candidate run would be mu={report.mu!r}-GDP, above the trial budget "
                f"mu={self.mu_max!r} the selection bound assumes; refused before the fit."
            )


def _accuracy(estimator, X, y):
    return float(np.mean(estimator.predict(X) == y))


def _neg_clipped_mse(bound):
    def score(estimator, X, y):
        pred = np.clip(estimator.predict(X), -bound, bound)
        return -float(np.mean((pred - np.clip(y, -bound, bound)) ** 2))

    return score


class DPSearchCV(MetaEstimatorMixin, BaseEstimator):
    r"""Private hyperparameter selection: a random number of noisy trials, best one kept.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPRidge
        The template; its ``epsilon``, ``delta``, ``ledger`` and ``random_state`` are set
        by the search. A classifier must have its public label set in ``classes``.
    param_grid : dict or list of dicts
        Candidates, as for ``GridSearchCV`` (not ``epsilon``, ``delta``, ``ledger``,
        ``random_state``). Each trial draws one uniformly.
    epsilon : float, default=1.0
        Total budget of the whole search (every trial, the selection, the refit).
    delta : float or "auto", default="auto"
        ``"auto"`` is min(1e-5, 1/(10 n)).
    expected_trials : float, default=10.0
        E[K], the mean number of trials (> 1). More trials explore more but cost more:
        the bound grows with log E[K].
    eta : float, default=0.0
        Shape of the distribution of K (eta >= 0): 0 is the logarithmic distribution, 1
        the geometric one of Liu and Talwar (2019). Smaller eta costs less privacy at the
        same mean.
    validation_size : float, default=0.2
        Fraction of rows held out for the noisy scores.
    refit : bool, default=False
        Refit the winner on all rows (one more trial-sized run, accounted). Otherwise
        ``best_estimator_`` is the winning trial's model, trained on the training part.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged once, with the total RDP curve, before any data are touched.
    random_state : int, Generator or None, default=None
        All randomness (split, K, candidate draws, noise). None: fresh OS entropy.

    Attributes
    ----------
    best_params_ : dict
    best_score_ : float
        The winner's *noisy* validation score (accuracy, or minus the clipped mean squared
        error); it is part of the private release.
    best_estimator_ : estimator
    privacy_ : SelectionPrivacyReport
    n_features_in_ : int
    classes_ : ndarray (classifiers)

    Notes
    -----
    Only the best trial is released. The number of trials K, the other trials' scores
    and parameters are *not* stored: releasing them is not covered by the theorem (and
    the run time reveals K to whoever watches it; do not publish timings). The mechanism
    and its proof are in the module docstring; Papernot and Steinke (ICLR 2022),
    Theorem 2, is the bound, in closed form in
    :func:`~skdpgd.model_selection._tuning_privacy.best_of_random_trials_rdp`.

    References
    ----------
    N. Papernot, T. Steinke. Hyperparameter tuning with Renyi differential privacy. ICLR 2022.
    J. Liu, K. Talwar. Private selection from private candidates. STOC 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd import DPLogisticRegression
    >>> from skdpgd.model_selection import DPSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) / 2
    >>> y = (X[:, 0] > 0).astype(int)
    >>> search = DPSearchCV(DPLogisticRegression(classes=[0, 1], max_iter=30),
    ...                     {"C": [0.1, 1.0, 10.0]}, epsilon=1.0, random_state=0).fit(X, y)
    >>> search.privacy_.epsilon <= 1.0
    True
    >>> sorted(search.best_params_)
    ['C']
    """

    def __init__(self, estimator, param_grid, *, epsilon=1.0, delta="auto", expected_trials=10.0,
                 eta=0.0, validation_size=0.2, refit=False, ledger=None, random_state=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.expected_trials = expected_trials
        self.eta = eta
        self.validation_size = validation_size
        self.refit = refit
        self.ledger = ledger
        self.random_state = random_state

    def _check_setup(self):
        base = self.estimator
        if not isinstance(base, BaseDPLinearModel):
            raise TypeError(
                f"DPSearchCV needs an skdpgd estimator, got {type(base).__name__}: the "
                "selection bound assumes every candidate run is mu-GDP."
            )
        if base.ledger is not None:
            raise ValueError(
                "Give the ledger to DPSearchCV(ledger=...), not to its estimator: the search "
                "charges its total (trials + selection + refit) once, before any fit."
            )
        if is_classifier(base) and base.classes is None:
            raise ValueError(
                "DPSearchCV needs the public label set: set classes= on the estimator (labels "
                "read from the private y would be an unaccounted release)."
            )
        grid = list(ParameterGrid(self.param_grid))
        reserved = sorted({k for params in grid for k in params} & set(_RESERVED))
        if reserved:
            raise ValueError(f"param_grid must not set {reserved}: DPSearchCV sets them.")
        if not 0.0 < float(self.validation_size) < 1.0:
            raise ValueError(f"validation_size must be in (0, 1), got {self.validation_size!r}.")
        if float(self.eta) < 0.0:
            raise ValueError(f"eta must be >= 0 (sampling is implemented for eta >= 0), "
                             f"got {self.eta!r}.")
        return base, grid

    def _score(self, base, m):
        """The validation score and its replace-one sensitivity on m rows."""
        if is_classifier(base):
            return _accuracy, 1.0 / m
        bound = float(base.y_bound)
        return _neg_clipped_mse(bound), (2.0 * bound) ** 2 / m

    def fit(self, X, y, sample_ids=None):
        """Run the private selection; only the best trial is kept.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_ids : array-like of shape (n_samples,), default=None
            Public record ids, passed to ``ledger`` only.
        """
        base, grid = self._check_setup()
        X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
        n = X.shape[0]
        epsilon = check_epsilon(self.epsilon)
        if epsilon == math.inf:
            raise ValueError("DPSearchCV needs a finite epsilon; use GridSearchCV without privacy.")
        delta = resolve_delta(self.delta, n)
        m = math.ceil(float(self.validation_size) * n)
        if m < 1 or n - m < 2:
            raise ValueError(f"validation_size={self.validation_size!r} leaves no room on n={n}.")
        eta = float(self.eta)
        gamma = gamma_for_expected_trials(self.expected_trials, eta)
        refit = bool(self.refit)
        mu = calibrate_trial_mu(epsilon, delta, eta=eta, gamma=gamma, refit=refit)
        orders = DEFAULT_ORDERS
        rdp = selection_rdp(orders, mu, eta=eta, gamma=gamma, refit=refit)
        score, sensitivity = self._score(base, m)
        noise_std = sensitivity / mu
        report = SelectionPrivacyReport(
            epsilon=rdp_to_epsilon(orders, rdp, delta), delta=delta, trial_mu=mu,
            score_sensitivity=sensitivity, score_noise_std=noise_std, n_validation=m, eta=eta,
            gamma=gamma, expected_trials=float(self.expected_trials), refit=refit,
            theorem=THEOREM, orders=tuple(orders), rdp=tuple(rdp),
        )
        if self.ledger is not None:  # before any pass over the data; may refuse
            self.ledger.charge_rdp(
                f"DPSearchCV({type(base).__name__}, {len(grid)} candidates)",
                lambda a: selection_rdp(a, mu, eta=eta, gamma=gamma, refit=refit),
                n_samples=n, epsilon=report.epsilon, delta=delta, sample_ids=sample_ids,
                description=THEOREM,
            )
        rng = make_generator(self.random_state)
        order = rng.permutation(n)  # the split: from the seed and n only
        val, train = np.sort(order[:m]), np.sort(order[m:])
        n_trials = sample_trials(rng, eta, gamma)  # K: never stored or returned
        # A candidate's own (epsilon, delta): the run is then at most mu-GDP (calibration
        # rounds down); the guard re-checks each report before the fit touches the data.
        guard = _MuGuard(mu)
        best = None
        for _ in range(n_trials):
            params = grid[int(rng.integers(len(grid)))]
            model = self._candidate(base, params, mu, train.size, rng, guard)
            model.fit(X[train], y[train])
            noisy = score(model, X[val], y[val]) + noise_std * float(rng.standard_normal())
            if best is None or noisy > best[0]:
                best = (noisy, params, model)
        self.best_score_, self.best_params_, self.best_estimator_ = best
        if refit:
            model = self._candidate(base, self.best_params_, mu, n, rng, guard)
            self.best_estimator_ = model.fit(X, y)
        self.privacy_ = report
        self.n_features_in_ = X.shape[1]
        if is_classifier(base):
            self.classes_ = self.best_estimator_.classes_
        return self

    @staticmethod
    def _candidate(base, params, mu, n_rows, rng, guard):
        delta_fit = resolve_delta("auto", n_rows)
        return clone(base).set_params(
            **params, epsilon=gdp_to_epsilon(mu * (1.0 - 1e-9), delta_fit), delta=delta_fit,
            ledger=guard, random_state=int(rng.integers(2**32)),
        )

    def predict(self, X):
        """Predict with ``best_estimator_``."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def score(self, X, y):
        """``best_estimator_.score`` (on data you may look at, e.g. a public test set)."""
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)

    def decision_function(self, X):
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)
