r"""The plain-step utility proxy of full-batch noisy GD, and the planner's step fractions.

docs/theory.md#calibration, step 3. Not privacy maths: planners score candidate runs by
this proxy, built from public numbers only. It is the cyclic planner's
(:mod:`skdpgd.solvers._cyclic_planning`, which plans ``solver="gd"`` as one batch, the
noise of every candidate from the accountant's closed form and the winner's calibrated
exactly by the accountant).
"""

import numpy as np

from ..accounting import contraction_factor

__all__ = ["STEP_FRACTIONS", "optimisation_error", "utility_proxy"]


def optimisation_error(n_steps, *, learning_rate, strong_convexity, smoothness, initial_distance):
    r"""Worst-case optimisation error of K gradient steps from 0 over quadratics.

    For a quadratic whose curvatures h lie in [lam, beta] with the optimum at distance
    r0, the excess objective after K steps of size eta is at most

    .. math::

        \frac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h\,(1-\eta h)^{2K},

    attained by putting the whole of theta* on the worst curvature. The maximum is at an
    end of the interval or at the critical point :math:`h^* = 1/(\eta(2K+1))`, giving
    :math:`\approx r_0^2/(4 e \eta K)` (the O(1/K) rate of convex GD) until the
    :math:`\lambda`-contraction takes over. On a quadratic, gradient descent from 0
    multiplies the error in a direction of curvature h by :math:`(1 - \eta h)` per step,
    and that direction's excess objective is h/2 times the squared error
    (:ref:`calibration`, step 3). Vectorised over ``n_steps``. Planning only: it
    plays no part in any privacy claim.

    Parameters
    ----------
    n_steps : int or array-like of int
        K >= 0, the number of steps (broadcast against the other arguments).
    learning_rate : float or array-like of float
        eta > 0, the step size.
    strong_convexity : float or array-like of float
        lam >= 0, the smallest curvature of the objective.
    smoothness : float or array-like of float
        beta >= lam, the largest curvature of the objective.
    initial_distance : float
        r0, a public guess of the optimum's norm (the start is 0).

    Returns
    -------
    float or ndarray of float
        :math:`\frac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h\,|1-\eta h|^{2K}`, with the
        broadcast shape of the arguments.
    """
    k = np.asarray(n_steps, dtype=float)
    eta, lam, beta = (np.asarray(x, dtype=float)
                      for x in (learning_rate, strong_convexity, smoothness))

    def worst(h):  # the power as exp(2K log|1 - eta h|) (numpy's pow is not vectorised)
        with np.errstate(divide="ignore", invalid="ignore"):
            exponent = 2.0 * k * np.log(np.abs(1.0 - eta * h))
        return h * np.exp(np.where(np.isnan(exponent), 0.0, exponent))  # 0^0 = 1 at K = 0

    critical = np.clip(1.0 / (eta * (2.0 * k + 1.0)), lam, beta)
    # a step beyond 2 / beta diverges: the error is +inf, a value (the caller refuses such
    # a fixed learning_rate with its own message), not a floating-point accident to report
    with np.errstate(over="ignore"):
        return 0.5 * float(initial_distance) ** 2 * np.maximum(
            np.maximum(worst(lam), worst(beta)), worst(critical)
        )


def utility_proxy(
    n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness, initial_distance
):
    r"""Public proxy for the excess (unregularised) loss of the released iterate.

    .. math::

        U = \underbrace{\tfrac{\lambda}{2} r_0^2}_{\text{regularisation bias}}
          + \underbrace{\tfrac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h(1-\eta
          h)^{2K}}_{\text{optimisation}} + \underbrace{\tfrac{p\,\eta\,\sigma^2}{4}}_{\text{noise}}

    :ref:`calibration`, step 3, with each term a worst case over quadratic objectives whose
    curvatures lie in [lam, beta]: the bias term is the classical bound
    :math:`L(\theta^*_\lambda) - L(\theta^*_0) \le \frac{\lambda}{2}\|\theta^*_0\|^2`; the
    optimisation term is :func:`optimisation_error` (it refines the textbook
    :math:`\frac{\beta}{2}c^{2K}r_0^2`, which pairs the largest curvature with the slowest
    contraction, a combination no quadratic attains); the noise term is the stationary
    excess loss of noisy GD, :math:`p\,\eta\sigma^2/(2(2-\eta h)) \le p\,\eta\sigma^2/4`
    per direction of curvature h <= 1/eta, whatever the curvature. ``r0``
    (``initial_distance``) is a public guess of the optimum's norm and ``p`` the number
    of parameters. Vectorised over ``n_steps`` / ``noise_std``. Planning only: it plays
    no part in any privacy claim.

    Parameters
    ----------
    n_steps : int or array-like of int
        K >= 0, the number of steps.
    noise_std : float or array-like of float
        sigma >= 0, the noise on the averaged gradient (broadcast against ``n_steps``).
    n_params : int
        p, the number of parameters.
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the L2 regularisation (the smallest curvature of the objective).
    smoothness : float
        beta >= lam, the smoothness of the objective.
    initial_distance : float
        r0, a public guess of the optimum's norm (the start is 0).

    Returns
    -------
    float or ndarray of float
        U, with the broadcast shape of ``n_steps`` and ``noise_std``.

    Raises
    ------
    ValueError
        When eta, lam or beta is out of range (:func:`~skdpgd.accounting.contraction_factor`
        validates them).
    """
    contraction_factor(learning_rate, strong_convexity, smoothness)  # validates
    return _proxy(n_steps, noise_std, n_params=n_params, learning_rate=learning_rate,
                  strong_convexity=strong_convexity, smoothness=smoothness,
                  initial_distance=initial_distance)


def _proxy(n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness,
           initial_distance):
    """:func:`utility_proxy` without its checks, elementwise in K, sigma, eta, lam, beta."""
    optimisation = optimisation_error(
        n_steps, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness, initial_distance=initial_distance,
    )
    noise = n_params * learning_rate * np.asarray(noise_std, dtype=float) ** 2 / 4.0
    return 0.5 * strong_convexity * float(initial_distance) ** 2 + optimisation + noise


#: Step sizes the planner tries, as fractions of 2/(beta + lam). The largest minimises
#: the contraction factor (less noise) but leaves the top-curvature direction oscillating
#: at the same slow rate; a slightly smaller step damps it at a small privacy cost.
STEP_FRACTIONS = (1.0, 0.95, 0.9, 0.8, 0.65, 0.5)
