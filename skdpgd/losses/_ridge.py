r"""The regression losses: Huber (clipped residual) and squared (docs/theory.md#loss-constants)."""

import numpy as np

from ._base import BaseLoss, _as_vector, _positive, _weighted, _weighted_total

__all__ = ['HuberLoss', 'SquaredLoss']


class HuberLoss(BaseLoss):
    r"""Huber loss of the residual with threshold c: the clipped-residual regression loss.

    With :math:`r = \theta\cdot x - y` and :math:`a = \min(|r|, c)`:

    .. math::

        h_c(r) = \begin{cases} r^2/2 & |r| \le c \\ c|r| - c^2/2 & |r| > c \end{cases}
               = a\,(|r| - a/2), \qquad
        \nabla l = \mathrm{clip}(r, -c, c)\,x

    (:ref:`loss-constants`; Huber 1964). The second form of h_c is the one
    computed: it never squares a large residual.

    Constants (any theta in :math:`\mathbb{R}^d`, any target; no projection and no
    target bound are needed):

    * L = c Rt, since :math:`|\mathrm{clip}(r, -c, c)| \le c`; attained when
      :math:`|r| \ge c` and :math:`\|x\| = \tilde R`.
    * beta_l = Rt^2: the gradient is Lipschitz in theta with constant
      :math:`\|x\|^2` because clip is 1-Lipschitz (Hessian :math:`x x^\top` where
      :math:`|r| < c`, 0 where :math:`|r| > c`).
    * S = 2 c Rt, attained by the same row with residuals above c and below -c.

    It minimises the Huber objective, not the squared one: estimators using it must say so.

    Parameters
    ----------
    residual_clip : float
        The public threshold c > 0.
    """

    fused_kernel = "clipped_linear"
    row_wise_gradient = True
    curvature = 1.0

    def __init__(self, residual_clip):
        self.residual_clip = _positive("residual_clip", residual_clip)

    def __repr__(self):
        return f"HuberLoss(residual_clip={self.residual_clip!r})"

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`h_c(\theta\cdot x_i - y_i)`."""
        r = np.abs(_as_vector(X @ coef) - y)
        a = np.minimum(r, self.residual_clip)
        return _weighted_total(a * (r - 0.5 * a), sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\mathrm{clip}(\theta\cdot x_i - y_i, -c, c)\,x_i`."""
        c = self.residual_clip
        residual = np.clip(_as_vector(X @ coef) - y, -c, c)
        return _as_vector(X.T @ _weighted(residual, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = c Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return self.residual_clip * _positive("row_norm", row_norm)

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 c Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return 2.0 * self.residual_clip * _positive("row_norm", row_norm)

    def value_at_zero_bound(self, *, y_bound=None):
        """h_c(B) >= h_c(y) for every |y| <= B (h_c grows with |r|); ``inf`` without B.

        Parameters
        ----------
        y_bound : float or None, default=None
            B, the bound the targets are clipped to.

        Returns
        -------
        float
            :math:`h_c(B)`.
        """
        if y_bound is None:
            return float("inf")
        r = float(y_bound)
        a = min(r, self.residual_clip)
        return a * (r - 0.5 * a)

    def inference_bounds(self):
        r"""(1, c): :math:`l'' = 1\{|t - y| \le c\} \le 1`, :math:`|\mathrm{clip}(r, -c, c)| \le c`.

        Returns
        -------
        tuple of float
            :math:`(c_H, \psi_{\max}) = (1, c)`.
        """
        return 1.0, float(self.residual_clip)

    def inference_rows(self, t, y):
        r""":math:`w = 1\{|t - y| \le c\}`, :math:`\psi = \mathrm{clip}(t - y, -c, c)`.

        Parameters
        ----------
        t : ndarray of shape (n_samples,)
            Linear predictions.
        y : ndarray of shape (n_samples,)
            Targets.

        Returns
        -------
        w, psi : ndarray of shape (n_samples,)
            Curvature and residual of each row.
        """
        c = float(self.residual_clip)
        r = t - y
        return (np.abs(r) <= c).astype(np.float64), np.clip(r, -c, c)


_SQUARED_HINT = (
    " The squared loss has a bounded gradient only on a bounded domain: pass the projection"
    " radius r and the target bound B (docs/theory.md#loss-constants)."
)


class SquaredLoss(BaseLoss):
    r"""Squared loss :math:`\tfrac12(\theta\cdot x - y)^2`, to be used on the ball :math:`\|\theta\|
    \le r`.

    .. math::

        \nabla l = (\theta\cdot x - y)\,x, \qquad \nabla^2 l = x x^\top.

    Its gradient is unbounded on :math:`\mathbb{R}^d`, so the constants need the
    projection radius r and the target bound B (:ref:`loss-constants`). With
    :math:`\|\theta\| \le r`, :math:`\|x\| \le \tilde R`, :math:`|y| \le B`:

    * L = Rt (r Rt + B), since :math:`|\theta\cdot x - y| \le r\tilde R + B`; attained
      at :math:`\theta = r x/\tilde R`, y = -B.
    * beta_l = Rt^2 (the Hessian :math:`x x^\top`), attained by any row of norm Rt.
    * S = 2 Rt (r Rt + B) = 2 L, the triangle-inequality bound of the table. It is tight
      when :math:`B \gg r\tilde R` and within a factor 2 of the true supremum otherwise
      (the gradients of one theta all lie in a set that is not symmetric about 0).

    Runs that use this loss must keep every iterate in the ball of radius r, or the
    constants do not hold.
    """

    fused_kernel = "clipped_linear"  # with no residual clip
    row_wise_gradient = True
    curvature = 1.0

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\tfrac12(\theta\cdot x_i - y_i)^2`."""
        r = _as_vector(X @ coef) - y
        if sample_weight is not None:
            return _weighted_total(0.5 * r * r, sample_weight)
        return float(0.5 * np.dot(r, r))

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`(\theta\cdot x_i - y_i)\,x_i` = :math:`X^\top(X\theta - y)`."""
        return _as_vector(X.T @ _weighted(_as_vector(X @ coef) - y, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = Rt (r Rt + B); ``radius`` (r) and ``y_bound`` (B) are required."""
        row_norm = _positive("row_norm", row_norm)
        radius = _positive("radius", radius, _SQUARED_HINT)
        y_bound = _positive("y_bound", y_bound, _SQUARED_HINT)
        return row_norm * (radius * row_norm + y_bound)

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 Rt (r Rt + B); ``radius`` (r) and ``y_bound`` (B) are required."""
        return 2.0 * self.gradient_bound(row_norm, y_bound=y_bound, radius=radius)

    def value_at_zero_bound(self, *, y_bound=None):
        """B^2 / 2 >= y^2 / 2 for every |y| <= B; ``inf`` without B.

        Parameters
        ----------
        y_bound : float or None, default=None
            B, the bound on the targets.

        Returns
        -------
        float
            B^2 / 2.
        """
        return float("inf") if y_bound is None else 0.5 * float(y_bound) ** 2
