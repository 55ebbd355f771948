"""A column read once per distinct cell gives every cell the key, the kind and the one-hot
row that the per-cell rule gives it (skdpgd/preprocessing/_category_codes.py and
_distinct.py).

The reference in every test is the per-cell rule itself (``category_key``,
``_one_float``), applied to each cell in a Python loop; the factorised reading must match
it cell for cell whatever the container, the dtype and the mix of values.
"""

import decimal
import math

import numpy as np
import pandas as pd
import pytest

from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._category_codes import (
    KEYED_TYPES,
    as_category_codes,
    category_codes,
    distinct_cells,
)
from skdpgd.preprocessing._column_maps import CategoricalEncoding
from skdpgd.preprocessing._distinct import TEXT_TYPES, group_equal_cells
from skdpgd.preprocessing._missing import DEFAULT_MISSING_STRINGS, _one_float, category_key
from skdpgd.preprocessing._type_vote import number_minus_text

MISSING = frozenset(DEFAULT_MISSING_STRINGS)
TEXT = ["a", "b", "NA", "", " NA", "1", "2.5", "nan", "x y", " 1 "]


def _cells(values):
    """The cells as the per-cell reference sees them."""
    if isinstance(values, pd.Series):
        return values.to_numpy(dtype=object).tolist()
    return list(values)


def _columns():
    rng = np.random.default_rng(0)
    text = [TEXT[i] for i in rng.integers(0, len(TEXT), 300)]
    with_none = [None if i % 7 == 0 else t for i, t in enumerate(text)]
    with_nan = [math.nan if i % 5 == 0 else t for i, t in enumerate(text)]
    return {
        "text objects": np.array(text, dtype=object),
        "text and None": np.array(with_none, dtype=object),
        "text and NaN (pandas 2 object column)": np.array(with_nan, dtype=object),
        "text and floats": np.array([*text, 1.0, 0.0, -0.0, 2.5, math.inf], dtype=object),
        "numpy text": np.array(text),
        "numpy str_ objects": np.array([np.str_(t) for t in text], dtype=object),
        "ints": rng.integers(-3, 3, 300),
        "int8": rng.integers(-3, 3, 300).astype(np.int8),
        "uint64 extremes": np.array([0, 2**64 - 1, 0], dtype=np.uint64),
        "floats": np.array([0.0, -0.0, np.nan, 1.5, np.inf, -np.inf, 2.0**70, 1.0]),
        "float32": np.array([0.5, np.nan, 3.0], dtype=np.float32),
        "float16": np.array([0.5, np.nan, 3.0], dtype=np.float16),
        "bools": rng.integers(0, 2, 50).astype(bool),
        "equal but keyed apart": np.array([1, True, 1.0, "1", 1e20, 10**20, False, 0],
                                          dtype=object),
        "odd objects": np.array([b"x", decimal.Decimal("1"), decimal.Decimal("NaN"),
                                 (1, 2), complex(1, 2), None, np.int64(3)], dtype=object),
        "list with a tuple cell": [(1, 2), "a", (1, 2), None],
        "empty": np.array([], dtype=object),
        "Series object": pd.Series(with_nan, dtype=object),
        "Series str": pd.Series(with_none, dtype="str"),
        "Series string": pd.Series(with_none, dtype="string"),
        "Series category": pd.Series(with_none, dtype="category"),
        "Series Int64 with NA": pd.Series([1, None, 3, 1], dtype="Int64"),
        "Series float": pd.Series([1.0, np.nan, 1.0, 2.5]),
    }


@pytest.mark.parametrize("name", list(_columns()))
@pytest.mark.parametrize("missing_strings", [DEFAULT_MISSING_STRINGS, ("a", "1")])
def test_every_cell_gets_its_own_key(name, missing_strings):
    values = _columns()[name]
    column = category_codes(values, missing_strings)
    want = [category_key(cell, frozenset(missing_strings)) for cell in _cells(values)]
    assert column.to_list() == want
    assert len(set(column.keys)) == len(column.keys)  # distinct keys
    assert sorted(set(column.codes.tolist())) == list(range(len(column.keys)))


def test_values_equal_in_python_with_distinct_keys_stay_apart():
    # 1 == True == 1.0 and 1e20 == 10**20, but their keys differ: grouped by type too
    values = np.array([1, True, 1.0, 1e20, 10**20, True], dtype=object)
    codes, _ = distinct_cells(values)
    assert codes.tolist() == [0, 1, 2, 3, 4, 1]
    assert category_codes(values).to_list() == ["1", "True", "1", "1e+20",
                                                "100000000000000000000", "True"]


def test_equal_cells_share_a_group_by_type_and_value_only():
    cells = np.array(["a", 1, True, "a", 1.0, None, math.nan, 1, decimal.Decimal(1),
                      decimal.Decimal(1), (1,), (1,)], dtype=object)
    codes, first = group_equal_cells(cells, KEYED_TYPES)
    # "a"s together, the ints together; None and NaN (different types) apart; the
    # Decimals and tuples (not listed) each alone
    assert codes.tolist() == [0, 1, 2, 0, 3, 4, 5, 1, 6, 7, 8, 9]
    assert first.tolist() == [0, 1, 2, 4, 5, 6, 8, 9, 10, 11]
    codes, _ = group_equal_cells(cells, TEXT_TYPES)
    assert codes.tolist() == [0, 1, 2, 0, 3, 4, 5, 6, 7, 8, 9, 10]
    empty = group_equal_cells(np.array([], dtype=object), TEXT_TYPES)
    assert [part.tolist() for part in empty] == [[], []]


def test_one_odd_cell_leaves_the_rest_grouped():
    # a column of text keeps its groups when one cell of another type joins it: the
    # reading is the same work, plus one group
    text = np.array(["x", "y"] * 500, dtype=object)
    odd = text.copy()
    odd[10] = decimal.Decimal("2")
    assert len(distinct_cells(text)[1]) == 2
    assert len(distinct_cells(odd)[1]) == 3


@pytest.mark.parametrize("name", list(_columns()))
def test_vote_counts_numbers_minus_text_cell_by_cell(name):
    values = _columns()[name]
    numbers = text = 0
    for cell in _cells(values):
        if category_key(cell, MISSING) is None:
            continue
        if math.isnan(_one_float(cell, DEFAULT_MISSING_STRINGS)):
            text += 1
        else:
            numbers += 1
    assert number_minus_text(values, DEFAULT_MISSING_STRINGS) == numbers - text


@pytest.mark.parametrize("encoding", [
    CategoricalEncoding("c", ("a", "b", "1"), 0, "private"),
    CategoricalEncoding("c", (), 4, "hash"),
])
@pytest.mark.parametrize("name", ["text and None", "equal but keyed apart", "Series str"])
def test_one_hot_rows_follow_each_cells_key(encoding, name):
    values = _columns()[name]
    keys = [category_key(cell, MISSING) for cell in _cells(values)]
    width = len(encoding.feature_names())
    want = np.zeros((len(keys), width))
    for i, key in enumerate(keys):  # the per-row rule of the encoding, on a list of keys
        want[i] = encoding.transform([key])[0]
    assert np.array_equal(encoding.transform(category_codes(values)), want)
    assert np.array_equal(encoding.transform(keys), want)
    assert np.array_equal(want.sum(axis=1), np.ones(len(keys)))


def test_a_list_of_keys_and_its_codes_agree():
    keys = ["b", None, "a", "b", None]
    column = as_category_codes(keys)
    assert column.to_list() == keys
    assert as_category_codes(column) is column


@pytest.mark.parametrize("params", [dict(), dict(scale_rows=False), dict(categorical="hash")])
def test_vectorizer_output_is_its_blocks_side_by_side(params):
    # the output written block by block in place equals the blocks stacked, then divided
    # by the raw norm bound (the rows' scaling), bit for bit
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({
        "city": pd.Series(rng.choice(["Lyon", "Paris", "Nice", None], n), dtype="str"),
        "job": rng.choice(["a", "b", "NA"], n).astype(object),
        "age": rng.integers(18, 90, n),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(10, 1, n)),
    })
    vec = DPTableVectorizer(epsilon=4.0, random_state=0, **params).fit(X)
    from skdpgd.preprocessing._column_reading import key_column
    from skdpgd.preprocessing._schema import numeric_column

    blocks = []
    for j, encoding in enumerate(vec.encodings_):
        label = X.columns[j]
        if isinstance(encoding, CategoricalEncoding):
            blocks.append(encoding.transform(key_column(X, j, label)))
        else:
            blocks.append(encoding.transform(numeric_column(X, j, label)))
    want = np.hstack(blocks)
    if vec.scale_rows:
        want /= vec._raw_norm_bound
    assert [e.name for e in vec.encodings_] == list(X.columns)
    assert np.array_equal(vec.transform(X), want)


# The command line's per-cell rule (skdpgd/preprocessing/_cells.py): read once per group
# of equal cells, it gives every cell what classify() gives it.

CLI_CELLS = ["1", " 1", "01", "1.0", "x", "NA", "", "true", "1_000", "-0", "inf", None,
             math.nan, 1, 1.0, -0.0, 0.0, True, np.int64(1), np.float32(0.5),
             decimal.Decimal("1.0"), (1,), "Lyon"]


def _cli_column(seed, n=300):
    rng = np.random.default_rng(seed)
    return np.array([CLI_CELLS[i] for i in rng.integers(0, len(CLI_CELLS), n)],
                    dtype=object)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("markers", [frozenset(), frozenset({"x"})])
def test_cli_cells_read_as_each_cell(seed, markers):
    from skdpgd.preprocessing._cells import (
        NUMBER,
        TEXT,
        classify,
        number_minus_text,
        to_categories,
        to_numbers,
    )

    column = _cli_column(seed)
    results = [classify(cell, markers) for cell in column]
    want_numbers = np.array([n if k == NUMBER else np.nan for k, n, _ in results])
    got = to_numbers(column, markers)
    # bit for bit, the sign of a zero included
    assert np.array_equal(got.view(np.int64), want_numbers.view(np.int64))
    assert to_categories(column, markers).tolist() == [t for _, _, t in results]
    kinds = [k for k, _, _ in results]
    assert number_minus_text(column, markers) == kinds.count(NUMBER) - kinds.count(TEXT)


@pytest.mark.parametrize("classes", [[0, 1], ["0", "1"], [0.0, 1.0], ["yes", "no"], None])
def test_cli_labels_read_as_each_cell(classes):
    from skdpgd._cli._table import label_type, to_labels
    from skdpgd.preprocessing._cells import canonical

    column = _cli_column(4, n=200)
    want = []  # the documented rule, cell by cell: a class by its text or canonical text
    for cell in column:
        text = cell.strip() if isinstance(cell, str) else None
        if classes is None:
            want.append(str(cell).strip())
            continue
        by_text = {str(c).strip(): c for c in classes if isinstance(c, str)}
        by_canonical = {canonical(c): c for c in classes}
        label = by_text.get(text, by_canonical.get(text)) if text is not None else None
        if label is None:
            label = by_canonical.get(canonical(cell), text if text is not None else cell)
        want.append(label)
    got = to_labels(column, classes)
    assert len(got) == len(want)
    for g, w in zip(got.tolist(), want, strict=True):
        assert g == w or (g != g and w != w), (g, w)
    # texts and missing cells among the labels: the column stays objects (refused later)
    assert got.dtype == object
    numbers = to_labels(np.array(["1", "0", 1, "0.0"], dtype=object), classes)
    if classes is not None and label_type(classes) != "str":
        assert numbers.dtype == (np.int64 if label_type(classes) == "int" else np.float64)
        assert numbers.tolist() == [1, 0, 1, 0]
    # a column of missing cells only is no crash: objects, for the estimator to refuse
    assert to_labels(np.array([None, math.nan], dtype=object), classes).dtype == object


@pytest.mark.parametrize("handle_unknown", ["nan", "ignore"])
def test_public_one_hot_rows_are_each_cells_own(handle_unknown):
    from skdpgd.preprocessing import PublicOneHotEncoder

    column = _cli_column(5, n=200)
    encoder = PublicOneHotEncoder([["1", "x", "Lyon", "true", "01"]], unknown_values=["NA"],
                                  handle_unknown=handle_unknown)
    got = encoder.fit_transform(column[:, None])
    def one(cell):  # a 1 x 1 table holding the cell (a tuple stays one cell)
        table = np.empty((1, 1), dtype=object)
        table[0, 0] = cell
        return encoder.transform(table)

    want = np.vstack([one(cell) for cell in column])
    assert np.array_equal(got, want, equal_nan=True)
