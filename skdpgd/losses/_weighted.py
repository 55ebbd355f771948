r"""Rows with private weights in [0, W]: the constants scale by the public W (theory: weights)."""

import numpy as np

from ._base import BaseLoss, _positive

__all__ = ['WeightedLoss']


class WeightedLoss(BaseLoss):
    r"""A loss whose rows carry weights :math:`w_i \in [0, W]` with a public bound W.

    .. math::

        l_w(\theta; (x, y, w)) = w\, l(\theta; x, y), \qquad
        \nabla l_w = w\, \nabla l(\theta; x, y),

    so the objective becomes :math:`\frac1n\sum_i w_i\, l(\theta; \tilde x_i, y_i) +
    \frac\lambda2\|\theta\|^2` (scikit-learn's ``sample_weight`` / ``class_weight``
    objective, with the data term divided by n). The weight is part of the record: it
    is private, and only its public bound W enters the constants.

    Constants (:ref:`weights`), from those of the wrapped loss (L, beta_l, S)
    for every theta and every pair of records with weights in [0, W]:

    * L_w = W L, since :math:`\|w\nabla l\| \le W L`;
    * beta_w = W beta_l: :math:`w\nabla l` is :math:`w\beta_\ell`-Lipschitz in theta;
    * S_w = W max(S, L) (= W S for every loss here, where S = 2L):
      :math:`(w, w') \mapsto \|w g - w' g'\|` is convex, so its maximum over the square
      :math:`[0, W]^2` is at a corner: 0, :math:`W\|g\|`, :math:`W\|g'\|` or
      :math:`W\|g - g'\|`. Attained when the wrapped S is: both records at weight W.

    The strong convexity comes from the L2 term only (a weight may be 0).

    The targets handed to :meth:`value_sum` and :meth:`gradient_sum` are the pairs
    :math:`(y_i, w_i)` as an array of shape (n, 2) (:meth:`pack`), so that the row sums of
    a fit (chunks, mini-batches, dask blocks) slice the weights with the targets.

    Parameters
    ----------
    loss : loss object
        One of :class:`BinaryLogisticLoss`, :class:`MultinomialLogisticLoss`,
        :class:`HuberLoss`, :class:`SquaredLoss`.
    max_weight : float
        The public bound W > 0 on every weight (the caller clips the weights to [0, W]).
    """

    def __init__(self, loss, max_weight):
        self.loss = loss
        self.max_weight = _positive("max_weight", max_weight)

    def __repr__(self):
        return f"WeightedLoss({self.loss!r}, max_weight={self.max_weight!r})"

    @property
    def n_outputs(self):
        """Scores per row, as the wrapped loss."""
        return self.loss.n_outputs

    @property
    def row_wise_gradient(self):
        """The wrapped loss's: the weights multiply each row's residual."""
        return self.loss.row_wise_gradient is True

    @property
    def curvature(self):
        """W c: the wrapped loss's curvature times the public weight bound."""
        return self.max_weight * self.loss.curvature

    @property
    def residual_clip(self):
        """The wrapped loss's residual clip (AttributeError if it has none)."""
        return self.loss.residual_clip

    @staticmethod
    def pack(y, weights):
        """The (n, 2) float64 array of targets and weights that the sums take.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Targets or integer label codes.
        weights : array-like of shape (n_samples,)
            Row weights, already in [0, W].

        Returns
        -------
        packed : ndarray of shape (n_samples, 2)
            Column 0 the targets, column 1 the weights, as float64 (what ``y`` of
            :meth:`value_sum` and the other sums takes).
        """
        return np.column_stack((np.asarray(y, dtype=np.float64),
                                np.asarray(weights, dtype=np.float64)))

    def value_sum(self, coef, X, y):
        r"""Sum over rows of :math:`w_i\, l(\theta; x_i, y_i)`.

        Parameters
        ----------
        coef : ndarray of shape (n_features,) or (n_outputs, n_features)
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples, 2)
            Targets and weights (:meth:`pack`).

        Returns
        -------
        value : float
            The weighted sum of the per-example losses (not divided by n).
        """
        y = np.asarray(y)
        return self.loss.value_sum(coef, X, y[:, 0], sample_weight=y[:, 1])

    def gradient_sum(self, coef, X, y):
        r"""Sum over rows of :math:`w_i\, \nabla l(\theta; x_i, y_i)`.

        Parameters
        ----------
        coef : ndarray of shape (n_features,) or (n_outputs, n_features)
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples, 2)
            Targets and weights (:meth:`pack`).

        Returns
        -------
        gradient : ndarray of coef's shape
            The weighted sum of the per-example gradients (not divided by n).
        """
        y = np.asarray(y)
        return self.loss.gradient_sum(coef, X, y[:, 0], sample_weight=y[:, 1])

    def inference_targets(self, y):
        """The wrapped loss, its targets and the weights packed with them (:meth:`pack`).

        Parameters
        ----------
        y : ndarray of shape (n_samples, 2)
            The packed targets and weights.

        Returns
        -------
        loss : BaseLoss
            The wrapped loss.
        targets : ndarray of shape (n_samples,)
            Its targets.
        weights : ndarray of shape (n_samples,)
            The rows' weights.
        """
        return self.loss, y[:, 0], y[:, 1]

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L_w = W L.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, passed to the wrapped loss.
        radius : float or None, default=None
            r, passed to the wrapped loss.

        Returns
        -------
        L : float
            Bound on the norm of one weighted per-example gradient.
        """
        return self.max_weight * self.loss.gradient_bound(row_norm, y_bound=y_bound, radius=radius)

    def smoothness(self, row_norm):
        """beta_w = W beta_l.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta : float
            Smoothness of one weighted per-example loss.
        """
        return self.max_weight * self.loss.smoothness(row_norm)

    def value_at_zero_bound(self, *, y_bound=None):
        """W f_0: a weight in [0, W] times the wrapped loss's bound at 0.

        Parameters
        ----------
        y_bound : float or None, default=None
            B, passed to the wrapped loss.

        Returns
        -------
        float
            W f_0.
        """
        return self.max_weight * self.loss.value_at_zero_bound(y_bound=y_bound)

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S_w = W max(S, L).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, passed to the wrapped loss.
        radius : float or None, default=None
            r, passed to the wrapped loss.

        Returns
        -------
        S : float
            Replace-one sensitivity of one weighted per-example gradient
            (:ref:`weights`).
        """
        kwargs = dict(y_bound=y_bound, radius=radius)
        return self.max_weight * max(
            self.loss.sensitivity(row_norm, **kwargs), self.loss.gradient_bound(row_norm, **kwargs)
        )
