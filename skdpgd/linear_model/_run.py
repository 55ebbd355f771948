"""The run of a fit as a component: what the one fit calls at its hooks.

:meth:`~skdpgd.linear_model._base.BaseDPLinearModel._fit` writes the order of a private
fit once (public plan, admission, read and run within the allowance, check, store). What
a fit adds to its run besides the last iterate is a component with four hooks, called by
that template at fixed points:

* ``plan_cost(estimator, n_samples, n_features, n_classes, target)`` -- before any value
  is read: the component's refusals, the loss and the shape of theta, and the target of
  the run (its share, when the component releases more than the run);
* ``plan_report(solver, plan, problem, notes, loss, target)`` -- the plan that runs and
  the one report the ledger is charged (the run's, composed with the component's own
  releases);
* ``run(estimator, data, charged, rng, steps)`` -- the run and the component's releases,
  after the charge; returns the coefficients, the plan and the report of the run that ran;
* ``store(estimator)`` -- the component's fitted attributes (after the model's own).

:class:`PlainRun` is the fit without anything besides the run; private inference
(:class:`~skdpgd.linear_model._inference.Inference`) and the table refused by a pipeline
(:class:`~skdpgd.linear_model._inference.WithoutTable`) are the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # annotations only (the layers below; nothing imported at run time)
    import numpy as np

    from ..accounting import PrivacyReport
    from ..losses import BaseLoss
    from ..solvers import FitData, PublicProblem, Solver

__all__ = ["Charged", "PlainRun", "PublicLabels", "StepCounter", "Target"]


class Target(NamedTuple):
    """What a fit's run is calibrated to: ``(epsilon, delta)``, or ``mu`` at ``delta``.

    ``mu`` is set (and ``epsilon`` None) only where the fit was handed a Gaussian-DP
    allowance (a DP pipeline's estimator) and its solver plans in mu
    (``Solver.plans_in_mu``): the allowance then reaches the calibration unconverted.
    """

    epsilon: float | None
    delta: float
    mu: float | None = None


class Charged(NamedTuple):
    """What a fit planned from public numbers and charged (computed once, passed down)."""

    loss: BaseLoss
    coef_shape: tuple[int, ...]
    problem: PublicProblem
    plan: Any  # a frozen dataclass of its solver's (plan.solver names it)
    report: PrivacyReport


class PublicLabels(NamedTuple):
    """What a fit knows of its targets before the charge (public), and any early read.

    ``read`` is ``(X, codes)`` when the labels had to be read before planning (a
    classifier without ``classes`` and without a ledger: no budget to protect), else None.
    """

    n_classes: int | None = None
    notes: tuple[str, ...] = ()
    classes: Any = None
    class_weight: Any = None
    read: Any = None


class StepCounter:
    """The run's callback: counts the steps and prints progress; never sees an iterate."""

    def __init__(self, progress: Callable[[int], object] | None = None) -> None:
        self.done = 0
        self._progress = progress

    def __call__(self, step: int) -> None:
        self.done = step + 1
        if self._progress is not None:
            self._progress(step)


class PlainRun:
    """The run alone: the last iterate, at the whole target (no other release)."""

    #: Whether the component's planning takes a target in mu (an unconverted allowance).
    plans_in_mu = True

    def plan_cost(self, estimator: Any, n_samples: int, n_features: int,
                  n_classes: int | None, target: Target
                  ) -> tuple[BaseLoss, tuple[int, ...], Target]:
        """The estimator's loss and shape, and the run's target: the fit's, unchanged.

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The estimator being fitted (its parameters).
        n_samples, n_features : int
            n and d (public).
        n_classes : int or None
            The size of the public label set (None for a regressor).
        target : Target
            The fit's target.

        Returns
        -------
        loss : BaseLoss
            The loss of the run (before row weights).
        coef_shape : tuple
            The shape of theta.
        target : Target
            The target of the run.
        """
        loss, coef_shape = estimator._loss_and_shape(n_features, n_classes)
        return loss, coef_shape, target

    def plan_report(self, solver: Solver, plan: Any, problem: PublicProblem,
                    notes: tuple[str, ...], loss: BaseLoss, target: Target
                    ) -> tuple[Any, PrivacyReport]:
        """The plan and the charged report: the solver's own.

        Parameters
        ----------
        solver : skdpgd.solvers.Solver
            The fit's solver.
        plan : dataclass
            Its plan for ``problem``.
        problem : PublicProblem
            The public numbers of the run.
        notes : tuple of str
            The report's notes.
        loss : BaseLoss
            The loss of :meth:`plan_cost` (unweighted).
        target : Target
            The fit's target.

        Returns
        -------
        plan : dataclass
            The plan that runs.
        report : PrivacyReport
            What the ledger is charged.
        """
        return plan, solver.report(plan, problem, notes)

    def run(self, estimator: Any, data: FitData, charged: Charged, rng: np.random.Generator,
            steps: StepCounter) -> tuple[np.ndarray, Any, PrivacyReport]:
        """The planned run; ``"auto"`` may choose it on a released Gram (same guarantee).

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The estimator being fitted.
        data : FitData
            The fit's data, as row sums only.
        charged : Charged
            The plan and the charged report.
        rng : numpy.random.Generator
            The fit's only source of randomness.
        steps : StepCounter
            The run's callback.

        Returns
        -------
        coef : ndarray
            The last iterate (augmented coordinates).
        plan : dataclass
            The plan that ran.
        run_report : PrivacyReport
            Its report (``charged.report`` except after a choice on a released Gram).
        """
        return charged.plan.solver.run_chosen(data, charged.loss, charged.plan,
                                              charged.report, rng, callback=steps)

    def store(self, estimator: Any) -> None:
        """Nothing besides the model (the template stores the run's attributes).

        Parameters
        ----------
        estimator : BaseDPLinearModel
            The fitted estimator.
        """
