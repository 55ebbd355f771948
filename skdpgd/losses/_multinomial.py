r"""The softmax cross-entropy over K classes (docs/theory.md#loss-constants)."""

import math

import numpy as np
from scipy.special import log_softmax

from ._base import BaseLoss, _positive, _weighted, _weighted_total

__all__ = ['MultinomialLogisticLoss', 'row_softmax']


def row_softmax(scores):
    r"""``scipy.special.softmax(scores, axis=1)``, the same values bit for bit, faster.

    The row maximum is taken column by column (a maximum is exact in any order; numpy's
    reduction along a short row costs more than the rest of the softmax), then
    :math:`e^{s - \max}` divided by its row sum, as scipy computes them (the sum by the
    same ``np.sum``: its order of additions is numpy's).

    Parameters
    ----------
    scores : ndarray of shape (n, K)

    Returns
    -------
    ndarray of shape (n, K)
    """
    columns = scores.T
    top = columns[0].copy()
    for column in columns[1:]:
        np.maximum(top, column, out=top)
    shifted = np.exp(scores - top[:, None])
    return shifted / np.sum(shifted, axis=1, keepdims=True)


class MultinomialLogisticLoss(BaseLoss):
    r"""Softmax cross-entropy over K classes, labels integer codes 0..K-1.

    With scores :math:`s = \theta x \in \mathbb{R}^K` (:math:`\theta` of shape (K, d))
    and :math:`p = \mathrm{softmax}(s)`:

    .. math::

        l(\theta; x, y) = \log\sum_k e^{s_k} - s_y, \qquad
        \nabla l = (p - e_y)\,x^\top, \qquad
        \nabla^2 l = (\mathrm{diag}(p) - p p^\top) \otimes x x^\top

    (Hessian: [2]_ Lemma 5.1, after Böhning 1992). The value uses ``log_softmax``
    (a stable log-sum-exp).

    Constants (:ref:`loss-constants`; Frobenius norms; any theta):

    * L = sqrt(2) Rt, since
      :math:`\|p - e_y\|^2 = (1 - p_y)^2 + \sum_{k \ne y} p_k^2 \le 2(1 - p_y)^2 \le 2`;
      approached when p concentrates on one class other than y.
    * beta_l = Rt^2/2, since :math:`\lambda_{\max}(\mathrm{diag}(p) - p p^\top) \le 1/2`
      (attained at p = (1/2, 1/2, 0, ...)).
    * S = 2 sqrt(2) Rt by the triangle inequality; approached by two nearly equal rows
      whose softmax concentrates on classes a and b respectively, labelled b and a.

    Parameters
    ----------
    n_classes : int
        K >= 2 (the label set is public: it is given by the user, :ref:`rules`).

    References
    ----------
    .. [2] Ryffel, Bach, Pointcheval (2022), Lemma 5.1.
    """

    curvature = 0.5
    row_wise_gradient = True

    def __init__(self, n_classes):
        if isinstance(n_classes, bool) or int(n_classes) != n_classes or n_classes < 2:
            raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}.")
        self.n_classes = int(n_classes)

    @property
    def n_outputs(self):
        """K scores per row; ``coef`` has shape (K, d)."""
        return self.n_classes

    def __repr__(self):
        return f"MultinomialLogisticLoss(n_classes={self.n_classes})"

    def _codes(self, y):
        codes = np.asarray(y)
        if codes.size and (codes.min() < 0 or codes.max() >= self.n_classes):
            raise ValueError(
                f"labels must be integer codes in 0..{self.n_classes - 1}, got values in "
                f"[{codes.min()!r}, {codes.max()!r}]."
            )
        return codes.astype(np.intp, copy=False)

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\log\sum_k e^{s_{ik}} - s_{iy_i}`, :math:`s = X\theta^\top`."""
        codes = self._codes(y)
        log_p = log_softmax(np.asarray(X @ coef.T), axis=1)
        return _weighted_total(-log_p[np.arange(codes.size), codes], sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`(p_i - e_{y_i})\,x_i^\top`, shape (K, d).

        Computed as :math:`(X^\top (P - Y))^\top` with P the row-wise softmax of
        :math:`X\theta^\top` and Y the one-hot labels."""
        codes = self._codes(y)
        residual = row_softmax(np.asarray(X @ coef.T))
        residual[np.arange(codes.size), codes] -= 1.0
        residual = _weighted(residual, sample_weight)
        return np.ascontiguousarray(np.asarray(X.T @ residual, dtype=np.float64).T)

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = sqrt(2) Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return math.sqrt(2.0) * _positive("row_norm", row_norm)

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 sqrt(2) Rt (``y_bound`` and ``radius`` are not needed and ignored)."""
        return 2.0 * math.sqrt(2.0) * _positive("row_norm", row_norm)

    def value_at_zero_bound(self, *, y_bound=None):
        """log K, the loss of every record at theta = 0 (all scores 0; ``y_bound`` ignored).

        Parameters
        ----------
        y_bound : None
            Not needed.

        Returns
        -------
        float
            log K.
        """
        return math.log(self.n_classes)
