"""What a solver declares it supports: read by ``"auto"``, the pipeline and inference.

The rest of the package never tests a solver's class or name: it reads these
declarations (class attributes, and methods whose defaults say "not supported"), which a
new solver overrides where they apply (docs/architecture.md, "Adding a solver"):

* the currency of its reports (:attr:`Capabilities.reports_mu`) and of its target
  (:attr:`Capabilities.plans_in_mu`);
* private inference (:attr:`Capabilities.supports_inference`);
* the candidates it offers ``solver="auto"``, a fixed ``batch_size`` or
  ``learning_rate`` honoured (:meth:`Capabilities.auto_candidates`), planned together
  (:meth:`Capabilities.plan_candidates`, :meth:`Capabilities.calibrate`) and scored by one
  utility prediction (:meth:`Capabilities._prediction_run`);
* ``"auto"``'s second choice on a released Gram (:attr:`Capabilities.second_choice`,
  :attr:`Capabilities.releases_gram` and their methods).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

__all__ = ["Capabilities", "plan_candidates"]


class Capabilities:
    """The declarations of a solver, with the defaults of a solver that declares nothing
    beyond a Gaussian-DP report (module docstring); :class:`~skdpgd.solvers.Solver`
    derives from it."""

    #: The ``solver=`` string of this solver.
    name: str | None = None

    #: Whether every report of this solver is Gaussian DP (has a ``mu``): the declared
    #: capability that ``DPPipeline`` (its fit, ``plan_privacy``, ``prepare``) and
    #: ``DPSearchCV`` read to admit a solver before any charge, and that ``skdpgd
    #: account`` reads to compare against composition (False for sampled SGD).
    reports_mu: ClassVar[bool] = True

    #: Whether the solver plans from a Gaussian-DP target (``PublicProblem.mu``) as well as
    #: from ``(epsilon, delta)``: an estimator handed an allowance in mu (a DP pipeline's)
    #: then passes it on unconverted; to a solver without it, it passes the allowance's
    #: epsilon at the fit's delta.
    plans_in_mu: ClassVar[bool] = False

    #: Whether ``inference=True`` runs this solver: the linearised noise covariance of its
    #: run is computed (:mod:`skdpgd.inference`) and :meth:`run_released` hands on what
    #: it needs. :func:`skdpgd.inference.check_solver` reads it.
    supports_inference: ClassVar[bool] = False

    #: Whether ``"auto"``'s second choice (:mod:`skdpgd.solvers._spectral`) may run this
    #: solver's candidates, chosen on a released spectrum: it then defines
    #: :meth:`spectral_run`, :meth:`choice_label` and :meth:`run_after_gram`.
    second_choice: ClassVar[bool] = False

    #: Whether the run first releases a noisy Gram of the design (then its plans carry
    #: ``gram_share``, ``gram_noise_std`` and ``gram_sensitivity``, its reports
    #: ``steps_mu``, and it defines :meth:`gram_settings`): where ``"auto"`` picks such a
    #: candidate, it chooses again on that Gram.
    releases_gram: ClassVar[bool] = False

    def auto_candidates(self, problem: Any, budgets: Sequence[int]) -> tuple[Any, ...]:
        """The solver objects this solver adds to ``"auto"``'s candidates on ``problem``.

        Each must have a utility prediction (:meth:`_prediction_run`). ``"auto"`` asks
        every registered solver, in registration order
        (:func:`skdpgd.solvers._auto.candidates`); a fixed ``learning_rate`` or
        ``batch_size`` of ``problem`` is the solver's to honour (or to offer nothing).

        Parameters
        ----------
        problem : PublicProblem
            The public numbers of the fit.
        budgets : list of int
            The compute budgets, ascending (passes; steps for a Gram-releasing solver).

        Returns
        -------
        tuple of Solver
            Empty on the base: not a candidate of ``"auto"``.
        """
        return ()

    @classmethod
    def plan_candidates(cls, problem: Any, solvers: Sequence[Any],
                        calibrate: bool = False) -> list[Any]:
        """The plans of several candidates of this class on one problem.

        A solver whose candidates share one search overrides it (the cyclic grid, the
        preconditioned table); with ``calibrate`` False a plan's noise may be a closed form
        before the accountant's rounding, enough to score it, and :meth:`calibrate` then
        gives the plan ``solver.plan(problem)`` gives.

        Parameters
        ----------
        problem : PublicProblem
            The public numbers of the fit.
        solvers : list of Solver
            Candidates of this class.
        calibrate : bool, default=False
            Calibrate every plan's noise exactly.

        Returns
        -------
        list of dataclass
            One plan per solver, in order; the base plans each alone (calibrated).
        """
        return [solver.plan(problem) for solver in solvers]

    def calibrate(self, plan: Any, problem: Any) -> Any:
        """The plan :meth:`plan` gives, from one of :meth:`plan_candidates` (uncalibrated).

        Parameters
        ----------
        plan : dataclass
            A plan of :meth:`plan_candidates` with ``calibrate=False``.
        problem : PublicProblem
            The public numbers it was planned from.

        Returns
        -------
        dataclass
            The calibrated plan; the base returns ``plan`` (planned calibrated).
        """
        return plan

    def _prediction_run(self, plan: Any, problem: Any) -> tuple[str, float, dict[str, Any]]:
        """``(label, passes, run)`` of the utility proxy (:func:`~._utility.predict_runs`):
        what ``"auto"`` scores a candidate by, every candidate by the same proxy."""
        raise NotImplementedError(f"{type(self).__name__} declares no utility prediction.")

    def choice_label(self, plan: Any) -> str:
        """The candidate's name in the notes of ``"auto"``'s second choice.

        Parameters
        ----------
        plan : dataclass
            One of its plans.

        Returns
        -------
        str
            The base: the solver's :attr:`name`.
        """
        return str(self.name)

    def spectral_run(self, plan: Any, problem: Any, eigenvalues: Any,
                     spectrum: Any) -> tuple[dict[str, Any], float]:
        """The proxy's run of ``plan`` on a released spectrum (:attr:`second_choice`).

        Parameters
        ----------
        plan : dataclass
            A candidate's plan.
        problem : PublicProblem
            The public numbers of the fit.
        eigenvalues : ndarray of shape (d,)
            The released Gram's eigenvalues.
        spectrum : ndarray of shape (d,)
            Their estimate of the design's spectrum
            (:func:`~skdpgd.solvers._spectral_utility.estimate_spectrum`).

        Returns
        -------
        run : dict
            The keywords ``steps``, and ``momentum`` or ``extra``, of
            :func:`~skdpgd.solvers._spectral_utility.spectral_excess_loss`.
        passes : float
            Its compute cost.
        """
        raise NotImplementedError(f"{type(self).__name__} is no candidate of a second choice.")

    def run_after_gram(self, row_sums: Any, data: Any, released: Any, plan: Any, rng: Any,
                       callback: Callable[[int], object] | None = None) -> Any:
        """Run ``plan`` within the second choice's engine, or None to run it afterwards.

        Parameters
        ----------
        row_sums : row-sum engine
            The engine of the Gram pass (entered).
        data : FitData
            As in :meth:`~skdpgd.solvers.Solver.run`.
        released : ndarray of shape (d, d) or None
            The released Gram (None unless :attr:`releases_gram`).
        plan : dataclass
            As in :meth:`~skdpgd.solvers.Solver.run`.
        rng : numpy.random.Generator
            As in :meth:`~skdpgd.solvers.Solver.run`.
        callback : callable, optional
            As in :meth:`~skdpgd.solvers.Solver.run`.

        Returns
        -------
        ndarray or None
            The last iterate; None on the base (the caller then calls ``run``, on the
            solver's own row sets, after the engine is left).
        """
        return None

    def gram_settings(self, problem: Any, share: float, found: Callable[[Any], list[Any]],
                      settings: Sequence[Any] | None, budgets: Sequence[int]) -> list[Any]:
        """The Gram-releasing candidates a second choice on share ``share`` runs among.

        Parameters
        ----------
        problem : PublicProblem
            The public numbers of the fit.
        share : float
            The public pick's Gram share.
        found : callable
            ``found(problem)``: ``"auto"``'s candidates (:func:`~._auto.candidates`).
        settings : list of dataclass or None
            ``"auto"``'s Gram-releasing candidates' plans before calibration, or None.
        budgets : tuple of int
            The compute budgets of the second choice.

        Returns
        -------
        list of dataclass
            Calibrated plans (:attr:`releases_gram` only).
        """
        raise NotImplementedError(f"{type(self).__name__} releases no Gram.")


def plan_candidates(problem: Any, solvers: Sequence[Any], calibrate: bool = False) -> list[Any]:
    """The plans of ``solvers`` (candidates of any classes) on one problem, in order.

    The candidates of one class are planned together, by their class's
    :meth:`Capabilities.plan_candidates` (one search each).

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    solvers : list of Solver
        The candidates.
    calibrate : bool, default=False
        As in :meth:`Capabilities.plan_candidates`.

    Returns
    -------
    list of dataclass
        One plan per solver, in the order of ``solvers``.
    """
    groups: dict[type[Capabilities], list[Any]] = {}
    for solver in solvers:
        groups.setdefault(type(solver), []).append(solver)
    planned: dict[int, Any] = {}
    for kind, together in groups.items():
        plans = kind.plan_candidates(problem, together, calibrate=calibrate)
        planned.update(zip(map(id, together), plans, strict=True))
    return [planned[id(solver)] for solver in solvers]
