r"""Noisy SGD with a fresh random batch each step (docs/sgd_bounds.md): the sampled loop.

Like the loops of :mod:`skdpgd.optim._gd` it takes a gradient callable (here on a set of
rows), ``noise_std``, a number of steps and a random generator, knows nothing of epsilon,
losses or estimators, and releases only the last iterate.
"""

import math

import numpy as np

from ._gd import _check_nonneg_int, _check_step_params, _noisy_step, _start
from ._projection import check_max_norm

__all__ = ["SAMPLINGS", "noisy_sampled_gradient_descent"]


#: Samplers of :func:`noisy_sampled_gradient_descent`: the ones an skdpgd accountant
#: covers (``skdpgd.accounting.sampled_sgd_bounds``), so a loop and its accountant are
#: matched by name.
SAMPLINGS = ("poisson", "uniform")


def _sample_rows(rng, n_samples, sampling_rate, batch_size, sampling):
    """One batch: Poisson(q) rows, or b rows uniformly without replacement; sorted indices."""
    if sampling == "poisson":
        return np.flatnonzero(rng.random(n_samples) < sampling_rate)
    return np.sort(rng.choice(n_samples, size=batch_size, replace=False))


def noisy_sampled_gradient_descent(
    gradient_on_rows,
    coef0,
    *,
    n_samples,
    batch_size,
    learning_rate,
    noise_std,
    n_steps,
    rng,
    sampling="poisson",
    regularization=0.0,
    max_norm=None,
    callback=None,
):
    r"""Noisy SGD with a fresh random batch each step; returns the last iterate only.

    .. math::

        \theta_{k+1} = \Pi_r\Big(\theta_k - \eta\,\big(\tfrac{1}{b}\textstyle\sum_{i\in B_k}
        \nabla\ell_i(\theta_k) + \lambda\theta_k + \sigma Z_k\big)\Big),
        \quad k = 0, \dots, K-1, \qquad Z_k \sim \mathcal N(0, I),

    where the batch :math:`B_k` is drawn afresh each step, independently of the data values:

    - ``sampling="poisson"`` (the default): every row independently with probability
      :math:`q = b/n` (the expected batch size b is public; the realised size is random,
      and an empty batch is a valid step: noise and regularisation only). The sum is
      divided by the *fixed* b, never by :math:`|B_k|`, so one row moves the step by at
      most :math:`\eta\,2L/b` whatever the batch (the event accounted by
      :func:`skdpgd.accounting.poisson_sgd_epsilon`);
    - ``sampling="uniform"``: exactly b distinct rows, uniformly without replacement,
      independently across steps (the sampling of Altschuler and Talwar 2022, eq. (3.3),
      accounted by :func:`skdpgd.accounting.sampled_sgd_bounds` with ``"uniform"``).

    Noise convention (docs/theory.md#noise-convention): ``noise_std`` sigma is the standard
    deviation on the *averaged* gradient. On the gradient *sum* the noise is
    :math:`\sigma b`; with per-example gradients bounded by L (replace-one sensitivity
    of the sum S = 2L) the step is the subsampled Gaussian mechanism whose noise
    multiplier, relative to the replace-one shift S, is :math:`z = \sigma b / S`
    (DP-SGD's "noise multiplier" relative to the clipping norm L is :math:`\sigma b / L = 2z`).

    Parameters
    ----------
    gradient_on_rows : callable
        ``gradient_on_rows(theta, rows)`` returns the SUM over ``rows`` (a sorted int
        array, possibly empty) of the per-example data-term gradients at theta, with
        theta's shape (zeros for an empty ``rows``). Regularisation is added here, not
        by the callable.
    coef0 : array-like
        theta_0, independent of the data. Not modified.
    n_samples : int
        n >= 1, the number of rows (public).
    batch_size : int
        b in [1, n]: the expected (Poisson) or exact (uniform) batch size, and the
        normaliser of the gradient sum.
    learning_rate : float
        eta > 0.
    noise_std : float
        sigma >= 0 on the averaged gradient. 0 draws no noise.
    n_steps : int
        K >= 0.
    rng : numpy.random.Generator
        The only source of randomness. Per step, in this order: the batch
        (``rng.random(n)`` for Poisson, ``rng.choice(n, b, replace=False)`` for uniform),
        then ``rng.standard_normal(theta.shape)`` when ``noise_std > 0``.
    sampling : {"poisson", "uniform"}, default="poisson"
        How batches are drawn: the name of the sampler, so that the loop and the
        accountant (``sampling`` of :func:`skdpgd.accounting.sampled_sgd_bounds`) are
        matched by name.
    regularization : float, default=0.0
        lam >= 0, the L2 term :math:`\lambda\theta` added to every step (not sampled).
    max_norm : float, optional
        r > 0: :math:`\Pi_r` projects every iterate onto the public ball of radius r
        (:mod:`skdpgd.optim._projection`); None (or ``inf``): no projection.
    callback : callable, optional
        ``callback(step)`` after each step with the 0-based step index only (it never
        sees an iterate, a batch or a gradient).

    Returns
    -------
    coef : ndarray of float64
        theta_K, a new array (``coef0`` copied when K = 0).

    References
    ----------
    .. [1] M. Abadi et al. Deep learning with differential privacy. CCS 2016 (DP-SGD,
       Poisson sampling).
    .. [2] J. Altschuler, K. Talwar. Privacy of noisy stochastic gradient descent: more
       iterations without more privacy loss. NeurIPS 2022 (fixed-size uniform batches).

    Examples
    --------
    >>> import numpy as np
    >>> targets = np.array([[1.0], [3.0]])      # l_i = 0.5 (theta - x_i)^2
    >>> def grad_sum(theta, rows):
    ...     return (theta - targets[rows]).sum(axis=0) if len(rows) else np.zeros_like(theta)
    >>> coef = noisy_sampled_gradient_descent(
    ...     grad_sum, np.zeros(1), n_samples=2, batch_size=2, learning_rate=1.0,
    ...     noise_std=0.0, n_steps=5, rng=np.random.default_rng(0))
    >>> coef
    array([2.])
    """
    learning_rate, noise_std = _check_step_params(learning_rate, noise_std)
    n_steps = _check_nonneg_int("n_steps", n_steps)
    n_samples = _check_nonneg_int("n_samples", n_samples)
    batch_size = _check_nonneg_int("batch_size", batch_size)
    if not 1 <= batch_size <= n_samples:
        raise ValueError(
            f"batch_size must be in [1, n_samples={n_samples}], got {batch_size}."
        )
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    regularization = float(regularization)
    if not (math.isfinite(regularization) and regularization >= 0.0):
        raise ValueError(f"regularization must be a finite number >= 0, got {regularization!r}.")
    rate = batch_size / n_samples
    coef = _start(coef0, max_norm)
    max_norm = check_max_norm(max_norm)
    for step in range(n_steps):
        rows = _sample_rows(rng, n_samples, rate, batch_size, sampling)
        direction = np.asarray(gradient_on_rows(coef, rows), dtype=np.float64) / batch_size
        if regularization:
            direction = direction + regularization * coef
        coef = _noisy_step(coef, direction, learning_rate, noise_std, rng, max_norm)
        if callback is not None:
            callback(step)
    return coef
