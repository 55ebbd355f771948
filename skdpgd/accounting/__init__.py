"""Privacy accounting for noisy gradient descent: pure functions, numpy/scipy only.

Conventions (DESIGN.md sections 1 and 3): replace-one neighbours, n public, noise
standard deviation ``noise_std`` on the averaged gradient, ``sensitivity`` the
replace-one sensitivity of one per-example gradient, last iterate released only.

Bounds
------
(A) :func:`noisy_gd_gdp`          Bok-Su-Altschuler Thm 4.2, strongly convex, full batch (exact).
(B) :func:`noisy_gd_convex_gdp`   Bok-Su-Altschuler Thm 4.3, convex on a bounded set.
(C) :func:`noisy_cyclic_gd_gdp`   Bok-Su-Altschuler Thm 4.5, cyclic mini-batches.
(D) :func:`chourasia_rdp`         Chourasia-Ye-Shokri Cor. 1 (Renyi DP), for comparison.
(E) :func:`composition_gdp`, :func:`composition_rdp`: composition baselines.
"""

from ._calibration import (
    NoisyCyclicGDPlan,
    NoisyGDPlan,
    batch_heterogeneity,
    calibrate_noisy_cyclic_gd,
    calibrate_noisy_gd,
    optimisation_error,
    plan_noisy_cyclic_gd,
    plan_noisy_cyclic_gd_regularization,
    plan_noisy_gd,
    plan_noisy_gd_regularization,
    utility_proxy,
)
from ._gdp import epsilon_delta_to_gdp, gdp_to_delta, gdp_to_epsilon
from ._noisy_gd import (
    composition_gdp,
    contraction_factor,
    convergent_cyclic_factor,
    convergent_gd_factor,
    convex_gd_burn_in,
    cyclic_batch_sizes,
    noisy_cyclic_gd_gdp,
    noisy_gd_convex_gdp,
    noisy_gd_gdp,
)
from ._rdp import DEFAULT_ORDERS, chourasia_rdp, composition_rdp, gdp_to_rdp, rdp_to_epsilon
from ._report import PrivacyReport, noisy_cyclic_gd_report, noisy_gd_report

__all__ = [
    "DEFAULT_ORDERS",
    "NoisyCyclicGDPlan",
    "NoisyGDPlan",
    "batch_heterogeneity",
    "PrivacyReport",
    "calibrate_noisy_cyclic_gd",
    "calibrate_noisy_gd",
    "chourasia_rdp",
    "composition_gdp",
    "composition_rdp",
    "contraction_factor",
    "convergent_cyclic_factor",
    "convergent_gd_factor",
    "convex_gd_burn_in",
    "cyclic_batch_sizes",
    "epsilon_delta_to_gdp",
    "gdp_to_delta",
    "gdp_to_epsilon",
    "gdp_to_rdp",
    "noisy_cyclic_gd_gdp",
    "noisy_cyclic_gd_report",
    "noisy_gd_convex_gdp",
    "noisy_gd_gdp",
    "noisy_gd_report",
    "optimisation_error",
    "plan_noisy_cyclic_gd",
    "plan_noisy_cyclic_gd_regularization",
    "plan_noisy_gd",
    "plan_noisy_gd_regularization",
    "rdp_to_epsilon",
    "utility_proxy",
]
