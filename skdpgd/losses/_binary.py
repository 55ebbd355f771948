r"""The binary logistic loss, with an optional residual clip (docs/theory.md#loss-constants)."""

import math

import numpy as np
from scipy.special import expit

from ._base import BaseLoss, _as_vector, _positive, _weighted, _weighted_total

__all__ = ['BinaryLogisticLoss']


class BinaryLogisticLoss(BaseLoss):
    r"""Binary logistic loss (half binomial deviance), labels y in {0, 1}, with an
    optional clip c of the residual (a Huberised logistic loss).

    .. math::

        l(\theta; x, y) = \log(1 + e^{t}) - y\,t, \qquad t = \theta\cdot x,

        \nabla l = (\sigma(t) - y)\,x, \qquad
        \nabla^2 l = \sigma(t)\,(1 - \sigma(t))\,x x^\top,

    with :math:`\sigma` the logistic sigmoid. The value is computed as
    ``logaddexp(0, t) - y t`` and the gradient with ``expit``, both stable for any t.

    **Residual clip** c in (0, 1] (``residual_clip``; c = 1 is the plain loss, since
    :math:`|\sigma(t) - y| < 1`). The gradient is
    :math:`\mathrm{clip}(\sigma(t) - y, -c, c)\,x`. In the signed margin
    :math:`u = (2y - 1)\,t` the plain loss is :math:`\phi(u) = \log(1 + e^{-u})` with
    :math:`\phi'(u) = -\sigma(-u)`; clipping :math:`\phi'` at -c replaces
    :math:`\phi` by its tangent line below :math:`a = \log((1-c)/c)` (where
    :math:`\sigma(-a) = c`):

    .. math::

        \phi_c(u) = \begin{cases} \log(1 + e^{-u}) & u \ge a \\
                     \log(1 + e^{-a}) - c\,(u - a) & u < a. \end{cases}

    :math:`\phi_c'(u) = \max(-\sigma(-u), -c)` is a maximum of nondecreasing functions,
    hence nondecreasing: :math:`\phi_c` is convex, and its derivative is 1/4-Lipschitz
    like :math:`\phi'`. It is the logistic analogue of the Huber loss (same construction
    as :class:`HuberLoss`: the derivative of a convex loss clipped at a level). With
    c = 1/2, a = 0: correctly classified rows keep the logistic gradient and
    misclassified rows contribute a gradient of fixed size c|x| (a linear loss in the
    margin), so the sensitivity halves. :math:`\phi_c` is convex with
    :math:`\phi_c'(0) < 0`, hence classification-calibrated (Bartlett, Jordan, McAuliffe
    2006, Theorem 6): its minimiser still targets the Bayes classifier.

    Constants (:ref:`loss-constants`; :math:`\|x\| \le \tilde R`, any theta in
    :math:`\mathbb{R}^d`, so no projection is needed):

    * L = c Rt, since :math:`|\mathrm{clip}(\sigma(t) - y, -c, c)| \le c` (and < 1);
      approached as :math:`t \to -\infty` with y = 1.
    * beta_l = Rt^2/4, since the clipped residual is 1/4-Lipschitz in t
      (:math:`\sigma' = \sigma(1 - \sigma) \le 1/4`, clipping is 1-Lipschitz).
    * S = 2 c Rt by the triangle inequality. The supremum is approached (attained for
      c < 1): two nearly equal rows :math:`x \approx x'` of norm Rt with opposite labels
      and :math:`\theta\cdot x \to +\infty` (y = 0), :math:`\theta\cdot x' \to -\infty`
      (y' = 1) give gradients close to :math:`c x` and :math:`-c x'`.

    Parameters
    ----------
    residual_clip : float, default=1.0
        c in (0, 1].
    """

    fused_kernel = "logistic"
    row_wise_gradient = True
    curvature = 0.25

    def __init__(self, residual_clip=1.0):
        c = _positive("residual_clip", residual_clip)
        if c > 1.0:
            raise ValueError(
                f"residual_clip must be in (0, 1] (|sigma(t) - y| < 1, so 1 is no clip); got {c!r}."
            )
        self.residual_clip = c

    def __repr__(self):
        if self.residual_clip == 1.0:
            return "BinaryLogisticLoss()"
        return f"BinaryLogisticLoss(residual_clip={self.residual_clip!r})"

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\phi_c((2y_i - 1)\,t_i)`, :math:`t = X\theta`."""
        t = _as_vector(X @ coef)
        c = self.residual_clip
        if c == 1.0:
            return _weighted_total(np.logaddexp(0.0, t) - y * t, sample_weight)
        u = (2.0 * y - 1.0) * t
        a = math.log((1.0 - c) / c)
        plain = np.logaddexp(0.0, -np.maximum(u, a))  # phi at max(u, a): never overflows
        return _weighted_total(plain - c * np.minimum(u - a, 0.0), sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\mathrm{clip}(\sigma(t_i) - y_i, -c, c)\,x_i`."""
        residual = expit(_as_vector(X @ coef)) - y
        if self.residual_clip < 1.0:
            residual = np.clip(residual, -self.residual_clip, self.residual_clip)
        return _as_vector(X.T @ _weighted(residual, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = c Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return self.residual_clip * _positive("row_norm", row_norm)

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 c Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return 2.0 * self.residual_clip * _positive("row_norm", row_norm)

    def value_at_zero_bound(self, *, y_bound=None):
        r""":math:`\phi_c(0)`, the loss of every record at theta = 0 (``y_bound`` ignored).

        log 2 for c >= 1/2 (the plain loss at margin 0); for c < 1/2, a > 0 and
        :math:`\phi_c(0) = \log(1 + e^{-a}) + c\,a`. Computed as :meth:`value_sum` does.

        Parameters
        ----------
        y_bound : None
            Not needed (a label is 0 or 1).

        Returns
        -------
        float
            :math:`\phi_c(0)`.
        """
        c = self.residual_clip
        if c >= 0.5:
            return math.log(2.0)
        a = math.log((1.0 - c) / c)
        return float(np.logaddexp(0.0, -a)) + c * a

    def inference_loss(self):
        """The plain loss (c = 1): an automatic clip is not part of the model's target.

        Returns
        -------
        BinaryLogisticLoss
            ``BinaryLogisticLoss(1.0)``.
        """
        return BinaryLogisticLoss(1.0)

    def inference_third_bound(self):
        r""":math:`c_3 = 1/(6\sqrt3)`, the maximum of :math:`|l^{(3)}| =
        |\sigma(1-\sigma)(1-2\sigma)|`, attained at :math:`\sigma = (3 \pm \sqrt3)/6`.

        Returns
        -------
        float
            :math:`1/(6\sqrt3)`.
        """
        return 1.0 / (6.0 * math.sqrt(3.0))

    def inference_bounds(self):
        r"""(1/4, 1): :math:`l'' = \sigma(t)(1 - \sigma(t)) \le 1/4`, :math:`|\sigma(t) - y| < 1`.

        Returns
        -------
        tuple of float
            :math:`(c_H, \psi_{\max}) = (1/4, 1)`.

        Raises
        ------
        ValueError
            For a clipped residual (c < 1): it moves the estimate away from the logistic
            coefficients that the intervals are about.
        """
        if self.residual_clip != 1.0:
            raise ValueError(
                "inference needs the plain logistic loss (residual_clip=1): a clipped "
                "residual moves the estimate away from the logistic coefficients."
            )
        return 0.25, 1.0

    def inference_rows(self, t, y):
        r""":math:`w = \sigma(t)(1 - \sigma(t))`, :math:`\psi = \sigma(t) - y`.

        Parameters
        ----------
        t : ndarray of shape (n_samples,)
            Linear predictions.
        y : ndarray of shape (n_samples,)
            Labels in {0, 1}.

        Returns
        -------
        w, psi : ndarray of shape (n_samples,)
            Curvature and residual of each row.
        """
        p = expit(t)
        return p * (1.0 - p), p - y
