"""Differentially private logistic regression (binary and multinomial)."""

import numbers

import numpy as np
from scipy.special import log_softmax
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import Interval, LinearClassifierMixin, StrOptions, _fit_context
from ._base import PUBLIC_SCALE_RANGE, BaseDPLinearModel, Options
from ._defaults import CONFIDENT_LOGIT, logistic_initial_distance
from ._docs import fill_shared_parameters
from ._inference import CoefficientTableMixin
from ._labels import PublicLabelsMixin
from ._predict import decision_on_clipped_rows
from ._refusals import SAMPLINGS
from ._repr import BudgetReprMixin
from ._run import PublicLabels
from ._weights import check_class_weight


@fill_shared_parameters
class DPLogisticRegression(
    CoefficientTableMixin, BudgetReprMixin, PublicLabelsMixin, LinearClassifierMixin,
    ClassifierMixin, BaseDPLinearModel,
):
    r"""Logistic regression with (epsilon, delta)-differential privacy.

    Trained by noisy first-order steps on

    .. math::

        F(\theta) = \frac{1}{n}\sum_{i=1}^n \ell(\theta; \tilde x_i, y_i)
                  + \frac{\lambda}{2}\|\theta\|^2,\qquad \lambda = \frac{1}{C n},

    where :math:`\tilde x_i` is the row clipped to norm ``data_norm`` with the constant
    ``intercept_scaling`` appended (so the intercept is regularised), and releasing only
    the last iterate. The default ``solver="auto"`` plans ``"gd"``, ``"cyclic"`` (2 to 64
    batches) and ``"preconditioned"`` runs from public numbers and runs the one with the
    smallest predicted excess loss (:func:`skdpgd.solvers.predicted_excess_loss`); a few
    hundred rows of 3 features get ``"preconditioned"``, whose Gram release then lets the
    fit choose again on the released spectrum for the rest of the budget (the charge
    composes both, whichever runs; ``run_report_.run_solver``). The bound that binds follows the
    choice (``privacy_.binding_bound``): ``"composition"`` for ``"preconditioned"`` (Gram
    release and K steps; Dong, Roth and Su 2022), ``"Theorem 4.1 (composition)"`` for
    ``"gd"`` (its plan keeps lam near 0), ``"Theorem 4.5 (shifted interpolation across
    batches, not converged)"`` for ``"cyclic"`` (Bok, Su and Altschuler 2024: mu still grows
    with the passes at a fixed noise, the gain over composition comes from the batches); sigma
    meets (epsilon, delta) exactly. Two classes use the binary loss; more use the softmax
    loss with one joint sensitivity (no one-vs-rest split of the budget).

    Parameters
    ----------
    {epsilon}
    {delta}
    C : float or "auto", default="auto"
        Inverse regularisation strength with scikit-learn's meaning (lam = 1/(C n)).
        ``"auto"`` picks lam from public quantities only (n, number of parameters,
        epsilon, delta, data_norm) by minimising the utility proxy of
        :func:`skdpgd.solvers.utility_proxy`; the chosen value is ``C_``. ``np.inf``
        (no regularisation, lam = 0) needs ``max_coef_norm``: a convex objective on a
        bounded domain.
    {data_norm}
    {fit_intercept}
    {intercept_scaling}
    residual_clip : float in [1e-12, 1] or "auto", default="auto"
        Clip c of the residual sigma(t) - y in the gradient (binary loss only): the
        loss becomes the convex, classification-calibrated Huberised logistic loss of
        :class:`skdpgd.losses.BinaryLogisticLoss` and the sensitivity is 2 c Rt instead
        of 2 Rt. ``"auto"`` is 1/2 for two classes (the residual of a row on the
        decision boundary: correctly classified rows keep the logistic gradient,
        misclassified rows count with a fixed weight, and the noise halves) and no
        clip for the softmax loss, whose clipped gradient is not the gradient of a
        convex loss. 1 is the plain logistic loss. The value used is ``residual_clip_``.
        With a clip, ``predict_proba`` is the sigmoid of a model fitted to the Huberised
        loss: a calibrated classifier, but not the logistic maximum-likelihood
        probabilities; use ``residual_clip=1`` when the probabilities themselves matter.
    classes : array-like, None or "private", default=None
        The public label set. If None it is read from ``y``, outside the guarantee, and
        the privacy report's headline says that the label set was read from the data.
        ``"private"``, inside a :class:`~skdpgd.DPPipeline` only: the pipeline releases
        the label set by thresholded noisy counts, accounted in its budget
        (:ref:`label-set`), in canonical forms (``-0.0`` is ``0.0``; ``1``, ``1.0`` and
        ``True`` in an object y are the int ``1``): ``classes_`` and ``predict``'s
        dtype depend on the released labels and the dtype of y only; a missing label
        (None, NaN, ``pd.NA``, NaT) is a row of weight 0.
    {solver}
    {batch_size}
    {sampling}
    {max_iter}
    {learning_rate}
    {ledger}
    {n_jobs}
    {random_state}
    {verbose}
    class_weight : dict or None, default=None
        Public weights {label: weight >= 0} of the classes (labels not in the dict weigh
        1): row i's loss is multiplied by the weight of its label, and the sensitivity,
        the gradient bound and the smoothness by the largest weight W_c a label of the
        public label set can get (of every label and 1 when ``classes`` is not given;
        :ref:`weights`). ``"balanced"`` is refused with the reason: it reads the
        class counts of the private data; give a dict, or release noisy class counts
        under an accounted budget and pass the dict they give (post-processing,
        :func:`~skdpgd.linear_model._weights.class_weight_from_counts`, the hook for a
        DP pipeline).
    warm_start : False, default=False
        Only False: a start that depends on a previous fit's data voids the bound,
        which assumes a data-independent start. ``True`` is refused by ``fit``.
    max_sample_weight : float or None, default=None
        Public bound W_s on ``fit``'s ``sample_weight``, in [1e-12, 1e12]; needed to
        pass ``sample_weight`` (refused with the reason otherwise). Weights are private
        (one per record) and are clipped to [0, W_s] silently, after the ledger charge;
        the sensitivity, gradient bound and smoothness are W times the unweighted ones,
        W = W_s W_c (:ref:`weights`). When set, a fit without
        ``sample_weight`` weighs every row min(1, W_s) and is planned with the same W, so
        the report depends on the parameters only.
    {max_coef_norm}
    inference : bool, default=False
        Also release a private covariance of the coefficients (binary only), for
        ``coef_se_``, ``conf_int``, ``pvalues_`` and ``summary``: the run gets 0.3 of
        mu^2, a gradient, Hessian and score covariance at its last iterate the rest
        (:func:`skdpgd.inference.inference_shares`), one
        private Newton step on the plain (unclipped, unpenalised) loss gives ``coef_``;
        all in one report (:doc:`/theory`, "Private inference for the coefficients").

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients of the released (last) iterate; one row per class beyond two.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Its weight on the appended column times ``intercept_scaling_`` (0 without one).
    solver_ : str
        The solver that ran (what ``"auto"`` chose; why: ``run_report_.notes``).
    intercept_scaling_ : float
        The b that was used (0.0 when ``fit_intercept=False``).
    data_norm_ : float
        The row bound R of the fit, which the prediction functions apply to their rows.
    residual_clip_ : float
        The residual clip c that was used (1.0: none).
    classes_ : ndarray of shape (n_classes,)
        The label set: ``classes``, or the labels read from y (public; noted).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Only when X has feature names that are all strings.
    n_iter_ : int
        Number of noisy steps K that were run.
    noise_std_ : float
        sigma, the noise standard deviation on the averaged gradient.
    learning_rate_ : float
    strong_convexity_ : float
        lam.
    C_ : float
        1 / (lam n), the C that was used.
    batch_size_ : int or None
        The smallest (``"cyclic"``) or expected (``"sgd"``) batch size; None full batch.
    privacy_ : skdpgd.accounting.PrivacyReport
        The guarantee (epsilon, delta, mu, theorem, ``binding_bound``) and every constant
        it used; its class follows the solver (:doc:`/user_guide`, "Reading the report").
    run_report_ : skdpgd.accounting.PrivacyReport
        The report of the run that ran: ``privacy_`` itself, except where
        ``solver="auto"`` chose its run on a released Gram, where ``privacy_`` is the
        charge fixed before the data were read and ``run_report_`` names the run chosen
        (same guarantee; post-processing, :ref:`choosing-on-the-released-spectrum`).
    coef_se_, intercept_se_, coef_cov_, pvalues_, inference_
        With ``inference=True``: the private standard errors (shapes of ``coef_`` and
        ``intercept_``), covariance (``coef_.ravel()`` order, intercept last), Wald
        p-values and the :class:`~skdpgd.inference.CoefficientTable`.

    Notes
    -----
    Binary loss: gradient bound L = c Rt, smoothness Rt^2/4, replace-one sensitivity
    2 c Rt (c = ``residual_clip_``); softmax: sqrt(2) Rt, Rt^2/2, 2 sqrt(2) Rt
    (:ref:`loss-constants`), with Rt = sqrt(data_norm^2 + intercept_scaling^2).

    The model is a function of the clipped row: ``decision_function``, ``predict``,
    ``predict_proba``, ``predict_log_proba`` and ``score`` scale each row x by
    min(1, data_norm / ||x||) before the linear map, as ``fit`` did (overflow-safe, for
    dense, CSR and float32 X), so a ``data_norm`` below the rows' norms shrinks them at
    prediction time exactly as in training. The bound applied is ``data_norm_``.

    References
    ----------
    J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 2022 (composition).

    J. Bok, W. Su, J. Altschuler. Shifted interpolation for differential privacy. ICML 2024
    (the convergent bound).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from skdpgd import DPLogisticRegression
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / (16 * 8)  # public bound: 64 pixels in [0, 16], so every row has norm <= 1
    >>> clf = DPLogisticRegression(epsilon=1.0, classes=np.arange(10), random_state=0).fit(X, y)
    >>> clf.privacy_.epsilon <= 1.0
    True
    """

    _parameter_constraints = {
        **BaseDPLinearModel._parameter_constraints,
        "sampling": [StrOptions(set(SAMPLINGS))],
        "C": [Interval(numbers.Real, 0, None, closed="neither"), Options(numbers.Real, {np.inf}),
              StrOptions({"auto"})],
        "classes": ["array-like", None, StrOptions({"private"})],
        "residual_clip": [Interval(numbers.Real, 1e-12, 1, closed="both"), StrOptions({"auto"})],
        "class_weight": "no_validation",  # checked with reasons in fit (_weights.py)
        "max_sample_weight": [Interval(numbers.Real, *PUBLIC_SCALE_RANGE, closed="both"), None],
        "inference": ["boolean"],
        "warm_start": "no_validation",
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        delta="auto",
        C="auto",
        data_norm=1.0,
        fit_intercept=True,
        intercept_scaling="auto",
        residual_clip="auto",
        classes=None,
        solver="auto",
        batch_size="auto",
        sampling="poisson",
        max_iter="auto",
        learning_rate="auto",
        ledger=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        class_weight=None,
        warm_start=False,
        max_sample_weight=None,
        max_coef_norm=None,
        inference=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.C = C
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.residual_clip = residual_clip
        self.classes = classes
        self.solver = solver
        self.batch_size = batch_size
        self.sampling = sampling
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.ledger = ledger
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.max_sample_weight = max_sample_weight
        self.inference = inference
        self.max_coef_norm = max_coef_norm

    def _strong_convexity(self, n_samples):
        return None if self.C == "auto" else 1.0 / (self.C * n_samples)  # C = inf: 0

    def _output_scale(self):
        return CONFIDENT_LOGIT

    def _initial_distance(self, n_features, n_outputs, intercept_scaling):
        return logistic_initial_distance(
            self.data_norm, n_features, n_outputs, intercept_scaling
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_ids=None, *, sample_weight=None, **fit_params):
        """Fit the model with (epsilon, delta)-DP; only the last iterate is kept.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32 (computed in float32 without a copy).
        y : array-like of shape (n_samples,)
            Class labels. With ``classes`` given, every label must be in it (refused
            otherwise, after the ledger charge, with no label quoted); without it the
            labels of y form the label set, which is then treated as public (noted in
            the report) and a ``ledger`` is refused.
        sample_ids : array-like of shape (n_samples,), default=None
            Public identifiers of the rows, only passed to ``ledger`` (which then
            composes in parallel the fits whose rows are disjoint). Ignored without one.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights (private: part of each record). Needs the public bound
            ``max_sample_weight``; weights are clipped to [0, max_sample_weight]
            silently, a NaN weight is refused after the ledger charge.
        **fit_params : dict
            Refused with a reason.

        Returns
        -------
        self : DPLogisticRegression
            The fitted estimator (``coef_``, ``intercept_``, ``privacy_``, ...).
        """
        return self._fit(X, y, sample_ids, sample_weight=sample_weight, fit_params=fit_params)

    # -- the hooks of the one fit (BaseDPLinearModel._fit) -------------------------------
    def _public_labels(self, X, y, n_samples):
        """The public label set; without one (and without a ledger) the labels of y."""
        classes = self._public_classes()
        class_weight = check_class_weight(self.class_weight, classes)
        if classes is not None:
            return PublicLabels(classes.size, (), classes, class_weight)
        if self.ledger is not None:
            raise ValueError(
                "with a ledger, classes= must be given: the label set decides the loss "
                "and the noise, and reading it from y before the charge would let a "
                "refused fit reveal the labels for free. Pass the public label set."
            )
        X, y = self._validate_X_y(X, y)  # no budget to protect: read the labels first
        classes, codes, notes = self._encode_labels(y, None)
        return PublicLabels(classes.size, tuple(notes), classes, class_weight, (X, codes))

    def _read_targets(self, X, y, labels, sample_weight):
        """(X, targets, classes): the label codes (a label outside ``classes`` refused)."""
        if labels.read is None:
            X, y = self._validate_X_y(X, y)
            classes, codes, _ = self._encode_labels(y, labels.classes)
        else:
            (X, codes), classes = labels.read, labels.classes
        targets = codes.astype(float) if classes.size == 2 else codes
        return X, self._weighted_targets(targets, sample_weight, codes=codes, classes=classes,
                                         class_weight=labels.class_weight), classes

    def _store_model(self, coef, charged, classes, n_rows):
        self.coef_, self.intercept_ = self._split_coef(coef, charged.problem.intercept_scaling)
        self.residual_clip_ = getattr(charged.loss, "residual_clip", 1.0)
        self.classes_ = classes
        lam = charged.plan.strong_convexity
        self.C_ = np.inf if lam == 0.0 else 1.0 / (lam * n_rows)

    # -- what a DP pipeline releases for it (._pipeline_releases) -------------------------
    def _pipeline_releases(self):
        """``"label_set"`` for ``classes="private"``, ``"class_counts"`` for
        ``class_weight="balanced"``, in that order."""
        private = isinstance(self.classes, str)  # "private"
        balanced = isinstance(self.class_weight, str) and self.class_weight == "balanced"
        return ("label_set",) * private + ("class_counts",) * balanced

    def _use_pipeline_release(self, kind, value):
        """The released label set (rows of other labels get weight 0: weights in {0, 1},
        W_s = 1, the same plan) or the balanced weights of the noisy counts."""
        if kind == "label_set":
            self.set_params(classes=value)
            if self.max_sample_weight is None:
                self.set_params(max_sample_weight=1.0)
        elif kind == "class_counts":
            self.set_params(class_weight=value)
        else:
            return super()._use_pipeline_release(kind, value)
        return self

    def _pipeline_classes(self):
        """``classes`` when public (None, or ``"private"``: none)."""
        return None if isinstance(self.classes, str) else self.classes

    def _public_label_set(self):
        """``classes`` as given (None, ``"private"`` or the label set)."""
        return self.classes

    def _weighs_classes(self):
        """Whether ``class_weight`` is given."""
        return self.class_weight is not None

    def _check_in_pipeline(self):
        """A public label set of at least two actual labels (what the fit would refuse
        after the pipeline's charge); balanced weights need the label set the counts are of."""
        if self._pipeline_classes() is not None:
            self._public_classes()
        if self._pipeline_releases() == ("class_counts",) and self.classes is None:
            raise ValueError(
                "class_weight='balanced' inside a DPPipeline needs the public label set "
                "(classes=...): the pipeline releases noisy counts of those classes.")

    def decision_function(self, X):
        """Scores of the rows clipped to ``data_norm``, as in fit.

        Each row x is first scaled by min(1, data_norm / ||x||), the map ``fit`` applied
        to the training rows (overflow-safe: finite scores for any finite row), so the
        model sees rows like those it was fitted on
        (:func:`~skdpgd.linear_model._predict.clipped_decision`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32; every entry finite.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The logit of the second class for two classes, one score per class otherwise.
        """
        scores = decision_on_clipped_rows(self, X)
        return scores.reshape(-1) if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        r"""Class probabilities on the rows clipped to ``data_norm``, as in fit.

        The exponential of :meth:`predict_log_proba`: for two classes
        :math:`(1 - \sigma(s), \sigma(s))` with s the score of
        :meth:`decision_function`, for more the softmax of the scores. With a
        ``residual_clip_`` below 1 these are the probabilities of the model fitted to the
        Huberised loss, not the logistic maximum-likelihood ones (see ``residual_clip``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32; every entry finite.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            One column per class, in the order of ``classes_``; every row sums to 1.
        """
        return np.exp(self.predict_log_proba(X))

    def predict_log_proba(self, X):
        r"""Logarithm of the class probabilities, on the rows clipped to ``data_norm``.

        Computed stably from the scores s of :meth:`decision_function`:
        :math:`(-\log(1 + e^{s}), -\log(1 + e^{-s}))` for two classes (``np.logaddexp``),
        :func:`scipy.special.log_softmax` of the scores for more, so no probability
        underflows to a log of minus infinity before it must.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense or CSR, float64 or float32; every entry finite.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            One column per class, in the order of ``classes_``.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([-np.logaddexp(0, scores), -np.logaddexp(0, -scores)])
        return log_softmax(scores, axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
