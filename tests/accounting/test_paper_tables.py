"""Bok, Su and Altschuler (ICML 2024), Tables 7-9, cell for cell, and the bounded-domain bounds.

Table 7: Theorem 4.2 at S/(n sigma) = 0.1; Table 8: (tau*, mu) of Theorem 4.3 (rows the
sensitivity L, columns eta; D n = 4 and sigma n = 16, e.g. n = 4, D = 1, sigma = 4); Table 9:
Theorem 4.5 at S/(b sigma) = 0.2. The values are the paper's, to its three digits.
"""

import math

import numpy as np
import pytest

from skdpgd.accounting import (
    calibrate_noisy_cyclic_gd,
    calibrate_noisy_gd,
    convergent_cyclic_factor,
    convergent_gd_factor,
    convex_cyclic_squares,
    convex_gd_burn_in,
    noisy_cyclic_gd_convex_gdp,
    noisy_gd_convex_gdp,
)

TABLE_7 = {10: (0.308, 0.314, 0.316, 0.316, 0.316), 100: (0.490, 0.688, 0.871, 0.961, 0.990),
           1000: (0.490, 0.700, 0.995, 1.411, 1.984)}
TABLE_8 = {0.25: ((80, 0.280), (160, 0.395), (320, 0.559)),
           0.5: ((40, 0.395), (80, 0.559), (160, 0.791)),
           1.0: ((20, 0.559), (40, 0.791), (80, 1.118))}
TABLE_9 = {5: (0.229, 0.233, 0.235, 0.211, 0.215, 0.217, 0.202, 0.205, 0.208),
           50: (0.270, 0.334, 0.410, 0.216, 0.237, 0.275, 0.203, 0.208, 0.219),
           500: (0.270, 0.336, 0.439, 0.216, 0.237, 0.276, 0.203, 0.208, 0.219)}


@pytest.mark.parametrize("steps", sorted(TABLE_7))
def test_table_7_theorem_4_2(steps):
    for c, expected in zip((0.92, 0.96, 0.98, 0.99, 0.995), TABLE_7[steps], strict=True):
        assert round(0.1 * convergent_gd_factor(c, steps), 3) == expected


@pytest.mark.parametrize("sensitivity", sorted(TABLE_8))
def test_table_8_theorem_4_3(sensitivity):
    for eta, (tau, expected) in zip((0.2, 0.1, 0.05), TABLE_8[sensitivity], strict=True):
        common = dict(sensitivity=sensitivity, n_samples=4, learning_rate=eta, diameter=1.0)
        assert convex_gd_burn_in(**common) == tau
        mu = noisy_gd_convex_gdp(4.0, 10**6, **common)  # past the burn-in: constant
        assert round(mu, 3) == expected
        assert noisy_gd_convex_gdp(4.0, 10**9, **common) == mu


@pytest.mark.parametrize("epochs", sorted(TABLE_9))
def test_table_9_theorem_4_5(epochs):
    cells = [(l, c) for l in (10, 20, 40) for c in (0.98, 0.99, 0.995)]
    for (l, c), expected in zip(cells, TABLE_9[epochs], strict=True):
        assert round(0.2 * convergent_cyclic_factor(c, l, epochs), 3) == expected


def _proof_optimum_full_batch(x, steps):
    """min over the t last steps of (x + t)^2 / t: the shifted-interpolation optimum
    (equal shifts (D + t eta s)/t are optimal by Cauchy-Schwarz), in units (S/(n sigma))^2."""
    t = np.arange(1, steps + 1, dtype=float)
    return float(np.min((x + t) ** 2 / t))


@pytest.mark.parametrize("x", [0.3, 1.0, 7.5, 40.0, 333.3])
def test_theorem_4_3_is_never_below_the_proof_methods_optimum(x):
    tau = math.ceil(x)
    for steps in (tau, 2 * tau, 10 * tau):
        closed = 3.0 * x + tau
        optimum = _proof_optimum_full_batch(x, steps)
        assert closed >= optimum * (1 - 1e-12)
        assert closed <= optimum * 1.34  # within the slack of the rounding of tau*


def _absorbing_schedule_cost(x, n_batches, m, position):
    """The cost of bound (F)'s explicit shifts, step by step, for the record in batch
    ``position``: a_k = x/(m l) + [k visits the batch], distance x down to 0 (units eta S/b)."""
    t = m * n_batches
    distance, cost = x, 0.0
    for k in range(t):
        visit = float(k % n_batches == position)
        shift = x / t + visit
        distance = distance + visit - shift
        assert distance >= -1e-9 * max(1.0, x)  # every lambda in [0, 1]: the proof holds
        cost += shift * shift
    assert abs(distance) <= 1e-9 * max(1.0, x)  # reaches the other process at the end
    return cost


@pytest.mark.parametrize("n_batches, x", [(2, 3.0), (4, 10.0), (8, 25.0), (16, 2.0), (4, 0.3)])
def test_bound_f_is_at_most_its_absorbing_shifts_for_every_batch_position(n_batches, x):
    # the absorbing schedule is one of bound (F)'s two (the spread one, in
    # test_convex_cyclic_optimum.py, is the other): (F) is at most it, equal where x < 1 - 1/l
    epochs = 60
    m = range(1, epochs + 1)
    best = min(max(_absorbing_schedule_cost(x, n_batches, k, p) for p in range(n_batches))
               for k in m)
    bound = float(convex_cyclic_squares(n_batches, epochs, x))
    assert bound <= best * (1 + 1e-12)
    if x < 1 - 1 / n_batches:
        assert bound == pytest.approx(best, rel=1e-12)


def test_past_the_burn_in_four_times_the_passes_need_the_same_noise():
    # lam = 0 on a ball: Theorem 4.3 binds from 4x on, where composition is larger
    common = dict(sensitivity=1.0, n_samples=1000, learning_rate=1.0, strong_convexity=0.0,
                  smoothness=1.0, diameter=1.0)
    once = calibrate_noisy_gd(1.0, 1e-5, n_steps=5000, **common)
    assert calibrate_noisy_gd(1.0, 1e-5, n_steps=20000, **common) == once
    cyclic = dict(common, batch_size=100)
    # cyclic, l = 10, x = 100: bound (F) (about 4 x / l + 1 = 40.6) binds from the epoch
    # where Theorem 4.5's c = 1 limit 1 + (E - 1)/l passes it (about 400) on
    once = calibrate_noisy_cyclic_gd(1.0, 1e-5, n_epochs=1000, **cyclic)
    assert calibrate_noisy_cyclic_gd(1.0, 1e-5, n_epochs=4000, **cyclic) == once
    before = calibrate_noisy_cyclic_gd(1.0, 1e-5, n_epochs=100, **cyclic)
    assert before < once  # before it the noise still grows with the passes
    # and without the ball the noise grows like sqrt(passes)
    free = dict(common, diameter=None)
    ratio = (calibrate_noisy_gd(1.0, 1e-5, n_steps=20000, **free)
             / calibrate_noisy_gd(1.0, 1e-5, n_steps=5000, **free))
    assert ratio == pytest.approx(2.0, rel=1e-6)


def test_bound_f_never_exceeds_composition_and_matches_theorem_4_3_with_one_batch():
    args = dict(sensitivity=1.0, n_samples=1000, learning_rate=0.5, diameter=2.0)
    for epochs in (1, 10, 100, 10_000):
        mu = noisy_cyclic_gd_convex_gdp(1.0, epochs, batch_size=100, **args)
        assert mu <= math.sqrt(epochs) / 100 * (1 + 1e-15)
        one = noisy_cyclic_gd_convex_gdp(1.0, epochs, batch_size=1000, **args)
        assert one == pytest.approx(noisy_gd_convex_gdp(1.0, epochs, **args), rel=1e-15)
