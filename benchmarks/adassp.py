"""AdaSSP: adaptive sufficient statistics perturbation for linear regression.

Yu-Xiang Wang, "Revisiting differentially private linear regression: optimal and
adaptive prediction & estimation in unbounded domain", UAI 2018
(arXiv:1803.02596), Algorithm 2.

The budget (epsilon, delta) is split into three equal parts (epsilon/3, delta/3),
one per Gaussian release:

1. lambda_min(X^T X), privately, shifted down so that it is a lower bound
   with high probability;
2. X^T X + symmetric Gaussian noise (i.i.d. upper triangle);
3. X^T y + Gaussian noise;

and the output is the ridge solution (X^T X~ + lambda I)^{-1} X^T y~ with the
ridge lambda chosen from the private lambda_min (large when the design is badly
conditioned, zero when it is well conditioned).

Noise scale.  The paper writes every release as
``sqrt(log(6/delta)) / (epsilon/3) * sensitivity * N(0, 1)`` with sensitivities
``||X||^2`` (lambda_min and X^T X) and ``||X|| ||Y||`` (X^T y), where ``||X||`` is
the public bound on the row norm and ``||Y||`` the public bound on |y|.  These are
the sensitivities of adding / removing one record.  ``neighbouring="paper"``
(default) reproduces that.  ``neighbouring="replace"`` uses the sensitivities of
replacing one record (the relation skdpgd uses): lambda_min still moves by at
most ``||X||^2`` (Weyl), the upper triangle of X^T X by at most ``sqrt(2) ||X||^2``
in Frobenius norm, X^T y by at most ``2 ||X|| ||Y||``.  The constant
``sqrt(log(6/delta))`` is the paper's; it is kept as printed.

Rows are clipped to ``x_bound`` and labels to ``y_bound`` before anything is
computed, so the stated sensitivities hold for any input.
"""

from __future__ import annotations

import numpy as np

__all__ = ["adassp", "add_intercept_column"]


def _clip_rows(X: np.ndarray, bound: float) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1)
    scale = np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))
    return X * scale[:, None]


def adassp(X, y, epsilon, delta, *, x_bound, y_bound, rng, rho=0.05, neighbouring="paper"):
    """(epsilon, delta)-DP linear regression coefficients by AdaSSP.

    Parameters
    ----------
    X : (n, d) array.  Rows are clipped to Euclidean norm ``x_bound``.  No
        intercept is fitted: append a constant column (see
        :func:`add_intercept_column`) and count it in ``x_bound``.
    y : (n,) array, clipped to ``[-y_bound, y_bound]``.
    epsilon, delta : privacy budget of the whole fit.
    x_bound, y_bound : PUBLIC bounds (``||X||`` and ``||Y||`` in the paper).
    rng : numpy Generator (or seed) for the noise.
    rho : failure probability in the choice of lambda (paper's default 0.05).
    neighbouring : "paper" (add/remove-one sensitivities, as in the paper) or
        "replace" (replace-one sensitivities, see module docstring).

    Returns
    -------
    theta : (d,) coefficient vector.
    """
    if not (epsilon > 0 and 0 < delta < 1):
        raise ValueError("need epsilon > 0 and 0 < delta < 1")
    if neighbouring not in ("paper", "replace"):
        raise ValueError("neighbouring must be 'paper' or 'replace'")
    rng = np.random.default_rng(rng)
    X = _clip_rows(np.asarray(X, dtype=np.float64), float(x_bound))
    y = np.clip(np.asarray(y, dtype=np.float64).ravel(), -y_bound, y_bound)
    _, d = X.shape

    xx_sens = x_bound**2
    xy_sens = x_bound * y_bound
    lam_sens = x_bound**2
    if neighbouring == "replace":
        xx_sens *= np.sqrt(2.0)
        xy_sens *= 2.0

    eps3 = epsilon / 3.0
    log_term = np.log(6.0 / delta)
    noise_mult = np.sqrt(log_term) / eps3  # per unit of sensitivity, each of the three parts

    XtX = X.T @ X
    Xty = X.T @ y

    # 1. private lower bound on the smallest eigenvalue of X^T X
    lam_min = max(float(np.linalg.eigvalsh(XtX)[0]), 0.0)
    lam_min_priv = max(
        lam_min + noise_mult * lam_sens * rng.standard_normal() - lam_sens * log_term / eps3,
        0.0,
    )
    # ridge parameter: large enough to dominate the noise's smallest eigenvalue
    lam = max(
        0.0,
        np.sqrt(d * log_term * np.log(2.0 * d**2 / rho)) * lam_sens / eps3 - lam_min_priv,
    )

    # 2. symmetric Gaussian noise on X^T X (i.i.d. upper triangle incl. diagonal)
    Z = rng.standard_normal((d, d))
    Z = np.triu(Z)
    Z = Z + np.triu(Z, 1).T
    XtX_priv = XtX + noise_mult * xx_sens * Z

    # 3. Gaussian noise on X^T y
    Xty_priv = Xty + noise_mult * xy_sens * rng.standard_normal(d)

    A = XtX_priv + lam * np.eye(d)
    try:
        return np.linalg.solve(A, Xty_priv)
    except np.linalg.LinAlgError:  # singular noisy system: least-norm solution
        return np.linalg.lstsq(A, Xty_priv, rcond=None)[0]


def add_intercept_column(X, value=1.0):
    """Append a constant public column; returns (X1, extra squared norm value**2)."""
    X = np.asarray(X, dtype=np.float64)
    return np.hstack([X, np.full((X.shape[0], 1), value)]), value**2


if __name__ == "__main__":  # sanity check: huge epsilon -> OLS / ridge
    rng = np.random.default_rng(0)
    n, d = 20_000, 8
    X = rng.normal(size=(n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0) * 2
    theta_true = rng.normal(size=d)
    y = np.clip(X @ theta_true + 0.05 * rng.normal(size=n), -1, 1)
    ols = np.linalg.lstsq(X, y, rcond=None)[0]
    for eps in (0.1, 1.0, 10.0, 1e3, 1e6):
        theta = adassp(X, y, eps, 1e-5, x_bound=1.0, y_bound=1.0, rng=1)
        print(f"eps={eps:g}: |theta - ols| / |ols| = "
              f"{np.linalg.norm(theta - ols) / np.linalg.norm(ols):.2e}")
