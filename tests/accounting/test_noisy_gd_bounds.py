"""Bounds (A), (B), (C) and the composition baseline: formulas by hand and structural properties.

Expected values come from docs/theory.md#bounds written out in 50-digit mpmath
(``_exact_reference.bound_*_hand``); 1e-12 relative allows for the float64 evaluation of a few
dozen operations.  Exactness against the Gaussian instance is in ``test_exact_quadratic.py``.
"""

import math

import numpy as np
import pytest
from _exact_reference import bound_a_hand, bound_b_hand, bound_c_hand, contraction_hand

from skdpgd.accounting import (
    composition_gdp,
    contraction_factor,
    noisy_cyclic_gd_gdp,
    noisy_gd_convex_gdp,
    noisy_gd_gdp,
)

RTOL = 1e-12


def gd(sigma, K, S=1.0, n=100, eta=0.1, lam=0.5, beta=2.0):
    return noisy_gd_gdp(sigma, K, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam, smoothness=beta)


def convex(sigma, K, S=1.0, n=100, eta=0.1, D=3.0):
    return noisy_gd_convex_gdp(sigma, K, sensitivity=S, n_samples=n, learning_rate=eta, diameter=D)


def cyclic(sigma, E, b=10, S=1.0, n=100, eta=0.1, lam=0.5, beta=2.0):
    return noisy_cyclic_gd_gdp(
        sigma, E, batch_size=b, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam, smoothness=beta
    )


def comp(sigma, K, S=1.0, n=100):
    return composition_gdp(sigma, K, sensitivity=S, n_samples=n)


# ---------------------------------------------------------------------------------------------
# contraction factor and composition
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "eta, lam, beta",
    [(0.1, 0.5, 2.0), (0.8, 0.5, 2.0), (0.99, 0.01, 2.0), (1.0, 1.0, 1.0), (1e-6, 1e-3, 1e3), (0.4, 1.0, 4.0)],
)
def test_contraction_factor_formula(eta, lam, beta):
    assert contraction_factor(eta, lam, beta) == pytest.approx(contraction_hand(eta, lam, beta), rel=1e-15, abs=1e-16)


def test_contraction_factor_default_step_is_optimal():
    lam, beta = 0.3, 5.0
    c_opt = contraction_factor(2 / (beta + lam), lam, beta)
    assert c_opt == pytest.approx((beta - lam) / (beta + lam), rel=1e-14)
    for eta in np.linspace(0.01, 1.99 / beta, 50):
        assert contraction_factor(eta, lam, beta) >= c_opt * (1 - 1e-14)


@pytest.mark.parametrize("sigma, K, S, n", [(1.0, 1, 1.0, 1), (0.3, 50, 2.0, 1000), (12.0, 10**6, 0.7, 7)])
def test_composition_gdp_formula(sigma, K, S, n):
    assert float(comp(sigma, K, S, n)) == pytest.approx(math.sqrt(K) * S / (n * sigma), rel=1e-14)


# ---------------------------------------------------------------------------------------------
# (A) full-batch strongly convex
# ---------------------------------------------------------------------------------------------


def test_bound_a_matches_hand_formula_random_grid():
    rng = np.random.default_rng(11)
    for _ in range(300):
        lam = 10 ** rng.uniform(-3, 1)
        beta = lam * 10 ** rng.uniform(0, 3)
        eta = rng.uniform(1e-3, 1.999) / beta  # covers eta above 2/(beta+lam) too (c from beta)
        sigma = 10 ** rng.uniform(-2, 2)
        S = 10 ** rng.uniform(-2, 1)
        n = int(10 ** rng.uniform(0, 6))
        K = int(10 ** rng.uniform(0, 5))
        c = contraction_hand(eta, lam, beta)
        assert float(gd(sigma, K, S, n, eta, lam, beta)) == pytest.approx(
            bound_a_hand(sigma, K, S, n, c), rel=RTOL
        ), (sigma, K, S, n, eta, lam, beta)


@pytest.mark.parametrize("eta, lam, beta", [(0.1, 0.5, 2.0), (0.8, 0.5, 2.0), (0.999, 0.001, 1.0), (1.0, 1.0, 1.0)])
def test_bound_a_below_composition_equal_at_one_step_and_monotone(eta, lam, beta):
    sigma, S, n = 0.7, 1.3, 50
    steps = np.arange(1, 401)
    a = np.array([float(gd(sigma, int(K), S, n, eta, lam, beta)) for K in steps])
    baseline = np.array([float(comp(sigma, int(K), S, n)) for K in steps])
    assert a[0] == pytest.approx(S / (n * sigma), rel=1e-14)
    assert baseline[0] == pytest.approx(S / (n * sigma), rel=1e-14)
    assert np.all(a <= baseline * (1 + 1e-14))
    assert np.all(np.diff(a) >= 0), "bound (A) must be non-decreasing in the number of steps"


@pytest.mark.parametrize("eta, lam, beta", [(0.1, 0.5, 2.0), (0.8, 0.5, 2.0), (0.01, 0.1, 1.0), (1.0, 1.0, 1.0)])
def test_bound_a_saturates(eta, lam, beta):
    sigma, S, n = 0.2, 1.0, 1000
    c = contraction_hand(eta, lam, beta)
    limit = S / (n * sigma) * math.sqrt((1 + c) / (1 - c))
    big = float(gd(sigma, 10**9, S, n, eta, lam, beta))
    assert math.isfinite(big)
    assert big == pytest.approx(limit, rel=RTOL)
    assert float(gd(sigma, 10**18, S, n, eta, lam, beta)) == pytest.approx(limit, rel=RTOL)


def test_bound_a_is_zero_contraction_one_step_value():
    # lam = beta = m and eta = 1/m: c = 0, every step forgets the past, mu = S/(n sigma) for all K
    for K in (1, 2, 10, 10**6):
        assert float(gd(0.5, K, 1.0, 10, 0.25, 4.0, 4.0)) == pytest.approx(1.0 / (10 * 0.5), rel=1e-14)


def test_bound_a_linear_in_inverse_sigma_and_sensitivity_over_n():
    base = float(gd(1.0, 37, S=1.0, n=100))
    assert float(gd(2.0, 37, S=1.0, n=100)) == pytest.approx(base / 2, rel=1e-14)
    assert float(gd(1.0, 37, S=3.0, n=100)) == pytest.approx(3 * base, rel=1e-14)
    assert float(gd(1.0, 37, S=1.0, n=400)) == pytest.approx(base / 4, rel=1e-14)
    assert float(gd(0.25, 37, S=2.0, n=800)) == pytest.approx(base, rel=1e-14)


# ---------------------------------------------------------------------------------------------
# (B) full-batch convex on a domain of diameter D
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sigma, S, n, eta, D",
    # D n / (S eta) kept away from integers so that the ceiling is unambiguous in float64
    [(1.0, 1.0, 100, 0.13, 3.3), (0.05, 2.0, 10_000, 0.37, 1.0), (4.0, 0.3, 7, 1.1, 25.7), (0.5, 1.0, 1, 0.9, 0.01)],
)
def test_bound_b_matches_hand_formula_and_stays_below_composition(sigma, S, n, eta, D):
    assert abs(D * n / (S * eta) - round(D * n / (S * eta))) > 1e-6
    previous = 0.0
    for K in [1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**6, 10**9]:
        got = float(convex(sigma, K, S, n, eta, D))
        assert got == pytest.approx(bound_b_hand(sigma, K, S, n, eta, D), rel=RTOL), K
        assert got <= float(comp(sigma, K, S, n)) * (1 + 1e-14)
        assert got >= previous
        previous = got
    # saturation: for K -> infinity only the convergent term remains
    s_n = S / n
    limit = math.sqrt(3 * s_n * D / eta + s_n**2 * math.ceil(D * n / (S * eta))) / sigma
    assert float(convex(sigma, 10**12, S, n, eta, D)) == pytest.approx(limit, rel=RTOL)


def test_bound_b_one_step_equals_composition():
    # at K = 1 the composition term S/(n sigma) is the smaller one: 3 (S/n) D/eta + (S/n)^2 * ceil(...)
    # >= (S/n)^2 ceil(D n/(S eta)) >= (S/n)^2 once D n/(S eta) > 0.
    assert float(convex(0.3, 1, 1.0, 50, 0.2, 2.0)) == pytest.approx(1.0 / (50 * 0.3), rel=1e-14)


def test_bound_b_linear_in_inverse_sigma():
    base = float(convex(1.0, 10**6))
    assert float(convex(4.0, 10**6)) == pytest.approx(base / 4, rel=1e-14)


# ---------------------------------------------------------------------------------------------
# (C) cyclic mini-batches
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, b, b_min",
    [(100, 10, 10), (100, 7, 6), (10, 3, 2), (10, 4, 3), (7, 4, 3), (12, 5, 4), (1000, 1, 1), (50, 50, 50)],
)
def test_bound_c_one_epoch_is_one_gaussian_mechanism_on_smallest_batch(n, b, b_min):
    # l = ceil(n/b) batches of near-equal size; the smallest has n // l rows
    l = -(-n // b)
    assert n // l == b_min
    for eta in (0.01, 0.4, 0.9):
        assert float(cyclic(0.8, 1, b, 1.5, n, eta)) == pytest.approx(1.5 / (b_min * 0.8), rel=1e-14)


@pytest.mark.parametrize("n, b", [(100, 10), (100, 7), (10, 3), (1000, 1), (57, 8), (64, 64)])
def test_bound_c_matches_hand_formula(n, b):
    l = -(-n // b)
    b_min = n // l
    for lam, beta, eta in [(0.5, 2.0, 0.1), (0.5, 2.0, 0.8), (0.01, 1.0, 0.5), (1.0, 1.0, 1.0), (0.2, 3.0, 0.6)]:
        c = contraction_hand(eta, lam, beta)
        for E in (1, 2, 3, 10, 100, 10**5):
            for sigma, S in ((1.0, 1.0), (0.05, 3.0)):
                got = float(cyclic(sigma, E, b, S, n, eta, lam, beta))
                expected = bound_c_hand(sigma, E, b_min, S, l, c)
                if l == 1:  # one batch: full-batch GD with K = E, Theorem 4.2 applies too
                    expected = min(expected, bound_a_hand(sigma, E, S, n, c))
                assert got == pytest.approx(expected, rel=RTOL), (lam, beta, eta, E)


def test_bound_c_monotone_and_below_composition_per_epoch():
    # (C) <= sqrt(E) S/(b sigma), the composition of E Gaussian mechanisms of sensitivity S/b
    n, b, S, sigma = 60, 12, 1.0, 0.5
    vals = np.array([float(cyclic(sigma, E, b, S, n, 0.3)) for E in range(1, 200)])
    assert np.all(np.diff(vals) >= 0)
    assert np.all(vals <= np.sqrt(np.arange(1, 200)) * S / (b * sigma) * (1 + 1e-14))


def test_bound_c_linear_in_inverse_sigma_and_sensitivity():
    base = float(cyclic(1.0, 5, S=1.0))
    assert float(cyclic(2.0, 5, S=1.0)) == pytest.approx(base / 2, rel=1e-14)
    assert float(cyclic(1.0, 5, S=3.0)) == pytest.approx(3 * base, rel=1e-14)
    # scaling n and b together keeps l and multiplies b_min
    assert float(cyclic(1.0, 5, b=20, n=200)) == pytest.approx(base / 2, rel=1e-14)


# ---------------------------------------------------------------------------------------------
# parameter errors
# ---------------------------------------------------------------------------------------------

BAD_COMMON = [
    dict(sigma=-1.0),
    dict(n=0),
    dict(n=-5),
    dict(S=-1.0),
]


@pytest.mark.parametrize("bad", BAD_COMMON)
def test_parameter_errors(bad):
    sigma = bad.get("sigma", 1.0)
    n = bad.get("n", 100)
    S = bad.get("S", 1.0)
    with pytest.raises(ValueError):
        gd(sigma, 10, S, n)
    with pytest.raises(ValueError):
        convex(sigma, 10, S, n)
    with pytest.raises(ValueError):
        cyclic(sigma, 10, 10 if n >= 10 else 1, S, n)
    with pytest.raises(ValueError):
        comp(sigma, 10, S, n)


def test_zero_noise_is_never_reported_as_finite_privacy():
    # sigma = 0 releases the data: either refuse it or report mu = inf, never a finite number
    for fn in (lambda: gd(0.0, 10), lambda: convex(0.0, 10), lambda: cyclic(0.0, 10), lambda: comp(0.0, 10)):
        try:
            value = float(fn())
        except ValueError:
            continue
        assert value == math.inf


def test_a_run_that_releases_nothing_costs_nothing_even_with_infinitely_many_steps():
    # S = 0 or sigma = inf: each step is 0-GDP, so any number of them is; inf * 0 is no nan
    inf = math.inf
    for sigma, S in ((1.0, 0.0), (inf, 1.0)):
        assert comp(sigma, inf, S, 100) == 0.0
        assert convex(sigma, inf, S, 100) == 0.0
        assert gd(sigma, inf, S, 100, eta=3.0) == 0.0  # c >= 1: only composition applies
        assert cyclic(sigma, inf, 10, S, 100, eta=3.0) == 0.0


def test_nan_inputs_rejected():
    with pytest.raises(ValueError):
        gd(float("nan"), 10)
    with pytest.raises(ValueError):
        gd(1.0, 10, eta=float("nan"))


@pytest.mark.parametrize("gap", [1e-4, 1e-6, 1.8e-8, 1e-10])
@pytest.mark.parametrize("n, b", [(40000, 40000), (40000, 20000), (40000, 10000), (40000, 2500)])
def test_bound_c_is_accurate_where_the_contraction_nears_one(gap, n, b):
    # auto's gd and cyclic plans reach lam ~ 1e-8 beta: c = 1 - eta lam within 1e-8 of 1,
    # where 1 - c^2 computed as such lost 2.5e-10 of the factor (below the exact one: too
    # little noise calibrated). Against the hand formula in 50 digits, on the same float c.
    l = -(-n // b)
    b_min = n // l
    c = 1.0 - gap
    eta = 1.0
    lam, beta = gap, gap  # c = |1 - eta lam| = 1 - gap exactly in floats
    assert contraction_hand(eta, lam, beta) == c
    for E in (2, 50, 370, 1000, 10**5):
        got = float(cyclic(1.0, E, b, 1.0, n, eta, lam, beta))
        expected = bound_c_hand(1.0, E, b_min, 1.0, l, c)
        if l == 1:
            expected = min(expected, bound_a_hand(1.0, E, 1.0, n, c))
        assert got == pytest.approx(expected, rel=1e-13), (E, l)
