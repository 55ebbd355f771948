"""Gram-preconditioned noisy GD: ``solver="preconditioned"``.

One algorithm, one sub-package: :mod:`._solver` holds the solver (its plan, report,
candidates of ``"auto"``, prediction and run) and :mod:`._planning` the planner and its
utility proxy. The loop is :func:`skdpgd.optim.preconditioned_noisy_gradient_descent` and
the composition bound the accountant's (:mod:`skdpgd.accounting`).
"""

from ._planning import (
    GRAM_SHARE,
    MAX_STEPS,
    SPECTRUM_GRID,
    PreconditionedGDPlan,
    gram_noise_margin,
    plan_preconditioned_gd,
    plan_preconditioned_settings,
    preconditioned_utility_proxy,
)
from ._solver import (
    AUTO_GRAM_SHARES,
    AUTO_MARGIN_FACTORS,
    PreconditionedSolver,
    calibrate_preconditioned,
    plan_together,
)

__all__ = [
    "AUTO_GRAM_SHARES",
    "AUTO_MARGIN_FACTORS",
    "GRAM_SHARE",
    "MAX_STEPS",
    "SPECTRUM_GRID",
    "PreconditionedGDPlan",
    "PreconditionedSolver",
    "calibrate_preconditioned",
    "gram_noise_margin",
    "plan_preconditioned_gd",
    "plan_preconditioned_settings",
    "plan_together",
    "preconditioned_utility_proxy",
]
