r"""The projected noisy gradient descent loops (DESIGN.md section 1).

They take a gradient callable, a projection, the noise standard deviation, a number
of steps and a random generator, and know nothing of epsilon, losses or estimators
(STYLE.md point 7). Only the last iterate is returned.
"""

import numpy as np


def ball_projection(radius):
    """Euclidean (Frobenius for 2-D coef) projection onto {||theta|| <= radius}."""
    if not radius > 0:
        raise ValueError(f"radius must be > 0, got {radius!r}.")

    def project(coef):
        norm = np.linalg.norm(coef)
        return coef if norm <= radius else coef * (radius / norm)

    return project


def noisy_gradient_descent(
    gradient, coef0, *, learning_rate, noise_std, n_steps, rng, projection=None, callback=None
):
    r"""Run :math:`\theta_{k+1} = \Pi(\theta_k - \eta(\nabla F(\theta_k) + \sigma Z_k))`.

    Parameters
    ----------
    gradient : callable
        ``gradient(theta)`` returns the full gradient of the objective at theta.
    coef0 : ndarray
        Starting point (must not depend on the data).
    learning_rate, noise_std : float
        eta and sigma (noise std on the gradient). ``noise_std == 0`` draws nothing.
    n_steps : int
        K.
    rng : numpy Generator or RandomState
        Draws ``rng.standard_normal(theta.shape)`` once per step.
    projection : callable, optional
        Projection onto the constraint set C.
    callback : callable, optional
        ``callback(step)`` with the step index only (never an iterate).

    Returns
    -------
    theta_K : ndarray
        The last iterate; no intermediate iterate is kept.
    """
    coef = np.array(coef0, dtype=float, copy=True)
    for step in range(int(n_steps)):
        direction = gradient(coef)
        if noise_std > 0:
            direction = direction + noise_std * rng.standard_normal(coef.shape)
        coef = coef - learning_rate * direction
        if projection is not None:
            coef = projection(coef)
        if callback is not None:
            callback(step)
    return coef


def noisy_cyclic_gradient_descent(
    batch_gradient, coef0, *, n_batches, learning_rate, noise_std, n_epochs, rng,
    projection=None, callback=None,
):
    """Cyclic variant: each epoch visits batches 0..l-1 in order; ``batch_gradient(theta, j)``."""
    coef = np.array(coef0, dtype=float, copy=True)
    step = 0
    for _ in range(int(n_epochs)):
        for batch in range(int(n_batches)):
            direction = batch_gradient(coef, batch)
            if noise_std > 0:
                direction = direction + noise_std * rng.standard_normal(coef.shape)
            coef = coef - learning_rate * direction
            if projection is not None:
                coef = projection(coef)
            if callback is not None:
                callback(step)
            step += 1
    return coef


def cyclic_partition(n_samples, batch_size, rng):
    """Fixed balanced partition of range(n) into ceil(n/b) batches, from n and rng only."""
    n_batches = -(-int(n_samples) // int(batch_size))
    order = rng.permutation(int(n_samples))
    return np.array_split(order, n_batches)
