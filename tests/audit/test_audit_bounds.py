"""Clopper-Pearson bounds and the split threshold test (skdpgd.audit._bounds).

References are computed independently: Clopper-Pearson bounds by root-finding on the
binomial tails (scipy.stats.binom, not the Beta quantiles the code uses), and the true
epsilon of two Gaussians from the mu-GDP formula solved with brentq.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom, norm

from skdpgd.audit import clopper_pearson, epsilon_from_counts, epsilon_from_scores


def _cp_reference(k, n, alpha):
    """Lower: P(Bin(n, p) >= k) = alpha; upper: P(Bin(n, p) <= k) = alpha."""
    lower = (
        0.0
        if k == 0
        else brentq(lambda p: binom.sf(k - 1, n, p) - alpha, 1e-15, 1 - 1e-15, xtol=1e-14)
    )
    upper = (
        1.0
        if k == n
        else brentq(lambda p: binom.cdf(k, n, p) - alpha, 1e-15, 1 - 1e-15, xtol=1e-14)
    )
    return lower, upper


@pytest.mark.parametrize(
    "k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (997, 1000), (40, 97)]
)
@pytest.mark.parametrize("alpha", [0.025, 0.2])
def test_clopper_pearson_inverts_the_binomial_tails(k, n, alpha):
    lower, upper = clopper_pearson(k, n, alpha)
    ref_lower, ref_upper = _cp_reference(k, n, alpha)
    assert lower == pytest.approx(ref_lower, abs=1e-9)
    assert upper == pytest.approx(ref_upper, abs=1e-9)


def test_clopper_pearson_is_vectorised_and_checks_input():
    lower, upper = clopper_pearson(np.array([0, 2, 4]), np.array([4, 4, 4]), 0.05)
    assert lower[0] == 0.0 and upper[-1] == 1.0 and np.all(lower < upper)
    with pytest.raises(ValueError, match="successes"):
        clopper_pearson(5, 4, 0.05)
    with pytest.raises(TypeError, match="integers"):
        clopper_pearson(0.5, 4, 0.05)
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(1, 4, 1.0)


def test_epsilon_from_counts_by_hand():
    # 90/100 hits against 10/100, delta = 0: log(p1_lo / p0_hi) with each bound at 2.5%.
    p1_lo, _ = _cp_reference(90, 100, 0.025)
    _, p0_hi = _cp_reference(10, 100, 0.025)
    assert epsilon_from_counts(90, 100, 10, 100, delta=0.0) == pytest.approx(
        math.log(p1_lo / p0_hi), rel=1e-8
    )
    # delta is subtracted from the alternative's probability; no evidence gives 0, never < 0.
    assert epsilon_from_counts(90, 100, 10, 100, delta=0.5) == pytest.approx(
        math.log((p1_lo - 0.5) / p0_hi), rel=1e-8
    )
    assert epsilon_from_counts(10, 100, 90, 100, delta=0.0) == 0.0
    assert epsilon_from_counts(0, 100, 0, 100, delta=1e-5) == 0.0


def _true_epsilon(mu, delta):
    """Epsilon of N(0,1) vs N(mu,1) at delta (Dong-Roth-Su Cor. 2.13), by brentq."""

    def excess(eps):
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta

    return brentq(excess, 0.0, 50.0) if excess(0.0) > 0 else 0.0


@pytest.mark.parametrize("mu, n_scores", [(0.0, 200), (1.0, 300)])
def test_split_bound_exceeds_the_truth_rarely(mu, n_scores):
    """The false-alarm rate of the whole procedure (threshold search included) is <= 5%.

    200 independent audits of N(0, 1) against N(mu, 1); each lower bound above the true
    epsilon is a false alarm. Allowed: 5% + 3 binomial standard errors (3 sqrt(.05 .95 / 200)
    = 4.6%), so a correct procedure fails this with probability < 0.2%. The same scores with
    the threshold chosen on all the trials (no split) alarm more often than the split and
    more often than the nominal 5% at mu = 0 (8% on this seed): the selection bias is real.
    """
    rng = np.random.default_rng(7)
    delta = 1e-5
    truth = 0.0 if mu == 0.0 else _true_epsilon(mu, delta)
    alarms, naive_alarms = 0, 0
    for _ in range(200):
        without, with_ = rng.normal(size=n_scores), rng.normal(mu, 1.0, size=n_scores)
        test = epsilon_from_scores(without, with_, delta=delta, confidence=0.95)
        alarms += test.epsilon_lower_bound > truth
        if mu == 0.0:
            t = np.sort(np.concatenate([without, with_]))
            hits_with = (with_[None, :] > t[:, None]).sum(axis=1)
            hits_without = (without[None, :] > t[:, None]).sum(axis=1)
            naive = max(
                epsilon_from_counts(hits_with, n_scores, hits_without, n_scores, delta=delta).max(),
                epsilon_from_counts(hits_without, n_scores, hits_with, n_scores, delta=delta).max(),
            )
            naive_alarms += naive > truth
    assert alarms / 200 <= 0.05 + 0.046
    if mu == 0.0:  # the multiple comparison the split avoids: above the nominal 5% here
        assert naive_alarms > alarms and naive_alarms / 200 > 0.05


def test_split_bound_has_power():
    # N(0,1) vs N(3,1) is 3-GDP: epsilon at delta = 1e-5 is about 9; 2000 scores per side
    # must certify > 2 (the best single threshold has p1 ~ 0.5, p0 ~ 1e-3; 4.5 seen).
    rng = np.random.default_rng(3)
    test = epsilon_from_scores(rng.normal(size=2000), rng.normal(3.0, 1.0, size=2000), delta=1e-5)
    assert 2.0 < test.epsilon_lower_bound < _true_epsilon(3.0, 1e-5)
    assert test.n_alt == 1500 and test.n_null == 1500  # a quarter of the trials chose it


def test_epsilon_from_scores_rejects_bad_scores():
    with pytest.raises(ValueError, match="NaN"):
        epsilon_from_scores([0.0, 1.0, np.nan, 2.0], [0.0, 1.0, 2.0, 3.0], delta=1e-5)
    with pytest.raises(ValueError, match="at least 4"):
        epsilon_from_scores([0.0, 1.0], [0.0, 1.0, 2.0, 3.0], delta=1e-5)
    with pytest.raises(ValueError, match="selection_fraction"):
        epsilon_from_scores(np.zeros(8), np.ones(8), delta=1e-5, selection_fraction=1.0)
