r"""The utility proxy's scores at every level of its worst case, and the worst case.

:mod:`skdpgd.solvers._utility` propagates a run's error in every direction of its public
spectral model; this module turns those moments into the two scores of
docs/theory.md#predicted-utility at every level (:class:`LevelTerms`) and takes the worst
level (:func:`worst_level_value`): a regressor's excess loss (the optimum's worst level and
the noise's, summed) and a classifier's excess loss of the best rescaling of theta (the
worst pair of levels, :func:`scale_free_excess`). ``solver="auto"``'s Gram route takes the
worst level of the best of several runs instead (:mod:`skdpgd.solvers._gram_route`). A
planning heuristic from public numbers only: it plays no part in any privacy claim.
"""

from dataclasses import dataclass

import numpy as np

from ._proxy_kernels import worst_pair

__all__ = ["LevelTerms", "scale_free_excess", "scale_free_terms", "worst_level_value"]


def scale_free_excess(data_curvature, curvature, mean, variance, share, count, weights=None):
    r"""Excess loss of the best rescaling :math:`\alpha\theta_K`, worst case over two levels.

    In a block of t directions with data curvature :math:`h_d = cg`, optimum components
    of square a (``share``) and run errors of mean :math:`\bar e` and variance v to the
    regularised optimum :math:`\frac{h_d}{h}\theta_*`, the iterate's component is
    :math:`s\,\theta_* + \xi` with :math:`s = (1 - \bar e)h_d/h` and :math:`E\xi^2 = v`.
    Over a spectrum of two such blocks (1 and 2), the expected data loss of
    :math:`\alpha\theta_K`, :math:`\sum_b t_b\frac{h_{d,b}}2 E(\alpha\theta_{K} - \theta_*)^2`,
    is smallest at :math:`\alpha = (A_1 + A_2)/(B_1 + B_2)`, where it is

    .. math::

        \frac12\Big(C_1 + C_2 - \frac{(A_1 + A_2)^2}{B_1 + B_2}\Big),\qquad
        C = t h_d a,\; A = t h_d a\,\bar s,\; B = t h_d\,\overline{s^2 a + v}

    (bars: averages over the Gram noise's semicircle, with ``weights``). One level can
    only shrink theta, which a rescaling undoes; two levels shrunk unequally (a
    preconditioner's or an unfinished run's distortion) cost accuracy. The worst pair of
    levels (g1, g2) of the grid is taken, each with half the trace budget,
    :math:`t_b` = ``count`` / 2 (g1 = g2 is the one-level spectrum).

    Arrays are (points, grid) with ``weights`` over axis 0, or (grid,) without; ``count``
    is (grid,).
    """
    return worst_pair(*scale_free_terms(data_curvature, curvature, mean, variance, share,
                                        count, weights))


def scale_free_terms(data_curvature, curvature, mean, variance, share, count, weights=None):
    """(C, A, B) of :func:`scale_free_excess` at every level of the grid, before the worst
    pair is taken (same arguments)."""
    s = (1.0 - mean) * data_curvature / curvature
    if weights is None:
        s_mean, second, h_d = s, s * s * share + variance, data_curvature
    else:
        s_mean, second, h_d = weights @ s, weights @ (s * s * share + variance), data_curvature[0]
    t = 0.5 * count * h_d
    return t * share, t * share * s_mean, t * second


@dataclass(frozen=True)
class LevelTerms:
    r"""A run's proxy at every level of its worst case, before the worst level is taken.

    ``scale_free``: ``levels`` is (C, A, B) of :func:`scale_free_terms`, the worst case
    the worst pair of levels (:func:`~._proxy_kernels.worst_pair`); else (optimum, noise),
    the worst case the sum of their largest terms, plus ``bias`` (the regularisation's
    :math:`\lambda r_0^2/2`). ``extra`` is added as is. :func:`worst_level_value` is the
    run's prediction; ``solver="auto"``'s Gram route takes the worst level of the best of
    several runs instead (:mod:`skdpgd.solvers._gram_route`).
    """

    scale_free: bool
    levels: tuple
    bias: float
    extra: float


def worst_level_value(terms):
    """The prediction of :func:`~._utility.predicted_excess_losses` from a run's
    :class:`LevelTerms`."""
    if terms.scale_free:
        return worst_pair(*terms.levels) + terms.extra
    opt, noise = terms.levels
    return terms.bias + float(np.max(opt) + np.max(noise)) + terms.extra
