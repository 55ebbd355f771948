"""Closed-form GDP bounds (A) and (C) against the exact privacy of quadratic instances.

For quadratic per-example losses f_i(th) = 0.5 (th - x_i)^T H (th - x_i), every iterate of noisy
GD is Gaussian with a data-independent covariance, so the exact Gaussian-DP parameter of the last
iterate is the Mahalanobis distance between the means on neighbouring data sets (docs/theory.md#bound-a,
section 5).  The means and covariances are propagated step by step from the actual data sets in
``_exact_reference.gaussian_iterates``; no closed form of the bound is used to build the
reference.

Tolerances: the reference recursions run in float64 (or mpmath at 50 digits for
``scalar_recursion_mu``).  Their rounding (~K * 1e-16 over K <= 1000 steps, plus ~1e-16 / (S/m)
relative from writing the replaced row x_i' = x_i - shift in float64) stays below ~1e-11 on these
grids (worst seen 1e-12), so bound (A) must match them to 1e-10 relative (docs/theory.md#exactness-checks: "about 1e-10").  Upper-bound checks allow
1e-12 relative for the float rounding of both sides.
"""

import numpy as np
import pytest
from _exact_reference import (
    cyclic_partition,
    exact_mu,
    gaussian_iterates,
    replace_one,
    scalar_recursion_mu,
)

from skdpgd.accounting import noisy_cyclic_gd_gdp, noisy_gd_gdp

EXACT_RTOL = 1e-10
UPPER_SLACK = 1 + 1e-12
STEPS = [1, 2, 3, 10, 100, 1000]


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _gd_bound(sigma, K, S, n, eta, lam, beta):
    return float(
        noisy_gd_gdp(
            sigma,
            K,
            sensitivity=S,
            n_samples=n,
            learning_rate=eta,
            strong_convexity=lam,
            smoothness=beta,
        )
    )


def _cyclic_bound(sigma, E, b, S, n, eta, lam, beta):
    return float(
        noisy_cyclic_gd_gdp(
            sigma,
            E,
            batch_size=b,
            sensitivity=S,
            n_samples=n,
            learning_rate=eta,
            strong_convexity=lam,
            smoothness=beta,
        )
    )


# ---------------------------------------------------------------------------------------------
# Full batch, isotropic quadratic f_i = (m/2) ||th - x_i||^2: lam = beta = m, (A) is exact.
# ---------------------------------------------------------------------------------------------


def _check_isotropic(m, S, d, eta_fracs, sigmas, ns, seed):
    """Exact mu vs (A) over a grid; returns the worst relative error seen."""
    rng = np.random.default_rng(seed)
    H = m * np.eye(d)
    etas_1, sig_1 = np.meshgrid(np.asarray(eta_fracs) / m, sigmas, indexing="ij")
    etas_1, sig_1 = etas_1.ravel(), sig_1.ravel()
    worst = 0.0
    for n in ns:
        X = rng.normal(size=(n, d))
        index = int(rng.integers(n))
        # ||x_i - x_i'|| = S/m, i.e. the per-example gradients differ by a vector of norm S
        Xp = replace_one(X, index, S * _unit(rng.normal(size=d)), H)
        exact = exact_mu(X, Xp, H, etas_1, sig_1, max(STEPS), record_at=STEPS)
        for K in STEPS:
            for eta, sigma, mu in zip(etas_1, sig_1, exact[K], strict=True):
                got = _gd_bound(sigma, K, S, n, eta, m, m)
                assert got == pytest.approx(mu, rel=EXACT_RTOL), (m, S, n, K, eta, sigma)
                worst = max(worst, abs(got / mu - 1))
    return worst


def test_isotropic_full_batch_matches_exact_fast():
    # eta in (0, 2/(beta+lam)] = (0, 1/m]; eta = 1/m is c = 0 (one-step memory)
    _check_isotropic(
        m=1.0, S=1.0, d=2, eta_fracs=[1e-3, 0.1, 0.5, 1.0], sigmas=[0.3, 4.0], ns=[1, 10, 1000], seed=0
    )


@pytest.mark.slow
@pytest.mark.parametrize("m, S", [(0.05, 0.7), (1.0, 2.0), (9.0, 1e-3)])
def test_isotropic_full_batch_matches_exact_sweep(m, S):
    eta_fracs = np.concatenate([np.geomspace(1e-4, 1.0, 17), [0.999, 0.9999999]])
    _check_isotropic(
        m=m, S=S, d=3, eta_fracs=eta_fracs, sigmas=[1e-3, 0.2, 1.0, 30.0], ns=[1, 10, 1000], seed=1
    )


@pytest.mark.parametrize(
    "m, eta_frac, K, n, sigma",
    [(1.0, 1e-3, 1000, 10, 0.5), (2.0, 0.37, 100, 1, 3.0), (0.3, 0.999, 3, 1000, 0.01)],
)
def test_isotropic_full_batch_matches_mpmath_recursion(m, eta_frac, K, n, sigma):
    # 1-D scalar form of the same recursion in 50-digit arithmetic: d_{k+1} = a d_k + eta S/n,
    # v_{k+1} = a^2 v_k + eta^2 sigma^2 with a = 1 - eta m, no float rounding in the reference.
    S = 1.3
    eta = eta_frac / m
    mu = float(scalar_recursion_mu(1.0 - eta * m, [S / n] * K, eta, sigma))
    assert _gd_bound(sigma, K, S, n, eta, m, m) == pytest.approx(mu, rel=EXACT_RTOL)


# ---------------------------------------------------------------------------------------------
# Full batch, H = diag(lam, beta) with lam < beta.
# ---------------------------------------------------------------------------------------------


def _exact_2d(lam, beta, S, n, direction, etas, sigmas, steps, seed=0):
    rng = np.random.default_rng(seed)
    H = np.diag([lam, beta])
    X = rng.normal(size=(n, 2))
    Xp = replace_one(X, n - 1, S * _unit(direction), H)
    return exact_mu(X, Xp, H, np.asarray(etas, float), np.asarray(sigmas, float), max(steps), record_at=steps)


def _check_2d(lam, beta, eta_fracs_small, eta_fracs_large, ns, sigmas):
    """eta_fracs_small: eta = f * 2/(beta+lam) (c = 1 - eta lam, the lam direction is worst);
    eta_fracs_large: eta = 2/(beta+lam) + f * (2/beta - 2/(beta+lam)), f in (0, 1)."""
    S = 0.8
    small = [f * 2 / (beta + lam) for f in eta_fracs_small]
    large = [2 / (beta + lam) + f * (2 / beta - 2 / (beta + lam)) for f in eta_fracs_large]
    rng = np.random.default_rng(3)
    directions = {"lam": [1.0, 0.0], "beta": [0.0, 1.0]}
    for i in range(3):
        directions[f"random{i}"] = rng.normal(size=2)
    for n in ns:
        for label, direction in directions.items():
            for regime, etas in (("small", small), ("large", large)):
                grid_eta, grid_sig = np.meshgrid(etas, sigmas, indexing="ij")
                grid_eta, grid_sig = grid_eta.ravel(), grid_sig.ravel()
                exact = _exact_2d(lam, beta, S, n, direction, grid_eta, grid_sig, STEPS)
                for K in STEPS:
                    for eta, sigma, mu in zip(grid_eta, grid_sig, exact[K], strict=True):
                        bound = _gd_bound(sigma, K, S, n, eta, lam, beta)
                        where = (lam, beta, n, label, regime, K, eta, sigma)
                        if label == "lam" and regime == "small":
                            # shift along the lam-eigenvector with c = 1 - eta*lam: (A) is exact
                            assert bound == pytest.approx(mu, rel=EXACT_RTOL), where
                        else:
                            assert mu <= bound * UPPER_SLACK, where


def test_two_dimensional_full_batch_fast():
    _check_2d(
        lam=0.5, beta=2.0, eta_fracs_small=[0.01, 0.5, 1.0], eta_fracs_large=[0.3, 0.95], ns=[10], sigmas=[1.0]
    )


@pytest.mark.slow
@pytest.mark.parametrize("lam, beta", [(0.5, 2.0), (0.01, 3.0), (1.0, 1.001), (2.0, 50.0)])
def test_two_dimensional_full_batch_sweep(lam, beta):
    _check_2d(
        lam,
        beta,
        eta_fracs_small=[1e-3, 0.01, 0.1, 0.3, 0.5, 0.8, 0.99, 1.0],
        eta_fracs_large=[1e-3, 0.1, 0.5, 0.9, 0.999],
        ns=[1, 10, 1000],
        sigmas=[0.05, 1.0, 20.0],
    )


# ---------------------------------------------------------------------------------------------
# Cyclic mini-batches: exact mu for every position of the changed record <= (C).
# ---------------------------------------------------------------------------------------------


def _exact_cyclic_all_positions(H, n, b, E, eta, sigma, S, direction, seed=0, every_row=False):
    rng = np.random.default_rng(seed)
    batches = cyclic_partition(n, b)
    l = len(batches)
    X = rng.normal(size=(n, H.shape[0]))
    rows = range(n) if every_row else [int(bt[0]) for bt in batches]
    mus = []
    for i in rows:
        Xp = replace_one(X, i, S * _unit(direction), H)
        mus.append(exact_mu(X, Xp, H, [eta], [sigma], l * E, batches=batches)[l * E][0])
    return np.array(mus), batches


def _check_cyclic(H, lam, beta, cases, epochs, eta_list, sigma, directions, every_row=False):
    S = 1.1
    for n, b in cases:
        for E in epochs:
            for eta in eta_list:
                for direction in directions:
                    mus, batches = _exact_cyclic_all_positions(
                        H, n, b, E, eta, sigma, S, direction, every_row=every_row
                    )
                    assert min(len(bt) for bt in batches) == n // len(batches)
                    bound = _cyclic_bound(sigma, E, b, S, n, eta, lam, beta)
                    assert mus.max() <= bound * UPPER_SLACK, (n, b, E, eta, direction, mus.max(), bound)


CYCLIC_CASES_FAST = [(12, 3), (12, 4), (10, 3), (10, 4), (7, 4)]


def test_cyclic_isotropic_fast():
    m = 1.0
    _check_cyclic(
        np.eye(1) * m, m, m, CYCLIC_CASES_FAST, epochs=[1, 2, 5], eta_list=[0.05, 0.5, 1.0],
        sigma=0.7, directions=[[1.0]],
    )


def test_cyclic_two_dimensional_fast():
    lam, beta = 0.5, 2.0
    etas = [0.1 * 2 / (lam + beta), 2 / (lam + beta), 1.5 / beta]
    _check_cyclic(
        np.diag([lam, beta]), lam, beta, [(12, 4), (10, 3)], epochs=[1, 3], eta_list=etas,
        sigma=2.0, directions=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
    )


@pytest.mark.slow
def test_cyclic_sweep():
    cases = [(12, 3), (12, 4), (20, 5), (8, 8), (6, 1), (10, 3), (10, 4), (7, 4), (13, 5), (17, 6)]
    m = 0.8
    _check_cyclic(
        np.eye(1) * m, m, m, cases, epochs=[1, 2, 3, 10], eta_list=[1e-3, 0.05, 0.3, 0.7, 1 / m],
        sigma=0.3, directions=[[1.0]], every_row=True,
    )
    lam, beta = 0.2, 3.0
    etas = [f * 2 / (lam + beta) for f in (0.01, 0.3, 1.0)] + [1.2 / beta, 1.9 / beta]
    _check_cyclic(
        np.diag([lam, beta]), lam, beta, cases, epochs=[1, 2, 4], eta_list=etas, sigma=1.0,
        directions=[[1.0, 0.0], [0.0, 1.0], [0.3, -1.0]],
    )


@pytest.mark.parametrize("n, b", [(12, 3), (12, 4), (10, 4), (10, 3), (7, 4), (9, 2)])
@pytest.mark.parametrize("E", [1, 2, 7])
def test_cyclic_bound_is_exact_when_contraction_is_zero(n, b, E):
    # eta = 1/m makes every step forget the past (c = 0): th_K depends only on the last batch,
    # exact mu = S/(b_last sigma) for a record of the last batch.  array_split puts the smallest
    # batch last, so the worst position gives S/(b_min sigma) with b_min = n // l, which must be
    # what (C) reports (for l >= 2 the convergent factor is exactly 1 at c = 0).  Using the
    # nominal batch_size instead of b_min would understate the loss when b does not divide n.
    m, sigma, S = 2.0, 0.9, 1.7
    mus, batches = _exact_cyclic_all_positions(np.eye(1) * m, n, b, E, 1 / m, sigma, S, [1.0])
    b_min = n // len(batches)
    assert mus.max() == pytest.approx(S / (b_min * sigma), rel=1e-12)
    assert _cyclic_bound(sigma, E, b, S, n, 1 / m, m, m) == pytest.approx(mus.max(), rel=1e-12)


def test_isotropic_exact_in_scalar_mpmath_recursion_for_cyclic_last_batch():
    # Cross-check the vectorised reference itself: record in the last batch of l, E epochs,
    # written as the 1-D recursion with a gradient difference S/b at steps l-1, 2l-1, ...
    m, eta, sigma, S, n, b, E = 1.0, 0.3, 0.5, 1.0, 12, 4, 3
    batches = cyclic_partition(n, b)
    l = len(batches)
    grads = [(S / b if k % l == l - 1 else 0.0) for k in range(l * E)]
    ref = float(scalar_recursion_mu(1 - eta * m, grads, eta, sigma))
    mus, _ = _exact_cyclic_all_positions(np.eye(1) * m, n, b, E, eta, sigma, S, [1.0])
    assert mus[-1] == pytest.approx(ref, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Monte Carlo: the Gaussian recursion describes the actual noisy iteration.
# ---------------------------------------------------------------------------------------------


def test_monte_carlo_reproduces_exact_gaussian_law():
    m, eta, K, n, S, sigma = 1.0, 0.3, 20, 10, 1.0, 0.1
    N = 20_000
    rng = np.random.default_rng(20240607)
    x = rng.normal(size=(n, 1))
    H = np.eye(1) * m
    xp = replace_one(x, 0, np.array([S]), H)

    def simulate(data):
        th = np.zeros(N)
        xbar = data.mean()
        for _ in range(K):  # th_{k+1} = th_k - eta (grad F_D(th_k) + sigma Z_k)
            th = th - eta * (m * (th - xbar) + sigma * rng.standard_normal(N))
        return th

    th_d, th_dp = simulate(x), simulate(xp)
    exact = exact_mu(x, xp, H, [eta], [sigma], K)[K][0]

    # exact mean and std of th_K on D from the Gaussian recursion
    mean_d, cov = gaussian_iterates(x, H, [eta], [sigma], K)[K]
    std = np.sqrt(cov[0, 0, 0])
    # Standard errors of the estimators with N independent runs: mean: std/sqrt(N); sample std:
    # std/sqrt(2N) (Gaussian data).  5 standard errors: a failure by chance has probability
    # < 1e-6 and the seed is fixed anyway.
    assert abs(th_d.mean() - mean_d[0, 0]) < 5 * std / np.sqrt(N)
    assert abs(th_d.std(ddof=1) - std) < 5 * std / np.sqrt(2 * N)
    assert abs(th_dp.std(ddof=1) - std) < 5 * std / np.sqrt(2 * N)

    # mu_hat = (mean_D - mean_D') / pooled std.  Delta method: Var(mean diff / std) = 2/N (two
    # independent means, in std units) + mu^2 * Var(s_pooled)/std^2 = 2/N + mu^2/(4N).
    mu_hat = abs(th_d.mean() - th_dp.mean()) / np.sqrt(0.5 * (th_d.var(ddof=1) + th_dp.var(ddof=1)))
    se = np.sqrt(2 / N + exact**2 / (4 * N))
    assert abs(mu_hat - exact) < 5 * se
    assert abs(mu_hat - _gd_bound(sigma, K, S, n, eta, m, m)) < 5 * se
    assert exact == pytest.approx(_gd_bound(sigma, K, S, n, eta, m, m), rel=EXACT_RTOL)
