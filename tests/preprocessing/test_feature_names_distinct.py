"""A data level can never take the name of the catch-all, the missing indicator or a column."""

import numpy as np
import pandas as pd

from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._feature_names import distinct_feature_names


def test_levels_named_like_reserved_columns_get_distinct_names():
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({
        "c": rng.choice(["_other", "_missing", "a"], size=n),
        "c_a": rng.uniform(size=n),
    })
    vec = DPTableVectorizer(epsilon=np.inf, bounds={"c_a": (0, 1)},
                            categories={"c": ["_missing", "_other", "a"]}).fit(frame)
    names = list(vec.get_feature_names_out())
    assert len(set(names)) == len(names) == vec.transform(frame).shape[1]
    # the reserved names keep their meaning: the catch-all and the indicator of c
    assert names[:6] == ["c__missing_level", "c__other_level", "c_a_level", "c__other",
                         "c__missing", "c_a"]


def test_the_rule_suffixes_until_unique_and_keeps_reserved_names():
    blocks = [[("x_a", True), ("x_a_level", True), ("x__other", False)],
              [("x_a", False)]]
    assert distinct_feature_names(blocks) == ["x_a_level", "x_a_level_level", "x__other",
                                              "x_a"]
    assert distinct_feature_names([[("a", False), ("b", True)]]) == ["a", "b"]
