"""skdpgd: scikit-learn compatible differentially private linear models.

Models are trained by noisy gradient methods and only the last iterate is released. The
default ``solver="auto"`` runs, on designs of up to 2000 columns, one noisy Gram release
and a few preconditioned noisy gradient steps whose guarantee is their exact Gaussian-DP
composition (Dong, Roth, Su 2022); wider designs get cyclic mini-batches, calibrated with
the convergent (last-iterate) Gaussian-DP bound of Bok, Su and Altschuler (2024), so
iterations past convergence cost no extra privacy.
"""

from . import accounting, audit, model_selection, preprocessing
from ._ledger import PrivacyLedger
from ._version import __version__
from .accounting import PrivacyReport
from .linear_model import DPLogisticRegression, DPRidge
from .pipeline import DPPipeline, make_dp_pipeline

__all__ = [
    "DPLogisticRegression",
    "DPPipeline",
    "DPRidge",
    "PrivacyLedger",
    "PrivacyReport",
    "accounting",
    "audit",
    "make_dp_pipeline",
    "model_selection",
    "preprocessing",
    "__version__",
]
