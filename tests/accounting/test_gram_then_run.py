"""The charge of a Gram release and a run chosen on it, and the calibration that meets it
(skdpgd/accounting/_gram_then_run.py)."""

import math

import numpy as np
import pytest

from skdpgd.accounting import (
    calibrate_run_after_gram,
    epsilon_delta_to_gdp,
    gdp_to_epsilon,
    gram_then_run_mu,
)

DELTA = 1e-6


def test_the_charge_is_the_composition_of_the_two_releases():
    # Dong, Roth, Su (2022), Corollary 3.3: sqrt(mu_G^2 + mu_run^2), mu_G = S_G / (n tau)
    for tau, s_g, n, run_mu in [(1e-3, 2.0, 5000, 0.4), (0.2, 1.5, 100, 0.0),
                                (3e-5, math.sqrt(2), 10**6, 1.7)]:
        expected = math.hypot(s_g / (n * tau), run_mu)
        assert gram_then_run_mu(tau, s_g, n, run_mu) == pytest.approx(expected, rel=1e-15)
    assert gram_then_run_mu(0.0, 1.0, 10, 0.5) == math.inf  # an exact Gram


def _run_at_the_budget(seed):
    """(tau, S_G, n, epsilon, m): a run of mu m / f planned for sqrt(mu*^2 - mu_G^2)
    exactly, whose composition at f = 1 a rounding puts above mu* (searched)."""
    rng = np.random.default_rng(seed)
    while True:
        epsilon, n, s_g = float(rng.uniform(0.1, 4)), int(rng.integers(1000, 10**6)), 1.5
        target = epsilon_delta_to_gdp(epsilon, DELTA)
        gram_mu = target * float(rng.uniform(0.1, 0.6))
        tau = s_g / (n * gram_mu)
        m = math.sqrt(target * target - (s_g / (n * tau)) ** 2)
        if gram_then_run_mu(tau, s_g, n, m) > target:
            return tau, s_g, n, epsilon, m


@pytest.mark.parametrize("seed", range(5))
def test_a_run_at_the_budget_gets_the_first_factor_that_meets_it(seed):
    tau, s_g, n, epsilon, m = _run_at_the_budget(seed)
    target = epsilon_delta_to_gdp(epsilon, DELTA)
    scale = calibrate_run_after_gram(lambda f: m / f, gram_noise_std=tau,
                                     gram_sensitivity=s_g, n_samples=n, epsilon=epsilon,
                                     delta=DELTA)

    def meets(f):
        mu = gram_then_run_mu(tau, s_g, n, m / f)
        return mu <= target and gdp_to_epsilon(mu, DELTA) <= epsilon

    assert 1.0 < scale <= 1.0 + 1e-10  # a few ulps of noise, no more
    assert meets(scale) and not meets(scale / (1.0 + 1e-12))


def test_a_run_within_the_budget_is_left_as_it_is():
    epsilon, n, s_g, tau = 1.0, 20_000, 1.5, 7.5e-4  # mu_G = 0.1
    target = epsilon_delta_to_gdp(epsilon, DELTA)
    room = math.sqrt(target**2 - (s_g / (n * tau)) ** 2) * (1.0 - 1e-9)
    calls = []

    def run_mu(f):
        calls.append(f)
        return room / f

    assert calibrate_run_after_gram(run_mu, gram_noise_std=tau, gram_sensitivity=s_g,
                                    n_samples=n, epsilon=epsilon, delta=DELTA) == 1.0
    assert calls[0] == 1.0


def test_a_run_beyond_the_budget_is_refused():
    with pytest.raises(RuntimeError, match="did not converge"):
        calibrate_run_after_gram(lambda f: 5.0 / f, gram_noise_std=1e-3,
                                 gram_sensitivity=1.5, n_samples=10_000, epsilon=1.0,
                                 delta=DELTA)


def test_bad_arguments_are_refused_with_their_name():
    with pytest.raises(ValueError, match="gram_sensitivity must be > 0"):
        gram_then_run_mu(1e-3, 0.0, 100, 0.5)
    with pytest.raises(ValueError, match="run_mu must be >= 0"):
        gram_then_run_mu(1e-3, 1.5, 100, -0.5)
    with pytest.raises(ValueError, match="n_samples"):
        gram_then_run_mu(1e-3, 1.5, 0, 0.5)
    with pytest.raises(ValueError, match="gram_noise_std must be > 0"):  # exact: no target
        calibrate_run_after_gram(lambda f: 0.1 / f, gram_noise_std=0.0,
                                 gram_sensitivity=1.5, n_samples=100, epsilon=1.0,
                                 delta=DELTA)
