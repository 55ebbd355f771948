r"""The label releases of a DP pipeline: noisy class counts, and a private label set.

**Class counts** (``DPLogisticRegression(class_weight="balanced")``).

scikit-learn's ``"balanced"`` weights :math:`w_k = n / (K n_k)` divide by the class counts
of the data, a statistic of the private labels. Inside a DP pipeline the counts are
released first, with the Gaussian mechanism: over the public label set (``classes``),
the count vector :math:`c \in \mathbb Z^K` changes by at most one unit in two cells when
one record is replaced (its label changes from one class to another), so its replace-one
L2 sensitivity is :math:`\sqrt 2` and :math:`\tilde c = c + \mathcal N(0, 2/\mu^2\, I)` is
:math:`\mu`-GDP (Dong, Roth and Su 2022, Theorem 2.7). The weights are then
:func:`~skdpgd.linear_model._weights.class_weight_from_counts` of :math:`\tilde c`
(post-processing: :math:`w_k = n / (K \max(\tilde c_k, 1))`), a public dict for the
estimator, whose sensitivity grows with the largest weight
(docs/theory.md#weights). A label outside ``classes`` falls in no cell (the estimator
refuses it after the charge).

**Label set** (``DPLogisticRegression(classes="private")``): the labels present are
released by thresholded noisy counts, the mechanism of the vectorizer's category
discovery (mu-GDP plus an additive delta_0; docs/theory.md#label-set); rows whose label
was not released get weight 0 (:func:`release_label_set`).
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from ..accounting import ReleasePrivacyReport
from ..linear_model._weights import class_weight_from_counts
from ..preprocessing import PrivateStepMixin
from ..preprocessing._private_categories import discovery_threshold, sigma_for_mu
from ..utils._validation import make_generator

CLASS_COUNTS_MECHANISM = (
    "Gaussian noise on the class counts over the public label set (sensitivity sqrt 2; "
    "Dong, Roth, Su 2022, Theorem 2.7); balanced weights n / (K max(count, 1)) from them "
    "(post-processing)"
)


def _label_mask(y, label):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no warning whose text may depend on a value
        try:
            equal = np.asarray(y == label)
        except (TypeError, ValueError):
            equal = None
    if equal is None or equal.shape != y.shape or equal.dtype != bool:
        equal = np.fromiter((_same(v, label) for v in y), dtype=bool, count=y.size)
    return equal


def _same(value, label):
    try:
        return bool(value == label)
    except (TypeError, ValueError):
        return False


def release_balanced_weights(y, classes, *, mu, random_state):
    """Release noisy class counts (mu-GDP) and the balanced weights they give.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels.
    classes : array-like of shape (K,)
        The public label set.
    mu : float
        The release's GDP budget (``inf``: exact counts).
    random_state : int or numpy.random.Generator
        Noise source.

    Returns
    -------
    class_weight : dict
        {label: weight}, a public dict for the estimator.
    report : ReleasePrivacyReport
        mu-GDP, no additive delta.
    """
    y = np.asarray(y).ravel()
    classes = np.unique(np.asarray(classes))
    # each record is counted in one class at most (its first match), whatever its ``==``
    # says: the sensitivity sqrt 2 needs one record in one cell
    counts, taken = np.zeros(classes.size), np.zeros(y.size, dtype=bool)
    for k, label in enumerate(classes):
        match = _label_mask(y, label) & ~taken
        counts[k] = np.count_nonzero(match)
        taken |= match
    sigma = np.sqrt(2.0) / mu if mu > 0 else np.inf
    if np.isfinite(sigma) and sigma > 0:
        counts = counts + make_generator(random_state).normal(0.0, sigma, counts.size)
    elif not np.isfinite(sigma):
        counts = np.full(counts.size, y.size / counts.size)  # no budget: equal weights
    weights = class_weight_from_counts(classes, counts, y.size)
    report = ReleasePrivacyReport(
        mu=float(mu), extra_delta=0.0, mechanism=CLASS_COUNTS_MECHANISM,
        releases=(("y: class counts over the public label set", float(mu)),))
    return weights, report


class PrivateClassCounts(PrivateStepMixin, BaseEstimator):
    """The noisy class counts as a private step (one mu-GDP release of y; X is ignored).

    Parameters
    ----------
    classes : array-like of shape (K,)
        The public label set.
    epsilon : float, default=1.0
        Budget of a standalone ``fit`` (in a pipeline, its share instead).
    delta : float or "auto", default="auto"
        Delta of a standalone ``fit``.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged by a standalone ``fit`` before any value is read.
    random_state : None, int or numpy.random.Generator, default=None
        The noise source.

    Attributes
    ----------
    class_weight_ : dict
        {label: weight}, post-processing of the noisy counts.
    privacy_ : ReleasePrivacyReport
        mu-GDP, no additive delta.
    """

    _standalone_mechanism = CLASS_COUNTS_MECHANISM

    def __init__(self, classes, *, epsilon=1.0, delta="auto", ledger=None,
                 random_state=None):
        self.classes = classes
        self.epsilon = epsilon
        self.delta = delta
        self.ledger = ledger
        self.random_state = random_state

    def _n_samples(self, X, y):
        return int(np.shape(y)[0])

    def _privacy_plan(self, X):
        return 1, 0

    def _fit_private(self, X, y=None, *, mu, extra_delta=0.0, random_state=None):
        self.class_weight_, self.privacy_ = release_balanced_weights(
            y, self.classes, mu=mu, random_state=random_state)
        return self


LABEL_SET_MECHANISM = (
    "thresholded Gaussian counts of the labels present (sparse histogram, sensitivity "
    "sqrt 2; docs/theory.md#label-set): a label is released when its noisy count passes "
    "tau = 1 + sigma Phi^-1(1 - delta_0)"
)


def _label_key(value):
    """A sort key for a label (type name, text): deterministic over mixed types."""
    return (type(value).__name__, str(value))


def _is_missing_label(value):
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, of any float type
    except (TypeError, ValueError):
        return False


def release_label_set(y, *, mu, delta0, random_state):
    r"""Release the label set of ``y`` by thresholded noisy counts (mu-GDP plus delta0).

    The mechanism of :func:`skdpgd.preprocessing._private_categories.discover_categories`
    on the labels (:ref:`label-set`): every label present (missing ones
    excluded) gets :math:`c_\ell + \sigma Z_\ell`, :math:`\sigma = \sqrt2/\mu`, and is
    released when that passes :math:`\tau = 1 + \sigma\Phi^{-1}(1 - \delta_0)`. A label
    held by one record is released with probability at most :math:`\delta_0`. The rows
    whose label was not released (or is missing) get weight 0 in the fit
    (post-processing of the release: a per-record map, so n and the neighbouring
    relation are unchanged) instead of a refusal, which would tell whether such a row
    exists.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (private).
    mu : float
        GDP budget of the release.
    delta0 : float
        Its additive delta.
    random_state : int or numpy.random.Generator
        Noise source.

    Returns
    -------
    classes : list
        The released labels, sorted by (type, text).
    y_fit : ndarray of shape (n,)
        ``y`` with every label outside ``classes`` replaced by ``classes[0]``.
    weights : ndarray of shape (n,)
        1.0 for a row whose label was released, 0.0 otherwise.
    report : ReleasePrivacyReport
        mu-GDP plus ``delta0``.

    Raises
    ------
    ValueError
        When fewer than two labels were released (a fact about the release only).
    """
    y = np.asarray(y, dtype=object).ravel()
    counts = {}
    for value in y.tolist():
        if not _is_missing_label(value):
            counts[value] = counts.get(value, 0) + 1
    labels = sorted(counts, key=_label_key)
    sigma = sigma_for_mu(mu)
    tau = discovery_threshold(sigma, delta0)
    released = []
    if labels and np.isfinite(sigma) and np.isfinite(tau):
        noisy = np.array([counts[v] for v in labels], dtype=np.float64)
        noisy += sigma * make_generator(random_state).standard_normal(len(labels))
        released = [v for v, c in zip(labels, noisy) if c > tau]
    report = ReleasePrivacyReport(
        mu=float(mu), extra_delta=float(delta0), mechanism=LABEL_SET_MECHANISM,
        releases=(("y: label set", float(mu)),),
        notes=(f"sigma = {sigma:.6g}, tau = {tau:.6g} on each label's count",))
    if len(released) < 2:
        raise ValueError(
            "the private release of the label set kept fewer than two labels (labels held "
            "by few records are not released); give the public label set (classes=..., "
            "--classes on the command line), or a larger epsilon.")
    keep = set(released)
    inside = np.fromiter((not _is_missing_label(v) and v in keep for v in y.tolist()),
                         dtype=bool, count=y.size)
    y_fit = y.copy()
    y_fit[~inside] = released[0]
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in released):
        y_fit = y_fit.astype(np.int64)
    return released, y_fit, inside.astype(np.float64), report
