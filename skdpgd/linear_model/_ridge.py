"""Differentially private linear regression (clipped-residual / Huber objective)."""

import numbers

from sklearn.base import RegressorMixin

from ..losses import HuberLoss
from ..utils._clipping import clip_targets
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._base import PUBLIC_SCALE_RANGE, BaseDPLinearModel
from ._defaults import (
    ridge_initial_distance,
    ridge_residual_clip,
    ridge_residual_clip_for_spread,
)
from ._docs import fill_shared_parameters
from ._inference import CoefficientTableMixin
from ._predict import decision_on_clipped_rows
from ._refusals import SAMPLINGS
from ._repr import BudgetReprMixin
from ._run import PublicLabels

_Y_BOUND_REQUIRED = (
    "DPRidge needs y_bound, a public bound B on |y|: targets are clipped to [-B, B] "
    "(silently: a message saying whether some target was clipped would reveal that about "
    "the private data) and the default Huber threshold, hence the noise, is proportional "
    "to B. Take it from the target's documented range, centred and scaled with public "
    "constants (e.g. prices documented in [326, 18823]: y = (2 log(price) - log(326) - "
    "log(18823)) / (log(18823) - log(326)) lies in [-1, 1], so y_bound=1.0); never from "
    "max(abs(y)) of the training data, a statistic of the private data."
)


_Y_BOUND_AUTO = (
    "y_bound='auto' is valid only inside a DP pipeline (skdpgd.make_dp_pipeline(..., "
    "DPRidge(y_bound='auto'))), which releases a private range of y from its budget and "
    "fits a clone on the scaled target. Standalone, DPRidge needs a public numeric y_bound."
)


@fill_shared_parameters
class DPRidge(CoefficientTableMixin, BudgetReprMixin, RegressorMixin, BaseDPLinearModel):
    r"""Linear regression with (epsilon, delta)-differential privacy.

    Trained by noisy first-order steps on the L2-regularised Huber objective

    .. math::

        F(\theta) = \frac{1}{n}\sum_{i=1}^n h_c(\theta\cdot\tilde x_i - \tilde y_i)
                  + \frac{\lambda}{2}\|\theta\|^2,\qquad \lambda = \frac{\alpha}{n},

    with :math:`h_c(r) = r^2/2` for :math:`|r| \le c` and :math:`c|r| - c^2/2` otherwise,
    rows clipped to ``data_norm`` (intercept column appended), targets clipped to
    ``[-y_bound, y_bound]``. Its gradient is the *clipped residual*
    :math:`\mathrm{clip}(\theta\cdot x - y, -c, c)\,x`, bounded by c Rt for every theta,
    so the replace-one sensitivity is 2 c Rt with no projection, the objective is
    Rt^2 + lam smooth and lam-strongly convex. The default ``solver="auto"`` plans
    ``"gd"``, ``"cyclic"`` (2 to 64 batches) and ``"preconditioned"`` runs (the last up to
    2000 columns, intercept included) from public numbers and runs the one with the
    smallest predicted excess loss (:func:`skdpgd.solvers.predicted_excess_loss`); a few
    hundred rows of 3 features get ``"preconditioned"``, whose Gram release then lets the
    fit choose again on the released spectrum for the rest of the budget (the charge
    composes both, whichever runs). The bound that binds follows the
    choice (the report's ``binding_bound``): ``"composition"`` for ``"preconditioned"``
    (the Gram release and the K steps composed exactly in Gaussian DP; Dong, Roth and Su
    2022, Theorem 2.7 and Corollary 3.3), ``"Theorem 4.1 (composition)"`` for ``"gd"`` (its
    plan keeps lam near 0, where the strongly convex bound saves nothing), ``"Theorem 4.5
    (shifted interpolation across batches, not converged)"`` for ``"cyclic"`` (Bok, Su and
    Altschuler 2024: the gain over composition comes from the batches). Where every
    residual is below c this is ridge regression; otherwise it minimises the Huber
    objective, not the squared one (``residual_clip=np.inf`` is refused for epsilon < inf:
    the sensitivity would be unbounded). See :doc:`/ridge_objective` for the derivation
    and the comparison with the projected squared loss.

    Parameters
    ----------
    {epsilon}
    {delta}
    alpha : float or "auto", default="auto"
        Regularisation strength with scikit-learn's meaning (lam = alpha / n).
        ``"auto"`` picks lam from public quantities only (n, number of parameters,
        epsilon, delta, data_norm, y_bound) by minimising the utility proxy of
        :func:`skdpgd.solvers.utility_proxy`; the chosen value is ``alpha_``. 0 (no
        regularisation) needs ``max_coef_norm``: a convex objective on a bounded domain.
    {data_norm}
    y_bound : float, "auto" or None, default=None
        Public bound B on ``|y|``, required (``fit`` raises with None); targets are
        clipped to [-B, B] without a warning. Take it from the target's documented range,
        centred and scaled with public constants (e.g. diamond prices documented in
        [326, 18823]: ``y = (2 log(price) - log(326) - log(18823)) / (log(18823) -
        log(326))`` lies in [-1, 1], so ``y_bound=1.0``), never from the training
        targets. In [1e-12, 1e12]. There is no default because targets beyond it are
        clipped silently: a warning or an error that depends on whether some target
        exceeds B would reveal that fact about the private data, unaccounted (see Notes).
        ``"auto"`` is valid inside :func:`skdpgd.make_dp_pipeline` only: the pipeline
        releases a private range of y from its budget and fits a clone on the target
        scaled to [-1, 1] (standalone, ``fit`` refuses it before reading any value).
    residual_clip : float or "auto", default="auto"
        Threshold c of the Huber loss, in [1e-12, 1e12]. ``"auto"`` is about
        ``0.246 * y_bound``; inside a DP pipeline with ``y_bound="auto"``,
        ``0.425`` times the mapped target's released spread (see Notes).
    {fit_intercept}
    {intercept_scaling}
    {solver}
    {batch_size}
    {sampling}
    {max_iter}
    {learning_rate}
    {ledger}
    {n_jobs}
    {random_state}
    {verbose}
    max_sample_weight : float or None, default=None
        Public bound W on ``fit``'s ``sample_weight``, as in
        :class:`skdpgd.DPLogisticRegression`: needed to pass weights, which are clipped
        to [0, W] silently; the sensitivity, gradient bound and smoothness are W times
        the unweighted ones (:ref:`weights`).
    {max_coef_norm}
    inference : bool, default=False
        Also release a private covariance of the coefficients, as in
        :class:`skdpgd.DPLogisticRegression`; the intervals cover the Huber-regression
        coefficients (:doc:`/theory`, "Private inference for the coefficients").

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients of the released (last) iterate, on the caller's features.
    intercept_ : float
        Intercept of the released iterate (0.0 when ``fit_intercept=False``).
    solver_ : str
        The solver that ran: ``solver`` itself, or what ``"auto"`` chose (the reason is in
        ``run_report_.notes``).
    n_features_in_, feature_names_in_, n_iter_, noise_std_, learning_rate_,
    strong_convexity_, batch_size_, intercept_scaling_, data_norm_, privacy_,
    run_report_
        As in :class:`skdpgd.DPLogisticRegression`.
    alpha_ : float
        lam n, the alpha that was used.
    residual_clip_ : float
        The Huber threshold c that was used (the clip on each residual).
    coef_se_, intercept_se_, coef_cov_, pvalues_, inference_
        With ``inference=True``: the private standard errors (shapes of ``coef_`` and
        ``intercept_``), covariance (``coef_.ravel()`` order, intercept last), Wald
        p-values and the :class:`~skdpgd.inference.CoefficientTable`.

    Notes
    -----
    The model is a function of the clipped row: ``predict`` and ``score`` scale each row
    x by min(1, data_norm / ||x||) before the linear map, as ``fit`` did (overflow-safe,
    for dense, CSR and float32 X; the bound applied is ``data_norm_``), so a
    ``data_norm`` below the rows' norms shrinks them at prediction time exactly as in
    training instead of extrapolating to rows the model never saw.

    The default ``residual_clip`` comes from the target bound alone: Huber's
    95%-efficiency threshold (1.345 residual standard deviations) for a model with
    R^2 = 0.9 on targets spread uniformly over [-B, B], i.e. 1.345 sqrt(0.1/3) B.
    Inside a DP pipeline with ``y_bound="auto"`` (and no ``inference``) the pipeline's
    release of the target range also gives the mapped target's standard deviation s
    (post-processing of the same noisy histogram), and the threshold is
    1.345 sqrt(0.1) s instead of assuming the uniform law's s = 1/sqrt(3)
    (:doc:`/theory`, "The Huber threshold from the target's released spread"): the noise
    is proportional to c, and a target concentrated in its range gets a smaller one.
    Huber's intercept converges to a Huber location of the residuals, not to their
    mean: where the residuals are skewed (a count, a price, an income) the fitted
    intercept sits below the mean and the squared error pays that bias on every row.
    Inside a DP pipeline (:func:`~skdpgd.make_dp_pipeline`) the intercept is moved to the
    private mean residual after the fit (``mean_correction="auto"``;
    :doc:`/theory`, "The regressor's intercept at its mean residual").

    Why ``y_bound`` is required and clipping is silent: the guarantee covers the clipped
    targets, so clipping is part of the private algorithm; telling the user *whether*
    it happened would be a data-dependent output outside the accountant. Making the
    bound a required public input moves the decision to the user, before any data is
    read.

    References
    ----------
    J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 2022 (the composition
    bound of ``"preconditioned"``, and of ``"gd"`` when lam is near 0).

    J. Bok, W. Su, J. Altschuler. Shifted interpolation for differential privacy. ICML 2024
    (the convergent bound of ``"cyclic"`` and ``"gd"``, and their composition bound).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd import DPRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 3)) / np.sqrt(3)
    >>> y = np.clip(X @ [1.0, -0.5, 0.2], -1, 1)
    >>> reg = DPRidge(epsilon=1.0, y_bound=1.0, random_state=0).fit(X, y)
    >>> reg.privacy_.epsilon <= 1.0
    True
    """

    _parameter_constraints = {
        **BaseDPLinearModel._parameter_constraints,
        "sampling": [StrOptions(set(SAMPLINGS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left"), StrOptions({"auto"})],
        "y_bound": [Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"),
                    StrOptions({"auto"}), None],
        "residual_clip": [
            Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"), StrOptions({"auto"})
        ],
        "max_sample_weight": [Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"), None],
        "inference": ["boolean"],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        delta="auto",
        alpha="auto",
        data_norm=1.0,
        y_bound=None,
        residual_clip="auto",
        fit_intercept=True,
        intercept_scaling="auto",
        solver="auto",
        batch_size="auto",
        sampling="poisson",
        max_iter="auto",
        learning_rate="auto",
        ledger=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        max_sample_weight=None,
        max_coef_norm=None,
        inference=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.data_norm = data_norm
        self.y_bound = y_bound
        self.residual_clip = residual_clip
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.batch_size = batch_size
        self.sampling = sampling
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.ledger = ledger
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.max_sample_weight = max_sample_weight
        self.inference = inference
        self.max_coef_norm = max_coef_norm

    def _strong_convexity(self, n_samples):
        return None if self.alpha == "auto" else self.alpha / n_samples

    def _public_y_bound(self):
        """y_bound, which must be given: a data-independent error otherwise."""
        if self.y_bound is None:
            raise ValueError(_Y_BOUND_REQUIRED)
        if isinstance(self.y_bound, str):  # "auto": released by a DPPipeline only
            raise ValueError(_Y_BOUND_AUTO)
        return self.y_bound

    def _output_scale(self):
        return float(self.y_bound)

    def _public_target_bound(self):
        """``y_bound`` as given (None, ``"auto"`` or the bound)."""
        return self.y_bound

    def _zero_loss_bound(self, loss):
        """h_c(B) (times W when weighted): the Huber loss of the clipped targets at 0."""
        return float(loss.value_at_zero_bound(y_bound=self._public_y_bound()))

    def _initial_distance(self, n_features, n_outputs, intercept_scaling):
        return ridge_initial_distance(
            self._public_y_bound(), self.data_norm, n_features, intercept_scaling
        )

    def _residual_clip(self):
        if self.residual_clip == "auto":
            return ridge_residual_clip(self._public_y_bound())
        return float(self.residual_clip)

    def _loss_and_shape(self, n_features, n_classes=None):
        """The Huber loss with the residual clip c; theta's shape (n_classes is ignored)."""
        return HuberLoss(self._residual_clip()), (n_features + int(self.fit_intercept),)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_ids=None, *, sample_weight=None, **fit_params):
        """Fit the model with (epsilon, delta)-DP; only the last iterate is kept.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32 (computed in float32 without a copy).
        y : array-like of shape (n_samples,)
            Targets; clipped to [-y_bound, y_bound].
        sample_ids : array-like of shape (n_samples,), default=None
            Public identifiers of the rows, only passed to ``ledger``.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights (private: part of each record). Needs the public bound
            ``max_sample_weight``; weights are clipped to [0, max_sample_weight]
            silently, a NaN weight is refused after the ledger charge.
        **fit_params : dict
            Refused with a reason.

        Returns
        -------
        self : DPRidge
            The fitted estimator (``coef_``, ``intercept_``, ``privacy_``, ...).
        """
        return self._fit(X, y, sample_ids, sample_weight=sample_weight, fit_params=fit_params)

    # -- the hooks of the one fit (BaseDPLinearModel._fit) -------------------------------
    def _check_parameters(self):
        super()._check_parameters()
        self._public_y_bound()

    def _public_labels(self, X, y, n_samples):
        """A single target, from y's shape only."""
        y_shape = getattr(y, "shape", (n_samples,))
        if len(y_shape) > 2 or (len(y_shape) == 2 and y_shape[1] != 1):
            raise ValueError(f"DPRidge supports a single target; y has shape {y_shape}.")
        return PublicLabels()

    def _read_targets(self, X, y, labels, sample_weight):
        """(X, targets, None): y clipped to [-y_bound, y_bound] (silently)."""
        X, y = self._validate_X_y(X, y, y_numeric=True)
        if y.ndim != 1:
            raise ValueError(f"DPRidge supports a single target; y has shape {y.shape}.")
        return X, self._weighted_targets(clip_targets(y, self.y_bound), sample_weight), None

    def _store_model(self, coef, charged, classes, n_rows):
        coef_, intercept_ = self._split_coef(coef, charged.problem.intercept_scaling)
        self.coef_, self.intercept_ = coef_[0], float(intercept_[0])
        self.alpha_ = charged.plan.strong_convexity * n_rows
        self.residual_clip_ = charged.loss.residual_clip

    # -- what a DP pipeline releases for it (._pipeline_releases) -------------------------
    def _pipeline_releases(self):
        """``"target_range"`` for ``y_bound="auto"``: a private range of y."""
        return ("target_range",) if isinstance(self.y_bound, str) else ()

    def _use_pipeline_release(self, kind, value):
        """The released range: the fit sees y mapped to [-1, 1], so y_bound = 1.

        ``value`` is ``(low, high)`` or ``(low, high, spread)``, spread the mapped
        target's standard deviation read from the same release (None: not read). With
        ``residual_clip="auto"`` and no ``inference`` (whose table is planned before the
        release, at the public threshold), a spread sets the Huber threshold
        (:func:`~skdpgd.linear_model._defaults.ridge_residual_clip_for_spread`):
        post-processing of the release.
        """
        if kind != "target_range":
            return super()._use_pipeline_release(kind, value)
        spread = value[2] if len(value) > 2 else None
        self.set_params(y_bound=1.0)
        if (self.residual_clip == "auto" and not self.inference and spread is not None
                and spread > 0.0):
            self.set_params(residual_clip=ridge_residual_clip_for_spread(spread))
        return self

    def _check_in_pipeline(self):
        """A bound on |y| is needed: public, or ``"auto"`` (released by the pipeline)."""
        if self.y_bound is None:
            raise ValueError(
                "DPRidge inside a DPPipeline needs y_bound: a public bound on |y|, or "
                "y_bound='auto' for a private range of y released by the pipeline.")

    def predict(self, X):
        """Predict with the linear model on the rows clipped to ``data_norm``, as in fit.

        Each row x is first scaled by min(1, data_norm / ||x||), the map ``fit`` applied
        to the training rows (overflow-safe: finite predictions for any finite row), so
        the model sees rows like those it was fitted on
        (:func:`~skdpgd.linear_model._predict.clipped_decision`). Predictions are not
        clipped to ``y_bound``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32; every entry finite.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``coef_ . clip(x) + intercept_`` for every row x, in float64.
        """
        return decision_on_clipped_rows(self, X)
