r"""Public guesses used by the "auto" hyperparameters (no data involved).

The utility proxy that picks lam and K (:func:`skdpgd.solvers.utility_proxy`)
needs r0, a guess of the norm of the comparator theta*. It may depend only on public
quantities; these rules derive it from the scale of the output the model must produce.
"""

import math

#: Logit a confident prediction needs: log(0.99 / 0.01), i.e. probabilities of 1% / 99%.
CONFIDENT_LOGIT = math.log(99.0)


def minimax_norm_guess(output_scale, row_norm, n_params):
    r"""Public guess of ||theta*|| for a linear model that must output ``output_scale``.

    A model needs :math:`|\theta\cdot x| \approx m` (m = ``output_scale``) on rows of
    norm up to R. If the signal is spread evenly over the p coordinates of x, the
    smallest such theta has norm m / R; if a single coordinate (of size R/sqrt(p))
    carries it, the norm is m sqrt(p) / R. The utility proxy
    :math:`U(\lambda) = \lambda r_0^2/2 + A/\lambda` loses the factor
    :math:`(k + 1/k)/2` when r0 is off by a factor k either way, so the geometric mean
    of the two ends, :math:`r_0 = m\,p^{1/4}/R`, minimises the worst-case loss over
    that range: a factor :math:`(p^{1/4} + p^{-1/4})/2`.
    """
    return output_scale * n_params**0.25 / row_norm


def initial_distance(output_scale, data_norm, n_features, n_outputs=1, intercept_scaling=None):
    r"""r0 of a linear model with k outputs, d features and an optional intercept column b.

    The features carry :func:`minimax_norm_guess` over their p = k d weights, and each
    of the k outputs needs an offset of the same scale m from its intercept, i.e. a
    weight m/b on the constant column b:

    .. math::

        r_0^2 = \frac{m^2\sqrt{k d}}{R^2} + \frac{k\,m^2}{b^2}

    (the second term absent without an intercept).
    """
    features = minimax_norm_guess(output_scale, data_norm, n_outputs * n_features)
    if intercept_scaling is None:
        return features
    return math.hypot(features, output_scale * math.sqrt(n_outputs) / intercept_scaling)


def auto_intercept_scaling(data_norm, n_features, n_outputs=1, inference=False):
    r"""Default intercept column :math:`b = R\,(k/d)^{1/8}` from public R, d and k alone
    (:math:`b = R/\sqrt d` with ``inference``: :func:`inference_intercept_scaling`).

    The intercept is learnt as one more weight per output on a constant column b, so
    b trades two things. The row-norm bound :math:`R_t = \sqrt{R^2 + b^2}` grows with b
    (the noise of every bound is proportional to the sensitivity, hence to
    :math:`R_t`); the weight m/b that produces an offset m shrinks with b, and so does
    the guess :math:`r_0(b)` of :func:`initial_distance`. Rescaling the rows by s and
    theta by 1/s changes no prediction, so after the planner has chosen lam, eta and K
    the utility proxy (:func:`skdpgd.solvers.utility_proxy`, and its cyclic and
    sampled versions) depends on b only through the scale-free product
    :math:`r_0(b)\,R_t(b)`: its noise term :math:`\eta p\sigma^2/4` is invariant
    (:math:`\eta \propto 1/R_t^2`, :math:`\sigma^2 \propto R_t^2`) and the other
    terms scale with :math:`r_0^2 R_t^2`. With
    :math:`r_0^2 = A + B/b^2`, :math:`A = m^2\sqrt{kd}/R^2`, :math:`B = k m^2`,

    .. math::

        r_0(b)^2 R_t(b)^2 = A R^2 + B + A b^2 + \frac{B R^2}{b^2}

    is smallest (AM-GM) at :math:`b^2 = R\sqrt{B/A}`, i.e.
    :math:`b = R\,(k/d)^{1/8}`, whatever m. One output (binary logistic, ridge):
    :math:`b = R\,d^{-1/8}`. The scikit-learn-style b = 1 = R would spend half of
    :math:`R_t^2` on one coordinate. Pure function of public numbers.
    """
    if inference:
        return inference_intercept_scaling(data_norm, n_features)
    return float(data_norm) * (float(n_outputs) / float(n_features)) ** 0.125


def inference_intercept_scaling(data_norm, n_features):
    r"""The intercept column of a fit with ``inference=True``: :math:`b = R/\sqrt d`.

    The private table's width is decided by the Hessian release's noise edge
    :math:`f_M \propto c_H R_t^2 = c_H(R^2 + b^2)` against the smallest curvature of the
    augmented design (docs/theory.md, "The intercept column of a fit with inference").
    The intercept's own curvature is at most :math:`c_H b^2` (its column is the constant
    b) and the d slopes' at most :math:`c_H R^2/d` on average (the slope block's trace is
    at most :math:`c_H R^2`), so the best smallest curvature any data set can show is
    :math:`c_H\min(b^2, R^2/d)`, and the public noise ratio
    :math:`(R^2 + b^2)/\min(b^2, R^2/d)` is smallest at :math:`b^2 = R^2/d` (below it
    the ratio falls with b, above it rises). There every augmented coordinate can carry
    :math:`R_t^2/p`, the isotropic bound of the identifiability rule is attained, and
    :math:`R_t^2 = R^2(1 + 1/d)` instead of :math:`R^2(1 + d^{-1/4})`. Pure function of
    public numbers (one output: inference supports binary and regression fits only).
    """
    return float(data_norm) / math.sqrt(float(n_features))


def logistic_initial_distance(data_norm, n_features, n_outputs=1, intercept_scaling=None):
    """r0 for logistic regression: :func:`initial_distance` with a logit of log(99)."""
    return initial_distance(CONFIDENT_LOGIT, data_norm, n_features, n_outputs, intercept_scaling)


def ridge_initial_distance(y_bound, data_norm, n_features, intercept_scaling=None):
    """r0 for ridge: :func:`initial_distance` with the target bound B as output scale."""
    return initial_distance(y_bound, data_norm, n_features, 1, intercept_scaling)


#: Default residual clip of the binary logistic loss: |sigma(t) - y| = 1/2 exactly on the
#: decision boundary, so rows that are classified correctly keep the logistic gradient
#: and misclassified rows count with a fixed weight (BinaryLogisticLoss, residual_clip).
BINARY_RESIDUAL_CLIP = 0.5

#: Huber's threshold for 95% asymptotic efficiency under Gaussian residuals, in units of
#: the residual standard deviation (Huber 1964; Huber and Ronchetti 2009, section 4.6).
HUBER_EFFICIENT_THRESHOLD = 1.345

#: The R^2 of the model the default threshold is tuned for.
REFERENCE_R2 = 0.9


def ridge_residual_clip(y_bound):
    r"""Default Huber threshold c from the public target bound B alone.

    Targets spread uniformly over [-B, B] have standard deviation :math:`B/\sqrt3`; a
    model with :math:`R^2 = 0.9` leaves residuals of standard deviation
    :math:`\sqrt{0.1}\,B/\sqrt3`, and Huber's 95%-efficiency threshold is 1.345 of
    those: :math:`c = 1.345\sqrt{0.1/3}\,B \approx 0.246\,B`. The noise is proportional
    to c, so a smaller c buys accuracy at small budgets; residuals beyond c are treated
    robustly (L1-like) rather than quadratically.
    """
    # written as before the spread rule: the same float, to the bit, for every plan
    return HUBER_EFFICIENT_THRESHOLD * (1.0 - REFERENCE_R2) ** 0.5 / 3.0**0.5 * y_bound


def ridge_residual_clip_for_spread(target_sd):
    r"""Huber's threshold for a model with :math:`R^2 = 0.9` on a target of spread s.

    :math:`c = 1.345\sqrt{1 - 0.9}\,s`: the residuals of such a model have standard
    deviation :math:`\sqrt{0.1}\,s`, and 1.345 of those is Huber's 95%-efficiency
    threshold. :func:`ridge_residual_clip` takes the uniform law's :math:`s = B/\sqrt3`
    (public); inside a DP pipeline with ``y_bound="auto"`` the spread read from the
    target range's own release is used instead (post-processing; docs/theory.md, "The
    Huber threshold from the target's released spread").
    """
    return HUBER_EFFICIENT_THRESHOLD * (1.0 - REFERENCE_R2) ** 0.5 * float(target_sd)
