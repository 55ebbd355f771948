r"""Ryffel, Bach, Pointcheval (2022), Theorem 3.2 does not hold as stated: an exact counterexample.

Seed ``003``, Theorem 3.2 (DP-SGLD, Algorithm 1: a fresh batch of size m each step,
update :math:`\theta_{k+1} = \theta_k - \eta\nabla\mathcal L_{B_k}(\theta_k) + \sqrt{2\eta}\,
\mathcal N(0, \sigma^2)`, start :math:`\theta_0\sim\mathcal N(0, 2\sigma^2/\lambda)`,
:math:`\eta < 1/\beta`) claims, for every batch size m,

.. math::

    \varepsilon(\alpha) = \frac{4\alpha L^2}{\lambda n^2\sigma^2}\big(1 - e^{-\lambda\eta K/2}\big).

Instance (docs/theory.md#not-used): one dimension, :math:`\ell(\theta; x_i) = \frac\lambda2\theta^2
+ g_i\theta` with :math:`|g_i| \le L` (lam-strongly convex, lam-smooth, gradients of two
records differ by at most 2L at every theta, which is the only way L enters the proof:
Lemma 3.2's gradient sensitivity S_g), batch size m = 1. Data set D: g_i = +L for
i != i0 and g_{i0} = -L; neighbour D': g_{i0} = +L. Under D' every step uses +L, so
:math:`\theta_K` is one Gaussian; under D it is a mixture of :math:`2^K` Gaussians with the same
variance, indexed by the steps at which i0 was drawn (probability 1/n each step).
Everything is exact: the Renyi divergence of the last iterate is computed by numerical
integration of the mixture densities in log space, and at alpha = 2 checked against the
closed form :math:`\int p^2/q = \sum_{ij} w_i w_j e^{(\mu_i-\nu)(\mu_j-\nu)/v}`.

Why the theorem fails: one step on a batch of size m moves by
:math:`\eta(g - g')/m`, so the per-step gradient sensitivity is 2L/m, not 2L/n (the
paper's tracing diffusion, its eq. (3), has the differing drift grad l(theta, x_i0)/m); the
n^2 of Theorem 3.2 is the full-batch value of Chourasia et al. carried over. See
``docs/sgd_bounds.md``.
"""

import itertools
import math

import numpy as np
from scipy import special

# A concrete instance: lam = 1, eta = 0.99 < 1/beta = 1, sigma = 1, L = 20, n = 100.
LAM, ETA, SIGMA, LIP, N = 1.0, 0.99, 1.0, 20.0, 100


def ryffel_theorem_3_2(alpha, n_steps):
    """The bound exactly as stated (Ryffel, Bach, Pointcheval 2022, Theorem 3.2 / Corollary 3.2)."""
    return 4 * alpha * LIP**2 / (LAM * N**2 * SIGMA**2) * (1 - math.exp(-LAM * ETA * n_steps / 2))


def last_iterate_laws(n_steps):
    """(weights, means) of theta_K under D, mean under D', and the common variance.

    theta_{k+1} = a theta_k - eta g_{i_k} + sqrt(2 eta) sigma Z_k with a = 1 - eta lam, so
    theta_K = a^K theta_0 - eta sum_k a^(K-1-k) g_{i_k} + Gaussian noise.
    """
    a = 1.0 - ETA * LAM
    variance = a ** (2 * n_steps) * 2 * SIGMA**2 / LAM + 2 * ETA * SIGMA**2 * sum(
        a ** (2 * j) for j in range(n_steps)
    )
    mean_neighbour = -ETA * LIP * sum(a**j for j in range(n_steps))
    weights, means = [], []
    for picked in itertools.product((False, True), repeat=n_steps):
        weight = math.prod(1 / N if hit else 1 - 1 / N for hit in picked)
        gradients = [-LIP if hit else LIP for hit in picked]
        means.append(-ETA * sum(a ** (n_steps - 1 - k) * g for k, g in enumerate(gradients)))
        weights.append(weight)
    return np.array(weights), np.array(means), mean_neighbour, variance


def renyi_by_integration(alpha, n_steps):
    """D_alpha(theta_K under D || under D') by a fine Riemann sum in log space."""
    weights, means, nu, v = last_iterate_laws(n_steps)
    sd = math.sqrt(v)
    grid = np.linspace(min(means.min(), nu) - 40 * sd, max(means.max(), nu) + 40 * sd, 100_001)
    log_norm = -0.5 * math.log(2 * math.pi * v)
    log_p = special.logsumexp(
        np.log(weights)[:, None] - (grid[None, :] - means[:, None]) ** 2 / (2 * v), axis=0
    ) + log_norm
    log_q = -(grid - nu) ** 2 / (2 * v) + log_norm
    log_step = math.log(grid[1] - grid[0])
    log_integral = special.logsumexp(alpha * log_p + (1 - alpha) * log_q) + log_step
    return log_integral / (alpha - 1)


def renyi_2_closed_form(n_steps):
    """D_2 = log sum_ij w_i w_j exp((mu_i - nu)(mu_j - nu) / v), Gaussian integrals."""
    weights, means, nu, v = last_iterate_laws(n_steps)
    shifted = means - nu
    exponents = np.log(weights)[:, None] + np.log(weights)[None, :] + np.outer(shifted, shifted) / v
    return float(special.logsumexp(exponents))


def test_integration_matches_closed_form():
    # Two independent computations of the same number; the Riemann sum of a Gaussian
    # integrand with step ~1e-3 sd is exact to ~1e-12 relative (spectral accuracy of
    # the trapezoid rule for smooth, rapidly decaying integrands).
    for k in (1, 2):
        assert math.isclose(renyi_by_integration(2.0, k), renyi_2_closed_form(k), rel_tol=1e-9)


def test_theorem_3_2_fails_at_one_step_alpha_2():
    exact, claimed = renyi_by_integration(2.0, 1), ryffel_theorem_3_2(2.0, 1)
    assert exact > claimed
    assert exact > 100 * claimed  # about 783 against 0.125


def test_theorem_3_2_fails_by_more_than_1000x_at_two_steps():
    for alpha in (2.0, 4.0, 1.5):
        exact, claimed = renyi_by_integration(alpha, 2), ryffel_theorem_3_2(alpha, 2)
        assert exact > 1000 * claimed, (alpha, exact, claimed)


def test_the_batch_size_bound_is_not_contradicted():
    # Sanity check of the instance: replacing n by the batch size m = 1 (per-step
    # sensitivity 2L/m) gives a bound the exact divergence does respect, so the failure
    # above is the n^2, not an error in the exact computation.
    for k in (1, 2):
        bound_m = ryffel_theorem_3_2(2.0, k) * N**2
        assert renyi_by_integration(2.0, k) <= bound_m
