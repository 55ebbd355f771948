"""Privacy accounting for noisy gradient descent: pure functions, numpy/scipy only.

Conventions (:ref:`conventions`): replace-one neighbours, n public, noise
standard deviation ``noise_std`` on the averaged gradient, ``sensitivity`` the
replace-one sensitivity of one per-example gradient, last iterate released only.

Bounds
------
- (A) :func:`noisy_gd_gdp`: Bok-Su-Altschuler Thm 4.2, strongly convex, full batch (exact).
- (B) :func:`noisy_gd_convex_gdp`: Bok-Su-Altschuler Thm 4.3, convex on a bounded set.
- (C) :func:`noisy_cyclic_gd_gdp`: Bok-Su-Altschuler Thm 4.5, cyclic mini-batches.
- (F) :func:`noisy_cyclic_gd_convex_gdp`: cyclic mini-batches, convex on a bounded set
  (shifted interpolation, docs/theory.md#bound-f).
- (D) :func:`chourasia_rdp`: Chourasia-Ye-Shokri Cor. 1 (Renyi DP), for comparison.
- (E) :func:`composition_gdp`, :func:`composition_rdp`: composition baselines.
- (SGD) :func:`sampled_sgd_bounds`: sampled noisy SGD, Poisson (composition with
  amplification) or fixed-size uniform batches (the smaller of composition without
  replacement and Altschuler-Talwar eq. (3.3) on a bounded domain); dp-accounting, extra
  ``sgd``.

Privacy only: bounds, events, composition, calibration by inversion
(:mod:`skdpgd.accounting._inverter`) and one report class per accountant. Planning (the
utility proxies and the planners that choose run parameters) lives in
:mod:`skdpgd.solvers`.
"""

from ._accountants import (
    Accountant,
    GdpAccountant,
    PldAccountant,
    RdpAccountant,
    get_accountant,
    register_accountant,
)
from ._composition import Cap, Composition, check_supported, compose
from ._convex_gd import convex_cyclic_squares, convex_gd_squares, noisy_cyclic_gd_convex_gdp
from ._events import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    NeighbouringRelation,
    PoissonSampledGaussianEvent,
    PrivacyEvent,
    RenyiDpEvent,
    UnsupportedEvent,
    UnsupportedEventError,
    event_from_dict,
    event_to_dict,
)

# re-exported for the layers above (formatting and the label note of reports; not in __all__)
from ._format import format_near as format_near
from ._format import format_up as format_up
from ._gd_report import (
    NoisyCyclicGDPrivacyReport,
    NoisyGDPrivacyReport,
    noisy_cyclic_gd_report,
    noisy_gd_report,
)
from ._gdp import epsilon_delta_to_gdp, gdp_to_delta, gdp_to_epsilon
from ._gram_then_run import (
    GramThenRunPrivacyReport,
    calibrate_run_after_gram,
    gram_then_run_mu,
    gram_then_run_report,
)
from ._noisy_cyclic_gd import (
    convergent_cyclic_factor,
    cyclic_batch_sizes,
    noisy_cyclic_gd_gdp,
)
from ._noisy_gd import (
    composition_gdp,
    contraction_factor,
    convergent_gd_factor,
    convex_gd_burn_in,
    noisy_gd_convex_gdp,
    noisy_gd_gdp,
)
from ._preconditioned import PreconditionedPrivacyReport, preconditioned_gd_report
from ._rdp import (
    DEFAULT_ORDERS,
    chourasia_rdp,
    composition_rdp,
    gdp_to_rdp,
    rdp_to_epsilon,
)
from ._record_account import RecordAccount
from ._release import ReleasePrivacyReport
from ._report import (
    LABELS_READ_NOTE as LABELS_READ_NOTE,
)
from ._report import (
    GaussianRunPrivacyReport,
    PrivacyReport,
    RunPrivacyReport,
)
from ._report import (
    epsilon_of as epsilon_of,
)
from ._sampled_sgd import composed_replace_one_epsilon, poisson_sgd_epsilon
from ._sgd_bounds import (
    SampledSGDBounds,
    calibrate_poisson_sgd,
    calibrate_sampled_sgd,
    sampled_sgd_bounds,
)
from ._sgd_report import SampledSGDPrivacyReport, sampled_sgd_report
from .calibration import calibrate_noisy_cyclic_gd, calibrate_noisy_gd

__all__ = [
    "DEFAULT_ORDERS",
    "PrivacyReport",
    "RunPrivacyReport",
    "GaussianRunPrivacyReport",
    "NoisyGDPrivacyReport",
    "NoisyCyclicGDPrivacyReport",
    "PreconditionedPrivacyReport",
    "GramThenRunPrivacyReport",
    "ReleasePrivacyReport",
    "preconditioned_gd_report",
    "gram_then_run_report",
    "gram_then_run_mu",
    "calibrate_run_after_gram",
    "calibrate_noisy_cyclic_gd",
    "calibrate_noisy_gd",
    "chourasia_rdp",
    "composition_gdp",
    "composition_rdp",
    "contraction_factor",
    "convergent_cyclic_factor",
    "convergent_gd_factor",
    "convex_cyclic_squares",
    "convex_gd_burn_in",
    "convex_gd_squares",
    "cyclic_batch_sizes",
    "epsilon_delta_to_gdp",
    "gdp_to_delta",
    "gdp_to_epsilon",
    "gdp_to_rdp",
    "noisy_cyclic_gd_convex_gdp",
    "noisy_cyclic_gd_gdp",
    "noisy_cyclic_gd_report",
    "noisy_gd_convex_gdp",
    "noisy_gd_gdp",
    "noisy_gd_report",
    "rdp_to_epsilon",
    # sampled noisy SGD (docs/theory.md#sampled-sgd)
    "SampledSGDBounds",
    "SampledSGDPrivacyReport",
    "calibrate_poisson_sgd",
    "calibrate_sampled_sgd",
    "composed_replace_one_epsilon",
    "poisson_sgd_epsilon",
    "sampled_sgd_bounds",
    "sampled_sgd_report",
    # privacy events, accountants and composition
    "Accountant",
    "GdpAccountant",
    "PldAccountant",
    "PrivacyEvent",
    "RdpAccountant",
    "event_from_dict",
    "event_to_dict",
    "get_accountant",
    "register_accountant",
    "Cap",
    "Composition",
    "GaussianDpEvent",
    "GaussianDpWithDeltaEvent",
    "NeighbouringRelation",
    "PoissonSampledGaussianEvent",
    "RecordAccount",
    "RenyiDpEvent",
    "UnsupportedEvent",
    "UnsupportedEventError",
    "check_supported",
    "compose",
]
