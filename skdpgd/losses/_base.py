r"""The base of every loss: what a loss owns, and the numpydoc its methods share.

A loss :math:`l(\theta; x, y)` owns its row sums (``value_sum``, ``gradient_sum``, on
rows that are already clipped and carry the intercept column), its public constants as
functions of public bounds only (``gradient_bound`` L, ``smoothness`` beta_l = c Rt^2
with its ``curvature`` c, ``sensitivity`` S; docs/theory.md#loss-constants) and the name
of the data layer's fused kernel that computes its ``gradient_sum`` (``fused_kernel``,
:mod:`skdpgd._data._fused`), or None. The parameter and return sections of those
methods are written once, here: a subclass writes the summary (its formula) and the
base appends the shared sections.
"""

import math

import numpy as np

__all__ = ["BaseLoss"]

_ROWS = """

        Parameters
        ----------
        coef : ndarray of shape (n_features,) or (n_outputs, n_features)
            The parameters theta (one row per output for the multinomial loss).
        X : ndarray or CSR matrix of shape (n_samples, n_features)
            Rows, clipped and with the intercept column appended by the caller.
        y : ndarray of shape (n_samples,)
            Targets (labels as 0/1 or integer codes for the logistic losses).
        sample_weight : ndarray of shape (n_samples,) or None, default=None
            Per-row weights :math:`w_i` multiplying each row's term (None: all 1).

        Returns
        -------
"""
_BOUNDS = """

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
"""

#: The numpydoc sections shared by every loss's methods (appended to a subclass's summary).
SHARED_DOCS = {
    "value_sum": _ROWS + """        value : float
            The sum of the per-example losses (not divided by n).
        """,
    "gradient_sum": _ROWS + """        gradient : ndarray of coef's shape
            The sum of the per-example gradients (not divided by n).
        """,
    "gradient_bound": _BOUNDS + """        L : float
            Bound on the norm of one per-example gradient, for every theta and record.
        """,
    "sensitivity": _BOUNDS + """        S : float
            Replace-one sensitivity of one per-example gradient (:ref:`loss-constants`).
        """,
}


def _positive(name, value, hint=""):
    """``value`` as a positive finite float, or a ValueError that names it."""
    if value is None:
        raise ValueError(
            f"{name} is required here and must be a positive public bound, got None.{hint}")
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


class BaseLoss:
    """Base class of the losses: row sums, public constants and the fused kernel's name.

    Subclasses implement :meth:`value_sum`, :meth:`gradient_sum`, :meth:`gradient_bound`
    and :meth:`sensitivity` (with a one-line docstring: the shared parameter sections
    are appended to it), and set :attr:`curvature` (which gives :meth:`smoothness`) and,
    when a kernel of the data layer computes their gradient sum, :attr:`fused_kernel`.
    A subclass that overrides ``gradient_sum`` without naming a kernel gets None, so a
    subclass of a fused loss never runs its parent's kernel. A loss that private inference
    supports declares it with :meth:`inference_bounds` and :meth:`inference_rows`
    (:mod:`skdpgd.inference` reads them, never the loss's type); a subclass that overrides
    ``gradient_sum`` without declaring them again gets none.

    Attributes
    ----------
    n_outputs : int
        Scores per row: ``coef`` has shape (d,) when 1, (n_outputs, d) otherwise.
    curvature : float
        c, the bound on the second derivative of the loss in the score
        (beta_l = c Rt^2): 1/4 binary logistic, 1/2 softmax, 1 Huber and squared.
    fused_kernel : str or None
        The name of the data layer's fused kernel for :meth:`gradient_sum`
        (:data:`skdpgd._data._fused.KERNELS`), None for the numpy path.
    row_wise_gradient : bool
        Whether :meth:`gradient_sum` reads X only through ``X @ coef`` and ``X.T @ r``,
        with r computed row by row from the first product and y (then the data layer
        may take the sum over several chunks at once, :mod:`skdpgd._data._stacked`).
        False unless a class says so; a subclass that overrides ``gradient_sum`` without
        saying so gets False.
    """

    n_outputs = 1
    curvature = None
    fused_kernel = None
    row_wise_gradient = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "gradient_sum" in cls.__dict__ and "fused_kernel" not in cls.__dict__:
            cls.fused_kernel = None  # its own sum: never the parent's kernel
        if "gradient_sum" in cls.__dict__ and "row_wise_gradient" not in cls.__dict__:
            cls.row_wise_gradient = False  # its own sum: its own declaration
        if "gradient_sum" in cls.__dict__ and "inference_bounds" not in cls.__dict__:
            cls.inference_bounds = BaseLoss.inference_bounds  # its own loss: none declared
        for name, sections in SHARED_DOCS.items():
            method = cls.__dict__.get(name)
            doc = getattr(method, "__doc__", None)
            if doc and "Parameters\n" not in doc:
                method.__doc__ = doc.rstrip() + sections

    def __repr__(self):
        return f"{type(self).__name__}()"

    @property
    def fused_residual_clip(self):
        """c, the residual clip the fused kernel applies (``residual_clip``, inf if none)."""
        return getattr(self, "residual_clip", math.inf)

    def value_sum(self, coef, X, y, sample_weight=None):
        """Sum over rows of the per-example losses."""
        raise NotImplementedError

    def gradient_sum(self, coef, X, y, sample_weight=None):
        """Sum over rows of the per-example gradients."""
        raise NotImplementedError

    def gradient_bound(self, row_norm, *, y_bound=None, radius=None):
        """L, the supremum of one per-example gradient's norm."""
        raise NotImplementedError

    def smoothness(self, row_norm):
        """beta_l = c Rt^2 with c = :attr:`curvature`.

        Parameters
        ----------
        row_norm : float
            Rt, the public bound on the norm of an augmented row.

        Returns
        -------
        beta_l : float
            Smoothness of one per-example loss.
        """
        return self.curvature * _positive("row_norm", row_norm) ** 2

    def sensitivity(self, row_norm, *, y_bound=None, radius=None):
        """S, the replace-one sensitivity of one per-example gradient."""
        raise NotImplementedError

    def value_at_zero_bound(self, *, y_bound=None):
        r"""A public bound on :math:`l(0; x, y)` over every record, ``inf`` when none is known.

        The regularised optimum lies in the ball of radius
        :math:`\sqrt{2 f_0/\lambda}` for any bound :math:`f_0` of the data term at 0
        (docs/theory.md#projection); a loss without one gets no such ball.

        Parameters
        ----------
        y_bound : float or None, default=None
            B, the public bound on ``|y|`` (regression losses).

        Returns
        -------
        float
            :math:`f_0 \ge \sup_{x, y} l(0; x, y)`, the loss being nonnegative.
        """
        return math.inf

    def inference_loss(self):
        """The loss whose estimate private inference targets when the estimator chose
        this loss's clip itself (``residual_clip="auto"``).

        A loss whose automatic clip only speeds the fit (the logistic residual clip)
        returns its plain form; the base returns itself (the clip is part of the target,
        as Huber's threshold is).

        Returns
        -------
        BaseLoss
            The loss inference fits and releases at.
        """
        return self

    def inference_third_bound(self):
        r"""The bound :math:`c_3 \ge |l^{(3)}(t; y)|` that private inference's step correction
        needs (docs/theory.md, "The Newton step's second-order term").

        A loss whose remainder after a Newton step is quadratic in the run's error declares
        its public bound; the base declares 0 (no correction: Huber's second derivative is
        a step function, a weighted loss is corrected by none).

        Returns
        -------
        float
            :math:`c_3 \ge 0`; 0 on the base.
        """
        return 0.0

    def inference_targets(self, y):
        """(loss, targets, row weights) that private inference reads its rows with.

        A loss that packs row weights with its targets (:class:`~skdpgd.losses.WeightedLoss`)
        unpacks them here; the base has none.

        Parameters
        ----------
        y : ndarray
            The targets as the fit's row sums hold them.

        Returns
        -------
        loss : BaseLoss
            The loss whose :meth:`inference_rows` weigh the rows.
        targets : ndarray
            The targets of ``loss``.
        weights : ndarray of shape (n_samples,) or None
            The rows' weights; None on the base (every row weighs 1).
        """
        return self, y, None

    def inference_bounds(self):
        r"""(:math:`c_H`, :math:`\psi_{\max}`) for private inference, None where unsupported.

        :math:`c_H \ge l''(t; y) \ge 0` and :math:`\psi_{\max} \ge |l'(t; y)|` for every
        score t and target y: the bounds on the row weights of the Hessian and of the score
        covariance that :mod:`skdpgd.inference` releases (their sensitivities
        :math:`\sqrt2\,c_H\tilde R^2` and :math:`\sqrt2\,\psi_{\max}^2\tilde R^2`,
        :ref:`private inference <private-inference>`). A loss declares them by overriding
        this method together with :meth:`inference_rows`; it may raise a ``ValueError``
        naming why a setting of it is not supported.

        Returns
        -------
        tuple of float or None
            :math:`(c_H, \psi_{\max})`; None on the base (inference not supported).
        """
        return None

    def inference_rows(self, t, y):
        r"""(w, psi) per row: :math:`w_i = l''(t_i; y_i)` and :math:`\psi_i = l'(t_i; y_i)`.

        Only for a loss whose :meth:`inference_bounds` is not None.

        Parameters
        ----------
        t : ndarray of shape (n_samples,)
            Linear predictions :math:`\theta\cdot\tilde x_i`.
        y : ndarray of shape (n_samples,)
            Targets.

        Returns
        -------
        w, psi : ndarray of shape (n_samples,)
            Curvature in :math:`[0, c_H]` and residual in
            :math:`[-\psi_{\max}, \psi_{\max}]` of each row.
        """
        raise NotImplementedError(f"{type(self).__name__} declares no inference rows.")


for _name, _sections in SHARED_DOCS.items():
    _method = getattr(BaseLoss, _name)
    _method.__doc__ = _method.__doc__.rstrip() + _sections
del _name, _sections, _method
