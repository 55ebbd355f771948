"""Each column of a table grouped once while one step reads it several times."""

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression
from skdpgd.pipeline import make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer, _category_codes, _column_reading
from skdpgd.preprocessing._column_reading import column_groups, key_column, reading_once


def _table(n=600, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "city": rng.choice(["Lyon", "Paris", "Nice", None], n).astype(object),
        "job": pd.Series(rng.choice(["a", "b", "NA", "7"], n), dtype="str"),
        "mixed": np.array([[1, "x", True, 2.5, None][i % 5] for i in range(n)], dtype=object),
        "age": rng.integers(18, 90, n),
    }), (rng.random(n) < 0.4).astype(int)


@pytest.fixture
def groupings(monkeypatch):
    """How many times a column was grouped (calls of distinct_cells by the reading)."""
    calls = []
    original = _category_codes.distinct_cells

    def counted(values):
        calls.append(len(values))
        return original(values)

    monkeypatch.setattr(_column_reading, "distinct_cells", counted)
    return calls


def test_fit_transform_groups_each_text_column_once(groupings):
    X, _ = _table()
    vec = DPTableVectorizer(epsilon=2.0, random_state=0)
    out = vec.fit_transform(X)
    # three voted columns: the vote, the categories and the transform share one grouping
    assert len(groupings) == 3
    categorical = sum(kind == "categorical" for kind, _ in vec.types_.values())
    assert categorical == 2  # "mixed" is voted numeric: read as numbers, not grouped
    separate = DPTableVectorizer(epsilon=2.0, random_state=0).fit(X)
    assert len(groupings) == 3 + 3  # a fit alone: the vote and the categories share
    np.testing.assert_array_equal(out, separate.transform(X))  # bit for bit
    # outside the block, a transform groups its categorical columns afresh
    assert len(groupings) == 3 + 3 + categorical


def test_pipeline_fit_groups_each_text_column_once(groupings):
    X, y = _table()

    def fit():
        return make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                                epsilon=2.0, random_state=0).fit(X, y)

    first = fit()
    assert len(groupings) == 3
    again = fit()
    assert len(groupings) == 6
    np.testing.assert_array_equal(first.predict_proba(X), again.predict_proba(X))


def test_outputs_equal_to_readings_made_apart():
    X, _ = _table()
    vec = DPTableVectorizer(epsilon=2.0, random_state=5)
    with reading_once(X):
        inside = vec.fit(X).transform(X)
        categories = dict(vec.categories_)
        types = dict(vec.types_)
    apart = DPTableVectorizer(epsilon=2.0, random_state=5).fit(X)
    assert categories == apart.categories_ and types == apart.types_
    np.testing.assert_array_equal(inside, apart.transform(X))


def test_a_table_changed_after_the_block_is_read_afresh():
    X, _ = _table()
    vec = DPTableVectorizer(epsilon=2.0, categories={"city": ["Lyon", "Paris", "Nice"]},
                            random_state=0).fit_transform(X)
    fitted = DPTableVectorizer(epsilon=2.0, categories={"city": ["Lyon", "Paris", "Nice"]},
                               random_state=0).fit(X)
    before = fitted.transform(X)
    np.testing.assert_array_equal(vec, before)
    X.loc[0, "city"] = "Paris" if X.loc[0, "city"] != "Paris" else "Lyon"
    after = fitted.transform(X)
    assert not np.array_equal(after[0], before[0])  # the change is seen
    np.testing.assert_array_equal(after[1:], before[1:])


def test_groups_kept_only_for_that_table_and_restored_on_exit():
    X, _ = _table()
    Y = X.copy()
    with reading_once(X):
        kept = column_groups(X, 0, "city")
        assert column_groups(X, 0, "city")[0] is kept[0]  # the same arrays again
        assert column_groups(Y, 0, "city")[0] is not kept[0]  # another table: afresh
        with reading_once(Y):
            other = column_groups(Y, 0, "city")
            assert column_groups(Y, 0, "city")[0] is other[0]
            with reading_once(Y):  # re-entrant: the outer block's groups
                assert column_groups(Y, 0, "city")[0] is other[0]
        assert column_groups(X, 0, "city")[0] is kept[0]  # the outer block is back
    assert column_groups(X, 0, "city")[0] is not kept[0]  # nothing kept after the block


def test_groups_restored_when_the_block_raises():
    X, _ = _table()
    with pytest.raises(RuntimeError):
        with reading_once(X):
            column_groups(X, 0, "city")
            raise RuntimeError("inside")
    assert _column_reading._LOCAL.scope is None


def test_kept_groups_are_read_only():
    X, _ = _table()
    with reading_once(X):
        codes, cells = column_groups(X, 2, "mixed")
        with pytest.raises(ValueError):
            codes[0] = 1
        with pytest.raises(ValueError):
            cells[0] = "y"
        keys = key_column(X, 2, "mixed")
    # 1 and True are equal in Python but have distinct keys
    assert keys.to_list()[:5] == ["1", "x", "True", "2.5", None]


def test_array_and_list_tables_read_alike():
    X, _ = _table(n=50)
    array = X.to_numpy(dtype=object)
    rows = array.tolist()
    for table in (array, rows):
        with reading_once(table):
            got = [key_column(table, j, j).to_list() for j in range(3)]
        want = [key_column(X, j, X.columns[j]).to_list() for j in range(3)]
        assert got == want
