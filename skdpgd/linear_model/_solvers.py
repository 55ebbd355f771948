r"""Solvers of the DP linear models: one object per optimizer, planned from public numbers.

Every solver has the same three methods, so that a new optimizer is one class:

* ``plan(problem) -> plan``: a pure, cached function of the public numbers of a fit
  (:class:`PublicProblem`: n, d, the loss's public constants, the privacy target and the
  user's hyperparameters) choosing every run parameter (regularisation, steps, batch
  size, noise). Nothing here sees data.
* ``report(plan, problem, notes) -> PrivacyReport``: the guarantee of that run, from the
  accountant that applies to it.
* ``run(data, loss, plan, rng, callback) -> theta``: the run itself, on the row sums of
  :class:`FitData`; only the last iterate is returned.

``max_iter`` has one unit for all solvers: **passes over the data** (epochs). A full-batch
step is one pass; one epoch of cyclic or sampled mini-batches is about one pass.

The solvers (see the user guide, "Solvers"):

* :class:`CyclicSolver` (``"cyclic"``, and ``"gd"`` as the one-batch case): noisy GD on a
  fixed partition into l batches visited in order; Bok, Su and Altschuler (ICML 2024),
  Theorem 4.5 (convergent) / 4.4 (composition), with Theorem 4.2 for one batch.
* :class:`SampledSolver` (``"sgd"``): Poisson-sampled noisy SGD, the minimum of the
  bounds that apply (PLD composition with amplification, Altschuler-Talwar eq. (3.3)).
* :class:`PreconditionedSolver` (``"preconditioned"``): one noisy Gram release, then K
  noisy gradient steps preconditioned by it (a private Bohning-Lindsay fixed-Hessian
  method, optionally with momentum); accounted by GDP composition (Dong, Roth, Su 2022).
* :class:`AutoSolver` (``"auto"``, the default): chooses among them from public numbers.
"""

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from .. import accounting
from .._dask import DaskRowSums, is_dask_array
from .._design import ClippedDesign
from .._gradients import ChunkedRowSums, _single_threaded_blas
from .._gram import gram_sensitivity, release_gram
from .._preconditioned import (
    MAX_DENSE_DIM,
    GramPreconditioner,
    preconditioned_noisy_gradient_descent,
)
from ..accounting._preconditioned import (
    calibrate_preconditioned_gd,
    gram_noise_margin,
    plan_preconditioned_gd,
    preconditioned_gd_report,
)
from ..accounting._sgd_planning import SGD_SAMPLING_RATES
from ..optim import (
    cyclic_partition,
    noisy_cyclic_gradient_descent,
    noisy_sampled_gradient_descent,
)

__all__ = [
    "AutoSolver",
    "CyclicSolver",
    "PreconditionedSolver",
    "FitData",
    "PublicProblem",
    "SampledSolver",
    "make_solver",
]

#: Passes over the data "auto" plans for with one batch (full-batch noisy GD). A compute
#: budget, not a privacy one: bound (A) saturates in the number of steps.
AUTO_MAX_PASSES_FULL_BATCH = 1000

#: Passes "auto" plans for with mini-batches: the point of mini-batches is to need fewer
#: passes than full batch.
AUTO_MAX_PASSES = 50

#: Numbers of batches l that batch_size="auto" tries with solver="cyclic" (b = ceil(n/l)).
AUTO_N_BATCHES = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class PublicProblem:
    """The public numbers a solver plans from (hashable: plans are cached on it).

    Attributes
    ----------
    epsilon, delta : float
        The privacy target.
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
        (:func:`~skdpgd.accounting._preconditioned.concentrated_initial_distance`), which the
        preconditioned planner uses: too few steps there cost far more than too many.
    strong_convexity, learning_rate : float or None
        lam and eta if the user fixed them, else None ("auto").
    max_iter, batch_size : int or None
        Passes over the data and batch size if fixed, else None.
    row_norm : float
        Rt, the public bound on the norm of an augmented row.
    n_outputs : int
        1 for a scalar model, k for softmax (theta is k x p/k).
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

    @property
    def gram_dim(self):
        """Columns of the augmented design (features + intercept column)."""
        return self.n_params // self.n_outputs

    @property
    def curvature(self):
        r"""c = beta_l / Rt^2: the loss's bound on l'' (1/4, 1/2 or 1)."""
        return self.data_smoothness / self.row_norm**2


#: Memory for the Gram pass's partial sums held at once (d x d float64 each): its chunks
#: are made larger for wide designs so that all of them fit in this budget.
GRAM_PARTIALS_BYTES = 256 * 2**20

#: Most chunks of the Gram pass (enough to keep 16 workers busy).
GRAM_MAX_CHUNKS = 64


def gram_chunk_rows(n_samples, dim):
    """Rows per chunk of the Gram pass: a function of (n, d) only (bit-identity).

    At most ``min(GRAM_MAX_CHUNKS, GRAM_PARTIALS_BYTES / (8 d^2))`` chunks, so that the
    partial Gram matrices a parallel pass holds before its ordered reduction stay within
    ``GRAM_PARTIALS_BYTES``; each chunk is read in cache-sized blocks
    (:meth:`~skdpgd._design.ClippedDesign.gram`).
    """
    n_chunks = max(1, min(GRAM_MAX_CHUNKS, GRAM_PARTIALS_BYTES // (8 * dim * dim)))
    return -(-int(n_samples) // n_chunks)


def _chunk_gram(coef, design, y):
    r"""One chunk's :math:`\sum_i \tilde x_i \tilde x_i^\top` (worker side; coef, y unused).

    Every row enters as its clipped value (:meth:`~skdpgd._design.ClippedDesign.gram`).
    """
    return design.gram()


class FitData:
    """The validated data of one fit, reachable only as row sums (what solvers use).

    Rows are clipped to ``data_norm`` and the intercept column is appended lazily
    (:class:`~skdpgd._design.ClippedDesign`); a dask array is summed block by block
    where it lives (:class:`~skdpgd._dask.DaskRowSums`).
    """

    def __init__(self, X, y, *, data_norm, intercept_scaling, n_jobs=None):
        self.X, self.y = X, y
        self.data_norm, self.intercept_scaling, self.n_jobs = data_norm, intercept_scaling, n_jobs
        self.n_samples = X.shape[0]
        self._design = None

    @property
    def design(self):
        """The clipped, intercept-augmented design (built once; in-memory X only)."""
        if self._design is None:
            self._design = ClippedDesign.from_data(
                self.X, self.data_norm, self.intercept_scaling, n_jobs=self.n_jobs
            )
        return self._design

    def row_sums(self, method, row_sets=()):
        """Sums of ``method(coef, rows, y_rows)`` over all rows or over ``row_sets``."""
        if is_dask_array(self.X):
            return DaskRowSums(
                method, self.X, self.y, max_norm=self.data_norm,
                intercept_scaling=self.intercept_scaling, row_sets=row_sets,
            )
        return ChunkedRowSums(method, self.design, self.y, n_jobs=self.n_jobs, row_sets=row_sets)


def _check_learning_rate(eta, smoothness):
    if not eta < 2.0 / smoothness:
        raise ValueError(
            f"learning_rate={eta!r} is >= 2/smoothness = {2.0 / smoothness:.6g}: gradient "
            "descent would not contract (and the convergent privacy bound would not "
            "apply). Use learning_rate='auto' or a smaller value."
        )


class Solver:
    """Base class: ``plan`` / ``report`` / ``run`` (see the module docstring)."""

    #: The ``solver=`` string of this solver.
    name = None

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self), tuple(sorted(vars(self).items()))))

    def __repr__(self):
        return f"{type(self).__name__}()"

    def plan(self, problem):
        """The run plan for ``problem`` (cached: a pure function of public numbers)."""
        return _cached_plan(self, problem)

    def _plan(self, problem):
        raise NotImplementedError  # pragma: no cover - abstract

    def report(self, plan, problem, notes=()):
        raise NotImplementedError  # pragma: no cover - abstract

    def run(self, data, loss, plan, rng, callback=None):
        raise NotImplementedError  # pragma: no cover - abstract


@lru_cache(maxsize=512)
def _cached_plan(solver, problem):
    """A grid search or an audit that fits one public configuration many times plans once."""
    return solver._plan(problem)


@dataclass(frozen=True)
class GradientDescentPlan:
    """A cyclic (or full-batch, l = 1) noisy GD run: all public, chosen before any data pass."""

    solver: Solver
    strong_convexity: float
    smoothness: float
    learning_rate: float
    noise_std: float
    batch_size: int
    n_batches: int
    n_epochs: int
    notes: tuple = ()

    @property
    def n_steps(self):
        """K = l E."""
        return self.n_batches * self.n_epochs


class CyclicSolver(Solver):
    r"""Noisy GD on a fixed partition into l batches, visited in order every epoch.

    .. math::

        \theta_{k+1} = \theta_k - \eta\,\big(\nabla F_{B_{k \bmod l}}(\theta_k) + \sigma Z_k\big)

    One planner for all l: full-batch noisy GD (``solver="gd"``) is the case l = 1,
    accounted by Bok-Su-Altschuler Theorem 4.2 (exact); l > 1 by Theorem 4.5. The
    partition is drawn from the seed and n only.

    Parameters
    ----------
    full_batch : bool
        True for ``solver="gd"`` (l = 1 and up to
        :data:`AUTO_MAX_PASSES_FULL_BATCH` passes), False for ``"cyclic"`` (l from
        :data:`AUTO_N_BATCHES`, up to :data:`AUTO_MAX_PASSES` passes).
    """

    def __init__(self, full_batch=False):
        self.full_batch = bool(full_batch)
        self.name = "gd" if self.full_batch else "cyclic"

    def __repr__(self):
        return f"CyclicSolver(full_batch={self.full_batch})"

    def _batch_sizes(self, problem):
        n = problem.n_samples
        if self.full_batch:
            return (n,)
        if problem.batch_size is not None:
            return (min(problem.batch_size, n),)
        return tuple(sorted({-(-n // l) for l in AUTO_N_BATCHES if l <= n}))

    def _plan(self, problem):
        auto_passes = AUTO_MAX_PASSES_FULL_BATCH if self.full_batch else AUTO_MAX_PASSES
        max_epochs = auto_passes if problem.max_iter is None else problem.max_iter
        lam, eta = problem.strong_convexity, problem.learning_rate
        if eta is not None:
            _check_learning_rate(eta, problem.data_smoothness + (lam or 0.0))
        common = dict(
            sensitivity=problem.sensitivity, gradient_bound=problem.gradient_bound,
            n_samples=problem.n_samples, n_params=problem.n_params,
            data_smoothness=problem.data_smoothness,
            initial_distance=problem.initial_distance, learning_rate=eta,
            max_epochs=max_epochs, batch_sizes=self._batch_sizes(problem),
        )
        target = (problem.epsilon, problem.delta)
        if lam is None:
            plan = accounting.plan_noisy_cyclic_gd_regularization(*target, **common)
        else:
            plan = accounting.plan_noisy_cyclic_gd(*target, strong_convexity=lam, **common)
        n_epochs, sigma = plan.n_epochs, plan.noise_std
        if problem.max_iter is not None and n_epochs != problem.max_iter:
            n_epochs = problem.max_iter  # a fixed number of passes is that number
            sigma = accounting.calibrate_noisy_cyclic_gd(
                *target, batch_size=plan.batch_size, sensitivity=problem.sensitivity,
                n_samples=problem.n_samples, learning_rate=plan.learning_rate,
                strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
                n_epochs=n_epochs,
            )
        if eta is not None:
            _check_learning_rate(eta, plan.smoothness)
        return GradientDescentPlan(
            self, plan.strong_convexity, plan.smoothness, plan.learning_rate, sigma,
            plan.batch_size, plan.n_batches, n_epochs,
        )

    def report(self, plan, problem, notes=()):
        common = dict(
            delta=problem.delta, sensitivity=problem.sensitivity,
            n_samples=problem.n_samples, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
            notes=tuple(notes) + plan.notes,
        )
        if plan.n_batches == 1:  # full batch: Theorem 4.2 (and Chourasia et al. to compare)
            return accounting.noisy_gd_report(plan.noise_std, plan.n_steps, **common)
        return accounting.noisy_cyclic_gd_report(
            plan.noise_std, plan.n_epochs, batch_size=plan.batch_size, **common
        )

    def run(self, data, loss, plan, rng, callback=None):
        n_samples = data.n_samples
        lam = plan.strong_convexity
        if plan.n_batches == 1:
            batches, sizes = (), [n_samples]
        else:  # the partition: from the seed and n only (bound (C))
            batches = cyclic_partition(n_samples, plan.batch_size, rng)
            sizes = [len(batch) for batch in batches]
        row_sums = data.row_sums(loss.gradient_sum, batches)
        with _single_threaded_blas(), row_sums:

            def batch_gradient(coef, j):
                total = row_sums.sum(coef, j if batches else None)
                return total / sizes[j] + lam * coef

            return noisy_cyclic_gradient_descent(
                batch_gradient, np.zeros(loss_shape(loss, data)), n_batches=plan.n_batches,
                learning_rate=plan.learning_rate, noise_std=plan.noise_std,
                n_epochs=plan.n_epochs, rng=rng, callback=callback,
            )


def loss_shape(loss, data):
    """theta's shape for ``loss`` on the augmented design of ``data``."""
    width = data.X.shape[1] + int(data.intercept_scaling is not None)
    return (width,) if loss.n_outputs == 1 else (loss.n_outputs, width)


@dataclass(frozen=True)
class SampledPlan:
    """A Poisson-sampled noisy SGD run (all public)."""

    solver: Solver
    strong_convexity: float
    smoothness: float
    learning_rate: float
    noise_std: float
    n_steps: int
    batch_size: int
    gradient_bound: float
    notes: tuple = ()

    @property
    def n_epochs(self):
        return None


class SampledSolver(Solver):
    r"""Poisson-sampled noisy SGD (``solver="sgd"``).

    Planned by :func:`skdpgd.accounting.plan_sampled_sgd`; its privacy is the minimum of
    the bounds that apply (composition with amplification by sampling, computed with
    dp-accounting's PLD accountant; Altschuler and Talwar (NeurIPS 2022), eq. (3.3), on a
    bounded domain). See the theory page, "Sampled SGD".
    """

    name = "sgd"

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
        plan = accounting.plan_sampled_sgd(
            problem.epsilon, problem.delta, gradient_bound=problem.gradient_bound,
            data_smoothness=problem.data_smoothness, n_samples=n, n_params=problem.n_params,
            initial_distance=problem.initial_distance,
            max_passes=AUTO_MAX_PASSES if problem.max_iter is None else problem.max_iter,
            strong_convexity=problem.strong_convexity, sampling_rates=tuple(rates),
            sampling="poisson", domain_radius=None, exact_passes=problem.max_iter is not None,
        )
        return SampledPlan(
            self, plan.strong_convexity, plan.smoothness, plan.learning_rate, plan.noise_std,
            plan.n_steps, plan.batch_size, problem.gradient_bound,
        )

    def report(self, plan, problem, notes=()):
        return accounting.sampled_sgd_report(
            plan.noise_std, plan.n_steps, delta=problem.delta, sampling="poisson",
            batch_size=plan.batch_size, n_samples=problem.n_samples,
            gradient_bound=plan.gradient_bound, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
            domain_radius=None, notes=tuple(notes) + plan.notes,
        )

    def run(self, data, loss, plan, rng, callback=None):
        row_sums = data.row_sums(loss.gradient_sum)
        with _single_threaded_blas(), row_sums:
            return noisy_sampled_gradient_descent(
                row_sums.sum_rows, np.zeros(loss_shape(loss, data)),
                n_samples=data.n_samples, batch_size=plan.batch_size,
                learning_rate=plan.learning_rate, noise_std=plan.noise_std,
                n_steps=plan.n_steps, rng=rng, sampling="poisson",
                regularization=plan.strong_convexity, callback=callback,
            )


@dataclass(frozen=True)
class PreconditionedPlan:
    """A Gram-preconditioned run (all public): the Gram noise, then K noisy steps."""

    solver: Solver
    strong_convexity: float
    smoothness: float
    learning_rate: float
    noise_std: float
    n_steps: int
    gram_noise_std: float
    margin: float
    curvature: float
    momentum: float
    tolerance: float | None = None
    notes: tuple = ()

    @property
    def batch_size(self):
        return None

    @property
    def n_epochs(self):
        return None


class PreconditionedSolver(Solver):
    r"""Gram-preconditioned noisy gradient descent (``solver="preconditioned"``).

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
    :func:`skdpgd.accounting._preconditioned.plan_preconditioned_gd`. Refused for more than
    ``MAX_DENSE_DIM`` columns (the Gram and its eigendecomposition would cost more than
    they save).
    """

    name = "preconditioned"

    def _plan(self, problem):
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
        kwargs = {} if problem.max_iter is None else {"max_steps": problem.max_iter}
        plan = plan_preconditioned_gd(
            problem.epsilon, problem.delta, sensitivity=problem.sensitivity,
            gram_sensitivity=gram_sensitivity(problem.row_norm), curvature=problem.curvature,
            n_samples=problem.n_samples, gram_dim=problem.gram_dim, n_params=problem.n_params,
            initial_distance=problem.largest_distance,
            strong_convexity=problem.strong_convexity, **kwargs,
        )
        if problem.max_iter is not None and plan.n_steps != problem.max_iter:
            # a fixed number of passes is that number: recalibrate the noise for it
            tau, sigma = calibrate_preconditioned_gd(
                problem.epsilon, problem.delta, gram_share=plan.gram_share,
                n_steps=problem.max_iter, sensitivity=problem.sensitivity,
                gram_sensitivity=gram_sensitivity(problem.row_norm),
                n_samples=problem.n_samples,
            )
            plan = replace(
                plan, n_steps=problem.max_iter, noise_std=sigma, gram_noise_std=tau,
                margin=gram_noise_margin(tau, problem.gram_dim),
            )
        return PreconditionedPlan(
            self, plan.strong_convexity, problem.data_smoothness + plan.strong_convexity,
            plan.learning_rate, plan.noise_std, plan.n_steps, plan.gram_noise_std,
            plan.margin, plan.curvature, plan.momentum,
            # no noise (epsilon=inf): K is a cap and the run may stop on convergence
            plan.tolerance if problem.max_iter is None else None,
        )

    def report(self, plan, problem, notes=()):
        return preconditioned_gd_report(
            plan.gram_noise_std, plan.noise_std, plan.n_steps, delta=problem.delta,
            sensitivity=problem.sensitivity, gram_sensitivity=gram_sensitivity(problem.row_norm),
            n_samples=problem.n_samples, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, curvature=plan.curvature,
            margin=plan.margin, row_norm=problem.row_norm, momentum=plan.momentum,
            notes=tuple(notes) + plan.notes,
        )

    def run(self, data, loss, plan, rng, callback=None):
        shape = loss_shape(loss, data)
        n_samples, lam = data.n_samples, plan.strong_convexity
        row_sums = data.row_sums(loss.gradient_sum)
        with _single_threaded_blas(), row_sums:  # the data are placed once for both passes
            gram = row_sums.sum(
                np.zeros(shape[-1]), method=_chunk_gram,
                chunk_size=gram_chunk_rows(n_samples, shape[-1]),
            )
            released = release_gram(0.5 * (gram + gram.T), n_samples, plan.gram_noise_std, rng)
            preconditioner = GramPreconditioner(
                released, curvature=plan.curvature, margin=plan.margin, strong_convexity=lam
            )

            def gradient(coef):
                return row_sums.sum(coef) / n_samples + lam * coef

            return preconditioned_noisy_gradient_descent(
                gradient, np.zeros(shape), preconditioner=preconditioner,
                learning_rate=plan.learning_rate, noise_std=plan.noise_std,
                n_steps=plan.n_steps, rng=rng, momentum=plan.momentum,
                tolerance=plan.tolerance, callback=callback,
            )


class AutoSolver(Solver):
    """``solver="auto"``: the solver, and through it every run parameter, from public numbers.

    The rule (see the user guide, "Solvers"):

    * a fixed ``learning_rate`` is a plain gradient step: ``"gd"`` (``"cyclic"`` with a
      fixed ``batch_size``);
    * otherwise, while the augmented design has at most ``MAX_DENSE_DIM`` columns,
      ``"preconditioned"``: its steps are invariant to any invertible linear map of the
      features (up to clipping and the noise floor), so it converges in a few passes on
      every preprocessing of the same table, where plain gradient steps with the public
      worst-case step need as many passes as the condition number of that preprocessing;
      its Gram pass and d x d eigendecomposition cost about d/k gradient passes;
    * wider data: ``"cyclic"`` (mini-batches; the convergent bound pays there).

    The report's notes name the choice and the reason.
    """

    name = "auto"

    def _plan(self, problem):
        if problem.learning_rate is not None:
            chosen, why = (
                make_solver("cyclic" if problem.batch_size is not None else "gd"),
                "a fixed learning_rate is a plain gradient step",
            )
        elif problem.batch_size is not None:
            chosen, why = make_solver("cyclic"), "a fixed batch_size asks for mini-batches"
        elif problem.gram_dim <= MAX_DENSE_DIM:
            chosen, why = PreconditionedSolver(), (
                f"{problem.gram_dim} columns <= {MAX_DENSE_DIM}: the noisy Gram is affordable "
                "and makes the steps insensitive to the features' scaling"
            )
        else:
            chosen, why = make_solver("cyclic"), (
                f"{problem.gram_dim} columns > {MAX_DENSE_DIM}: too wide for a Gram "
                "preconditioner; mini-batches with the convergent bound"
            )
        plan = chosen.plan(problem)
        return replace(plan, notes=plan.notes + (f"solver='auto' chose {chosen.name!r}: {why}",))


_SOLVERS = {
    "auto": AutoSolver,
    "gd": lambda: CyclicSolver(full_batch=True),
    "cyclic": lambda: CyclicSolver(full_batch=False),
    "sgd": SampledSolver,
    "preconditioned": PreconditionedSolver,
}


def make_solver(name):
    """The solver object for a ``solver=`` string."""
    try:
        return _SOLVERS[name]()
    except KeyError:
        raise ValueError(f"unknown solver {name!r}; choose one of {sorted(_SOLVERS)}.") from None
