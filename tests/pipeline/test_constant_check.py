"""The constant check: a DP pipeline's model against the private constant predictor.

What is checked (docs/theory.md, "Never below the constant predictor"): the public share
rule and where the check applies; that the release is in the planned report the ledger is
charged and in the fitted report, composed exactly within the estimator's allowance; the
sensitivities of both releases by brute force over neighbouring tables; the level (a model
no better than the constant is kept at most 5% of the time) and the fallback's predictions;
``constant_check=False`` gives the estimator its whole share.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, make_dp_pipeline
from skdpgd.pipeline._budget import split_budget
from skdpgd.pipeline._constant_fallback import (
    CONSTANT_CHECK,
    LEVEL,
    _classifier_release,
    _regressor_release,
    plan_constant_check,
    run_constant_check,
)
from skdpgd.preprocessing import BoundedScaler


def _binary(n=3000, seed=0, signal=2.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (signal * X[:, 0] + rng.logistic(size=n) > 0.8).astype(int)
    return X, y


def _regression(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    return X, 0.5 * X[:, 0] - 0.2 * X[:, 1] + rng.normal(0, 0.1, n)


def _pipe(final, epsilon, **kw):
    return make_dp_pipeline(BoundedScaler((-1, 1)), final, epsilon=epsilon, delta=1e-5,
                            random_state=0, **kw)


# -- the public plan ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [300, 3000, 30000])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_share_is_the_documented_rule_and_fits_the_allowance(n, epsilon, kind):
    budget = split_budget(epsilon, 1e-5, [False])
    final = DPLogisticRegression(classes=[0, 1]) if kind == "classifier" else DPRidge(
        y_bound=1.0)
    plan = plan_constant_check(final, budget, n, enabled=True)
    mu = budget.estimator_mu
    kappa2 = 4.5 if kind == "classifier" else 8.0  # the lead's variance times mu_c^2 (K = 2)
    floor = 1.0 - 1.0 / 1.01 ** 2                   # the fit's noise scale up by 1%
    assert plan.share == pytest.approx(min(0.5, max(floor, kappa2 / (n * mu * mu))), rel=1e-12)
    assert plan.fit_mu ** 2 + plan.check_mu ** 2 <= mu ** 2
    assert plan.check_mu ** 2 == pytest.approx(plan.share * mu ** 2, rel=1e-9)
    # the check's noise on the lead is at most the lead's sampling noise (sqrt n) unless capped
    if plan.share < 0.5:
        assert math.sqrt(kappa2) / plan.check_mu <= math.sqrt(n) * (1 + 1e-9)
    assert plan.margin == pytest.approx(1.6448536269514722 * math.sqrt(kappa2) / plan.check_mu)


@pytest.mark.parametrize("final", [
    DPLogisticRegression(classes=[0, 1], class_weight="balanced"),
    DPLogisticRegression(classes="private"),
    DPLogisticRegression(),  # no public label set
    DPLogisticRegression(classes=[0, 1], fit_intercept=False),
    DPRidge(y_bound=1.0, inference=True),
    DPRidge(y_bound=1.0, fit_intercept=False),
])
def test_no_check_where_the_parameters_do_not_call_for_it(final):
    budget = split_budget(1.0, 1e-5, [False])
    assert plan_constant_check(final, budget, 1000, enabled=True) is None
    assert plan_constant_check(DPRidge(y_bound=1.0), budget, 1000, enabled=False) is None
    assert plan_constant_check(DPRidge(y_bound=1.0), split_budget(np.inf, 1e-5, [False]),
                               1000, enabled=True) is None


def test_auto_checks_classifiers_and_leaves_regressors_unchanged():
    budget = split_budget(1.0, 1e-5, [False])
    assert plan_constant_check(DPRidge(y_bound=1.0), budget, 1000) is None
    assert plan_constant_check(DPRidge(y_bound=1.0), budget, 1000, enabled=True) is not None
    assert plan_constant_check(DPLogisticRegression(classes=[0, 1]), budget, 1000) is not None
    assert plan_constant_check(DPLogisticRegression(classes=[0, 1]), budget, 1000,
                               enabled=np.False_) is None
    X, y = _regression()
    pipe = _pipe(DPRidge(y_bound=1.0), 1.0, mean_correction=False).fit(X, y)
    assert not hasattr(pipe, "constant_check_")
    assert [name for name, _ in pipe.privacy_.steps] == ["dpridge"]


# -- the accounting: planned, charged, spent ------------------------------------------------

@pytest.mark.parametrize("kind", ["classifier", "regressor", "auto"])
def test_the_check_is_planned_charged_and_composed_exactly(kind):
    if kind == "classifier":
        (X, y), final = _binary(), DPLogisticRegression(classes=[0, 1])
    else:
        (X, y), final = _regression(), DPRidge(y_bound=1.0 if kind == "regressor" else "auto")
    ledger = PrivacyLedger()
    # the regressor's mean correction off: this test is the check's own split
    pipe = _pipe(final, 0.5, ledger=ledger, constant_check=True,
                 mean_correction=False).fit(X, y)
    report, planned = pipe.privacy_, pipe.plan_privacy(len(X), X=X)
    names = [name for name, _ in report.steps]
    assert names[-2:] == [pipe.steps[-1][0], CONSTANT_CHECK]
    # the plan charges the estimator's allowance unchanged (the check is inside it)
    assert [name for name, _ in planned.steps] == names[:-1]
    assert planned.steps[-1][1].mu == pipe.budget_.estimator_mu
    assert "constant check within mu=" in planned.steps[-1][1].mechanism
    off = _pipe(final, 0.5, constant_check=False,
                mean_correction=False).plan_privacy(len(X), X=X)
    assert planned.mu == off.mu  # the same charge, to the bit
    mus = [r.mu for _, r in report.steps]
    assert report.mu == pytest.approx(math.sqrt(math.fsum(m * m for m in mus)), rel=1e-12)
    fit_mu, check_mu = mus[-2], mus[-1]
    assert fit_mu ** 2 + check_mu ** 2 <= pipe.budget_.estimator_mu ** 2
    assert check_mu ** 2 == pytest.approx(pipe.constant_check_.share
                                          * pipe.budget_.estimator_mu ** 2, rel=1e-9)
    assert report.mu <= planned.mu and report.epsilon <= 0.5
    # the ledger was charged once, with the plan (the check inside it)
    (entry,) = ledger.entries
    assert entry.event.mu == pytest.approx(planned.mu, rel=1e-12)
    assert "constant check" in repr(report) and "constant check" in repr(planned)
    assert "constant check" in str(report.to_dict())


def test_switched_off_the_estimator_gets_its_whole_share():
    X, y = _binary()
    on = _pipe(DPLogisticRegression(classes=[0, 1]), 0.5).fit(X, y)
    off = _pipe(DPLogisticRegression(classes=[0, 1]), 0.5, constant_check=False).fit(X, y)
    assert not hasattr(off, "constant_check_") and hasattr(on, "constant_check_")
    assert [name for name, _ in off.privacy_.steps] == ["dplogisticregression"]
    assert off.privacy_.steps[-1][1].mu > on.privacy_.steps[-2][1].mu
    assert off.privacy_.mu <= off.budget_.estimator_mu * (1 + 1e-12)
    assert off.get_params()["constant_check"] is False


# -- the releases' sensitivities, by brute force ----------------------------------------------

class _Fixed:
    """A fitted model with fixed predictions per row (the check conditions on the model)."""

    def __init__(self, predictions, classes=None, y_bound=None):
        self.predictions, self.y_bound = np.asarray(predictions), y_bound
        self.classes_ = None if classes is None else np.asarray(classes)
        self.coef_ = np.ones((1, 2)) if classes is not None else np.ones(2)
        self.intercept_ = np.ones(1 if classes is None or len(classes) == 2 else len(classes))
        if classes is None:
            self.intercept_ = 1.0

    def predict(self, X):
        return self.predictions[np.asarray(X, dtype=int).ravel()]

    def _public_target_bound(self):
        return self.y_bound


class _NoNoise:
    def normal(self, loc, scale, size=None):
        return np.zeros(size) if size is not None else 0.0


def _classifier_vector(y, predictions, classes):
    model = _Fixed(predictions, classes)
    lead, _, counts = _classifier_release(model, np.arange(len(y)), y, 1.0, _NoNoise())
    best = int(np.argmax(counts))
    return np.append(counts, lead + counts[best])  # (c_1..c_K, a)


def test_the_classifier_release_has_sensitivity_sqrt3():
    # every table of 3 rows over 3 classes, and every replacement of one row (the model's
    # prediction for a row moves with the row: the row's (x, y) is replaced)
    classes = [0, 1, 2]
    worst = 0.0
    for ys in itertools.product(classes, repeat=3):
        for preds in itertools.product(classes, repeat=3):
            v = _classifier_vector(np.array(ys), np.array(preds), classes)
            for y_new, p_new in itertools.product(classes, classes):
                y2, p2 = np.array(ys), np.array(preds)
                y2[0], p2[0] = y_new, p_new
                w = _classifier_vector(y2, p2, classes)
                worst = max(worst, float(np.linalg.norm(v - w)))
    assert worst == pytest.approx(math.sqrt(3.0))


def _lead(y, f, mean, bound):
    """D of docs/theory.md for a released mean (the code computes it: the next test)."""
    yc, fc = np.clip(y, -bound, bound), np.clip(f, -bound, bound)
    return np.sum((yc - mean) ** 2 - (fc - yc) ** 2)


@pytest.mark.parametrize("mean", [-2.0, -0.3, 0.0, 1.1, 2.0])
def test_the_regressor_releases_have_sensitivities_2B_and_4B_B_plus_m(mean):
    # every replacement of one row of 4-row tables over a grid that reaches past [-B, B];
    # the lead's for a fixed released mean m, attained: 2h = 4B(B + |m|)
    bound = 2.0
    values = np.array([-5.0, -2.0, -1.1, -0.7, 0.0, 0.3, 1.1, 1.3, 2.0, 9.0])
    rng = np.random.default_rng(0)
    worst_sum, worst_lead = 0.0, 0.0
    for _ in range(300):
        y = rng.choice(values, 4)
        f = rng.choice(values, 4)
        for y_new, f_new in itertools.product(values, values):
            y2, f2 = y.copy(), f.copy()
            y2[0], f2[0] = y_new, f_new
            sums = [np.clip(t, -bound, bound).sum() for t in (y, y2)]
            worst_sum = max(worst_sum, abs(sums[0] - sums[1]))
            leads = [_lead(yy, ff, mean, bound) for yy, ff in ((y, f), (y2, f2))]
            worst_lead = max(worst_lead, abs(leads[0] - leads[1]))
    assert worst_sum == pytest.approx(2 * bound)
    assert worst_lead <= 4 * bound * (bound + abs(mean)) * (1 + 1e-12)
    # attained: the row (y, f) = (-sign(m) B, -sign(m) B) against (sign(m) B, -sign(m) B)
    sign = 1.0 if mean >= 0 else -1.0
    one = _lead(np.array([-sign * bound]), np.array([-sign * bound]), mean, bound)
    other = _lead(np.array([sign * bound]), np.array([-sign * bound]), mean, bound)
    assert abs(one - other) == pytest.approx(4 * bound * (bound + abs(mean)))


def test_the_regressor_release_computes_the_documented_lead():
    bound = 1.0
    y = np.array([-3.0, -0.5, 0.2, 0.9, 1.0])
    f = np.array([0.0, -0.4, 2.0, 0.8, -1.0])
    lead, mean, counts = _regressor_release(_Fixed(f, y_bound=bound), np.arange(5), y, 1.0,
                                            _NoNoise())
    assert counts is None and mean == pytest.approx(np.clip(y, -1, 1).mean())
    assert lead == pytest.approx(_lead(y, f, mean, bound))  # in units of B^2 = 1


def test_the_regressor_lead_is_not_truncated():
    # 90 rows where the model is 0.3 closer to y than the mean, 10 where it is 1.9 off
    # (y = -1, prediction 0.9): better in squared error truncated at B^2 = 1, worse in
    # plain squared error, and the check (at a budget that resolves it) replaces it
    bound = 1.0
    y = np.r_[np.full(90, 0.5), np.full(10, -1.0)]
    f = np.r_[np.full(90, 0.5), np.full(10, 0.9)]
    mean = y.mean()
    truncated = np.sum(np.minimum((y - mean) ** 2, 1) - np.minimum((f - y) ** 2, 1))
    assert truncated > 0 > _lead(y, f, mean, bound)
    plan = plan_constant_check(DPRidge(y_bound=bound), split_budget(1e4, 1e-5, []), 100,
                               enabled=True)
    check, _ = run_constant_check(_Fixed(f, y_bound=bound), np.arange(100), y, plan, 0)
    assert not check.kept_model and check.noisy_lead < 0


# -- the decision: the level and the fallback -------------------------------------------------

def test_a_model_no_better_than_the_constant_is_kept_at_most_at_the_level():
    # the model predicts the majority class on every row: its lead over the constant is 0,
    # the boundary of the null; 4000 independent checks
    _X, y = _binary(n=2000, seed=3)
    budget = split_budget(0.3, 1e-5, [])
    plan = plan_constant_check(DPLogisticRegression(classes=[0, 1]), budget, len(y))
    majority = int(np.bincount(y).argmax())
    kept = 0
    for seed in range(4000):
        model = _Fixed(np.full(len(y), majority), classes=[0, 1])
        check, _ = run_constant_check(model, np.arange(len(y)), y, plan, seed)
        kept += check.kept_model
    # one-sided: the count stays below the 0.999 quantile of Binomial(4000, 0.05)
    assert kept <= binom.ppf(0.999, 4000, LEVEL)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_projected_lead_has_the_documented_noise_and_keeps_the_level(n_classes):
    # classes far apart (the largest always wins the noisy argmax) and a model that predicts
    # it on every row: the lead is 0 and its noise is exactly N(0, 3 (2 - 1/K) / mu_c^2), so
    # the keep rate is the level itself, not below it (the projection onto sum = n is what
    # lowers the noise from 6 / mu_c^2); the noisy counts sum to n exactly
    rng = np.random.default_rng(7)
    weights = np.array([0.55, 0.25, 0.15, 0.05])[:n_classes]
    y = rng.choice(n_classes, size=4000, p=weights / weights.sum())
    classes = list(range(n_classes))
    plan = plan_constant_check(DPLogisticRegression(classes=classes),
                               split_budget(1.0, 1e-5, []), len(y))
    assert plan.margin == pytest.approx(
        1.6448536269514722 * math.sqrt(3.0 * (2.0 - 1.0 / n_classes)) / plan.check_mu)
    model = _Fixed(np.zeros(len(y), dtype=int), classes=classes)
    kept = 0
    for seed in range(4000):
        check, _ = run_constant_check(model, np.arange(len(y)), y, plan, seed)
        kept += check.kept_model
        assert math.isclose(math.fsum(check.noisy_counts.tolist()), len(y), rel_tol=1e-12)
    assert binom.ppf(0.001, 4000, LEVEL) <= kept <= binom.ppf(0.999, 4000, LEVEL)


def test_a_regressor_no_better_than_the_constant_is_kept_at_the_level():
    # the model predicts the clipped mean of y plus two standard deviations of the noisy
    # mean on every row: its expected lead over the released mean is below 0 and within a
    # hundredth of the check's noise of it (the boundary of the null), so the keep rate is
    # at most a and not far below it: the margin's h / B^2 = 2(1 + |m|/B) is the noise's
    rng = np.random.default_rng(5)
    n, bound = 2000, 1.0
    y = rng.uniform(-0.9, 0.3, n)  # mean -0.3: h = 2B(B + |m|) differs from 2B^2
    plan = plan_constant_check(DPRidge(y_bound=bound), split_budget(0.3, 1e-5, []), n,
                               enabled=True)
    mean_sd = 2 * bound / (plan.check_mu / math.sqrt(2.0) * n)
    model = _Fixed(np.full(n, y.mean() + 2 * mean_sd), y_bound=bound)
    kept = sum(run_constant_check(model, np.arange(n), y, plan, seed)[0].kept_model
               for seed in range(4000))
    # one-sided bounds: the 0.999 quantile of Binomial(4000, a), and half the level
    assert kept <= binom.ppf(0.999, 4000, LEVEL)
    assert kept >= binom.ppf(0.001, 4000, LEVEL / 2)


def test_a_noise_model_becomes_the_intercept_only_model_of_the_noisy_counts():
    X, y = _binary(n=3000, seed=1, signal=0.0)  # no signal: the model is noise at best
    pipe = _pipe(DPLogisticRegression(classes=[0, 1]), 0.05).fit(X, y)
    check = pipe.constant_check_
    assert not check.kept_model
    model = pipe.pipeline_[-1]
    assert np.all(model.coef_ == 0)
    predictions = pipe.predict(X)
    assert np.all(predictions == check.constant)
    p = np.maximum(check.noisy_counts, 1.0)
    np.testing.assert_allclose(pipe.predict_proba(X[:3]), np.tile(p / p.sum(), (3, 1)),
                               rtol=1e-12)
    # never below the constant predictor: the fallback predicts the majority here
    assert check.constant == np.bincount(y).argmax()


def test_a_regressor_falls_back_to_the_noisy_mean_in_the_units_of_y():
    X, _ = _regression(n=5000)
    y = 40.0 + np.random.default_rng(2).normal(0, 5, len(X))  # no signal
    pipe = _pipe(DPRidge(y_bound="auto"), 0.1, constant_check=True).fit(X, y)
    check = pipe.constant_check_
    assert not check.kept_model
    low, high = pipe.target_range_
    assert low < 40 < high  # the released range, not the public fallback
    predictions = pipe.predict(X)
    np.testing.assert_allclose(predictions, (high + low) / 2 + (high - low) / 2
                               * check.constant, rtol=1e-12)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_good_model_at_a_fair_budget_is_kept(kind):
    if kind == "classifier":
        (X, y), final = _binary(signal=4.0), DPLogisticRegression(classes=[0, 1])
    else:
        (X, y), final = _regression(), DPRidge(y_bound=1.0)
    on = _pipe(final, 1.0, constant_check=True).fit(X, y)
    off = _pipe(final, 1.0, constant_check=False).fit(X, y)
    assert on.constant_check_.kept_model
    assert on.score(X, y) >= off.score(X, y) - 0.01  # the fit lost at most its share's noise
