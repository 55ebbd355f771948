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
* ``"gd"`` (:mod:`._gd`) and ``"cyclic"`` (:mod:`._cyclic`): noisy GD on a fixed partition
  into l batches visited in order; Bok, Su and Altschuler (ICML 2024), Theorem 4.5 / 4.4,
  with Theorem 4.2 for one batch.
* ``"sgd"`` (:mod:`._sgd`): Poisson-sampled noisy SGD, the minimum of the bounds that apply.
* ``"preconditioned"`` (:mod:`._preconditioned`): one noisy Gram release, then K noisy
  gradient steps preconditioned by it; GDP composition (Dong, Roth, Su 2022).
"""

from .._data import FitData
from ._auto import AutoSolver
from ._base import PublicProblem, Solver
from ._cyclic import CyclicSolver
from ._cyclic_planning import (
    NoisyCyclicGDPlan,
    batch_heterogeneity,
    plan_noisy_cyclic_gd,
    plan_noisy_cyclic_gd_regularization,
)
from ._gd import gd_solver
from ._gd_planning import optimisation_error, utility_proxy
from ._preconditioned import PreconditionedSolver
from ._preconditioned_planning import PreconditionedGDPlan
from ._registry import DEFAULT as DEFAULT  # the registry's constants, for the layers above
from ._registry import NAMES as NAMES
from ._registry import get, names, register, unregister
from ._sgd import SampledSolver
from ._sgd_planning import (
    SampledSGDPlan,
    plan_sampled_sgd,
    sgd_sampling_variance,
    sgd_utility_proxy,
)
from ._utility import Prediction, concentrated_initial_distance, predicted_excess_loss

# The registry: one line per solver.
register("auto", AutoSolver)
register("gd", gd_solver)
register("cyclic", CyclicSolver)
register("sgd", SampledSolver)
register("preconditioned", PreconditionedSolver)

__all__ = [
    "AutoSolver", "CyclicSolver", "FitData", "PreconditionedSolver", "PublicProblem",
    "SampledSolver", "Solver", "get", "names", "register", "unregister",
    # planning: utility proxies and planners (public numbers only)
    "NoisyCyclicGDPlan", "PreconditionedGDPlan", "SampledSGDPlan", "batch_heterogeneity",
    "optimisation_error", "plan_noisy_cyclic_gd", "plan_noisy_cyclic_gd_regularization",
    "plan_sampled_sgd",
    "sgd_sampling_variance", "sgd_utility_proxy", "utility_proxy",
    "concentrated_initial_distance",
    # the proxy "auto" compares the candidates with
    "Prediction", "predicted_excess_loss",
]
