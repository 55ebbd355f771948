"""One rule for a row-index column (an unnamed first column) in Python and the CLI."""

import io

import numpy as np
import pandas as pd
import pytest

from skdpgd._cli._csv import index_column, read_frame
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._vectorizer_plan import undeclared_row_index


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, size=n),
                         "colour": rng.choice(["red", "blue"], size=n)})


def _reread(frame):
    """What ``pd.read_csv`` gives back for ``frame.to_csv()`` (index written, no index_col)."""
    return pd.read_csv(io.StringIO(frame.to_csv()))


def test_an_exported_index_is_dropped_by_its_header_name():
    frame = _frame()
    reread = _reread(frame)
    assert next(iter(reread.columns)) == "Unnamed: 0"
    vec = DPTableVectorizer(epsilon=np.inf, bounds={"age": (0, 100)},
                            categories={"colour": ["blue", "red"]}).fit(reread)
    names = list(vec.get_feature_names_out())
    assert not any(name.startswith("Unnamed") for name in names)
    plain = DPTableVectorizer(epsilon=np.inf, bounds={"age": (0, 100)},
                              categories={"colour": ["blue", "red"]}).fit(frame)
    assert names == list(plain.get_feature_names_out())
    np.testing.assert_array_equal(vec.transform(reread), plain.transform(frame))
    assert "Unnamed: 0 (int64): dropped from header (row index)" in vec.summary_text()


@pytest.mark.parametrize("declare", [{"column_types": {"Unnamed: 0": "numeric"}},
                                     {"bounds": {"Unnamed: 0": (0, 400)}}])
def test_a_declared_index_column_is_kept(declare):
    reread = _reread(_frame())
    params = {"bounds": {"age": (0, 100)}, "categories": {"colour": ["blue", "red"]}}
    for key, value in declare.items():
        params[key] = {**params.get(key, {}), **value}
    vec = DPTableVectorizer(epsilon=np.inf, **params).fit(reread)
    assert any(name.startswith("Unnamed: 0") for name in vec.get_feature_names_out())


@pytest.mark.parametrize("header, expected", [
    (["Unnamed: 0", "a", "b"], "Unnamed: 0"),
    (["", "a"], ""),
    (["a", "Unnamed: 0"], None),     # not first: a name the user gave
    (["Unnamed: 0"], None),          # the only column: nothing else to read
    (["Unnamed: 1", "a"], None),
])
def test_the_command_line_reads_the_same_rule(header, expected):
    assert index_column(header) == expected
    assert undeclared_row_index(DPTableVectorizer(), header) == expected


def test_the_command_line_and_python_read_an_exported_file_alike(tmp_path):
    frame = _frame()
    path = tmp_path / "export.csv"
    frame.to_csv(path)  # pandas' default: the index as an unnamed first column
    read, _, _, notes = read_frame(path)
    assert list(read.columns) == ["age", "colour"]
    assert any("row index" in note for note in notes)
    vec = DPTableVectorizer(epsilon=np.inf, bounds={"age": (0, 100)},
                            categories={"colour": ["blue", "red"]}).fit(pd.read_csv(path))
    kept = vec.summary().query("type != 'dropped'").index
    assert list(kept) == list(read.columns)
