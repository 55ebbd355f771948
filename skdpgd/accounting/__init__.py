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

The API is ``__all__``: the conversions, the accountants and their registry, the
events, the reports, the bounds of the runs and their calibrations. The closed forms
behind the bounds (``contraction_factor``, ``convergent_gd_factor``, ...), the report
builders (``noisy_gd_report``, ...), the ledger's record account and cap are importable
from here for the layers above (imported as ``name as name``) but are internal: no API
page, no promise. The planners' face of the accountant is the internal module
``skdpgd.accounting.calibration``; the release protocol is ``skdpgd.accounting.allowance``.
"""

from ._accountants import (
    Accountant,
    GdpAccountant,
    PldAccountant,
    RdpAccountant,
    get_accountant,
    register_accountant,
)
from ._composition import Cap as Cap
from ._composition import Composition, compose
from ._composition import check_supported as check_supported
from ._convex_gd import convex_cyclic_squares as convex_cyclic_squares
from ._convex_gd import convex_gd_squares as convex_gd_squares
from ._convex_gd import noisy_cyclic_gd_convex_gdp
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

# internal, re-exported for the layers above (not in __all__: see the docstring)
from ._format import format_near as format_near
from ._format import format_up as format_up
from ._gd_report import (
    NoisyCyclicGDPrivacyReport,
    NoisyGDPrivacyReport,
)
from ._gd_report import (
    noisy_cyclic_gd_report as noisy_cyclic_gd_report,
)
from ._gd_report import (
    noisy_gd_report as noisy_gd_report,
)
from ._gdp import epsilon_delta_to_gdp, gdp_to_delta, gdp_to_epsilon
from ._gram_then_run import (
    GramThenRunPrivacyReport,
)
from ._gram_then_run import (
    calibrate_run_after_gram as calibrate_run_after_gram,
)
from ._gram_then_run import (
    gram_then_run_mu as gram_then_run_mu,
)
from ._gram_then_run import (
    gram_then_run_report as gram_then_run_report,
)
from ._noisy_cyclic_gd import (
    convergent_cyclic_factor as convergent_cyclic_factor,
)
from ._noisy_cyclic_gd import (
    cyclic_batch_sizes as cyclic_batch_sizes,
)
from ._noisy_cyclic_gd import (
    noisy_cyclic_gd_gdp,
)
from ._noisy_gd import (
    composition_gdp,
    noisy_gd_convex_gdp,
    noisy_gd_gdp,
)
from ._noisy_gd import (
    contraction_factor as contraction_factor,
)
from ._noisy_gd import (
    convergent_gd_factor as convergent_gd_factor,
)
from ._noisy_gd import (
    convex_gd_burn_in as convex_gd_burn_in,
)
from ._preconditioned import PreconditionedPrivacyReport
from ._preconditioned import preconditioned_gd_report as preconditioned_gd_report
from ._rdp import (
    DEFAULT_ORDERS as DEFAULT_ORDERS,
)
from ._rdp import (
    chourasia_rdp,
    composition_rdp,
    gdp_to_rdp,
    rdp_to_epsilon,
)
from ._record_account import RecordAccount as RecordAccount
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
from ._sampled_sgd import composed_replace_one_epsilon as composed_replace_one_epsilon
from ._sampled_sgd import poisson_sgd_epsilon as poisson_sgd_epsilon
from ._sgd_bounds import (
    SampledSGDBounds,
    calibrate_sampled_sgd,
    sampled_sgd_bounds,
)
from ._sgd_bounds import (
    calibrate_poisson_sgd as calibrate_poisson_sgd,
)
from ._sgd_report import SampledSGDPrivacyReport
from ._sgd_report import sampled_sgd_report as sampled_sgd_report
from .calibration import calibrate_noisy_cyclic_gd, calibrate_noisy_gd

__all__ = [
    # Gaussian DP and Renyi DP: the conversions
    "gdp_to_delta",
    "gdp_to_epsilon",
    "epsilon_delta_to_gdp",
    "gdp_to_rdp",
    "rdp_to_epsilon",
    # accountants, their registry and composition
    "Accountant",
    "GdpAccountant",
    "PldAccountant",
    "RdpAccountant",
    "get_accountant",
    "register_accountant",
    "compose",
    "Composition",
    # privacy events (the ledger's stored format)
    "PrivacyEvent",
    "GaussianDpEvent",
    "GaussianDpWithDeltaEvent",
    "PoissonSampledGaussianEvent",
    "RenyiDpEvent",
    "UnsupportedEvent",
    "UnsupportedEventError",
    "NeighbouringRelation",
    "event_to_dict",
    "event_from_dict",
    # the reports (``privacy_``)
    "PrivacyReport",
    "RunPrivacyReport",
    "GaussianRunPrivacyReport",
    "NoisyGDPrivacyReport",
    "NoisyCyclicGDPrivacyReport",
    "PreconditionedPrivacyReport",
    "GramThenRunPrivacyReport",
    "SampledSGDPrivacyReport",
    "ReleasePrivacyReport",
    # the bounds of the noisy runs
    "noisy_gd_gdp",
    "noisy_gd_convex_gdp",
    "noisy_cyclic_gd_gdp",
    "noisy_cyclic_gd_convex_gdp",
    "chourasia_rdp",
    "composition_gdp",
    "composition_rdp",
    "sampled_sgd_bounds",
    "SampledSGDBounds",
    # calibration: the noise that meets a target
    "calibrate_noisy_gd",
    "calibrate_noisy_cyclic_gd",
    "calibrate_sampled_sgd",
]
