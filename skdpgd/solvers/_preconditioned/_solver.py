r"""``solver="preconditioned"``: Gram-preconditioned noisy gradient descent.

1. Release :math:`\tilde G = \frac1n \sum_i \tilde x_i \tilde x_i^\top + E` once
   (Gaussian noise on the upper triangle; replace-one sensitivity
   :math:`\sqrt 2\,\tilde R^2/n`).
2. Build :math:`P = c\,(\tilde G + mI)_+ + \lambda I` with c the loss's curvature bound
   (1/4 logistic, 1/2 softmax, 1 Huber) and m a public bound on the noise's norm: with
   high probability P majorises the Hessian of the objective (Bohning and Lindsay
   1988; Bohning 1992 for softmax), so the step :math:`\eta = 1` is safe.
3. Run :math:`\theta_{k+1} = y_k - \eta P^{-1}(\nabla F(y_k) + \sigma Z_k)` with
   Nesterov momentum on :math:`y_k`, K steps.

Privacy is the adaptive composition of the K + 1 Gaussian releases,
:math:`\mu^2 = \mu_G^2 + K (S/(n\sigma))^2` (Dong, Roth, Su 2022, Cor. 3.3): it holds
for any step rule, so the step need not be below 2/beta; the convergent bounds of Bok
et al. do not apply to a preconditioned step and are not claimed. Planned by
:func:`skdpgd.solvers._preconditioned.plan_preconditioned_gd`. Refused for more than
``MAX_DENSE_DIM`` columns (the Gram and its eigendecomposition would cost more than
they save).
"""

import math
from dataclasses import replace

import numpy as np

from ..._data import gram_sum, single_threaded_blas
from ...accounting import preconditioned_gd_report
from ...accounting.calibration import calibrate_preconditioned_gd
from ...optim import (
    MAX_DENSE_DIM,
    GramPreconditioner,
    gram_sensitivity,
    preconditioned_noisy_gradient_descent,
    release_gram,
)
from .._base import AUTO_MAX_PASSES, Solver, projection_radius
from ._planning import (
    GRAM_SHARE,
    MAX_STEPS,
    gram_noise_margin,
    plan_preconditioned_settings,
)

__all__ = ["AUTO_GRAM_SHARES", "AUTO_MARGIN_FACTORS", "PreconditionedSolver",
           "calibrate_preconditioned", "plan_together"]

#: Gram shares s of the preconditioned candidates of ``solver="auto"``: the proxy picks
#: the share, on a factor-2 grid around the planner's default 1/4.
AUTO_GRAM_SHARES = (0.125, 0.25, 0.5)

#: Margin factors kappa of the preconditioned candidates (the preconditioner's margin in
#: units of the Gram noise bound; a convergence parameter, not a privacy one).
AUTO_MARGIN_FACTORS = (1.0, 2.0, 4.0)


class PreconditionedSolver(Solver):
    r"""Gram-preconditioned noisy gradient descent (module docstring).

    Parameters
    ----------
    gram_share : float, optional
        Share s of :math:`\mu^{*2}` spent on the Gram release (default
        :data:`~skdpgd.solvers._preconditioned.GRAM_SHARE`); ``solver="auto"``
        plans one candidate per share of ``AUTO_GRAM_SHARES`` and keeps the best.
    margin_factor : float, default=1
        kappa >= 1, the preconditioner's margin in units of the Gram noise bound m
        (:func:`~skdpgd.solvers._preconditioned.plan_preconditioned_gd`); ``"auto"``
        tries each of ``AUTO_MARGIN_FACTORS``.
    max_steps : int, optional
        Another compute budget (steps planned when ``max_iter="auto"``; default 100);
        ``"auto"`` gives every candidate the same one.
    """

    name = "preconditioned"

    #: Inference computes the noise covariance of a fixed preconditioner's run.
    supports_inference = True

    #: Its settings are candidates of ``"auto"``'s second choice, which it starts: its run
    #: releases a Gram first.
    second_choice = True
    releases_gram = True

    def __init__(self, gram_share=None, margin_factor=1.0, max_steps=None):
        self.gram_share = gram_share
        self.margin_factor = margin_factor
        self.max_steps = max_steps

    def __repr__(self):
        return (f"PreconditionedSolver(gram_share={self.gram_share}, "
                f"margin_factor={self.margin_factor}, max_steps={self.max_steps})")

    def _plan(self, problem):
        return plan_together(problem, [self])[0]

    def _report(self, plan, problem, notes):
        return preconditioned_gd_report(
            plan.gram_noise_std, plan.noise_std, plan.n_steps, delta=problem.delta,
            sensitivity=problem.sensitivity, gram_sensitivity=plan.gram_sensitivity,
            n_samples=problem.n_samples, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, curvature=plan.curvature,
            margin=plan.margin, row_norm=problem.row_norm, momentum=plan.momentum,
            notes=tuple(notes) + plan.notes,
        )

    def auto_candidates(self, problem, budgets):
        """``"auto"``'s candidates: every Gram share of ``AUTO_GRAM_SHARES`` and margin
        factor of ``AUTO_MARGIN_FACTORS`` at every budget (steps), while the augmented
        design has at most ``MAX_DENSE_DIM`` columns; none with a fixed ``learning_rate``
        or ``batch_size`` (its step is the majoriser's, its batch full)."""
        if problem.learning_rate is not None or problem.batch_size is not None:
            return ()
        if problem.gram_dim > MAX_DENSE_DIM:
            return ()
        return tuple(PreconditionedSolver(gram_share=share, margin_factor=kappa, max_steps=b)
                     for share in AUTO_GRAM_SHARES for kappa in AUTO_MARGIN_FACTORS
                     for b in budgets)

    @classmethod
    def plan_candidates(cls, problem, solvers, calibrate=False):
        """One recursion of the planner's proxy for every setting (:func:`plan_together`)."""
        return plan_together(problem, solvers, calibrate=calibrate)

    def calibrate(self, plan, problem):
        """:func:`calibrate_preconditioned`."""
        return calibrate_preconditioned(plan, problem)

    def choice_label(self, plan):
        """``"preconditioned (margin x kappa, K steps)"``."""
        return f"preconditioned (margin x{self.margin_factor:g}, {plan.n_steps} steps)"

    def spectral_run(self, plan, problem, eigenvalues, spectrum):
        """The preconditioned step on each released eigenvalue (the estimated spectrum
        unused), with its momentum; its passes are its steps."""
        floor, c = plan.margin * np.ones_like(eigenvalues), problem.curvature
        steps = plan.learning_rate / (c * np.maximum(eigenvalues + plan.margin, floor)
                                      + plan.strong_convexity)
        return dict(steps=steps, momentum=plan.momentum), float(plan.n_steps)

    def run_after_gram(self, row_sums, data, released, plan, rng, callback=None):
        """The run on the released Gram (the probe and the top-up combined), on the Gram
        pass's engine (:meth:`descend`)."""
        coef, _ = self.descend(row_sums, data, released, plan, rng, callback)
        return coef

    def gram_settings(self, problem, share, found, settings, budgets):
        """The pick's settings (its Gram share, every margin factor) at every budget of
        ``budgets``, calibrated: those ``settings`` holds (the first choice's, at its
        budget) and the others planned here (each the plan its solver gives alone)."""
        if settings is None:
            settings = plan_together(problem, [
                solver for solver in found(problem)
                if type(solver) is type(self) and solver.gram_share == share])
        else:
            settings = [plan.solver.calibrate(plan, problem) for plan in settings
                        if plan.gram_share == share]
        have = {plan.solver.max_steps for plan in settings}
        more = [PreconditionedSolver(gram_share=share, margin_factor=kappa, max_steps=budget)
                for budget in budgets if budget not in have
                for kappa in sorted({plan.solver.margin_factor for plan in settings})]
        return settings + (plan_together(problem, more) if more else [])

    def _prediction_run(self, plan, problem):
        """(label, passes, run) of the proxy (:func:`~skdpgd.solvers._utility.predict_runs`)."""
        c, lam, eta = plan.curvature, plan.strong_convexity, plan.learning_rate
        margin = plan.margin
        run = dict(
            n_steps=plan.n_steps, noise_std=plan.noise_std,
            step=lambda g, shift: eta / (c * (g + margin + shift) + lam),
            strong_convexity=lam, momentum=plan.momentum,
            spread=2.0 * plan.gram_noise_std * math.sqrt(problem.gram_dim),
        )
        run["key"] = ("preconditioned", c, lam, eta, margin, plan.momentum, run["spread"])
        label = f"preconditioned (Gram share {plan.gram_share:g}"
        label += "" if self.margin_factor == 1.0 else f", margin x{self.margin_factor:g}"
        if self.max_steps is not None and self.max_steps < AUTO_MAX_PASSES:  # auto's budget
            label += f", at most {self.max_steps} steps"
        label += ")"
        # the Gram pass costs about d/k gradient passes (d^2 against d k per row)
        return label, plan.n_steps + problem.gram_dim / problem.n_outputs, run

    def _run(self, data, loss, plan, rng, callback):
        return self.run_released(data, loss, plan, rng, callback)[0]

    def run_released(self, data, loss, plan, rng, callback=None):
        """The run, and the preconditioner P it built from its released Gram."""
        n_samples = data.n_samples
        row_sums = data.row_sums(loss.gradient_sum)
        with single_threaded_blas(), row_sums:  # the data are placed once for both passes
            gram = gram_sum(row_sums, n_samples, data.coef_shape[-1])  # symmetric
            released = release_gram(gram, n_samples, plan.gram_noise_std, rng)
            return self.descend(row_sums, data, released, plan, rng, callback)

    def descend(self, row_sums, data, released, plan, rng, callback=None):
        """The K noisy preconditioned steps on an already released Gram (step 3).

        Parameters
        ----------
        row_sums : row-sum engine
            ``data.row_sums(loss.gradient_sum)``, already entered.
        data : FitData
            As in ``run`` (n and the shape of theta).
        released : ndarray of shape (d, d)
            The released Gram (:func:`~skdpgd.optim.release_gram`, with ``plan``'s tau).
        plan : PreconditionedGDPlan
            As in ``run``.
        rng : numpy.random.Generator
            As in ``run``.
        callback : callable, optional
            As in ``run``.

        Returns
        -------
        coef : ndarray
            The last iterate.
        preconditioner : ndarray of shape (d, d)
            P as a dense matrix.
        """
        n_samples, lam = data.n_samples, plan.strong_convexity
        preconditioner = GramPreconditioner(
            released, curvature=plan.curvature, margin=plan.margin, strong_convexity=lam
        )

        def gradient(coef):
            return row_sums.sum(coef) / n_samples + lam * coef

        coef = preconditioned_noisy_gradient_descent(
            gradient, np.zeros(data.coef_shape), preconditioner=preconditioner,
            learning_rate=plan.learning_rate, noise_std=plan.noise_std,
            n_steps=plan.n_steps, rng=rng, momentum=plan.momentum,
            tolerance=plan.tolerance, max_norm=plan.projection_radius, callback=callback,
        )
        return coef, preconditioner.matrix()


def plan_together(problem, solvers, calibrate=True):
    """The plans of several :class:`PreconditionedSolver` on one problem, scored together.

    ``solver="auto"`` plans its nine preconditioned candidates (Gram shares x margin
    factors, at each compute budget) in one recursion of the planner's proxy
    (:func:`~skdpgd.solvers._preconditioned.plan_preconditioned_settings`); each
    plan is the one ``solver.plan(problem)`` gives, each solver keeping its ``max_steps``.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    solvers : list of PreconditionedSolver
        The settings to plan.
    calibrate : bool, default=True
        False: the noise of each plan at its closed form before the accountant's
        conservative rounding, enough to score it (:func:`calibrate_preconditioned` then
        calibrates the winner only).

    Returns
    -------
    list of PreconditionedGDPlan
        One per solver, naming it (``plan.solver``).
    """
    if problem.learning_rate is not None or problem.batch_size is not None:
        raise ValueError(
            "solver='preconditioned' chooses its own step (the majoriser step 1) and uses "
            "full batches; leave learning_rate and batch_size at 'auto'."
        )
    if problem.gram_dim > MAX_DENSE_DIM:
        raise ValueError(
            f"solver='preconditioned' needs a {problem.gram_dim} x {problem.gram_dim} Gram "
            f"matrix, above its limit of {MAX_DENSE_DIM} columns; use solver='cyclic' "
            "(or 'auto', which does so)."
        )
    budgets = [MAX_STEPS if solver.max_steps is None else solver.max_steps
               for solver in solvers]
    s_g = gram_sensitivity(problem.row_norm)  # once per plan: the run's report reuses it
    # a fixed number of passes is that number: the planner calibrates for it, once
    if problem.max_iter is not None:
        kwargs = {"max_steps": problem.max_iter, "n_steps": problem.max_iter}
    else:
        kwargs = {"budgets": budgets}
    plans = plan_preconditioned_settings(
        problem.epsilon, problem.delta,
        settings=[(GRAM_SHARE if solver.gram_share is None else solver.gram_share,
                   solver.margin_factor) for solver in solvers],
        sensitivity=problem.sensitivity, gram_sensitivity=s_g, curvature=problem.curvature,
        n_samples=problem.n_samples, gram_dim=problem.gram_dim, n_params=problem.n_params,
        initial_distance=problem.largest_distance, strong_convexity=problem.strong_convexity,
        calibrate=calibrate, **kwargs,
    )
    return [replace(plan, solver=solver,
                    smoothness=problem.data_smoothness + plan.strong_convexity,
                    projection_radius=projection_radius(problem, plan.strong_convexity))
            for plan, solver in zip(plans, solvers, strict=True)]


def calibrate_preconditioned(plan, problem):
    """``plan`` (of ``plan_together(..., calibrate=False)``) with its noise calibrated.

    Parameters
    ----------
    plan : PreconditionedGDPlan
        A plan whose tau and sigma are the closed forms before calibration.
    problem : PublicProblem
        The public numbers it was planned from.

    Returns
    -------
    PreconditionedGDPlan
        The plan ``plan.solver.plan(problem)`` gives.
    """
    tau, sigma = calibrate_preconditioned_gd(
        problem.epsilon, problem.delta, gram_share=plan.gram_share, n_steps=plan.n_steps,
        sensitivity=problem.sensitivity, gram_sensitivity=plan.gram_sensitivity,
        n_samples=problem.n_samples,
    )
    margin = plan.solver.margin_factor * gram_noise_margin(tau, problem.gram_dim)
    return replace(plan, noise_std=sigma, gram_noise_std=tau, margin=margin)
