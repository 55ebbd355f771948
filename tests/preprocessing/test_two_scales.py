"""A column the log rules put on a log scale keeps its linear feature (``_two_scales``)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._two_scales import TwoScaleEncoding, two_scales

ADVERSARIAL = np.array([np.nan, np.inf, -np.inf, 1.797e308, -1.797e308, 5e-324, 0.0, -0.0,
                        1.0, 4.0, 128.0, 1e12])


@pytest.mark.parametrize("log_scale, low", [("log1p", 0.0), ("logratio", 4.0)])
@pytest.mark.parametrize("median", [0.0, 4.0, 30.0, 128.0])
@pytest.mark.parametrize("indicator", [False, True])
def test_the_block_norm_bound_holds_for_every_value(log_scale, low, median, indicator):
    encoding = two_scales("x", low, 128.0, log_scale, median, indicator, "private")
    block = encoding.transform(ADVERSARIAL.copy())
    assert np.isfinite(block).all() and block.shape == (ADVERSARIAL.size, 2 + indicator)
    norms = np.sum(block ** 2, axis=1)
    assert norms.max() <= encoding.sq_norm_bound * (1 + 1e-15)
    # attained: a value at the top (both maps 1/sqrt 2), or a missing cell with its indicator
    assert norms.max() == pytest.approx(encoding.sq_norm_bound, rel=1e-15)
    assert encoding.sq_norm_bound <= (2.0 if indicator else 1.0)  # at most one map's
    assert encoding.feature_names() == ["x", "x__log"] + (["x__missing"] if indicator else [])


def test_the_two_features_are_the_linear_and_the_log_map():
    encoding = two_scales("x", 4.0, 128.0, "logratio", 32.0, False, "private")
    assert isinstance(encoding, TwoScaleEncoding) and encoding.scale == "linear"
    block = encoding.transform(np.array([4.0, 32.0, 128.0, 1e9, np.nan])) / np.sqrt(0.5)
    np.testing.assert_allclose(block[:, 0], [0.0, 28 / 124, 1.0, 1.0, 28 / 124], rtol=1e-15)
    np.testing.assert_allclose(block[:, 1], [0.0, 0.6, 1.0, 1.0, 0.6], rtol=1e-15)


def test_a_target_linear_in_a_wide_column_keeps_its_line_in_the_features():
    # an integer code 10,000-99,999 spans a factor 10: the wide-range rule's log ratio alone
    # (what log1p={"code": True} still gives) costs a non-private ridge on the features
    # 0.034 of R^2 here against scikit-learn's scaled column; with its linear feature
    # beside it 0.0002
    rng = np.random.default_rng(0)
    n = 10_000
    X = pd.DataFrame({"code": rng.integers(10_000, 100_000, n), "z": rng.standard_normal(n)})
    y = (X["code"] - 55_000) / 26_000 + X["z"] + 0.5 * rng.standard_normal(n)
    train, test = slice(0, n // 2), slice(n // 2, n)
    vec = DPTableVectorizer(epsilon=1.0, random_state=0).fit(X.iloc[train])
    assert vec.log1p_["code"]  # the rule still says log: both scales
    ours = Ridge(alpha=1e-6).fit(vec.transform(X.iloc[train]), y[train])
    theirs = make_pipeline(StandardScaler(), Ridge(alpha=1e-6)).fit(X.iloc[train], y[train])
    gap = theirs.score(X.iloc[test], y[test]) - ours.score(vec.transform(X.iloc[test]), y[test])
    assert gap < 0.005


def test_the_summary_names_both_maps_of_a_two_scale_column():
    import numpy as np
    import pandas as pd

    from skdpgd.preprocessing import DPTableVectorizer

    frame = pd.DataFrame({"c": np.random.default_rng(0).lognormal(3, 1.5, 2000)})
    vec = DPTableVectorizer(epsilon=np.inf).fit(frame)
    assert list(vec.get_feature_names_out())[:2] == ["c", "c__log"]
    assert vec.summary().loc["c", "rule"].startswith("linear + ")  # it said "linear"
