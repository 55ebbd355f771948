"""The one missing-value rule over a whole column (skdpgd/preprocessing/_missing.py and
_category_codes.py).

``to_float`` and ``category_keys`` read each distinct string of a column once; what they
return must be, cell for cell, what the per-cell rule (``_one_float``, ``category_key``)
gives, whatever the mix of spellings, repeats, numbers and objects.
"""

import decimal
import math

import numpy as np
import pytest

from skdpgd.preprocessing._category_codes import category_keys
from skdpgd.preprocessing._missing import (
    DEFAULT_MISSING_STRINGS,
    _one_float,
    category_key,
    to_float,
)

SPELLINGS = ["1", "2.5", " 3 ", "1e3", "inf", "-inf", "nan", " NA", "NA", "", "abc",
             "Lyon", "n/a", "+NaN", "0x1p3", "1_000", "True", "  ", "-0"]
OTHERS = [None, math.nan, np.float32("nan"), 1, 2.5, np.int64(7), True, np.inf,
          decimal.Decimal("1.5"), decimal.Decimal("NaN"), b"bytes", np.str_("NA"),
          np.str_("4.5"), 10**400, complex(1, 2), object]


def _column(seed, n=400):
    rng = np.random.default_rng(seed)
    pool = SPELLINGS + OTHERS
    return np.array([pool[i] for i in rng.integers(0, len(pool), n)], dtype=object)


def _same_floats(got, want):
    return np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
        got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("missing_strings", [DEFAULT_MISSING_STRINGS, ("abc", "Lyon")])
def test_a_column_reads_as_its_cells(seed, missing_strings):
    column = _column(seed)
    want = np.array([_one_float(v, missing_strings) for v in column])
    assert _same_floats(to_float(column, missing_strings), want)
    keys = category_keys(column, missing_strings)
    assert keys == [category_key(v, frozenset(missing_strings)) for v in column]
    # a string column (numpy's fixed-width text) reads as its cells too
    text = np.array([v for v in column if type(v) is str])
    want = np.array([_one_float(v, missing_strings) for v in text.tolist()])
    assert _same_floats(to_float(text, missing_strings), want)


def test_a_repeated_string_is_read_alike_wherever_it_sits():
    column = np.array(["NA", "1", "x", "NA", "1", " 1", "x", None, "NA"], dtype=object)
    x = to_float(column)
    assert np.isnan(x[[0, 2, 3, 6, 7, 8]]).all() and list(x[[1, 4, 5]]) == [1.0, 1.0, 1.0]
    assert category_keys(column) == [None, "1", "x", None, "1", " 1", "x", None, None]
