"""Altschuler-Talwar eq. (3.3) (numpy only): closed-form minimisation and applicability."""

import math

import numpy as np
import pytest

from skdpgd.accounting import (
    SGD_ORDERS,
    altschuler_talwar_rdp,
    rdp_to_epsilon,
    sampled_gaussian_rdp,
)
from skdpgd.exceptions import BoundNotApplicableError

AT_RUN = dict(batch_size=50, n_samples=1000, gradient_bound=1.0, learning_rate=0.5,
              smoothness=1.0, diameter=2.0)


def brute_force_at(orders, sigma, n_steps, splits, *, batch_size, n_samples, gradient_bound,
                   learning_rate, diameter, smoothness):
    """eq. (3.3) by enumerating every tau in {0..T-1} and every split, per order."""
    del smoothness
    best = np.full(len(orders), math.inf)
    for s in splits:
        a = sampled_gaussian_rdp(orders, batch_size / n_samples,
                                 batch_size * sigma * math.sqrt(s) / (2 * gradient_bound))
        for tau in range(n_steps):
            m = n_steps - tau
            value = m * a + orders * diameter**2 / (
                2 * learning_rate**2 * sigma**2 * (1 - s) * m
            )
            best = np.minimum(best, value)
    return best


@pytest.mark.parametrize("sigma, n_steps", [(0.05, 1), (0.05, 37), (0.2, 400)])
def test_at_closed_form_minimisation_matches_enumeration(sigma, n_steps):
    orders = np.array([2.0, 4.0, 16.0, 64.0])
    splits = np.array([0.1, 0.5, 0.9])
    fast = altschuler_talwar_rdp(orders, sigma, n_steps, splits=splits, **AT_RUN)
    slow = brute_force_at(orders, sigma, n_steps, splits, **AT_RUN)
    np.testing.assert_allclose(fast, slow, rtol=1e-12)


def test_at_stops_growing_with_steps():
    # Once T exceeds the optimal m* = T - tau the bound no longer depends on T (the
    # paper's "no further privacy loss after the burn-in"). (It is not monotone in T: for
    # short runs tau >= 0 forces a small m and the D^2 term is large.)
    values = [rdp_to_epsilon(SGD_ORDERS, altschuler_talwar_rdp(SGD_ORDERS, 0.05, t, **AT_RUN), 1e-5)
              for t in (10**5, 10**6, 10**7)]
    assert values[0] == pytest.approx(values[1], rel=1e-12)
    assert values[1] == pytest.approx(values[2], rel=1e-12)


def test_at_refuses_runs_it_does_not_cover():
    run = dict(AT_RUN)
    run["learning_rate"] = 2.5  # > 2 / smoothness
    with pytest.raises(BoundNotApplicableError, match="learning_rate"):
        altschuler_talwar_rdp(SGD_ORDERS, 0.1, 10, **run)
    run = dict(AT_RUN, diameter=math.inf)
    with pytest.raises(BoundNotApplicableError, match="bounded"):
        altschuler_talwar_rdp(SGD_ORDERS, 0.1, 10, **run)
    assert np.all(altschuler_talwar_rdp(SGD_ORDERS, 0.1, 0, **AT_RUN) == 0)
    assert np.all(altschuler_talwar_rdp(SGD_ORDERS, 0.0, 3, **AT_RUN) == math.inf)
