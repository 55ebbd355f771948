"""Noisy GD on l cyclic batches: ``solver="cyclic"``, and ``solver="gd"`` (l = 1).

One algorithm, one sub-package: :mod:`._solver` holds the solver (its plan, report,
candidates of ``"auto"``, prediction and run) and :mod:`._planning` the planner, its grid
and the plain-step utility proxy. The loop is :func:`skdpgd.optim.noisy_cyclic_gradient_descent`
and the theorems are the accountant's (:mod:`skdpgd.accounting`).
"""

from ._planning import (
    STEP_FRACTIONS,
    NoisyCyclicGDPlan,
    batch_heterogeneity,
    clear_grid_terms,
    optimisation_error,
    plan_noisy_cyclic_gd,
    plan_noisy_cyclic_gd_regularization,
    utility_proxy,
)
from ._solver import (
    AUTO_CYCLIC_BATCHES,
    AUTO_N_BATCHES,
    CyclicSolver,
    calibrate_cyclic,
    gd_solver,
    plan_cyclic_together,
)

__all__ = [
    "AUTO_CYCLIC_BATCHES",
    "AUTO_N_BATCHES",
    "STEP_FRACTIONS",
    "CyclicSolver",
    "NoisyCyclicGDPlan",
    "batch_heterogeneity",
    "calibrate_cyclic",
    "clear_grid_terms",
    "gd_solver",
    "optimisation_error",
    "plan_cyclic_together",
    "plan_noisy_cyclic_gd",
    "plan_noisy_cyclic_gd_regularization",
    "utility_proxy",
]
