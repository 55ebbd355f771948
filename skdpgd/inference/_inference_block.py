r"""Which columns enter the inference block: those the released curvature shows are not empty.

A design column the data leave empty (an ``__other`` column under a category list that
covers every value, a ``__missing`` indicator of a column without a missing cell) has
:math:`H_{jj} = \frac1n\sum_i w_i x_{ij}^2 = 0`, and, H being positive semi-definite,
its whole row and column of H are 0: the loss does not depend on :math:`\theta_j`, so
the other coefficients are those of the model without the column. A public rule cannot
say which columns are empty (a public category list does not say that no other value
occurs, an object dtype may hold a missing cell), but the release can: the released
diagonal is :math:`M_{jj} = H_{jj} + E_{jj}`, :math:`E_{jj} \sim \mathcal N(0, \tau_M^2)`
(docs/theory.md, "Columns the release shows empty"), and the released gradient is
:math:`\tilde g_j = \nabla_j L(\theta_K) + \sigma_g Z_j`, pure noise for an empty column.
A candidate column is **dropped from the inference block** when both are those of an empty
column,

.. math::

    M_{jj} \le z\,\tau_M,\quad z = \Phi^{-1}(1 - \tfrac{\alpha}{2p}),\qquad
    |\tilde g_j| \le z_g\sigma_g,\quad z_g = \Phi^{-1}(1 - \tfrac{\alpha}{4p}),
    \qquad \alpha = 0.05

(:data:`EMPTY_LEVEL`): every empty column is dropped with probability at least
:math:`1 - \alpha` (Bonferroni over the 2p tests), and a dropped column has
:math:`H_{jj} \le 2z\tau_M` on the event :math:`\max_j |E_{jj}| \le z\tau_M` (a
column with that little curvature: a rare level), and a run that had finished along it
up to the gradient's noise. The estimate and the covariance are
then computed on the kept block (the released :math:`\tilde g_K`, :math:`M_{KK}`,
:math:`Q_{KK}`: sub-blocks of the same releases, a smaller Wigner noise whose edge is
:math:`2\tau_M\sqrt{|K|}`), with the dropped coefficients held at the run's values.
Before, the dropped columns stayed in M, were raised to the floor :math:`f_M`, and the
run's error along them (a direction without curvature) entered the bound of every other
coefficient. A dropped coefficient keeps the run's estimate and gets NaN, with the reason
in its row. Everything here reads the releases and public numbers only: post-processing.

Only the **0/1 indicator columns** of a preparation's public structure are candidates (the
one-hot levels, ``__other`` and ``__missing`` of a category, a boolean, a numeric column's
missing indicator; a DP pipeline passes them, a standalone estimator none). For
such a column, :math:`x_{ij} \in \{0, c\}`, so
:math:`|H_{kj}| = |\frac1n\sum_{i: x_{ij} \ne 0} w_i c\,x_{ik}| \le H_{jj}\max_i|x_{ik}|/c`:
a dropped indicator (:math:`H_{jj} \le 2z\tau_M` on the event
:math:`\max_j|E_{jj}| \le z\tau_M`) moves the other coordinates' score by at most
:math:`2z\tau_M\max|x_k|/c` per unit of :math:`\theta_j`, the order of one entry of the
Hessian's noise. A numeric column of small scale has no such bound (on an equicorrelated
design its curvature is small and its coupling to the others large), and is never dropped.

The preconditioned solver's step :math:`-\eta P^{-1}(\nabla F + \sigma Z)` couples the
coordinates through :math:`P^{-1}`. With :math:`H_{KD} = 0` the block's linearised run
moves by :math:`-\eta (P^{-1})_{KK}(H_{KK} + \lambda)e_K` (up to :math:`\eta\lambda
(P^{-1})_{KD}e_D`, of order :math:`\eta\lambda` per step) and its noise
:math:`\eta\sigma(P^{-1}Z)_K` has covariance :math:`\eta^2\sigma^2(P^{-2})_{KK}`: the run
of the block has the preconditioner :math:`((P^{-1})_{KK})^{-1}` and that noise
(:func:`block_run`), which :func:`~skdpgd.inference._optimizer_noise.optimizer_noise`
takes as its ``noise_covariance``.
"""

import numpy as np
from scipy.stats import norm

__all__ = ["DROPPED", "EMPTY_LEVEL", "block_run", "empty_columns", "inference_block"]

#: The family-wise level alpha of the test that keeps an empty column (Bonferroni).
EMPTY_LEVEL = 0.05

#: Whether the rule runs (False: every column stays in the block; for before/after runs).
ENABLED = True

#: The row note of a dropped column.
DROPPED = (
    "no interval: dropped from the inference block, the released curvature of its column "
    "({ratio:.4g} tau) is below {z:.4g} tau, which an empty column's (pure noise) exceeds "
    "with probability 0.05/(2p) only, and so is its released gradient (a level or "
    "indicator the data leave empty or nearly so); its coefficient is the run's, and the "
    "other intervals are those of the model with it held there"
)


def empty_columns(hessian, noise_std, level=EMPTY_LEVEL):
    r"""Which columns the released diagonal shows empty: :math:`M_{jj} \le z\tau_M`.

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M.
    noise_std : float
        :math:`\tau_M` (0 for an exact release: only :math:`M_{jj} \le 0`, an exactly
        empty column, is dropped).
    level : float, default=EMPTY_LEVEL
        alpha.

    Returns
    -------
    dropped : ndarray of shape (p,), bool
        True for a column dropped from the inference block.
    ratio : ndarray of shape (p,)
        :math:`M_{jj}/\tau_M` (inf for an exact release).
    z : float
        The threshold in units of :math:`\tau_M`.
    """
    diag = np.diag(np.asarray(hessian, dtype=np.float64)).copy()
    p = diag.shape[0]
    z = float(norm.isf(float(level) / p))
    tau = float(noise_std)
    if tau <= 0.0:
        return diag <= 0.0, np.where(diag <= 0.0, 0.0, np.inf), z
    ratio = diag / tau
    return ratio <= z, ratio, z


def inference_block(hessian, noise_std, preconditioner=None, candidates=None,
                    gradient=None, gradient_noise_std=0.0):
    r"""The kept coordinates, the dropped ones' row notes, and the block's run.

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M.
    noise_std : float
        :math:`\tau_M`.
    preconditioner : ndarray, optional
        The run's P (None: the identity).
    candidates : ndarray of shape (p,), bool, optional
        The columns that may be dropped: the 0/1 indicators of the preparation's public
        structure (module docstring); None: none (nothing is dropped).
    gradient : ndarray of shape (p,), optional
        The released gradient: a candidate is dropped only where it is also that of an
        empty column, :math:`|\tilde g_j| \le z_g\sigma_g` (module docstring).
    gradient_noise_std : float, default=0
        :math:`\sigma_g`.

    Returns
    -------
    keep : ndarray of shape (p,), bool
        The coordinates of the inference block (all of them when none or all would be
        dropped).
    notes : list of str
        One per coordinate: the reason for a dropped one, "" for a kept one.
    run : dict
        ``preconditioner`` and ``noise_covariance`` of the block's run (module
        docstring; both None without a preconditioner, and P itself when nothing is
        dropped).
    """
    p = np.shape(hessian)[0]
    everything = (np.ones(p, dtype=bool), [""] * p,
                  {"preconditioner": preconditioner, "noise_covariance": None})
    if not ENABLED or candidates is None:
        return everything
    dropped, ratio, z = empty_columns(hessian, noise_std, EMPTY_LEVEL / 2)
    dropped &= np.asarray(candidates, dtype=bool)
    if gradient is not None and gradient_noise_std > 0.0:  # the run finished along it
        z_g = float(norm.isf(EMPTY_LEVEL / (4 * p)))
        dropped &= np.abs(np.asarray(gradient, dtype=np.float64)) <= z_g * gradient_noise_std
    if not dropped.any() or dropped.all():
        return everything
    keep = ~dropped
    notes = [DROPPED.format(ratio=r, z=z) if out else ""
             for out, r in zip(dropped, ratio, strict=True)]
    return keep, notes, block_run(preconditioner, keep)


def block_run(preconditioner, keep):
    r"""The preconditioner and the noise of the kept block's run (module docstring).

    Parameters
    ----------
    preconditioner : ndarray of shape (p, p) or None
        The run's P.
    keep : ndarray of shape (p,), bool
        K.

    Returns
    -------
    dict
        ``preconditioner``: :math:`((P^{-1})_{KK})^{-1}`, ``noise_covariance``:
        :math:`(P^{-2})_{KK}` (None and None for the identity).
    """
    if preconditioner is None:
        return {"preconditioner": None, "noise_covariance": None}
    w, v = np.linalg.eigh(np.asarray(preconditioner, dtype=np.float64))
    inverse = (v / w) @ v.T
    block = np.ix_(keep, keep)
    drift = np.linalg.inv(inverse[block])
    noise = (inverse @ inverse)[block]
    return {"preconditioner": 0.5 * (drift + drift.T),
            "noise_covariance": 0.5 * (noise + noise.T)}
