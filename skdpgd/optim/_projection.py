r"""The projection of the loops: onto a public Euclidean ball :math:`\{\|\theta\| \le r\}`.

.. math::

    \Pi_r(\theta) = \theta\,\min\Big(1, \frac{r}{\|\theta\|}\Big)

(the Frobenius norm for a matrix theta: softmax coefficients). Projection onto a closed convex
set is 1-Lipschitz (firmly non-expansive; Bauschke and Combettes 2017, Proposition 4.16), so
a projected gradient step keeps the contraction factor of the step before it
(docs/theory.md#projection). The radius is a public number: the loops take it as they take
the step size, and know nothing of where it comes from. ``r = inf`` is no projection;
``theta`` is returned as it is (the same object) whenever it lies in the ball, so a ball that
never binds leaves every iterate bit for bit unchanged.
"""

import math

import numpy as np

__all__ = ["check_max_norm", "project_onto_ball"]


def check_max_norm(max_norm):
    """The radius as a float: None or ``inf`` (no projection) or a finite number > 0.

    Parameters
    ----------
    max_norm : float or None
        The radius r of the ball.

    Returns
    -------
    float
        r, ``inf`` for None.
    """
    if max_norm is None:
        return math.inf
    radius = float(max_norm)
    if not radius > 0.0:  # NaN too
        raise ValueError(f"max_norm must be > 0 (or None: no projection), got {max_norm!r}.")
    return radius


def project_onto_ball(coef, max_norm):
    r""":math:`\Pi_r(\theta)`: ``coef`` scaled onto the sphere of radius r when outside it.

    Parameters
    ----------
    coef : ndarray
        theta (any shape; its Euclidean / Frobenius norm is used).
    max_norm : float
        r > 0, ``inf`` for no projection (already checked by :func:`check_max_norm`).

    Returns
    -------
    ndarray
        ``coef`` itself when :math:`\|\theta\| \le r`, else
        :math:`r\,\theta/\|\theta\|`, a new array.
    """
    if max_norm == math.inf:
        return coef
    norm = float(np.linalg.norm(coef))
    if norm <= max_norm:
        return coef
    return coef * (max_norm / norm)
