"""Renyi-DP accountants: Chourasia et al.'s bound (D), conversions and composition (E).

The exact Renyi divergence of order alpha between N(m1, C) and N(m2, C) is alpha * mu^2 / 2 with
mu the Mahalanobis distance of the means; mu comes from the step-by-step Gaussian recursion of
``_exact_reference`` (no closed form of any bound).  Formula checks compare against the formulas
of docs/theory.md written out in 50-digit mpmath (``*_hand``), to 1e-12 relative (float64 evaluation
of a handful of operations).
"""

import math

import numpy as np
import pytest
from _exact_reference import (
    chourasia_hand,
    cks_eps,
    exact_mu,
    mironov_eps,
    mp_delta,
    replace_one,
)

from skdpgd.accounting import (
    chourasia_rdp,
    composition_gdp,
    composition_rdp,
    gdp_to_rdp,
    noisy_gd_gdp,
    rdp_to_epsilon,
)
from skdpgd.exceptions import BoundNotApplicableError

ORDERS = np.array([1.01, 1.5, 2.0, 3.0, 8.0, 32.0, 256.0])
STEPS = [1, 2, 5, 30, 300]


def _chourasia(alpha, sigma, K, S, n, eta, lam, beta):
    return np.asarray(
        chourasia_rdp(
            alpha,
            sigma,
            K,
            sensitivity=S,
            n_samples=n,
            learning_rate=eta,
            strong_convexity=lam,
            smoothness=beta,
        ),
        dtype=float,
    )


def _gd(sigma, K, S, n, eta, lam, beta):
    return float(
        noisy_gd_gdp(
            sigma, K, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam, smoothness=beta
        )
    )


@pytest.mark.parametrize("lam, beta", [(0.5, 2.0), (1.0, 1.0), (0.05, 4.0)])
def test_exact_renyi_divergence_never_exceeds_chourasia(lam, beta):
    # Quadratic instance with Hessian diag(lam, beta) started at th_0 = 0 (Chourasia et al. start
    # from a Gaussian, which only adds variance: th_0 = 0 is the harder case for the bound).
    S, n = 1.0, 10
    H = np.diag([lam, beta])
    rng = np.random.default_rng(5)
    X = rng.normal(size=(n, 2))
    etas = np.array([0.01, 0.3, 0.7, 0.999]) / beta  # eta < 1/beta, where (D) is proved
    sigmas = np.full_like(etas, 0.8)
    for direction in ([1.0, 0.0], [0.0, 1.0], [0.6, 0.8]):
        Xp = replace_one(X, 3, S * np.asarray(direction), H)
        exact = exact_mu(X, Xp, H, etas, sigmas, max(STEPS), record_at=STEPS)
        for K in STEPS:
            for eta, sigma, mu in zip(etas, sigmas, exact[K], strict=True):
                exact_rdp = ORDERS * mu**2 / 2
                bound = _chourasia(ORDERS, sigma, K, S, n, eta, lam, beta)
                assert bound.shape == ORDERS.shape
                assert np.all(exact_rdp <= bound * (1 + 1e-12)), (direction, K, eta)


@pytest.mark.parametrize("lam, beta", [(0.5, 2.0), (1.0, 1.0), (0.05, 4.0), (3.0, 3.0001)])
def test_bound_a_in_rdp_is_at_most_064_of_chourasia(lam, beta):
    # docs/theory.md#bound-d: (A) implies alpha mu^2/2-RDP; on the quadratic instance that is at most
    # lam eta / (4 (1 - exp(-lam eta/2))) <= 0.6354 of (D) (worst at K = 1, lam eta -> 1).
    S, n, sigma = 2.0, 100, 0.05
    for eta_frac in (1e-4, 0.1, 0.5, 0.9, 0.999999):
        eta = eta_frac / beta
        for K in (1, 2, 3, 10, 100, 10_000):
            mu = _gd(sigma, K, S, n, eta, lam, beta)
            ratio = np.asarray(gdp_to_rdp(ORDERS, mu)) / _chourasia(ORDERS, sigma, K, S, n, eta, lam, beta)
            assert np.all(ratio <= 0.64), (eta, K, ratio)
            if K == 1:
                x = lam * eta
                expected = x / (4 * (-math.expm1(-x / 2)))
                np.testing.assert_allclose(ratio, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "sigma, K, S, n, eta, lam, beta",
    [
        (1.0, 1, 1.0, 1, 0.1, 1.0, 2.0),
        (0.37, 1000, 2.5, 1234, 0.33, 0.01, 3.0),
        (5.0, 7, 0.2, 10, 1e-3, 10.0, 900.0),
        (0.01, 10**7, 1.0, 50_000, 0.5, 0.2, 1.9),
    ],
)
def test_chourasia_matches_hand_formula(sigma, K, S, n, eta, lam, beta):
    got = _chourasia(ORDERS, sigma, K, S, n, eta, lam, beta)
    expected = [chourasia_hand(a, sigma, K, S, n, eta, lam) for a in ORDERS]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("eta_times_beta", [1.0, 1.0 + 1e-12, 1.5, 1.99])
def test_chourasia_not_applicable_for_large_steps(eta_times_beta):
    lam, beta = 0.5, 2.0
    assert issubclass(BoundNotApplicableError, ValueError)
    with pytest.raises(BoundNotApplicableError):
        _chourasia(ORDERS, 1.0, 10, 1.0, 100, eta_times_beta / beta, lam, beta)


def test_chourasia_not_applicable_at_default_step():
    lam, beta = 0.5, 2.0
    with pytest.raises(BoundNotApplicableError):
        _chourasia(ORDERS, 1.0, 10, 1.0, 100, 2 / (lam + beta), lam, beta)


def test_gdp_to_rdp_formula():
    for mu in (1e-4, 0.3, 1.0, 7.5, 50.0):
        np.testing.assert_allclose(gdp_to_rdp(ORDERS, mu), ORDERS * mu**2 / 2, rtol=1e-14)
    # a scalar order gives one value (shape () or (1,) are both accepted)
    np.testing.assert_allclose(np.ravel(gdp_to_rdp(2.0, 3.0)), [9.0], rtol=1e-15)


@pytest.mark.parametrize("sigma, K, S, n", [(1.0, 1, 1.0, 1), (0.3, 50, 2.0, 1000), (12.0, 10**6, 0.7, 7)])
def test_composition_rdp(sigma, K, S, n):
    got = np.asarray(composition_rdp(ORDERS, sigma, K, sensitivity=S, n_samples=n))
    np.testing.assert_allclose(got, K * ORDERS * (S / n) ** 2 / (2 * sigma**2), rtol=1e-13)
    # equals the RDP implied by the GDP composition sqrt(K) S/(n sigma)
    mu = math.sqrt(K) * S / (n * sigma)
    np.testing.assert_allclose(got, ORDERS * mu**2 / 2, rtol=1e-13)
    mu_impl = float(composition_gdp(sigma, K, sensitivity=S, n_samples=n))
    np.testing.assert_allclose(got, np.asarray(gdp_to_rdp(ORDERS, mu_impl)), rtol=1e-13)


# ---------------------------------------------------------------------------------------------
# RDP -> (eps, delta)
# ---------------------------------------------------------------------------------------------

GRID_ORDERS = np.concatenate([1 + np.geomspace(1e-3, 1, 20), np.geomspace(2.05, 1024, 60)])


@pytest.mark.parametrize("mu", [0.01, 0.2, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3, 0.1])
def test_rdp_to_epsilon_hand_formula_and_mironov(mu, delta):
    rdp = GRID_ORDERS * mu**2 / 2
    got = rdp_to_epsilon(GRID_ORDERS, rdp, delta)
    mironov = mironov_eps(GRID_ORDERS, rdp, delta)
    expected = max(0.0, min(cks_eps(GRID_ORDERS, rdp, delta), mironov))
    assert got <= mironov * (1 + 1e-12)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert got >= 0.0


@pytest.mark.parametrize("mu", [0.05, 0.5, 1.0, 4.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_rdp_to_epsilon_is_sound_for_the_gaussian_mechanism(mu, delta):
    # A mu-GDP mechanism is (alpha, alpha mu^2/2)-RDP. Any valid RDP -> (eps, delta) conversion must
    # give an eps that mu-GDP really satisfies: delta(eps; mu) <= delta, checked in 60-digit mpmath.
    eps = rdp_to_epsilon(GRID_ORDERS, GRID_ORDERS * mu**2 / 2, delta)
    assert mp_delta(mu, eps) <= delta


def test_rdp_to_epsilon_clipped_at_zero():
    # tiny divergence and a large delta: the CKS expression is negative, the epsilon is 0
    orders = np.array([1.5, 2.0, 4.0])
    rdp = np.full(3, 1e-6)
    assert cks_eps(orders, rdp, 0.5) < 0
    assert rdp_to_epsilon(orders, rdp, 0.5) == 0.0


def test_rdp_to_epsilon_single_order_by_hand():
    alpha, r, delta = 3.0, 0.4, 1e-5
    cks = r + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
    assert rdp_to_epsilon(np.array([alpha]), np.array([r]), delta) == pytest.approx(cks, rel=1e-13)


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-3, 1.5])
def test_rdp_to_epsilon_rejects_bad_delta(delta):
    with pytest.raises(ValueError):
        rdp_to_epsilon(ORDERS, ORDERS * 0.1, delta)


def test_chourasia_and_composition_reject_bad_parameters():
    with pytest.raises(ValueError):
        _chourasia(ORDERS, -1.0, 10, 1.0, 100, 0.1, 0.5, 2.0)
    with pytest.raises(ValueError):
        _chourasia(ORDERS, 1.0, 10, 1.0, 0, 0.1, 0.5, 2.0)
    with pytest.raises(ValueError):
        composition_rdp(ORDERS, -1.0, 10, sensitivity=1.0, n_samples=10)
    with pytest.raises(ValueError):
        composition_rdp(ORDERS, 1.0, 10, sensitivity=1.0, n_samples=0)
