r"""``solver="cyclic"`` and ``solver="gd"``: noisy GD on a fixed partition into l batches.

.. math::

    \theta_{k+1} = \theta_k - \eta\,\big(\nabla F_{B_{k \bmod l}}(\theta_k) + \sigma Z_k\big)

Accounted by Bok, Su and Altschuler (ICML 2024), Theorem 4.5 (convergent) / 4.4
(composition); with one batch (``solver="gd"``, :func:`gd_solver`) by Theorem 4.2
(convergent) / 4.1 (composition), exact for full batches (the report also gives what
Chourasia, Ye and Shokri (2021), Corollary 1, would claim). Planned by
:func:`skdpgd.solvers.plan_noisy_cyclic_gd` (:mod:`._planning`, one planner for all l).
"""

import math
from dataclasses import replace

import numpy as np

from ... import accounting
from ..._data import single_threaded_blas
from ...accounting.calibration import check_positive
from ...optim import cyclic_partition, noisy_cyclic_gradient_descent
from .._base import AUTO_MAX_PASSES, Solver, check_learning_rate, projection_radius
from ._planning import _calibrate_cyclic, _plan_cyclic, batch_heterogeneity

__all__ = ["AUTO_CYCLIC_BATCHES", "AUTO_N_BATCHES", "CyclicSolver", "calibrate_cyclic",
           "gd_solver", "plan_cyclic_together"]

#: Numbers of batches l that batch_size="auto" tries with solver="cyclic" (b = ceil(n/l)).
AUTO_N_BATCHES = (1, 2, 4, 8, 16, 32, 64)

#: Numbers of batches of the cyclic candidates of ``solver="auto"``: every l > 1 that
#: ``solver="cyclic"`` chooses among (:data:`AUTO_N_BATCHES`), so that the proxy ranks the
#: cyclic solver's own choice too. The l the proxy prefers moves with the problem (2 on
#: Adult-2000 at epsilon 1, 8 at epsilon 4, 32 on a 40,000-row design), so that a sparser
#: grid (4 and 16, the earlier set) misses it; the four more batch sizes cost about 4 ms of
#: planning (benchmarks/README.md, "Cyclic candidates at every l").
AUTO_CYCLIC_BATCHES = tuple(l for l in AUTO_N_BATCHES if l > 1)

#: Passes over the data "auto" plans for with one batch (full-batch noisy GD). A compute
#: budget, not a privacy one: bound (A) saturates in the number of steps.
AUTO_MAX_PASSES_FULL_BATCH = 1000


class CyclicSolver(Solver):
    r"""Noisy GD on a fixed partition into l batches, visited in order every epoch.

    One planner for all l: full-batch noisy GD (``solver="gd"``) is the case l = 1,
    accounted by Bok-Su-Altschuler Theorem 4.2 (exact); l > 1 by Theorem 4.5. The
    partition is drawn from the seed and n only.

    Parameters
    ----------
    full_batch : bool
        True for ``solver="gd"`` (l = 1 and up to
        ``AUTO_MAX_PASSES_FULL_BATCH`` passes), False for ``"cyclic"`` (l from
        ``AUTO_N_BATCHES``, up to ``AUTO_MAX_PASSES`` passes).
    max_passes : int, optional
        Another compute budget (passes planned when ``max_iter="auto"``); ``solver="auto"``
        gives every candidate the same one.
    n_batches : int, optional
        Plan with l = ``n_batches`` batches only (``batch_size="auto"``), instead of the
        choice among ``AUTO_N_BATCHES``: one candidate of ``solver="auto"`` per l.
    """

    #: The planner and the calibration take a target in mu (``PublicProblem.mu``).
    plans_in_mu = True

    #: Inference computes the noise covariance of a fixed-partition run.
    supports_inference = True

    #: Its runs are candidates of ``"auto"``'s second choice (they release no Gram).
    second_choice = True

    def __init__(self, full_batch=False, max_passes=None, n_batches=None):
        self.full_batch = bool(full_batch)
        self.name = "gd" if self.full_batch else "cyclic"
        self.max_passes = max_passes
        self.n_batches = n_batches

    def __repr__(self):
        return (f"CyclicSolver(full_batch={self.full_batch}, max_passes={self.max_passes}, "
                f"n_batches={self.n_batches})")

    def _max_epochs(self, problem):
        """The passes planned: ``max_iter`` when fixed, else this solver's budget."""
        if problem.max_iter is not None:
            return problem.max_iter
        if self.max_passes is not None:
            return self.max_passes
        return AUTO_MAX_PASSES_FULL_BATCH if self.full_batch else AUTO_MAX_PASSES

    def _batch_sizes(self, problem):
        n = problem.n_samples
        if self.full_batch:
            return (n,)
        if problem.batch_size is not None:
            return (min(problem.batch_size, n),)
        if self.n_batches is not None:
            return (-(-n // min(self.n_batches, n)),)
        return tuple(sorted({-(-n // l) for l in AUTO_N_BATCHES if l <= n}))

    def _plan(self, problem):
        if self.full_batch and problem.batch_size is not None:
            raise ValueError(
                f"solver='gd' uses full batches; batch_size={problem.batch_size} would be "
                "ignored: leave it at 'auto', or use solver='cyclic' for mini-batches.")
        return plan_cyclic_together(problem, [self], calibrate=True)[0]

    def _report(self, plan, problem, notes):
        common = dict(
            delta=problem.delta, sensitivity=problem.sensitivity,
            n_samples=problem.n_samples, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
            notes=tuple(notes) + plan.notes, diameter=_diameter(plan),
        )
        if plan.n_batches == 1:
            return accounting.noisy_gd_report(plan.noise_std, plan.n_steps, **common)
        return accounting.noisy_cyclic_gd_report(
            plan.noise_std, plan.n_epochs, batch_size=plan.batch_size, **common
        )

    def auto_candidates(self, problem, budgets):
        """``"auto"``'s candidates: gd at every budget (``solver="gd"``), or one cyclic
        candidate per l of ``AUTO_CYCLIC_BATCHES`` and budget; with a fixed
        ``learning_rate`` or ``batch_size``, the plain-step run that honours it (gd without
        a fixed batch size, cyclic with one)."""
        if problem.learning_rate is not None or problem.batch_size is not None:
            if self.full_batch != (problem.batch_size is None):
                return ()
            full = self.full_batch
            return (CyclicSolver(full_batch=full, max_passes=None if full else AUTO_MAX_PASSES),)
        if self.full_batch:
            return tuple(CyclicSolver(full_batch=True, max_passes=b) for b in budgets)
        return tuple(CyclicSolver(n_batches=l, max_passes=b)
                     for l in AUTO_CYCLIC_BATCHES if l < problem.n_samples for b in budgets)

    @classmethod
    def plan_candidates(cls, problem, solvers, calibrate=False):
        """One search of the planner's grid for all (:func:`plan_cyclic_together`)."""
        return plan_cyclic_together(problem, solvers, calibrate=calibrate)

    def calibrate(self, plan, problem):
        """:func:`calibrate_cyclic`."""
        return calibrate_cyclic(plan, problem)

    def choice_label(self, plan):
        """``"gd"`` or ``"cyclic (l batches)"``."""
        return f"cyclic ({plan.n_batches} batches)" if plan.n_batches > 1 else "gd"

    def spectral_run(self, plan, problem, eigenvalues, spectrum):
        """The constant step eta on every direction (the released eigenvalues unused),
        and the batches' heterogeneity; its passes are its epochs."""
        return (dict(steps=np.full(spectrum.shape, plan.learning_rate),
                     extra=_heterogeneity(plan, problem)), float(plan.n_epochs))

    def run_after_gram(self, row_sums, data, released, plan, rng, callback=None):
        """A full-batch run on the Gram pass's engine (one per fit, :meth:`descend`); None
        for l > 1 (run on its own row sets afterwards)."""
        if plan.n_batches != 1:
            return None
        return self.descend(row_sums, data, plan, rng, callback)

    def _prediction_run(self, plan, problem):
        """(label, passes, run) of the proxy (:func:`~skdpgd.solvers._utility.predict_runs`)."""
        extra = _heterogeneity(plan, problem)
        label = self.name
        if plan.n_batches > 1:
            label = f"cyclic ({plan.n_batches} batches)"
        if self.max_passes is not None and self.max_passes != AUTO_MAX_PASSES:  # a budget
            label = (f"{label[:-1]}, " if label.endswith(")") else f"{label} (")
            label += f"at most {self.max_passes} passes)"
        eta = plan.learning_rate
        run = dict(n_steps=plan.n_steps, noise_std=plan.noise_std,
                   step=lambda g, shift: np.full(np.shape(g), eta),
                   strong_convexity=plan.strong_convexity, extra=extra,
                   key=("plain", eta, plan.strong_convexity))
        return label, float(plan.n_epochs), run

    def _run(self, data, loss, plan, rng, callback):
        n_samples = data.n_samples
        if plan.n_batches == 1:
            batches, sizes = (), [n_samples]
        else:  # the partition: from the seed and n only (bound (C))
            batches = cyclic_partition(n_samples, plan.batch_size, rng)
            sizes = [len(batch) for batch in batches]
        row_sums = data.row_sums(loss.gradient_sum, batches)
        with single_threaded_blas(), row_sums:
            return self.descend(row_sums, data, plan, rng, callback, batches, sizes)

    def descend(self, row_sums, data, plan, rng, callback=None, batches=(), sizes=None):
        """The run on an entered row-sum engine (full batch: any engine over all rows).

        ``solver="auto"``'s second choice runs a full-batch winner on the engine of its
        Gram pass (:mod:`skdpgd.solvers._spectral`): the same sums, one engine per fit.

        Parameters
        ----------
        row_sums : row-sum engine
            ``data.row_sums(loss.gradient_sum, batches)``, already entered.
        data : FitData
            As in ``run`` (n and the shape of theta).
        plan : NoisyCyclicGDPlan
            As in ``run``.
        rng : numpy.random.Generator
            As in ``run``.
        callback : callable, optional
            As in ``run``.
        batches : sequence of ndarray, default=()
            The cyclic partition (empty: full batch).
        sizes : list of int, optional
            The batches' sizes (default: n, full batch).

        Returns
        -------
        coef : ndarray
            The last iterate.
        """
        lam = plan.strong_convexity
        sizes = [data.n_samples] if sizes is None else sizes

        def batch_gradient(coef, j):
            total = row_sums.sum(coef, j if batches else None)
            return total / sizes[j] + lam * coef

        return noisy_cyclic_gradient_descent(
            batch_gradient, np.zeros(data.coef_shape), n_batches=plan.n_batches,
            learning_rate=plan.learning_rate, noise_std=plan.noise_std,
            n_epochs=plan.n_epochs, rng=rng, max_norm=plan.projection_radius,
            callback=callback,
        )


def plan_cyclic_together(problem, solvers, calibrate=False):
    """The plans of several :class:`CyclicSolver` on one problem, searched together.

    ``solver="auto"`` plans its full-batch and cyclic candidates (one batch size each) in
    one search of the planner's grid (lam x eta x E per batch size); each plan is the one
    ``solver.plan(problem)`` gives, but for its noise when ``calibrate`` is False: the
    closed form of bound (C) before the accountant's conservative rounding, enough to
    score the candidate (:func:`calibrate_cyclic` then calibrates the winner only). Each
    solver keeps its own compute budget (passes).

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    solvers : list of CyclicSolver
        The candidates.
    calibrate : bool, default=False
        Calibrate every plan's noise exactly (what ``solver.plan`` does).

    Returns
    -------
    list of NoisyCyclicGDPlan
        One per solver, naming it (``plan.solver``).
    """
    budgets = [solver._max_epochs(problem) for solver in solvers]
    sizes = [solver._batch_sizes(problem) for solver in solvers]
    lam, eta = problem.strong_convexity, problem.learning_rate
    beta_l = check_positive("data_smoothness", problem.data_smoothness,
                            allow_zero=lam is not None)
    common = dict(
        sensitivity=problem.sensitivity, gradient_bound=problem.gradient_bound,
        n_samples=problem.n_samples, n_params=problem.n_params,
        data_smoothness=beta_l, initial_distance=problem.initial_distance,
        learning_rate=eta, max_epochs=max(budgets), calibrate=calibrate,
        # a fixed number of passes is that number: the noise is calibrated for it, once
        n_epochs=problem.max_iter,
    )
    if lam is None:  # the regularisation's grid (plan_noisy_cyclic_gd_regularization's)
        lams = beta_l * np.logspace(-8, 0, 41)
    else:  # lam = 0 only on a user's ball (the estimators refuse it without one)
        lams = [check_positive("strong_convexity", lam,
                               allow_zero=problem.max_coef_norm is not None)]
    # the diameter of each lam's ball (docs/theory.md#projection): the bounded-domain
    # bounds join the minimum the noise is calibrated to
    common["diameter_of"] = lambda lam: 2.0 * projection_radius(problem, lam)
    target = (problem.epsilon, problem.delta)
    common["mu"] = problem.mu  # a target in mu (an allowance) is planned unconverted
    if len(solvers) == 1:  # the solver's own choice among its batch sizes
        plans = [_plan_cyclic(*target, lams=lams, batch_sizes=sizes[0], **common)]
    else:  # one batch size each: the winner of every (batch size, budget) of one search
        if any(len(choice) != 1 for choice in sizes):
            raise ValueError("cyclic solvers planned together have one batch size each.")
        found = _plan_cyclic(*target, lams=lams, batch_sizes=[b for (b,) in sizes],
                             each=True, budgets=budgets, **common)
        plans = [found[choice[0], budget] for choice, budget in zip(sizes, budgets, strict=True)]
    if eta is not None:  # once, against the planned objective's smoothness beta_l + lam
        for plan in plans:
            check_learning_rate(eta, plan.smoothness)
    return [replace(plan, solver=solver,
                    projection_radius=projection_radius(problem, plan.strong_convexity))
            for plan, solver in zip(plans, solvers, strict=True)]


def calibrate_cyclic(plan, problem):
    """``plan`` (of :func:`plan_cyclic_together`) with its noise calibrated by the accountant.

    Parameters
    ----------
    plan : NoisyCyclicGDPlan
        A plan whose noise is the closed form before calibration.
    problem : PublicProblem
        The public numbers it was planned from.

    Returns
    -------
    NoisyCyclicGDPlan
        The plan ``plan.solver.plan(problem)`` gives.
    """
    return _calibrate_cyclic(plan, problem.epsilon, problem.delta, problem.sensitivity,
                             problem.n_samples, _diameter(plan), mu=problem.mu)


def _heterogeneity(plan, problem):
    """The proxy's batch heterogeneity term of the plan (0 for one batch)."""
    if plan.n_batches == 1:
        return 0.0
    return batch_heterogeneity(plan.learning_rate, gradient_bound=problem.gradient_bound,
                               batch_size=plan.batch_size, n_samples=problem.n_samples)


def _diameter(plan):
    """D = 2r of the plan's ball, None without one."""
    radius = plan.projection_radius
    return 2.0 * radius if math.isfinite(radius) else None


def gd_solver():
    """The ``solver="gd"`` object: :class:`CyclicSolver` with l = 1 (full batches, up to
    ``AUTO_MAX_PASSES_FULL_BATCH`` passes).

    Returns
    -------
    CyclicSolver
    """
    return CyclicSolver(full_batch=True)
