"""Sampled noisy SGD accounting: composition with amplification (dp-accounting), checked
against exact computations done here independently (numerical integration of the
mixture densities, closed-form Gaussian DP at q = 1).

PLD discretisation in these tests: 1e-3 (the package default) or coarser where noted; the
library's discretisation is pessimistic, so a coarse grid can only raise epsilon, and the
tolerances below allow for exactly that one-sided error.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

pytest.importorskip("dp_accounting")

import itertools

from skdpgd.accounting import (
    calibrate_poisson_sgd,
    composition_gdp,
    gdp_to_epsilon,
    poisson_sgd_epsilon,
)

DELTA = 1e-5


# ---- independent references ---------------------------------------------------------------


def mixture_delta_1d(epsilon, q, shift_minus, shift_plus, sd):
    """delta(eps) = int max(0, p - e^eps p') dx, exactly, for the 1-D mixtures
    p = (1-q) N(0, sd^2) + q N(shift_minus, sd^2), p' = (1-q) N(0, sd^2) + q N(shift_plus, sd^2).

    The set {p > e^eps p'} is a union of intervals whose ends are the roots of
    log p - log p' - eps (bracketed on a fine grid, refined by brentq); on each interval the
    integral is a difference of normal CDFs, so no quadrature error enters.
    """

    def log_p(x, shift):
        return np.logaddexp(
            math.log1p(-q) + stats.norm.logpdf(x, 0, sd),
            math.log(q) + stats.norm.logpdf(x, shift, sd),
        )

    def gap(x):
        return log_p(x, shift_minus) - log_p(x, shift_plus) - epsilon

    grid = np.linspace(-30 * sd, 30 * sd, 20_001)
    signs = gap(grid) > 0
    cuts = [-np.inf]
    for i in np.flatnonzero(signs[1:] != signs[:-1]):
        cuts.append(optimize.brentq(gap, grid[i], grid[i + 1], xtol=1e-14))
    cuts.append(np.inf)

    def mass(lo, hi, shift):
        return (1 - q) * (stats.norm.cdf(hi, 0, sd) - stats.norm.cdf(lo, 0, sd)) + q * (
            stats.norm.cdf(hi, shift, sd) - stats.norm.cdf(lo, shift, sd)
        )

    total = 0.0
    for lo, hi in itertools.pairwise(cuts):
        if np.isfinite(lo) and np.isfinite(hi):
            middle = 0.5 * (lo + hi)
        elif np.isfinite(hi) or np.isfinite(lo):
            middle = hi - 1.0 if np.isfinite(hi) else lo + 1.0
        else:
            middle = 0.0
        if gap(middle) > 0:
            total += mass(lo, hi, shift_minus) - math.exp(epsilon) * mass(lo, hi, shift_plus)
    return total


def mixture_delta_2d(epsilon, q, g, g_prime, sd, n_grid=801):
    """The same hockey-stick divergence for centres 0, g, g' in the plane (2-D grid sum)."""
    span = max(np.abs(g).max(), np.abs(g_prime).max()) + 9 * sd
    axis = np.linspace(-span, span, n_grid)
    x, y = np.meshgrid(axis, axis, indexing="ij")

    def density(centre):
        return np.exp(-((x - centre[0]) ** 2 + (y - centre[1]) ** 2) / (2 * sd * sd)) / (
            2 * math.pi * sd * sd
        )

    base = (1 - q) * density((0.0, 0.0))
    p, p_prime = base + q * density(g), base + q * density(g_prime)
    return float(np.maximum(0.0, p - math.exp(epsilon) * p_prime).sum() * (axis[1] - axis[0]) ** 2)


# ---- Poisson, K = 1: PLD against direct integration ----------------------------------------


@pytest.mark.parametrize("q, z", [(0.01, 0.8), (0.1, 2.0), (0.5, 5.0)])
def test_one_step_matches_integrated_mixture(q, z):
    # One step, L = 1, b = 1, sigma = z: the pair q N(-1, z^2) + (1-q) N(0, z^2) vs
    # q N(1, z^2) + (1-q) N(0, z^2). The exact epsilon at DELTA is found by root-finding
    # on the integrated hockey-stick divergence.
    n = round(1 / q)
    eps_pld = poisson_sgd_epsilon(z, 1, delta=DELTA, batch_size=1, n_samples=n, gradient_bound=1.0)
    # the PLD's epsilon is an upper bound: its exact delta is at most the target
    assert mixture_delta_1d(eps_pld, 1 / n, -1.0, 1.0, z) <= DELTA * (1 + 1e-6)
    eps_exact = optimize.brentq(
        lambda e: mixture_delta_1d(e, 1 / n, -1.0, 1.0, z) - DELTA, 1e-6, 50, xtol=1e-10
    )
    # ... and a tight one: discretisation 1e-3 costs at most a few grid steps in epsilon
    assert eps_exact <= eps_pld <= eps_exact + 5e-3


def test_antipodal_pair_dominates_other_replacements():
    # dp-accounting's REPLACE_ONE pair assumes the replaced gradient g and its replacement g'
    # are opposite vectors of norm L. Our per-example gradients lie anywhere in the ball of
    # radius L; check numerically (2-D integration, centres span a plane) that other
    # configurations are no worse at several epsilon. Grid sum error ~1e-7 (absolute), far
    # below the margins observed (> 1e-3 relative to the antipodal delta).
    q, sd = 0.2, 1.0
    for epsilon in (0.1, 0.5, 1.5):
        antipodal = mixture_delta_1d(epsilon, q, -1.0, 1.0, sd)
        for g, g_prime in [
            ((1.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (1.0, 0.0)),
            ((1.0, 0.0), (0.0, 1.0)),
            ((1.0, 0.0), (-0.5, 0.5)),
            ((0.3, 0.0), (-1.0, 0.0)),
            ((0.8, 0.6), (-0.6, -0.8)),
        ]:
            other = mixture_delta_2d(epsilon, q, np.array(g), np.array(g_prime), sd)
            assert other <= antipodal + 1e-6, (epsilon, g, g_prime, other, antipodal)


# ---- Poisson: limits, monotonicity, calibration ----------------------------------------------


@pytest.mark.parametrize("n_steps, sigma", [(1, 0.05), (20, 0.02), (200, 0.01)])
def test_full_sampling_is_exactly_gaussian_composition(n_steps, sigma):
    # q = 1 (b = n): every step is the Gaussian mechanism with replace-one shift S = 2L on the
    # sum, i.e. the existing composition bound (E) in Gaussian DP, which is exact.
    n, lip = 500, 1.0
    exact = gdp_to_epsilon(composition_gdp(sigma, n_steps, sensitivity=2 * lip, n_samples=n), DELTA)
    pld = poisson_sgd_epsilon(
        sigma, n_steps, delta=DELTA, batch_size=n, n_samples=n, gradient_bound=lip
    )
    # pessimistic discretisation: never below the exact value, above by < 1%
    assert exact <= pld <= exact * 1.01 + 1e-3


def test_monotone_in_noise_steps_and_rate():
    base = dict(delta=DELTA, n_samples=10_000, gradient_bound=1.0, discretization=1e-2)
    sigmas = [0.002, 0.004, 0.008]
    eps_sigma = [poisson_sgd_epsilon(s, 100, batch_size=100, **base) for s in sigmas]
    assert eps_sigma[0] > eps_sigma[1] > eps_sigma[2]
    eps_steps = [poisson_sgd_epsilon(0.004, k, batch_size=100, **base) for k in (10, 100, 1000)]
    assert eps_steps[0] < eps_steps[1] < eps_steps[2]
    # fixed noise multiplier z = sigma b / L = 0.4... vary q at fixed z: larger q, larger eps
    eps_rate = [poisson_sgd_epsilon(4.0 / b, 100, batch_size=b, **base) for b in (10, 100, 1000)]
    assert eps_rate[0] < eps_rate[1] < eps_rate[2]


def test_degenerate_runs():
    common = dict(delta=DELTA, batch_size=10, n_samples=100, gradient_bound=1.0)
    assert poisson_sgd_epsilon(0.1, 0, **common) == 0.0
    assert poisson_sgd_epsilon(0.0, 5, **common) == math.inf
    assert poisson_sgd_epsilon(math.inf, 5, **common) == 0.0
    with pytest.raises(ValueError, match="batch_size"):
        poisson_sgd_epsilon(0.1, 5, delta=DELTA, batch_size=200, n_samples=100, gradient_bound=1.0)
    with pytest.raises(ValueError, match="delta"):
        poisson_sgd_epsilon(0.1, 5, delta=1.5, batch_size=10, n_samples=100, gradient_bound=1.0)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_calibration_is_conservative_and_tight(epsilon):
    run = dict(n_steps=300, batch_size=50, n_samples=5_000, gradient_bound=1.3)
    sigma = calibrate_poisson_sgd(epsilon, DELTA, **run, discretization=1e-2)

    def eps_of(s):
        return poisson_sgd_epsilon(
            s, run["n_steps"], delta=DELTA, batch_size=50, n_samples=5_000, gradient_bound=1.3,
            discretization=1e-2,
        )

    assert eps_of(sigma) <= epsilon
    # default rtol 2e-3 on z: one step less noise must break the target
    assert eps_of(sigma / 1.002) > epsilon * (1 - 1e-2)
    assert calibrate_poisson_sgd(math.inf, DELTA, **run) == 0.0


def test_composed_replace_one_epsilon_reduces_to_its_parts():
    from skdpgd.accounting import composed_replace_one_epsilon, gdp_to_epsilon, poisson_sgd_epsilon

    # One Poisson run alone is poisson_sgd_epsilon (same events, same accountant).
    sigma, b, n, lip, k = 0.05, 300, 30_000, 1.3, 200
    run = (b / n, sigma * b / lip, k)
    alone = poisson_sgd_epsilon(sigma, k, delta=1e-5, batch_size=b, n_samples=n,
                                gradient_bound=lip)
    assert composed_replace_one_epsilon(1e-5, poisson_runs=(run,)) == pytest.approx(alone, rel=1e-12)
    # The Gaussian part alone is mu-GDP: the exact conversion, to the PLD's grid (1e-3).
    for mu in (0.1, 0.5, 2.0):
        assert composed_replace_one_epsilon(1e-5, gaussian_mu=mu) == pytest.approx(
            gdp_to_epsilon(mu, 1e-5), abs=2e-3)
    # Composition costs more than each part; nothing costs nothing; mu = inf is inf.
    both = composed_replace_one_epsilon(1e-5, gaussian_mu=0.5, poisson_runs=(run,))
    assert both > max(alone, gdp_to_epsilon(0.5, 1e-5))
    assert composed_replace_one_epsilon(1e-5) == 0.0
    assert composed_replace_one_epsilon(1e-5, gaussian_mu=np.inf) == np.inf
