"""The mean correction: a DP pipeline's regressor moves its intercept to its mean residual.

What is checked (docs/theory.md, "The regressor's intercept at its mean residual"): the
public share rule and where the correction applies; its place in the budget with the
constant check; the release's sensitivity by brute force over neighbouring tables; that it
is planned, charged and composed exactly; the decision's level on symmetric residuals and
its effect on a skewed target; ``mean_correction=False`` gives the estimator its whole
share.
"""

import itertools
import math

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, make_dp_pipeline
from skdpgd.pipeline._budget import split_budget
from skdpgd.pipeline._mean_correction import (
    MEAN_CORRECTION,
    MeanCorrectionPlan,
    plan_mean_correction,
    post_fit_plans,
    run_mean_correction,
)
from skdpgd.preprocessing import BoundedScaler

FLOOR = 1.0 - 1.0 / 1.01 ** 2  # the share that raises the fit's noise scale by 1%


def _regression(n=3000, seed=0, skewed=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    noise = (rng.exponential(0.3, n) - 0.3) if skewed else rng.normal(0, 0.1, n)
    return X, np.clip(0.3 * X[:, 0] - 0.2 * X[:, 1] + noise, -1.0, 1.0)


def _pipe(epsilon, **kw):
    return make_dp_pipeline(BoundedScaler((-1, 1)), DPRidge(y_bound=1.0), epsilon=epsilon,
                            delta=1e-5, random_state=kw.pop("random_state", 0), **kw)


# -- the public plan ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [300, 3000, 30000])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_share_is_the_documented_rule_and_fits_the_allowance(n, epsilon):
    mu = split_budget(epsilon, 1e-5, [False]).estimator_mu
    plan = plan_mean_correction(DPRidge(y_bound=1.0), mu, n)
    assert plan.share == pytest.approx(min(0.5, max(FLOOR, 4.0 / (n * mu * mu))), rel=1e-12)
    assert plan.fit_mu ** 2 + plan.release_mu ** 2 <= mu ** 2
    assert plan.release_mu ** 2 == pytest.approx(plan.share * mu ** 2, rel=1e-9)
    # the noise on the mean residual is at most a mean's worst sampling noise 2B / sqrt(n)
    if plan.share < 0.5:
        assert 4.0 / (n * plan.release_mu) <= 2.0 / math.sqrt(n) * (1 + 1e-9)


@pytest.mark.parametrize("final, enabled", [
    (DPLogisticRegression(classes=[0, 1]), "auto"),
    (DPRidge(y_bound=1.0, inference=True), True),
    (DPRidge(y_bound=1.0, fit_intercept=False), True),
    (DPRidge(y_bound=1.0), False),
    (DPRidge(y_bound=1.0), np.False_),
])
def test_no_correction_where_the_parameters_do_not_call_for_it(final, enabled):
    assert plan_mean_correction(final, 0.3, 1000, enabled) is None
    assert plan_mean_correction(DPRidge(y_bound=1.0), math.inf, 1000) is None


def test_with_the_constant_check_the_three_parts_fit_the_estimator_allowance():
    budget = split_budget(0.5, 1e-5, [False])
    correction, check, fit_mu = post_fit_plans(DPRidge(y_bound=1.0), budget, 2000,
                                               constant_check=True)
    mu = budget.estimator_mu
    assert fit_mu ** 2 + correction.release_mu ** 2 + check.check_mu ** 2 <= mu ** 2
    assert check.fit_mu == fit_mu  # the check splits what the correction left
    none, check_only, fit_only = post_fit_plans(DPRidge(y_bound=1.0), budget, 2000,
                                                mean_correction=False, constant_check=True)
    assert none is None and fit_only == check_only.fit_mu > fit_mu


# -- the release's sensitivity, by brute force -------------------------------------------------

class _Fixed:
    """A fitted model with fixed predictions per row (the release conditions on the model)."""

    def __init__(self, predictions, y_bound):
        self.predictions, self.y_bound, self.intercept_ = np.asarray(predictions), y_bound, 0.0

    def predict(self, X):
        return self.predictions[np.asarray(X, dtype=int).ravel()]

    def _public_target_bound(self):
        return self.y_bound


class _NoNoise:
    def normal(self, loc, scale, size=None):
        return 0.0


def _total(y, f, bound):
    model = _Fixed(f, bound)
    plan = MeanCorrectionPlan(share=0.5, fit_mu=1.0, release_mu=1.0)
    correction, _ = run_mean_correction(model, np.arange(len(y)), y, plan, 0)
    rng_free = _Fixed(f, bound)
    from skdpgd.pipeline import _mean_correction as module

    saved = module.make_generator
    module.make_generator = lambda _: _NoNoise()
    try:
        exact, _ = run_mean_correction(rng_free, np.arange(len(y)), y, plan, 0)
    finally:
        module.make_generator = saved
    assert correction.noise_std == pytest.approx(4.0 * bound / len(y))
    return exact.noisy_mean_residual * len(y)


def test_the_residual_sum_has_sensitivity_4b():
    # tables of 3 rows with targets and predictions on a grid beyond the range on both sides,
    # and every replacement of the first row (its target and its prediction move with it)
    bound, grid = 2.0, [-7.0, -2.0, -0.5, 0.0, 1.5, 2.0, 9.0]
    worst = 0.0
    for ys in itertools.product(grid, repeat=2):
        for fs in itertools.product(grid, repeat=2):
            base = _total(np.array([*ys, 0.5]), np.array([*fs, 0.0]), bound)
            for y_new, f_new in itertools.product(grid, grid):  # replace the first row
                other = _total(np.array([y_new, ys[1], 0.5]), np.array([f_new, fs[1], 0.0]),
                               bound)
                worst = max(worst, abs(base - other))
    assert worst == pytest.approx(4.0 * bound)


# -- the accounting: planned, charged, spent ------------------------------------------------

def test_the_correction_is_planned_charged_and_composed_exactly():
    X, y = _regression()
    ledger = PrivacyLedger()
    pipe = _pipe(0.5, ledger=ledger).fit(X, y)
    report, planned = pipe.privacy_, pipe.plan_privacy(len(X), X=X)
    names = [name for name, _ in report.steps]
    assert names[-2:] == ["dpridge", MEAN_CORRECTION]
    assert [name for name, _ in planned.steps] == names[:-1]
    assert planned.steps[-1][1].mu == pipe.budget_.estimator_mu
    assert "mean correction within mu=" in planned.steps[-1][1].mechanism
    off = _pipe(0.5, mean_correction=False).plan_privacy(len(X), X=X)
    assert planned.mu == off.mu  # the same charge, to the bit
    mus = [r.mu for _, r in report.steps]
    assert report.mu == pytest.approx(math.sqrt(math.fsum(m * m for m in mus)), rel=1e-12)
    fit_mu, release_mu = mus[-2], mus[-1]
    assert fit_mu ** 2 + release_mu ** 2 <= pipe.budget_.estimator_mu ** 2
    assert release_mu ** 2 == pytest.approx(pipe.mean_correction_.share
                                            * pipe.budget_.estimator_mu ** 2, rel=1e-9)
    assert report.mu <= planned.mu and report.epsilon <= 0.5
    (entry,) = ledger.entries
    assert entry.event.mu == pytest.approx(planned.mu, rel=1e-12)
    assert "mean correction" in repr(report) and "mean correction" in str(report.to_dict())


def test_switched_off_the_estimator_gets_its_whole_share():
    X, y = _regression()
    on, off = _pipe(0.5).fit(X, y), _pipe(0.5, mean_correction=False).fit(X, y)
    assert not hasattr(off, "mean_correction_") and hasattr(on, "mean_correction_")
    assert [name for name, _ in off.privacy_.steps] == ["boundedscaler", "dpridge"] or [
        name for name, _ in off.privacy_.steps] == ["dpridge"]
    assert off.privacy_.steps[-1][1].mu > on.privacy_.steps[-2][1].mu
    assert off.get_params()["mean_correction"] is False


# -- what it does ---------------------------------------------------------------------------

def test_symmetric_residuals_keep_their_intercept_at_the_level():
    # 40 fits of a target with symmetric noise: the Huber intercept is at the mean residual
    # up to sampling noise 0.1 / sqrt(3000) = 0.002, far below the release's noise
    # 4 / (n mu_m) (about 0.03 here), so the shift passes its z_{0.975} threshold in about
    # 5% of fits; 6 or more of 40 has probability 0.048 under Binomial(40, 0.05)
    X, y = _regression()
    applied = [_pipe(1.0, random_state=seed).fit(X, y).mean_correction_.applied
               for seed in range(40)]
    assert sum(applied) <= 5, sum(applied)


def test_a_skewed_target_gets_its_mean_back():
    # exponential noise (mean 0.3, shifted to mean 0): Huber's threshold 0.246 sits inside
    # the upper tail, so the fitted intercept is below the mean residual by about 0.05 (7
    # release standard deviations at epsilon 4); corrected, the training mean residual is
    # within a few release standard deviations of 0 and the held-out R^2 is higher (the
    # bias^2 removed is about 0.003 against a variance of y near 0.1: about +0.02)
    X, y = _regression(n=4000, skewed=True)
    X_test, y_test = _regression(n=20000, seed=1, skewed=True)
    for seed in range(3):
        on = _pipe(4.0, random_state=seed).fit(X, y)
        off = _pipe(4.0, random_state=seed, mean_correction=False).fit(X, y)
        c = on.mean_correction_
        assert c.applied and c.shift > 0.02
        assert abs(np.mean(y - off.predict(X))) > 0.02  # what the correction removes
        assert abs(np.mean(y - on.predict(X))) < 4 * c.noise_std + 0.01
        assert on.score(X_test, y_test) > off.score(X_test, y_test) + 0.01
