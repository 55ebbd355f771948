"""skdpgd: scikit-learn compatible differentially private linear models.

Models are trained by noisy gradient methods and only the last iterate is released. The
default ``solver="auto"`` plans full-batch noisy GD, cyclic mini-batches (4 and 16 batches)
and a Gram-preconditioned run (one noisy Gram release, then a few preconditioned noisy
steps) from public numbers only, and runs the one with the smallest predicted excess loss
(:func:`skdpgd.solvers.predicted_excess_loss`). The cyclic run is calibrated with the
convergent (last-iterate) Gaussian-DP bound of Bok, Su and Altschuler (2024), so steps past
convergence cost no extra privacy; the preconditioned run, and GD as planned (lam near 0),
are accounted by exact Gaussian-DP composition (Dong, Roth, Su 2022). The report's
``binding_bound`` says which bound binds.
"""

from . import accounting, audit, model_selection, preprocessing
from ._ledger import LedgerEntry, LedgerSpend, PrivacyLedger
from ._version import __version__
from .accounting import PrivacyReport
from .linear_model import DPLogisticRegression, DPRidge
from .pipeline import DPPipeline, make_dp_pipeline

__all__ = [
    "DPLogisticRegression",
    "DPPipeline",
    "DPRidge",
    "LedgerEntry",
    "LedgerSpend",
    "PrivacyLedger",
    "PrivacyReport",
    "accounting",
    "audit",
    "make_dp_pipeline",
    "model_selection",
    "preprocessing",
    "__version__",
]
