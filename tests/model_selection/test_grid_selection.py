"""DPSearchCV's default selection: every candidate once, the reference kept unless beaten.

Exact accounting (the Gaussian trade-off computed here in closed form), the choice rule's
error rate under the null (Monte Carlo with a binomial tolerance), and the behaviour the
default promises: at a small budget it releases the estimator's own fit (no trial can pay),
where the random number of trials released a uniformly drawn candidate; the trials' share
resolves r_0 or no trial runs.
"""

import math

import numpy as np
import pytest
from scipy.stats import norm

from skdpgd import DPLogisticRegression, PrivacyLedger
from skdpgd.model_selection import DPSearchCV
from skdpgd.model_selection._grid_selection import (
    MIN_SELECTION_SHARE,
    RESOLUTION,
    SELECTION_SHARE,
    SWITCH_LEVEL,
    budgeted_trials,
    chosen_index,
    grid_budget,
    grid_candidates,
    selection_share,
    switch_margin,
)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4)) / 2.0
    y = (X @ np.array([1.0, -1.0, 0.5, 0.0]) + 0.3 * rng.normal(size=2000) > 0).astype(int)
    return X, y


def _gaussian_delta(mu, epsilon):
    """delta(epsilon) of the mu-GDP trade-off (Dong, Roth and Su 2022, Corollary 2.13)."""
    return norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)


def test_reference_first_and_never_repeated():
    est = DPLogisticRegression(classes=[0, 1], C=1.0)
    assert grid_candidates(est, [{"C": 0.1}, {"C": 1.0}, {"C": 10.0}]) == [
        {"C": 1.0}, {"C": 0.1}, {"C": 10.0}]
    assert grid_candidates(DPLogisticRegression(classes=[0, 1]), [{"C": 0.1}]) == [
        {"C": "auto"}, {"C": 0.1}]


@pytest.mark.parametrize("refit", [True, False])
@pytest.mark.parametrize("epsilon, n_trials", [(0.3, 2), (1.0, 6), (8.0, 20)])
def test_budget_composes_to_the_requested_epsilon_exactly(epsilon, n_trials, refit):
    delta, extra, rho = 1e-5, 1e-6, 0.1
    budget = grid_budget(epsilon, delta, n_trials, refit=refit, needs_extra_delta=(True,),
                         preparation_share=rho)
    assert budget.extra_delta == pytest.approx(extra, rel=1e-12)
    extra = budget.extra_delta
    mu_p = math.sqrt(rho) * budget.mu
    total = math.sqrt(mu_p ** 2 + n_trials * budget.trial_mu ** 2 + budget.refit_mu ** 2)
    assert total <= budget.mu
    # the composed Gaussian mechanisms are exactly total-GDP: its delta at epsilon, from
    # the closed form, is within the Gaussian part of the budget, and tight to 1e-6
    assert _gaussian_delta(total, epsilon) <= delta - extra
    assert _gaussian_delta(total, epsilon) == pytest.approx(delta - extra, rel=1e-6)
    share = SELECTION_SHARE if refit else 1.0
    assert n_trials * budget.trial_mu ** 2 == pytest.approx(
        share * (1 - rho) * budget.mu ** 2, rel=1e-8)


def test_the_reference_is_left_under_the_null_at_most_at_the_level():
    rng = np.random.default_rng(1)
    k, sigma, draws = 6, 0.03, 20000
    margin = switch_margin(k, sigma)
    left = sum(chosen_index(list(0.8 + sigma * rng.standard_normal(k)), margin) != 0
               for _ in range(draws))
    # Bonferroni bounds the rate by SWITCH_LEVEL; 3 binomial standard deviations above it
    assert left / draws <= SWITCH_LEVEL + 3 * math.sqrt(SWITCH_LEVEL * (1 - SWITCH_LEVEL) / draws)
    # a candidate 2 margins ahead is chosen almost always (its lead exceeds the margin
    # unless a N(0, 2 sigma^2) difference falls below -margin: Phi(-margin / sqrt2 sigma))
    ahead = [0.8] + [0.8 + 2 * margin] + [0.8] * (k - 2)
    picked = sum(chosen_index(list(np.array(ahead) + sigma * rng.standard_normal(k)),
                              margin) == 1 for _ in range(2000))
    assert picked / 2000 >= 0.95


class _Plan:
    """A stand-in for the search's trials: each candidate's score drawn from a list."""

    def __init__(self, draws):
        self.draws = {key: list(values) for key, values in draws.items()}

    def __call__(self, params):
        return self.draws[params["C"]].pop(0), params, None


def _selection(draws):
    from skdpgd.model_selection._search_plan import SearchPlan

    plan = SearchPlan(candidates=[{"C": "auto"}, {"C": 1.0}, {"C": 10.0}], trial_mu=1.0,
                      refit_mu=0.0, preparation_scale=1.0, noise_std=0.01, report=None,
                      selection_report=None, margin=0.1, confirm_margin=0.05)
    return plan.select(_Plan(draws), [0, 1, 2], np.random.default_rng(0))[1]


def test_a_switch_needs_a_confirmation_in_fresh_trials():
    # first round: C=1 leads by 0.2 > 0.1; then the confirmation decides
    lucky = {"auto": [0.5, 0.5], 1.0: [0.7, 0.52], 10.0: [0.4]}  # 0.02 < 0.05: kept
    assert _selection(lucky) == {"C": "auto"}
    better = {"auto": [0.5, 0.5], 1.0: [0.7, 0.6], 10.0: [0.4]}  # 0.1 > 0.05: switched
    assert _selection(better) == {"C": 1.0}
    no_lead = {"auto": [0.5], 1.0: [0.55], 10.0: [0.4]}  # no confirmation trials run
    assert _selection(no_lead) == {"C": "auto"}


def test_nan_never_wins_and_ties_keep_the_reference():
    assert chosen_index([0.5, math.nan, 0.4], 0.0) == 0
    assert chosen_index([0.5, 0.5], 0.0) == 0
    assert chosen_index([math.nan, 0.5], 0.1) == 1


def test_default_search_releases_the_reference_at_a_small_budget(data):
    """The old default (a random K ~ logarithmic, E[K] = 10) ran one uniformly drawn trial
    with probability 0.27 and released C=1e-4 in seed 1 (training accuracy .809 against
    .88 for the others). At epsilon 1 on 2,000 rows no search can pay (the first round's
    margin at the largest share is far above r_0), so the default runs no trial: it is
    the estimator's own fit at the whole epsilon, with the search's seed, bit for bit."""
    X, y = data
    est = DPLogisticRegression(classes=[0, 1])
    for seed in range(6):
        ledger = PrivacyLedger()
        search = DPSearchCV(est, {"C": [1e-4, 10.0]}, epsilon=1.0, ledger=ledger,
                            random_state=seed).fit(X, y)
        alone = DPLogisticRegression(classes=[0, 1], epsilon=1.0, delta="auto",
                                     random_state=seed).fit(X, y)
        assert search.best_params_ == {"C": "auto"} and math.isnan(search.best_score_)
        np.testing.assert_array_equal(search.best_estimator_.coef_, alone.coef_)
        np.testing.assert_array_equal(search.best_estimator_.intercept_, alone.intercept_)
        assert search.score(X, y) > 0.86  # one fit at the whole epsilon: .88
        assert search.best_estimator_.random_state is None  # the seed is not kept
        # charged once, before the data, with what the one fit spends
        assert len(ledger.entries) == 1
        assert search.privacy_.mu == pytest.approx(alone.privacy_.mu, rel=1e-12)
        assert search.privacy_.epsilon <= 1.0


def test_the_trials_share_resolves_r0_or_no_trial_runs():
    """s is the smallest share at which the first round's margin is r_0 S (at least the
    floor), 0 where even SELECTION_SHARE leaves the margin above r_0 S, and 0 with one
    candidate; at the share returned the margin is r_0 S, recomputed from the budget."""
    delta_score = 1.0 / 6000  # accuracy on 6,000 validation rows
    for k, mu_est, scale in [(6, 0.25, 1.0), (3, 0.4, 1.0), (6, 3.0, 4.0), (6, 0.05, 1.0),
                             (2, 30.0, 1.0), (1, 100.0, 1.0)]:
        share = selection_share(k, mu_est, delta_score, scale)
        t = budgeted_trials(k)
        margin_cap = switch_margin(k, delta_score / (mu_est * math.sqrt(SELECTION_SHARE / t)))
        if k < 2 or margin_cap > RESOLUTION * scale:
            assert share == 0.0
            continue
        assert MIN_SELECTION_SHARE <= share <= SELECTION_SHARE
        margin = switch_margin(k, delta_score / (mu_est * math.sqrt(share / t)))
        if share > MIN_SELECTION_SHARE:
            assert margin == pytest.approx(RESOLUTION * scale, rel=1e-12)
        else:
            assert margin < RESOLUTION * scale
    # the cases above cover all three outcomes
    assert selection_share(6, 0.05, delta_score, 1.0) == 0.0
    assert MIN_SELECTION_SHARE < selection_share(6, 0.25, delta_score, 1.0) < SELECTION_SHARE
    assert selection_share(2, 30.0, delta_score, 1.0) == MIN_SELECTION_SHARE


def test_default_search_leaves_a_bad_reference_on_evidence(data):
    X, y = data
    bad = DPLogisticRegression(classes=[0, 1], C=1e-6)  # shrinks the slope to nothing
    search = DPSearchCV(bad, {"C": [1.0]}, epsilon=50.0, random_state=0).fit(X, y)
    assert search.best_params_ == {"C": 1.0}
    assert search.score(X, y) > 0.85


def test_ledger_total_equals_the_report(data):
    X, y = data
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-5)
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1]), {"C": [0.1, 1.0]}, epsilon=1.0,
                        delta=1e-5, ledger=ledger, random_state=0).fit(X, y)
    assert [type(e.event).__name__ for e in ledger.entries] == ["GaussianDpEvent"]
    assert ledger.spent(1e-5).epsilon == pytest.approx(search.privacy_.epsilon, rel=1e-9)
    assert search.privacy_.epsilon <= 1.0
    assert _gaussian_delta(search.privacy_.mu, search.privacy_.epsilon) == pytest.approx(
        1e-5, rel=1e-6)


def test_eta_without_expected_trials_is_refused_before_the_charge(data):
    X, y = data
    ledger = PrivacyLedger()
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1]), {"C": [1.0]}, eta=1.0,
                        ledger=ledger)
    with pytest.raises(ValueError, match=r"eta=1\.0 shapes a random number of trials"):
        search.fit(X, y)
    assert ledger.entries == ()


def test_without_refit_the_trials_take_the_whole_estimator_budget(data):
    X, y = data
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1]), {"C": [0.1, 1.0]}, epsilon=2.0,
                        refit=False, random_state=0).fit(X, y)
    report = search.privacy_
    assert report.refit_mu == 0.0 and report.n_candidates == 3 and report.n_trials == 5
    assert report.mu == pytest.approx(math.sqrt(5) * report.trial_mu, rel=1e-9)
    assert search.best_estimator_.privacy_.n_samples == len(X) - report.n_validation
    assert report.epsilon <= 2.0
