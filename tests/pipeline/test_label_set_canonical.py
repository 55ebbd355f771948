"""The private label set releases canonical labels, never a record's own object.

An audit pair is two data sets that differ in one record's *representation* only (record
0 writes ``-0.0`` or ``0.0``, ``1`` or ``1.0``, ``"a"`` or ``np.str_("a")``): its label is
the same under ``==``, so the two fits must be indistinguishable, output by output
(values, dtypes, sign bits, the Python types of the elements). A release keyed by a dict
kept the first object it saw and published record 0's (classes_ was ``[-0., 1.]``
against ``[0., 1.]`` every time). Missing labels (None, NaN, ``pd.NA``, NaT) are rows of
weight 0 in every spelling (``pd.NA`` failed after the charge).
"""

import decimal
import math

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPPipeline, PrivacyLedger
from skdpgd.pipeline._labels import release_label_set
from skdpgd.utils import canonical_labels, is_missing_label, label_array

N = 1200


def _features(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) / 2.0
    return X, X[:, 0] > 0


def _pipeline(**kwargs):
    return DPPipeline([("model", DPLogisticRegression(classes="private", data_norm=2.0,
                                                      max_iter=5, **kwargs))],
                      epsilon=1.0, random_state=0)


def _outputs(pipeline, X):
    """Everything the fit releases, with its types (what an observer of the model sees)."""
    classes = pipeline.classes_
    predicted = pipeline.predict(X[:50])
    return {
        "classes": classes.tolist(),
        "classes_dtype": classes.dtype,
        "classes_types": [type(c) for c in classes],
        "classes_bytes": classes.tobytes() if classes.dtype.kind != "O" else None,
        "predict": predicted.tolist(),
        "predict_dtype": predicted.dtype,
        "predict_bytes": predicted.tobytes() if predicted.dtype.kind != "O" else None,
        "predict_types": sorted({type(v).__name__ for v in predicted}),
        "coef": pipeline.pipeline_[-1].coef_.tobytes(),
        "proba": pipeline.predict_proba(X[:50]).tobytes(),
        "report": repr(pipeline.privacy_),
    }


def _object(values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _pairs():
    """(name, y, y') with y[0] == y'[0] under ==, record 0 the first holder of its label."""
    _, positive = _features()
    labels = positive.astype(int)
    labels[0] = 0
    floats = labels.astype(np.float64)
    negative_zero = floats.copy()
    negative_zero[0] = -0.0
    ints = _object(labels.tolist())
    pairs = [("float -0.0", floats, negative_zero)]
    for name, spelling in (("object 1.0", 0.0), ("object False", False),
                           ("object Decimal", decimal.Decimal("0")),
                           ("object np.float64", np.float64(-0.0))):
        other = ints.copy()
        other[0] = spelling
        pairs.append((name, ints, other))
    texts = _object(np.where(labels == 1, "yes", "no").tolist())
    numpy_text = texts.copy()
    numpy_text[0] = np.str_(texts[0])
    pairs.append(("object np.str_", texts, numpy_text))
    series = pd.Series(negative_zero)
    pairs.append(("Series -0.0", pd.Series(floats), series))
    listed = list(negative_zero.tolist())
    pairs.append(("list -0.0", floats.tolist(), listed))
    return pairs


@pytest.mark.parametrize("name, y, other", _pairs(), ids=[p[0] for p in _pairs()])
def test_an_audit_pair_gives_identical_outputs_through_the_pipeline(name, y, other):
    X, _ = _features()
    first, second = _outputs(_pipeline().fit(X, y), X), _outputs(_pipeline().fit(X, other), X)
    assert first == second
    if first["classes_dtype"].kind == "f":
        assert not np.signbit(_pipeline().fit(X, other).classes_).any()


def test_the_released_classes_follow_the_schema_not_the_records():
    X, positive = _features()
    labels = positive.astype(int)
    float_fit = _pipeline().fit(X, labels.astype(np.float32))
    assert float_fit.classes_.dtype == np.float32  # the array's dtype is the schema
    # an object array's element types are values: integral numbers are ints
    mixed = _object([float(v) if i % 2 else int(v) for i, v in enumerate(labels)])
    assert _pipeline().fit(X, mixed).classes_.dtype == np.int64
    as_list = _pipeline().fit(X, labels.astype(float).tolist())  # a list: no dtype
    assert as_list.classes_.dtype == np.int64
    flags = _pipeline().fit(X, positive)
    assert flags.classes_.dtype == bool and flags.predict(X[:5]).dtype == bool


def test_numbers_and_texts_mixed_fit_under_a_ledger_as_their_texts():
    # the released set held 1 (int) and "a" (str): classes became the texts "1", "a", y
    # kept the int 1, and the estimator refused it after the charge
    X, positive = _features()
    y = _object([1 if p else "a" for p in positive])
    ledger = PrivacyLedger()
    pipeline = _pipeline()
    pipeline.set_params(ledger=ledger)
    pipeline.fit(X, y)
    assert len(ledger.entries) == 1
    assert pipeline.classes_.tolist() == ["1", "a"] and pipeline.classes_.dtype.kind == "U"
    assert set(pipeline.predict(X).tolist()) <= {"1", "a"}


@pytest.mark.parametrize("missing", [None, np.nan, np.float32("nan"), pd.NA, pd.NaT,
                                     np.datetime64("NaT"), decimal.Decimal("NaN")],
                         ids=repr)
def test_every_missing_spelling_is_a_row_of_weight_zero(missing):
    X, positive = _features()
    rng = np.random.default_rng(1)
    rows = rng.choice(N, 120, replace=False)
    y = _object(np.where(positive, "yes", "no").tolist())
    reference = y.copy()
    reference[rows] = np.nan
    y[rows] = missing
    expected = _outputs(_pipeline().fit(X, reference), X)
    assert _outputs(_pipeline().fit(X, y), X) == expected
    _, _, weights, _ = release_label_set(y, mu=math.inf, delta0=1e-6, random_state=0)
    assert weights.sum() == N - 120 and not weights[rows].any()


def test_a_string_target_with_missing_labels_fits_under_a_ledger():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3000, 3)) / 2.0
    y = pd.Series(np.where(X[:, 0] > 0, "yes", "no"), dtype="string")
    y[rng.choice(3000, 300, replace=False)] = pd.NA
    ledger = PrivacyLedger()
    pipeline = _pipeline()
    pipeline.set_params(ledger=ledger)
    pipeline.fit(X, y)  # failed after the charge: "boolean value of NA is ambiguous"
    assert len(ledger.entries) == 1
    assert pipeline.classes_.tolist() == ["no", "yes"]
    assert pipeline.score(X, np.where(X[:, 0] > 0, "yes", "no")) > 0.9
    for nullable, values in (("boolean", X[:, 0] > 0), ("Int64", (X[:, 0] > 0).astype(int))):
        target = pd.Series(values, dtype=nullable)
        target[:300] = pd.NA
        fitted = _pipeline().fit(X, target)
        assert fitted.classes_.dtype == (bool if nullable == "boolean" else np.int64)


def test_canonical_labels_are_one_form_per_equality_class():
    cells = [0, 0.0, -0.0, False, np.int8(0), np.float32(-0.0), decimal.Decimal("-0"),
             complex(0, 0), 1, True, 1.0, decimal.Decimal("1.0"), 2.5, np.float64(2.5),
             "a", np.str_("a"), None, math.nan, pd.NA, pd.NaT, b"a", (1,), object()]
    labels, codes, schema = canonical_labels(_object(cells))
    assert labels == [0, 1, 2.5, "a"]
    assert [type(label) for label in labels] == [int, int, float, str]
    assert codes.tolist() == [0] * 8 + [1] * 4 + [2] * 2 + [3] * 2 + [-1] * 7
    classes, position = label_array(labels, schema)
    assert classes.tolist() == ["0", "1", "2.5", "a"] and position.tolist() == [0, 1, 2, 3]
    numbers_only, _ = label_array([0, 1, 2.5], schema)
    assert numbers_only.dtype == np.float64
    assert label_array([0, 2**70], schema)[0].dtype == object  # no int64, no exact float
    typed, typed_codes, typed_schema = canonical_labels(np.array([-0.0, 0.0, np.nan, 1.0]))
    assert typed == [0.0, 1.0] and typed_codes.tolist() == [0, 0, -1, 1]
    assert not np.signbit(label_array(typed, typed_schema)[0]).any()


def test_one_missing_label_rule():
    for value in (None, math.nan, np.float16("nan"), complex(math.nan, 0), pd.NA, pd.NaT,
                  np.datetime64("NaT"), np.timedelta64("NaT"), decimal.Decimal("NaN"),
                  decimal.Decimal("sNaN")):
        assert is_missing_label(value), value
    for value in ("NA", "", "nan", 0, 0.0, -0.0, False, np.inf, b"", "None"):
        assert not is_missing_label(value), value


@pytest.mark.parametrize("missing, container", [
    (np.nan, "object"), (None, "object"), (pd.NA, "object"), (pd.NaT, "object"),
    (pd.NA, "string")], ids=repr)
def test_a_public_label_set_refuses_every_missing_spelling_as_nan(missing, container):
    # one record outside the public domain: the refusal after the charge is NaN's, for
    # every spelling (pd.NA gave a withheld TypeError, None a different message)
    X, positive = _features(n=300)
    y = _object(np.where(positive, "yes", "no").tolist())
    y[5] = missing
    target = pd.Series(y, dtype="string") if container == "string" else y
    with pytest.raises(ValueError, match="y contains NaN"):
        DPLogisticRegression(classes=["no", "yes"], ledger=PrivacyLedger()).fit(X, target)


@pytest.mark.parametrize("column, spelling", [("num", -0.0), ("city", "np.str_"),
                                              ("code", "float")])
def test_the_table_releases_are_canonical_too(column, spelling):
    # a private range (num), category discovery (city) and the type vote (code, an
    # object column of ints): record 0's spelling changes no fitted attribute
    import pickle

    from skdpgd.preprocessing import DPTableVectorizer

    X, positive = _features(n=1500)
    rng = np.random.default_rng(3)
    base = pd.DataFrame({"num": X[:, 0], "city": rng.choice(["Lyon", "Oslo"], 1500),
                         "code": _object(rng.choice([1, 2, 3], 1500).tolist())})
    base = base.astype({"city": object})
    base.loc[0, "num"] = 0.0
    other = base.copy()
    value = other.at[0, column]
    if spelling == "np.str_":
        spelling = np.str_(value)
    elif spelling == "float":
        spelling = float(value)
    other.at[0, column] = spelling

    def fitted(frame):
        pipeline = DPPipeline([("vectorizer", DPTableVectorizer()),
                               ("model", DPLogisticRegression(classes=[0, 1]))],
                              epsilon=1.0, random_state=0).fit(frame, positive.astype(int))
        vectorizer = pipeline.pipeline_[0]
        learned = {k: v for k, v in vars(vectorizer).items() if k.endswith("_")}
        return (pickle.dumps(learned), repr(pipeline.privacy_),
                pipeline.pipeline_[-1].coef_.tobytes())

    assert fitted(base) == fitted(other)
