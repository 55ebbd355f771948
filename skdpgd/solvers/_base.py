r"""The solver interface and the public numbers a solver plans from.

Every solver has the same three methods, so that a new optimizer is one module:

* ``plan(problem) -> plan``: a pure, cached function of the public numbers of a fit
  (:class:`PublicProblem`: n, d, the loss's public constants, the privacy target and the
  user's hyperparameters) choosing every run parameter (regularisation, steps, batch
  size, noise). Nothing here sees data.
* ``report(plan, problem, notes) -> PrivacyReport``: the guarantee of that run, from the
  accountant that applies to it (:mod:`skdpgd.accounting`).
* ``run(data, loss, plan, rng, callback) -> theta``: the run itself, on the row sums of
  :class:`~skdpgd._data._fit_data.FitData`; only the last iterate is returned.

``max_iter`` has one unit for all solvers: **passes over the data** (epochs). A full-batch
step is one pass; one epoch of cyclic or sampled mini-batches is about one pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._capabilities import Capabilities
from ._utility import Prediction, predict_runs

if TYPE_CHECKING:  # annotations only
    import numpy as np

    from ..accounting import PrivacyReport

__all__ = [
    "AUTO_MAX_PASSES", "PublicProblem", "Solver", "check_learning_rate", "projection_radius",
]

#: Passes "auto" plans for with mini-batches: the point of mini-batches is to need fewer
#: passes than full batch.
AUTO_MAX_PASSES = 50


@dataclass(frozen=True)
class PublicProblem:
    """The public numbers a solver plans from (hashable: plans are cached on it).

    Attributes
    ----------
    epsilon : float or None
        The privacy target's epsilon; None when the target is ``mu``.
    delta : float
        The delta at which the run's epsilon is reported (and, with ``epsilon``, the
        target's).
    n_samples, n_params : int
        n and the number p of coordinates of theta.
    sensitivity, gradient_bound, data_smoothness : float
        S (replace-one sensitivity of a per-example gradient), G (bound on its norm) and
        beta_l (smoothness of the data term), from the loss and the row-norm bound Rt.
    initial_distance : float
        r0, the public guess of the optimum's norm (the geometric mean of its public range,
        :func:`~skdpgd.linear_model._defaults.initial_distance`).
    largest_distance : float
        The upper end of that range
        (:func:`~skdpgd.solvers._utility.concentrated_initial_distance`), which the
        preconditioned planner uses: too few steps there cost far more than too many.
    strong_convexity, learning_rate : float or None
        lam and eta if the user fixed them, else None ("auto").
    max_iter, batch_size : int or None
        Passes over the data and batch size if fixed, else None.
    row_norm : float
        Rt, the public bound on the norm of an augmented row.
    n_outputs : int
        1 for a scalar model, k for softmax (theta is k x p/k).
    intercept_scaling : float or None
        b, the public constant of the intercept column (None without an intercept).
    scale_free_score : bool
        True when the estimator's score depends on theta only through its direction
        (a classifier's accuracy): ``solver="auto"`` then predicts the excess loss of the
        best rescaling of theta (:mod:`skdpgd.solvers._utility`).
    max_coef_norm : float or None
        r, the user's public radius of the ball every iterate is projected onto (coefficients
        and intercept column together), or None (``projection_radius``).
    zero_loss_bound : float
        f_0, a public bound on the data term at theta = 0 (``inf`` when none is known).
    mu : float or None
        The target as a Gaussian-DP allowance (``epsilon`` None): what a DP pipeline hands
        its estimator, planned without a conversion by a solver that declares
        ``plans_in_mu``; None: the target is ``(epsilon, delta)``.
    sampling : str
        How ``solver="sgd"`` draws its batches: ``"poisson"`` (the default) or
        ``"uniform"`` (b distinct rows each step); every other solver plans for
        ``"poisson"`` only (the estimators refuse the rest before any value is read).
    """

    epsilon: float
    delta: float
    n_samples: int
    n_params: int
    sensitivity: float
    gradient_bound: float
    data_smoothness: float
    initial_distance: float
    largest_distance: float = math.nan
    strong_convexity: float | None = None
    learning_rate: float | None = None
    max_iter: int | None = None
    batch_size: int | None = None
    row_norm: float = math.nan
    n_outputs: int = 1
    intercept_scaling: float | None = None
    scale_free_score: bool = False
    max_coef_norm: float | None = None
    zero_loss_bound: float = math.inf
    mu: float | None = None
    sampling: str = "poisson"

    @property
    def gram_dim(self) -> int:
        """Columns of the augmented design (features + intercept column)."""
        return self.n_params // self.n_outputs

    @property
    def curvature(self) -> float:
        r"""c = beta_l / Rt^2: the loss's bound on l'' (1/4, 1/2 or 1)."""
        return self.data_smoothness / self.row_norm**2


def check_learning_rate(eta: float, smoothness: float) -> None:
    """Refuse a fixed step at or above 2/beta (GD would not contract)."""
    if not eta < 2.0 / smoothness:
        raise ValueError(
            f"learning_rate={eta!r} is >= 2/smoothness = {2.0 / smoothness:.6g}: gradient "
            "descent would not contract (and the convergent privacy bound would not "
            "apply). Use learning_rate='auto' or a smaller value."
        )


def projection_radius(problem: PublicProblem, strong_convexity: float) -> float:
    r"""The radius r of the public ball a run on ``problem`` projects onto (:ref:`projection`).

    The user's ``max_coef_norm`` when given; else, for lam > 0,
    :math:`\sqrt{2 f_0/\lambda}`, a ball that holds the regularised optimum (for a
    nonnegative data term g, :math:`\frac\lambda2\|\theta^*\|^2 \le F(\theta^*) \le F(0) =
    g(0) \le f_0`), so projecting onto it changes no optimum; ``inf`` (no projection)
    otherwise.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit (``max_coef_norm``, ``zero_loss_bound``).
    strong_convexity : float
        lam >= 0, the run's L2 regularisation.

    Returns
    -------
    float
        r > 0, or ``inf``.
    """
    if problem.max_coef_norm is not None:
        return float(problem.max_coef_norm)
    lam, bound = float(strong_convexity), float(problem.zero_loss_bound)
    if lam > 0.0 and math.isfinite(bound) and bound > 0.0:
        return math.sqrt(2.0 * bound / lam)
    return math.inf


class Solver(Capabilities):
    """Base class: ``plan`` / ``report`` / ``run`` (see the module docstring).

    A subclass sets :attr:`name` and defines ``_plan(problem)``, ``_report(plan, problem,
    notes)`` and ``_run(data, loss, plan, rng, callback)``; registering it
    (:func:`skdpgd.solvers.register`) makes it a ``solver=`` of every estimator.

    What else it supports (its report's currency, private inference, its candidates of
    ``"auto"`` and their utility prediction, ``"auto"``'s second choice) it declares on
    :class:`~skdpgd.solvers._capabilities.Capabilities`; the rest of the package reads
    those declarations, never a solver's class or name.
    """

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(vars(self).items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def plan(self, problem: PublicProblem) -> Any:
        """The run plan for ``problem`` (cached: a pure function of public numbers).

        Parameters
        ----------
        problem : PublicProblem
            The public numbers of the fit.

        Returns
        -------
        plan
            A frozen dataclass of run parameters with at least ``solver``,
            ``strong_convexity``, ``n_steps`` and ``notes``.
        """
        return _cached_plan(self, problem)

    def _plan(self, problem: PublicProblem) -> Any:
        raise NotImplementedError  # pragma: no cover - abstract

    def report(self, plan: Any, problem: PublicProblem,
               notes: tuple[str, ...] = ()) -> PrivacyReport:
        """The privacy report of ``plan``, from the accountant that covers the run.

        Parameters
        ----------
        plan : dataclass
            What :meth:`plan` returned for ``problem``.
        problem : PublicProblem
            The public numbers of the fit.
        notes : tuple of str, default=()
            Lines for the report's ``notes`` (the plan's own notes are appended).

        Returns
        -------
        report : skdpgd.PrivacyReport
            The accountant's report class for this run.
        """
        return self._report(plan, problem, tuple(notes))

    def _report(self, plan: Any, problem: PublicProblem,
                notes: tuple[str, ...]) -> PrivacyReport:
        raise NotImplementedError  # pragma: no cover - abstract

    def predict(self, plan: Any, problem: PublicProblem) -> Prediction | None:
        """The predicted excess loss of ``plan`` and its cost (``solver="auto"``'s proxy).

        Parameters
        ----------
        plan : dataclass
            What :meth:`plan` returned for ``problem``.
        problem : PublicProblem
            The public numbers of the fit.

        Returns
        -------
        Prediction or None
            :class:`~skdpgd.solvers._utility.Prediction` from public numbers only, or None
            for a solver that is not a candidate of ``"auto"``.
        """
        return self._predict(plan, problem)

    def _predict(self, plan: Any, problem: PublicProblem) -> Prediction | None:
        # the declared utility prediction's run, scored by the one proxy; None for a
        # solver that declares none (not a candidate of "auto")
        if type(self)._prediction_run is Capabilities._prediction_run:
            return None
        return predict_runs(problem, [self._prediction_run(plan, problem)])[0]

    def run(self, data: Any, loss: Any, plan: Any, rng: np.random.Generator,
            callback: Callable[[int], object] | None = None) -> np.ndarray:
        """Run ``plan`` on ``data``; only the last iterate leaves.

        Parameters
        ----------
        data : FitData
            The fit's data, reachable as row sums only.
        loss : skdpgd.losses loss
            The loss whose ``gradient_sum`` the row sums evaluate.
        plan : dataclass
            What :meth:`plan` returned.
        rng : numpy.random.Generator
            The fit's only source of randomness (noise, partitions, samples).
        callback : callable, optional
            Called with the step index after each step (never sees an iterate).

        Returns
        -------
        coef : ndarray of shape ``data.coef_shape``
            The last iterate.
        """
        return self._run(data, loss, plan, rng, callback)

    def _run(self, data: Any, loss: Any, plan: Any, rng: np.random.Generator,
             callback: Callable[[int], object] | None) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def run_chosen(self, data: Any, loss: Any, plan: Any, report: PrivacyReport,
                   rng: np.random.Generator, callback: Callable[[int], object] | None = None
                   ) -> tuple[np.ndarray, Any, PrivacyReport]:
        """Like :meth:`run`, and the plan and report of the run that ran.

        A solver that chooses its run after an accounted release (``"auto"`` on a
        released Gram, :mod:`skdpgd.solvers._spectral`) returns the chosen run's plan and
        the charged report naming it (same guarantee: the choice is post-processing);
        every other solver returns ``plan`` and ``report`` as they are.

        Parameters
        ----------
        data : FitData
            As in :meth:`run`.
        loss : skdpgd.losses loss
            As in :meth:`run`.
        plan : dataclass
            As in :meth:`run`.
        report : PrivacyReport
            The charged report of ``plan``.
        rng : numpy.random.Generator
            As in :meth:`run`.
        callback : callable, optional
            As in :meth:`run`.

        Returns
        -------
        coef : ndarray of shape ``data.coef_shape``
            The last iterate.
        plan : dataclass
            The plan that ran.
        report : PrivacyReport
            Its report.
        """
        return self.run(data, loss, plan, rng, callback), plan, report

    def run_released(self, data: Any, loss: Any, plan: Any, rng: np.random.Generator,
                     callback: Callable[[int], object] | None = None
                     ) -> tuple[np.ndarray, np.ndarray | None]:
        """Like :meth:`run`, and also what the run released besides its last iterate.

        Private inference (:mod:`skdpgd.inference`) needs the preconditioner a
        ``"preconditioned"`` run built from its released Gram (accounted in the run's
        report, so handing it on is post-processing).

        Parameters
        ----------
        data : FitData
            As in ``run``.
        loss : skdpgd.losses loss
            As in ``run``.
        plan : dataclass
            As in ``run``.
        rng : numpy.random.Generator
            As in ``run``.
        callback : callable, optional
            As in :meth:`run`.

        Returns
        -------
        coef : ndarray of shape ``data.coef_shape``
            The last iterate.
        preconditioner : ndarray of shape (p, p) or None
            The fixed preconditioner P of the run (None: the identity).
        """
        return self.run(data, loss, plan, rng, callback), None


@lru_cache(maxsize=512)
def _cached_plan(solver: Solver, problem: PublicProblem) -> Any:
    """A grid search or an audit that fits one public configuration many times plans once."""
    return solver._plan(problem)
