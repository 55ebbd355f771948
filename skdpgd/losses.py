r"""Data-fit terms of the linear models, with the public constants they own.

Each loss :math:`l(\theta; x, y)` gives the sum over rows of its per-example value and
gradient, and states the three constants the privacy analysis needs as functions of
public bounds only (docs/theory.md#loss-constants). With augmented rows of norm at most
:math:`\tilde R` (``row_norm``: data_norm and intercept column included), targets
:math:`|y| \le B` (``y_bound``) and, where the loss needs it, a domain
:math:`\|\theta\| \le r` (``radius``):

=========================  ========================  ===================  ===================================
loss                       gradient bound L          smoothness beta_l    replace-one sensitivity S
=========================  ========================  ===================  ===================================
binary logistic            Rt                        Rt^2 / 4             2 Rt
multinomial (K classes)    sqrt(2) Rt                Rt^2 / 2             2 sqrt(2) Rt
Huber, threshold c         c Rt                      Rt^2                 2 c Rt
squared on ||th|| <= r     Rt (r Rt + B)             Rt^2                 2 Rt (r Rt + B)
=========================  ========================  ===================  ===================================

* L is the supremum of :math:`\|\nabla l(\theta; z)\|` over every record z allowed
  by the bounds and every theta in the domain,
* beta_l bounds the largest eigenvalue of the per-example Hessian (equivalently the
  Lipschitz constant of :math:`\theta \mapsto \nabla l(\theta; z)`),
* S is the supremum of :math:`\|\nabla l(\theta; z) - \nabla l(\theta; z')\|` over
  every theta in the domain and every pair of records z, z' (so S <= 2 L).

These are what the accountants take; none of them is ever computed from the data.
:class:`WeightedLoss` wraps any of them for rows with weights in [0, W] (``sample_weight``,
``class_weight``): all three constants are multiplied by the public W
(docs/theory.md#weights).
``tests/test_losses.py`` checks each of them on random and adversarial records and
checks that a constructed worst case (nearly) attains it.

Conventions: ``coef`` is a float64 array of shape ``coef_shape(n_features)``, that is
(d,) for the scalar-output losses and (n_classes, d) for the multinomial loss. ``X`` is
a dense float array or a CSR matrix of shape (n, d), already clipped and with the
intercept column appended by the caller (the loss knows nothing of intercepts); all
products are written ``X @ coef`` and ``X.T @ residual`` so both work.

References
----------
.. [1] J. Bok, W. Su, J. Altschuler. Shifted interpolation for differential privacy.
   ICML 2024: replace-one sensitivity of the gradient step.
.. [2] T. Ryffel, F. Bach, D. Pointcheval. Differential privacy guarantees for
   stochastic gradient Langevin dynamics. 2022, Lemma 5.1: Hessian of the
   softmax loss, after D. Böhning, Multinomial logistic regression algorithm, Ann. Inst.
   Statist. Math. 44 (1992).
.. [3] P. J. Huber. Robust estimation of a location parameter. Ann. Math. Statist. 35 (1964).
"""

import math

import numpy as np
from scipy.special import expit, log_softmax, softmax

__all__ = [
    "BinaryLogisticLoss", "HuberLoss", "MultinomialLogisticLoss", "SquaredLoss", "WeightedLoss",
]


def _positive(name, value, hint=""):
    """``value`` as a positive finite float, or a ValueError that names it."""
    if value is None:
        raise ValueError(f"{name} is required here and must be a positive public bound, got None.{hint}")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}.{hint}") from None
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}.{hint}")
    return value


def _as_vector(a):
    """The result of ``X.T @ v`` as a 1-D float64 array (dense or sparse X)."""
    return np.asarray(a, dtype=np.float64).reshape(-1)


def _weighted(residual, sample_weight):
    """Each row's residual (a row of a 2-D residual) times its weight; None: unchanged."""
    if sample_weight is None:
        return residual
    weights = np.asarray(sample_weight, dtype=np.float64)
    return residual * (weights if residual.ndim == 1 else weights[:, None])


def _weighted_total(per_row, sample_weight):
    """The sum of the per-row values, each times its weight (None: all 1)."""
    if sample_weight is None:
        return float(np.sum(per_row))
    return float(np.dot(np.asarray(sample_weight, dtype=np.float64), per_row))


class _ScalarOutputLoss:
    """Shared shape conventions of the losses with one output per row (not public)."""

    #: Number of scores per row; ``coef`` has shape (d,) when this is 1.
    n_outputs = 1

    def coef_shape(self, n_features):
        """Shape ``(n_features,)`` of the coefficient array this loss takes.

        Parameters
        ----------
        n_features : int
            Number of columns of X (intercept column included).

        Returns
        -------
        shape : tuple of int
            The shape of ``coef``.
        """
        return (int(n_features),)

    def __repr__(self):
        return f"{type(self).__name__}()"


class BinaryLogisticLoss(_ScalarOutputLoss):
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

    Constants (docs/theory.md#loss-constants; :math:`\|x\| \le \tilde R`, any theta in
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

    #: The fused kernel of the data layer computing :meth:`gradient_sum` (skdpgd._data._fused).
    fused_kernel = "logistic"

    @property
    def fused_residual_clip(self):
        """The residual clip c the fused kernel applies."""
        return self.residual_clip

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
        r"""Sum over rows of :math:`\phi_c((2y_i - 1)\,t_i)`, :math:`t = X\theta`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        value : float
            The sum of the per-example losses (not divided by n).
        """
        t = _as_vector(X @ coef)
        c = self.residual_clip
        if c == 1.0:
            return _weighted_total(np.logaddexp(0.0, t) - y * t, sample_weight)
        u = (2.0 * y - 1.0) * t
        a = math.log((1.0 - c) / c)
        plain = np.logaddexp(0.0, -np.maximum(u, a))  # phi at max(u, a): never overflows
        return _weighted_total(plain - c * np.minimum(u - a, 0.0), sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\mathrm{clip}(\sigma(t_i) - y_i, -c, c)\,x_i`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        gradient : ndarray of shape ``coef_shape(n_features)``
            The sum of the per-example gradients (not divided by n).
        """
        residual = expit(_as_vector(X @ coef)) - y
        if self.residual_clip < 1.0:
            residual = np.clip(residual, -self.residual_clip, self.residual_clip)
        return _as_vector(X.T @ _weighted(residual, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = c Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        L : float
            Bound on the norm of one per-example gradient, for every theta and record.
        """
        return self.residual_clip * _positive("row_norm", row_norm)

    def smoothness(self, row_norm):
        """beta_l = Rt^2 / 4.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta_l : float
            Smoothness of one per-example loss.
        """
        return _positive("row_norm", row_norm) ** 2 / 4.0

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 c Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        S : float
            Replace-one sensitivity of one per-example gradient (docs/theory.md#loss-constants).
        """
        return 2.0 * self.residual_clip * _positive("row_norm", row_norm)


class MultinomialLogisticLoss:
    r"""Softmax cross-entropy over K classes, labels integer codes 0..K-1.

    With scores :math:`s = \theta x \in \mathbb{R}^K` (:math:`\theta` of shape (K, d))
    and :math:`p = \mathrm{softmax}(s)`:

    .. math::

        l(\theta; x, y) = \log\sum_k e^{s_k} - s_y, \qquad
        \nabla l = (p - e_y)\,x^\top, \qquad
        \nabla^2 l = (\mathrm{diag}(p) - p p^\top) \otimes x x^\top

    (Hessian: [2]_ Lemma 5.1, after Böhning 1992). The value uses ``log_softmax``
    (a stable log-sum-exp).

    Constants (docs/theory.md#loss-constants; Frobenius norms; any theta):

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
        K >= 2 (the label set is public: it is given by the user, docs/theory.md#rules).

    References
    ----------
    .. [2] Ryffel, Bach, Pointcheval (2022), Lemma 5.1.
    """

    def __init__(self, n_classes):
        if isinstance(n_classes, bool) or int(n_classes) != n_classes or n_classes < 2:
            raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}.")
        self.n_classes = int(n_classes)

    @property
    def n_outputs(self):
        """K scores per row; ``coef`` has shape (K, d)."""
        return self.n_classes

    def coef_shape(self, n_features):
        """Shape ``(n_classes, n_features)`` of the coefficient array this loss takes.

        Parameters
        ----------
        n_features : int
            Number of columns of X (intercept column included).

        Returns
        -------
        shape : tuple of int
            The shape of ``coef``.
        """
        return (self.n_classes, int(n_features))

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
        r"""Sum over rows of :math:`\mathrm{logsumexp}(s_i) - s_{i, y_i}`, :math:`s = X\theta^\top`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        value : float
            The sum of the per-example losses (not divided by n).
        """
        codes = self._codes(y)
        log_p = log_softmax(np.asarray(X @ coef.T), axis=1)
        return _weighted_total(-log_p[np.arange(codes.size), codes], sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`(p_i - e_{y_i})\,x_i^\top`, shape (K, d).

        Computed as :math:`(X^\top (P - Y))^\top` with P the row-wise softmax of
        :math:`X\theta^\top` and Y the one-hot labels.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        gradient : ndarray of shape ``coef_shape(n_features)``
            The sum of the per-example gradients (not divided by n).
        """
        codes = self._codes(y)
        residual = softmax(np.asarray(X @ coef.T), axis=1)
        residual[np.arange(codes.size), codes] -= 1.0
        residual = _weighted(residual, sample_weight)
        return np.ascontiguousarray(np.asarray(X.T @ residual, dtype=np.float64).T)

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = sqrt(2) Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        L : float
            Bound on the norm of one per-example gradient, for every theta and record.
        """
        return math.sqrt(2.0) * _positive("row_norm", row_norm)

    def smoothness(self, row_norm):
        """beta_l = Rt^2 / 2.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta_l : float
            Smoothness of one per-example loss.
        """
        return _positive("row_norm", row_norm) ** 2 / 2.0

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 sqrt(2) Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        S : float
            Replace-one sensitivity of one per-example gradient (docs/theory.md#loss-constants).
        """
        return 2.0 * math.sqrt(2.0) * _positive("row_norm", row_norm)


class HuberLoss(_ScalarOutputLoss):
    r"""Huber loss of the residual with threshold c: the clipped-residual regression loss.

    With :math:`r = \theta\cdot x - y` and :math:`a = \min(|r|, c)`:

    .. math::

        h_c(r) = \begin{cases} r^2/2 & |r| \le c \\ c|r| - c^2/2 & |r| > c \end{cases}
               = a\,(|r| - a/2), \qquad
        \nabla l = \mathrm{clip}(r, -c, c)\,x

    (docs/theory.md#loss-constants; Huber 1964). The second form of h_c is the one
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

    #: The fused kernel of the data layer computing :meth:`gradient_sum` (skdpgd._data._fused).
    fused_kernel = "clipped_linear"

    @property
    def fused_residual_clip(self):
        """The residual clip c the fused kernel applies."""
        return self.residual_clip

    def __init__(self, residual_clip):
        self.residual_clip = _positive("residual_clip", residual_clip)

    def __repr__(self):
        return f"HuberLoss(residual_clip={self.residual_clip!r})"

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`h_c(\theta\cdot x_i - y_i)`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        value : float
            The sum of the per-example losses (not divided by n).
        """
        r = np.abs(_as_vector(X @ coef) - y)
        a = np.minimum(r, self.residual_clip)
        return _weighted_total(a * (r - 0.5 * a), sample_weight)

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\mathrm{clip}(\theta\cdot x_i - y_i, -c, c)\,x_i`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        gradient : ndarray of shape ``coef_shape(n_features)``
            The sum of the per-example gradients (not divided by n).
        """
        c = self.residual_clip
        residual = np.clip(_as_vector(X @ coef) - y, -c, c)
        return _as_vector(X.T @ _weighted(residual, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = c Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        L : float
            Bound on the norm of one per-example gradient, for every theta and record.
        """
        return self.residual_clip * _positive("row_norm", row_norm)

    def smoothness(self, row_norm):
        """beta_l = Rt^2.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta_l : float
            Smoothness of one per-example loss.
        """
        return _positive("row_norm", row_norm) ** 2

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 c Rt (``y_bound`` and ``radius`` are not needed and ignored).

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        S : float
            Replace-one sensitivity of one per-example gradient (docs/theory.md#loss-constants).
        """
        return 2.0 * self.residual_clip * _positive("row_norm", row_norm)


_SQUARED_HINT = (
    " The squared loss has a bounded gradient only on a bounded domain: pass the projection"
    " radius r and the target bound B (docs/theory.md#loss-constants)."
)


class SquaredLoss(_ScalarOutputLoss):
    r"""Squared loss :math:`\tfrac12(\theta\cdot x - y)^2`, to be used on the ball :math:`\|\theta\| \le r`.

    .. math::

        \nabla l = (\theta\cdot x - y)\,x, \qquad \nabla^2 l = x x^\top.

    Its gradient is unbounded on :math:`\mathbb{R}^d`, so the constants need the
    projection radius r and the target bound B (docs/theory.md#loss-constants). With
    :math:`\|\theta\| \le r`, :math:`\|x\| \le \tilde R`, :math:`|y| \le B`:

    * L = Rt (r Rt + B), since :math:`|\theta\cdot x - y| \le r\tilde R + B`; attained
      at :math:`\theta = r x/\tilde R`, y = -B.
    * beta_l = Rt^2 (the Hessian :math:`x x^\top`), attained by any row of norm Rt.
    * S = 2 Rt (r Rt + B) = 2 L, the triangle-inequality bound of the table. It is tight
      when :math:`B \gg r\tilde R` and within a factor 2 of the true supremum otherwise
      (the gradients of one theta all lie in a set that is not symmetric about 0).

    Runs that use this loss must project every iterate onto the ball of radius r
    (:func:`skdpgd.optim.ball_projection`), or the constants do not hold.
    """

    #: The fused kernel of the data layer computing :meth:`gradient_sum` (skdpgd._data._fused),
    #: with no residual clip.
    fused_kernel = "clipped_linear"
    fused_residual_clip = math.inf

    def value_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`\tfrac12(\theta\cdot x_i - y_i)^2`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        value : float
            The sum of the per-example losses (not divided by n).
        """
        r = _as_vector(X @ coef) - y
        if sample_weight is not None:
            return _weighted_total(0.5 * r * r, sample_weight)
        return float(0.5 * np.dot(r, r))

    def gradient_sum(self, coef, X, y, sample_weight=None):
        r"""Sum over rows of :math:`(\theta\cdot x_i - y_i)\,x_i`, i.e. :math:`X^\top(X\theta - y)`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
        gradient : ndarray of shape ``coef_shape(n_features)``
            The sum of the per-example gradients (not divided by n).
        """
        return _as_vector(X.T @ _weighted(_as_vector(X @ coef) - y, sample_weight))

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L = Rt (r Rt + B); ``radius`` (r) and ``y_bound`` (B) are required.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        L : float
            Bound on the norm of one per-example gradient, for every theta and record.
        """
        row_norm = _positive("row_norm", row_norm)
        radius = _positive("radius", radius, _SQUARED_HINT)
        y_bound = _positive("y_bound", y_bound, _SQUARED_HINT)
        return row_norm * (radius * row_norm + y_bound)

    def smoothness(self, row_norm):
        """beta_l = Rt^2.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta_l : float
            Smoothness of one per-example loss.
        """
        return _positive("row_norm", row_norm) ** 2

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S = 2 Rt (r Rt + B); ``radius`` (r) and ``y_bound`` (B) are required.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.
        y_bound : float or None, default=None
            B, the public bound on the absolute value of a target.
        radius : float or None, default=None
            r, the radius of the projection ball.

        Returns
        -------
        S : float
            Replace-one sensitivity of one per-example gradient (docs/theory.md#loss-constants).
        """
        return 2.0 * self.gradient_bound(row_norm, y_bound=y_bound, radius=radius)


class WeightedLoss:
    r"""A loss whose rows carry weights :math:`w_i \in [0, W]` with a public bound W.

    .. math::

        l_w(\theta; (x, y, w)) = w\, l(\theta; x, y), \qquad
        \nabla l_w = w\, \nabla l(\theta; x, y),

    so the objective becomes :math:`\frac1n\sum_i w_i\, l(\theta; \tilde x_i, y_i) +
    \frac\lambda2\|\theta\|^2` (scikit-learn's ``sample_weight`` / ``class_weight``
    objective, with the data term divided by n). The weight is part of the record: it
    is private, and only its public bound W enters the constants.

    Constants (docs/theory.md#weights), from those of the wrapped loss (L, beta_l, S)
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
    def residual_clip(self):
        """The wrapped loss's residual clip (AttributeError if it has none)."""
        return self.loss.residual_clip

    def coef_shape(self, n_features):
        """Shape of the coefficient array, as the wrapped loss.

        Parameters
        ----------
        n_features : int
            Number of columns of X (intercept column included).

        Returns
        -------
        shape : tuple of int
            The shape of ``coef``.
        """
        return self.loss.coef_shape(n_features)

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
        """
        return np.column_stack((np.asarray(y, dtype=np.float64),
                                np.asarray(weights, dtype=np.float64)))

    def value_sum(self, coef, X, y):
        r"""Sum over rows of :math:`w_i\, l(\theta; x_i, y_i)`.

        Parameters
        ----------
        coef : ndarray of shape ``coef_shape(n_features)``
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
        coef : ndarray of shape ``coef_shape(n_features)``
            The parameters theta.
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples, 2)
            Targets and weights (:meth:`pack`).

        Returns
        -------
        gradient : ndarray of shape ``coef_shape(n_features)``
            The weighted sum of the per-example gradients (not divided by n).
        """
        y = np.asarray(y)
        return self.loss.gradient_sum(coef, X, y[:, 0], sample_weight=y[:, 1])

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
            (docs/theory.md#weights).
        """
        kwargs = dict(y_bound=y_bound, radius=radius)
        return self.max_weight * max(
            self.loss.sensitivity(row_norm, **kwargs), self.loss.gradient_bound(row_norm, **kwargs)
        )
