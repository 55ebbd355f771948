"""The gradient's reserve goes to a second Hessian release where the first shows rho > 1/2:
same mu either way, and the averaged Hessian has the noise of one release at the summed mu^2."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from skdpgd import DPRidge
from skdpgd.inference import adaptive_release


def _report(tau=0.1, tau_2=0.2, sigma=0.05, sigma_0=0.08, reserve_mu=0.5):
    return SimpleNamespace(hessian_noise_std=tau, score_noise_std=0.0, gradient_noise_std=sigma,
                           reserve_hessian_noise_std=tau_2, reserve_gradient_noise_std=sigma_0,
                           reserve_mu=reserve_mu)


def _exact(curvature, p=4):
    return np.zeros(p), curvature * np.eye(p), np.eye(p)


def test_a_flat_release_takes_the_reserve_and_averages_both_hessians():
    """Exact curvature 0: M_1's smallest eigenvalue is below 2 f_1 = 4 tau sqrt(p) in every
    draw (it is at most the smallest diagonal entry, about tau), so the reserve is spent; the
    averaged noise has variance tau^2 tau_2^2 / (tau^2 + tau_2^2) per upper entry (checked on
    4,000 draws: relative standard error of a variance estimate sqrt(2/(6 * 4000)) = .009,
    tolerance 5%), and the gradient's noise is the reserve's sigma."""
    rng = np.random.default_rng(0)
    noise, grads = [], []
    for _ in range(4000):
        gradient, hessian, _, sigma, tau, second = adaptive_release(_exact(0.0), _report(), rng)
        assert second and sigma == 0.08
        noise.append(hessian[np.triu_indices(4, 1)])
        grads.append(gradient)
    expected = 0.1 * 0.2 / math.sqrt(0.1**2 + 0.2**2)
    assert tau == pytest.approx(expected)
    assert np.var(noise) == pytest.approx(expected**2, rel=0.05)
    assert np.std(grads) == pytest.approx(0.08, rel=0.05)


def test_a_curved_release_keeps_the_reserve_for_the_gradient():
    """Exact curvature 10 >> 2 f_1 = 0.8: never a second Hessian; the gradient gets the
    whole share (sigma), the Hessian its own tau."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        _, _, _, sigma, tau, second = adaptive_release(_exact(10.0), _report(), rng)
        assert not second and sigma == 0.05 and tau == 0.1


def test_no_reserve_no_second_release():
    rng = np.random.default_rng(2)
    *_, second = adaptive_release(_exact(0.0), _report(reserve_mu=0.0), rng)
    assert not second


def test_both_paths_spend_the_gradients_mu():
    """mu_r^2 + mu_g0^2 = mu_g^2 from the noise the report plans (S / (n * noise)), and the
    fit's mu is the composition of the run with the gradient's, Hessian's and score's mu
    (the reserve adds nothing to it)."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (2000, 3)) / math.sqrt(3)
    y = X.sum(axis=1) + 0.2 * rng.standard_normal(2000)
    est = DPRidge(epsilon=1.0, y_bound=3.0, inference=True, random_state=0).fit(X, y)
    report = est.privacy_
    n = report.n_samples
    mu_r = report.hessian_sensitivity / (n * report.reserve_hessian_noise_std)
    mu_g0 = report.gradient_sensitivity / (n * report.reserve_gradient_noise_std)
    mu_g = report.gradient_sensitivity / (n * report.gradient_noise_std)
    assert mu_r == pytest.approx(report.reserve_mu, rel=1e-12)
    assert mu_r**2 + mu_g0**2 == pytest.approx(mu_g**2, rel=1e-12)
    total = math.sqrt(report.run.mu**2 + report.gradient_mu**2 + report.hessian_mu**2
                      + report.score_mu**2)
    assert report.mu == pytest.approx(total, rel=1e-9)
    assert report.mu <= report.run.mu / math.sqrt(report.inference_shares[0]) * (1 + 1e-9)
