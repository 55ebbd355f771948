r"""Preconditioned noisy gradient descent: a private fixed-Hessian (Böhning-Lindsay) method.

.. math::

    \theta_{k+1} = \theta_k - \eta\,P^{-1}\big(\nabla F(\theta_k) + \sigma Z_k\big),
    \qquad Z_k \sim \mathcal N(0, I), \qquad \text{output } \theta_K,

with a fixed symmetric positive definite P. Böhning and Lindsay (1988) show that when
:math:`P \succeq \nabla^2 F(\theta)` for every theta (a *majoriser* of the Hessian), the
step :math:`\eta = 1` decreases F monotonically: it minimises the quadratic upper bound
:math:`F(\theta_k) + g^\top(\theta - \theta_k) + \frac12 (\theta - \theta_k)^\top P (\theta -
\theta_k)`. For a linear model :math:`F(\theta) = \frac1n\sum_i l(\theta\cdot\tilde x_i) +
\frac\lambda2\|\theta\|^2` with :math:`l'' \le c`, the matrix :math:`c\,G + \lambda I`, :math:`G =
\frac1n\sum_i\tilde x_i\tilde x_i^\top`, is such a majoriser: c = 1/4 for the binary logistic loss
(also with a residual clip), c = 1 for the squared and Huber losses, and for the softmax loss over k
classes
:math:`\nabla^2 \preceq \frac12 (I_k - \frac1k 11^\top)\otimes G \preceq \frac12 I_k \otimes G`
(Böhning 1992), so c = 1/2 with the same d x d matrix for every class.

Only a noisy Gram :math:`\tilde G = G + E` can be used privately
(:mod:`skdpgd.optim._gram_release`).
:class:`GramPreconditioner` builds

.. math::

    P = V\,\mathrm{diag}\big(c\,\max(w_j + m,\ m) + \lambda\big)\,V^\top,
    \qquad \tilde G = V\,\mathrm{diag}(w)\,V^\top,

where m is a public margin with :math:`\|E\|_{op} \le m` with high probability
(:func:`skdpgd.accounting.gram_noise_margin`). On that event
:math:`\tilde G + mI \succeq G`, so P majorises the Hessian; taking the maximum with m
keeps every eigenvalue at least :math:`c\,m + \lambda > 0` in every event (P is always
positive definite; only the majorisation, i.e. convergence, depends on the event).

The loop knows nothing of epsilon: P is built from a released matrix and public numbers,
the noise std and K come from :mod:`skdpgd.accounting` (composition,
:func:`skdpgd.accounting.preconditioned_gd_gdp`). It releases only the last iterate.

References
----------
.. [1] D. Böhning, B. Lindsay. Monotonicity of quadratic-approximation algorithms.
   Ann. Inst. Statist. Math. 40 (1988), 641-663.
.. [2] D. Böhning. Multinomial logistic regression algorithm. Ann. Inst. Statist. Math.
   44 (1992), 197-200.
"""

import math

import numpy as np

from ._gd import _check_nonneg_int, _start
from ._projection import check_max_norm, project_onto_ball

__all__ = ["GramPreconditioner", "preconditioned_noisy_gradient_descent"]

#: Above this many Gram columns the dense eigendecomposition (d^3) and Gram (n d^2) are not
#: worth it: callers should refuse the preconditioned solver and use plain noisy GD.
MAX_DENSE_DIM = 2000


class GramPreconditioner:
    r"""The fixed preconditioner :math:`P = V\mathrm{diag}(c\max(w + m, m) + \lambda)V^\top`.

    Parameters
    ----------
    gram : ndarray of shape (p, p)
        The released (noisy) averaged Gram :math:`\tilde G`, exactly symmetric (the Gram
        pass symmetrises the sum once, :func:`skdpgd._data._gram.gram_sum`, and the release
        adds a mirrored noise, :func:`skdpgd.optim._gram_release.release_gram`).
    curvature : float
        c > 0, the loss's bound on :math:`l''` (module docstring).
    margin : float
        m >= 0, a public bound on the Gram noise's operator norm (0 without noise).
    strong_convexity : float
        lam >= 0. ``c m + lam`` must be > 0, so that P is positive definite.

    Attributes
    ----------
    eigenvalues : ndarray of shape (p,)
        The eigenvalues of P (all >= c m + lam).
    eigenvectors : ndarray of shape (p, p)
    """

    def __init__(self, gram, *, curvature, margin, strong_convexity):
        gram = np.asarray(gram, dtype=np.float64)
        if gram.ndim != 2 or gram.shape[0] != gram.shape[1]:
            raise ValueError(f"gram must be a square matrix, got shape {gram.shape}.")
        if not np.all(np.isfinite(gram)):
            raise ValueError("gram has non-finite entries; it must be a released finite matrix.")
        if not np.array_equal(gram, gram.T):
            raise ValueError("gram must be exactly symmetric (a released Gram matrix is).")
        if gram.shape[0] > MAX_DENSE_DIM:
            raise ValueError(
                f"the Gram matrix has {gram.shape[0]} columns, more than {MAX_DENSE_DIM}: its "
                "eigendecomposition and the Gram pass cost more than they save. Use the plain "
                "noisy gradient-descent solver for such wide data."
            )
        c, m, lam = float(curvature), float(margin), float(strong_convexity)
        for name, value, positive in (("curvature", c, True), ("margin", m, False),
                                      ("strong_convexity", lam, False)):
            if not (math.isfinite(value) and (value > 0.0 if positive else value >= 0.0)):
                bound = "> 0" if positive else ">= 0"
                raise ValueError(f"{name} must be finite and {bound}, got {value!r}.")
        if not c * m + lam > 0.0:
            raise ValueError(
                "the preconditioner needs a positive floor c * margin + strong_convexity; got "
                f"curvature={c!r}, margin={m!r}, strong_convexity={lam!r}. Pass lam > 0."
            )
        w, vectors = np.linalg.eigh(gram)
        self.eigenvalues = c * np.maximum(w + m, m) + lam
        self.eigenvectors = vectors
        self.curvature, self.margin, self.strong_convexity = c, m, lam

    @property
    def shape(self):
        return self.eigenvectors.shape

    def solve(self, direction):
        r""":math:`P^{-1} v` for v of shape (p,), or row-wise for v of shape (k, p)
        (the softmax coefficients: the same d x d block for every class)."""
        v = np.asarray(direction, dtype=np.float64)
        V, lam = self.eigenvectors, self.eigenvalues
        if v.ndim == 1:
            return V @ ((V.T @ v) / lam)
        return ((v @ V) / lam) @ V.T

    def matrix(self):
        """P as a dense matrix (for tests)."""
        V = self.eigenvectors
        return (V * self.eigenvalues) @ V.T


def preconditioned_noisy_gradient_descent(
    gradient, coef0, *, preconditioner, learning_rate, noise_std, n_steps, rng, momentum=0.0,
    tolerance=None, max_norm=None, callback=None,
):
    r"""K preconditioned noisy gradient steps (optionally with Nesterov momentum); returns
    the last iterate only.

    .. math::

        y_k = \theta_k + \beta(\theta_k - \theta_{k-1}), \qquad
        \theta_{k+1} = \Pi_r\Big(y_k - \eta\,P^{-1}\big(\nabla F(y_k) + \sigma Z_k\big)\Big),
        \quad k = 0, \dots, K-1,

    with :math:`\Pi_r` the Euclidean projection onto the public ball of radius r = ``max_norm``
    (:mod:`skdpgd.optim._projection`; post-processing of the noisy gradients, so the
    composition that accounts the run is unchanged), :math:`\theta_{-1} = \theta_0`
    (:math:`\beta = 0` is the plain preconditioned step; Nesterov 1983's scheme with a
    constant momentum, in the metric of P). Every step evaluates one gradient and adds one
    noise draw, so the privacy accounting (composition of the K noisy gradients) is the same
    for every beta.

    Parameters
    ----------
    gradient : callable
        ``gradient(theta)``: the full gradient of the objective at theta, regulariser
        included (e.g. ``data_sum / n + lam * theta``), with theta's shape.
    coef0 : array-like
        theta_0; must not depend on the private data. Not modified.
    preconditioner : object with ``solve(v)`` or callable
        Applies :math:`P^{-1}` (e.g. :class:`GramPreconditioner`); P must be public or
        released (its privacy is accounted by the caller).
    learning_rate : float
        eta > 0 (1 is the majoriser step).
    noise_std : float
        sigma >= 0, the noise std on the gradient (before preconditioning). 0 draws nothing.
    n_steps : int
        K >= 0.
    rng : numpy.random.Generator
        Exactly K draws ``rng.standard_normal(theta.shape)``, one per step, in step order
        (when ``noise_std > 0``).
    momentum : float, default=0.0
        beta in [0, 1), public.
    tolerance : float, optional
        Only without noise (``noise_std=0``; refused otherwise, since stopping on the data
        would leak): stop after the first step that moves theta by at most
        ``tolerance * max(1, ||theta||)`` (Euclidean norms). K is then a cap.
    max_norm : float, optional
        r > 0, the radius of the ball every iterate is projected onto (None or ``inf``:
        no projection).
    callback : callable, optional
        ``callback(step)`` with the 0-based step index only (never an iterate).

    Returns
    -------
    coef : ndarray of float64
        theta_K (a copy of ``coef0`` when K = 0).
    """
    eta, sigma = float(learning_rate), float(noise_std)
    if not (math.isfinite(eta) and eta > 0.0):
        raise ValueError(f"learning_rate must be a positive finite number, got {learning_rate!r}.")
    if not (math.isfinite(sigma) and sigma >= 0.0):
        raise ValueError(f"noise_std must be a non-negative finite number, got {noise_std!r}.")
    beta = float(momentum)
    if not (0.0 <= beta < 1.0):
        raise ValueError(f"momentum must be in [0, 1), got {momentum!r}.")
    if tolerance is not None:
        tolerance = float(tolerance)
        if not (math.isfinite(tolerance) and tolerance > 0.0):
            raise ValueError(f"tolerance must be a positive finite number, got {tolerance!r}.")
        if sigma > 0.0:
            raise ValueError(
                "tolerance (stopping on convergence) is only allowed without noise: with "
                f"noise_std={sigma!r} the number of steps must not depend on the data."
            )
    n_steps = _check_nonneg_int("n_steps", n_steps)
    solve = preconditioner.solve if hasattr(preconditioner, "solve") else preconditioner
    coef = _start(coef0, max_norm)
    max_norm = check_max_norm(max_norm)
    previous = coef
    for step in range(n_steps):
        point = coef + beta * (coef - previous) if beta > 0.0 else coef
        direction = np.asarray(gradient(point), dtype=np.float64)
        if direction.shape != coef.shape:
            raise ValueError(
                f"the gradient callable returned shape {direction.shape}, expected {coef.shape}."
            )
        if sigma > 0.0:
            direction = direction + sigma * rng.standard_normal(coef.shape)
        step_to = point - eta * np.asarray(solve(direction), dtype=np.float64)
        previous, coef = coef, project_onto_ball(step_to, max_norm)
        if callback is not None:
            callback(step)
        if tolerance is not None and np.linalg.norm(coef - previous) <= tolerance * max(
            1.0, float(np.linalg.norm(coef))
        ):
            break
    return coef
