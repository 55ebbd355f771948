r"""``inference=True``: private standard errors, intervals and p-values (a mixin).

The estimators' side of :mod:`skdpgd.inference` (docs/theory.md, "Private inference for
the coefficients"). With ``inference=True``:

* **before any value is read** (planning, hence the ledger's one charge): the binary
  logistic loss is the plain one (``residual_clip="auto"`` means 1; another clip is
  refused); multinomial fits, weighted fits, ``solver="sgd"`` and shapes whose Hessian
  could not stand out of its noise (:func:`skdpgd.inference.check_identifiable`) are
  refused with the reason; the budget is split between the run and three releases
  (:func:`skdpgd.inference.fit_budget`), the run is planned at its share and one report
  composes it with the gradient, Hessian and score-covariance releases
  (:func:`skdpgd.inference.compose_report`);
* **after the run**: the gradient, M and Q are released at the last iterate, one Newton
  step on the unpenalised loss gives the estimate and the sandwich its private covariance
  (:func:`skdpgd.inference.infer`). ``coef_`` and ``intercept_`` are that estimate, the
  centre of the intervals.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..inference import (
    check_identifiable,
    check_solver,
    compose_report,
    fit_budget,
    infer,
)
from ..losses import BinaryLogisticLoss, HuberLoss
from ..solvers import FitData
from ..solvers import get as get_solver
from ..utils import check_epsilon, make_generator, resolve_delta

__all__ = ["InferenceMixin"]

COVERS_LOGISTIC = (
    "intervals cover the coefficients of the logistic model on rows clipped to data_norm "
    "(the unpenalised maximum-likelihood target: one private Newton step removes the "
    "shrinkage of lam and of the unfinished run; the loss is the plain one); these are the "
    "true coefficients when "
    "P(y=1|x) is logistic in x and no row is longer than data_norm."
)
COVERS_HUBER = (
    "intervals cover the Huber-regression coefficients (threshold residual_clip_) of y "
    "clipped to [-y_bound, y_bound] on rows clipped to data_norm (one private Newton step "
    "removes the shrinkage of lam and of the unfinished run); these are the true coefficients of "
    "y = x.beta + b0 + e when e is symmetric about 0 given x, |y| <= y_bound and no row "
    "is longer than data_norm."
)


class InferenceMixin:
    """Adds ``inference=True`` to a DP linear model (module docstring)."""

    def _inference_on(self):
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
        if type(loss) is BinaryLogisticLoss and getattr(self, "residual_clip", None) == "auto":
            loss = BinaryLogisticLoss(1.0)  # the plain loss: its target is the model's
        return loss, shape

    def _plan_and_report(self, n_samples, n_features, n_classes, notes=()):
        if not self._inference_on():
            return super()._plan_and_report(n_samples, n_features, n_classes, notes)
        if self.solver != "auto":
            check_solver(self.solver)
        if self._weight_bound() is not None:
            raise ValueError(
                "inference=True does not support sample_weight or class_weight: the "
                "sandwich of a weighted fit targets a reweighted population and its "
                "releases would need the weight bound in every sensitivity. Fit unweighted."
            )
        loss, coef_shape = self._inference_loss_and_shape(n_features, n_classes)
        delta = resolve_delta(self.delta, n_samples)
        budget = fit_budget(check_epsilon(self.epsilon), delta, n_samples, coef_shape[0])
        check_identifiable(n_samples, coef_shape[0], budget)
        problem = self._problem(
            loss, n_samples, n_features, int(np.prod(coef_shape)), budget.fit_epsilon, delta
        )
        solver = get_solver(self.solver)
        plan = solver.plan(problem)  # "auto": the chosen candidate's plan, naming it
        plan = getattr(plan, "plan_without_choice", plan)  # no second choice on a Gram
        check_solver(plan.solver.name)
        covers = COVERS_HUBER if type(loss) is HuberLoss else COVERS_LOGISTIC
        run_report = solver.report(plan, problem, tuple(notes))
        report = compose_report(loss, run_report, budget, row_norm=problem.row_norm,
                                delta=delta, notes=(covers,))
        return loss, coef_shape, problem, plan, report

    def _run(self, X, y, charged):
        if not self._inference_on():
            return super()._run(X, y, charged)
        loss, plan, problem = charged.loss, charged.plan, charged.problem
        data = FitData(X, y, data_norm=self.data_norm,
                       intercept_scaling=problem.intercept_scaling,
                       coef_shape=charged.coef_shape, n_jobs=self.n_jobs)
        rng = make_generator(self.random_state)
        progress, done = self._progress(plan.n_steps), [0]

        def count(step):  # sees the step index only, never an iterate
            done[0] = step + 1
            if progress is not None:
                progress(step)

        coef, preconditioner = plan.solver.run_released(data, loss, plan, rng, callback=count)
        names = getattr(self, "feature_names_in_", None)
        names = [f"x{j}" for j in range(X.shape[1])] if names is None else list(names)
        with data.row_sums(loss.gradient_sum) as row_sums:
            table = infer(
                row_sums, loss, coef, plan=plan, report=charged.report, n_steps=done[0],
                rng=rng, preconditioner=preconditioner, names=names,
                intercept_scaling=problem.intercept_scaling, covers=charged.report.notes[0],
            )
        self._inference_table = table
        estimate = table.estimate.copy()
        if problem.intercept_scaling is not None:  # back to the augmented coordinate
            estimate[-1] /= problem.intercept_scaling
        return estimate.reshape(coef.shape), done[0], charged

    def _store_run(self, report, plan, n_steps, run_report=None):
        super()._store_run(report, plan, n_steps, run_report)
        if not self._inference_on():
            return
        table = self._inference_table
        del self._inference_table
        d = self.n_features_in_
        se = table.std_err
        self.coef_cov_ = table.covariance
        self.coef_se_ = se[:d].reshape(np.shape(self.coef_))
        intercept_se = se[d] if self.fit_intercept else 0.0
        self.intercept_se_ = (np.array([intercept_se]) if np.ndim(self.intercept_)
                              else float(intercept_se))
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
        ``ci_high``, ``p_value``. ``inference_.text(alpha)`` is the same table as text,
        with what the intervals cover and any warning (its ``attrs["notes"]`` here).

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
