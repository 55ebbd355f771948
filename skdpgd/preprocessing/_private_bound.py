r"""A private bound on the absolute values of one column (a regression target's range).

The mechanism of :mod:`._private_range` on the non-negative half of its public grid: the
Gaussian histogram of :math:`|y|` (sensitivity :math:`\sqrt 2`, so :math:`\mu`-GDP with
:math:`\sigma = \sqrt 2/\mu`; Dong, Roth and Su 2022, Theorem 2.7), thresholded as
there, read as the high edge of the highest surviving cell or group
(docs/theory.md#private-range). A release of its own: a user who sets ``DPRidge``'s public
``y_bound`` from it composes its mu with the fit's (inside ``make_dp_pipeline``,
``DPRidge(y_bound="auto")`` releases a private range of y in the pipeline's budget
instead).
"""

from dataclasses import dataclass

import numpy as np

from ..utils import make_generator
from ._private_range import (
    FALSE_CELL_RATE,
    group_ends,
    majority_of_present,
    noisy_histogram,
    public_grid,
    read_scales,
    sigma_for_mu,
    threshold_z,
)

__all__ = ["PrivateBound", "private_abs_bound"]


@dataclass(frozen=True)
class PrivateBound:
    """A private bound on :math:`|y|` (see :func:`private_abs_bound`).

    Attributes
    ----------
    bound : float
        The bound B > 0 (the public ``default`` when ``found`` is False).
    found : bool
        Whether some cell passed the threshold.
    """

    bound: float
    found: bool


def private_abs_bound(y, mu, random_state=None, *, default=1.0,
                      false_cell_rate=FALSE_CELL_RATE):
    r"""A :math:`\mu`-GDP bound B on :math:`|y|`, for a public ``y_bound`` of ``DPRidge``.

    A release of its own: the caller composes its mu with the fit's.

    The histogram of :math:`|y|` over the non-negative half of the public grid (cells
    :math:`[0, e_1), [e_1, e_2), \dots, [e_m, \infty]` and a missing cell), noised and
    thresholded and read at coarser scales as in :func:`private_range` (until the
    survivors hold half of the records present); B is the high edge of the highest
    surviving cell or group. Same sensitivity :math:`\sqrt 2`, so
    :math:`\sigma = \sqrt2/\mu`. ``DPRidge(y_bound=B)`` then clips the targets beyond B
    (a per-record map).

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets (NaN is missing and counted in the missing cell).
    mu : float
        GDP budget of the release.
    random_state : None, int or numpy.random.Generator, default=None
        The noise source.
    default : float, default=1.0
        Public bound returned when no cell survives (never an error).
    false_cell_rate : float, default=1e-3
        Family-wise chance that an empty cell passes.

    Returns
    -------
    result : PrivateBound
        The bound and whether it came from the release (``found``) or is ``default``.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.random.default_rng(0).normal(0, 3, 5_000)
    >>> b = private_abs_bound(y, mu=0.5, random_state=0)
    >>> b.found, 5 < b.bound < 20
    (True, True)
    """
    grid = public_grid()
    edges = grid[grid > 0]
    y = np.abs(np.asarray(y, dtype=np.float64).ravel())
    sigma = sigma_for_mu(mu)
    if not np.isfinite(sigma):
        return PrivateBound(float(default), False)
    noisy = noisy_histogram(y, sigma, make_generator(random_state), edges)
    threshold = threshold_z(edges.size + 1, false_cell_rate) * sigma
    values = noisy[: edges.size + 1]
    tops = []  # the last cell of the highest survivor of every scale read
    for kept, starts in read_scales(values, sigma, threshold,
                                    majority=majority_of_present(noisy[-1], y.size),
                                    false_cell_rate=false_cell_rate):
        alive = np.flatnonzero(kept > 0)
        if alive.size:  # cell k = [e_k, e_{k+1}), cell 0 = [0, e_1): its high edge
            tops.append(int(group_ends(starts, values.size)[alive[-1]]))
    if not tops:
        return PrivateBound(float(default), False)
    top = max(tops)
    return PrivateBound(float(edges[min(top, edges.size - 1)]), True)
