r"""The regressor's intercept set to its mean residual: a private correction after the fit.

``DPRidge`` fits a Huber objective (the clipped residual bounds its sensitivity), and
Huber's intercept converges to a *Huber location* of the residuals, not to their mean:
where the residuals are skewed (a count, an income, a price, any target with a long
upper tail) the fitted intercept sits below the mean, and the squared error (R^2) pays
the bias on every row. Given the slopes, the intercept that minimises the squared error
on the rows is the one that makes the mean residual zero, so inside a DP pipeline
(``mean_correction="auto"``, the default, for regressors) a public share of the
estimator's budget pays for one more release after the fit, the noisy mean residual,
and the intercept is moved by it. Everything below is in docs/theory.md, "The
regressor's intercept at its mean residual", with the proof.

**The release** (after the fit, on the n rows it was fitted on, as the model reads them:
adaptive composition, Dong, Roth and Su 2022, Corollary 3.3). With y clipped to
:math:`[-B, B]` (B the fit's public target bound: 1 with ``y_bound="auto"``, where the
pipeline fits on the scaled target) and :math:`f_i` the fitted model's prediction of
row i,

.. math::

    T = \sum_i \mathrm{clip}(\bar y_i - f_i, -2B, 2B), \qquad
    \tilde T = T + \mathcal N\big(0, (4B/\mu_m)^2\big):

replacing one record moves one term inside an interval of width 4B, so the L2
sensitivity is 4B and the release is :math:`\mu_m`-GDP (Theorem 2.7). The shift is
:math:`\tilde r = \mathrm{clip}(\tilde T/n, -2B, 2B)` (n is public under replace-one
neighbours).

**The decision** (post-processing). With :math:`t = z_{1-a/2}\,4B/(n\mu_m)` (a = 0.05,
``LEVEL`` of the constant check) the intercept becomes
:math:`b + \mathrm{sign}(\tilde r)\max(0, |\tilde r| - t)`: the released mean residual
soft-thresholded at t (Donoho and Johnstone 1994). Where the intercept is already at the
mean residual (symmetric residuals) it moves with probability at most a, and then by the
part of the noise beyond t: the expected squared error this adds is
:math:`2[(1 + z^2)\Phi(-z) - z\varphi(z)]` = 0.013 times the release's noise variance
(z = 1.96), against 0.28 times for a shift applied in full past t. Where it is off by
:math:`\bar r` with :math:`|\bar r| \gg t`, at most t of it is left.

**Why it is a correction and not a bet.** For fixed slopes w the mean squared error
:math:`\frac1n\sum_i(\bar y_i - w\cdot x_i - b)^2` is minimised at the b whose mean
residual is 0, and moving b by t changes it by :math:`t^2 - 2t\bar r`
(:math:`\bar r` the mean residual): the released shift removes the bias
:math:`\bar r` and leaves its own noise, of variance :math:`(4B/(n\mu_m))^2`, in its
place. It also removes the fit's own intercept error (its noise, its unfinished
optimisation): whatever the fit's intercept, the corrected one is within the release's
noise of the least-squares one. Rows whose residual is beyond 2B (a prediction outside
the target's range) count at 2B.

**The share** (public). The correction's noise on the mean residual, :math:`4B/(n\mu_m)`,
is made no larger than the worst-case sampling noise of a mean of n terms bounded by
2B, :math:`2B/\sqrt n` (the rule of the constant check,
:mod:`skdpgd.pipeline._constant_fallback`): :math:`\mu_m \ge 2/\sqrt n`, i.e. the share
:math:`s = \min(1/2, \max(s_0, 4/(n\,\mu_{\mathrm{est}}^2)))` of the estimator's
:math:`\mu_{\mathrm{est}}^2`, with the floor :math:`s_0` (the share that raises the
fit's noise scale by 1%); the fit gets :math:`\mu_{\mathrm{est}}\sqrt{1 - s}` and
:math:`\mu_{\mathrm{fit}}^2 + \mu_m^2 \le \mu_{\mathrm{est}}^2` (Corollary 3.3).

Where it applies (public parameters): a regressor (``DPRidge``) with
``fit_intercept=True``, no ``inference`` (its table describes the fitted coefficients)
and a finite budget; ``mean_correction=False`` turns it off. Elsewhere nothing changes,
to the bit.
"""

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import norm
from sklearn.base import is_regressor

from ..accounting import ReleasePrivacyReport
from ..utils import make_generator
from ._constant_fallback import LEVEL, plan_constant_check, sampling_split

__all__ = ["MEAN_CORRECTION", "MeanCorrection", "MeanCorrectionPlan", "plan_mean_correction",
           "post_fit_plans", "run_mean_correction"]

#: The release's name in a pipeline's report.
MEAN_CORRECTION = "mean correction (the regressor's intercept at its mean residual)"

#: kappa: the residual sum's sensitivity over the per-row half-width 2B.
KAPPA = 2.0

MECHANISM = (
    "Gaussian noise on the sum of the fitted model's residuals, y clipped to [-B, B] "
    "and each residual to [-2B, 2B] (replace-one sensitivity 4B; Dong, Roth, Su 2022, "
    "Theorem 2.7 and Corollary 3.3); the intercept moves by the noisy mean residual "
    "(post-processing)")


@dataclass(frozen=True)
class MeanCorrectionPlan:
    """The public split of the estimator's allowance between its fit and the correction.

    Attributes
    ----------
    share : float
        s, the correction's share of the estimator's mu^2.
    fit_mu, release_mu : float
        The fit's and the correction's Gaussian-DP parameters.
    """

    share: float
    fit_mu: float
    release_mu: float


@dataclass(frozen=True)
class MeanCorrection:
    r"""What the correction released and did (the fit's scale: y mapped to [-B, B]).

    Attributes
    ----------
    shift : float
        What was added to the intercept: the noisy mean residual soft-thresholded at
        :math:`z_{1-a/2}` times ``noise_std`` (0 where it did not pass).
    noisy_mean_residual : float
        :math:`\tilde r`, the released noisy mean residual.
    noise_std : float
        The standard deviation of its noise, :math:`4B/(n\mu_m)`.
    applied : bool
        Whether :math:`|\tilde r|` passed :math:`z_{1-a/2}` times ``noise_std``
        (a = 0.05: an intercept already at the mean residual is moved with probability
        at most a).
    share : float
        The correction's share of the estimator's mu^2.
    """

    shift: float
    noisy_mean_residual: float
    noise_std: float
    applied: bool
    share: float


def plan_mean_correction(final, estimator_mu, n_samples, enabled="auto"):
    """The correction's plan from public numbers, or None where it does not run.

    Parameters
    ----------
    final : estimator
        The pipeline's (unfitted) estimator.
    estimator_mu : float
        The estimator's allowance (its whole share, before any other post-fit release).
    n_samples : int
        n.
    enabled : {"auto", True, False}, default="auto"
        The pipeline's ``mean_correction`` ("auto" and True: regressors with an
        intercept, without inference).

    Returns
    -------
    MeanCorrectionPlan or None
    """
    mu_est, n = float(estimator_mu), int(n_samples)
    on = True if isinstance(enabled, str) else bool(enabled)  # "auto": where it applies
    if (not on or not is_regressor(final)
            or getattr(final, "inference", False) or not getattr(final, "fit_intercept", True)
            or not 0.0 < mu_est < math.inf):
        return None
    share, fit_mu, release_mu = sampling_split(KAPPA, n, mu_est)
    return MeanCorrectionPlan(share=share, fit_mu=fit_mu, release_mu=release_mu)


def post_fit_plans(final, budget, n_samples, mean_correction="auto", constant_check="auto"):
    r"""The public plans of the two releases after the fit: (correction, check).

    The correction takes its share of the estimator's :math:`\mu^2` first; the constant
    check (:func:`~skdpgd.pipeline._constant_fallback.plan_constant_check`) then splits
    what is left, so :math:`\mu_{\mathrm{fit}}^2 + \mu_m^2 + \mu_c^2 \le
    \mu_{\mathrm{est}}^2`. Either is None where it does not run.

    Returns
    -------
    correction : MeanCorrectionPlan or None
    check : ConstantCheckPlan or None
    fit_mu : float
        What the fit itself may spend.
    """
    correction = plan_mean_correction(final, budget.estimator_mu, n_samples, mean_correction)
    left = budget if correction is None else replace(budget, estimator_mu=correction.fit_mu)
    check = plan_constant_check(final, left, n_samples, constant_check)
    fit_mu = left.estimator_mu if check is None else check.fit_mu
    return correction, check, float(fit_mu)


def run_mean_correction(estimator, X, y, plan, random_state):
    """Release the noisy mean residual and move the intercept by it.

    Parameters
    ----------
    estimator : DPRidge
        Fitted on ``X, y`` in the scale it was fitted on (changed in place).
    X : array-like or sparse matrix
        The rows the estimator was fitted on (the pipeline's transformed design).
    y : array-like of shape (n,)
        Their targets, as the estimator was fitted on them.
    plan : MeanCorrectionPlan
        From :func:`plan_mean_correction`.
    random_state : int or numpy.random.Generator
        The noise source.

    Returns
    -------
    correction : MeanCorrection
    report : ReleasePrivacyReport
        mu-GDP with ``mu = plan.release_mu``.
    """
    rng = make_generator(random_state)
    bound = float(estimator._public_target_bound())
    y = np.clip(np.asarray(y, dtype=np.float64).ravel(), -bound, bound)
    f = np.asarray(estimator.predict(X), dtype=np.float64).ravel()
    residuals = np.clip(y - f, -2.0 * bound, 2.0 * bound)
    scale = 2.0 * KAPPA * bound / plan.release_mu  # sensitivity 4B over mu_m
    total = math.fsum(residuals.tolist()) + rng.normal(0.0, scale)
    noisy_mean = float(np.clip(total / y.size, -2.0 * bound, 2.0 * bound))
    noise_std = scale / y.size
    threshold = float(norm.isf(LEVEL / 2.0)) * noise_std
    applied = bool(abs(noisy_mean) > threshold)
    shift = math.copysign(abs(noisy_mean) - threshold, noisy_mean) if applied else 0.0
    intercept = np.asarray(estimator.intercept_)
    estimator.intercept_ = (float(estimator.intercept_) + shift if intercept.ndim == 0
                            else (intercept + shift).astype(intercept.dtype))
    correction = MeanCorrection(shift=shift, noisy_mean_residual=noisy_mean,
                                noise_std=noise_std, applied=applied, share=plan.share)
    report = ReleasePrivacyReport(
        mu=float(plan.release_mu), extra_delta=0.0, mechanism=MECHANISM,
        releases=(("y and the model's predictions: sum of clipped residuals",
                   float(plan.release_mu)),))
    return correction, report
