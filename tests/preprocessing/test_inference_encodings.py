"""The encodings a pipeline with ``inference=True`` asks for: reference levels, centring.

Each one-hot group of DPTableVectorizer gives all its levels by default, so the group
sums to the intercept column and no coefficient of it is identifiable; with
``one_hot_reference="first"`` the first column of each block is dropped (a public rule)
and ``__missing`` is not written where the dtype cannot hold a missing value. With
``centre=True`` a numeric value is written in [-1, 1]. Neither changes a release, and a
fit that asks for neither is unchanged.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd.preprocessing import BoundedScaler, DPTableVectorizer

N = 4000


def _frame(n=N, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.uniform(20, 70, n)
    age[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({
        "age": age,
        "city": rng.choice(["Lyon", "Oslo", "Rome", None], n, p=[.4, .3, .2, .1]),
        "k": rng.integers(0, 3, n),  # int64: cannot hold a missing value
    })


def _vectorizer(**params):
    """Public bounds and a public list for city: nothing to release (epsilon unused)."""
    return DPTableVectorizer(bounds={"age": (20.0, 70.0)},
                             categories={"city": ["Lyon", "Oslo", "Rome"],
                                         "k": [0, 1, 2]}, **params)


def test_reference_levels_drop_the_first_column_of_each_block():
    df = _frame()
    plain = _vectorizer().fit(df)
    ref = _vectorizer(one_hot_reference="first").fit(df)
    assert list(plain.get_feature_names_out()) == [
        "age", "age__missing", "city_Lyon", "city_Oslo", "city_Rome", "city__other",
        "city__missing", "k_0", "k_1", "k_2", "k__other", "k__missing"]
    # city: its first level goes; k (int64): its first level and its __missing go
    assert list(ref.get_feature_names_out()) == [
        "age", "age__missing", "city_Oslo", "city_Rome", "city__other", "city__missing",
        "k_1", "k_2", "k__other"]
    assert ref.reference_levels_ == {"city": "city_Lyon", "k": "k_0"}
    assert plain.reference_levels_ == {}
    # the same releases: the kept columns are those of the plain encoding, the reference
    # rows are 0 in their group
    names = list(plain.get_feature_names_out())
    kept = [names.index(name) for name in ref.get_feature_names_out()]
    a, b = plain.transform(df), ref.transform(df)
    assert_allclose(b * ref.row_divisor_, a[:, kept] * plain.row_divisor_, atol=1e-15)
    lyon = (df["city"] == "Lyon").to_numpy()
    assert_array_equal(b[lyon][:, 2:6], 0.0)
    # with the intercept column the design is identifiable: full column rank, once the
    # columns this sample leaves empty (city__other, k__other) are set aside; the plain
    # design is not
    for design, identifiable in ((b, True), (a, False)):
        design = np.column_stack([design[:, design.any(axis=0)], np.ones(len(design))])
        assert bool(np.linalg.matrix_rank(design) == design.shape[1]) is identifiable


def test_reference_of_a_hashed_or_empty_block():
    df = _frame()
    hashed = DPTableVectorizer(bounds={"age": (20.0, 70.0)}, categories={"k": [0, 1, 2]},
                               one_hot_reference="first", categorical="hash",
                               n_buckets=4).fit(df)
    assert hashed.reference_levels_["city"] == "city__hash0"
    assert "city__hash0" not in hashed.get_feature_names_out()
    none_kept = DPTableVectorizer(bounds={"age": (20.0, 70.0)},
                                  categories={"city": ["Paris"], "k": [0, 1, 2]},
                                  one_hot_reference="first").fit(df)
    assert none_kept.reference_levels_["city"] == "city_Paris"
    assert "city__other" in none_kept.get_feature_names_out()


def test_centred_numeric_values_and_the_norm_bound():
    df = _frame()
    plain = _vectorizer(scale_rows=False).fit(df)
    centred = _vectorizer(scale_rows=False, centre=True).fit(df)
    a, b = plain.transform(df), centred.transform(df)
    seen = ~np.isnan(df["age"].to_numpy())
    assert_allclose(b[seen, 0], 2 * a[seen, 0] - 1, atol=1e-15)
    assert_allclose(b[~seen, 0], 0.0, atol=1e-15)  # imputed at the public midpoint
    out = centred.transform(pd.DataFrame({"age": [20.0, 45.0, 70.0, 1e300, np.nan],
                                          "city": ["Lyon"] * 5, "k": [0] * 5}))
    assert_allclose(out[:, 0], [-1.0, 0.0, 1.0, 1.0, 0.0], atol=1e-15)
    # every row within the bound, the bound as before (an imputed 0 is smaller than 0.5)
    assert np.linalg.norm(b, axis=1).max() <= centred.row_norm_bound_ * (1 + 1e-12)
    assert centred.row_norm_bound_ <= plain.row_norm_bound_
    assert centred.privacy_.mu == plain.privacy_.mu


def test_bad_options_are_refused_before_any_value_is_read():
    for params, match in (({"one_hot_reference": "last"}, "one_hot_reference"),
                          ({"centre": "yes"}, "centre")):
        with pytest.raises(ValueError, match=match):
            _vectorizer(**params).fit(_frame(50))


def test_bounded_scaler_centres_by_the_public_midpoint():
    X = np.array([[0.0, 10.0], [5.0, 15.0], [10.0, 30.0]])
    plain = BoundedScaler(bounds=([0, 10], [10, 20])).fit_transform(X)
    centred = BoundedScaler(bounds=([0, 10], [10, 20]), centre=True).fit_transform(X)
    assert_allclose(centred, 2 * plain - 1)
    assert_allclose(centred, [[-1, -1], [0, 0], [1, 1]])
    dense = BoundedScaler(bounds=(0, 10), centre=True).fit_transform(sp.csr_matrix(X))
    assert not sp.issparse(dense) and dense[0, 0] == -1.0


def test_a_pipeline_asks_for_both_only_with_inference():
    df = _frame()
    y = (np.nan_to_num(df["age"].to_numpy(), nan=45.0) > 45).astype(int)
    with_table = make_dp_pipeline(_vectorizer(), DPLogisticRegression(
        classes=[0, 1], inference=True), epsilon=2.0, random_state=0).fit(df, y)
    without = make_dp_pipeline(_vectorizer(), DPLogisticRegression(classes=[0, 1]),
                               epsilon=2.0, random_state=0).fit(df, y)
    assert with_table.pipeline_[0].get_params()["one_hot_reference"] == "first"
    assert with_table.pipeline_[0].get_params()["centre"] is True
    assert without.pipeline_[0].get_params()["one_hot_reference"] == "auto"
    assert "city_Lyon" in without.pipeline_[0].get_feature_names_out()
    # the user's explicit choice stands
    kept = make_dp_pipeline(_vectorizer(one_hot_reference=None, centre=False),
                            DPLogisticRegression(classes=[0, 1], inference=True),
                            epsilon=2.0, random_state=0).fit(df, y)
    assert "city_Lyon" in kept.pipeline_[0].get_feature_names_out()
    scaler = make_dp_pipeline(BoundedScaler((0, 1)), DPRidge(y_bound=1.0, inference=True),
                              epsilon=2.0, random_state=0).fit(np.full((N, 1), 0.5), y)
    assert scaler.pipeline_[0].centre is True


def test_every_level_gets_an_interval_against_the_reference():
    # y = 1 + 0.5 [Oslo] - 0.5 [Rome] + noise; the old encoding gave every level of the
    # group NaN (not identified): now each is a contrast against Lyon, with an interval
    # that covers it in the raw units (per unit of the indicator)
    df = _frame(20000, seed=1)
    rng = np.random.default_rng(2)
    y = (1.0 + 0.5 * (df["city"] == "Oslo") - 0.5 * (df["city"] == "Rome")
         + rng.normal(0, 0.2, len(df))).to_numpy()
    pipe = make_dp_pipeline(_vectorizer(), DPRidge(y_bound=3.0, inference=True),
                            epsilon=4.0, random_state=0).fit(df, y)
    table = pipe.summary(units="original")
    for name, truth in (("city_Oslo", 0.5), ("city_Rome", -0.5), ("k_1", 0.0)):
        low, high = table.loc[name, ["ci_low", "ci_high"]]
        assert low <= truth <= high, (name, low, high)
        assert "contrast against" in table.loc[name, "note"]
    notes = " ".join(table.attrs["notes"])
    assert "city: city_Lyon" in notes and "k__missing" in notes and "centred" in notes
    # an all-zero column (k__other: no k beyond 0, 1, 2) has no p-value below .05
    assert not (table.loc["k__other", "p_value"] < 0.05)
