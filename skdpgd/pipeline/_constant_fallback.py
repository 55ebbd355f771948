r"""Never below the constant predictor: a private check of the model against it.

At a small budget a model's released coefficients can be mostly noise, and it then
scores below the *constant predictor* (the most frequent class; the mean of y),
silently. Inside a DP pipeline (``constant_check="auto"``, the default, for classifiers;
``constant_check=True`` also for ``DPRidge``) the estimator's
share of the budget is therefore split, by a public rule, between the fit and one more
release, the *constant check*, and the pipeline keeps the model only when the check says
it beats the private constant predictor; otherwise the fitted estimator becomes the
intercept-only model of the check's release. Everything below is in docs/theory.md,
"Never below the constant predictor", with the proofs.

**Classifiers** (after the fit, on the n rows it was fitted on, as the model reads them:
adaptive composition). For the public label set :math:`\{1,\dots,K\}` the release is
:math:`\tilde v = v + \mathcal N(0, 3/\mu_c^2\,I)`,
:math:`v = (c_1, \dots, c_K, a)`, :math:`c_k = \#\{i : y_i = k\}`,
:math:`a = \#\{i : \hat y(x_i) = y_i\}`: replacing one record changes two counts by one
and :math:`a` by one, so the L2 sensitivity is :math:`\sqrt3` and the release is
:math:`\mu_c`-GDP (Dong, Roth and Su 2022, Theorem 2.7). Every label is in the set (the
fit refuses one outside it), so :math:`\sum_k c_k = n`, public: the noisy counts are
projected onto that plane, :math:`\hat c_k = \tilde c_k - (\sum_j \tilde c_j - n)/K`
(post-processing; it removes the noise of the known total). The constant is
:math:`k^\star = \arg\max_k \hat c_k` (the argmax of the :math:`\tilde c_k` too); the
lead :math:`\tilde a - \hat c_{k^\star}` has noise of standard deviation at most
:math:`\kappa/\mu_c`, :math:`\kappa^2 = 3(2 - 1/K)` (:math:`\sqrt6` without the
projection; docs/theory.md gives the bound that makes the level below hold).

**Regressors** (``DPRidge``, y clipped to :math:`[-B, B]`, B its public ``y_bound``; 1
with ``y_bound="auto"``, where the pipeline fits on the scaled target). Two releases at
:math:`\mu_1 = \mu_2 = \mu_c/\sqrt2`: the sum :math:`S = \sum_i \bar y_i` (sensitivity
2B) plus :math:`\mathcal N(0, (2B/\mu_1)^2)` gives the constant
:math:`\tilde m = \mathrm{clip}(\tilde S / n, -B, B)`; then the lead

.. math::

    D = \sum_i (\bar y_i - \tilde m)^2 - (\bar f_i - \bar y_i)^2,

:math:`\bar f_i` the model's prediction clipped to :math:`[-B, B]`. With
:math:`a = \bar f_i - \tilde m` and :math:`v = \bar y_i - \tilde m`, both in
:math:`[-p, q]` (:math:`p = B + |\tilde m|`, :math:`q = B - |\tilde m|`, up to the sign
of :math:`\tilde m`), a term is :math:`2av - a^2 \in [-p(p + 2q), p^2]`: an interval of
width :math:`2h`, :math:`h = 2B(B + |\tilde m|)`, so given the released
:math:`\tilde m` the sensitivity is :math:`2h \in [4B^2, 8B^2]`, plus
:math:`\mathcal N(0, (2h/\mu_2)^2)` (adaptive composition: the second release's scale is
a function of the first's output). In units of h the lead has standard deviation
:math:`\kappa/\mu_c`, :math:`\kappa = 2\sqrt2`. (Each squared error truncated at
:math:`B^2` would give sensitivity :math:`2B^2`, but truncation moves every term toward
0 on both sides: it hides a noisy model's largest errors, and a model worse than
:math:`\tilde m` in squared error can lead in the truncated one.)

**The decision** (post-processing). The model is kept iff the noisy lead exceeds
:math:`z_a\,\kappa\hat h/\mu_c` (:math:`z_a = \Phi^{-1}(1-a)`, :data:`LEVEL` a = 0.05;
:math:`\hat h = 1` for classifiers, the lead in counts, :math:`\hat h = h/B^2` for
regressors, the lead in units of :math:`B^2`); a model no better than the constant on
the rows (accuracy; squared error of the clipped predictions on the clipped target) has a
lead :math:`\le 0`, so it is kept with probability at most a. Otherwise its coefficients are
set to 0 and its intercepts to the constant's (:math:`\log\hat p_k`,
:math:`\hat p_k \propto \max(\hat c_k, 1)`, for ``K > 2``,
:math:`\log(\hat p_1/\hat p_0)` for two; :math:`\tilde m` for a regressor).

**The share** (public). Each row adds a term in an interval of half-width h to the lead
(h = 1 count; :math:`2B(B + |\tilde m|)`), so the lead's own sampling noise over the n
rows has standard deviation at most :math:`h\sqrt n`. The check's noise is made no larger
than that: :math:`\kappa h/\mu_c \le h\sqrt n` (h cancels: the rule is public), the share
:math:`s = \min(1/2, \max(s_0, \kappa^2/(n\,\mu_{\mathrm{est}}^2)))` of the estimator's
:math:`\mu_{\mathrm{est}}^2` (:data:`MIN_SHARE` :math:`s_0`, :data:`MAX_SHARE` 1/2); the fit
gets :math:`\mu_{\mathrm{fit}} = \mu_{\mathrm{est}}\sqrt{1-s}` and
:math:`\mu_{\mathrm{fit}}^2 + \mu_c^2 \le \mu_{\mathrm{est}}^2` (Corollary 3.3): the
pipeline's allowance for its estimator covers both. The floor :math:`s_0 = 1 - 1/1.01^2`
is the share that raises the fit's noise scale by 1%: where the fit's loss is at most
linear in its noise scale, it costs at most 1% of what the noise costs the model, and it
keeps the margin shrinking as :math:`1/(n\mu)` where the sampling rule alone would hold
it at :math:`z_a/\sqrt n` (a model that leads by little at a large budget is kept).

Where the check applies (public parameters): a ``DPLogisticRegression`` with a public
label set (``classes``), no ``class_weight`` (a weighted objective is not plain
accuracy), or, with ``constant_check=True`` only, a ``DPRidge``; ``fit_intercept=True``, no
``inference`` (its table describes the fitted coefficients) and a finite budget.
Elsewhere nothing changes, to the bit.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm
from sklearn.base import is_classifier, is_regressor

from ..accounting import ReleasePrivacyReport
from ..utils import make_generator

__all__ = ["CONSTANT_CHECK", "LEVEL", "MAX_SHARE", "MIN_SHARE",
           "ConstantCheck", "ConstantCheckPlan", "plan_constant_check", "run_constant_check"]

#: The check's name in a pipeline's report.
CONSTANT_CHECK = "constant check (the model against the private constant predictor)"

#: The largest share of the estimator's mu^2 the check takes (an equal split).
MAX_SHARE = 0.5

#: The smallest share: the one that raises the fit's noise scale by 1%.
MIN_SHARE = 1.0 - 1.0 / 1.01 ** 2

#: a: the largest probability of keeping a model that is no better than the constant.
LEVEL = 0.05

#: kappa: the lead's noise standard deviation times mu_c, in units of the per-row half-width h
#: (a regressor's; a classifier's depends on its K classes: :func:`kappa`).
KAPPA = {"regressor": 2.0 * math.sqrt(2.0)}


def kappa(kind, n_classes=None):
    r"""kappa of the lead: :math:`\sqrt{3(2 - 1/K)}` for K classes, :math:`2\sqrt2` for a
    regressor (module docstring)."""
    if kind == "classifier":
        return math.sqrt(3.0 * (2.0 - 1.0 / int(n_classes)))
    return KAPPA[kind]


MECHANISM = {
    "classifier": (
        "Gaussian noise on (class counts, correct predictions of the fitted model) over "
        "the public label set, replace-one sensitivity sqrt 3 (Dong, Roth, Su 2022, "
        "Theorem 2.7); the counts projected onto their public total n, the model is kept "
        "iff its noisy lead over the largest count passes Phi^-1(0.95) sqrt(3(2 - 1/K)) / mu "
        "(post-processing)"),
    "regressor": (
        "Gaussian noise on the sum of y clipped to [-B, B] (sensitivity 2B), then on the "
        "model's lead over that noisy mean m in squared error (sensitivity 2h, "
        "h = 2B(B + |m|)), each at mu / sqrt 2 (Dong, Roth, Su 2022, Theorem 2.7, "
        "Corollary 3.3); the model is kept iff the noisy lead passes "
        "Phi^-1(0.95) 2 sqrt 2 h / mu"),
}

_GUARD = 1.0 - 2.0 ** -40  # float rounding cannot take the two shares above mu_est^2


def sampling_split(kappa, n_samples, mu_est):
    r"""The share rule of a release after the fit, and the split it gives (public).

    :math:`s = \min(1/2, \max(s_0, \kappa^2/(n\mu_{\mathrm{est}}^2)))`: the release's noise,
    :math:`\kappa/\mu`, no larger than the sampling noise :math:`\sqrt n` of its statistic
    in per-row units (module docstring). Used by the constant check and by the mean
    correction (:mod:`skdpgd.pipeline._mean_correction`).

    Returns
    -------
    share, fit_mu, release_mu : float
        With :math:`\mu_{\mathrm{fit}}^2 + \mu_{\mathrm{release}}^2 \le \mu_{\mathrm{est}}^2`
        in floating point.
    """
    share = min(MAX_SHARE, max(MIN_SHARE, kappa ** 2 / (int(n_samples) * mu_est ** 2)))
    return (share, mu_est * math.sqrt(1.0 - share) * _GUARD,
            mu_est * math.sqrt(share) * _GUARD)


@dataclass(frozen=True)
class ConstantCheckPlan:
    """The public split of the estimator's allowance between its fit and the check.

    Attributes
    ----------
    kind : {"classifier", "regressor"}
        Which release.
    share : float
        s, the check's share of the estimator's mu^2.
    fit_mu, check_mu : float
        The fit's and the check's Gaussian-DP parameters.
    margin : float
        :math:`z_a\\kappa/\\mu_c`: the lead the model needs in units of the per-row
        half-width h (counts; a regressor's check multiplies it by
        :math:`h/B^2 = 2(1 + |\\tilde m|/B)` once :math:`\\tilde m` is released).
    """

    kind: str
    share: float
    fit_mu: float
    check_mu: float
    margin: float


@dataclass(frozen=True)
class ConstantCheck:
    """What the check released and decided (all of it post-processing of the release).

    Attributes
    ----------
    kept_model : bool
        Whether the fitted model was kept (False: the intercept-only model replaced it).
    noisy_lead : float
        The model's noisy lead over the constant (counts; units of B^2).
    margin : float
        The lead the model needed (counts; units of B^2).
    constant : object
        The constant predictor: its class, or its value of y (the fit's scale).
    noisy_counts : ndarray of shape (K,) or None
        Classifiers: the noisy class counts, in the order of ``classes_``.
    share : float
        The check's share of the estimator's mu^2.
    """

    kept_model: bool
    noisy_lead: float
    margin: float
    constant: object
    noisy_counts: object
    share: float


def _kind(final):
    """"classifier", "regressor" or None: whether the public parameters call for it."""
    if getattr(final, "inference", False) or not getattr(final, "fit_intercept", True):
        return None
    if is_classifier(final):
        classes = final._public_label_set()
        public = classes is not None and not isinstance(classes, str)
        return "classifier" if public and not final._weighs_classes() else None
    return "regressor" if is_regressor(final) else None


def plan_constant_check(final, budget, n_samples, enabled="auto"):
    """The check's plan from public numbers, or None where it does not run.

    Parameters
    ----------
    final : estimator
        The pipeline's (unfitted) estimator.
    budget : PipelineBudget
        The pipeline's split (``estimator_mu``).
    n_samples : int
        n.
    enabled : {"auto", True, False}, default="auto"
        The pipeline's ``constant_check`` ("auto": classifiers only).

    Returns
    -------
    ConstantCheckPlan or None
        None: no check (off, not applicable, or no finite budget).
    """
    mu_est, n = float(budget.estimator_mu), int(n_samples)
    auto = isinstance(enabled, str)  # "auto": classifiers only
    kind = _kind(final) if auto or enabled else None
    if auto and kind == "regressor":
        kind = None  # opt-in (docs/theory.md, "Regressors: why the check stays opt-in")
    if kind is None or not 0.0 < mu_est < math.inf:
        return None
    # K: the distinct labels (the fit's classes_; a label listed twice is one class)
    n_classes = (np.unique(np.asarray(final._public_label_set())).size
                 if kind == "classifier" else None)
    k, z = kappa(kind, n_classes), float(norm.isf(LEVEL))
    share, fit_mu, check_mu = sampling_split(k, n, mu_est)
    return ConstantCheckPlan(kind=kind, share=share, fit_mu=fit_mu, check_mu=check_mu,
                             margin=z * k / check_mu)


def _classifier_release(estimator, X, y, mu, rng):
    """The noisy (class counts, correct predictions): the one mu-GDP release."""
    y = np.asarray(y).ravel()
    classes = estimator.classes_
    index = {label: k for k, label in enumerate(classes.tolist())}
    codes = np.fromiter((index.get(label, -1) for label in y.tolist()), dtype=np.int64,
                        count=y.size)
    if np.any(codes < 0):  # the fit refused such a row already: one record's domain
        raise ValueError("y holds a label that is not in the public label set.")
    counts = np.bincount(codes, minlength=classes.size).astype(np.float64)
    correct = float(np.count_nonzero(np.asarray(estimator.predict(X)) == y))
    noise = rng.normal(0.0, math.sqrt(3.0) / mu, classes.size + 1)
    counts, correct = counts + noise[:-1], correct + noise[-1]
    counts -= (math.fsum(counts.tolist()) - y.size) / classes.size  # onto sum = n (public)
    best = int(np.argmax(counts))
    return correct - counts[best], classes[best], counts


def _lead_half_width(bound, mean):
    """h: half the width of the interval every row's plain lead term lies in (units of y^2)."""
    return 2.0 * bound * (bound + abs(mean))


def _regressor_release(estimator, X, y, mu, rng):
    """The noisy mean, then the noisy squared-error lead over it (units of B^2).

    Returns the lead, the mean and None (no counts); the lead's noise is calibrated to
    the released mean's sensitivity 2h (module docstring).
    """
    bound = float(estimator._public_target_bound())  # the numeric bound the fit clipped to
    y = np.clip(np.asarray(y, dtype=np.float64).ravel(), -bound, bound)
    mu_each = mu / math.sqrt(2.0)
    total = math.fsum(y.tolist()) + rng.normal(0.0, 2.0 * bound / mu_each)
    mean = float(np.clip(total / y.size, -bound, bound))
    f = np.clip(np.asarray(estimator.predict(X), dtype=np.float64), -bound, bound)
    terms = (y - mean) ** 2 - (f - y) ** 2
    sensitivity = 2.0 * _lead_half_width(bound, mean)
    lead = math.fsum(terms.tolist()) + rng.normal(0.0, sensitivity / mu_each)
    return lead / (bound * bound), mean, None


def _constant_model(estimator, constant, noisy_counts):
    """Set ``estimator`` to the intercept-only model of the release."""
    coef = np.asarray(estimator.coef_)
    estimator.coef_ = np.zeros_like(coef)
    if noisy_counts is None:
        estimator.intercept_ = float(constant)
        return
    p = np.maximum(noisy_counts, 1.0)
    log_p = np.log(p / p.sum())
    intercept = np.array([log_p[1] - log_p[0]]) if log_p.size == 2 else log_p
    estimator.intercept_ = intercept.reshape(np.shape(estimator.intercept_)).astype(
        np.asarray(estimator.intercept_).dtype)


def run_constant_check(estimator, X, y, plan, random_state):
    """Release the check, keep the model or set it to the constant predictor.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPRidge
        Fitted on ``X, y`` (changed in place when the constant predictor wins); a
        ``DPRidge`` in the scale it was fitted on (before the pipeline maps it to y's).
    X : array-like or sparse matrix
        The rows the estimator was fitted on (the pipeline's transformed design).
    y : array-like of shape (n,)
        Their labels or targets, as the estimator was fitted on them.
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
    rng = make_generator(random_state)
    release = _classifier_release if plan.kind == "classifier" else _regressor_release
    lead, constant, counts = release(estimator, X, y, plan.check_mu, rng)
    margin = plan.margin
    if plan.kind == "regressor":  # h / B^2: the margin in the lead's units of B^2
        bound = float(estimator._public_target_bound())
        margin *= _lead_half_width(bound, constant) / (bound * bound)
    kept = bool(lead > margin)
    if not kept:
        _constant_model(estimator, constant, counts)
    check = ConstantCheck(kept_model=kept, noisy_lead=float(lead), margin=float(margin),
                          constant=constant, noisy_counts=counts, share=plan.share)
    what = ("y and the model's predictions: class counts and correct predictions"
            if plan.kind == "classifier" else
            "y and the model's predictions: sum of clipped y, squared-error lead")
    report = ReleasePrivacyReport(mu=float(plan.check_mu), extra_delta=0.0,
                                  mechanism=MECHANISM[plan.kind],
                                  releases=((what, float(plan.check_mu)),))
    return check, report
