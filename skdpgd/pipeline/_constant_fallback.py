r"""Never below the constant predictor: a private check of the model against it.

At a small budget a classifier's released coefficients can be mostly noise, and its
predicted class then scores below the *constant predictor* (the most frequent class),
silently. Inside a DP pipeline a classifier's share of the budget is therefore split,
by a public rule, between the fit and one more release, the *constant check*, and the
pipeline keeps the model only when the check says it beats the constant predictor.

**The release** (after the fit, on the n rows the model was fitted on, its
coefficients fixed: adaptive composition). For the public label set
:math:`\{1,\dots,K\}`, the vector

.. math::

    v = \Big(c_1, \dots, c_K,\; a\Big), \qquad c_k = \#\{i : y_i = k\},\qquad
    a = \#\{i : \hat y(x_i) = y_i\},

the class counts and the model's number of correct predictions on the rows as the
model reads them (clipped to its ``data_norm``). Replacing one record changes at most
two counts by one each and :math:`a` by at most one, so the replace-one L2
sensitivity is :math:`\sqrt3`, and :math:`\tilde v = v + \mathcal N(0, 3/\mu_c^2\,I)`
is :math:`\mu_c`-GDP (Dong, Roth and Su 2022, Theorem 2.7).

**The decision** (post-processing of :math:`\tilde v`). The constant predictor is
:math:`k^\star = \arg\max_k \tilde c_k`, with probabilities
:math:`\hat p_k = \max(\tilde c_k, 1) / \sum_j \max(\tilde c_j, 1)`. The model is kept
iff

.. math::

    \tilde a - \tilde c_{k^\star} > z_a\,\frac{\sqrt 6}{\mu_c},\qquad
    z_a = \Phi^{-1}(1 - a),\ a = 0.05,

the standard deviation of :math:`\tilde a - \tilde c_{k}` being
:math:`\sqrt{2\cdot 3}/\mu_c`. When the model's count of correct predictions is at most
the best constant's, :math:`a \le c_{k^\star}` and the noisy difference is
:math:`\mathcal N(\le 0, 6/\mu_c^2)` (the max of noisy counts only raises
:math:`\tilde c_{k^\star}`), so a model worse than the constant predictor on the rows is
kept with probability at most :math:`a`. Otherwise the fitted estimator's coefficients
are set to 0 and its intercepts to the constant predictor's (:math:`\log \hat p_k` for
``K > 2``, :math:`\log(\hat p_1/\hat p_0)` for two classes): predictions, probabilities
and decision values are then the intercept-only model's.

**The share** (public). The difference's standard deviation in accuracy units is
:math:`r = \sqrt 6/(n\mu_c)`; the check takes the share
:math:`s = (\sqrt6/(n\,r_0\,\mu_{\mathrm{est}}))^2` of the estimator's
:math:`\mu_{\mathrm{est}}^2` that resolves accuracy to :math:`r_0` = 0.02
(:data:`RESOLUTION`), at least :data:`MIN_SHARE` = 0.02, at most
:data:`MAX_SHARE` = 1/2; the fit gets
:math:`\mu_{\mathrm{fit}} = \mu_{\mathrm{est}}\sqrt{1-s}`, the check
:math:`\mu_c = \mu_{\mathrm{est}}\sqrt s`, and :math:`\mu_{\mathrm{fit}}^2 + \mu_c^2 \le
\mu_{\mathrm{est}}^2` (Corollary 3.3): the pipeline's planned allowance for its
estimator covers both. A model better than the constant by
:math:`(z_a + z_{0.05}) r_0 \approx 0.066` in accuracy is kept with probability at
least 0.95 wherever the share is below its cap; at large n the share vanishes
(:math:`s \propto 1/(n\mu)^2` down to the floor 0.02, where the resolution is finer
than :math:`r_0`), so
a good model loses almost nothing; at the cap (tiny budgets) the check is coarser and
the rule keeps the constant unless the model is clearly better.

Where the check applies (public parameters): a classifier with a public label set
(``classes``), no ``class_weight`` (a weighted objective is not plain accuracy), no
``inference`` (its coefficient table describes the fitted coefficients) and a finite
budget. Elsewhere nothing changes, to the bit.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm
from sklearn.base import is_classifier

from ..accounting import ReleasePrivacyReport, gdp_to_epsilon
from ..accounting.calibration import round_down
from ..utils import make_generator

__all__ = ["CONSTANT_CHECK", "ENABLED", "MAX_SHARE", "RESOLUTION", "ConstantCheck",
           "ConstantCheckPlan",
           "plan_constant_check", "run_constant_check"]

#: Whether DPPipeline runs the check by default. Off until the pipeline tests that list a
#: report's steps name the check (benchmarks/constant_predictor.py turns it on).
ENABLED = False

#: The check's name in a pipeline's report.
CONSTANT_CHECK = "constant check (the model against the private constant predictor)"

#: r_0: the accuracy the check's difference resolves (its standard deviation).
RESOLUTION = 0.02

#: The largest share of the estimator's mu^2 the check takes.
MAX_SHARE = 0.5

#: The smallest share: at large budgets, a resolution finer than r_0 for 1% more noise.
MIN_SHARE = 0.02

#: a: the largest probability of keeping a model that is worse than the constant.
LEVEL = 0.05

MECHANISM = ("Gaussian noise on (class counts, correct predictions of the fitted model) "
             "over the public label set, replace-one sensitivity sqrt 3 (Dong, Roth, Su "
             "2022, Theorem 2.7); the model is kept iff its noisy count of correct "
             "predictions beats the largest noisy class count by Phi^-1(0.95) sqrt 6 / mu "
             "(post-processing)")

_GUARD = 1.0 - 2.0 ** -40  # float rounding cannot take the two shares above mu_est^2


@dataclass(frozen=True)
class ConstantCheckPlan:
    """The public split of the estimator's allowance between its fit and the check.

    Attributes
    ----------
    share : float
        s, the check's share of the estimator's mu^2.
    fit_mu, check_mu : float
        The fit's and the check's Gaussian-DP parameters.
    fit_epsilon, fit_delta : float
        What the estimator is calibrated to (its mu is then at most ``fit_mu``).
    margin : float
        :math:`z_a\\sqrt6/\\mu_c`, in counts.
    """

    share: float
    fit_mu: float
    check_mu: float
    fit_epsilon: float
    fit_delta: float
    margin: float


@dataclass(frozen=True)
class ConstantCheck:
    """What the check released and decided (all of it post-processing of the release).

    Attributes
    ----------
    kept_model : bool
        Whether the fitted model was kept (False: the intercept-only model replaced it).
    noisy_correct : float
        The model's noisy count of correct predictions on the fitted rows.
    noisy_counts : ndarray of shape (K,)
        The noisy class counts, in the order of ``classes_``.
    constant_class : object
        The constant predictor's class (the largest noisy count).
    margin : float
        The lead the model needed, in counts.
    share : float
        The check's share of the estimator's mu^2.
    """

    kept_model: bool
    noisy_correct: float
    noisy_counts: np.ndarray
    constant_class: object
    margin: float
    share: float


def _applies(final):
    """Whether the public parameters call for the check (module docstring)."""
    if not is_classifier(final) or getattr(final, "inference", False):
        return False
    classes = getattr(final, "classes", None)
    return (classes is not None and not isinstance(classes, str)
            and getattr(final, "class_weight", None) is None)


def plan_constant_check(final, budget, n_samples):
    """The check's plan from public numbers, or None where it does not apply.

    Parameters
    ----------
    final : estimator
        The pipeline's (unfitted) estimator.
    budget : PipelineBudget
        The pipeline's split (``estimator_mu``, ``estimator_delta``).
    n_samples : int
        n.

    Returns
    -------
    ConstantCheckPlan or None
    """
    mu_est = float(budget.estimator_mu)
    if not ENABLED or not _applies(final) or not 0.0 < mu_est < math.inf:
        return None
    needed = (math.sqrt(6.0) / (int(n_samples) * RESOLUTION * mu_est)) ** 2
    share = min(MAX_SHARE, max(MIN_SHARE, needed))
    fit_mu = mu_est * math.sqrt(1.0 - share) * _GUARD
    check_mu = mu_est * math.sqrt(share) * _GUARD
    fit_epsilon = float(gdp_to_epsilon(round_down(fit_mu), budget.estimator_delta))
    margin = float(norm.isf(LEVEL)) * math.sqrt(6.0) / check_mu
    return ConstantCheckPlan(share=share, fit_mu=fit_mu, check_mu=check_mu,
                             fit_epsilon=fit_epsilon, fit_delta=float(budget.estimator_delta),
                             margin=margin)


def _released(estimator, X, y, mu, random_state):
    """The noisy (class counts, correct predictions): the one mu-GDP release."""
    y = np.asarray(y).ravel()
    classes = estimator.classes_
    index = {label: k for k, label in enumerate(classes.tolist())}
    codes = np.fromiter((index.get(label, -1) for label in y.tolist()), dtype=np.int64,
                        count=y.size)
    counts = np.bincount(codes[codes >= 0], minlength=classes.size).astype(np.float64)
    correct = float(np.count_nonzero(np.asarray(estimator.predict(X)) == y))
    noise = make_generator(random_state).normal(0.0, math.sqrt(3.0) / mu, classes.size + 1)
    return counts + noise[:-1], correct + noise[-1]


def _constant_model(estimator, noisy_counts):
    """Set ``estimator`` to the intercept-only model of the noisy counts."""
    p = np.maximum(noisy_counts, 1.0)
    log_p = np.log(p / p.sum())
    coef = np.zeros_like(np.asarray(estimator.coef_, dtype=np.float64))
    intercept = (np.array([log_p[1] - log_p[0]]) if log_p.size == 2 else log_p)
    estimator.coef_ = coef.astype(np.asarray(estimator.coef_).dtype)
    estimator.intercept_ = intercept.reshape(np.shape(estimator.intercept_)).astype(
        np.asarray(estimator.intercept_).dtype)


def run_constant_check(estimator, X, y, plan, random_state):
    """Release the check, keep the model or set it to the constant predictor.

    Parameters
    ----------
    estimator : DPLogisticRegression
        Fitted on ``X, y`` (changed in place when the constant predictor wins).
    X : array-like or sparse matrix
        The rows the estimator was fitted on (the pipeline's transformed design).
    y : array-like of shape (n,)
        Their labels.
    plan : ConstantCheckPlan
        From :func:`plan_constant_check`.
    random_state : int or numpy.random.Generator
        The noise source.

    Returns
    -------
    check : ConstantCheck
    report : ReleasePrivacyReport
        mu-GDP with ``mu = plan.check_mu``.
    """
    noisy_counts, noisy_correct = _released(estimator, X, y, plan.check_mu, random_state)
    best = int(np.argmax(noisy_counts))
    kept = bool(noisy_correct - noisy_counts[best] > plan.margin)
    if not kept:
        _constant_model(estimator, noisy_counts)
    check = ConstantCheck(kept_model=kept, noisy_correct=float(noisy_correct),
                          noisy_counts=noisy_counts, constant_class=estimator.classes_[best],
                          margin=plan.margin, share=plan.share)
    report = ReleasePrivacyReport(
        mu=float(plan.check_mu), extra_delta=0.0, mechanism=MECHANISM,
        releases=(("y and the model's predictions: class counts and correct predictions",
                   float(plan.check_mu)),))
    return check, report
