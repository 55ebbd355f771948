"""skdpgd: scikit-learn compatible differentially private linear models.

Models are trained by noisy gradient methods and only the last iterate is released. The
default ``solver="auto"`` plans full-batch noisy GD, cyclic mini-batches (2 to 64 batches)
and a Gram-preconditioned run (one noisy Gram release, then a few preconditioned noisy
steps) from public numbers only, and runs the one with the smallest predicted excess loss
(:func:`skdpgd.solvers.predicted_excess_loss`). The cyclic run is calibrated with the
convergent (last-iterate) Gaussian-DP bound of Bok, Su and Altschuler (2024), so steps past
convergence cost no extra privacy; the preconditioned run, and GD as planned (lam near 0),
are accounted by exact Gaussian-DP composition (Dong, Roth, Su 2022). The report's
``binding_bound`` says which bound binds.
"""

import importlib

from ._version import __version__

#: Public names -> the module that defines them. They are imported on first use (PEP 562),
#: so that ``skdpgd --version`` or ``skdpgd predict`` does not pay for the audit module,
#: SciPy's statistics or pandas; ``from skdpgd import DPRidge`` works as before.
_LAZY = {
    "DPLogisticRegression": ".linear_model",
    "DPRidge": ".linear_model",
    "DPPipeline": ".pipeline",
    "make_dp_pipeline": ".pipeline",
    "PrivacyLedger": "._ledger",
    "LedgerEntry": "._ledger",
    "LedgerSpend": "._ledger",
    "PrivacyReport": ".accounting",
}
_SUBPACKAGES = ("accounting", "audit", "model_selection", "preprocessing")

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


def __getattr__(name):
    """Import a public name or subpackage on first use (PEP 562)."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
