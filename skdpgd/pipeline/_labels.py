r"""Noisy class counts for ``DPLogisticRegression(class_weight="balanced")`` in a DP pipeline.

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
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from ..accounting._release import ReleasePrivacyReport
from ..linear_model._weights import class_weight_from_counts
from ..preprocessing._private_step import PrivateStepMixin
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
