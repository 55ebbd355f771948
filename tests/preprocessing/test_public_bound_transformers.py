"""skdpgd.preprocessing: public-bound transformers (values by hand, sklearn checks, Adult)."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgd import DPLogisticRegression
from skdpgd.preprocessing import (
    BoundedScaler,
    Log1pTransformer,
    PublicOneHotEncoder,
    RowNormClipper,
    public_one_hot,
)

ROOT = Path(__file__).resolve().parents[2]


@parametrize_with_checks(
    [BoundedScaler(bounds=(-3.0, 3.0)), BoundedScaler(bounds=(0.0, 5.0)), RowNormClipper(2.0),
     BoundedScaler(bounds=(0.0, 5.0), log1p=True), Log1pTransformer()]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# -- BoundedScaler ------------------------------------------------------------------

def test_bounded_scaler_values_by_hand():
    X = np.array([[17.0, 1.0], [53.5, 50.0], [200.0, -4.0]])
    out = BoundedScaler(bounds=([17.0, 1.0], [90.0, 99.0])).fit_transform(X)
    # (53.5 - 17) / 73 = 0.5 ; (50 - 1) / 98 = 0.5 ; 200 and -4 are clipped.
    assert_allclose(out, [[0.0, 0.0], [0.5, 0.5], [1.0, 0.0]], rtol=0, atol=1e-15)


def test_fit_reads_no_value_of_X():
    """Two data sets of the same shape give the same fitted state and the same map."""
    rng = np.random.default_rng(0)
    a = BoundedScaler(bounds=(0.0, 10.0)).fit(rng.uniform(0, 1, (50, 3)))
    b = BoundedScaler(bounds=(0.0, 10.0)).fit(rng.uniform(5, 1e6, (50, 3)))
    probe = rng.uniform(-5, 15, (20, 3))
    assert_array_equal(a.transform(probe), b.transform(probe))
    assert_array_equal(a.low_, b.low_)
    assert_array_equal(a.high_, b.high_)


def test_dict_bounds_need_names_and_follow_column_order():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"b": [0.0, 10.0], "a": [1.0, 3.0]})
    scaler = BoundedScaler(bounds={"a": (1.0, 3.0), "b": (0.0, 20.0)})
    scaler.set_output(transform="pandas")
    out = scaler.fit_transform(df)
    assert list(out.columns) == ["b", "a"]
    assert_allclose(out.to_numpy(), [[0.0, 0.0], [0.5, 1.0]])
    with pytest.raises(ValueError, match="no feature names"):
        BoundedScaler(bounds={"a": (0, 1)}).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match=r"missing \['a'\]"):
        BoundedScaler(bounds={"b": (0, 1)}).fit(df)


@pytest.mark.parametrize(
    "bounds, match",
    [((1.0, 1.0), "high must be > low"), ((0.0, np.nan), "finite"),
     (([0, 0, 0], [1, 1]), "shape"), ((0.0,), "pair")],
)
def test_bad_bounds_are_refused(bounds, match):
    with pytest.raises(ValueError, match=match):
        BoundedScaler(bounds=bounds).fit(np.zeros((3, 2)))


def test_sparse_only_when_lows_are_zero():
    X = sp.csr_matrix(np.array([[0.0, 4.0], [8.0, 0.0], [20.0, 1.0]]))
    out = BoundedScaler(bounds=(0.0, [10.0, 2.0])).fit_transform(X)
    assert sp.issparse(out)
    assert_allclose(out.toarray(), [[0.0, 1.0], [0.8, 0.0], [1.0, 0.5]])
    assert_allclose(BoundedScaler(bounds=(0.0, [10.0, 2.0])).fit_transform(X.tocsc()).toarray(),
                    out.toarray())
    with pytest.raises(TypeError, match="lower bound is 0"):
        BoundedScaler(bounds=(-1.0, 1.0)).fit(X)


def test_feature_names_out_and_float32():
    scaler = BoundedScaler(bounds=(0.0, 2.0)).fit(np.ones((2, 3), dtype=np.float32))
    assert list(scaler.get_feature_names_out()) == ["x0", "x1", "x2"]
    assert scaler.transform(np.ones((1, 3), dtype=np.float32)).dtype == np.float32


# -- RowNormClipper -----------------------------------------------------------------

def test_row_norm_clipper_dense_and_sparse():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [0.6, 0.8], [-6.0, 8.0]])
    expected = [[0.6, 0.8], [0.0, 0.0], [0.6, 0.8], [-0.6, 0.8]]  # 3-4-5 triangles by hand
    assert_allclose(RowNormClipper(1.0).fit_transform(X), expected, rtol=1e-15)
    out = RowNormClipper(1.0).fit_transform(sp.csr_matrix(X))
    assert sp.issparse(out)
    assert_allclose(out.toarray(), expected, rtol=1e-15)


def test_row_norm_clipper_pandas_output():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"u": [3.0, 0.3], "v": [4.0, 0.4]})
    out = RowNormClipper(max_norm=1.0).set_output(transform="pandas").fit_transform(df)
    assert list(out.columns) == ["u", "v"]
    assert_allclose(out.to_numpy(), [[0.6, 0.8], [0.3, 0.4]])


# -- one-hot ------------------------------------------------------------------------

def test_public_one_hot_refuses_auto_and_keeps_the_public_list():
    with pytest.raises(ValueError, match="explicitly"):
        public_one_hot("auto")
    with pytest.raises(ValueError, match="non-empty"):
        public_one_hot([["a"], []])
    assert isinstance(public_one_hot([["a"]]), PublicOneHotEncoder)
    enc = public_one_hot([["a", "b", "c"]]).fit([["c"]])  # fit sees only "c": list unchanged
    assert_array_equal(enc.transform([["a"], ["b"]]), [[1, 0, 0], [0, 1, 0]])
    assert list(enc.get_feature_names_out(["g"])) == ["g_a", "g_b", "g_c"]


def test_public_one_hot_unlisted_value_names_the_column_not_the_value():
    pd = pytest.importorskip("pandas")
    lists = [["Female", "Male"], ["US", "Peru"]]
    # The issue this guards against: a CSV read without skipinitialspace keeps a space.
    df = pd.DataFrame({"sex": [" Female", " Female", "Male"], "country": ["Peru"] * 3})
    with pytest.raises(ValueError, match="column 'sex'") as info:
        public_one_hot(lists, handle_unknown="error").fit(df)
    message = str(info.value)
    assert "Female" not in message  # no private value
    assert "2" not in message and "3" not in message  # no count of rows
    assert "skipinitialspace" in message and "handle_unknown='ignore'" in message
    # Without names the position is given; at transform time too.
    good = np.array([["Male", "US"]], dtype=object)
    enc = public_one_hot(lists, handle_unknown="error").fit(good)
    with pytest.raises(ValueError, match="column 1 has a value outside"):
        enc.transform(np.array([["Male", "Chile"]], dtype=object))


def test_public_one_hot_opt_outs_encode_zeros():
    lists = [["a", "b"], ["x", "y"]]
    rows = np.array([["?", "x"], ["b", "?"]], dtype=object)
    # A public missing-value marker: zeros, no error; any other value still refused.
    enc = public_one_hot(lists, unknown_values="?", handle_unknown="error").fit(rows)
    assert_array_equal(enc.transform(rows), [[0, 0, 1, 0], [0, 1, 0, 0]])
    with pytest.raises(ValueError, match=r"column 0 .* and its unknown_values"):
        enc.transform(np.array([["c", "x"]], dtype=object))
    per_column = public_one_hot(lists, unknown_values=[["?"], []],
                                handle_unknown="error").fit(rows[:1])
    with pytest.raises(ValueError, match="column 1"):
        per_column.transform(rows)
    with pytest.raises(ValueError, match="unknown_values has 1 entries"):
        public_one_hot(lists, unknown_values=[["?"]]).fit(rows)
    # handle_unknown="ignore": every unlisted value silently becomes zeros.
    ignore = public_one_hot(lists, handle_unknown="ignore").fit(rows)
    assert_array_equal(ignore.transform([["z", "y"]]), [[0, 0, 0, 1]])


def test_public_one_hot_default_gives_nan_after_which_the_estimator_refuses():
    """No refusal before the estimator's charge: NaN in the unlisted group."""
    from skdpgd import PrivacyLedger

    lists = [["a", "b"], ["x", "y"]]
    enc = public_one_hot(lists).fit(np.array([["zz", "x"]], dtype=object))  # fit reads nothing
    out = enc.transform(np.array([["c", "x"], ["a", "y"]], dtype=object))
    assert_array_equal(np.isnan(out), [[True, True, False, False], [False] * 4])
    assert_array_equal(out[1], [1, 0, 0, 1])
    assert_array_equal(out[0, 2:], [1, 0])
    # In a pipeline with a ledger: the fit is charged, then refused.
    rng = np.random.default_rng(0)
    rows = np.array([["a", "x"]] * 30 + [["c", "y"]], dtype=object)
    labels = rng.integers(0, 2, rows.shape[0])
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-3)
    model = make_pipeline(public_one_hot(lists), DPLogisticRegression(
        epsilon=1.0, data_norm=2.0, classes=[0, 1], ledger=ledger, random_state=0))
    with pytest.raises(ValueError):
        model.fit(rows, labels)
    assert ledger.spent().epsilon > 0  # charged before the refusal


@pytest.mark.parametrize("spelling", ["np.nan", "math.nan", "float", "np.float64", "None",
                                      "pd.NA", "pd.NaT", "np.float32"])
def test_public_one_hot_missing_spellings_alike(spelling):
    pd = pytest.importorskip("pandas")
    value = {"np.nan": np.nan, "math.nan": math.nan, "float": float("nan"),
             "np.float64": np.float64("nan"), "None": None, "pd.NA": pd.NA,
             "pd.NaT": pd.NaT, "np.float32": np.float32("nan")}[spelling]
    rows = np.array([["a"], [value]], dtype=object)
    for marker in (np.nan, math.nan, pd.NA, [None]):
        enc = public_one_hot([["a", "b"]], unknown_values=marker, handle_unknown="error")
        assert_array_equal(enc.fit(rows).transform(rows), [[1, 0], [0, 0]])
    listed = public_one_hot([["a", None]], handle_unknown="error").fit(rows)
    assert_array_equal(listed.transform(rows), [[1, 0], [0, 1]])
    df = pd.DataFrame({"g": pd.array(["a", value], dtype=object)})
    assert_array_equal(public_one_hot([["a"]], unknown_values=math.nan).fit_transform(df),
                       [[1], [0]])


def test_public_one_hot_sparse_and_in_a_column_transformer():
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer

    df = pd.DataFrame({"sex": ["Male", "Female"], "age": [20.0, 40.0]})
    ct = ColumnTransformer(
        [("cat", public_one_hot([["Female", "Male"]], sparse_output=True), ["sex"]),
         ("num", BoundedScaler(bounds={"age": (0.0, 100.0)}), ["age"])],
        verbose_feature_names_out=False,
    )
    out = ct.fit_transform(df)
    assert_allclose(np.asarray(out.todense() if sp.issparse(out) else out),
                    [[0, 1, 0.2], [1, 0, 0.4]])
    assert list(ct.get_feature_names_out()) == ["sex_Female", "sex_Male", "age"]
    assert sp.issparse(public_one_hot([["a"]], sparse_output=True).fit_transform([["a"]]))


def test_pipeline_with_estimator():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 100, size=(400, 4))
    y = (X[:, 0] > 50).astype(int)
    model = make_pipeline(
        BoundedScaler(bounds=(0.0, 100.0)), RowNormClipper(max_norm=2.0),
        DPLogisticRegression(epsilon=8.0, data_norm=2.0, classes=[0, 1], random_state=0),
    ).fit(X, y)
    # features in [0, 1]^4 => norm <= 2: clipping never binds, and with eps=8 on n=400 the
    # single-feature threshold rule is learnt well above chance (0.5); 0.75 leaves a wide
    # margin for the noise (the non-private model scores about 0.95 here).
    assert model.score(X, y) > 0.75


# -- Adult: the gallery's ColumnTransformer reproduces the benchmark preprocessing ----

def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adult_column_transformer_matches_benchmark():
    # The gallery's ColumnTransformer, the packaged preprocessor and the benchmark's own
    # code path give the same features on the Adult rows shipped with the package.
    pytest.importorskip("pandas")
    from skdpgd.datasets import load_adult, make_adult_preprocessor

    datasets = _load(ROOT / "benchmarks" / "datasets.py", "_bench_datasets")
    example = _load(ROOT / "examples" / "adult_preprocessing.py", "_adult_example")
    adult = load_adult(as_frame=True)
    df = adult.data.iloc[:300].astype(str)
    df["income"] = np.where(adult.target.iloc[:300] == 1, ">50K", "<=50K")
    expected, _ = datasets._adult_features(df)  # the benchmark's own code path
    numeric = list(datasets.ADULT_NUMERIC)
    df = df.astype({name: float for name in [*numeric, "fnlwgt"]})
    got = example.make_adult_preprocessor().fit_transform(df)
    assert got.shape == expected.shape == (300, 104)
    # Same float operations in the same order: equal to the last bit (1 ulp allowed).
    assert_allclose(got, expected, rtol=1e-15, atol=0)
    packaged = make_adult_preprocessor().fit_transform(load_adult().data[:300])
    assert_allclose(packaged, expected, rtol=1e-15, atol=0)
    names = example.make_adult_preprocessor().fit(df).get_feature_names_out()
    assert list(names[:5]) == numeric
    assert math.isclose(example.ROW_SCALE, datasets.ADULT_ROW_SCALE)


def test_bounds_whose_width_overflows_are_refused():
    # -1e308..1e308 are finite but their width is not: every value would map to 0
    with pytest.raises(ValueError, match="overflows"):
        BoundedScaler(bounds=(-1e308, 1e308)).fit(np.ones((3, 1)))


# -- public log scale, and no refusal on a value (issues 20 and 23) -------------------

def test_log1p_scaler_by_hand_and_public_bound():
    from skdpgd.preprocessing._public_steps import why_not_public

    X = np.array([[0.0, 10.0], [99999.0, 5.0], [1e300, -3.0]])
    out = BoundedScaler(bounds=([0.0, 5.0], [99999.0, 105.0]), log1p=True).fit_transform(X)
    # log1p(x - low) / log1p(high - low): 0 -> 0, top -> 1, log1p(5)/log1p(100) for 10
    assert_allclose(out, [[0.0, math.log1p(5) / math.log1p(100)], [1.0, 0.0], [1.0, 0.0]],
                    rtol=1e-15)
    assert_allclose(Log1pTransformer().fit_transform([[0.0, -2.0], [math.e - 1, 3.0]]),
                    [[0.0, 0.0], [1.0, math.log1p(3.0)]], rtol=1e-15)
    for step in (Log1pTransformer(), BoundedScaler((0, 1), log1p=True),
                 make_pipeline(Log1pTransformer(), BoundedScaler((0, 12)))):
        assert why_not_public(step) is None
    from sklearn.preprocessing import FunctionTransformer
    assert why_not_public(FunctionTransformer(np.log1p)) is not None
    from skdpgd.preprocessing import DPTableVectorizer
    assert "private step" in why_not_public(DPTableVectorizer())


@pytest.mark.parametrize("make", [
    lambda: BoundedScaler(bounds=(0.0, 10.0)), lambda: BoundedScaler((0.0, 10.0), log1p=True),
    lambda: RowNormClipper(1.0), lambda: Log1pTransformer()])
def test_public_transformers_pass_missing_values_as_nan(make):
    """NaN in (any spelling, or a string that is not a number) -> NaN out, never an error:
    the estimator refuses after its charge. Other rows are untouched by the bad ones."""
    pd = pytest.importorskip("pandas")
    good = np.array([[1.0, 2.0], [3.0, 4.0]])
    reference = make().fit(good).transform(good)
    for bad in (np.nan, math.nan, float("nan"), np.float64("nan"), None, pd.NA, "abc"):
        rows = np.array([[1.0, 2.0], [bad, 4.0], [3.0, 4.0]], dtype=object)
        out = make().fit(rows).transform(rows)
        assert np.isnan(out[1]).any()
        assert_array_equal(out[[0, 2]], reference)
    df = pd.DataFrame({"a": pd.array([1.0, None, 3.0], dtype="Float64"), "b": [2.0, 4.0, 4.0]})
    out = make().fit(df).transform(df)
    assert np.isnan(out[1]).any()
    assert_array_equal(out[[0, 2]], reference)


def test_infinite_values_are_clipped_by_the_scaler_and_nan_rows_by_the_clipper():
    X = np.array([[np.inf, -np.inf], [1.797e308, 0.5]])
    assert_array_equal(BoundedScaler((0.0, 1.0)).fit_transform(X), [[1.0, 0.0], [1.0, 0.5]])
    out = RowNormClipper(1.0).fit_transform(X)
    assert np.isnan(out[0]).all() and np.linalg.norm(out[1]) == pytest.approx(1.0)
    sparse = RowNormClipper(1.0).fit_transform(sp.csr_matrix(np.array([[np.nan, 0.0], [3.0, 4.0]])))
    assert np.isnan(sparse.toarray()[0, 0])
    assert_allclose(sparse.toarray()[1], [0.6, 0.8])
