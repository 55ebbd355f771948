"""A DPPipeline refuses what the estimator's parameters alone decide before its ledger's
charge: lam = 0 (C=np.inf, alpha=0) without max_coef_norm, a sampler its solver does not
run. DPSearchCV likewise for its candidates."""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._ledger import PrivacyLedger
from skdpgd.model_selection import DPSearchCV
from skdpgd.pipeline import DPPipeline
from skdpgd.preprocessing import DPTableVectorizer


def _data(n=300):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("estimator, message", [
    (DPLogisticRegression(C=np.inf, classes=[0, 1]), "max_coef_norm"),
    (DPRidge(alpha=0.0, y_bound=1.0), "max_coef_norm"),
    (DPLogisticRegression(sampling="uniform", classes=[0, 1]), "solver='sgd' only"),
])
def test_pipeline_refuses_before_the_charge(estimator, message):
    X, y = _data()
    ledger = PrivacyLedger()
    pipe = DPPipeline([("prep", DPTableVectorizer(bounds={0: (-3, 3), 1: (-3, 3)})),
                       ("model", estimator)], epsilon=2.0, ledger=ledger)
    with pytest.raises(ValueError, match=message):
        pipe.fit(X, y)
    assert ledger.entries == ()
    # with the radius the same pipeline fits and is charged once
    if message == "max_coef_norm":
        pipe.set_params(model__max_coef_norm=2.0).fit(X, y)
        assert len(ledger.entries) == 1


def test_search_refuses_an_unbounded_candidate_before_the_charge():
    X, y = _data()
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-5)
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1], solver="gd", max_iter=5),
                        {"C": [1.0, np.inf]}, epsilon=2.0, delta=1e-5, ledger=ledger,
                        random_state=0)
    with pytest.raises(ValueError, match="max_coef_norm"):
        search.fit(X, y)
    assert ledger.entries == ()
