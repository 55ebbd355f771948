"""skdpgd: scikit-learn compatible differentially private linear models.

Models are trained by projected noisy gradient descent and only the last iterate is
released; the noise is calibrated with a convergent (last-iterate) Gaussian-DP bound
(Bok, Su, Altschuler 2024), so iterations past convergence cost no extra privacy.
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
