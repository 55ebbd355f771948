"""What a DPPipeline refuses before its charge: decided from public declarations only.

- a ``PreparedStep`` is trusted only with the charged release ``prepare`` (or
  ``DPSearchCV``) attached to it; one made by hand is refused, before any charge, by the
  pipeline's fit, ``plan_privacy``, ``prepare`` and its own ``privacy_``;
- a solver is admitted by its declared capability (``Solver.reports_mu``), not by its
  name: a registered solver whose report is not mu-GDP is refused before the charge;
- the parameters the pipeline's budget sets on its steps (``epsilon``, ``delta``,
  ``random_state``, ``ledger``) follow one rule: at their defaults they are the
  pipeline's, any other value is refused before the charge, naming it.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, make_dp_pipeline, solvers
from skdpgd.pipeline import PreparedStep
from skdpgd.preprocessing import BoundedScaler, DPTableVectorizer


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 1500
    X = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    y = (X["a"] > 0).astype(int).to_numpy()
    return X, y


def _pipe(vectorizer=None, **kw):
    est = DPLogisticRegression(classes=[0, 1], max_iter=10, solver="gd")
    return make_dp_pipeline(DPTableVectorizer() if vectorizer is None else vectorizer, est,
                            random_state=0, **kw)


# -- a prepared step carries a charged release ------------------------------------------------

def test_a_hand_made_prepared_step_is_refused_before_the_charge(table):
    # The report was headed "(1, 1e-05)-DP" and said the step was
    # charged once, although nothing was (the step was released at epsilon=inf by hand).
    X, y = table
    by_hand = PreparedStep(DPTableVectorizer(epsilon=np.inf).fit(X))
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(by_hand, DPLogisticRegression(classes=[0, 1], max_iter=10),
                            epsilon=1.0, ledger=ledger, random_state=0)
    for call in (lambda: pipe.fit(X, y), lambda: pipe.plan_privacy(len(X)),
                 lambda: pipe.prepare(X), lambda: by_hand.privacy_):
        with pytest.raises(ValueError, match=r"pipeline\.prepare\(X, ledger=\.\.\.\)"):
            call()
    assert ledger.entries == ()
    assert not hasattr(pipe, "privacy_")


def test_a_prepared_step_from_prepare_reports_what_its_charge_covered(table):
    X, y = table
    ledger = PrivacyLedger()
    prepared = _pipe().prepare(X, ledger=ledger)
    (step_name, step), = [s for s in prepared.steps if isinstance(s[1], PreparedStep)]
    charged = ledger.entries[0]
    assert len(ledger.entries) == 1
    prepared.fit(X, y)
    (name, report), = prepared.privacy_.shared
    assert name == step_name and report is step.step.privacy_
    # what the ledger was charged for the preparation bounds what the release spent
    assert report.mu <= charged.event.mu * (1 + 1e-12)
    # the charged release survives a pickle and a clone of the pipeline
    again = pickle.loads(pickle.dumps(prepared))
    assert again.steps[0][1].privacy_.mu == report.mu
    assert clone(prepared).steps[0][1] is step


def test_a_prepared_step_whose_step_was_replaced_or_refitted_is_refused(table):
    X, y = table
    prepared = _pipe().prepare(X)
    step = prepared.steps[0][1]
    step.step.fit(X)  # refitted by hand on its standalone budget: another release
    with pytest.raises(ValueError, match="replaced or refitted"):
        prepared.fit(X, y)
    other = _pipe().prepare(X).steps[0][1]
    other.step = DPTableVectorizer(epsilon=np.inf).fit(X)
    with pytest.raises(ValueError, match="replaced or refitted"):
        other.privacy_  # noqa: B018 - the property refuses


class _LooksPrepared(BoundedScaler):
    """Declares itself prepared (the class attribute) with a report of its own making."""

    __skdpgd_prepared__ = True
    privacy_ = None


def test_a_step_that_only_declares_itself_prepared_is_refused(table):
    X, y = table
    Xn = X[["a"]].to_numpy()
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(_LooksPrepared((-3, 3)), DPLogisticRegression(classes=[0, 1]),
                            ledger=ledger, random_state=0)
    with pytest.raises(TypeError, match="declares itself prepared"):
        pipe.fit(Xn, y)
    assert ledger.entries == ()


# -- solvers admitted by their declared capability -------------------------------------------

class _ToyNotGdp(solvers.SampledSolver):
    """A registered solver whose report is not mu-GDP (it declares so), not named "sgd"."""

    name = "toy_not_gdp"
    reports_mu = False


@pytest.fixture
def toy_not_gdp():
    solvers.register(_ToyNotGdp.name, _ToyNotGdp)
    try:
        yield _ToyNotGdp.name
    finally:
        solvers.unregister(_ToyNotGdp.name)


def test_a_solver_that_does_not_report_mu_is_refused_before_the_charge(table, toy_not_gdp):
    # Before: such a fit was charged, ran, then failed with
    # "'SampledSGDPrivacyReport' object has no attribute 'mu'".
    X, y = table
    Xn = np.column_stack([X["a"].clip(-3, 3) / 3, np.ones(len(X))])
    ledger = PrivacyLedger()
    for pipe in (make_dp_pipeline(BoundedScaler((-1, 1)),
                                  DPLogisticRegression(classes=[0, 1], solver=toy_not_gdp),
                                  ledger=ledger, random_state=0),
                 make_dp_pipeline(DPTableVectorizer(),
                                  DPLogisticRegression(classes=[0, 1], solver=toy_not_gdp),
                                  ledger=ledger, random_state=0)):
        data = Xn if isinstance(pipe.steps[0][1], BoundedScaler) else X
        for call in (lambda pipe=pipe, data=data: pipe.fit(data, y),
                     lambda pipe=pipe, data=data: pipe.prepare(data, ledger=ledger),
                     lambda pipe=pipe: pipe.plan_privacy(len(X))):
            with pytest.raises(ValueError, match=r"solver='toy_not_gdp'.*reports_mu=False"):
                call()
    assert ledger.entries == ()


class _ToyMisdeclared(solvers.SampledSolver):
    """A solver that declares reports_mu=True and reports no mu: a broken contract."""

    name = "toy_misdeclared"
    reports_mu = True


def test_a_solver_that_misdeclares_its_report_meets_a_clear_error():
    # after the run, check_allowance named no step and failed on the report's '.mu'
    pytest.importorskip("dp_accounting")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 2))
    y = (X[:, 0] > 0).astype(int)
    solvers.register(_ToyMisdeclared.name, _ToyMisdeclared)
    try:
        pipe = make_dp_pipeline(
            BoundedScaler((-1, 1)),
            DPLogisticRegression(classes=[0, 1], solver=_ToyMisdeclared.name, max_iter=2),
            random_state=0)
        with pytest.raises(RuntimeError, match="'dplogisticregression' reports "
                                               "SampledSGDPrivacyReport, which has no"):
            pipe.fit(X, y)
    finally:
        solvers.unregister(_ToyMisdeclared.name)


def test_sgd_is_refused_by_its_declaration_and_the_message_names_the_usable_solvers():
    pipe = make_dp_pipeline(DPLogisticRegression(classes=[0, 1], solver="sgd"))
    with pytest.raises(ValueError, match="reports_mu=False") as refusal:
        pipe.plan_privacy(100)
    usable = [n for n in solvers.names() if solvers.get(n).reports_mu]
    assert "sgd" not in usable and str(usable) in str(refusal.value)


# -- one rule for the parameters the pipeline sets ------------------------------------------

@pytest.mark.parametrize("param, value", [
    ("epsilon", 0.1), ("delta", 1e-7), ("random_state", 3), ("ledger", PrivacyLedger()),
])
@pytest.mark.parametrize("where", ["estimator", "private step"])
def test_a_parameter_the_pipeline_sets_is_refused_before_the_charge(table, param, value,
                                                                    where):
    # Before: DPLogisticRegression(epsilon=0.1) in a pipeline of epsilon 4
    # spent epsilon 4 with no word (a ledger in the same place was refused).
    X, y = table
    ledger = PrivacyLedger()
    pipe = _pipe(epsilon=4.0, ledger=ledger)
    name = pipe.steps[-1 if where == "estimator" else 0][0]
    pipe.set_params(**{f"{name}__{param}": value})
    with pytest.raises(ValueError, match=rf"Step '{name}' .* sets {param}=") as refusal:
        pipe.fit(X, y)
    assert repr(value) in str(refusal.value) and "DPPipeline" in str(refusal.value)
    if param == "epsilon":  # the value the pipeline would spend is named
        assert "(it is 4.0)" in str(refusal.value)
    assert ledger.entries == ()
    with pytest.raises(ValueError, match=f"sets {param}="):
        pipe.plan_privacy(len(X))
    with pytest.raises(ValueError, match=f"sets {param}="):
        pipe.prepare(X)
    assert ledger.entries == ()


def test_the_defaults_written_out_are_the_pipelines_and_a_clone_keeps_the_rule(table):
    X, _y = table
    explicit = DPRidge(epsilon=1.0, delta="auto", random_state=None, ledger=None,
                       y_bound=1.0, max_iter=5, solver="gd")
    pipe = make_dp_pipeline(BoundedScaler((-3, 3)), explicit, epsilon=0.5, random_state=0)
    Xn = X[["a"]].to_numpy()
    spent = pipe.fit(Xn, np.tanh(Xn[:, 0])).privacy_.epsilon
    assert spent <= 0.5
    refused = clone(pipe.set_params(dpridge__epsilon=2.0))
    with pytest.raises(ValueError, match=r"sets epsilon=2\.0"):
        refused.fit(Xn, np.tanh(Xn[:, 0]))


def test_a_grid_over_a_steps_budget_is_refused_not_ignored(table):
    # every candidate would have spent the pipeline's epsilon whatever the grid said
    X, y = table
    ledger = PrivacyLedger()
    search = GridSearchCV(_pipe(ledger=ledger),
                          {"dplogisticregression__epsilon": [0.1, 1.0]},
                          cv=KFold(2), error_score="raise")
    with pytest.raises(ValueError, match=r"sets epsilon=0\.1"):
        search.fit(X, y)
    assert ledger.entries == ()


@pytest.mark.parametrize("y", [np.arange(40).astype("datetime64[D]"),
                               np.arange(40).astype("timedelta64[s]")])
def test_a_date_or_duration_target_is_refused_before_the_charge(y):
    from skdpgd import DPLogisticRegression, PrivacyLedger, make_dp_pipeline
    from skdpgd.preprocessing import BoundedScaler

    ledger = PrivacyLedger()
    X = np.random.default_rng(0).uniform(size=(40, 2))
    pipe = make_dp_pipeline(BoundedScaler((0, 1)), DPLogisticRegression(classes="private"),
                            epsilon=1.0, ledger=ledger, random_state=0)
    with pytest.raises(TypeError, match="date or duration"):
        pipe.fit(X, y)
    assert len(ledger.entries) == 0
