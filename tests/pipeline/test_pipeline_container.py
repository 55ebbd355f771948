"""A DPPipeline indexes, slices, names and configures its steps like scikit-learn's Pipeline."""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from skdpgd import DPLogisticRegression, DPPipeline, make_dp_pipeline
from skdpgd.preprocessing import BoundedScaler, DPTableVectorizer


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, size=n)
    colour = rng.choice(["red", "blue", "green"], size=n)
    y = ((x > 5) ^ (rng.uniform(size=n) < 0.1)).astype(int)
    return pd.DataFrame({"x": x, "colour": colour}), y


def _fitted():
    X, y = _table()
    pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                            epsilon=2.0, random_state=0)
    return pipe.fit(X, y), X


def test_length_and_unfitted_indexing_read_the_given_steps():
    scaler, model = BoundedScaler((0, 10)), DPLogisticRegression(classes=[0, 1])
    pipe = make_dp_pipeline(scaler, model, epsilon=0.5, random_state=3)
    assert len(pipe) == 2
    assert pipe[0] is scaler and pipe[-1] is model
    assert pipe["dplogisticregression"] is model
    assert pipe.named_steps["boundedscaler"] is scaler
    head = pipe[:1]
    assert isinstance(head, DPPipeline)
    assert head.steps[0][1] is scaler
    assert (head.epsilon, head.random_state) == (0.5, 3)


def test_after_fit_indexing_reads_the_fitted_clones():
    pipe, _X = _fitted()
    given = pipe.steps[-1][1]
    final = pipe[-1]
    assert final is not given  # the user's step is never fitted in place
    assert final is pipe.pipeline_.steps[-1][1]
    assert hasattr(final, "coef_") and not hasattr(given, "coef_")
    assert pipe.named_steps["dplogisticregression"] is final
    assert pipe["dptablevectorizer"] is pipe.pipeline_.steps[0][1]


def test_after_fit_a_slice_transforms_as_the_estimator_saw():
    pipe, X = _fitted()
    head = pipe[:-1]
    assert isinstance(head, Pipeline) and len(head) == 1
    Xt = head.transform(X)
    np.testing.assert_array_equal(pipe[-1].predict(Xt), pipe.predict(X))
    names = head.get_feature_names_out()
    assert len(names) == Xt.shape[1]
    assert list(names) == list(pipe[0].get_feature_names_out())


def test_feature_names_out_refuses_like_sklearn_when_the_last_step_does_not_transform():
    pipe, _ = _fitted()
    with pytest.raises(AttributeError, match="get_feature_names_out"):
        pipe.get_feature_names_out()


def test_a_slice_with_a_step_and_an_unknown_name_are_refused():
    pipe, _ = _fitted()
    with pytest.raises(ValueError, match="step"):
        pipe[::2]
    with pytest.raises(KeyError, match="no step named 'nope'"):
        pipe["nope"]


def test_set_output_reaches_the_fitted_and_the_later_fitted_steps():
    X, y = _table()
    pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                            epsilon=2.0, random_state=0)
    assert pipe.set_output(transform="pandas") is pipe
    pipe.fit(X, y)
    out = pipe[:-1].transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(pipe[0].get_feature_names_out())
    pipe.set_output(transform="default")
    assert not isinstance(pipe[:-1].transform(X), pd.DataFrame)
