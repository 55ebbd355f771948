r"""``inference=True``: private standard errors, intervals and p-values (a run component).

The estimators' side of :mod:`skdpgd.inference` (docs/theory.md, "Private inference for
the coefficients"). Private inference is a component of the one fit
(:mod:`skdpgd.linear_model._run`), :class:`Inference`, called at its hooks:

* **plan its extra cost** (before any value is read, hence before the ledger's one
  charge): the binary logistic loss is the plain one (``residual_clip="auto"`` means 1;
  another clip is refused); multinomial fits, class weights and sample weights above 1,
  ``solver="sgd"`` and shapes whose Hessian could not stand out of its noise
  (:func:`skdpgd.inference.check_identifiable`) are refused with the reason (a DP
  pipeline checks the parameters before its charge and, where the width or the label set
  comes from its preparation, fits the model and returns a table without intervals:
  :class:`WithoutTable`); row weights in [0, 1] (the 0/1 weights of a private label
  set) keep the releases' sensitivities (docs/theory.md, "Weighted rows"); the budget
  is split between the run and three releases (:func:`skdpgd.inference.fit_budget`),
  the run is planned at its share and one report composes it with the gradient, Hessian
  and score-covariance releases (:func:`skdpgd.inference.compose_report`);
* **run its releases** after the run: the gradient, M and Q are released at the last
  iterate, one Newton step on the unpenalised loss gives the estimate and the sandwich
  its private covariance (:func:`skdpgd.inference.infer`). ``coef_`` and ``intercept_``
  are that estimate, the centre of the intervals;
* **store its table** (``inference_`` and what is read from it).

A DP pipeline sets ``_inference_indicators`` on its (cloned) estimator before the fit: one
bool per column, the 0/1 indicator columns of its preparation's public structure, which
leave the inference block where the release shows them empty
(:func:`skdpgd.inference.infer`); a standalone estimator has none.

:class:`CoefficientTableMixin` gives the estimators the table's public rules (read by a
DP pipeline before its charge) and its readers (``conf_int``, ``summary``); it overrides
no step of the fit.
"""

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ..inference import (
    DROPPED_NOTE,
    CoefficientTable,
    check_identifiable,
    check_solver,
    compose_report,
    curvature_and_residual_bounds,
    dropped_note,
    fit_budget,
    infer,
)
from ..losses import BinaryLogisticLoss
from ..utils import check_epsilon, resolve_delta
from ._run import PlainRun, Target

__all__ = ["CoefficientTableMixin", "Inference", "WithoutTable"]

COVERS_LOGISTIC = (
    "intervals cover the coefficients of the logistic model on rows clipped to data_norm "
    "(the unpenalised maximum-likelihood target: one private Newton step removes the "
    "shrinkage of lam and of the unfinished run; the loss is the plain one); these are the "
    "true coefficients when "
    "P(y=1|x) is logistic in x and no row is longer than data_norm."
)
COVERS_HUBER = (
    "intervals cover the Huber-regression coefficients (threshold {threshold}) of y "
    "clipped to [{low}, {high}] on rows clipped to data_norm (one private Newton step "
    "removes the shrinkage of lam and of the unfinished run); these are the true coefficients of "
    "y = x.beta + b0 + e when e is symmetric about 0 given x, y stays in that range and no row "
    "is longer than data_norm."
)
COVERS_WEIGHTED = (
    " Rows are weighted (weights in [0, 1], a function of the record): the target is that of "
    "the weighted estimating equation; a row of weight 0 (e.g. a label the private label set "
    "did not release) does not count."
)
NO_TABLE = (
    "no interval and no p-value: the model was fitted with the whole budget (no inference "
    "release), because a rule on public numbers known only after the pipeline's "
    "preparation refused the table: "
)
#: The largest row weight inference supports (docs/theory.md, "Weighted rows").
MAX_INFERENCE_WEIGHT = 1.0


class Inference(PlainRun):
    """The run and the releases of the private coefficient table (module docstring)."""

    #: The split of the budget is written in epsilon (:func:`skdpgd.inference.fit_budget`).
    plans_in_mu = False

    def plan_cost(self, estimator, n_samples, n_features, n_classes, target):
        """The public refusals, the plain loss and the run's share of the target.

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The estimator being fitted (its parameters).
        n_samples, n_features : int
            n and d (public).
        n_classes : int or None
            The size of the public label set (None for a regressor).
        target : Target
            The fit's target, in epsilon.

        Returns
        -------
        loss : BaseLoss
            The loss of the run and of the releases (the plain one).
        coef_shape : tuple
            The shape of theta.
        target : Target
            The run's share (:attr:`InferenceBudget.fit_epsilon`).
        """
        estimator._check_inference_parameters(n_classes)
        refusal = estimator._table_refusal(n_samples, n_features, n_classes, target.epsilon,
                                           target.delta)
        if refusal is not None:
            raise ValueError(refusal)
        loss, coef_shape = estimator._inference_loss_and_shape(n_features, n_classes)
        self.budget = fit_budget(target.epsilon, target.delta, n_samples, coef_shape[0])
        self.covers = estimator._covers()
        return loss, coef_shape, Target(self.budget.fit_epsilon, target.delta)

    def plan_report(self, solver, plan, problem, notes, loss, target):
        """The run's plan (no second choice on a Gram) and the composed report.

        Parameters
        ----------
        solver : skdpgd.solvers.Solver
            The fit's solver.
        plan : dataclass
            Its plan for ``problem`` (at the run's share).
        problem : PublicProblem
            The public numbers of the run.
        notes : tuple of str
            The run report's notes.
        loss : BaseLoss
            The plain loss (the releases' sensitivities are the unweighted loss's).
        target : Target
            The fit's target.

        Returns
        -------
        plan : dataclass
            The plan that runs.
        report : InferencePrivacyReport
            The run and the three releases, composed.
        """
        plan = getattr(plan, "plan_without_choice", plan)  # no second choice on a Gram
        check_solver(plan.solver)
        run_report = solver.report(plan, problem, notes)
        # the releases' sensitivities are those of the unweighted loss: every row's
        # coefficient w l'' and w^2 psi^2 stays in [0, c_H] and [0, psi_max^2] for w in
        # [0, 1] (docs/theory.md, "Weighted rows")
        report = compose_report(loss, run_report, self.budget, row_norm=problem.row_norm,
                                delta=target.delta, notes=(self.covers,))
        return plan, report

    def run(self, estimator, data, charged, rng, steps):
        """The run, then the releases at its last iterate; the estimate is returned.

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The estimator being fitted (its feature names).
        data : FitData
            The fit's data, as row sums only.
        charged : Charged
            The plan and the composed report (the releases' noise).
        rng : numpy.random.Generator
            The fit's only source of randomness.
        steps : StepCounter
            The run's callback.

        Returns
        -------
        coef : ndarray
            The one-step estimate, in the augmented coordinates of theta.
        plan : dataclass
            The plan that ran.
        run_report : PrivacyReport
            The charged report.
        """
        loss, plan, problem = charged.loss, charged.plan, charged.problem
        coef, preconditioner = plan.solver.run_released(data, loss, plan, rng, callback=steps)
        covers = charged.report.notes[0]
        with data.row_sums(loss.gradient_sum) as row_sums:
            table = infer(
                row_sums, loss, coef, plan=plan, report=charged.report, n_steps=steps.done,
                rng=rng, preconditioner=preconditioner,
                names=estimator._coefficient_names(estimator.n_features_in_),
                intercept_scaling=problem.intercept_scaling, covers=covers,
                indicators=getattr(estimator, "_inference_indicators", None),
            )
        self.table = table.replace(covers=covers)
        estimate = table.estimate.copy()
        if problem.intercept_scaling is not None:  # back to the augmented coordinate
            estimate[-1] /= problem.intercept_scaling
        return estimate.reshape(coef.shape), plan, charged.report

    def store(self, estimator):
        """``inference_`` and what is read from it.

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The fitted estimator (``coef_`` and ``intercept_`` set).
        """
        estimator._set_inference_table(self.table)


class WithoutTable(PlainRun):
    """The model at the whole budget and a table of NaN, with the reason.

    For a DP pipeline whose preparation made the table impossible (its width, its label
    set: :meth:`CoefficientTableMixin._table_refusal`) after the ledger was charged: the
    model is still released (the run gets the releases' share too: it spends at most the
    charge), and its table has every estimate, no interval and no p-value, with the reason
    in its notes.

    Parameters
    ----------
    reason : str
        Why no table can be released.
    """

    def __init__(self, reason):
        self.reason = str(reason)

    def store(self, estimator):
        """The table of the estimates without intervals.

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The fitted estimator (``coef_`` and ``intercept_`` set).
        """
        estimate = np.r_[np.ravel(estimator.coef_), np.ravel(estimator.intercept_)
                         if estimator.fit_intercept else []]
        names = estimator._coefficient_names(estimator.n_features_in_,
                                             getattr(estimator, "classes_", None))
        k = int(np.size(estimator.intercept_))
        if estimator.fit_intercept:
            names += (["intercept"] if k == 1
                      else [f"{c}: intercept" for c in estimator.classes_])
        m = len(names)
        estimator._set_inference_table(CoefficientTable(
            names, estimate, np.full((m, m), np.nan), (NO_TABLE + self.reason,),
            row_notes=("no interval: the table was refused (see its note)",) * m))


class CoefficientTableMixin:
    """The coefficient table's public rules and readers (``inference=True``; module doc)."""

    def _infers(self):
        """Whether the fit asks for the table (``intercept_scaling="auto"`` then gives
        :func:`~skdpgd.linear_model._defaults.inference_intercept_scaling`)."""
        return bool(getattr(self, "inference", False))

    def _inference_loss_and_shape(self, n_features, n_classes):
        """The estimator's loss and shape, with the plain logistic loss for ``"auto"``."""
        loss, shape = self._loss_and_shape(n_features, n_classes)
        if len(shape) != 1:
            raise ValueError(
                "inference=True supports binary logistic regression only: the softmax "
                "model's coefficients are identified only up to a shift per feature, and "
                "its Hessian releases are not implemented. Fit one binary model per class "
                "of interest (one against the rest), each with its own budget."
            )
        if getattr(self, "residual_clip", None) == "auto":
            loss = loss.inference_loss()  # the plain loss: its target is the model's
        return loss, shape

    def _check_inference_parameters(self, n_classes=None):
        """Refuse what inference does not support, from the parameters alone (public).

        A DP pipeline calls it before its ledger charge (``n_classes`` None when the label
        set is released by the pipeline): every refusal here is decided without data.
        """
        check_solver(self.solver)
        sample_bound = getattr(self, "max_sample_weight", None)
        if self._class_weight_bound() is not None or (
                sample_bound is not None and sample_bound > MAX_INFERENCE_WEIGHT):
            raise ValueError(
                "inference=True does not support sample_weight above 1 or class_weight: "
                "the sandwich of a weighted fit targets a reweighted population and its "
                "releases are bounded for row weights in [0, 1] only (max_sample_weight "
                f"<= 1, got {sample_bound!r}; class_weight "
                f"{getattr(self, 'class_weight', None)!r}). Fit unweighted, or with "
                "weights in [0, 1]."
            )
        if n_classes is not None and int(n_classes) > 2:
            self._inference_loss_and_shape(1, int(n_classes))  # the multinomial refusal
        if (is_classifier(self) and getattr(self, "residual_clip", "auto") != "auto"
                and float(self.residual_clip) != 1.0):
            curvature_and_residual_bounds(BinaryLogisticLoss(float(self.residual_clip)))

    def _table_refusal(self, n_samples, n_features, n_classes, epsilon=None, delta=None):
        """Why no table can be released for this shape (public numbers), or None.

        The rules that need the width p or the size of the label set: in a DP pipeline
        they are known only after the preparation's releases, so the pipeline fits the
        model and returns a table without intervals, with this reason
        (:class:`WithoutTable`), instead of refusing after its charge. ``epsilon`` and
        ``delta``: the fit's target (default: the parameters').
        """
        if is_classifier(self) and n_classes is not None and int(n_classes) > 2:
            try:
                self._inference_loss_and_shape(n_features, n_classes)
            except ValueError as refusal:  # the multinomial rule
                return str(refusal)
        _, coef_shape = self._inference_loss_and_shape(n_features, n_classes)
        if epsilon is None:
            epsilon, delta = check_epsilon(self.epsilon), resolve_delta(self.delta, n_samples)
        budget = fit_budget(epsilon, delta, n_samples, coef_shape[0])
        try:
            check_identifiable(n_samples, coef_shape[0], budget)
        except ValueError as refusal:
            return str(refusal)
        return None

    def _covers(self, *, threshold=None, y_range=None):
        """What the intervals cover, in words: the Huber threshold and the range of y in
        the units of the table (a DP pipeline passes those of y; default: the fit's)."""
        if is_classifier(self):
            text = COVERS_LOGISTIC
        else:
            threshold = self._residual_clip() if threshold is None else threshold
            bound = float(self.y_bound)
            low, high = (-bound, bound) if y_range is None else y_range
            text = COVERS_HUBER.format(threshold=f"{threshold:.6g}", low=f"{low:.6g}",
                                       high=f"{high:.6g}")
        return text + (COVERS_WEIGHTED if self._weight_bound() is not None else "")

    def _coefficient_names(self, n_features, classes=None, feature_names=None):
        """Row names of the table: ``feature_names`` (else ``feature_names_in_``, else
        x0, x1, ...), one block per class for a multinomial model ("label: name"); the
        intercepts are added later."""
        names = getattr(self, "feature_names_in_", None) if feature_names is None else (
            feature_names)
        names = ([f"x{j}" for j in range(n_features)] if names is None
                 else [str(name) for name in names])
        if classes is None or len(classes) <= 2:
            return names
        return [f"{label}: {name}" for label in classes for name in names]

    def _name_table(self, feature_names, notes=(), column_notes=None):
        """Name the table's rows by the columns the model saw (e.g. a pipeline's
        ``get_feature_names_out()``); the intercept rows keep their names. ``notes`` are
        added to the table's, ``column_notes`` (one per column) to its rows' (public
        facts about the preparation: a reference level, centring)."""
        table = self._fitted_table()
        if len(feature_names) != self.n_features_in_:
            raise ValueError(f"{len(feature_names)} names for {self.n_features_in_} "
                             "features.")
        names = self._coefficient_names(self.n_features_in_, getattr(self, "classes_", None),
                                        feature_names)
        row_notes = list(table.row_notes)
        if column_notes is not None:  # coef_.ravel() order: class-major for multinomial
            per_row = list(column_notes) * (len(names) // self.n_features_in_)
            row_notes[:len(per_row)] = ["; ".join(filter(None, (old, new)))
                                        for old, new in zip(row_notes, per_row, strict=False)]
        names = names + table.names[len(names):]
        kept = tuple(note for note in table.notes
                     if not note.startswith(DROPPED_NOTE.split("{")[0]))
        dropped = getattr(table, "diagnostics", {}).get("dropped")
        renamed = () if dropped is None else (dropped_note(names, dropped),)
        self._set_inference_table(table.replace(
            names=names, notes=kept + tuple(filter(None, renamed)) + tuple(notes),
            row_notes=row_notes))

    def _set_inference_table(self, table):
        """``inference_`` and what is read from it: ``coef_cov_``, ``coef_se_``,
        ``intercept_se_``, ``pvalues_`` (one place, so that a map of the table to other
        units changes all of them; the table's rows are ``coef_.ravel()``, then the
        intercepts)."""
        d = int(np.size(self.coef_))
        se = table.std_err
        self.coef_cov_ = table.covariance
        self.coef_se_ = se[:d].reshape(np.shape(self.coef_))
        intercept_se = se[d:] if self.fit_intercept else np.zeros(np.size(self.intercept_))
        self.intercept_se_ = (intercept_se.reshape(np.shape(self.intercept_))
                              if np.ndim(self.intercept_) else float(intercept_se[0]))
        self.pvalues_ = table.pvalues
        self.inference_ = table

    def conf_int(self, alpha=0.05):
        """Private Wald confidence intervals of level 1 - alpha (``inference=True``).

        Parameters
        ----------
        alpha : float, default=0.05
            1 - the coverage level, in (0, 1).

        Returns
        -------
        intervals : ndarray of shape (n_coefficients, 2)
            One row per coefficient in ``coef_.ravel()`` order, then the intercept when
            fitted: estimate -/+ z_(1-alpha/2) times the private standard error.
        """
        return self._fitted_table().conf_int(alpha)

    def summary(self, alpha=0.05, feature_names=None):
        """The private coefficient table as a pandas DataFrame (``inference=True``).

        Indexed by feature name (``feature_names``, else ``feature_names_in_``, else x0,
        x1, ...) then ``"intercept"``; columns ``coef``, ``std_err``, ``ci_low``,
        ``ci_high``, ``p_value`` and ``note`` (why a row has no interval, its units).
        ``inference_.text(alpha)`` is the same table as text, with what the intervals
        cover (``attrs["covers"]`` here) and any warning (``attrs["notes"]``).

        Parameters
        ----------
        alpha : float, default=0.05
            1 - the coverage level of ``ci_low`` and ``ci_high``, in (0, 1).
        feature_names : sequence of str, optional
            Names of the columns the model saw, e.g. ``pipeline[:-1].get_feature_names_out()``
            for the last step of a pipeline (the coefficients are in the units of those
            columns).

        Returns
        -------
        pandas.DataFrame
            One row per coefficient, then the intercept when fitted; the notes in
            ``attrs["notes"]``.
        """
        table = self._fitted_table()
        frame = table.frame(alpha)
        if feature_names is not None:
            names = [str(name) for name in feature_names]
            if len(names) != self.n_features_in_:
                raise ValueError(f"feature_names has {len(names)} names; the model has "
                                 f"{self.n_features_in_} features.")
            frame = frame.set_axis(names + list(frame.index[len(names):]), axis=0)
            frame.index.name = "coefficient"
        frame.attrs["covers"] = table.covers
        frame.attrs["notes"] = list(table.notes)
        return frame

    def _fitted_table(self):
        check_is_fitted(self)
        table = getattr(self, "inference_", None)
        if table is None:
            raise AttributeError(
                f"{type(self).__name__} was fitted with inference=False: intervals cost "
                "budget and must be asked for before the fit. Refit with inference=True."
            )
        return table
