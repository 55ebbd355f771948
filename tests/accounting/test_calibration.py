"""Calibration (docs/theory.md#calibration): target (eps, delta) -> noise_std.

Checked independently of the accountant under test: the GDP parameter of the calibrated run is
recomputed from the hand-written bound (A) / (C) (``_exact_reference.bound_*_hand``, mpmath) and
its exact delta at the target epsilon is evaluated in 60-digit mpmath:

* conservative: delta(eps_target; mu_run) <= delta_target, i.e. the run's exact epsilon is at most
  the target;
* tight: delta(eps_target * (1 - 1e-6); mu_run) > delta_target, i.e. the run's exact epsilon is
  above (1 - 1e-6) * target (docs/theory.md#exactness-checks: round trip within 1e-6 relative).

The property stated in the API (``gdp_to_epsilon(noisy_gd_gdp(sigma, ...), delta)`` in
[eps (1 - 1e-6), eps]) is checked as well, through the package's own accountant.
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from _exact_reference import (
    bound_a_hand,
    bound_c_hand,
    contraction_hand,
    mp_delta,
    mp_eps_delta_to_mu,
)

from skdpgd.accounting import (
    calibrate_noisy_cyclic_gd,
    calibrate_noisy_gd,
    gdp_to_epsilon,
    noisy_cyclic_gd_gdp,
    noisy_gd_gdp,
)

RTOL = 1e-6
LAM, BETA = 0.1, 2.0
ETAS = {"small": 0.01, "default": 2 / (BETA + LAM), "large": 1.5 / BETA}


def _cal_gd(eps, delta, n, K, eta, S=1.0, lam=LAM, beta=BETA):
    return calibrate_noisy_gd(
        eps, delta, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam, smoothness=beta, n_steps=K
    )


def _cal_cyclic(eps, delta, n, b, E, eta, S=1.0, lam=LAM, beta=BETA):
    return calibrate_noisy_cyclic_gd(
        eps, delta, batch_size=b, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam,
        smoothness=beta, n_epochs=E,
    )


def _check_run(mu_run, eps, delta, where):
    assert mp_delta(mu_run, eps * (1 - RTOL)) > delta, ("calibration not tight", where)
    exact = mp_delta(mu_run, eps)
    assert exact <= delta, ("calibrated run exceeds the target", where, mp.nstr(exact / delta - 1, 5))


def _check_gd_case(eps, delta, n, K, eta, S=1.0):
    sigma = float(_cal_gd(eps, delta, n, K, eta, S))
    assert math.isfinite(sigma) and sigma > 0
    where = dict(eps=eps, delta=delta, n=n, K=K, eta=eta, S=S, sigma=sigma)
    _check_run(bound_a_hand(sigma, K, S, n, contraction_hand(eta, LAM, BETA)), eps, delta, where)
    mu_impl = noisy_gd_gdp(
        sigma, K, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=LAM, smoothness=BETA
    )
    back = float(gdp_to_epsilon(mu_impl, delta))
    assert eps * (1 - RTOL) <= back <= eps, where


def _check_cyclic_case(eps, delta, n, b, E, eta, S=1.0):
    sigma = float(_cal_cyclic(eps, delta, n, b, E, eta, S))
    assert math.isfinite(sigma) and sigma > 0
    l = -(-n // b)
    where = dict(eps=eps, delta=delta, n=n, b=b, E=E, eta=eta, S=S, sigma=sigma)
    c = contraction_hand(eta, LAM, BETA)
    reference = bound_c_hand(sigma, E, n // l, S, l, c)
    if l == 1:  # one batch is full-batch GD with K = E steps: Theorem 4.2 applies too
        reference = min(reference, bound_a_hand(sigma, E, S, n, c))
    _check_run(reference, eps, delta, where)
    mu_impl = noisy_cyclic_gd_gdp(
        sigma, E, batch_size=b, sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=LAM,
        smoothness=BETA,
    )
    back = float(gdp_to_epsilon(mu_impl, delta))
    assert eps * (1 - RTOL) <= back <= eps, where


# ---------------------------------------------------------------------------------------------
# full batch
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-10), (1.0, 1e-5), (8.0, 1e-3), (0.5, 1e-12), (50.0, 1e-2)])
@pytest.mark.parametrize("eta_name", sorted(ETAS))
def test_calibrate_gd_meets_target_tightly(eps, delta, eta_name):
    for n, K in [(100, 1), (100, 30), (10_000, 1000), (1, 5)]:
        _check_gd_case(eps, delta, n, K, ETAS[eta_name])


@pytest.mark.slow
def test_calibrate_gd_sweep():
    for eps, delta, n, K, eta in itertools.product(
        [1e-3, 0.05, 0.3, 1.0, 3.0, 10.0, 50.0],
        [1e-12, 1e-8, 1e-5, 1e-2, 0.3],
        [1, 50, 10**6],
        [1, 2, 10, 100, 10**4, 10**7],
        [1e-4, 0.1, 2 / (BETA + LAM), 1.9 / BETA],
    ):
        _check_gd_case(eps, delta, n, K, eta, S=2.5)


def test_calibrate_gd_matches_exact_mu_star():
    # sigma = S g(K) / (n mu*), with mu* the largest mu meeting (eps, delta) (high-precision root)
    eps, delta, n, K, eta, S = 1.0, 1e-6, 500, 40, ETAS["default"], 3.0
    mu_star = float(mp_eps_delta_to_mu(eps, delta))
    g = bound_a_hand(1.0, K, 1.0, 1, contraction_hand(eta, LAM, BETA))
    assert float(_cal_gd(eps, delta, n, K, eta, S)) == pytest.approx(S * g / (n * mu_star), rel=RTOL)


def test_more_steps_never_need_less_noise():
    # Bound (A) is non-decreasing in K, so sigma(K) = S g(K)/(n mu*) is too.  Slack 1e-10 relative:
    # two calibrations may land anywhere in their 1e-6 tolerance window only if g(K) differs; for
    # equal g(K) (saturated) the same computation must give the same sigma up to rounding.
    for eta in ETAS.values():
        steps = [*range(1, 60), 100, 1000, 10**4, 10**6, 10**9]
        sig = np.array([float(_cal_gd(1.0, 1e-5, 1000, K, eta)) for K in steps])
        assert np.all(sig[1:] >= sig[:-1] * (1 - 1e-10)), eta
        # and it saturates: sigma(1e9) is finite
        assert math.isfinite(sig[-1])


def test_calibrated_noise_monotone_in_the_target():
    eta = ETAS["default"]
    by_eps = [float(_cal_gd(e, 1e-5, 1000, 50, eta)) for e in np.geomspace(1e-3, 50, 30)]
    assert np.all(np.diff(by_eps) < 0)
    by_delta = [float(_cal_gd(1.0, d, 1000, 50, eta)) for d in np.geomspace(1e-12, 0.5, 30)]
    assert np.all(np.diff(by_delta) < 0)


def test_calibrated_noise_scales_with_sensitivity_over_n():
    eta = ETAS["small"]
    base = float(_cal_gd(1.0, 1e-5, 100, 20, eta, S=1.0))
    assert float(_cal_gd(1.0, 1e-5, 100, 20, eta, S=4.0)) == pytest.approx(4 * base, rel=1e-9)
    assert float(_cal_gd(1.0, 1e-5, 400, 20, eta, S=1.0)) == pytest.approx(base / 4, rel=1e-9)


# ---------------------------------------------------------------------------------------------
# cyclic
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-10), (1.0, 1e-5), (8.0, 1e-3)])
@pytest.mark.parametrize("n, b", [(100, 10), (100, 7), (1000, 64), (10, 3), (50, 50)])
def test_calibrate_cyclic_meets_target_tightly(eps, delta, n, b):
    for E in (1, 3, 50):
        for eta in (ETAS["small"], ETAS["default"]):
            _check_cyclic_case(eps, delta, n, b, E, eta)


@pytest.mark.slow
def test_calibrate_cyclic_sweep():
    for eps, delta, (n, b), E, eta in itertools.product(
        [1e-3, 0.3, 1.0, 10.0, 50.0],
        [1e-12, 1e-6, 1e-2],
        [(100, 10), (100, 7), (1000, 64), (10, 3), (7, 4), (10**5, 256), (1, 1)],
        [1, 2, 10, 1000],
        [1e-3, 0.3, 2 / (BETA + LAM), 1.9 / BETA],
    ):
        _check_cyclic_case(eps, delta, n, b, E, eta, S=0.7)


def test_cyclic_more_epochs_never_need_less_noise():
    for eta in ETAS.values():
        epochs = [*range(1, 40), 100, 10**4, 10**6]
        sig = np.array([float(_cal_cyclic(1.0, 1e-5, 100, 7, E, eta)) for E in epochs])
        assert np.all(sig[1:] >= sig[:-1] * (1 - 1e-10)), eta


def test_cyclic_uses_smallest_batch():
    # n = 10, b = 4: batches of 4, 3, 3.  One epoch is one Gaussian mechanism on the smallest
    # batch, sigma = S / (3 mu*): calibrating with the nominal b = 4 would under-noise by 25%.
    eps, delta, S = 1.0, 1e-5, 1.0
    mu_star = float(mp_eps_delta_to_mu(eps, delta))
    assert float(_cal_cyclic(eps, delta, 10, 4, 1, ETAS["default"], S)) == pytest.approx(S / (3 * mu_star), rel=RTOL)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(eps=0.0),
        dict(eps=-1.0),
        dict(eps=float("nan")),
        dict(delta=0.0),
        dict(delta=1.0),
        dict(delta=-1e-5),
        dict(delta=1.5),
        dict(n=0),
        dict(S=-1.0),
    ],
)
def test_calibration_rejects_bad_parameters(kwargs):
    eps = kwargs.get("eps", 1.0)
    delta = kwargs.get("delta", 1e-5)
    n = kwargs.get("n", 100)
    S = kwargs.get("S", 1.0)
    with pytest.raises(ValueError):
        _cal_gd(eps, delta, n, 10, 0.1, S)
    with pytest.raises(ValueError):
        _cal_cyclic(eps, delta, n, 10 if n >= 10 else 1, 3, 0.1, S)


@pytest.mark.parametrize("n, b, E, eta, lam", [(20000, 1250, 50, 1.0, 1e-9), (100, 7, 3, 0.1, 0.1),
                                               (20000, 20000, 1000, 3.0, 1e-3),
                                               (5000, 300, 1, 2.5, 1e-6)])
@pytest.mark.parametrize("eps, delta", [(0.1, 1e-5), (4.0, 1e-9)])
def test_calibrations_answer_what_the_public_accountants_say(n, b, E, eta, lam, eps, delta):
    # the calibrations compute the bound's sigma-free factor once; the sigma they return
    # is the one the inverter finds asking the public accountants themselves
    from skdpgd.accounting import (
        contraction_factor,
        convergent_cyclic_factor,
        convergent_gd_factor,
        cyclic_batch_sizes,
        epsilon_delta_to_gdp,
    )
    from skdpgd.accounting._inverter import nudge_up

    beta, S = 0.37 + lam, 1.3
    mu = epsilon_delta_to_gdp(eps, delta)
    c = contraction_factor(eta, lam, beta)
    sizes = cyclic_batch_sizes(n, b)
    common = dict(sensitivity=S, n_samples=n, learning_rate=eta, strong_convexity=lam,
                  smoothness=beta)
    factor = min(math.sqrt(E), convergent_cyclic_factor(c, len(sizes), E))
    want = nudge_up(lambda s: gdp_to_epsilon(noisy_cyclic_gd_gdp(s, E, batch_size=b, **common),
                                             delta), eps, S * factor / (sizes.min() * mu))
    assert calibrate_noisy_cyclic_gd(eps, delta, batch_size=b, n_epochs=E, **common) == want
    factor = min(math.sqrt(E), convergent_gd_factor(c, E))
    want = nudge_up(lambda s: gdp_to_epsilon(noisy_gd_gdp(s, E, **common), delta), eps,
                    S * factor / (n * mu))
    assert calibrate_noisy_gd(eps, delta, n_steps=E, **common) == want
