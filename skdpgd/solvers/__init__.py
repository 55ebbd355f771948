"""Solvers of the DP linear models: one module per solver, and a registry.

A solver (:class:`Solver`) plans a run from public numbers (:class:`PublicProblem`),
reports its guarantee with the accountant that applies (:mod:`skdpgd.accounting`) and
runs it on the row sums of the data (:mod:`skdpgd.optim` holds the loops). Every list
of solver names (the estimators' ``solver=`` constraint, the command line's choices, the
docs table) comes from the registry below: adding a solver is one module plus one line
here (:doc:`/architecture`).

The solvers (see the user guide, "Solvers"):

* ``"auto"`` (:mod:`._auto`, the default): plans gd, cyclic and preconditioned candidates
  and runs the one with the smallest predicted excess loss (:mod:`._utility`).
* ``"gd"`` and ``"cyclic"`` (:mod:`._cyclic`): noisy GD on a fixed partition
  into l batches visited in order; Bok, Su and Altschuler (ICML 2024), Theorem 4.5 / 4.4,
  with Theorem 4.2 for one batch.
* ``"sgd"`` (:mod:`._sgd`): Poisson-sampled noisy SGD, the minimum of the bounds that apply.
* ``"preconditioned"`` (:mod:`._preconditioned`): one noisy Gram release, then K noisy
  gradient steps preconditioned by it; GDP composition (Dong, Roth, Su 2022).
"""

from .._data import FitData
from ._auto import AutoSolver as AutoSolver
from ._base import PublicProblem, Solver
from ._cyclic import CyclicSolver as CyclicSolver
from ._cyclic import NoisyCyclicGDPlan as NoisyCyclicGDPlan
from ._cyclic import batch_heterogeneity as batch_heterogeneity
from ._cyclic import gd_solver
from ._cyclic import optimisation_error as optimisation_error
from ._cyclic import plan_noisy_cyclic_gd as plan_noisy_cyclic_gd
from ._cyclic import (
    plan_noisy_cyclic_gd_regularization as plan_noisy_cyclic_gd_regularization,
)
from ._cyclic import utility_proxy as utility_proxy
from ._preconditioned import PreconditionedGDPlan as PreconditionedGDPlan
from ._preconditioned import PreconditionedSolver as PreconditionedSolver
from ._registry import DEFAULT as DEFAULT  # the registry's constants, for the layers above
from ._registry import NAMES as NAMES
from ._registry import get, names, register, unregister
from ._sgd import SampledSGDPlan as SampledSGDPlan
from ._sgd import SampledSolver as SampledSolver
from ._sgd import plan_sampled_sgd as plan_sampled_sgd
from ._sgd import sgd_sampling_variance as sgd_sampling_variance
from ._sgd import sgd_utility_proxy as sgd_utility_proxy
from ._utility import Prediction, predicted_excess_loss
from ._utility import concentrated_initial_distance as concentrated_initial_distance

# The registry: one line per solver.
register("auto", AutoSolver)
register("gd", gd_solver)
register("cyclic", CyclicSolver)
register("sgd", SampledSolver)
register("preconditioned", PreconditionedSolver)

# the extension points; the concrete solvers and the planners are internal
__all__ = [
    "Solver",
    "PublicProblem",
    "FitData",
    "Prediction",
    "predicted_excess_loss",
    "register",
    "unregister",
    "get",
    "names",
]
