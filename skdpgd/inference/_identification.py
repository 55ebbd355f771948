r"""Which coefficients the released Hessian identifies at its noise level (post-processing).

A coefficient :math:`\theta_j` is estimable only where the data have curvature along the
direction that carries it after the other coefficients are profiled out: for a
positive definite curvature A that direction is :math:`v_j = A^{-1}e_j` (the minimiser of
:math:`u^\top Au` over :math:`u_j = 1` is :math:`v_j/(A^{-1})_{jj}`, and
:math:`1/(A^{-1})_{jj}` is the information about :math:`\theta_j`). An all-zero design
column (:math:`v_j = e_j`, curvature 0), a one-hot group whose columns sum to the
intercept column (a direction of zero curvature through the group and the intercept) and
a pair of equal columns leave the data with no curvature there: :math:`\theta_j` is not
identified.

From the release :math:`M = H + E_M` (docs/theory.md, "When a coefficient gets no
interval"): on the event :math:`\lVert E_M\rVert_2 \le f_M = 2\tau_M\sqrt p` (the
semicircle edge of the repair), every u has :math:`u^\top Hu \ge u^\top Mu - f_M\lVert
u\rVert^2`. The estimate carries :math:`\theta_j` along the profile direction of the
repaired Hessian, :math:`v_j = M_+^{-1}e_j` (the Newton step's), and the release's
curvature there is the Rayleigh quotient

.. math::

    R_j = \frac{v_j^\top M v_j}{v_j^\top v_j}
        = \frac{\sum_i u_{ji}^2\lambda_i/\mu_i^2}{\sum_i u_{ji}^2/\mu_i^2},
    \qquad \mu_i = \max(\lambda_i, f_M)

(:math:`M = U\mathrm{diag}(\lambda)U^\top`, :math:`M_+ = U\mathrm{diag}(\mu)U^\top`): a
mean of the released eigenvalues weighted towards the floored ones. It exceeds
:math:`f_M` only where the data's curvature along :math:`v_j` is positive,
:math:`v_j^\top Hv_j \ge (R_j - f_M)\lVert v_j\rVert^2 > 0`. Where :math:`R_j \le f_M`
the release is consistent with no curvature along :math:`\theta_j`'s direction (the
curvature there is below what the noise alone produces, the rule of the floor):
:math:`\theta_j` gets no interval and no p-value. With :math:`\lambda_{\min}(M) > f_M`
(no eigenvalue floored) every :math:`R_j > f_M`: the rule removes nothing where no
eigenvalue is floored. The repaired inverse (not :math:`M^{-1}`) keeps a released
eigenvalue near 0 from swamping the coordinates that load on it only through the noise.
"""

import numpy as np

__all__ = ["NOT_IDENTIFIED", "unidentified"]

#: The row note of a coefficient the release does not identify.
NOT_IDENTIFIED = (
    "no interval: not identified at the Hessian's noise level (the released curvature "
    "along this coefficient's direction, {ratio:.2g} x the noise edge 2 tau sqrt(p), is "
    "below the edge: an all-zero column, a category group without a reference level, "
    "collinear columns, or too few rows for this budget)"
)


def unidentified(hessian, floor):
    r"""Which coordinates have :math:`R_j \le f_M` (module docstring), and :math:`R_j/f_M`.

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M (symmetric; not repaired).
    floor : float
        :math:`f_M = 2\tau_M\sqrt p` (0 for an exact release: then only a singular
        direction removes a coefficient, :math:`\lambda_i \le 10^{-12}\max_k|\lambda_k|`,
        the rounding of an exactly singular matrix having either sign).

    Returns
    -------
    mask : ndarray of shape (p,), bool
        True where the coefficient is not identified.
    ratio : ndarray of shape (p,)
        :math:`R_j/f_M` (inf for an exact release).
    """
    matrix = np.asarray(hessian, dtype=np.float64)
    lam, vecs = np.linalg.eigh(0.5 * (matrix + matrix.T))
    scale = max(float(np.max(np.abs(lam))), 1e-300)
    # an exact release is singular where lambda_i <= 0 in exact arithmetic; in floating
    # point such an eigenvalue comes out as +-(rounding of order 1e-16 scale), of either
    # sign, so an exact release compares with the repair's floor 1e-12 scale instead of 0
    edge = max(float(floor), 1e-12 * scale)
    repaired = np.maximum(lam, edge)  # M_+'s eigenvalues
    weight = vecs * vecs / repaired**2  # u_ji^2 / mu_i^2, row j
    rayleigh = (weight @ lam) / weight.sum(axis=1)
    floor = float(floor)
    mask = rayleigh <= edge
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = rayleigh / floor if floor > 0 else np.where(mask, 0.0, np.inf)
    return mask, ratio
