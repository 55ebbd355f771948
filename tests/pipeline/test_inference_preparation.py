"""The preparation a pipeline with ``inference=True`` asks of DPTableVectorizer: one linear
map per numeric column (``log1p=False``) and a missing cell next to its indicator written
at 0 (``add_indicator="zero"``), neither changing a release; a pipeline without inference
keeps the rule's two scales, and a model with an intercept gets its values centred and its
indicators at 0 (docs/theory.md, "What a pipeline's table covers", "Centred numeric
columns", "Indicators at 0 for every intercept model")."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer


def _heavy_table(n=6000, seed=0):
    """A heavy-tailed count (log-normal bulk near 0, a long tail; 10% missing cells in a
    float column) and a symmetric column; y linear in the raw count."""
    rng = np.random.default_rng(seed)
    count = np.floor(np.exp(rng.normal(0.5, 1.5, n)))
    count[rng.random(n) < 0.1] = np.nan
    a = rng.normal(50.0, 10.0, n)
    y = 3.0 * np.nan_to_num(count) + a + rng.normal(0.0, 5.0, n)
    return pd.DataFrame({"count": count, "a": a}), y


def _pipe(inference, vectorizer=None, seed=0):
    return make_dp_pipeline(vectorizer or DPTableVectorizer(),
                            DPRidge(y_bound="auto", inference=inference),
                            epsilon=4.0, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_heavy_tailed_count_gives_one_column_under_inference_and_two_without(seed):
    df, y = _heavy_table(seed=seed)
    with_table = _pipe(True, seed=seed).fit(df, y)
    without = _pipe(False, seed=seed).fit(df, y)
    # the rule fires on this column: the pipeline without inference gives both scales
    plain = list(without.pipeline_[0].get_feature_names_out())
    assert plain[:3] == ["count", "count__log", "count__missing"]
    assert without.pipeline_[0].summary().loc["count", "rule"] == "linear + log1p"
    vec = with_table.pipeline_[0]
    assert list(vec.get_feature_names_out()) == ["count", "count__missing", "a", "a__missing"]
    assert vec.summary().loc["count", "rule"] == "linear"
    assert vec.get_params()["log1p"] is False and vec.get_params()["add_indicator"] == "zero"
    assert without.pipeline_[0].get_params()["log1p"] == "auto"
    # with an intercept (not inference's option): the indicators at 0 too
    assert without.pipeline_[0].get_params()["add_indicator"] == "zero"
    # one linear map: its coefficient is written per unit of the raw count
    raw = with_table.summary(units="original")
    assert "per unit of the raw column" in raw.loc["count", "note"]
    # the table says where a missing cell is written, naming the indicators
    note = next(n for n in with_table.pipeline_[-1].inference_.notes
                if "add_indicator='zero'" in n)
    assert "midpoint" in note and "count__missing, a__missing" in note


def test_the_user_s_choices_stand_under_inference():
    df, y = _heavy_table()
    logged = _pipe(True, DPTableVectorizer(log1p=["count"], add_indicator=False)).fit(df, y)
    vec = logged.pipeline_[0]
    assert list(vec.get_feature_names_out()) == ["count", "a"]
    assert vec.summary().loc["count", "rule"] in ("log1p", "logratio")
    both = _pipe(True, DPTableVectorizer(log1p={})).fit(df, y)  # every column by the rule
    assert "count__log" in both.pipeline_[0].get_feature_names_out()


def test_the_preparation_changes_no_release():
    df, _ = _heavy_table()
    plain = DPTableVectorizer(epsilon=2.0, random_state=3).fit(df)
    prepared = DPTableVectorizer(epsilon=2.0, random_state=3, log1p=False,
                                 add_indicator="zero", centre=True).fit(df)
    assert prepared.bounds_ == plain.bounds_
    assert prepared.privacy_.mu == plain.privacy_.mu
    assert prepared.privacy_.releases == plain.privacy_.releases
    assert prepared.privacy_.extra_delta == plain.privacy_.extra_delta


@pytest.mark.parametrize("centre", [False, True])
def test_indicators_written_at_zero_add_nothing_to_the_row_norm_bound(centre):
    df, _ = _heavy_table(4000)
    # private ranges and medians, the same releases in each fit (one seed)
    fits = {mode: DPTableVectorizer(epsilon=4.0, random_state=0, add_indicator=mode,
                                    log1p=False, centre=centre, scale_rows=False).fit(df)
            for mode in ("auto", "zero", False)}
    # float columns: both have an indicator with "auto" and "zero", none with False
    assert fits["zero"].get_feature_names_out().tolist() == [
        "count", "count__missing", "a", "a__missing"]
    # two blocks of squared norm at most 1 each: what the columns give without indicators
    assert fits["zero"].row_norm_bound_ == pytest.approx(np.sqrt(2.0), rel=1e-15)
    assert fits["zero"].row_norm_bound_ == pytest.approx(fits[False].row_norm_bound_)
    assert fits["auto"].row_norm_bound_ > fits["zero"].row_norm_bound_  # 1 + m^2 each
    out = fits["zero"].transform(df)
    missing = df["count"].isna().to_numpy()
    assert_array_equal(out[missing, 0], 0.0)
    assert_array_equal(out[:, 1], missing.astype(float))
    assert_allclose(out[~missing, 0], fits["auto"].transform(df)[~missing, 0], rtol=0)
    edges = pd.DataFrame({"count": [np.nan, -1e300, 1e300, 0.0],
                          "a": [np.nan, np.nan, 1e300, -1e300]})
    for frame in (df, edges):
        rows = np.linalg.norm(fits["zero"].transform(frame), axis=1)
        assert rows.max() <= fits["zero"].row_norm_bound_ * (1 + 1e-12)
    summary = fits["zero"].summary()
    low, high = fits["zero"].bounds_["count"]
    assert summary.loc["count", "imputed"] == pytest.approx(
        (low + high) / 2 if centre else low, rel=1e-12)


def test_the_value_next_to_an_indicator_is_a_reparametrisation():
    # least squares with an intercept on [value, indicator]: the value's slope is the same
    # whatever a missing cell is written as; only the indicator's coefficient moves, by
    # slope times the difference of the written values
    df, y = _heavy_table(4000)
    fits = {}
    for mode in ("auto", "zero"):  # the same releases (one seed): the same ranges
        vec = DPTableVectorizer(epsilon=4.0, random_state=0, add_indicator=mode,
                                log1p=False, centre=True, scale_rows=False).fit(df)
        design = np.column_stack([vec.transform(df), np.ones(len(y))])
        fits[mode] = (np.linalg.lstsq(design, y, rcond=None)[0], vec)
    (auto, vec_auto), (zero, _) = fits["auto"], fits["zero"]
    assert_allclose(zero[[0, 2, 4]], auto[[0, 2, 4]], rtol=1e-9)  # value, a, intercept
    written = 2.0 * vec_auto.encodings_[0].impute - 1.0  # the median's written value
    assert written < -0.5  # a heavy tail's median sits near the low end
    assert_allclose(zero[1], auto[1] + auto[0] * written, rtol=1e-9)


@pytest.mark.parametrize("params, match", [({"log1p": True}, "log1p must be"),
                                           ({"log1p": "none"}, "log1p must be"),
                                           ({"add_indicator": "yes"}, "add_indicator must be"),
                                           ({"add_indicator": True}, "add_indicator must be")])
def test_values_that_are_not_options_are_refused_from_the_parameters(params, match):
    df, _ = _heavy_table(50)
    with pytest.raises(ValueError, match=match):
        DPTableVectorizer(**params).fit(df)


def test_a_step_that_does_not_declare_the_options_is_left_as_it_is():
    # a third-party public step with parameters that share the options' names and the
    # value "auto": the pipeline cannot know they mean the same, so it must not set them
    from sklearn.base import BaseEstimator, TransformerMixin

    from skdpgd.pipeline._checks import prepared_for

    class Foreign(TransformerMixin, BaseEstimator):
        def __init__(self, centre="auto", log1p="auto"):
            self.centre, self.log1p = centre, log1p

    pre = [("foreign", Foreign())]
    assert prepared_for(pre, DPRidge(y_bound=1.0, inference=True)) is pre
    # a declared step gets exactly its declared options, the others untouched
    (_, step), = prepared_for([("v", DPTableVectorizer())],
                                 DPRidge(y_bound=1.0, inference=True))
    assert step.get_params()["centre"] is True and step.get_params()["log1p"] is False
    assert step.get_params()["one_hot_reference"] == "first"
    assert step.get_params()["add_indicator"] == "zero"
    from skdpgd.preprocessing import BoundedScaler

    (_, scaler), = prepared_for([("s", BoundedScaler((0, 1)))],
                                DPRidge(y_bound=1.0, inference=True))
    assert scaler.get_params()["centre"] is True and scaler.get_params()["log1p"] is False


def test_a_model_with_an_intercept_gets_centred_numeric_values_and_others_do_not():
    # centring is a reparametrisation only where an intercept absorbs the shift; the
    # BoundedScaler does not declare it (centred, a sparse input would become dense)
    from skdpgd import DPLogisticRegression
    from skdpgd.pipeline._checks import prepared_for
    from skdpgd.preprocessing import BoundedScaler

    for final in (DPRidge(y_bound=1.0), DPLogisticRegression(classes=[0, 1])):
        (_, step), = prepared_for([("v", DPTableVectorizer())], final)
        assert step.get_params()["centre"] is True
        assert step.get_params()["add_indicator"] == "zero"
        assert step.get_params()["one_hot_reference"] == "auto"  # inference's only
        assert step.get_params()["log1p"] == "auto"
    pre = [("v", DPTableVectorizer())]
    assert prepared_for(pre, DPRidge(y_bound=1.0, fit_intercept=False)) is pre
    scaler = [("s", BoundedScaler((0, 1)))]
    assert prepared_for(scaler, DPRidge(y_bound=1.0)) is scaler
    # the user's choices stand: each option the user set, the other one still decided
    mine = [("v", DPTableVectorizer(centre=False, add_indicator=False))]
    assert prepared_for(mine, DPRidge(y_bound=1.0)) is mine
    (_, step), = prepared_for([("v", DPTableVectorizer(centre=False))], DPRidge(y_bound=1.0))
    assert step.get_params()["centre"] is False
    assert step.get_params()["add_indicator"] == "zero"
    (_, step), = prepared_for([("v", DPTableVectorizer(add_indicator=False))],
                              DPRidge(y_bound=1.0))
    assert step.get_params()["centre"] is True and step.get_params()["add_indicator"] is False


def test_centred_values_through_a_pipeline_span_minus_one_to_one():
    df, y = _heavy_table(n=3000)
    pipe = make_dp_pipeline(DPTableVectorizer(log1p=False), DPRidge(y_bound="auto"),
                            epsilon=4.0, random_state=0).fit(df, y)
    vectorizer = pipe.pipeline_[0]
    assert vectorizer.get_params()["centre"] is True
    standalone = DPTableVectorizer(log1p=False, epsilon=4.0, random_state=0).fit(df)
    assert standalone.get_params()["centre"] == "auto"  # the user's step is unchanged
    a = np.asarray(vectorizer.transform(df))[:, list(
        vectorizer.get_feature_names_out()).index("a")]
    divisor = vectorizer.row_divisor_
    assert a.min() * divisor < -0.5 and a.max() * divisor > 0.5  # both signs: centred


def test_an_intercept_model_s_indicators_take_nothing_from_the_other_columns_scale():
    # centred, a heavy tail's median is written near -1: beside its indicator the block's
    # squared bound is 1 + m^2, near 2, which shrinks every other column through the row
    # divisor; written at 0 it is 1, and the releases are those of the plain step
    df, y = _heavy_table(n=4000)
    fits = {intercept: make_dp_pipeline(
        DPTableVectorizer(log1p=False), DPRidge(y_bound="auto", fit_intercept=intercept),
        epsilon=4.0, random_state=0).fit(df, y).pipeline_[0] for intercept in (True, False)}
    vectorizer, plain = fits[True], fits[False]
    assert vectorizer.get_params()["add_indicator"] == "zero"
    assert plain.get_params()["add_indicator"] == "auto"  # no intercept: nothing decided
    assert vectorizer.privacy_.releases == plain.privacy_.releases
    assert vectorizer.bounds_ == plain.bounds_
    # two blocks of squared bound 1 (the count, a); imputed, 1 + m^2 each
    assert vectorizer.row_divisor_ == pytest.approx(np.sqrt(2.0), rel=1e-15)
    medians = [e.impute for e in plain.encodings_]
    assert plain.row_divisor_ == pytest.approx(
        np.sqrt(sum(1.0 + m ** 2 for m in medians)), rel=1e-12)
    out = vectorizer.transform(df)
    missing = df["count"].isna().to_numpy()
    assert_array_equal(out[missing, 0], 0.0)
    assert_allclose(out[missing, 1] * vectorizer.row_divisor_, 1.0, rtol=1e-15)
    assert np.linalg.norm(out, axis=1).max() <= 1.0 + 1e-12


def test_two_scale_blocks_at_zero_keep_every_row_within_the_bound():
    # a heavy tail and a mostly-zero count get both scales (linear and log) beside their
    # indicator; written at 0, each block's bound is 1, and no input, however adversarial
    # (NaN, infinities, 1e300, values outside the range), writes a row above norm 1
    rng = np.random.default_rng(0)
    n = 5000
    count = np.floor(np.exp(rng.normal(0.5, 1.5, n)))
    count[rng.random(n) < 0.1] = np.nan
    zeros = np.where(rng.random(n) < 0.85, 0.0, rng.poisson(3, n)).astype(float)
    zeros[rng.random(n) < 0.05] = np.nan
    df = pd.DataFrame({"count": count, "zeros": zeros, "a": rng.normal(50, 10, n),
                       "t": rng.choice(["x", "y", None], n)})
    y = np.nan_to_num(count) + rng.normal(0, 1, n)
    pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"), epsilon=2.0,
                            random_state=0).fit(df, y)
    vectorizer = pipe.pipeline_[0]
    names = vectorizer.get_feature_names_out().tolist()
    assert names[:3] == ["count", "count__log", "count__missing"]  # both scales
    assert vectorizer.row_divisor_ == pytest.approx(2.0, rel=1e-15)  # four blocks of 1
    values = [np.nan, -1e300, 1e300, np.inf, -np.inf, 0.0, -5.0, 1e6]
    for _ in range(200):
        frame = pd.DataFrame({column: rng.choice(values, 10) for column in ("count", "zeros", "a")}
                             | {"t": rng.choice(["x", "q", None], 10)})
        assert np.linalg.norm(vectorizer.transform(frame), axis=1).max() <= 1.0 + 1e-12
