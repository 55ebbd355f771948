r"""DPPipeline: private preparation and a DP estimator under one budget and one charge.

A :class:`DPPipeline` holds ``steps`` like a scikit-learn ``Pipeline``: transformers, then
one skdpgd estimator. A transformer is either *public-bound* (its fit reads no value:
:mod:`skdpgd.preprocessing._public_steps` says which) or *private*: it follows the
private-step protocol of :mod:`skdpgd.accounting._release` (``__skdpgd_private_fit__``,
``_fit_private(X, y, *, mu, extra_delta, random_state)``, ``privacy_``), e.g.
:class:`skdpgd.preprocessing.DPTableVectorizer`. ``fit``:

1. checks the parameters and reads n and d from the containers' structure only;
2. splits ``(epsilon, delta)`` between the private releases and the estimator by the
   public rule of :mod:`skdpgd.pipeline._budget` (``docs/budgets.md``);
3. charges the ledger once with the planned cost (upper bounds that do not depend on
   any value), before reading any value;
4. fits clones of the steps with their allowances (the user's steps are never changed)
   into ``pipeline_``, a plain scikit-learn ``Pipeline``: the private steps, then
   (``DPRidge(y_bound="auto")``) a private range of the target, then the estimator, with
   its ``data_norm`` set from the last transformer's construction bound
   ``row_norm_bound_`` when it has one;
5. composes every release into ``privacy_`` (:class:`PipelinePrivacyReport`).

Optional hooks a private step may define (public information only):

- ``_privacy_plan(X)``: ``(number of Gaussian releases, number of thresholded ones)``
  that ``_fit_private`` would make on data with X's structure (columns and dtypes; X is
  None when planning without data, and for every step after the first); a step with no
  release gets no share, a step with a
  thresholded release makes the pipeline reserve an additive delta. Absent (or failing
  on None): the step is assumed to need both.
- a fitted ``row_norm_bound_``: the bound on the norm of every output row, fixed by the
  construction, used as the estimator's ``data_norm``.
"""

import math
import numbers

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.pipeline import Pipeline, _name_estimators
from sklearn.utils import Bunch
from sklearn.utils.metaestimators import _BaseComposition, available_if
from sklearn.utils.validation import check_is_fitted

from ..accounting._release import PRIVATE_FIT_ATTRIBUTE, ReleasePrivacyReport
from ..linear_model import DPRidge
from ..linear_model._base import BaseDPLinearModel, fit_or_forget
from ..linear_model._refusals import refuse_fit_params
from ..preprocessing._public_steps import why_not_public
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    _fit_context,
    _num_features,
    _num_samples,
    validate_data,
)
from ..utils._validation import check_epsilon, make_generator, resolve_delta
from ._budget import EXTRA_DELTA_SHARE, PREPARATION_SHARE, split_budget
from ._report import PipelinePrivacyReport
from ._labels import release_balanced_weights
from ._target import release_target_range, scale_target

#: Relative slack allowed between a step's reported mu and its allowance (float rounding).
_SLACK = 1e-9

#: The name of the target's range release in reports.
TARGET_RANGE = "target range (y_bound='auto')"

#: The name of the class-count release in reports.
CLASS_COUNTS = "class counts (class_weight='balanced')"


def _is_private(step):
    return getattr(type(step), PRIVATE_FIT_ATTRIBUTE, False) is True


def _is_skip(step):
    return step is None or (isinstance(step, str) and step == "passthrough")


def _final_has(attr):
    """available_if check: the final step (fitted if there is one) has ``attr``."""

    def check(self):
        final = (self.pipeline_.steps[-1][1] if hasattr(self, "pipeline_")
                 else self.steps[-1][1])
        getattr(final, attr)
        return True

    return check


class DPPipeline(_BaseComposition):
    r"""Private preparation and a DP linear model, with one budget and one privacy report.

    Use :func:`skdpgd.make_dp_pipeline` to build one from steps. The budget
    ``(epsilon, delta)`` covers everything the pipeline learns from the data: the
    private preparation steps (e.g. :class:`skdpgd.preprocessing.DPTableVectorizer`'s
    noisy histograms), the private range of the target when the estimator is
    ``DPRidge(y_bound="auto")``, noisy class counts when it is
    ``DPLogisticRegression(class_weight="balanced")`` (scikit-learn's balanced weights
    from them, post-processing), and the estimator. It is split by a public rule
    (``preparation_share`` of :math:`\mu^2` to the preparation, in equal parts, a tenth of
    delta as the additive allowance of thresholded releases when a step thresholds; the
    estimator gets the rest; ``docs/budgets.md`` derives it) and the releases compose
    exactly (Dong, Roth and Su 2022, Corollary 3.3, plus the additive deltas), so
    ``privacy_.epsilon <= epsilon``.

    Parameters
    ----------
    steps : list of (str, estimator)
        Transformers (private-step protocol, or public-bound: skdpgd.preprocessing's,
        ``"passthrough"``, or declaring ``__skdpgd_public_fit__``), then a
        :class:`~skdpgd.DPLogisticRegression` or :class:`~skdpgd.DPRidge` (any solver
        but ``"sgd"``, no ledger of its own). The estimator's own ``epsilon``,
        ``delta``, ``ledger`` and ``random_state`` are replaced by the pipeline's in the
        fitted clone; a private step's own ``epsilon``, ``delta`` and ``random_state``
        (its standalone budget) are not used: the pipeline gives it its share.
    epsilon : float, default=1.0
        Budget of the whole pipeline (> 0; ``np.inf``: no noise anywhere).
    delta : float or "auto", default="auto"
        ``"auto"`` is min(1e-5, 1/(10 n)); an explicit delta must be below 1/n.
    preparation_share : float, default=0.1
        rho, the share of :math:`\mu^2` the private preparation takes (public; the
        estimator's noise grows by :math:`1/\sqrt{1-\rho}`, 5% for the default).
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged once per fit with the planned cost (``plan_privacy``), before any value
        of X or y is read.
    random_state : int, Generator or None, default=None
        Source of all the noise (each release gets its own stream). None: fresh OS
        entropy.

    Attributes
    ----------
    pipeline_ : sklearn.pipeline.Pipeline
        The fitted clones (predictions go through it).
    privacy_ : PipelinePrivacyReport
        What the fit spent, every release composed.
    budget_ : PipelineBudget
        The split of the budget the fit used.
    class_weight_ : dict
        ``DPLogisticRegression(class_weight="balanced")`` only: the weights
        :math:`n / (K \max(\tilde n_k, 1))` from the released noisy class counts
        :math:`\tilde n_k`, given to the fitted estimator as a public dict.
    target_range_ : tuple of float
        ``DPRidge(y_bound="auto")`` only: the released range [low, high] of y; the
        estimator was fitted on :math:`(2y - \mathrm{low} - \mathrm{high}) /
        (\mathrm{high} - \mathrm{low})` clipped to [-1, 1], and its ``coef_`` and
        ``intercept_`` are mapped back to the scale of y (post-processing).
    n_features_in_ : int
    feature_names_in_ : ndarray
        When X has string column names.
    classes_ : ndarray
        Classifiers only.

    See Also
    --------
    make_dp_pipeline : Build a DPPipeline from steps, naming them.

    Notes
    -----
    ``fit`` never changes the steps you passed: it fits clones with their budgets set.
    ``sample_ids`` (public record ids) go to the ledger only. A search over a pipeline
    (``GridSearchCV``, :class:`~skdpgd.model_selection.DPSearchCV`) clones it with its
    parameters, ``epsilon`` included, and
    :func:`~skdpgd.model_selection.search_privacy_cost` prices every fit with
    :meth:`plan_privacy`.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd import DPLogisticRegression, make_dp_pipeline
    >>> from skdpgd.preprocessing import BoundedScaler
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(500, 2))
    >>> y = (X[:, 0] > 5).astype(int)
    >>> pipe = make_dp_pipeline(BoundedScaler((0, 10)), DPLogisticRegression(classes=[0, 1]),
    ...                         epsilon=1.0, random_state=0).fit(X, y)
    >>> pipe.privacy_.epsilon <= 1.0
    True
    """

    #: model_selection recognises a DP pipeline by this class attribute (no import).
    __skdpgd_dp_pipeline__ = True

    # With scikit-learn's metadata routing on, a search passes sample_ids to the pipeline
    # (its ledger needs them), as it does to the estimators.
    __metadata_request__fit = {"sample_ids": True}

    _parameter_constraints = {
        "steps": [list],
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"),
                    Options(numbers.Real, {np.inf})],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "preparation_share": [Interval(numbers.Real, 0, 1, closed="neither")],
        "ledger": [HasMethods(["charge"]), None],
        "random_state": ["random_state"],
    }

    def __init__(self, steps, *, epsilon=1.0, delta="auto",
                 preparation_share=PREPARATION_SHARE, ledger=None, random_state=None):
        self.steps = steps
        self.epsilon = epsilon
        self.delta = delta
        self.preparation_share = preparation_share
        self.ledger = ledger
        self.random_state = random_state

    # -- parameters (nested, like Pipeline) ----------------------------------------------
    def get_params(self, deep=True):
        """Parameters of the pipeline and, with ``deep``, of its steps (``name__param``).

        Parameters
        ----------
        deep : bool, default=True
            Include the steps and their parameters.

        Returns
        -------
        dict
            Parameter names mapped to their values.
        """
        return self._get_params("steps", deep=deep)

    def set_params(self, **params):
        """Set parameters of the pipeline or of its steps (``name__param``).

        Parameters
        ----------
        **params : dict
            Parameters.

        Returns
        -------
        self : DPPipeline
            This pipeline, with the parameters set.
        """
        self._set_params("steps", **params)
        return self

    @property
    def named_steps(self):
        """The steps by name (a :class:`~sklearn.utils.Bunch`)."""
        return Bunch(**dict(self.steps))

    @property
    def _final_estimator(self):
        return self.steps[-1][1]

    @property
    def classes(self):
        """The final estimator's public label set (classifiers; read by the searches)."""
        return getattr(self._final_estimator, "classes", None)

    @property
    def y_bound(self):
        """The final estimator's ``y_bound`` (regressors; read by the searches)."""
        return getattr(self._final_estimator, "y_bound", None)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            final = self._final_estimator
            inner = final.__sklearn_tags__()
        except Exception:  # noqa: BLE001 - malformed steps: validated in fit
            return tags
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.target_tags.required = True
        first = self.steps[0][1]
        if _is_private(first) or len(self.steps) > 1:
            first_tags = getattr(first, "__sklearn_tags__", None)
            if callable(first_tags):
                t = first_tags()
                tags.input_tags.string = t.input_tags.string
                tags.input_tags.categorical = t.input_tags.categorical
                tags.input_tags.allow_nan = t.input_tags.allow_nan
                tags.input_tags.sparse = t.input_tags.sparse
        else:
            tags.input_tags.sparse = inner.input_tags.sparse
        return tags

    def _ledger_source(self):
        """How the ledger names this pipeline (classes of the steps, the budget)."""
        names = ", ".join(type(s).__name__ if not isinstance(s, str) else s
                          for _, s in self.steps)
        return f"DPPipeline([{names}], epsilon={self.epsilon!r}, delta={self.delta!r})"

    # -- checks on parameters only ---------------------------------------------------------
    def _checked_steps(self):
        """The steps, refused with the reason when they cannot form a DP pipeline.

        Looks at parameters only (never at data), so every refusal here is a public fact
        and comes before the ledger is charged.
        """
        steps = self.steps
        if not isinstance(steps, list) or not steps or not all(
                isinstance(s, tuple) and len(s) == 2 for s in steps):
            raise TypeError("steps must be a non-empty list of (name, estimator) tuples.")
        names = [name for name, _ in steps]
        self._validate_names(names)
        *pre, (last_name, final) = steps
        if not isinstance(final, BaseDPLinearModel):
            raise TypeError(
                f"A DPPipeline ends in an skdpgd estimator (DPLogisticRegression or DPRidge); "
                f"its last step {last_name!r} is {type(final).__name__}."
            )
        if final.solver == "sgd":
            raise ValueError(
                "solver='sgd' is refused inside a DPPipeline: its guarantee comes from a "
                "privacy-loss-distribution bound with no single Gaussian-DP parameter, so "
                "the pipeline could not split one budget between it and the preparation by "
                "exact GDP composition. Use solver='auto', 'preconditioned', 'gd' or 'cyclic'."
            )
        if getattr(final, "ledger", None) is not None:
            raise ValueError(
                "Give the ledger to the DPPipeline (ledger=...), not to its estimator: the "
                "pipeline charges its whole cost once, before reading any value."
            )
        if _is_balanced(final) and final.classes is None:
            raise ValueError(
                "class_weight='balanced' inside a DPPipeline needs the public label set "
                "(classes=...): the pipeline releases noisy counts of those classes."
            )
        if isinstance(final, DPRidge) and final.y_bound is None:
            raise ValueError(
                "DPRidge inside a DPPipeline needs y_bound: a public bound on |y|, or "
                "y_bound='auto' for a private range of y released by the pipeline."
            )
        for name, step in pre:
            if _is_skip(step):
                continue
            if _is_private(step):
                if getattr(step, "ledger", None) is not None:
                    raise ValueError(
                        f"Step {name!r} has its own ledger; give the ledger to the DPPipeline, "
                        "which charges every release once."
                    )
                continue
            reason = why_not_public(step)
            if reason:
                raise TypeError(
                    f"Step {name!r} is neither a private step (the protocol of "
                    f"skdpgd.accounting._release) nor public-bound: {reason}."
                )
        return pre, last_name, final

    def _releases(self, pre, final, X):
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
            if _is_skip(step):
                continue
            if _is_private(step):
                n_gdp, n_thresholded = _privacy_plan(step, structure)
                if n_gdp or n_thresholded:
                    releases.append((name, step, bool(n_thresholded)))
            # what a step hands on may have other columns and dtypes (a private step's
            # output may even depend on its release): later steps plan without it
            structure = None
        if isinstance(final, DPRidge) and _is_auto(final.y_bound):
            releases.append((TARGET_RANGE, None, False))
        if _is_balanced(final):
            releases.append((CLASS_COUNTS, None, False))
        return releases

    def _budget(self, releases, n_samples):
        epsilon = check_epsilon(self.epsilon)
        delta = resolve_delta(self.delta, n_samples)
        return split_budget(epsilon, delta, [needs for _, _, needs in releases],
                            preparation_share=float(self.preparation_share),
                            extra_delta_share=EXTRA_DELTA_SHARE)

    def _planned(self, releases, budget, last_name, n_samples):
        """The planned report: every allowance as an upper bound (public numbers only)."""
        steps = [
            (name, ReleasePrivacyReport(mu=mu, extra_delta=extra,
                                        mechanism="planned allowance (upper bound)"))
            for (name, _, _), mu, extra in zip(releases, budget.step_mu,
                                               budget.step_extra_delta)
        ]
        steps.append((last_name, ReleasePrivacyReport(
            mu=budget.estimator_mu, extra_delta=0.0,
            mechanism=(f"planned: calibrated to (epsilon={budget.estimator_epsilon:.6g}, "
                       f"delta={budget.estimator_delta:.3g}), at most this mu"))))
        return PipelinePrivacyReport.compose(
            steps, delta=budget.delta, n_samples=n_samples,
            preparation_share=budget.preparation_share, planned=True,
            notes=("planned cost: the allowances, upper bounds of what a fit spends",),
        )

    def plan_privacy(self, n_samples, n_features=None, n_classes=None, *, X=None):
        """The cost a fit on n rows is charged, without data (upper bounds).

        Every allowance of the budget rule is a function of the parameters, of n and of
        the table's structure (its columns' dtypes) only, so this is what the ledger is
        charged; a fit's ``privacy_`` spends at most this. Without ``X``, a private step
        is asked whether it may spend or threshold from its parameters alone
        (``_privacy_plan(None)``; a step that cannot say is assumed to do both), so a fit
        on a table whose columns need no thresholding may reserve less.

        Parameters
        ----------
        n_samples : int
            n (public).
        n_features : int, optional
            Columns of X (checked to be >= 1 when given; the plan does not depend on it).
        n_classes : int, optional
            Accepted for the searches' calling convention; the plan does not depend on it.
        X : table, optional
            The data the fit will see, read for its structure only (columns, dtypes):
            the plan is then exactly the fit's charge.

        Returns
        -------
        PipelinePrivacyReport
            The allowances composed (``planned=True``).
        """
        self._validate_params()
        pre, last_name, final = self._checked_steps()
        n_samples = int(n_samples)
        if n_samples < 2 or (n_features is not None and int(n_features) < 1):
            raise ValueError(f"need n >= 2 and d >= 1, got n={n_samples}, d={n_features}.")
        releases = self._releases(pre, final, X)
        return self._planned(releases, self._budget(releases, n_samples), last_name,
                             n_samples)

    # -- fit ------------------------------------------------------------------------------
    def _forget_fit(self):
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)

    def _public_shape(self, X, y):
        """(n, d) from the containers' structure (``len``, ``shape``, columns), no value."""
        if y is None:
            raise ValueError("DPPipeline requires y to be passed, but the target y is None.")
        try:
            n, d, n_y = _num_samples(X), _num_features(X), _num_samples(y)
        except (TypeError, ValueError) as error:
            raise ValueError(
                "DPPipeline reads n and d from the shape of X and y before reading any value, "
                f"and could not ({error}). Pass X as a pandas or polars DataFrame, a 2-D numpy "
                "array or a scipy sparse matrix, and y as a 1-D array."
            ) from None
        if n_y != n:
            raise ValueError(f"X and y have different numbers of rows: {n} and {n_y} (n is "
                             "public: the shapes must agree).")
        if d < 1:
            raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)) while a minimum "
                             "of 1 is required.")
        if n < 2:
            raise ValueError(f"Found array with {n} sample(s) (shape=({n}, {d})) while a "
                             f"minimum of 2 is required (n_samples={n}).")
        return int(n), int(d)

    def _check_classes(self, final):
        if is_classifier(final) and final.classes is None and self.ledger is not None:
            raise ValueError(
                "with a ledger, the classifier's classes= must be given: the label set "
                "decides the loss and the noise, and reading it from y before the charge "
                "would let a refused fit reveal the labels for free."
            )

    @_fit_context(prefer_skip_nested_validation=False)
    @fit_or_forget
    def fit(self, X, y, sample_ids=None, **fit_params):
        """Fit every step with its share of the budget; only the final releases are kept.

        Parameters
        ----------
        X : DataFrame, array-like or sparse matrix of shape (n_samples, n_features)
            Whatever the first step accepts.
        y : array-like of shape (n_samples,)
            Labels or targets.
        sample_ids : array-like of shape (n_samples,), default=None
            Public ids of the rows, passed to ``ledger`` only.
        **fit_params : dict
            Refused with the reason (``sample_weight`` and the like).

        Returns
        -------
        self : DPPipeline
            Fitted: ``pipeline_``, ``privacy_`` and ``budget_`` are set.
        """
        refuse_fit_params(type(self).__name__, fit_params)
        pre, last_name, final = self._checked_steps()
        self._check_classes(final)
        n, d = self._public_shape(X, y)
        sample_ids = BaseDPLinearModel._check_sample_ids(sample_ids, n)
        releases = self._releases(pre, final, X)
        budget = self._budget(releases, n)
        planned = self._planned(releases, budget, last_name, n)
        # n_features_in_ and feature_names_in_ from the structure only (no value read)
        validate_data(self, X, y, skip_check_array=True)
        if self.ledger is not None:  # before any value is read; may refuse
            self.ledger.charge(self, planned, n_samples=n, sample_ids=sample_ids)
        return self._fit_charged(X, y, pre, last_name, final, releases, budget, n)

    def _fit_charged(self, X, y, pre, last_name, final, releases, budget, n):
        """Steps 4-5 of the module docstring (the ledger has been charged)."""
        rng = make_generator(self.random_state)
        allowance = {name: (mu, extra) for (name, _, _), mu, extra in
                     zip(releases, budget.step_mu, budget.step_extra_delta)}
        fitted, spent, Xt = [], [], X
        for name, step in pre:
            if _is_skip(step):
                fitted.append((name, step))
                continue
            step = clone(step)
            if _is_private(step):
                mu, extra = allowance.get(name, (0.0, 0.0))
                step._fit_private(Xt, y, mu=mu, extra_delta=extra,
                                  random_state=_child_seed(rng))
                _check_spent(name, step.privacy_, mu, extra)
                spent.append((name, step.privacy_))
                Xt = step.transform(Xt)
            else:
                Xt = step.fit_transform(Xt, y)
            fitted.append((name, step))
        estimator = clone(final).set_params(
            epsilon=budget.estimator_epsilon, delta=budget.estimator_delta, ledger=None,
            random_state=_child_seed(rng))
        norm = _row_norm_bound(fitted)
        if norm is not None:
            estimator.set_params(data_norm=norm)
        y_fit = y
        if TARGET_RANGE in allowance:
            mu, _ = allowance[TARGET_RANGE]
            low, high, report = release_target_range(y, mu=mu, random_state=_child_seed(rng))
            spent.append((TARGET_RANGE, report))
            y_fit = scale_target(y, low, high)
            estimator.set_params(y_bound=1.0)
            self.target_range_ = (low, high)
        if CLASS_COUNTS in allowance:
            mu, _ = allowance[CLASS_COUNTS]
            weights, report = release_balanced_weights(
                y, final.classes, mu=mu, random_state=_child_seed(rng))
            spent.append((CLASS_COUNTS, report))
            estimator.set_params(class_weight=weights)
            self.class_weight_ = weights
        estimator.fit(Xt, y_fit)
        # The seed that drew the estimator's noise is not kept in the fitted (pickled)
        # model: whoever held it could regenerate the noise and test a neighbouring table
        # by refitting (docs/privacy_model.md, "Fixed seeds"); the pipeline's own
        # random_state is the only seed the user chose.
        estimator.set_params(random_state=None)
        _check_spent(last_name, estimator.privacy_, budget.estimator_mu, 0.0)
        if TARGET_RANGE in allowance:
            _unscale_model(estimator, *self.target_range_)
        spent.append((last_name, estimator.privacy_))
        fitted.append((last_name, estimator))
        self.pipeline_ = Pipeline(fitted)
        self.budget_ = budget
        notes = list(getattr(estimator.privacy_, "notes", ()))
        if norm is not None:
            notes.append(f"the estimator's data_norm is {norm:.6g}, the row-norm bound of the "
                         "last transformer's construction")
        if TARGET_RANGE in allowance:
            notes.append("DPRidge was fitted on y mapped by the released range to [-1, 1] "
                         "(y_bound=1); its coef_ and intercept_ are on the scale of y")
        report = PipelinePrivacyReport.compose(
            spent, delta=budget.delta, n_samples=n,
            preparation_share=budget.preparation_share, planned=False, notes=notes)
        if not report.epsilon <= budget.epsilon:  # the composition theorem says it cannot
            raise RuntimeError(
                f"internal error: the composed epsilon {report.epsilon!r} exceeds the budget "
                f"{budget.epsilon!r}; please report it.")
        if is_classifier(estimator):
            self.classes_ = estimator.classes_
        self.privacy_ = report
        return self

    def __sklearn_is_fitted__(self):
        return hasattr(self, "privacy_")

    def _check_input(self, X):
        """Fitted, and X has the fit's columns (structure only: names and count)."""
        check_is_fitted(self)
        if getattr(X, "ndim", 2) != 2:
            raise ValueError(
                f"Expected 2D array, got {getattr(X, 'ndim')}D array instead. Reshape your data "
                "with X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it "
                "holds a single sample.")
        validate_data(self, X, reset=False, skip_check_array=True)

    # -- delegation to the fitted pipeline --------------------------------------------------
    @available_if(_final_has("predict"))
    def predict(self, X):
        """``pipeline_.predict``: the steps' transforms, then the estimator.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Predicted labels or targets.
        """
        self._check_input(X)
        return self.pipeline_.predict(X)

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X):
        """``pipeline_.predict_proba``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Class probabilities.
        """
        self._check_input(X)
        return self.pipeline_.predict_proba(X)

    @available_if(_final_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """``pipeline_.predict_log_proba``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Log class probabilities.
        """
        self._check_input(X)
        return self.pipeline_.predict_log_proba(X)

    @available_if(_final_has("decision_function"))
    def decision_function(self, X):
        """``pipeline_.decision_function``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Decision scores.
        """
        self._check_input(X)
        return self.pipeline_.decision_function(X)

    @available_if(_final_has("score"))
    def score(self, X, y):
        """``pipeline_.score`` (accuracy or R^2; on data you may look at).

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.
        y : array-like
            Labels or targets.

        Returns
        -------
        float
            The final estimator's score on X, y.
        """
        self._check_input(X)
        return self.pipeline_.score(X, y)

    @available_if(_final_has("transform"))
    def transform(self, X):
        """``pipeline_.transform`` (only when the final step transforms).

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            The transformed rows.
        """
        self._check_input(X)
        return self.pipeline_.transform(X)


def _privacy_plan(step, X):
    """(Gaussian releases, thresholded releases) a private step plans; (1, 1) if unknown."""
    hook = getattr(step, "_privacy_plan", None)
    if not callable(hook):
        return 1, 1
    if X is not None:  # the schema's problems (public) are refused here, before the charge
        n_gdp, n_thresholded = hook(X)
        return int(n_gdp), int(n_thresholded)
    try:
        n_gdp, n_thresholded = hook(None)
    except Exception:  # noqa: BLE001 - cannot plan without data: assume it spends both
        return 1, 1
    return int(n_gdp), int(n_thresholded)


def _is_balanced(estimator):
    weight = getattr(estimator, "class_weight", None)
    return isinstance(weight, str) and weight == "balanced"


def _is_auto(value):
    return isinstance(value, str) and value == "auto"


def _child_seed(rng):
    """An independent seed drawn from the pipeline's generator (one per release)."""
    return int(rng.integers(2**32))


def _check_spent(name, report, mu, extra):
    """Refuse a release that spent more than its allowance (a broken step contract)."""
    spent_mu = float(report.mu)
    spent_extra = float(getattr(report, "extra_delta", 0.0))
    if not (spent_mu <= mu * (1.0 + _SLACK) and spent_extra <= extra * (1.0 + _SLACK)):
        raise RuntimeError(
            f"Step {name!r} reports mu={spent_mu!r}, additive delta={spent_extra!r}, above its "
            f"allowance mu={mu!r}, delta={extra!r}: it does not follow the private-step "
            "protocol (skdpgd.accounting._release)."
        )


def _row_norm_bound(fitted):
    """``row_norm_bound_`` of the last non-skipped transformer, or None."""
    for _, step in reversed(fitted):
        if _is_skip(step):
            continue
        bound = getattr(step, "row_norm_bound_", None)
        return None if bound is None else float(bound)
    return None


def _unscale_model(estimator, low, high):
    """Map a DPRidge fitted on the scaled target back to the scale of y (post-processing).

    With :math:`s = (\\mathrm{high} - \\mathrm{low})/2` and :math:`c = (\\mathrm{high} +
    \\mathrm{low})/2`, the scaled target is :math:`(y - c)/s`, so a prediction
    :math:`w\\cdot x + b` of it is :math:`s(w \\cdot x + b) + c` on the scale of y.
    """
    scale, centre = (high - low) / 2.0, (high + low) / 2.0
    estimator.coef_ = estimator.coef_ * scale
    estimator.intercept_ = float(estimator.intercept_) * scale + centre


def make_dp_pipeline(*steps, epsilon=1.0, delta="auto", preparation_share=PREPARATION_SHARE,
                     ledger=None, random_state=None):
    r"""Build a :class:`DPPipeline` from steps, naming them like ``make_pipeline``.

    Parameters
    ----------
    *steps : estimators
        Transformers (private or public-bound), then a DPLogisticRegression or DPRidge.
    epsilon : float, default=1.0
        Budget of the whole pipeline.
    delta : float or "auto", default="auto"
        Its delta (``"auto"``: min(1e-5, 1/(10 n))).
    preparation_share : float, default=0.1
        Share of :math:`\mu^2` for the private preparation.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged once per fit, before any value is read.
    random_state : int, Generator or None, default=None
        Source of all the noise.

    Returns
    -------
    DPPipeline
        With steps named by their lowercased class names (``"dplogisticregression"``).

    Examples
    --------
    >>> from skdpgd import DPRidge, make_dp_pipeline
    >>> from skdpgd.preprocessing import BoundedScaler
    >>> pipe = make_dp_pipeline(BoundedScaler((0, 1)), DPRidge(y_bound=1.0), epsilon=0.5)
    >>> [name for name, _ in pipe.steps]
    ['boundedscaler', 'dpridge']
    """
    return DPPipeline(_name_estimators(steps), epsilon=epsilon, delta=delta,
                      preparation_share=preparation_share, ledger=ledger,
                      random_state=random_state)
