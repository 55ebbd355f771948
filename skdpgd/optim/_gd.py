r"""The noisy gradient descent loops: full batch and cyclic batches (docs/theory.md#conventions).

.. math::

    \theta_{k+1} = \Pi_r\Big(\theta_k - \eta\,\big(\nabla F_{B_k}(\theta_k) + \sigma Z_k\big)\Big),
    \qquad Z_k \sim \mathcal N(0, I), \qquad \text{output } \theta_K,

with :math:`\sigma` the noise standard deviation *on the gradient* (the convention of
Bok, Su, Altschuler 2024 and Altschuler, Talwar 2022; Chourasia et al. 2021 write the
noise as :math:`\sqrt{2\eta}\,s\,\mathcal N(0, I)`, i.e. :math:`s = \sigma\sqrt{\eta/2}`).
:math:`F_{B_k}` is the full objective (:func:`noisy_gradient_descent`) or the objective
on the k-th batch of a fixed partition visited cyclically
(:func:`noisy_cyclic_gradient_descent`), and :math:`\Pi_r` the projection onto the public
ball of radius r = ``max_norm`` (:mod:`skdpgd.optim._projection`; None: no projection).

These loops take a gradient callable, ``noise_std``, a number of steps, a projection radius and
a random generator, and know nothing of epsilon, losses or estimators (they are pure numerical
loops). They release only the last iterate: no intermediate iterate, loss or gradient norm is
stored, returned, passed to the callback or used to stop early (docs/theory.md#hidden-state,
"hidden state"). Calibrating ``noise_std`` and the number of steps is the caller's job
(:mod:`skdpgd.accounting`). The sampled loop is :mod:`skdpgd.optim._sampled`, the preconditioned
one :mod:`skdpgd.optim._preconditioned`.

References
----------
.. [1] J. Bok, W. Su, J. Altschuler. Shifted interpolation for differential privacy.
   ICML 2024: Theorems 4.2, 4.3 (full batch), 4.5 and the method of 4.6 (cyclic batches).
.. [2] J. Altschuler, K. Talwar. Privacy of noisy stochastic gradient descent: more
   iterations without more privacy loss. NeurIPS 2022.
"""

import math
import numbers

import numpy as np

from ._projection import check_max_norm, project_onto_ball

__all__ = ["cyclic_partition", "noisy_cyclic_gradient_descent", "noisy_gradient_descent"]


def _check_nonneg_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}.")
    return int(value)


def _check_step_params(learning_rate, noise_std):
    learning_rate, noise_std = float(learning_rate), float(noise_std)
    if not (math.isfinite(learning_rate) and learning_rate > 0.0):
        raise ValueError(f"learning_rate must be a positive finite number, got {learning_rate!r}.")
    if not (math.isfinite(noise_std) and noise_std >= 0.0):
        raise ValueError(f"noise_std must be a non-negative finite number, got {noise_std!r}.")
    return learning_rate, noise_std


def _noisy_step(coef, direction, learning_rate, noise_std, rng, max_norm=math.inf):
    r"""One step :math:`\Pi_r(\theta - \eta(g + \sigma Z))`; draws Z only when sigma > 0."""
    direction = np.asarray(direction, dtype=np.float64)
    if direction.shape != coef.shape:
        raise ValueError(
            f"the gradient callable returned shape {direction.shape}, expected {coef.shape} "
            "(the shape of coef0)."
        )
    if noise_std > 0.0:
        direction = direction + noise_std * rng.standard_normal(coef.shape)
    return project_onto_ball(coef - learning_rate * direction, max_norm)


def noisy_gradient_descent(
    gradient, coef0, *, learning_rate, noise_std, n_steps, rng, max_norm=None, callback=None
):
    r"""Full-batch noisy gradient descent; returns the last iterate only.

    .. math::

        \theta_{k+1} = \Pi_r\Big(\theta_k - \eta\,\big(\nabla F(\theta_k) + \sigma Z_k\big)\Big),
        \quad k = 0, \dots, K-1, \qquad Z_k \sim \mathcal N(0, I)

    (docs/theory.md#conventions; Bok, Su, Altschuler 2024, Algorithm "noisy GD", projected onto
    the ball of radius r = ``max_norm``). The privacy of :math:`\theta_K` is accounted elsewhere
    (docs/theory.md#bound-a; #bound-b needs the projection, with diameter 2r).

    Parameters
    ----------
    gradient : callable
        ``gradient(theta)`` returns the full gradient of the objective at theta,
        regulariser included (e.g. ``data_sum / n + lam * theta``), with theta's shape.
    coef0 : array-like
        theta_0; it must not depend on the private data. Not modified.
    learning_rate : float
        eta > 0.
    noise_std : float
        sigma >= 0, the noise standard deviation on the gradient. 0 draws no noise and
        leaves ``rng`` untouched.
    n_steps : int
        K >= 0.
    rng : numpy.random.Generator
        The only source of randomness: exactly K draws
        ``rng.standard_normal(theta.shape)``, one per step, in step order (when
        ``noise_std > 0``).
    max_norm : float, optional
        r > 0: every iterate is projected onto the ball of radius r (Euclidean norm of
        theta, Frobenius for a matrix), a public number. None (or ``inf``): no projection.
        theta_0 must lie in the ball.
    callback : callable, optional
        ``callback(step)`` after each step, with the 0-based index of the step just done
        (an int) and nothing else: for progress display, it never sees an iterate.

    Returns
    -------
    coef : ndarray of float64
        theta_K, a new array (``coef0`` copied when K = 0).
    """
    learning_rate, noise_std = _check_step_params(learning_rate, noise_std)
    n_steps = _check_nonneg_int("n_steps", n_steps)
    coef = _start(coef0, max_norm)
    max_norm = check_max_norm(max_norm)
    for step in range(n_steps):
        coef = _noisy_step(coef, gradient(coef), learning_rate, noise_std, rng, max_norm)
        if callback is not None:
            callback(step)
    return coef


def noisy_cyclic_gradient_descent(
    batch_gradient,
    coef0,
    *,
    n_batches,
    learning_rate,
    noise_std,
    n_epochs,
    rng,
    max_norm=None,
    callback=None,
):
    r"""Cyclic mini-batch projected noisy gradient descent; returns the last iterate only.

    Each epoch visits the batches :math:`0, \dots, l-1` in this fixed order:

    .. math::

        \theta_{k+1} = \Pi_r\Big(\theta_k - \eta\,\big(\nabla F_{B_{k \bmod l}}(\theta_k)
        + \sigma Z_k\big)\Big), \quad k = 0, \dots, lE - 1

    (docs/theory.md#conventions, solver "cyclic"; Bok, Su, Altschuler 2024, Theorem 4.5 and,
    with the projection, bound (F) by their method, account it: docs/theory.md#bound-c, #bound-f).

    Parameters
    ----------
    batch_gradient : callable
        ``batch_gradient(theta, j)`` returns the gradient of the objective on batch j
        (regulariser included) at theta.
    coef0 : array-like
        theta_0, independent of the data. Not modified.
    n_batches : int
        l >= 1 (e.g. ``len(cyclic_partition(n, b, rng))``).
    learning_rate, noise_std : float
        eta > 0 and sigma >= 0 (noise standard deviation on the gradient).
    n_epochs : int
        E >= 0; K = l E steps.
    rng : numpy.random.Generator
        Exactly K draws ``rng.standard_normal(theta.shape)`` when ``noise_std > 0``.
    max_norm : float, optional
        r > 0, the radius of the public ball every iterate is projected onto (None or
        ``inf``: no projection), as in :func:`noisy_gradient_descent`.
    callback : callable, optional
        ``callback(step)`` after each step with the 0-based global step index only.

    Returns
    -------
    coef : ndarray of float64
        theta_K, a new array.
    """
    learning_rate, noise_std = _check_step_params(learning_rate, noise_std)
    n_epochs = _check_nonneg_int("n_epochs", n_epochs)
    n_batches = _check_nonneg_int("n_batches", n_batches)
    if n_batches < 1:
        raise ValueError("n_batches must be at least 1, got 0.")
    coef = _start(coef0, max_norm)
    max_norm = check_max_norm(max_norm)
    step = 0
    for _ in range(n_epochs):
        for batch in range(n_batches):
            direction = batch_gradient(coef, batch)
            coef = _noisy_step(coef, direction, learning_rate, noise_std, rng, max_norm)
            if callback is not None:
                callback(step)
            step += 1
    return coef


def _start(coef0, max_norm):
    """theta_0 as a new float64 array, refused outside the ball (the bounds start inside)."""
    coef = np.array(coef0, dtype=np.float64, copy=True)
    radius = check_max_norm(max_norm)
    if radius < math.inf and not float(np.linalg.norm(coef)) <= radius:
        raise ValueError(
            f"coef0 has norm {float(np.linalg.norm(coef)):.6g} > max_norm={radius!r}: the start "
            "must lie in the ball every iterate is projected onto (start at 0)."
        )
    return coef


def cyclic_partition(n_samples, batch_size, rng):
    r"""A fixed partition of ``range(n)`` into :math:`l = \lceil n/b \rceil` balanced batches.

    A random permutation of ``range(n)`` drawn from ``rng`` is cut into l consecutive
    pieces of sizes :math:`\lceil n/l \rceil` (first) and :math:`\lfloor n/l \rfloor`
    (``np.array_split``); each batch's indices are then sorted (for memory locality;
    a batch is a set). The partition depends on n, b and the rng only, never on data
    values, as bound (C) requires (docs/theory.md#bound-c). The smallest batch,
    :math:`\lfloor n/l \rfloor`, is the b the accountant must use.

    Parameters
    ----------
    n_samples : int
        n >= 1.
    batch_size : int
        b >= 1 (values above n give a single batch).
    rng : numpy.random.Generator
        One call ``rng.permutation(n)``.

    Returns
    -------
    batches : list of ndarray of intp
        l disjoint index arrays whose union is ``range(n)``.
    """
    n_samples = _check_nonneg_int("n_samples", n_samples)
    batch_size = _check_nonneg_int("batch_size", batch_size)
    if n_samples < 1 or batch_size < 1:
        raise ValueError(
            f"n_samples and batch_size must be >= 1, got n_samples={n_samples}, "
            f"batch_size={batch_size}."
        )
    n_batches = -(-n_samples // batch_size)
    order = rng.permutation(n_samples)
    return [np.sort(batch).astype(np.intp, copy=False)
            for batch in np.array_split(order, n_batches)]
