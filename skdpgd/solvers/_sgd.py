r"""``solver="sgd"``: sampled noisy SGD, Poisson (the default) or fixed-size uniform batches.

Planned by :func:`skdpgd.solvers.plan_sampled_sgd` for the problem's ``sampling``.
``"poisson"``: composition with amplification by Poisson sampling, computed with
dp-accounting's PLD accountant. ``"uniform"`` (b distinct rows each step): the minimum of
composition for sampling without replacement and Altschuler-Talwar's last-iterate bound on
the ball the run projects onto (diameter 2r, r = ``projection_radius``), the noise
calibrated to that minimum. See the theory page, "Sampled SGD", and docs/sgd_bounds.md.
"""

from dataclasses import replace

import numpy as np

from .. import accounting
from .._data import single_threaded_blas
from ..optim import noisy_sampled_gradient_descent
from ._base import AUTO_MAX_PASSES, Solver, projection_radius
from ._sgd_planning import SGD_SAMPLING_RATES, plan_sampled_sgd

__all__ = ["SampledSolver"]



class SampledSolver(Solver):
    """Sampled noisy SGD (``solver="sgd"``; module docstring)."""

    name = "sgd"
    reports_mu = False

    def _plan(self, problem):
        if problem.learning_rate is not None:
            raise ValueError(
                "solver='sgd' chooses its step with its batch size; use learning_rate='auto'."
            )
        n = problem.n_samples
        if problem.batch_size is None:
            rates = SGD_SAMPLING_RATES
        else:
            rates = (min(problem.batch_size, n) / n,)
        plan = plan_sampled_sgd(
            problem.epsilon, problem.delta, gradient_bound=problem.gradient_bound,
            data_smoothness=problem.data_smoothness, n_samples=n, n_params=problem.n_params,
            initial_distance=problem.initial_distance,
            max_passes=AUTO_MAX_PASSES if problem.max_iter is None else problem.max_iter,
            strong_convexity=problem.strong_convexity, sampling_rates=tuple(rates),
            sampling=problem.sampling, exact_passes=problem.max_iter is not None,
            max_coef_norm=problem.max_coef_norm, zero_loss_bound=problem.zero_loss_bound,
        )
        return replace(plan, solver=self, gradient_bound=problem.gradient_bound,
                       projection_radius=projection_radius(problem, plan.strong_convexity))

    def _report(self, plan, problem, notes):
        # The ball the run projects onto is the domain Altschuler-Talwar reads (uniform
        # batches only; a Poisson report keeps its one bound and says why).
        uniform = plan.sampling == "uniform"
        return accounting.sampled_sgd_report(
            plan.noise_std, plan.n_steps, delta=problem.delta, sampling=plan.sampling,
            batch_size=plan.batch_size, n_samples=problem.n_samples,
            gradient_bound=plan.gradient_bound, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
            notes=tuple(notes) + plan.notes,
            diameter=2.0 * plan.projection_radius if uniform else None,
        )

    def _run(self, data, loss, plan, rng, callback):
        row_sums = data.row_sums(loss.gradient_sum)
        with single_threaded_blas(), row_sums:
            return noisy_sampled_gradient_descent(
                row_sums.sum_rows, np.zeros(data.coef_shape),
                n_samples=data.n_samples, batch_size=plan.batch_size,
                learning_rate=plan.learning_rate, noise_std=plan.noise_std,
                n_steps=plan.n_steps, rng=rng, sampling=plan.sampling,
                regularization=plan.strong_convexity, max_norm=plan.projection_radius,
                callback=callback,
            )
