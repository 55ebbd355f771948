r"""The Gaussian release of the Gram matrix of the clipped design (a noise add; knows no epsilon).

.. math::

    \tilde G = \frac1n \sum_{i=1}^n \tilde x_i \tilde x_i^\top + E, \qquad
    E_{jl} = E_{lj} \sim \mathcal N(0, \tau^2) \text{ independent for } j \le l,

with :math:`\tilde x_i = (s_i x_i, b)` the clipped, intercept-augmented rows of a
:class:`skdpgd._data._design.ClippedDesign` (:math:`\|\tilde x_i\| \le \tilde R`). The
preconditioned solver's loop (:mod:`skdpgd.optim._preconditioned`) uses :math:`\tilde G` to build a
curvature majoriser once, before its noisy steps.

**Replace-one sensitivity.** Let :math:`v(A) = (A_{jl})_{j \le l}` be the upper triangle
(diagonal included) of a symmetric matrix, the vector that receives the noise. Replacing a
row x by x' changes :math:`\sum_i \tilde x_i \tilde x_i^\top` by
:math:`D = x x^\top - x' x'^\top`, and

.. math::

    \|v(D)\|_2^2 \le \|D\|_F^2 = \|x\|^4 + \|x'\|^4 - 2 (x\cdot x')^2
    \le 2 \tilde R^4,

since :math:`\|xx^\top\|_F^2 = \|x\|^4`, :math:`\langle xx^\top, x'x'^\top\rangle_F = (x\cdot
x')^2`, and :math:`v(D)` keeps a subset of the entries of D. So the sensitivity of :math:`v` of the
*sum* is :math:`\sqrt2\,\tilde R^2`, attained by two orthogonal rows of norm
:math:`\tilde R` along coordinate axes (then D is diagonal and :math:`\|v(D)\| = \|D\|_F`).
Releasing :math:`v(\tfrac1n\sum_i \tilde x_i\tilde x_i^\top) + \tau Z` is the Gaussian
mechanism, :math:`\mu_G`-GDP with

.. math::

    \mu_G = \frac{\sqrt2\,\tilde R^2}{n\,\tau}

(Dong, Roth, Su 2022, Theorem 2.7). Mirroring the noisy upper triangle to the lower one is
post-processing. ``tests/solvers/test_preconditioned.py`` checks the bound against brute force
over random and adversarial row pairs.

The exact sum comes from the data layer (:func:`skdpgd._data._gram.gram_sum`, symmetric and
bit-identical for every ``n_jobs``); the noise is drawn once, by :func:`release_gram`, from
the caller's generator. The noise scale tau is the caller's (calibrated by
:mod:`skdpgd.accounting`); :func:`gram_sensitivity` is a constant of the public row bound,
as a loss's sensitivity is.

References
----------
.. [1] J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 84 (2022),
   Theorem 2.7 (Gaussian mechanism) and Corollary 3.3 (composition).
"""

import math

import numpy as np

__all__ = ["gram_sensitivity", "release_gram", "symmetric_gaussian"]


def gram_sensitivity(row_norm):
    r"""Replace-one sensitivity :math:`\sqrt2\,\tilde R^2` of the upper triangle of
    :math:`\sum_i \tilde x_i \tilde x_i^\top` (module docstring), rows of norm <= ``row_norm``."""
    row_norm = float(row_norm)
    if not (math.isfinite(row_norm) and row_norm > 0.0):
        raise ValueError(f"row_norm must be a positive finite public bound, got {row_norm!r}.")
    value = math.sqrt(2.0) * row_norm * row_norm
    if not math.isfinite(value):
        raise ValueError(
            f"row_norm={row_norm!r} is too large: its square overflows. Rescale X so that a "
            "public row-norm bound of moderate size holds."
        )
    return value


def symmetric_gaussian(dim, noise_std, rng):
    r"""A symmetric (dim, dim) matrix whose upper triangle (diagonal included) is i.i.d.
    :math:`\mathcal N(0, \tau^2)`, mirrored below the diagonal.

    Draws exactly ``dim (dim + 1) / 2`` standard normals from ``rng`` (one call, row-major
    order of the upper triangle) when ``noise_std > 0``; none when it is 0.
    """
    noise_std = float(noise_std)
    if not (math.isfinite(noise_std) and noise_std >= 0.0):
        raise ValueError(f"noise_std must be a non-negative finite number, got {noise_std!r}.")
    out = np.zeros((dim, dim))
    if noise_std == 0.0:
        return out
    upper = np.triu_indices(dim)
    out[upper] = noise_std * rng.standard_normal(upper[0].size)
    return out + np.triu(out, 1).T


def release_gram(gram, n_samples, noise_std, rng):
    r"""The released :math:`\tilde G = \frac1n \sum_i \tilde x_i\tilde x_i^\top + E` (module
    docstring).

    Parameters
    ----------
    gram : ndarray of shape (p, p)
        :func:`skdpgd._data._gram.gram_sum` of the clipped design (not divided by n).
    n_samples : int
        n (public).
    noise_std : float
        tau >= 0, the standard deviation of each upper-triangle entry of E; the release is
        :math:`\sqrt2\,\tilde R^2/(n\tau)`-GDP (:func:`gram_sensitivity`). 0 releases the
        exact matrix (no privacy; for epsilon = inf).
    rng : numpy.random.Generator
        The only source of randomness (see :func:`symmetric_gaussian`).

    Returns
    -------
    released : ndarray of shape (p, p), symmetric, float64
    """
    gram = np.asarray(gram, dtype=np.float64)
    if gram.ndim != 2 or gram.shape[0] != gram.shape[1]:
        raise ValueError(f"gram must be a square matrix, got shape {gram.shape}.")
    n_samples = int(n_samples)
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}.")
    return gram / n_samples + symmetric_gaussian(gram.shape[0], noise_std, rng)
