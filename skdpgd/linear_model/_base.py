"""The one fit of the DP linear models: public plan, admission, run, check, store.

:meth:`BaseDPLinearModel._fit` writes the privacy-critical order once, for every
estimator and every entry (``fit``; a DP pipeline's ``_fit_within``, handed an allowance
in mu): (1) the public plan from n, d and the parameters, where every refusal that public
numbers decide is made; (2) the ledger's admission (:func:`skdpgd.accounting.allowance.admit`);
(3) the values read and the run within the allowance; (4) the check of the report
against a handed allowance; (5) the fitted attributes stored. A subclass supplies what
differs -- its loss (``_loss_and_shape``), its labels (``_public_labels`` before the
charge, ``_read_targets`` after it), its regularisation and public scales, and the
model's attributes (``_store_model``); what the run releases besides its last iterate
is a component (:mod:`skdpgd.linear_model._run`: the plain run, private inference). The
inner loop (:mod:`skdpgd.optim`) never sees epsilon.
"""

import functools
import math
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator, is_classifier

from ..accounting.allowance import admit
from ..losses import WeightedLoss
from ..solvers import NAMES as SOLVER_NAMES
from ..solvers import FitData, PublicProblem, concentrated_initial_distance
from ..solvers import get as get_solver
from ..utils._sklearn_compat import HasMethods, Interval, Options, StrOptions
from ..utils._validation import check_epsilon, make_generator, resolve_delta
from ._defaults import auto_intercept_scaling
from ._inference import Inference, WithoutTable
from ._inputs import InputChecks
from ._pipeline_releases import PipelineReleases
from ._refusals import (
    public_sampling,
    refuse_fit_params,
    refuse_public_parameters,
    refuse_warm_start,
)
from ._run import Charged, PlainRun, StepCounter, Target
from ._weights import check_sample_weight_shape, row_weights

#: The range of the public scales data_norm, intercept_scaling and y_bound. Outside it the
#: products of the fit (theta ~ 1/data_norm, float32 weights, squared bounds in the
#: planner) would underflow or overflow for some data; rescale the data instead.
PUBLIC_SCALE_RANGE = (1e-12, 1e12)

def fit_or_forget(fit):
    """Decorate ``fit`` so that the estimator is either wholly fitted or unfitted.

    The previous fit is forgotten first; if anything interrupts the new one (an error, a
    refusal by the ledger, KeyboardInterrupt), every fitted attribute it may have set
    (``n_features_in_`` included) is deleted, so no partial state can mix two fits or
    outlive an interrupted run.
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        self._forget_fit()
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self._forget_fit()
            raise

    return wrapper


class BaseDPLinearModel(InputChecks, PipelineReleases, BaseEstimator):
    """Projected noisy gradient descent on an L2-regularised linear model (not public)."""

    _parameter_constraints = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"),
                    Options(numbers.Real, {np.inf})],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "data_norm": [Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [
            Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"), StrOptions({"auto"})
        ],
        "solver": [StrOptions(SOLVER_NAMES)],  # the registry's live set of names
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "ledger": [HasMethods(["charge"]), None],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "max_coef_norm": [Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"), None],
    }

    # With scikit-learn's metadata routing on, a Pipeline or search passes sample_ids to
    # this estimator without the user naming its step (the ledger needs them).
    __metadata_request__fit = {"sample_ids": True}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __sklearn_is_fitted__(self):
        """Fitted means a whole fit succeeded: its privacy report is the last thing stored."""
        return hasattr(self, "privacy_")

    def _forget_fit(self):
        """Delete every fitted attribute (public names ending in ``_``)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)

    # -- hooks for subclasses -------------------------------------------------------
    _refuse_public_parameters = refuse_public_parameters

    def _strong_convexity(self, n_samples):
        """lam from the user's C / alpha, or None for "auto" (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _strong_convexity")

    def _output_scale(self):
        """The public scale m of the model's outputs (a logit, or y_bound; abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _output_scale")

    def _initial_distance(self, n_features, n_outputs, intercept_scaling):
        """Public guess r0 of the norm of the optimum (abstract hook; b None: no intercept)."""
        raise NotImplementedError(f"{type(self).__name__} must define _initial_distance")

    def _zero_loss_bound(self, loss):
        """f_0, the public bound on the loss at theta = 0 (DPRidge passes its y_bound)."""
        return float(loss.value_at_zero_bound())

    # -- shared steps -------------------------------------------------------------
    def _intercept_scaling(self, n_features, n_outputs):
        """The public constant b of the intercept column, or None without an intercept.

        ``"auto"``: :func:`~skdpgd.linear_model._defaults.auto_intercept_scaling`, a
        function of data_norm, d and the number of outputs only.
        """
        if not self.fit_intercept:
            return None
        if self.intercept_scaling == "auto":
            return auto_intercept_scaling(self.data_norm, n_features, n_outputs, self._infers())
        return float(self.intercept_scaling)

    def _problem(self, loss, n_samples, n_features, n_params, target):
        """The :class:`~skdpgd.solvers.PublicProblem` of a fit: public only.

        The intercept scaling b is computed here once and read from the problem by the
        run and by the split of theta; Rt = sqrt(R^2 + b^2) bounds augmented rows.
        ``target`` (:class:`~skdpgd.linear_model._run.Target`) is ``(epsilon, delta)``,
        or a Gaussian-DP ``mu`` at ``delta`` (then passed on unconverted).
        """
        scaling = self._intercept_scaling(n_features, loss.n_outputs)
        row_norm = math.hypot(self.data_norm, scaling or 0.0)
        lam = self._refuse_public_parameters(n_samples)
        return PublicProblem(
            epsilon=None if target.epsilon is None else float(target.epsilon),
            delta=float(target.delta), mu=None if target.mu is None else float(target.mu),
            n_samples=int(n_samples),
            n_params=int(n_params), sensitivity=float(loss.sensitivity(row_norm)),
            gradient_bound=float(loss.gradient_bound(row_norm)),
            data_smoothness=float(loss.smoothness(row_norm)),
            initial_distance=float(self._initial_distance(n_features, loss.n_outputs, scaling)),
            largest_distance=float(concentrated_initial_distance(
                self._output_scale(), self.data_norm, n_features, loss.n_outputs, scaling
            )),
            strong_convexity=lam,
            learning_rate=None if self.learning_rate == "auto" else float(self.learning_rate),
            max_iter=None if self.max_iter == "auto" else int(self.max_iter),
            batch_size=None if self.batch_size == "auto" else int(self.batch_size),
            row_norm=float(row_norm), n_outputs=int(loss.n_outputs),
            intercept_scaling=scaling, sampling=public_sampling(self.solver, self.sampling),
            scale_free_score=is_classifier(self),  # accuracy sees only theta's direction
            max_coef_norm=None if self.max_coef_norm is None else float(self.max_coef_norm),
            zero_loss_bound=self._zero_loss_bound(loss),
        )

    def _plan_and_report(self, n_samples, n_features, n_classes, notes=(), *, target=None,
                         component=None):
        """Step 1 of the fit: the :class:`~skdpgd.linear_model._run.Charged` plan, public only.

        ``target``: what the run is calibrated to (default: the parameters' epsilon and
        delta); ``component``: what the run releases besides its last iterate (default:
        the parameters', :meth:`_run_component`).
        """
        component = self._run_component() if component is None else component
        target = self._target(n_samples, None, None, component) if target is None else target
        loss, coef_shape, run_target = component.plan_cost(self, n_samples, n_features,
                                                            n_classes, target)
        run_loss, weight_notes = self._weighted_loss(loss)
        problem = self._problem(run_loss, n_samples, n_features, int(np.prod(coef_shape)),
                                run_target)
        plan = (solver := get_solver(self.solver)).plan(problem)  # "auto": names its pick
        plan, report = component.plan_report(solver, plan, problem,
                                             tuple(notes) + weight_notes, loss, target)
        return Charged(run_loss, coef_shape, problem, plan, report)

    def _target(self, n_samples, allowance, delta, component):
        """The run's :class:`~skdpgd.linear_model._run.Target` (public numbers only).

        Without an allowance: the parameters' ``(epsilon, delta)``. With one (a DP
        pipeline's, at ``delta``): its ``mu`` unconverted where the solver and the
        component plan in mu, else its epsilon at ``delta`` (the one conversion, at the
        edge of a planner that takes epsilon).
        """
        if allowance is None:
            return Target(check_epsilon(self.epsilon), resolve_delta(self.delta, n_samples))
        if component.plans_in_mu and get_solver(self.solver).plans_in_mu:
            return Target(None, float(delta), float(allowance.mu))
        return Target(float(allowance.epsilon_at(delta)), float(delta))

    def _run_component(self, table_refusal=None):
        """What the run releases besides its last iterate (:mod:`._run`), from the parameters.

        ``inference=True``: the private coefficient table
        (:class:`~skdpgd.linear_model._inference.Inference`); with ``table_refusal`` (a
        DP pipeline's reason why no table can be released), the model at the whole
        budget and a table without intervals; otherwise the plain run.
        """
        if not getattr(self, "inference", False):
            return PlainRun()
        return Inference() if table_refusal is None else WithoutTable(table_refusal)

    def _loss_and_shape(self, n_features, n_classes):
        """The loss ``fit`` uses and the shape of theta (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _loss_and_shape")

    # -- row weights (docs/theory.md#weights; skdpgd.linear_model._weights) ----------
    def _class_weight_bound(self):
        """W_c of a public ``class_weight``, or None without one (classifiers override)."""
        return None

    def _weight_bound(self):
        """W = W_c W_s from the parameters only, or None for an unweighted fit."""
        sample_bound = getattr(self, "max_sample_weight", None)
        class_bound = self._class_weight_bound()
        if sample_bound is None and class_bound is None:
            return None
        return float(1.0 if class_bound is None else class_bound) * float(
            1.0 if sample_bound is None else sample_bound
        )

    def _weighted_loss(self, loss):
        """(loss, notes): the loss wrapped in WeightedLoss(W) when the fit is weighted."""
        bound = self._weight_bound()
        if bound is None:
            return loss, ()
        note = (
            f"weighted objective: every row weight is in [0, W] with W = {bound:.6g} "
            "(class_weight and max_sample_weight, public); the gradient bound, the "
            "sensitivity and the smoothness are W times the unweighted ones, the noisy Gram "
            "of solver='preconditioned' is unweighted (its curvature bound is scaled "
            "instead); sample weights are clipped to [0, max_sample_weight] "
            "(docs/theory.md#weights)"
        )
        return WeightedLoss(loss, bound), (note,)

    def _check_weights(self, sample_weight, n_samples):
        """Refuse a sample_weight the fit cannot take, from public facts (before the charge)."""
        check_sample_weight_shape(
            sample_weight, n_samples, getattr(self, "max_sample_weight", None),
            type(self).__name__,
        )

    def _weighted_targets(self, targets, sample_weight, *, codes=None, classes=None,
                          class_weight=None):
        """targets, or (targets, weights) packed for WeightedLoss (after the charge)."""
        if self._weight_bound() is None:
            return targets
        weights = row_weights(
            len(targets), codes=codes, classes=classes, class_weight=class_weight,
            sample_weight=sample_weight,
            max_sample_weight=getattr(self, "max_sample_weight", None),
        )
        return WeightedLoss.pack(targets, weights)

    def plan_privacy(self, n_samples, n_features, n_classes=None):
        """The privacy report ``fit`` would produce on any data of this shape, without data.

        Planning reads public numbers only (n, d, the label-set size, the parameters), so
        this is exactly ``fit(X, y).privacy_`` for every X of shape (n_samples, n_features)
        (up to the report's notes): use it to see what a budget buys before touching the
        data, or to account for fits that have not run yet. Where ``solver="auto"``
        chooses its run on a released Gram (a ``GramThenRunPrivacyReport``), the
        guarantee (mu, epsilon, delta, the event) is exactly the fit's and the run's fields
        name the public choice; the fit's name the run that ran.

        Parameters
        ----------
        n_samples, n_features : int
            n and d of the data (public).
        n_classes : int, optional
            Size of the public label set (logistic regression; defaults to
            ``len(classes)`` when the estimator's ``classes`` is set). Ignored by DPRidge.

        Returns
        -------
        report : skdpgd.PrivacyReport
            The report of the run ``fit`` would make (the chosen solver's: epsilon,
            delta, the noise, the steps and the bound that binds), as ``privacy_`` after
            ``fit``.
        """
        self._validate_params()
        refuse_warm_start(getattr(self, "warm_start", False))  # as fit refuses it
        n_samples, n_features = int(n_samples), int(n_features)
        if n_samples < 2 or n_features < 1:
            raise ValueError(
                f"need n >= 2 and d >= 1, got n={n_samples}, d={n_features}."
            )
        return self._plan_and_report(n_samples, n_features, n_classes).report

    # -- the one fit ---------------------------------------------------------------------
    @fit_or_forget
    def _fit(self, X, y, sample_ids=None, *, sample_weight=None, fit_params=None,
             allowance=None, delta=None, table_refusal=None, name=None):
        """The privacy-critical order, once: public plan, admission, run, check, store.

        1. **plan** from the containers' shape and the parameters only: every refusal
           public numbers decide is raised here (``_public_labels``, the solver's plan);
        2. **admit**: the ledger is charged (:func:`~skdpgd.accounting.allowance.admit`)
           before any value is read, so that a fit refused later for its content has
           paid for what its refusal may reveal (docs/privacy_model.md, "Which errors
           depend on the data");
        3. **run**: the values are read (``_read_targets``: a refusal here depends on
           one record only) and the run and its component's releases spend the planned
           target; randomness enters here once;
        4. **check**: a handed ``allowance`` covers the report (the one margin);
        5. **store**: the model's attributes, the component's, then ``privacy_``.

        ``allowance`` (an :class:`~skdpgd.accounting.allowance.Allowance`, at
        ``delta``) replaces the parameters' ``(epsilon, delta)``: a DP pipeline's share.
        """
        refuse_fit_params(type(self).__name__, fit_params or {})
        self._check_parameters()  # the parameters alone, before any shape is read
        n_samples, n_features = self._public_shape(X, y)
        self._check_weights(sample_weight, n_samples)
        labels = self._public_labels(X, y, n_samples)
        sample_ids = self._check_sample_ids(sample_ids, n_samples)
        component = self._run_component(table_refusal)
        target = self._target(n_samples, allowance, delta, component)
        charged = self._plan_and_report(n_samples, n_features, labels.n_classes,
                                        labels.notes, target=target, component=component)
        admit(self.ledger, [(self, charged.report)], n_samples=n_samples,
              sample_ids=sample_ids)  # may refuse: nothing is read then
        X, targets, classes = self._read_targets(X, y, labels, sample_weight)
        coef, n_steps, plan, run_report = self._run(X, targets, charged, component)
        if allowance is not None:
            allowance.check(name or type(self).__name__, charged.report)
        self._store_model(coef, charged._replace(plan=plan), classes, X.shape[0])
        component.store(self)
        self._store_run(charged.report, plan, n_steps, run_report)
        return self

    def _fit_within(self, X, y, *, allowance, delta, sample_weight=None, **options):
        """:meth:`_fit` within a Gaussian-DP ``allowance`` at ``delta`` (a DP pipeline's).

        ``options``: ``name`` (the step's) and ``table_refusal``: why the preparation
        leaves no table possible (the model at the whole allowance, no interval).
        """
        self._validate_params()
        return self._fit(X, y, sample_weight=sample_weight, allowance=allowance,
                         delta=delta, **options)

    def _check_parameters(self):
        """Refusals the parameters alone decide (a subclass adds its own)."""
        refuse_warm_start(getattr(self, "warm_start", False))

    def _public_labels(self, X, y, n_samples):
        """:class:`~._run.PublicLabels` before the charge; refusals public (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _public_labels")

    def _read_targets(self, X, y, labels, sample_weight):
        """(X, targets, classes) read and validated after the charge (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _read_targets")

    def _store_model(self, coef, charged, classes, n_rows):
        """Set the model's own fitted attributes from theta (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _store_model")

    def _run(self, X, y, charged, component):
        """Step 3: run the planned solver and the component on the validated data.

        Everything before (plan, report, ledger) used public numbers only; the data are
        touched only by the row sums of the solver and the component's releases, and
        randomness enters here once.

        Returns
        -------
        coef : ndarray
            The released coefficients (augmented coordinates): the last iterate, or the
            component's estimate (private inference).
        n_steps : int
            The steps that ran: the plan's, except a noiseless run that stopped on
            convergence (``epsilon=np.inf``), which is fewer.
        plan : dataclass
            The plan that ran (``solver="auto"`` may choose it on a released Gram).
        run_report : PrivacyReport
            Its report (same guarantee as the charged one, docs/privacy_model.md).
        """
        data = FitData(
            X, y, data_norm=self.data_norm, intercept_scaling=charged.problem.intercept_scaling,
            coef_shape=charged.coef_shape, n_jobs=self.n_jobs,
        )
        steps = StepCounter(self._progress(charged.plan.n_steps))
        coef, plan, run_report = component.run(self, data, charged, make_generator(
            self.random_state), steps)
        return coef, steps.done, plan, run_report

    def _progress(self, n_steps):
        """A callback that prints steps done and time; it never sees data or iterates."""
        if not self.verbose:
            return None
        start, every = time.perf_counter(), max(1, n_steps // 10)

        def report(step):
            done = step + 1
            if done % every == 0 or done == n_steps:
                elapsed = time.perf_counter() - start
                print(f"[{type(self).__name__}] step {done}/{n_steps} ({elapsed:.2f}s)")

        return report

    def _store_run(self, report, plan, n_steps, run_report=None):
        """Set the fitted attributes every DP linear model shares (after the fit succeeded).

        ``n_iter_`` is the number of steps that ran (``n_steps``): the report's K, or fewer
        for a noiseless run that stopped on convergence. ``privacy_`` is the charged
        report (public numbers only); ``run_report_`` the report of the run that ran, the
        same object except where ``solver="auto"`` chose its run on a released Gram.
        """
        run_report = report if run_report is None else run_report
        self.solver_ = plan.solver.name
        self.n_iter_ = int(n_steps)
        self.noise_std_ = run_report.noise_std
        self.learning_rate_ = run_report.learning_rate
        self.strong_convexity_ = plan.strong_convexity
        self.batch_size_ = getattr(run_report, "batch_size", None)  # mini-batch runs only
        self.data_norm_ = float(self.data_norm)  # the clip the predictions apply
        self.privacy_ = report
        self.run_report_ = run_report

    def _split_coef(self, coef, scaling):
        """Separate the appended intercept column; intercept_ = theta_b * b.

        ``scaling`` is the fit's b (``problem.intercept_scaling``, None without an
        intercept); also sets ``intercept_scaling_``, the b the fit used (0.0 without).
        """
        coef = np.atleast_2d(coef)
        self.intercept_scaling_ = 0.0 if scaling is None else scaling
        if self.fit_intercept:
            return coef[:, :-1].copy(), coef[:, -1] * scaling
        return coef.copy(), np.zeros(coef.shape[0])
