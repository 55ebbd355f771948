r"""DPSearchCV: hyperparameter selection with an end-to-end privacy guarantee.

The mechanism (everything random comes from ``random_state``; the split from the seed and
n only):

1. Split the rows at random into a training part and a validation part of public size
   m = ceil(validation_size * n).
2. The trials' candidates (:mod:`._search_plan`). By default (``expected_trials=None``)
   every candidate once, the *reference* (the estimator's own values) first:
   K = the number of candidates, public (:mod:`._grid_selection`). With
   ``expected_trials``: K drawn from the truncated negative binomial D_{eta, gamma}
   (never released), each trial drawing a candidate uniformly from the grid.
3. K times, independently (one *trial* Q): fit the candidate
   on the training part as a mu-GDP run, and score it on the validation part with a
   score of replace-one sensitivity Delta (accuracy: 1/m; clipped squared error:
   (2 y_bound)^2 / m) plus Gaussian noise N(0, (Delta/mu)^2). The score is a mean of
   per-row terms computed on the rows as the fit sees them (clipped to ``data_norm`` by
   the fit's overflow-safe clip, targets to ``y_bound``: :mod:`._scoring`), so each term
   lies in its range, and Delta holds, for every row an adversary can write.
4. Release one trial only (its parameters, model and noisy score): by default the best
   noisy score if it beats the reference's by the public margin, else the reference; with
   ``expected_trials`` the best. Refit its parameters on all rows (by default; with
   ``expected_trials`` when ``refit=True``, as one more mu-GDP run).

With a DP pipeline whose private preparation spends (e.g. a ``DPTableVectorizer``), the
preparation is released once on all n rows between steps 1 and 3, and the trials fit
pipelines in which it is frozen; its cost is composed with the selection's
(:mod:`._shared_preparation` proves the total).

Why a trial is mu-GDP: replacing a training row changes only the fit (mu-GDP; the score
is post-processing of the fit on unchanged validation rows), replacing a validation row
changes only the score (the Gaussian mechanism with sensitivity Delta and noise Delta/mu
is mu-GDP, Dong, Roth and Su 2022, Theorem 2.7). The two parts are disjoint and the split
ignores the data, so the trial is mu-GDP (parallel composition), for every candidate; a
uniform draw of the candidate is a data-independent mixture of mu-GDP mechanisms, which is
(alpha, alpha mu^2/2)-RDP by the joint quasi-convexity of Renyi divergence (van Erven and
Harremoes 2014, Theorem 13). With a random K, Papernot and Steinke's Theorem 2 then bounds
steps 2-4; the refit composes in RDP (Mironov 2017, Proposition 1); the total converts to
(epsilon, delta) with :func:`skdpgd.accounting.rdp_to_epsilon`, and mu is the largest
value whose total is at most the requested epsilon. With every candidate once the
preparation, the K trials and the refit compose exactly as Gaussian DP and the choice is
post-processing of the noisy scores (:mod:`._grid_selection` proves the total).
"""

import math
import numbers
from collections import namedtuple
from copy import deepcopy
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, is_classifier
from sklearn.model_selection import ParameterGrid
from sklearn.utils import get_tags

from ..accounting.allowance import admit
from ..linear_model._base import fit_or_forget
from ..utils import warns_once_each
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    _safe_indexing,
    validate_data,
)
from ..utils._validation import make_generator, resolve_delta
from ._best_estimator import BestEstimatorMixin
from ._candidates import check_candidates, make_candidate
from ._no_search import one_fit, one_fit_report
from ._pipeline import final_params, is_dp_pipeline, split_estimator
from ._search_input import (
    ESTIMATOR_REFUSED,
    PIPELINE_REFUSED,
    public_shape,
    read_values,
    withheld,
)
from ._search_plan import every_candidate_plan, random_trials_plan
from ._selection_rule import score_scale, validation_score
from ._shared_preparation import (
    plan_shared_preparation,
    planning_stand_in,
    release_shared,
    shared_source,
)
from ._trial_guard import MuGuard

#: The guard's name before it had a module of its own: a fitted search keeps it as its
#: best estimator's ledger, and pickles name a class by its module and name.
_MuGuard = MuGuard

#: What fit decides before its ledger charge (DPSearchCV._plan).
_Plan = namedtuple("_Plan", "base n m refit shared template score search charges")

#: Parameters DPSearchCV sets itself on every candidate.
_RESERVED = ("epsilon", "delta", "ledger", "random_state")


class DPSearchCV(BestEstimatorMixin, MetaEstimatorMixin, BaseEstimator):
    r"""Private hyperparameter selection: a random number of noisy trials, best one kept.

    Parameters
    ----------
    estimator : DPLogisticRegression, DPRidge, a Pipeline ending in one, or a DPPipeline
        The template; its ``epsilon``, ``delta``, ``ledger`` and ``random_state`` are set
        by the search (on a Pipeline's last step, on a DPPipeline itself). A classifier
        must have its public label set in ``classes``. A Pipeline's steps before the
        estimator must be public-bound (:mod:`skdpgd.preprocessing._public_steps`:
        skdpgd.preprocessing's transformers, or any declaring
        ``__skdpgd_public_fit__ = True``). A DPPipeline's private preparation (e.g.
        ``make_dp_pipeline(DPTableVectorizer(), estimator)``) is released once, on all
        rows, before the trials and shared by every trial (module docstring; the grid
        cannot change its parameters); a pipeline already prepared
        (:meth:`skdpgd.DPPipeline.prepare`) is searched as it is, and so is a Pipeline
        holding steps it prepared (a hand-made ``PreparedStep`` is refused). Every
        candidate must be a Gaussian-DP run: its solver must declare a Gaussian-DP
        report (``Solver.reports_mu``: any built-in solver but ``"sgd"``, ``"auto"``,
        the default, included); this is checked from that declaration, and on each
        candidate's planned privacy event, before the ledger is charged.
    param_grid : dict or list of dicts
        Candidates, as for ``GridSearchCV`` (not ``epsilon``, ``delta``, ``ledger``,
        ``random_state``, with or without the step prefix). Each runs once, after the
        reference (by default), or each trial draws one uniformly (``expected_trials``).
    epsilon : float, default=1.0
        Total budget of the whole search (every trial, the selection, the refit).
    delta : float or "auto", default="auto"
        ``"auto"`` is min(1e-5, 1/(10 n)).
    expected_trials : float or None, default=None
        None: every candidate runs once, the *reference* first (the estimator's own
        values of the grid's parameters, added when the grid lacks them), the trials and
        the refit composed as Gaussian DP, and the reference is kept unless a candidate's
        noisy score beats it by a public margin
        (:mod:`~skdpgd.model_selection._grid_selection`; the trials take the smallest
        share that resolves the score to 0.02, at most 10%, and where none can, no
        trial runs and the search is the estimator's own fit: ``._no_search``). A
        number: E[K] of a *random*
        number of trials drawn uniformly from the grid (Papernot and Steinke's selection,
        > 1; the bound grows with log E[K]); with E[K] = 10 a search runs a single random
        trial with probability 0.27.
    eta : float, default=0.0
        Shape of the distribution of K (eta >= 0; with ``expected_trials`` only): 0 is the
        logarithmic distribution, 1 the geometric one of Liu and Talwar (2019). Smaller
        eta costs less privacy at the same mean.
    validation_size : float, default=0.2
        Fraction of rows held out for the noisy scores.
    refit : bool or "auto", default="auto"
        Refit the winner on all rows (accounted). Every candidate once: the refit gets at
        least 90% of the estimator's mu^2 and the trials the rest (or none: no search);
        without a refit the trials get all of it. Random trials: the refit is one more
        trial-sized run. Without a refit
        ``best_estimator_`` is the winning trial's model, trained on the training part.
        ``"auto"``: refit when every candidate runs once, not with ``expected_trials``.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged once with the search's event (``privacy_.event``: Gaussian DP for every
        candidate once, a Renyi-DP curve for random trials), before any data are
        touched; with a shared preparation, twice before any data are touched: the
        preparation (Gaussian DP with its additive delta), then the selection's event
        (``privacy_.events``). The estimator
        may carry this same ledger (as ``DPPipeline.prepare`` leaves it), no other.
    random_state : int, Generator or None, default=None
        All randomness (split, K, candidate draws, noise). None: fresh OS entropy.

    Attributes
    ----------
    best_params_ : dict
    best_score_ : float
        The winner's *noisy* validation score (accuracy, or minus the clipped mean squared
        error); it is part of the private release. NaN where no trial ran.
    best_estimator_ : estimator
    privacy_ : GridSelectionPrivacyReport or SelectionPrivacyReport
        Every candidate once (Gaussian DP: ``mu``, ``trial_mu``, ``refit_mu``,
        ``n_trials``, ``switch_margin``), or a random number of trials (Renyi DP); where
        no trial ran, the planned report of the estimator's own fit.
    n_features_in_ : int
    classes_ : ndarray (classifiers)

    Notes
    -----
    Only the chosen trial is released. With a random number of trials, K, the other
    trials' scores and parameters are *not* stored: releasing them is not covered by the
    theorem (and the run time reveals K to whoever watches it; do not publish timings).
    With every candidate once K is public, and the composition would cover every noisy
    score; only the chosen one is kept all the same. The mechanism
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

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "param_grid": [dict, list],
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "expected_trials": [Interval(numbers.Real, 1, None, closed="neither"), None],
        "eta": [Interval(numbers.Real, 0, None, closed="left")],
        "validation_size": [Interval(numbers.Real, 0, 1, closed="neither")],
        "refit": ["boolean", StrOptions({"auto"})],
        "ledger": [HasMethods(["charge"]), None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, param_grid, *, epsilon=1.0, delta="auto", expected_trials=None,
                 eta=0.0, validation_size=0.2, refit="auto", ledger=None, random_state=None):
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = deepcopy(inner.classifier_tags)
        tags.regressor_tags = deepcopy(inner.regressor_tags)
        tags.target_tags.required = True
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.string = inner.input_tags.string
        tags.input_tags.categorical = inner.input_tags.categorical
        return tags

    def _ledger_source(self):
        """How the ledger names this search (no data, no ledger)."""
        _, base, _ = split_estimator(self.estimator)
        n_candidates = len(ParameterGrid(self.param_grid))
        return f"DPSearchCV({type(base).__name__}, {n_candidates} candidates)"

    def _check_setup(self):
        _, base, name = split_estimator(self.estimator)  # TypeError: not skdpgd / not public
        if base.ledger is not None and base.ledger is not self.ledger:
            # (the search's own ledger on the estimator, as DPPipeline.prepare leaves it,
            # is harmless: every candidate's ledger is replaced by the trial guard)
            raise ValueError(
                "Give the ledger to DPSearchCV(ledger=...), not to its estimator: the search "
                "charges its total (trials + selection + refit) once, before any fit."
            )
        if is_classifier(base) and base._public_label_set() is None:
            raise ValueError(
                "DPSearchCV needs the public label set: set classes= on the estimator (labels "
                "read from the private y would be an unaccounted release)."
            )
        grid = list(ParameterGrid(self.param_grid))
        prefix = "" if name is None else f"{name}__"
        keys = {k for params in grid for k in params}
        reserved = sorted(k for k in keys for r in _RESERVED if k in (r, prefix + r))
        if reserved:
            raise ValueError(f"param_grid must not set {reserved}: DPSearchCV sets them.")
        return base, grid

    def _check_candidates(self, base, grid, mu, sizes, n_features, X=None, template=None):
        """:func:`._candidates.check_candidates` of this search's estimator."""
        check_candidates(self.estimator, base, grid, mu, sizes, n_features, X, template)

    def _plan(self, X, y):
        """Everything fit decides before its ledger charge, from public numbers only."""
        base, grid = self._check_setup()
        # n and d from the containers' structure only: nothing before the ledger charge
        # reads a value, so no refusal that depends on the data can come for free.
        n, n_features = public_shape(X, y)
        epsilon = float(self.epsilon)
        if epsilon == math.inf:
            raise ValueError("DPSearchCV needs a finite epsilon; use GridSearchCV without privacy.")
        delta = resolve_delta(self.delta, n)
        m = math.ceil(float(self.validation_size) * n)
        if m < 1 or n - m < 2:
            raise ValueError(f"validation_size={self.validation_size!r} leaves no room on n={n}.")
        if self.expected_trials is None and float(self.eta) != 0.0:
            raise ValueError(
                f"eta={self.eta!r} shapes a random number of trials, which runs only with "
                "expected_trials=E[K]; the default runs every candidate once. Pass "
                "expected_trials too, or leave eta at 0.")
        refit = (self.expected_trials is None if isinstance(self.refit, str)
                 else bool(self.refit))  # "auto": refit when every candidate runs once
        # a DP pipeline's private preparation: released once, before the trials (public plan)
        shared = plan_shared_preparation(self.estimator, X, grid, delta)
        score, sensitivity = validation_score(base, m)
        search = (every_candidate_plan(self, grid, epsilon, delta, m, refit, shared,
                                       sensitivity, score_scale(base))
                  if self.expected_trials is None else
                  random_trials_plan(self, grid, epsilon, delta, m, refit, shared, sensitivity))
        template = None if shared is None else planning_stand_in(self.estimator, shared)
        # the trials fit n - m rows at the trial mu, the refit all n at its own: every
        # candidate is planned at both
        self._check_candidates(base, search.candidates, search.trial_mu, (n - m,), n_features,
                               X, template)
        if refit:
            self._check_candidates(base, search.candidates, search.refit_mu, (n,), n_features,
                                   X, template)
        if search.direct:  # no search can pay: one fit of the estimator (._no_search)
            one = one_fit_report(self.estimator, epsilon, delta, n, n_features, X)
            search = replace(search, report=one, selection_report=one)
            return _Plan(base, n, m, refit, shared, template, score, search, [(self, one)])
        charges = []  # what the ledger is charged, in order, before any value is read
        if shared is not None:  # the preparation first, then the selection
            charges.append((shared_source(self.estimator, shared),
                            shared.planned_report(search.preparation_scale, delta, n)))
        charges.append((self, search.selection_report))
        return _Plan(base, n, m, refit, shared, template, score, search, charges)

    def planned_charges(self, X, y=None):
        """What ``fit(X, y)`` charges its ledger, in order, without fitting or reading a value.

        Parameters
        ----------
        X : array-like, CSR matrix or table
            Read for its shape and structure only (a DPPipeline's columns and dtypes).
        y : array-like or None, default=None
            Read for its length only (default: as long as X).

        Returns
        -------
        list of (object, report)
            What spends and its report (``report.event``), as ``ledger.charge`` takes them:
            a shared preparation's, then the selection's.
        """
        return self._plan(X, X if y is None else y).charges

    @_fit_context(prefer_skip_nested_validation=False)
    @fit_or_forget
    @warns_once_each  # each trial's warning says one thing: the search says it once
    def fit(self, X, y, sample_ids=None):
        """Run the private selection; only the chosen trial (or its refit) is kept.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
            (A DataFrame or any input the pipeline's first step accepts, for a pipeline.)
        y : array-like of shape (n_samples,)
            Labels (in the estimator's public ``classes``) or targets.
        sample_ids : array-like of shape (n_samples,), default=None
            Public record ids, passed to ``ledger`` only.

        Returns
        -------
        self : DPSearchCV
            Fitted.
        """
        plan = self._plan(X, y)
        base, n, m, refit, shared, template, score, search, _ = plan
        validate_data(self, X, y, skip_check_array=True)  # n_features_in_, column names
        # the release protocol's admission (accounting.allowance), in order, before any
        # value is read; may refuse
        admit(self.ledger, plan.charges, n_samples=n, sample_ids=sample_ids)
        # a bare estimator (no pipeline steps, not a DPPipeline): the search reads X itself
        bare = split_estimator(self.estimator)[2] is None and not is_dp_pipeline(self.estimator)
        X, y = read_values(X, y, base, bare=bare)  # refusals from here on have been paid for
        refused = ESTIMATOR_REFUSED if bare else PIPELINE_REFUSED
        if search.direct:  # the estimator's own fit, its seed the search's (._no_search)
            model = one_fit(self.estimator, float(self.epsilon), resolve_delta(self.delta, n),
                            self.random_state)
            return self._released(withheld(refused, model.fit, X, y), math.nan,
                                  dict(search.candidates[0]), search.report)
        rng = make_generator(self.random_state)
        order = rng.permutation(n)  # the split: from the seed and n only
        val, train = np.sort(order[:m]), np.sort(order[m:])
        X_train, y_train = _safe_indexing(X, train), y[train]
        X_val, y_val = _safe_indexing(X, val), y[val]
        trials = search.trial_order(rng)  # a random K is never stored or returned
        if shared is not None:  # released once on all rows, then frozen in every trial
            template = withheld(PIPELINE_REFUSED, release_shared, self.estimator, shared,
                                X, y, search.preparation_scale, int(rng.integers(2**32)))
        # A candidate's own (epsilon, delta): the run is then at most mu-GDP (calibration
        # rounds down); the guard re-checks each report before the fit touches the data.
        guard = MuGuard(search.trial_mu)

        def run_trial(params):  # one trial: fit on the training part, noisy score
            model = self._candidate(params, search.trial_mu, train.size,
                                    int(rng.integers(2**32)), guard, template)
            withheld(refused, model.fit, X_train, y_train)  # a pipeline's steps read X
            # The score is in its stated range for every row (clipped as in the fit,
            # NaN-proof, silent: ._scoring), so the choice compares numbers.
            noisy = withheld(refused, score, model, X_val, y_val)
            return noisy + search.noise_std * float(rng.standard_normal()), params, model

        score, params, model = search.select(run_trial, trials, rng)
        if refit:
            model = self._candidate(params, search.refit_mu, n, int(rng.integers(2**32)),
                                    MuGuard(search.refit_mu), template)
            model = withheld(refused, model.fit, X, y)
        return self._released(model, score, params, search.report)

    def _released(self, model, score, params, report):
        """Store the released model, its noisy score, its parameters and the report."""
        self.best_estimator_, self.best_score_, self.best_params_ = model, score, params
        # the seed that drew the released model's noise is not kept with it (with it, a
        # refit on a neighbouring data set would reproduce the noise: "Fixed seeds" in
        # docs/privacy_model.md); the search's own random_state is the user's choice
        model.set_params(**final_params(self.estimator, random_state=None))
        self.privacy_ = report
        if is_classifier(model):
            self.classes_ = model.classes_
        return self

    def _forget_fit(self):
        """Delete every fitted attribute (so a refused fit leaves no partial state)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)

    def _candidate(self, params, mu, n_rows, seed, guard, template=None):
        return make_candidate(self.estimator, params, mu, n_rows, seed, guard, template)
