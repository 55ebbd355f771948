r"""Data-fit terms of the linear models, with their public constants.

Each loss gives the sum over rows of its per-example value and gradient, and states
the constants the privacy analysis needs as functions of public bounds only
(DESIGN.md section 2, table): with augmented rows of norm at most Rt,

=================  ==================  ===========  ======================
loss               gradient bound L    smoothness   replace-one sensitivity S
=================  ==================  ===========  ======================
binary logistic    Rt                  Rt^2 / 4     2 Rt
softmax (K)        sqrt(2) Rt          Rt^2 / 2     2 sqrt(2) Rt
Huber, clip c      c Rt                Rt^2         2 c Rt
squared, ||th||<=r Rt (r Rt + B)       Rt^2         2 Rt (r Rt + B)
=================  ==================  ===========  ======================

``coef`` has shape (d,) for the scalar losses and (n_classes, d) for softmax; X may
be a dense array or a CSR matrix (already clipped, intercept column appended).
"""

import math

import numpy as np
from scipy.special import expit, log_softmax, softmax


def _check_bound(name, value):
    if value is None or not value > 0:
        raise ValueError(f"{name} must be a positive public bound, got {value!r}.")
    return float(value)


class BinaryLogisticLoss:
    r"""Logistic loss :math:`\log(1 + e^{t}) - y t`, :math:`t = \theta\cdot x`, y in {0, 1}.

    Gradient :math:`(\sigma(t) - y)\,x` with :math:`|\sigma(t) - y| < 1`, so
    L = Rt; the Hessian :math:`\sigma(t)(1-\sigma(t))\,x x^T \preceq x x^T/4` gives
    smoothness Rt^2/4; two records' gradients differ by at most 2 Rt (DESIGN.md 2).
    """

    def coef_shape(self, n_features):
        return (n_features,)

    def value_sum(self, coef, X, y):
        t = X @ coef
        return float(np.sum(np.logaddexp(0.0, t) - y * t))

    def gradient_sum(self, coef, X, y):
        residual = expit(X @ coef) - y
        return np.asarray(X.T @ residual).ravel()

    def gradient_bound(self, row_norm):
        return float(row_norm)

    def smoothness(self, row_norm):
        return row_norm**2 / 4.0

    def sensitivity(self, row_norm):
        return 2.0 * row_norm


class MultinomialLogisticLoss:
    r"""Softmax cross-entropy, :math:`\theta \in \mathbb{R}^{K\times d}`, y in {0..K-1}.

    Gradient :math:`(p - e_y)\,x^T` with :math:`\|p - e_y\| \le \sqrt{2}`, so
    L = sqrt(2) Rt and S = 2 sqrt(2) Rt; the Hessian
    :math:`(\mathrm{diag}(p) - p p^T) \otimes x x^T` has norm at most Rt^2/2
    (the largest eigenvalue of diag(p) - p p^T is at most 1/2). DESIGN.md 2.
    """

    def __init__(self, n_classes):
        if int(n_classes) < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes!r}.")
        self.n_classes = int(n_classes)

    def coef_shape(self, n_features):
        return (self.n_classes, n_features)

    def _scores(self, coef, X):
        return np.asarray(X @ coef.T)

    def value_sum(self, coef, X, y):
        log_p = log_softmax(self._scores(coef, X), axis=1)
        return float(-np.sum(log_p[np.arange(len(y)), y]))

    def gradient_sum(self, coef, X, y):
        residual = softmax(self._scores(coef, X), axis=1)
        residual[np.arange(len(y)), y] -= 1.0
        return np.asarray(X.T @ residual).T

    def gradient_bound(self, row_norm):
        return math.sqrt(2.0) * row_norm

    def smoothness(self, row_norm):
        return row_norm**2 / 2.0

    def sensitivity(self, row_norm):
        return 2.0 * math.sqrt(2.0) * row_norm


class HuberLoss:
    r"""Huber loss of the residual, threshold c (the clipped-residual regression loss).

    :math:`h_c(r) = r^2/2` for :math:`|r| \le c`, :math:`c|r| - c^2/2` otherwise, with
    :math:`r = \theta\cdot x - y`. Gradient :math:`\mathrm{clip}(r, -c, c)\,x`: bounded by
    c Rt for every theta (L = c Rt, S = 2 c Rt, no projection needed), Rt^2-smooth
    because clip is 1-Lipschitz (DESIGN.md 3, last paragraph; docs/ridge_objective.md).
    """

    def __init__(self, residual_clip):
        self.residual_clip = _check_bound("residual_clip", residual_clip)

    def coef_shape(self, n_features):
        return (n_features,)

    def value_sum(self, coef, X, y):
        r = np.abs(X @ coef - y)
        c = self.residual_clip
        return float(np.sum(np.where(r <= c, 0.5 * r * r, c * r - 0.5 * c * c)))

    def gradient_sum(self, coef, X, y):
        c = self.residual_clip
        residual = np.clip(X @ coef - y, -c, c)
        return np.asarray(X.T @ residual).ravel()

    def gradient_bound(self, row_norm):
        return self.residual_clip * row_norm

    def smoothness(self, row_norm):
        return float(row_norm) ** 2

    def sensitivity(self, row_norm):
        return 2.0 * self.residual_clip * row_norm


class SquaredLoss:
    r"""Squared loss :math:`\tfrac12(\theta\cdot x - y)^2` on the ball :math:`\|\theta\| \le r`.

    Its gradient is bounded only on a bounded domain: with :math:`|y| \le B`,
    L = Rt (r Rt + B), S = 2 Rt (r Rt + B), smoothness Rt^2 (DESIGN.md 2). Runs using it
    must project onto the ball of radius ``radius``.
    """

    def __init__(self, radius, y_bound):
        self.radius = _check_bound("radius", radius)
        self.y_bound = _check_bound("y_bound", y_bound)

    def coef_shape(self, n_features):
        return (n_features,)

    def value_sum(self, coef, X, y):
        r = X @ coef - y
        return float(0.5 * np.dot(r, r))

    def gradient_sum(self, coef, X, y):
        return np.asarray(X.T @ (X @ coef - y)).ravel()

    def gradient_bound(self, row_norm):
        return row_norm * (self.radius * row_norm + self.y_bound)

    def smoothness(self, row_norm):
        return float(row_norm) ** 2

    def sensitivity(self, row_norm):
        return 2.0 * self.gradient_bound(row_norm)
