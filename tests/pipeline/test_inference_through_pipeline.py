"""``inference=True`` inside a DP pipeline: the units of every output, refusals before the
charge, a table without intervals where the preparation rules it out, the private label
set, the columns' names (docs/theory.md, "Inference through a pipeline")."""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer


def _linear_table(n, seed):
    """y = 100 + 50 x + N(0, 20^2), x ~ U(0, 10) in raw units (a public range)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 10.0, n)
    return pd.DataFrame({"x": x}), 100.0 + 50.0 * x + rng.normal(0.0, 20.0, n)


def _ridge_pipe(seed, **kw):
    vectorizer = DPTableVectorizer(bounds={"x": (0.0, 10.0)}, add_indicator=False)
    return make_dp_pipeline(vectorizer, DPRidge(y_bound="auto", inference=True),
                            epsilon=1.0, random_state=seed, **kw)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_inference_output_is_in_the_units_of_coef(seed):
    frame, y = _linear_table(20_000, seed)
    pipe = _ridge_pipe(seed).fit(frame, y)
    model = pipe.pipeline_[-1]
    ci = pipe.conf_int()
    estimate = np.r_[model.coef_, model.intercept_]
    assert np.all((ci[:, 0] < estimate) & (estimate < ci[:, 1]))  # was [1.01, 1.46] vs 55.9
    np.testing.assert_allclose(ci.mean(axis=1), estimate, rtol=1e-12)
    np.testing.assert_allclose(np.sqrt(np.diag(model.coef_cov_)),
                               np.r_[model.coef_se_, model.intercept_se_], rtol=1e-12)
    table = pipe.summary()
    np.testing.assert_allclose(table["coef"], estimate, rtol=1e-12)
    np.testing.assert_allclose(table["std_err"], np.r_[model.coef_se_, model.intercept_se_])
    np.testing.assert_allclose(model.inference_.estimate, estimate, rtol=1e-12)
    # y = 100 + 50 x in raw units: the truth within three standard errors
    raw = pipe.summary(units="original")
    for name, truth in (("x", 50.0), ("intercept", 100.0)):
        assert abs(raw.loc[name, "coef"] - truth) < 3 * raw.loc[name, "std_err"]
    assert raw.loc["x", "std_err"] < 1.0  # informative: 50 is known to within 2%
    assert "per unit of the raw column" in raw.loc["x", "note"]


def test_the_map_of_y_scales_se_by_s_and_shifts_only_the_intercept():
    frame, y = _linear_table(5_000, 3)
    pipe = _ridge_pipe(3).fit(frame, y)
    model = pipe.pipeline_[-1]
    low, high = pipe.target_range_
    s, c = (high - low) / 2, (high + low) / 2
    note = next(n for n in model.inference_.notes if n.startswith("units: those of y"))
    assert f"(y - {c:.6g}) / {s:.6g}" in note
    # the covers statement is in y's units: the Huber threshold s * c_internal, y's range
    assert f"threshold {s * model.residual_clip_:.6g}" in model.inference_.covers
    assert f"[{low:.6g}, {high:.6g}]" in model.inference_.covers
    # the slope's p-value is that of the internal fit (invariant); the intercept's
    # tests b' = s b + c = 0, not b = 0
    b_internal = (model.intercept_ - c) / s
    se_internal = model.intercept_se_ / s
    from scipy.stats import norm
    assert model.pvalues_[-1] == pytest.approx(2 * norm.sf(abs(model.intercept_) /
                                                           model.intercept_se_))
    assert abs(b_internal / se_internal) != pytest.approx(abs(model.intercept_ /
                                                              model.intercept_se_))


class _Ledger:
    """Records the charges; never refuses."""

    def __init__(self):
        self.calls = []

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        self.calls.append(report)


def _table(n, n_categories, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, n),
                          "g": rng.choice([f"c{i}" for i in range(n_categories)], n)})
    logit = 2.0 * frame["x"].to_numpy() - 1.0
    return frame, (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)


@pytest.mark.parametrize("params, message", [
    ({"classes": [0, 1], "residual_clip": 0.5}, "plain logistic loss"),
    ({"classes": [0, 1], "max_sample_weight": 2.0}, "does not support sample_weight"),
    ({"classes": [0, 1, 2]}, "binary logistic regression only"),
], ids=["clipped residual", "weights above 1", "three public classes"])
def test_public_refusals_come_before_the_pipeline_s_charge(params, message):
    frame, y = _table(2000, 3)
    ledger = _Ledger()
    pipe = make_dp_pipeline(DPTableVectorizer(),
                            DPLogisticRegression(inference=True, **params), ledger=ledger)
    with pytest.raises(ValueError, match=message):
        pipe.fit(frame, y)
    assert ledger.calls == []  # the old pipeline charged, released, then refused
    with pytest.raises(ValueError, match=message):
        pipe.plan_privacy(2000, X=frame)


def test_a_shape_no_width_can_identify_is_refused_before_the_charge():
    frame, y = _table(100, 3)
    ledger = _Ledger()
    pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound=1.0, inference=True),
                            epsilon=0.05, ledger=ledger)
    with pytest.raises(ValueError, match="needs n >= "):
        pipe.fit(frame, y.astype(float))
    assert ledger.calls == []


def test_a_width_the_preparation_makes_too_large_gives_the_model_without_intervals():
    # 40 discovered categories of ~300 rows: about 45 coefficients, more than 12,000 rows
    # at epsilon 0.5 can identify (public rule; the width is known only after the release)
    frame, y = _table(12_000, 40)
    ledger = _Ledger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_dp_pipeline(DPTableVectorizer(),
                                DPLogisticRegression(classes=[0, 1], inference=True),
                                epsilon=0.5, ledger=ledger, random_state=0).fit(frame, y)
    assert len(ledger.calls) == 1 and pipe.privacy_.epsilon <= 0.5
    model = pipe.pipeline_[-1]
    table = pipe.summary()
    assert len(table) == model.n_features_in_ + 1 > 30
    assert table[["std_err", "ci_low", "ci_high", "p_value"]].isna().all().all()
    np.testing.assert_allclose(table["coef"], np.r_[model.coef_.ravel(), model.intercept_])
    assert all(note.startswith("no interval") for note in table["note"])
    assert any("needs n >= " in note for note in table.attrs["notes"])
    assert any("no interval" in note for note in pipe.privacy_.notes)
    assert np.isnan(pipe.conf_int()).all() and np.isnan(model.pvalues_).all()
    assert pipe.predict(frame).shape == (12_000,)


def test_a_private_label_set_gives_a_table_under_a_ledger():
    frame, y = _table(6000, 3)
    labels = np.where(y == 1, "yes", "no")
    ledger = PrivacyLedger()
    vectorizer = DPTableVectorizer(bounds={"x": (0.0, 1.0)}, add_indicator=False,
                                   column_types={"g": "drop"})
    pipe = make_dp_pipeline(vectorizer,
                            DPLogisticRegression(classes="private", inference=True),
                            epsilon=2.0, ledger=ledger, random_state=0).fit(frame, labels)
    assert len(ledger.entries) == 1  # charged once; it was charged, then refused
    assert list(pipe.classes_) == ["no", "yes"]
    table = pipe.summary(units="original")
    assert list(table.index) == ["x", "intercept"]
    assert table["std_err"].notna().all()
    # logit P(yes) = 2 x - 1 per unit of the raw column x (public range [0, 1]; the
    # model saw it centred, 2 x - 1, so its own coefficients are 1 and 0)
    for name, truth in (("x", 2.0), ("intercept", -1.0)):
        assert table.loc[name, "ci_low"] < truth < table.loc[name, "ci_high"]
    assert "weight 0" in table.attrs["covers"]


def test_a_private_label_set_of_three_labels_gives_the_model_without_intervals():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 3000)})
    labels = rng.choice(["a", "b", "c"], 3000)
    ledger = _Ledger()
    pipe = make_dp_pipeline(DPTableVectorizer(bounds={"x": (0.0, 1.0)}, add_indicator=False),
                            DPLogisticRegression(classes="private", inference=True),
                            ledger=ledger, random_state=0).fit(frame, labels)
    assert len(ledger.calls) == 1
    table = pipe.summary()
    assert list(table.index) == ["a: x", "b: x", "c: x", "a: intercept", "b: intercept",
                                 "c: intercept"]
    assert table["p_value"].isna().all()
    assert any("binary logistic regression only" in n for n in table.attrs["notes"])


def test_the_table_names_the_pipeline_s_columns():
    frame, y = _table(3000, 3)
    pipe = make_dp_pipeline(DPTableVectorizer(categories={"g": ["c0", "c1", "c2"]}),
                            DPLogisticRegression(classes=[0, 1], inference=True),
                            epsilon=2.0, random_state=0).fit(frame, y)
    names = [*pipe.pipeline_[0].get_feature_names_out(), "intercept"]
    assert list(pipe.summary().index) == names
    assert pipe.pipeline_[-1].inference_.names == names  # was x0, x1, ...
    text = pipe.pipeline_[-1].inference_.text()
    assert "\ng_c1 " in text and "\nx0 " not in text
    assert "\ng_c0 " not in text and "g: g_c0" in text  # the reference level, named
    assert "covers: intervals cover the coefficients of the logistic model" in text
