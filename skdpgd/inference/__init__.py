"""Private inference for the coefficients: standard errors, intervals, p-values.

The releases at the estimate (the gradient, the Hessian and the score covariance), their
accounting in one report with the fit, one private Newton step, the sandwich covariance
with the optimizer's own noise for the solver that ran, and the coefficient table
(:doc:`/theory`, "Private inference for the coefficients"). A layer between the solvers and the
estimators: the estimators call
:func:`fit_budget`, :func:`compose_report` and :func:`infer`.
"""

from ._budget import (
    INFERENCE_SHARES,
    InferenceBudget,
    inference_shares,
    split_inference_budget,
)
from ._fit import (
    SUPPORTED_SOLVERS,
    adaptive_release,
    check_identifiable,
    check_solver,
    compose_report,
    correction_applies,
    fit_budget,
    infer,
    public_noise_ratio,
)
from ._optimizer_noise import impulse_responses, optimizer_noise
from ._releases import (
    curvature_and_residual_bounds,
    matrix_sensitivity,
    release_at,
    row_weights_and_residuals,
)
from ._report import InferencePrivacyReport, inference_report
from ._sandwich import coefficient_covariance
from ._table import CoefficientTable

__all__ = [
    "INFERENCE_SHARES",
    "SUPPORTED_SOLVERS",
    "CoefficientTable",
    "InferenceBudget",
    "InferencePrivacyReport",
    "adaptive_release",
    "check_identifiable",
    "check_solver",
    "correction_applies",
    "coefficient_covariance",
    "compose_report",
    "curvature_and_residual_bounds",
    "fit_budget",
    "impulse_responses",
    "infer",
    "inference_report",
    "inference_shares",
    "matrix_sensitivity",
    "optimizer_noise",
    "public_noise_ratio",
    "release_at",
    "row_weights_and_residuals",
    "split_inference_budget",
]
