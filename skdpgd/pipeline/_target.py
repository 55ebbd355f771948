r"""The private range of the target for ``DPRidge(y_bound="auto")`` inside a DP pipeline.

The pipeline releases a range :math:`[a, b]` of y as
:class:`~skdpgd.preprocessing.DPTableVectorizer` releases a numeric column's: two Gaussian
histograms in the release's one share (``column_range``: a locating histogram over the
public grid, then a refined or a second one, :math:`\mu_1^2 + \mu_2^2 \le \mu^2`, adaptive
composition; each of replace-one sensitivity :math:`\sqrt 2`, Dong, Roth and Su 2022,
Theorem 2.7; no additive delta, since every cell is noised and the thresholds are
post-processing), read with its point-mass, tail, window and median rules (docs/theory.md,
"Reading a column's range"): a target's heavy top, cut by the single cells' threshold,
biased the clipped mean the model fits (a visit count at epsilon 0.1: range [0, 5.7],
predictions 0.8 below the mean). An integer dtype of y (public) reads as an integer
column's. Then, by post-processing of that release and a
per-record map, the ridge is fitted on

.. math:: \tilde y = \mathrm{clip}\Big(\frac{y - (a + b)/2}{(b - a)/2}, -1, 1\Big)

with ``y_bound=1`` and, by default, the Huber threshold set from the mapped target's
standard deviation read from the same release (:func:`histogram_spread`; docs/theory.md,
"The Huber threshold from the target's released spread"), and its coefficients are
mapped back: a prediction
:math:`w\cdot x + c` of :math:`\tilde y` is :math:`s(w\cdot x + c) + m` with
:math:`s = (b-a)/2`, :math:`m = (a+b)/2`. When no cell of the histogram survives the
threshold (too few records for the noise), the public default :math:`[-1, 1]` is used,
and a :class:`~skdpgd.exceptions.PreparationFallbackWarning` says so (a function of the
noisy histogram alone): never an error that depends on the data.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from ..accounting import ReleasePrivacyReport
from ..exceptions import PreparationFallbackWarning
from ..preprocessing import PrivateStepMixin
from ..preprocessing._private_range import cell_edges

TARGET_RANGE_MECHANISM = (
    "two Gaussian histograms of y, as for a numeric column of DPTableVectorizer: over the "
    "public grid, then a refined or second one (sensitivity sqrt 2 each; Dong, Roth, Su "
    "2022, Theorem 2.7; composed adaptively, Corollary 3.3), the range read after "
    "thresholds (post-processing)"
)

#: The range used when no cell survives the threshold (public).
DEFAULT_RANGE = (-1.0, 1.0)


def release_target_range(y, *, mu, random_state):
    """Release a mu-GDP range of y (called after the ledger charge).

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets.
    mu : float
        The release's GDP budget.
    random_state : int or numpy.random.Generator
        Noise source.

    Returns
    -------
    low, high : float
        The range, low < high.
    spread : float or None
        The mapped target's standard deviation read from the release
        (:func:`histogram_spread`); None with the public default range.
    report : ReleasePrivacyReport
        mu-GDP, no additive delta.
    """
    from ..preprocessing import (
        column_range,  # the vectorizer's mechanism for one column
    )

    kind = getattr(getattr(y, "dtype", None), "kind", None)
    integer = kind in ("i", "u")  # the public dtype, as for a column
    y = target_values(y)
    released = column_range(y, mu, random_state, integer=integer)
    found = released.range
    usable = found.found and np.isfinite(found.low) and np.isfinite(found.high) and (
        found.high > found.low)
    low, high = (found.low, found.high) if usable else DEFAULT_RANGE
    spread = (histogram_spread(*released.histogram, low, high)
              if usable and released.histogram is not None else None)
    notes = () if usable else (
        "no histogram cell of y passed the threshold: the public default range [-1, 1] "
        "was used",)
    if not usable:  # a function of the noisy histogram only (post-processing), no value
        PreparationFallbackWarning.warn(
            "the private range of y fell back to the public default [-1, 1]: no histogram "
            "cell of y passed the threshold (too few rows for the noise of its budget). "
            "Predictions are confined to that range, which may be far from y's scale: give "
            "DPRidge a public y_bound (or a public range of y), or a larger budget.")
    report = ReleasePrivacyReport(
        mu=float(mu), extra_delta=0.0, mechanism=TARGET_RANGE_MECHANISM,
        releases=tuple((f"y: {what}", float(part)) for what, part in released.releases)
        or (("y: histogram over the public grid", float(mu)),), notes=notes)
    return float(low), float(high), spread, report


def histogram_spread(edges, noisy, low, high):
    r"""The standard deviation of the mapped target, read from its released histogram.

    Post-processing of the release the range was read from: with the cells
    :math:`[e_k, e_{k+1})` of ``edges`` (outer cells unbounded) cut to the released range
    :math:`[a, b]` and mapped by :func:`scale_target`'s map
    :math:`u = (v - (a + b)/2)/((b - a)/2)` to :math:`[u_k, u_{k+1}] \subseteq [-1, 1]`,
    each cell inside the range weighted by its noisy count floored at 0,
    :math:`w_k = \max(\tilde c_k, 0)`, and the values spread uniformly within a cell,

    .. math::

        \hat s^2 = \frac{\sum_k w_k\big((m_k - \bar m)^2 + h_k^2/12\big)}{\sum_k w_k},
        \qquad m_k = \frac{u_k + u_{k+1}}2,\ h_k = u_{k+1} - u_k,\
        \bar m = \frac{\sum_k w_k m_k}{\sum_k w_k}.

    Cells wholly outside the range are left out (their records are mapped to
    :math:`\pm1` by the clip, but their counts are mostly noise: the range's tail rules
    cut there). The floor at 0 adds positive noise to empty cells, which spreads mass over
    the range: the estimate errs towards a wider target, the uniform law's
    :math:`1/\sqrt3` being what an even spread of noise over equal cells gives.

    Parameters
    ----------
    edges : ndarray of shape (m,)
        The grid of the release.
    noisy : ndarray of shape (m + 2,)
        Its noisy counts (:func:`~skdpgd.preprocessing._private_range.cell_counts`'
        cells; the last one, the missing values, is not read).
    low, high : float
        The released range, ``low < high``.

    Returns
    -------
    float or None
        :math:`\hat s \in [0, 1]`; None where no cell inside the range has a positive
        count.
    """
    edges = np.asarray(edges, dtype=np.float64)
    lower, upper = cell_edges(edges)
    weights = np.maximum(np.asarray(noisy, dtype=np.float64)[:lower.size], 0.0)
    inside = (upper > low) & (lower < high) & np.isfinite(weights)
    if not inside.any() or not weights[inside].sum() > 0.0:
        return None
    centre, half = (high + low) / 2.0, (high - low) / 2.0
    cell_low = (np.maximum(lower[inside], low) - centre) / half
    cell_high = (np.minimum(upper[inside], high) - centre) / half
    w = weights[inside] / weights[inside].sum()
    mid, width = (cell_low + cell_high) / 2.0, cell_high - cell_low
    mean = float(w @ mid)
    variance = float(w @ ((mid - mean) ** 2 + width**2 / 12.0))
    return float(np.sqrt(min(max(variance, 0.0), 1.0)))


def target_values(y):
    """y as finite float64 (refused without quoting a value: this runs after the charge)."""
    if getattr(getattr(y, "dtype", None), "kind", None) == "c":
        raise ValueError("Complex data not supported: y must hold real numbers.")
    values = None
    try:
        with warnings.catch_warnings():  # no warning whose text may depend on a value
            warnings.simplefilter("ignore")
            values = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        pass  # its text may quote a cell: refused below, outside the handler
    if values is None:  # raised here, so that neither __cause__ nor __context__ is set
        raise ValueError("y could not be read as numbers: every target must be a real "
                         "number. The original message is withheld because it may quote "
                         "a value of the private data.")
    if not np.all(np.isfinite(values)):
        raise ValueError("y contains NaN or infinity: remove those rows or impute the targets "
                         "before fitting.")
    return values


def scale_target(y, low, high):
    """The targets mapped to [-1, 1] by the released range (clipped: a per-record map).

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets.
    low, high : float
        The released range.

    Returns
    -------
    ndarray of shape (n,)
    """
    y = target_values(y)
    centre, half = (high + low) / 2.0, (high - low) / 2.0
    with np.errstate(all="ignore"):  # a huge finite y overflows to inf, then clips to 1
        return np.clip((y - centre) / half, -1.0, 1.0)


class PrivateTargetRange(PrivateStepMixin, BaseEstimator):
    """The private range of y as a private step (one mu-GDP release of y; X is ignored).

    Parameters
    ----------
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
    range_ : tuple of float
        ``(low, high)``, low < high (the public default when no cell passed).
    spread_ : float or None
        The standard deviation of y mapped to [-1, 1] by ``range_``, read from the same
        release (:func:`histogram_spread`; None with the public default range).
    privacy_ : ReleasePrivacyReport
        mu-GDP, no additive delta.
    """

    _standalone_mechanism = TARGET_RANGE_MECHANISM

    def __init__(self, *, epsilon=1.0, delta="auto", ledger=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.ledger = ledger
        self.random_state = random_state

    def _n_samples(self, X, y):
        return int(np.shape(y)[0])

    def _privacy_plan(self, X):
        return 1, 0

    def _fit_private(self, X, y=None, *, mu, extra_delta=0.0, random_state=None):
        low, high, self.spread_, self.privacy_ = release_target_range(
            y, mu=mu, random_state=random_state)
        self.range_ = (low, high)
        return self
