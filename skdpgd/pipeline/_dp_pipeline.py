r"""DPPipeline: private preparation and a DP estimator under one budget and one charge.

A :class:`DPPipeline` holds ``steps`` like a scikit-learn ``Pipeline``: transformers, then
one skdpgd estimator. A transformer is either *public-bound* (its fit reads no value:
:mod:`skdpgd.preprocessing._public_steps` says which) or *private*: it follows the
private-step protocol of :mod:`skdpgd.preprocessing._private_step` (its base
``PrivateStepMixin``; ``_privacy_plan``, ``_fit_private``, ``privacy_``, optionally
``row_norm_bound_``), e.g. :class:`skdpgd.preprocessing.DPTableVectorizer`. ``fit``:

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

Step 1 is :mod:`._checks`, steps 2-3 :mod:`._plan` (the plan is computed once per fit and
is both the ledger's charge and the allowances the fit hands out), steps 4-5
:mod:`._fit_steps`; predictions go through :mod:`._delegation`.

How the pipeline uses a private step's hooks: ``_privacy_plan(X)`` is called with the
table for the first private step and with None for the later ones (a step whose plan
fails on None is assumed to need a share and an additive delta); a step with no release
gets no share; the last transformer's fitted ``row_norm_bound_`` becomes the estimator's
``data_norm``. The private range of the target and the noisy class counts are private
steps on y (:class:`~skdpgd.pipeline._target.PrivateTargetRange`,
:class:`~skdpgd.pipeline._labels.PrivateClassCounts`).
"""

import numbers

import numpy as np

from ..accounting.allowance import release
from ..linear_model._base import BaseDPLinearModel, fit_or_forget
from ..linear_model._refusals import refuse_fit_params
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    _BaseComposition,
    _fit_context,
    _name_estimators,
    validate_data,
)
from ._budget import PREPARATION_SHARE
from ._checks import check_classes, check_steps, is_prepared, is_private, public_shape
from ._container import StepSequence
from ._delegation import FittedPipelineMethods
from ._fit_steps import fit_charged
from ._mean_correction import post_fit_plans
from ._plan import plan_budget, planned_releases, planned_report, shared_releases
from ._prepare import prepare_pipeline

#: The class attribute that marks a DP pipeline (one budget, one charge): the searches
#: above this layer recognise one by it (duck typing, so a subclass or a look-alike counts).
DP_PIPELINE_ATTRIBUTE = "__skdpgd_dp_pipeline__"


class DPPipeline(StepSequence, FittedPipelineMethods, _BaseComposition):
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
    estimator gets the rest; :doc:`/budgets` derives it) and the releases compose
    exactly (Dong, Roth and Su 2022, Corollary 3.3, plus the additive deltas), so
    ``privacy_.epsilon <= epsilon``.

    Parameters
    ----------
    steps : list of (str, estimator)
        Transformers (private-step protocol, or public-bound: skdpgd.preprocessing's,
        ``"passthrough"``, or declaring ``__skdpgd_public_fit__``), then a
        :class:`~skdpgd.DPLogisticRegression` or :class:`~skdpgd.DPRidge` whose
        solver declares a Gaussian-DP report (``Solver.reports_mu``: every built-in
        solver but ``"sgd"``). A :class:`~skdpgd.pipeline.PreparedStep` is accepted
        only as :meth:`prepare` or ``DPSearchCV`` made it (with the release they
        charged); one built by hand is refused.

        **One rule for the parameters the pipeline sets.** A step's ``epsilon``,
        ``delta``, ``random_state`` and ``ledger`` belong to the pipeline: it splits
        its own budget between the releases, draws every seed from its own
        ``random_state`` and charges its own ledger. Leave them at the step's
        defaults (the pipeline sets them in its fitted clones); any other value on a
        step (set by hand, by ``set_params``, or by a search's grid such as
        ``{"dplogisticregression__epsilon": [...]}``) is refused before the charge,
        with the value the pipeline uses instead (``DPLogisticRegression(epsilon=0.1)``
        in a pipeline of ``epsilon=4.0`` would otherwise spend 4 where 0.1 is
        written). Set them on the pipeline: ``make_dp_pipeline(..., epsilon=0.1)``,
        or grid over ``epsilon`` (:doc:`/budgets`, "One budget for a pipeline").
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
    constant_check : {"auto", True, False}, default="auto"
        Check the fitted model against the private constant predictor and return the
        intercept-only model when the check does not show the model beats it: a
        public share of the estimator's :math:`\mu^2` (2% to half) pays for a noisy
        release after the fit (in ``privacy_``; the result in ``constant_check_``).
        ``"auto"``: ``DPLogisticRegression`` with public ``classes``, no
        ``class_weight``; True: also ``DPRidge`` (the mean of y); both with an
        intercept, without ``inference``. False: the estimator gets its whole share
        (:doc:`/theory`, "Never below the constant predictor").
    mean_correction : {"auto", True, False}, default="auto"
        Regressors (``DPRidge``, with an intercept, without ``inference``): move the
        fitted intercept by the private mean of the model's residuals, so that it
        predicts the mean of y rather than the Huber location of the residuals (below
        the mean for a skewed target: counts, incomes, prices). A public share of the
        estimator's :math:`\mu^2` (2% to half; before the constant check's) pays for it
        (in ``privacy_``; the shift in ``mean_correction_``). "auto" and True: on where
        it applies; False: the estimator gets its whole share (:doc:`/theory`, "The
        regressor's intercept at its mean residual").

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
    constant_check_ : ConstantCheck
        Where the check ran: ``kept_model`` (False: the estimator is the intercept-only
        model), the noisy lead and the margin it had to pass.
    mean_correction_ : MeanCorrection
        Where the correction ran: the ``shift`` added to the intercept (in the fit's
        scale: y mapped to [-1, 1] with ``y_bound="auto"``), its ``noise_std`` and
        ``share``. The correction runs before the constant check: where the check then
        replaces the model (``constant_check_.kept_model`` False), the intercept is the
        check's constant and the shift is no longer in it.

    See Also
    --------
    make_dp_pipeline : Build a DPPipeline from steps, naming them.

    Notes
    -----
    ``fit`` never changes the steps you passed: it fits clones with their budgets set.
    Indexing reads them as scikit-learn's ``Pipeline`` does: after ``fit``, ``pipe[-1]``,
    ``pipe["name"]`` and ``named_steps`` are the fitted clones and ``pipe[:-1]`` is a
    fitted scikit-learn ``Pipeline`` of the fitted transformers (``pipe[:-1].transform(X)``
    is what the estimator saw); ``len``, ``get_feature_names_out`` and ``set_output``
    behave as there (:mod:`skdpgd.pipeline._container`).
    ``sample_ids`` (public record ids) go to the ledger only. Before a search, release
    the private preparation once with :meth:`prepare` and search the prepared pipeline:
    its fits (every clone ``GridSearchCV`` makes, ``epsilon`` among the candidates) are
    charged for the model only, and :func:`~skdpgd.model_selection.search_privacy_cost`
    prices every fit with :meth:`plan_privacy` and the shared preparation once.
    :class:`~skdpgd.model_selection.DPSearchCV` releases it once by itself.

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

    #: model_selection recognises a DP pipeline by this class attribute
    #: (``DP_PIPELINE_ATTRIBUTE``).
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
        "constant_check": ["boolean", StrOptions({"auto"})],
        "mean_correction": ["boolean", StrOptions({"auto"})],
    }

    def __init__(self, steps, *, epsilon=1.0, delta="auto",
                 preparation_share=PREPARATION_SHARE, ledger=None, random_state=None,
                 constant_check="auto", mean_correction="auto"):
        self.steps = steps
        self.epsilon = epsilon
        self.delta = delta
        self.preparation_share = preparation_share
        self.ledger = ledger
        self.random_state = random_state
        self.constant_check = constant_check
        self.mean_correction = mean_correction

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
    def _final_estimator(self):
        return self.steps[-1][1]

    @property
    def classes(self):
        """The final estimator's ``classes`` parameter (classifiers; None for regressors)."""
        return getattr(self._final_estimator, "classes", None)

    @property
    def y_bound(self):
        """The final estimator's ``y_bound`` parameter (regressors; None for classifiers)."""
        return getattr(self._final_estimator, "y_bound", None)

    def _public_label_set(self):
        """The final estimator's declared label set (read by searches, the constant check)."""
        return self._final_estimator._public_label_set()

    def _public_target_bound(self):
        """The final estimator's declared bound on |y| (what the searches read)."""
        return self._final_estimator._public_target_bound()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            final = self._final_estimator
            inner = final.__sklearn_tags__()
        except Exception:  # malformed steps: validated in fit
            return tags
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.target_tags.required = True
        first = self.steps[0][1]
        if is_private(first) or len(self.steps) > 1:
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
        names = ", ".join(s if isinstance(s, str) else f"{type(s.step).__name__} (prepared)"
                          if is_prepared(s) else type(s).__name__ for _, s in self.steps)
        return f"DPPipeline([{names}], epsilon={self.epsilon!r}, delta={self.delta!r})"

    # -- checks on parameters only ---------------------------------------------------------
    def plan_privacy(self, n_samples, n_features=None, n_classes=None, *, X=None):
        r"""The cost a fit on n rows is charged, without data (upper bounds).

        Every allowance of the budget rule is a function of the parameters, of n and of
        the table's structure (its columns' dtypes) only, so this is what the ledger is
        charged; a fit's ``privacy_`` spends at most this. Without ``X``, a private step
        is asked whether it may spend or threshold from its parameters alone
        (``_privacy_plan(None)``; a step that cannot say is assumed to do both), so a fit
        on a table whose columns need no thresholding may reserve less: its additive
        delta is then 0, its Gaussian part the same as this plan's (the budget rule
        meets it at :math:`\delta - \kappa\delta` whenever a plan without X reserves),
        so this plan bounds every fit and its epsilon is at most the target.

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
        pre, last_name, final = check_steps(self)
        n_samples = int(n_samples)
        if n_samples < 2 or (n_features is not None and int(n_features) < 1):
            raise ValueError(f"need n >= 2 and d >= 1, got n={n_samples}, d={n_features}.")
        releases = planned_releases(pre, final, X)
        budget = plan_budget(self, releases, n_samples, pre, final)
        return planned_report(releases, budget, last_name, n_samples, shared_releases(pre),
                              post_fit_plans(final, budget, n_samples, self.mean_correction,
                                             self.constant_check))

    def prepare(self, X, y=None, *, ledger=None, sample_ids=None):
        r"""Release the private preparation once; return a pipeline that reuses it.

        Fits the private preparation steps on X with the allowances a fit of this
        pipeline gives them (``plan_privacy(len(X), X=X)``), charges ``ledger`` once
        for them (before reading any value), and returns a clone whose private steps
        are frozen (:class:`~skdpgd.pipeline.PreparedStep`, public-bound). Its fits,
        and every fit a search makes of its clones, spend their whole budget on the
        model and are charged for the model only; reusing the released preparation is
        post-processing (:doc:`/budgets`, "Prepare once, search many").

        Parameters
        ----------
        X : table
            All the rows every later fit may use (the folds of a search included).
        y : ignored, default=None
            For the scikit-learn calling convention.
        ledger : skdpgd.PrivacyLedger or None, default=None
            Charged once (default: the pipeline's); the returned pipeline keeps it.
        sample_ids : array-like of shape (n_samples,), default=None
            Public ids of the rows, passed to the ledger only.

        Returns
        -------
        DPPipeline
            Unfitted, with the preparation released; its report lists it as shared.
        """
        return prepare_pipeline(self, X, y, ledger=ledger, sample_ids=sample_ids)

    # -- fit ------------------------------------------------------------------------------
    def _forget_fit(self):
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)

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
        pre, last_name, final = check_steps(self)
        check_classes(final, self.ledger)
        n, _d = public_shape(X, y)
        sample_ids = BaseDPLinearModel._check_sample_ids(sample_ids, n)

        def plan():  # public numbers only: every refusal they decide is raised here
            releases = planned_releases(pre, final, X)
            budget = plan_budget(self, releases, n, pre, final)
            planned = planned_report(releases, budget, last_name, n, shared_releases(pre),
                                     post_fit_plans(final, budget, n, self.mean_correction,
                                                    self.constant_check))
            # n_features_in_ and feature_names_in_ from the structure only (no value read)
            validate_data(self, X, y, skip_check_array=True)
            return [(self, planned)], (releases, budget)

        # the one protocol: plan, the ledger's charge (may refuse), then the run
        return release(self.ledger, plan, lambda planned: fit_charged(
            self, X, y, pre, last_name, final, *planned, n), n_samples=n, sample_ids=sample_ids)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "privacy_")


def make_dp_pipeline(*steps, epsilon=1.0, delta="auto", preparation_share=PREPARATION_SHARE,
                     ledger=None, random_state=None, constant_check="auto",
                     mean_correction="auto"):
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
    constant_check : {"auto", True, False}, default="auto"
        Keep the model only where a private check shows it beats the constant
        predictor (:class:`DPPipeline`).
    mean_correction : {"auto", True, False}, default="auto"
        Regressors: move the intercept by the private mean residual (:class:`DPPipeline`).

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
                      random_state=random_state, constant_check=constant_check,
                      mean_correction=mean_correction)
