"""What DPSearchCV admits before its charge: declared capabilities, charged releases.

- a candidate's solver is admitted by its declared capability (``Solver.reports_mu``),
  whatever its name: a registered solver whose report is not mu-GDP is refused before
  the charge, for a bare estimator, a Pipeline and a DPPipeline alike;
- a plain scikit-learn ``Pipeline`` holding a step released by ``DPPipeline.prepare``
  (a ``PreparedStep``) is searched (it failed with an AttributeError on
  ``_parameter_constraints``); one holding a hand-made ``PreparedStep`` is refused
  before the charge.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from skdpgd import DPLogisticRegression, PrivacyLedger, make_dp_pipeline, solvers
from skdpgd.model_selection import DPSearchCV
from skdpgd.pipeline import PreparedStep
from skdpgd.preprocessing import BoundedScaler, DPTableVectorizer

FAST = dict(epsilon=2.0, expected_trials=2.0, random_state=0)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(1)
    n = 1200
    X = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    y = ((X["a"] > 0) ^ (X["c"] == "x")).astype(int).to_numpy()
    return X, y


class _ToyNotGdp(solvers.SampledSolver):
    """A registered solver whose report is not mu-GDP (it declares so), not named "sgd"."""

    name = "toy_not_gdp_search"
    reports_mu = False


@pytest.fixture
def toy_not_gdp():
    solvers.register(_ToyNotGdp.name, _ToyNotGdp)
    try:
        yield _ToyNotGdp.name
    finally:
        solvers.unregister(_ToyNotGdp.name)


def _estimator(**kw):
    return DPLogisticRegression(classes=[0, 1], max_iter=10, solver="gd", **kw)


@pytest.mark.parametrize("container", ["estimator", "pipeline", "dp pipeline"])
@pytest.mark.parametrize("in_grid", [False, True])
def test_a_solver_that_does_not_report_mu_is_refused_before_the_charge(
        table, toy_not_gdp, container, in_grid):
    X, y = table
    Xn = np.column_stack([X["a"].clip(-3, 3) / 3, (X["c"] == "x").astype(float)])
    est = _estimator() if in_grid else _estimator().set_params(solver=toy_not_gdp)
    prefix = "" if container == "estimator" else "dplogisticregression__"
    grid = {prefix + "C": [0.1, 1.0]}
    if in_grid:
        grid[prefix + "solver"] = ["gd", toy_not_gdp]
    if container == "pipeline":
        est = Pipeline([("scale", BoundedScaler((-1, 1))), ("dplogisticregression", est)])
    elif container == "dp pipeline":
        est = make_dp_pipeline(DPTableVectorizer(), est)
    data = X if container == "dp pipeline" else Xn
    ledger = PrivacyLedger()
    search = DPSearchCV(est, grid, ledger=ledger, **FAST)
    with pytest.raises(ValueError, match=rf"solver='{toy_not_gdp}'.*reports_mu=False"):
        search.fit(data, y)
    assert ledger.entries == ()


def test_a_plain_pipeline_holding_a_prepared_step_is_searched(table):
    X, y = table
    ledger = PrivacyLedger()
    prepared = make_dp_pipeline(DPTableVectorizer(), _estimator(),
                                random_state=0).prepare(X, ledger=ledger)
    plain = Pipeline(prepared.steps)
    search = DPSearchCV(plain, {"dplogisticregression__C": [0.1, 1.0]}, ledger=ledger,
                        **FAST).fit(X, y)
    # the preparation once (prepare), then the search's one charge: nothing else
    assert len(ledger.entries) == 2
    assert search.privacy_.epsilon <= FAST["epsilon"]
    assert search.predict(X).shape == (len(X),)


def test_a_plain_pipeline_holding_a_hand_made_prepared_step_is_refused(table):
    X, y = table
    by_hand = PreparedStep(DPTableVectorizer(epsilon=np.inf).fit(X))
    ledger = PrivacyLedger()
    search = DPSearchCV(Pipeline([("vec", by_hand), ("dplogisticregression", _estimator())]),
                        {"dplogisticregression__C": [0.1, 1.0]}, ledger=ledger, **FAST)
    with pytest.raises(ValueError, match=r"pipeline\.prepare\(X, ledger=\.\.\.\)"):
        search.fit(X, y)
    assert ledger.entries == ()
