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
was not released get weight 0 (:func:`release_label_set`); the labels are counted and
released in their canonical forms (:mod:`skdpgd.utils._labels`), never as a record's own
objects.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from ..accounting import ReleasePrivacyReport
from ..linear_model._weights import class_weight_from_counts
from ..preprocessing import PrivateStepMixin
from ..preprocessing._private_categories import discovery_threshold, sigma_for_mu
from ..utils import canonical_labels, label_array, make_generator

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

    Every label is first mapped, record by record, to its canonical form
    (:func:`skdpgd.utils.canonical_labels`: a function of its value and of the public
    dtype of ``y`` only; ``-0.0`` and ``0.0`` are one label, so are ``1``, ``1.0`` and
    ``True`` in an object array, ``"a"`` and ``np.str_("a")``), and the counts, the
    released set and ``y_fit`` are made of canonical forms
    (:func:`skdpgd.utils.label_array`), never of a record's own object: the released
    classes, their dtype and the types of their elements are a function of the released
    labels and of the dtype of ``y``, whichever record wrote which spelling. A missing
    label (:func:`skdpgd.utils.is_missing_label`: None, NaN, ``pd.NA``, NaT) and a label
    that has no canonical form (an object that is neither a number nor a text) get
    weight 0.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (private); its dtype, when it has one, is public schema.
    mu : float
        GDP budget of the release.
    delta0 : float
        Its additive delta.
    random_state : int or numpy.random.Generator
        Noise source.

    Returns
    -------
    classes : ndarray
        The released canonical labels, sorted (:func:`skdpgd.utils.label_array`).
    y_fit : ndarray of shape (n,)
        Each row's canonical label in ``classes`` (same dtype), ``classes[0]`` for a
        row whose label is missing or was not released.
    weights : ndarray of shape (n,)
        1.0 for a row whose label was released, 0.0 otherwise.
    report : ReleasePrivacyReport
        mu-GDP plus ``delta0``.

    Raises
    ------
    ValueError
        When fewer than two labels were released (a fact about the release only).
    """
    labels, codes, schema = canonical_labels(y)
    counts = np.bincount(codes[codes >= 0], minlength=len(labels)).astype(np.float64)
    sigma = sigma_for_mu(mu)
    tau = discovery_threshold(sigma, delta0)
    kept = np.zeros(len(labels), dtype=bool)
    if labels and np.isfinite(sigma) and np.isfinite(tau):
        noisy = counts + sigma * make_generator(random_state).standard_normal(len(labels))
        kept = noisy > tau
    report = ReleasePrivacyReport(
        mu=float(mu), extra_delta=float(delta0), mechanism=LABEL_SET_MECHANISM,
        releases=(("y: label set", float(mu)),),
        notes=(f"sigma = {sigma:.6g}, tau = {tau:.6g} on each label's count",))
    released = [label for label, keep in zip(labels, kept, strict=True) if keep]
    classes, position = label_array(released, schema) if released else ([], None)
    if len(classes) < 2:
        raise ValueError(
            "the private release of the label set kept fewer than two labels (labels held "
            "by few records are not released); give the public label set (classes=..., "
            "--classes on the command line), or a larger epsilon.")
    class_of = np.full(len(labels) + 1, -1, dtype=np.intp)  # the last cell: missing (-1)
    class_of[np.flatnonzero(kept)] = position
    row_class = class_of[codes]
    inside = row_class >= 0
    y_fit = classes[np.where(inside, row_class, 0)]
    return classes, y_fit, inside.astype(np.float64), report
