"""Searches on the raw-table path: the preparation released once, charged once, shared.

DPPipeline.prepare, GridSearchCV over a prepared pipeline under a capped ledger,
search_privacy_cost equal to the ledger, plans within the epsilon asked for, the additive
delta shown beside epsilon, DPSearchCV on the default pipeline, privacy_utility_curve on
a DPPipeline.
"""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting, make_dp_pipeline
from skdpgd._cli._ledger import show_lines
from skdpgd._ledger._inspect import inspect_file
from skdpgd.accounting._events import GaussianDpEvent, GaussianDpWithDeltaEvent
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import (
    DPSearchCV,
    privacy_utility_curve,
    search_privacy_cost,
)
from skdpgd.pipeline import PreparedStep
from skdpgd.preprocessing import DPTableVectorizer

DELTA = 1e-5


@pytest.fixture(scope="module")
def table():
    """A raw table: a numeric column with missing values, a categorical one with
    missing values, a boolean; a binary target that depends on the first two."""
    rng = np.random.default_rng(0)
    n = 900
    age = rng.uniform(20, 70, size=n)
    colour = rng.choice(["red", "green", "blue"], size=n, p=[0.5, 0.3, 0.2]).astype(object)
    flag = rng.random(n) < 0.4
    y = ((age > 45) ^ (colour == "red") ^ (rng.random(n) < 0.1)).astype(int)
    age[rng.random(n) < 0.1] = np.nan
    colour[rng.random(n) < 0.05] = None
    X = pd.DataFrame({"age": age, "colour": colour, "flag": flag})
    return X, y


def _pipe(**kw):
    vectorizer = kw.pop("vectorizer", DPTableVectorizer())
    est = DPLogisticRegression(classes=[0, 1], max_iter=20, solver="gd")
    return make_dp_pipeline(vectorizer, est, random_state=0, **kw)


def _grid_search(estimator, epsilons=(0.5, 1.0), cs=(0.1, 1.0)):
    grid = {"epsilon": list(epsilons), "dplogisticregression__C": list(cs)}
    return GridSearchCV(estimator, grid, cv=KFold(3, shuffle=True, random_state=0))


def test_prepare_charges_once_and_later_fits_charge_the_model_only(table):
    X, y = table
    ledger = PrivacyLedger()
    pipe = _pipe()
    prepared = pipe.prepare(X, ledger=ledger)
    assert isinstance(prepared.steps[0][1], PreparedStep)
    assert not hasattr(pipe.steps[0][1], "privacy_")  # the user's steps are unchanged
    (entry,) = ledger.entries
    assert isinstance(entry.event, GaussianDpWithDeltaEvent)  # histograms + thresholds
    assert "additive delta" in repr(entry) and "Poisson" not in repr(entry)
    # the allowance a fit of this pipeline gives its preparation, charged once
    planned = pipe.plan_privacy(len(X), X=X)
    assert entry.mu == pytest.approx(planned.steps[0][1].mu, rel=1e-12)
    assert entry.event.extra_delta == pytest.approx(planned.extra_delta, rel=1e-12)
    fitted = prepared.fit(X, y)
    second = ledger.entries[-1]
    assert type(second.event) is GaussianDpEvent  # no additive delta, no histogram
    # the model gets the whole budget: mu(epsilon=1, delta) exactly, up to the margins
    assert second.mu == pytest.approx(accounting.epsilon_delta_to_gdp(1.0, DELTA), rel=1e-8)
    report = fitted.privacy_
    assert report.epsilon <= 1.0 and report.extra_delta == 0.0
    assert [name for name, _ in report.shared] == ["dptablevectorizer"]
    assert "shared, released once" in repr(report)
    assert clone(prepared).steps[0][1] is prepared.steps[0][1]  # every clone shares it


def test_prepared_grid_search_completes_under_a_cap_and_its_cost_equals_the_ledger(table):
    X, y = table
    ids = np.arange(len(X))
    ledger = PrivacyLedger(epsilon=10.0, delta=DELTA)
    prepared = _pipe(ledger=ledger).prepare(X, sample_ids=ids)
    search = _grid_search(prepared, epsilons=(0.25, 0.5, 1.0, 2.0)).fit(X, y, sample_ids=ids)
    assert len(ledger.entries) == 1 + 8 * 3 + 1
    spent = ledger.spent()
    assert spent.epsilon <= 10.0
    assert spent.extra_delta == pytest.approx(ledger.entries[0].event.extra_delta)
    cost = search_privacy_cost(search)
    assert cost.epsilon == pytest.approx(spent.epsilon, rel=1e-9)
    assert [name for name, _, _ in cost.shared] == ["dptablevectorizer"]
    # by hand: each record is in 2 training folds of every candidate, the refit and the
    # preparation; the model fits are mu(epsilon_c, delta)-GDP, the preparation's mu and
    # additive delta are its ledger entry's
    prep = ledger.entries[0].event
    mu2 = (2 * sum(accounting.epsilon_delta_to_gdp(e, DELTA) ** 2 for e in (0.25, 0.5, 1, 2))
           * 2 + accounting.epsilon_delta_to_gdp(search.best_params_["epsilon"], DELTA) ** 2
           + prep.mu ** 2)
    expected = accounting.gdp_to_epsilon(math.sqrt(mu2), DELTA - prep.extra_delta)
    assert spent.epsilon == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("categorical", ["discover", "hash"])
def test_search_cost_equals_the_ledger_without_preparation(table, categorical):
    X, y = table
    ids = np.arange(len(X))
    ledger = PrivacyLedger()
    pipe = _pipe(vectorizer=DPTableVectorizer(categorical=categorical), ledger=ledger)
    search = _grid_search(pipe).fit(X, y, sample_ids=ids)
    cost = search_privacy_cost(search, X=X)
    spent = ledger.spent(DELTA)
    assert math.isfinite(spent.epsilon)
    assert cost.epsilon == pytest.approx(spent.epsilon, rel=1e-9)
    assert cost.extra_delta == pytest.approx(spent.extra_delta, rel=1e-12)
    assert (spent.extra_delta > 0) == (categorical == "discover")
    # without X the vectorizer plans from its parameters: hashing never thresholds, and
    # discovery on a table with a categorical column does: the same total
    assert search_privacy_cost(search).epsilon == pytest.approx(spent.epsilon, rel=1e-9)


def test_an_infinite_total_says_which_releases_and_what_fixes_it(table):
    X, y = table
    pipe = _pipe()
    search = _grid_search(pipe, epsilons=(0.5, 1.0, 2.0), cs=(0.1, 1.0, 10.0)).fit(X, y)
    cost = search_privacy_cost(search, X=X)  # 2 x 9 + 1 fits: 19 additive deltas > delta
    assert cost.epsilon == math.inf and cost.extra_delta >= cost.delta
    assert "additive deltas" in cost.why_infinite and "prepare" in cost.why_infinite


def test_the_cap_message_shows_the_additive_delta_and_the_fix(table):
    X, y = table
    ledger = PrivacyLedger(epsilon=100.0, delta=DELTA)
    pipe = _pipe(ledger=ledger)
    for _ in range(9):  # each fit reserves 0.1 delta for the thresholds
        pipe.fit(X, y)
    assert ledger.spent().extra_delta == pytest.approx(9 * 0.1 * DELTA, rel=1e-9)
    assert "additive delta" in str(ledger.spent())
    at_smaller_delta = ledger.spent(9e-6)  # the additive deltas alone reach it
    assert at_smaller_delta.epsilon == math.inf
    assert "infinite because the additive deltas reach delta" in str(at_smaller_delta)
    with pytest.raises(PrivacyBudgetExceeded) as info:
        pipe.fit(X, y)
    message = str(info.value)
    assert "additive delta" in message and "DPPipeline.prepare" in message


def test_ledger_show_names_the_additive_delta(table, tmp_path):
    X, _y = table
    ledger = PrivacyLedger(path=tmp_path / "budget.sqlite")
    _pipe(ledger=ledger).prepare(X)
    lines = show_lines(inspect_file(tmp_path / "budget.sqlite"))
    assert any("+d0=" in line for line in lines)
    assert any("additive delta (thresholded releases)" in line for line in lines)


@pytest.mark.parametrize("categorical, numeric_only", [
    ("discover", False), ("hash", False), ("discover", True)])
def test_a_plan_without_the_table_never_exceeds_the_epsilon_asked_for(table, categorical,
                                                                        numeric_only):
    X, y = table
    if numeric_only:  # discovery asked for, nothing to discover: the plan still bounds it
        X = X[["age"]]
    pipe = _pipe(vectorizer=DPTableVectorizer(categorical=categorical))
    plan = pipe.plan_privacy(len(X))
    assert plan.epsilon <= 1.0
    assert (plan.extra_delta > 0) == (categorical == "discover")
    fit = pipe.fit(X, y).privacy_  # the fit is within the plan in both coordinates
    assert fit.mu <= plan.mu * (1 + 1e-12) and fit.extra_delta <= plan.extra_delta
    assert fit.epsilon <= plan.epsilon


def test_dpsearch_with_random_trials_runs_on_the_default_pipeline_with_one_total(table):
    X, y = table
    ids = np.arange(len(X))
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    search = DPSearchCV(_pipe(), {"dplogisticregression__C": [0.1, 1.0]}, epsilon=1.0,
                        delta=DELTA, expected_trials=10.0, ledger=ledger,
                        random_state=0).fit(X, y, sample_ids=ids)
    report = search.privacy_
    assert report.epsilon <= 1.0 and report.preparation_steps == ("dptablevectorizer",)
    # c = sqrt(rho / (1 - rho)) with the default rho = 0.1
    assert report.preparation_mu == pytest.approx(report.trial_mu / 3.0, rel=1e-12)
    assert report.preparation_extra_delta == pytest.approx(0.1 * DELTA)
    # the ledger composes the two charges (preparation, selection) to the same total
    assert [type(e.event).__name__ for e in ledger.entries] == [
        "GaussianDpWithDeltaEvent", "RenyiDpEvent"]
    assert ledger.spent().epsilon == pytest.approx(report.epsilon, rel=1e-9)
    assert [name for name, _ in search.best_estimator_.privacy_.shared] == [
        "dptablevectorizer"]
    assert search.best_estimator_.privacy_.mu <= report.trial_mu


def test_dpsearch_runs_on_the_default_pipeline_with_one_gaussian_total(table):
    """Every candidate once: the preparation gets what one pipeline fit gives it
    (sqrt(rho) mu), the trials the share s that brings the first round's margin to r_0
    and the refit the rest of the estimator's mu^2, composed exactly. (On 900 rows a
    search pays from epsilon 50 on; below, it is the pipeline's own fit.)"""
    X, y = table
    ids = np.arange(len(X))
    ledger = PrivacyLedger(epsilon=50.0, delta=DELTA)
    search = DPSearchCV(_pipe(), {"dplogisticregression__C": [0.1, 1.0]}, epsilon=50.0,
                        delta=DELTA, ledger=ledger, random_state=0).fit(X, y, sample_ids=ids)
    report = search.privacy_
    one_fit = _pipe(epsilon=50.0).plan_privacy(len(X), X=X)  # the same budget, no search
    assert report.mu == pytest.approx(one_fit.mu, rel=1e-8) and report.mu <= one_fit.mu
    assert report.preparation_mu == pytest.approx(math.sqrt(0.1) * one_fit.mu, rel=1e-8)
    assert report.n_candidates == 3  # C="auto" (the reference), 0.1, 1.0
    assert report.n_trials == 5  # and two to confirm a switch
    share = report.n_trials * report.trial_mu ** 2 / (0.9 * one_fit.mu ** 2)
    assert 0.02 < share < 0.1
    assert report.switch_margin == pytest.approx(0.02, rel=1e-9)  # r_0 in accuracy
    assert report.refit_mu ** 2 == pytest.approx((1 - share) * 0.9 * one_fit.mu ** 2,
                                                 rel=1e-8)
    assert report.preparation_extra_delta == pytest.approx(0.1 * DELTA)
    assert [type(e.event).__name__ for e in ledger.entries] == [
        "GaussianDpWithDeltaEvent", "GaussianDpEvent"]
    assert report.epsilon <= 50.0
    assert ledger.spent().epsilon == pytest.approx(report.epsilon, rel=1e-9)
    fitted = search.best_estimator_.privacy_
    assert fitted.n_samples == len(X) and fitted.mu <= report.refit_mu


def test_dpsearch_that_cannot_pay_is_the_pipeline_fit_bit_for_bit(table):
    """At epsilon 1 on 900 rows no search can pay: the search is the default pipeline's
    own fit with the search's seed (same predictions), charged once with its plan."""
    X, y = table
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    search = DPSearchCV(_pipe(), {"dplogisticregression__C": [0.1, 1.0]}, epsilon=1.0,
                        delta=DELTA, ledger=ledger, random_state=3).fit(X, y)
    alone = _pipe(epsilon=1.0, delta=DELTA).set_params(random_state=3).fit(X, y)
    np.testing.assert_array_equal(search.predict_proba(X), alone.predict_proba(X))
    assert search.best_params_ == {"dplogisticregression__C": "auto"}
    assert len(ledger.entries) == 1
    plan = _pipe(epsilon=1.0, delta=DELTA).plan_privacy(len(X), X=X)
    assert ledger.spent().epsilon == pytest.approx(plan.epsilon, rel=1e-12)
    assert search.privacy_.epsilon <= 1.0


def test_dpsearch_refuses_a_grid_over_the_shared_preparation_before_the_charge(table):
    X, y = table
    ledger = PrivacyLedger()
    search = DPSearchCV(_pipe(), {"dptablevectorizer__n_buckets": [8, 16]}, ledger=ledger)
    with pytest.raises(ValueError, match="once and shares it"):
        search.fit(X, y)
    assert ledger.entries == ()


def test_privacy_utility_curve_takes_a_prepared_pipeline(table):
    X, y = table
    ledger = PrivacyLedger()
    prepared = _pipe(ledger=ledger).prepare(X)
    rows = privacy_utility_curve(prepared, X, y, [0.5, 2.0], cv=3, baseline=False)
    assert [r["epsilon"] for r in rows] == [0.5, 2.0]
    assert all(0.0 <= r["mean_score"] <= 1.0 for r in rows)
    assert len(ledger.entries) == 1 + 2 * 3  # the preparation once, then the models
    assert all(type(e.event) is GaussianDpEvent for e in ledger.entries[1:])


def test_dpsearch_searches_a_prepared_pipeline_as_it_is(table):
    X, y = table
    ledger = PrivacyLedger()
    prepared = _pipe(ledger=None).prepare(X, ledger=ledger)
    search = DPSearchCV(prepared, {"dplogisticregression__C": [0.1, 1.0]}, epsilon=50.0,
                        delta=DELTA, ledger=ledger, random_state=0).fit(X, y)
    assert search.privacy_.preparation_steps == ()  # nothing left to release
    assert search.privacy_.epsilon <= 50.0  # (a search pays on 900 rows at 50)
    # the preparation was charged by prepare, the selection by the search
    assert [type(e.event).__name__ for e in ledger.entries] == [
        "GaussianDpWithDeltaEvent", "GaussianDpEvent"]
    assert search.best_estimator_.steps[0][1] is prepared.steps[0][1]
    # another ledger on the pipeline than the search's would be charged behind its back
    with pytest.raises(ValueError, match="not to its estimator"):
        DPSearchCV(prepared, {"dplogisticregression__C": [1.0]},
                   ledger=PrivacyLedger()).fit(X, y)


def test_a_prepared_step_is_frozen_and_prepare_needs_a_private_step(table):
    X, _ = table
    prepared = _pipe().prepare(X)
    with pytest.raises(ValueError, match="frozen"):
        prepared.set_params(dptablevectorizer__n_buckets=8)
    with pytest.raises(ValueError, match="no private preparation step"):
        prepared.prepare(X)
