"""The private coefficient table of a raw-table pipeline in the units of the raw columns."""

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer

BOUNDS = {"age": (20.0, 70.0), "hours": (10.0, 60.0)}


def _table(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.uniform(20, 70, n), "hours": rng.uniform(10, 60, n),
                          "city": rng.choice(["a", "b", "c"], n)})
    y = 1.0 + 0.02 * frame["age"] - 0.01 * frame["hours"] + 0.3 * (frame["city"] == "a")
    return frame, np.clip(y + rng.normal(0, 0.1, n), -3, 3)


def _fit(model, frame, y):
    vectorizer = DPTableVectorizer(bounds=BOUNDS, categories={"city": ["a", "b", "c"]})
    return make_dp_pipeline(vectorizer, model, epsilon=8.0, delta=1e-5,
                            random_state=0).fit(frame, y)


def test_original_units_reproduce_the_model_on_the_range():
    # An identity of the map, whatever the noise: on rows inside the public ranges the
    # raw-unit coefficients give the model's own predictions.
    frame, y = _table()
    pipe = _fit(DPRidge(y_bound=3.0, inference=True), frame, y)
    model = pipe.summary(units="model")
    original = pipe.summary(units="original")
    assert list(model.index) == list(original.index)
    X_out = pipe.pipeline_[0].transform(frame)
    divisor = pipe.pipeline_[0].row_divisor_
    raw = X_out * divisor  # a 0/1 column (a level, an indicator) per unit of itself
    for j, name in enumerate(model.index[:-1]):
        if name in BOUNDS:
            raw[:, j] = frame[name].to_numpy()
    via_model = X_out @ model["coef"].to_numpy()[:-1] + model["coef"].iloc[-1]
    via_raw = raw @ original["coef"].to_numpy()[:-1] + original["coef"].iloc[-1]
    np.testing.assert_allclose(via_raw, via_model, rtol=0, atol=1e-9)
    np.testing.assert_allclose(via_model, pipe.predict(frame), rtol=0, atol=1e-9)
    # a level's coefficient is per unit of its indicator, the linear ones per raw unit
    assert "city_a" not in model.index  # the reference level (first of the public list)
    assert original.loc["city_b", "coef"] == pytest.approx(
        model.loc["city_b", "coef"] / divisor, rel=1e-12)
    assert original.loc["age", "std_err"] != model.loc["age", "std_err"]
    assert any("per unit of the raw column" in note for note in original.attrs["notes"])


def test_original_units_estimate_the_raw_slopes():
    # y = 1 + 0.02 age - 0.01 hours + 0.3 [city = a] + noise: at epsilon 8 on 4000 rows
    # the raw-unit intervals cover the true slopes (fixed seed; the check is loose).
    frame, y = _table()
    pipe = _fit(DPRidge(y_bound=3.0, inference=True), frame, y)
    table = pipe.summary(units="original")
    for name, slope in (("age", 0.02), ("hours", -0.01)):
        low, high = table.loc[name, ["ci_low", "ci_high"]]
        assert low <= slope <= high
        assert high - low < 0.02  # informative: narrower than the slope's size
    # the levels b and c against the reference level a: -0.3 each, per unit of y
    for name in ("city_b", "city_c"):
        low, high = table.loc[name, ["ci_low", "ci_high"]]
        assert low <= -0.3 <= high
        assert "contrast against city_a" in table.loc[name, "note"]


def test_summary_units_are_checked_and_need_inference():
    frame, y = _table(n=600)
    pipe = _fit(DPRidge(y_bound=3.0, inference=True), frame, y)
    with pytest.raises(ValueError, match="units"):
        pipe.summary(units="raw")
    labels = (y > np.median(y)).astype(int)
    plain = _fit(DPLogisticRegression(classes=[0, 1]), frame, labels)
    with pytest.raises(AttributeError, match="inference=True"):
        plain.summary(units="original")
