"""Private inference for the coefficients: standard errors, intervals, p-values.

The releases at the estimate (the gradient, the Hessian and the score covariance), their
accounting in one report with the fit, one private Newton step, the sandwich covariance
with the optimizer's own noise for the solver that ran, and the coefficient table
(:doc:`/theory`, "Private inference for the coefficients"). A layer between the solvers and the
estimators: the estimators call
:func:`fit_budget`, :func:`compose_report` and :func:`infer`.
"""

from ._budget import (
    INFERENCE_SHARES as INFERENCE_SHARES,
)
from ._budget import (
    InferenceBudget as InferenceBudget,
)
from ._budget import (
    inference_shares as inference_shares,
)
from ._budget import (
    split_inference_budget as split_inference_budget,
)
from ._fit import (
    DROPPED_NOTE as DROPPED_NOTE,
)
from ._fit import (
    adaptive_release as adaptive_release,
)
from ._fit import (
    check_identifiable as check_identifiable,
)
from ._fit import (
    check_solver as check_solver,
)
from ._fit import (
    compose_report as compose_report,
)
from ._fit import (
    correction_applies as correction_applies,
)
from ._fit import (
    dropped_note as dropped_note,
)
from ._fit import (
    fit_budget as fit_budget,
)
from ._fit import (
    infer as infer,
)
from ._fit import (
    public_noise_ratio as public_noise_ratio,
)
from ._optimizer_noise import impulse_responses as impulse_responses
from ._optimizer_noise import optimizer_noise as optimizer_noise
from ._releases import (
    curvature_and_residual_bounds as curvature_and_residual_bounds,
)
from ._releases import (
    matrix_sensitivity as matrix_sensitivity,
)
from ._releases import (
    release_at as release_at,
)
from ._releases import (
    row_weights_and_residuals as row_weights_and_residuals,
)
from ._report import InferencePrivacyReport
from ._report import inference_report as inference_report
from ._sandwich import coefficient_covariance as coefficient_covariance
from ._table import CoefficientTable

# what a fit with inference=True returns; the rest is the estimators' internal layer
__all__ = [
    "CoefficientTable",
    "InferencePrivacyReport",
]
