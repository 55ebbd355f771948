r"""The releases of private inference at the estimate: gradient, Hessian, score covariance.

At the released estimate :math:`\hat\theta` (docs/theory.md, "Private inference for the
coefficients"), with :math:`\tilde x_i` the clipped, intercept-augmented rows
(:math:`\|\tilde x_i\| \le \tilde R`) and :math:`t_i = \hat\theta\cdot\tilde x_i`:

.. math::

    M = \frac1n\sum_i w_i\,\tilde x_i\tilde x_i^\top + E_M, \qquad
    Q = \frac1n\sum_i \psi_i^2\,\tilde x_i\tilde x_i^\top + E_Q,

where :math:`w_i = l''(t_i; y_i) \in [0, c_H]` is the loss's curvature and
:math:`\psi_i = l'(t_i; y_i)`, :math:`|\psi_i| \le \psi_{\max}`, its residual:

* binary logistic (plain loss): :math:`w = \sigma(t)(1-\sigma(t)) \le 1/4`,
  :math:`\psi = \sigma(t) - y`, :math:`|\psi| < 1`;
* Huber with threshold c: :math:`w = 1\{|t - y| \le c\} \le 1`,
  :math:`\psi = \mathrm{clip}(t - y, -c, c)`, :math:`|\psi| \le c`.

E is symmetric with i.i.d. :math:`\mathcal N(0, \tau^2)` entries on and above the
diagonal (:func:`skdpgd.optim._gram_release.symmetric_gaussian`).

**Sensitivity.** For a fixed point theta, replacing the row (x, y) by (x', y') changes
the sum by :math:`D = a\,xx^\top - a'\,x'x'^\top` with a, a' in :math:`[0, A]`
(:math:`A = c_H` or :math:`\psi_{\max}^2`), and

.. math::

    \|D\|_F^2 = a^2\|x\|^4 + a'^2\|x'\|^4 - 2aa'(x\cdot x')^2 \le 2A^2\tilde R^4,

so the upper triangle of the sum has replace-one sensitivity :math:`\sqrt2\,A\tilde R^2`
(attained: orthogonal rows on coordinate axes, a = a' = A), and the averaged release is
:math:`\mu = \sqrt2 A\tilde R^2/(n\tau)`-GDP (Dong, Roth and Su 2022, Theorem 2.7). The
point :math:`\hat\theta` is itself a release, so the two matrices are adaptively
composed with the fit (their Corollary 3.3). ``tests/inference/test_releases_and_covariance.py``
checks the bound against brute force on neighbouring data sets.

References
----------
.. [1] J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 84 (2022),
   Theorem 2.7 and Corollary 3.3.
.. [2] M. Avella-Medina, C. Bradshaw, P.-L. Loh. Differentially private inference via
   noisy optimization. Annals of Statistics 51 (2023).
"""

import math

import numpy as np

from .._data import gram_chunk_rows
from ..losses import BinaryLogisticLoss
from ..optim import symmetric_gaussian

__all__ = [
    "LOGISTIC_THIRD_BOUND",
    "curvature_and_residual_bounds",
    "curvature_drift_at",
    "exact_at",
    "matrix_sensitivity",
    "release_at",
    "row_weights_and_residuals",
    "third_derivative_bound",
]


def curvature_and_residual_bounds(loss):
    r"""(:math:`c_H`, :math:`\psi_{\max}`) of a loss inference supports (module docstring).

    Parameters
    ----------
    loss : object
        The fit's loss.

    Returns
    -------
    curvature_bound, residual_bound : float
        :math:`c_H` and :math:`\psi_{\max}`.

    Raises
    ------
    ValueError
        For a loss that declares no bounds (softmax, weighted;
        :meth:`~skdpgd.losses.BaseLoss.inference_bounds` is None), or whose declaration
        refuses its setting (a clipped logistic residual).
    """
    bounds = loss.inference_bounds()  # the loss's declaration (BaseLoss.inference_bounds)
    if bounds is None:
        raise ValueError(
            f"inference supports the losses that declare their inference bounds (the binary "
            f"logistic and the Huber loss), not {type(loss).__name__}."
        )
    curvature_bound, residual_bound = bounds
    return float(curvature_bound), float(residual_bound)


def matrix_sensitivity(bound, row_norm):
    r"""Replace-one sensitivity :math:`\sqrt2\,A\tilde R^2` of the upper triangle of
    :math:`\sum_i a_i\tilde x_i\tilde x_i^\top` with :math:`a_i \in [0, A]`.

    Parameters
    ----------
    bound : float
        A.
    row_norm : float
        Rt.

    Returns
    -------
    float
        The sensitivity.
    """
    bound, row_norm = float(bound), float(row_norm)
    if not (math.isfinite(bound) and bound > 0 and math.isfinite(row_norm) and row_norm > 0):
        raise ValueError("the weight bound and the row norm must be positive and finite.")
    return math.sqrt(2.0) * bound * row_norm * row_norm


def row_weights_and_residuals(loss, t, y):
    """(w, psi) per row at linear predictions ``t`` (module docstring).

    Parameters
    ----------
    loss : BaseLoss
        The fit's loss, one that declares its inference rows
        (:meth:`~skdpgd.losses.BaseLoss.inference_rows`).
    t, y : ndarray of shape (n,)
        Linear predictions and targets.

    Returns
    -------
    w, psi : ndarray of shape (n,)
        Curvature and residual of each row.
    """
    return loss.inference_rows(t, y)


#: The bound on the binary logistic loss's third derivative: :math:`|\sigma(1-\sigma)(1-2\sigma)|`
#: peaks at :math:`1/(6\sqrt3)` (where :math:`\sigma = 1/2 \pm 1/(2\sqrt3)`).
LOGISTIC_THIRD_BOUND = BinaryLogisticLoss(1.0).inference_third_bound()


def third_derivative_bound(loss):
    r"""The bound :math:`c_3` on the loss's third derivative the step's correction needs.

    Public: the loss's declaration (``inference_third_bound``), :data:`LOGISTIC_THIRD_BOUND`
    for the binary logistic loss; 0 (no correction) for every other loss (Huber's second
    derivative is a step function: its remainder is not quadratic in the run's error).
    """
    return float(loss.inference_third_bound())


def curvature_drift_at(row_sums, loss, coef, moment, n_samples):
    r""":math:`\frac1n\sum_i l^{(3)}(t_i)\,(\tilde x_i^\top W\tilde x_i)\,\tilde x_i` at
    ``coef``, before noise: the mean of the Newton step's quadratic remainder
    (docs/theory.md, "The Newton step's second-order term").

    Replacing one row moves the sum by at most :math:`2c_3\lambda_{\max}(W)\tilde R^3`
    in norm (:math:`0 \le x^\top Wx \le \lambda_{\max}(W)\tilde R^2` for W positive
    semi-definite, :math:`|l^{(3)}| \le c_3`), so the Gaussian release of the average
    with std :math:`2c_3\lambda_{\max}(W)\tilde R^3/(n\mu_c)` per coordinate is
    :math:`\mu_c`-GDP; W is a post-processing of the released Hessian and of public plan
    numbers (adaptive composition).

    Parameters
    ----------
    row_sums : ChunkedRowSums or DaskRowSums
        The fit's row sums, entered.
    loss : BinaryLogisticLoss
        The fit's loss (plain binary logistic: ``third_derivative_bound(loss) > 0``).
    coef : ndarray of shape (p,)
        The released last iterate (augmented).
    moment : ndarray of shape (p, p)
        W, positive semi-definite (the run's error moment).
    n_samples : int
        n (public).

    Returns
    -------
    ndarray of shape (p,)
    """
    moment = np.asarray(moment, dtype=np.float64)
    coef = np.asarray(coef, dtype=np.float64)

    def method(point, design, y):
        rows = design.toarray()
        prob = 1.0 / (1.0 + np.exp(-(rows @ np.asarray(point, dtype=np.float64))))
        third = prob * (1.0 - prob) * (1.0 - 2.0 * prob)
        return rows.T @ (third * np.einsum("ij,jk,ik->i", rows, moment, rows))

    total = row_sums.sum(coef, method=method, chunk_size=gram_chunk_rows(n_samples, coef.shape[0]))
    return np.asarray(total, dtype=np.float64) / n_samples


def _chunk_matrices(loss):
    r"""The worker-side method: one chunk's two weighted Gram sums, stacked (2, p, p).

    With row weights :math:`v_i \in [0, 1]` (a :class:`~skdpgd.losses.WeightedLoss`,
    targets packed with the weights) the rows enter as :math:`v_i w_i` and
    :math:`v_i^2\psi_i^2`, the Hessian and score covariance of the weighted estimating
    equation; both stay in :math:`[0, c_H]` and :math:`[0, \psi_{\max}^2]`, so the
    sensitivity above holds unchanged.
    """

    def method(coef, design, y):
        rows = design.toarray()
        t = rows @ np.asarray(coef, dtype=np.float64)
        base, y, weight = loss.inference_targets(np.asarray(y, dtype=np.float64))
        weight = (np.ones(rows.shape[0]) if weight is None
                  else np.clip(weight, 0.0, 1.0))
        w, psi = row_weights_and_residuals(base, t, y)
        return np.stack([rows.T @ (rows * (weight * w)[:, None]),
                         rows.T @ (rows * (weight * weight * psi * psi)[:, None])])

    return method


def release_at(row_sums, loss, coef, n_samples, noise_stds, rng):
    r"""The released gradient :math:`\tilde g`, M and Q at ``coef`` (module docstring).

    :math:`\tilde g = \frac1n\sum_i \psi_i\tilde x_i + \sigma_g Z` (the loss's own
    ``gradient_sum``, of replace-one sensitivity S/n, its per-example sensitivity over n).

    Parameters
    ----------
    row_sums : ChunkedRowSums or DaskRowSums
        The fit's row sums of ``loss.gradient_sum``, entered (``with``).
    loss : BinaryLogisticLoss or HuberLoss
        The fit's loss.
    coef : ndarray of shape (p,)
        The released estimate (augmented: intercept column last).
    n_samples : int
        n (public).
    noise_stds : (float, float, float)
        :math:`(\sigma_g, \tau_M, \tau_Q)`: the noise std of each coordinate of the
        averaged gradient and of each upper-triangle entry of the averaged matrices (0:
        exact, for epsilon = inf).
    rng : numpy.random.Generator
        Draws p normals for the gradient, then p(p+1)/2 for M, then as many for Q (those
        whose std is > 0).

    Returns
    -------
    gradient : ndarray of shape (p,)
        The released averaged gradient.
    hessian, score_cov : ndarray of shape (p, p), symmetric
        The released M and Q.
    """
    gradient, *matrices = exact_at(row_sums, loss, coef, n_samples)
    dim = gradient.shape[0]
    if noise_stds[0] > 0.0:
        gradient = gradient + noise_stds[0] * rng.standard_normal(dim)
    return (gradient, *(matrix + symmetric_gaussian(dim, tau, rng)
                        for matrix, tau in zip(matrices, noise_stds[1:], strict=True)))


def exact_at(row_sums, loss, coef, n_samples):
    """The averaged gradient, Hessian and score covariance at ``coef``, before any noise.

    What the Gaussian mechanisms of :func:`release_at` (and the adaptive order of
    :func:`skdpgd.inference.infer`) add their noise to; never returned to a caller
    without it.

    Parameters
    ----------
    row_sums : ChunkedRowSums or DaskRowSums
        The fit's row sums, entered.
    loss : BinaryLogisticLoss or HuberLoss
        The fit's loss.
    coef : ndarray of shape (p,)
        The released estimate (augmented).
    n_samples : int
        n (public).

    Returns
    -------
    gradient : ndarray of shape (p,)
    hessian, score_cov : ndarray of shape (p, p), symmetric
    """
    coef = np.asarray(coef, dtype=np.float64)
    dim = coef.shape[0]
    gradient = np.asarray(row_sums.sum(coef), dtype=np.float64) / n_samples
    sums = np.asarray(row_sums.sum(coef, method=_chunk_matrices(loss),
                                   chunk_size=gram_chunk_rows(n_samples, dim)), dtype=np.float64)
    return (gradient, *(0.5 * (matrix + matrix.T) / n_samples for matrix in sums))

