"""A numpy port of Avella-Medina, Bradshaw and Loh's noisy Newton with its private sandwich.

Benchmark-side reference, not part of the package. Ported from the authors' R code
(github.com/cbr92/PrivateOptimization, ``src/extra/Newton_linear_regression_extra.R``,
function ``NoisyNewton``, branch ``scale=F``: known scale s0), the code their
``figs/Figure6.R`` runs for Figure 6 of "Differentially private inference via noisy
optimization" (Annals of Statistics 2023). The paper's text was not available here; the
algorithm below is the code's.

Huber-Mallows regression: Mallows weights w_i = min(1, m^2 / ||x_i||^2) (m = ``mnorm``,
sqrt 2), residuals r_i = (y_i - x_i.b) / s0, psi = Huber's psi at k = 1.345. With T =
``maxiter`` and mu_i = mu / sqrt(2T + 2) per release, each Newton step releases

    g = mean(psi_i w_i x_i) + N(0, sg^2 I),        sg = 2 m k / (n mu_i),
    H = mean(1{|r_i| < k} w_i x_i x_i^T) + E,      E symmetric, N(0, (m^2 / (n mu_i))^2),

and moves b <- b + step * (H / s0)^{-1} g, stopping when ||g|| <= sg / 2 ("private
stopping"). At the last iterate the outer matrix M (as H, then / s0) and the middle
matrix Q = mean(psi_i^2 w_i^2 x_i x_i^T) + E' (sd m^2 k^2 / (n mu_i); negative eigenvalues
set to min(1/n, 1e-4)) are released, and

    Var(b) = M^{-1} Q M^{-1} / n + step^2 M^{-1} sg^2 M^{-1}     (their "corrected" variance).

``matrix_sensitivity_factor`` multiplies the matrices' noise: 1 reproduces the authors'
code; their matrix noise is calibrated to ||w x x^T||_F <= m^2, an add/remove-one
sensitivity, while the gradient's 2 m k is replace-one. Under replace-one the upper
triangle of w x x^T - w' x' x'^T reaches 2 sqrt 2 = sqrt 2 m^2 on rows (1, z) (numerical
maximisation in ``inference_anchor.py --sensitivity``), so factor sqrt 2 gives mu = 1 in
the replace-one convention skdpgd uses.
"""

import numpy as np

HUBER_K = 1.345
_SQRT2 = np.sqrt(2.0)


def _symmetric_noise(p, sd, rng):
    """Symmetric matrix with N(0, sd^2) entries on and above the diagonal (their mechanism)."""
    upper = np.triu(rng.standard_normal((p, p)), 1) * sd
    return upper + upper.T + np.diag(sd * rng.standard_normal(p))


def noisy_newton(x, y, rng, *, mu=1.0, s0=2.0, k=HUBER_K, stepsize=0.5, maxiter=17,
                 mnorm=_SQRT2, matrix_sensitivity_factor=1.0):
    """Noisy Newton with known scale and the private sandwich variance (port of ``NoisyNewton``).

    Parameters
    ----------
    x : ndarray of shape (n, p)
        Design with the intercept column included (their first column of ones).
    y : ndarray of shape (n,)
        Responses.
    rng : numpy.random.Generator
        Source of the privacy noise.
    mu : float, default=1.0
        Gaussian-DP budget, split evenly over 2 maxiter + 2 releases.
    s0 : float, default=2.0
        Known scale of the errors.
    k : float, default=1.345
        Huber threshold on standardised residuals.
    stepsize : float, default=0.5
        Newton step size (Figure 6 uses 0.5).
    maxiter : int, default=17
        Largest number of Newton steps T.
    mnorm : float, default=sqrt(2)
        Norm m of the Mallows weights.
    matrix_sensitivity_factor : float, default=1.0
        Multiplier of the Hessian, outer and middle noise (1: the authors' code).

    Returns
    -------
    beta : ndarray of shape (p,)
        The private estimate.
    variances : ndarray of shape (p, p)
        Their corrected covariance of ``beta``.
    iterations : int
        Newton steps taken.
    """
    n, p = x.shape
    mu_i = mu / np.sqrt(2 * maxiter + 2)
    grad_sd = 2 * mnorm * k / (n * mu_i)
    hess_sd = matrix_sensitivity_factor * mnorm**2 / (n * mu_i)
    middle_sd = matrix_sensitivity_factor * mnorm**2 * k**2 / (n * mu_i)
    tol = max(1e-10, grad_sd / 2)
    weight = np.minimum(1.0, mnorm**2 / np.einsum("ij,ij->i", x, x))
    beta = np.zeros(p)

    def releases(beta):
        r = (y - x @ beta) / s0
        psi = np.clip(r, -k, k)
        grad = (psi * weight) @ x / n + grad_sd * rng.standard_normal(p)
        inside = (np.abs(r) < k) * weight
        hess = (x * inside[:, None]).T @ x / n + _symmetric_noise(p, hess_sd, rng)
        return r, grad, hess

    r, grad, hess = releases(beta)
    iterations = 0
    stop = np.linalg.norm(grad) <= tol
    while iterations < maxiter and not stop and np.min(np.abs(np.linalg.eigvalsh(hess))) > 1e-15:
        iterations += 1
        beta = beta + stepsize * np.linalg.solve(hess / s0, grad)
        r, grad, hess = releases(beta)
        stop = np.linalg.norm(grad) <= tol
    inside = (np.abs(r) < k) * weight
    outer = ((x * inside[:, None]).T @ x / n + _symmetric_noise(p, hess_sd, rng)) / s0
    psi = np.clip(r, -k, k)
    middle = (x * (psi**2 * weight**2)[:, None]).T @ x / n + _symmetric_noise(p, middle_sd, rng)
    lam, vec = np.linalg.eigh(middle)
    if lam.min() < 0:
        lam = np.where(lam < 0, min(1 / n, 1e-4), lam)
        middle = (vec * lam) @ vec.T
    outer_inv = np.linalg.inv(outer)
    sandwich = outer_inv @ middle @ outer_inv.T
    correction = outer_inv @ (grad_sd**2 * np.eye(p)) @ outer_inv
    return beta, sandwich / n + correction * stepsize**2, iterations
