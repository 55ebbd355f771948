"""Gaussian DP <-> (eps, delta): exact values, inverses, conservativeness, monotonicity.

Reference: delta(eps; mu) = P[N(mu,1) in A] - e^eps P[N(0,1) in A], A = {likelihood ratio > e^eps},
evaluated in mpmath at 60 digits through the normal CDF (``mp_delta``) and, independently, as
the integral of a positive integrand over the privacy-loss tail (``mp_delta_quad``).  The two
references agree with each other to < 1e-20 (checked below), so 1e-8 relative against float64 is
a statement about the implementation only.  "Conservative" is checked in mpmath: the exact
delta of the returned pair must not exceed the target.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from _exact_reference import mp_delta, mp_delta_quad, mp_eps_delta_to_mu, mp_gdp_to_eps
from hypothesis import given, settings
from hypothesis import strategies as st

from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_delta, gdp_to_epsilon

DELTA_RTOL = 1e-8  # brief: gdp_to_delta against the exact value, relative
INVERSE_RTOL = 1e-6  # docs/theory.md#exactness-checks: round trips within 1e-6 relative
TINY = mp.mpf("1e-300")  # below this the float result may underflow; not compared

EPS_GRID = [1e-3, 3e-3, 0.01, 0.05, 0.1, 0.3, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
MU_GRID = [1e-4, 1e-3, 0.01, 0.1, 0.3, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
DELTA_GRID = [1e-12, 1e-10, 1e-8, 1e-6, 1e-5, 1e-3, 1e-2, 0.1, 0.3, 0.5]


def _near_underflow_points():
    # (mu, eps) with the exact delta around 1e-150 .. 1e-300: w = eps/mu - mu/2 = 26 .. 37
    pts = []
    for mu in (1e-4, 0.01, 0.1, 1.0):
        for w in (26.0, 30.0, 35.0, 36.5):
            eps = mu * (w + mu / 2)
            if 1e-3 <= eps <= 50:
                pts.append((mu, eps))
    return pts


def _grid_points():
    return [(mu, eps) for mu in MU_GRID for eps in EPS_GRID] + _near_underflow_points()


def _check_delta_against(points, reference):
    worst = 0.0
    compared = 0
    for mu, eps in points:
        exact = reference(mu, eps)
        got = float(gdp_to_delta(mu, eps))
        assert math.isfinite(got) and 0.0 <= got <= 1.0, (mu, eps, got)
        if exact < TINY:
            assert got <= 1e-290, (mu, eps, got)
            continue
        compared += 1
        rel = abs(got / float(exact) - 1) if exact > 0 else abs(got)
        assert got == pytest.approx(float(exact), rel=DELTA_RTOL), (mu, eps, got, float(exact))
        worst = max(worst, rel)
    return worst, compared


def test_gdp_to_delta_matches_closed_form_in_mpmath():
    _worst, compared = _check_delta_against(_grid_points(), mp_delta)
    assert compared > 60  # the grid really exercises the function


def test_gdp_to_delta_matches_integral_of_privacy_loss_tail():
    pts = [(mu, eps) for mu in (1e-4, 0.01, 0.3, 1.0, 5.0, 50.0) for eps in (1e-3, 0.1, 1.0, 10.0, 50.0)]
    pts += _near_underflow_points()[::3]
    _check_delta_against(pts, mp_delta_quad)


def test_references_agree():
    # the two independent references (CDF form at 60 digits, tail integral at 30 digits)
    for mu, eps in [(1e-4, 1e-3), (0.5, 10.0), (1.0, 1.0), (5.0, 50.0), (0.1, 3.5)]:
        a, b = mp_delta(mu, eps), mp_delta_quad(mu, eps)
        assert abs(a / b - 1) < mp.mpf("1e-20")


@pytest.mark.slow
def test_gdp_to_delta_dense_sweep():
    mus = np.geomspace(1e-4, 50, 41)
    epss = np.geomspace(1e-3, 50, 41)
    _check_delta_against([(float(m), float(e)) for m in mus for e in epss], mp_delta)


def test_gdp_to_delta_at_zero_epsilon_is_total_variation():
    # delta(0; mu) = TV(N(mu,1), N(0,1)) = 2 Phi(mu/2) - 1
    for mu in (1e-4, 0.5, 3.0):
        got = float(gdp_to_delta(mu, 0.0))
        assert got == pytest.approx(float(2 * mp.ncdf(mp.mpf(mu) / 2) - 1), rel=DELTA_RTOL)


# ---------------------------------------------------------------------------------------------
# Monotonicity and extremes
# ---------------------------------------------------------------------------------------------


def test_delta_decreasing_in_epsilon_and_increasing_in_mu():
    epss = np.geomspace(1e-3, 50, 400)
    for mu in (1e-4, 0.01, 0.5, 1.0, 4.0, 20.0, 50.0):
        d = np.array([float(gdp_to_delta(mu, e)) for e in epss])
        assert np.all(np.diff(d) <= 0), mu
    mus = np.geomspace(1e-4, 50, 400)
    for eps in (1e-3, 0.1, 1.0, 10.0, 50.0):
        d = np.array([float(gdp_to_delta(m, eps)) for m in mus])
        assert np.all(np.diff(d) >= 0), eps


def test_epsilon_delta_to_gdp_monotone():
    epss = np.geomspace(1e-3, 50, 60)
    for delta in (1e-12, 1e-6, 0.01, 0.5):
        mus = np.array([float(epsilon_delta_to_gdp(e, delta)) for e in epss])
        assert np.all(np.diff(mus) > 0), delta
    deltas = np.geomspace(1e-12, 0.5, 60)
    for eps in (1e-3, 1.0, 50.0):
        mus = np.array([float(epsilon_delta_to_gdp(eps, d)) for d in deltas])
        assert np.all(np.diff(mus) > 0), eps


def test_extremes_are_finite():
    for eps in (1e-3, 1.0, 50.0):
        for delta in (1e-12, 1e-6, 1e-2, 0.5):
            mu = float(epsilon_delta_to_gdp(eps, delta))
            assert math.isfinite(mu) and 0 < mu, (eps, delta, mu)
    for mu in (1e-4, 1.0, 50.0):
        for delta in (1e-12, 1e-6, 1e-2, 0.5):
            eps = float(gdp_to_epsilon(mu, delta))
            assert math.isfinite(eps) and eps >= 0, (mu, delta, eps)
        for eps in (1e-3, 50.0):
            d = float(gdp_to_delta(mu, eps))
            assert math.isfinite(d) and 0 <= d <= 1


# ---------------------------------------------------------------------------------------------
# Inverses: conservative and tight, checked in mpmath
# ---------------------------------------------------------------------------------------------


def _check_mu_inverse(eps, delta, *, tight=True, conservative=True):
    mu = float(epsilon_delta_to_gdp(eps, delta))
    assert math.isfinite(mu) and mu > 0
    if tight:  # 1e-6 more mu would violate the target
        assert mp_delta(mu * (1 + INVERSE_RTOL), eps) > delta, (eps, delta, mu)
    if conservative:  # the exact delta at the returned mu does not exceed the target
        exact = mp_delta(mu, eps)
        assert exact <= delta, f"eps={eps!r} delta={delta!r}: mu={mu!r} has exact delta {mp.nstr(exact, 20)}"
    return mu


def _check_eps_inverse(mu, delta, *, tight=True, conservative=True):
    eps = float(gdp_to_epsilon(mu, delta))
    assert math.isfinite(eps) and eps >= 0
    if tight and eps > 0:  # 1e-6 less epsilon would violate the target
        assert mp_delta(mu, eps * (1 - INVERSE_RTOL)) > delta, (mu, delta, eps)
    if conservative:
        exact = mp_delta(mu, eps)
        assert exact <= delta, f"mu={mu!r} delta={delta!r}: eps={eps!r} has exact delta {mp.nstr(exact, 20)}"
    return eps


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_epsilon_delta_to_gdp_tight(delta):
    for eps in EPS_GRID:
        _check_mu_inverse(eps, delta, conservative=False)


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_epsilon_delta_to_gdp_conservative(delta):
    for eps in EPS_GRID:
        _check_mu_inverse(eps, delta, tight=False)


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_gdp_to_epsilon_tight(delta):
    for mu in MU_GRID:
        _check_eps_inverse(mu, delta, conservative=False)


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_gdp_to_epsilon_conservative(delta):
    for mu in MU_GRID:
        _check_eps_inverse(mu, delta, tight=False)


@pytest.mark.parametrize("eps, delta", [(1e-3, 1e-12), (1.0, 1e-5), (50.0, 0.5), (0.3, 0.01), (8.0, 1e-9)])
def test_epsilon_delta_to_gdp_against_high_precision_root(eps, delta):
    exact = mp_eps_delta_to_mu(eps, delta)
    got = float(epsilon_delta_to_gdp(eps, delta))
    assert got == pytest.approx(float(exact), rel=INVERSE_RTOL)
    assert got <= exact, f"returned mu exceeds the exact largest mu by {mp.nstr(got / exact - 1, 5)} relative"


@pytest.mark.parametrize("mu, delta", [(1e-4, 1e-12), (1.0, 1e-5), (50.0, 0.5), (0.3, 0.01), (8.0, 1e-9)])
def test_gdp_to_epsilon_against_high_precision_root(mu, delta):
    exact = mp_gdp_to_eps(mu, delta)
    got = float(gdp_to_epsilon(mu, delta))
    assert got == pytest.approx(float(exact), rel=INVERSE_RTOL, abs=1e-300)
    assert got >= exact, f"returned eps is below the exact smallest eps by {mp.nstr(1 - got / exact, 5)} relative"


@pytest.mark.parametrize("delta", [1e-12, 1e-8, 1e-5, 1e-2, 0.5])
def test_round_trip_eps_mu_eps(delta):
    for eps in EPS_GRID:
        mu = float(epsilon_delta_to_gdp(eps, delta))
        back = float(gdp_to_epsilon(mu, delta))
        assert back == pytest.approx(eps, rel=INVERSE_RTOL), (eps, delta, mu, back)
        assert back <= eps * (1 + 1e-12)


@pytest.mark.parametrize("delta", [1e-12, 1e-8, 1e-5, 1e-2, 0.5])
def test_round_trip_mu_eps_mu(delta):
    tested = 0
    for mu in MU_GRID:
        eps = float(gdp_to_epsilon(mu, delta))
        if not 1e-3 <= eps <= 50:  # epsilon_delta_to_gdp's documented range
            continue
        back = float(epsilon_delta_to_gdp(eps, delta))
        assert back == pytest.approx(mu, rel=INVERSE_RTOL), (mu, delta, eps, back)
        tested += 1
    assert tested >= 3


# ---------------------------------------------------------------------------------------------
# Vectorisation
# ---------------------------------------------------------------------------------------------


def test_vectorised_equals_scalar_loops():
    mus = np.array([1e-4, 0.1, 1.0, 7.0, 50.0])
    epss = np.array([1e-3, 0.5, 2.0, 50.0])
    grid = np.asarray(gdp_to_delta(mus[:, None], epss[None, :]))
    assert grid.shape == (5, 4)
    loop = np.array([[float(gdp_to_delta(m, e)) for e in epss] for m in mus])
    np.testing.assert_array_equal(grid, loop)

    deltas = np.array([1e-12, 1e-6, 0.01, 0.5])
    got = np.asarray(gdp_to_epsilon(mus[:4], deltas))
    np.testing.assert_array_equal(got, [float(gdp_to_epsilon(m, d)) for m, d in zip(mus[:4], deltas, strict=True)])
    got = np.asarray(epsilon_delta_to_gdp(epss, deltas))
    np.testing.assert_array_equal(got, [float(epsilon_delta_to_gdp(e, d)) for e, d in zip(epss, deltas, strict=True)])
    # a scalar broadcast against an array
    got = np.asarray(epsilon_delta_to_gdp(1.0, deltas))
    np.testing.assert_array_equal(got, [float(epsilon_delta_to_gdp(1.0, d)) for d in deltas])


def test_scalar_in_scalar_out():
    for value in (gdp_to_delta(1.0, 1.0), gdp_to_epsilon(1.0, 1e-5), epsilon_delta_to_gdp(1.0, 1e-5)):
        assert np.ndim(value) == 0
        float(value)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 2.0, float("nan")])
def test_bad_delta_rejected(delta):
    with pytest.raises(ValueError):
        epsilon_delta_to_gdp(1.0, delta)
    with pytest.raises(ValueError):
        gdp_to_epsilon(1.0, delta)


@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan")])
def test_bad_epsilon_rejected(eps):
    with pytest.raises(ValueError):
        epsilon_delta_to_gdp(eps, 1e-5)


@pytest.mark.parametrize("mu", [-1.0, float("nan")])
def test_bad_mu_rejected(mu):
    with pytest.raises(ValueError):
        gdp_to_epsilon(mu, 1e-5)
    with pytest.raises(ValueError):
        gdp_to_delta(mu, 1.0)


# ---------------------------------------------------------------------------------------------
# Property tests (bounded so that the file runs in seconds)
# ---------------------------------------------------------------------------------------------

log_eps = st.floats(min_value=math.log10(1e-3), max_value=math.log10(50.0))
log_delta = st.floats(min_value=-12.0, max_value=math.log10(0.5))
log_mu = st.floats(min_value=-4.0, max_value=math.log10(50.0))


@settings(deadline=None, max_examples=40)
@given(log_eps, log_delta)
def test_property_mu_inverse(le, ld):
    _check_mu_inverse(10.0**le, 10.0**ld)


@settings(deadline=None, max_examples=40)
@given(log_mu, log_delta)
def test_property_eps_inverse(lm, ld):
    _check_eps_inverse(10.0**lm, 10.0**ld)


@settings(deadline=None, max_examples=60)
@given(log_mu, log_eps)
def test_property_delta(lm, le):
    mu, eps = 10.0**lm, 10.0**le
    exact = mp_delta(mu, eps)
    got = float(gdp_to_delta(mu, eps))
    if exact >= TINY:
        assert got == pytest.approx(float(exact), rel=DELTA_RTOL)
    else:
        assert 0.0 <= got <= 1e-290


@settings(deadline=None, max_examples=40)
@given(log_eps, log_delta)
def test_property_round_trip(le, ld):
    eps, delta = 10.0**le, 10.0**ld
    mu = float(epsilon_delta_to_gdp(eps, delta))
    assert float(gdp_to_epsilon(mu, delta)) == pytest.approx(eps, rel=INVERSE_RTOL)


@pytest.mark.slow
@settings(deadline=None, max_examples=400)
@given(log_eps, log_delta, log_mu)
def test_property_inverses_many_examples(le, ld, lm):
    _check_mu_inverse(10.0**le, 10.0**ld)
    _check_eps_inverse(10.0**lm, 10.0**ld)


def test_gdp_to_epsilon_of_a_huge_mu_is_an_upper_bound_not_an_error():
    # delta(eps; mu) is not representable in float64 for mu ~ 1e200: inf is the honest
    # (conservative) answer; a large but representable mu still gets its finite epsilon
    assert gdp_to_epsilon(1e200, 1e-5) == math.inf
    assert math.isfinite(gdp_to_epsilon(1e50, 1e-5))


@pytest.mark.parametrize("mu, delta", [(0.0, 1e-5), (0.2575, 5e-6), (1.3, 1e-9), (40.0, 0.5),
                                       (float("inf"), 1e-5), (3, 1e-5)])
def test_scalar_path_equals_the_array_path(mu, delta):
    # plain floats take a path without arrays; it must give the array path's floats
    from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon

    array = gdp_to_epsilon(np.array([mu]), np.array([delta]))[0]
    assert gdp_to_epsilon(mu, delta) == array
    assert type(gdp_to_epsilon(mu, delta)) is float
    if 0 < mu < float("inf"):
        eps = float(array)
        assert epsilon_delta_to_gdp(eps, delta) == epsilon_delta_to_gdp(
            np.array([eps]), np.array([delta]))[0]


@pytest.mark.parametrize("mu, delta, match", [
    (float("nan"), 1e-5, "mu must not be nan"), (-1.0, 1e-5, "mu must be >= 0"),
    (1.0, 0.0, "delta must be > 0"), (1.0, 1.0, "delta must be < 1"),
    (1.0, float("nan"), "delta must not be nan"),
])
def test_scalar_path_refuses_like_the_array_path(mu, delta, match):
    from skdpgd.accounting import gdp_to_epsilon

    with pytest.raises(ValueError, match=match):
        gdp_to_epsilon(mu, delta)
    with pytest.raises(ValueError, match=match):
        gdp_to_epsilon(np.array(mu), np.array(delta))
