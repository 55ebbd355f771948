"""User mistakes get a clear, data-independent error that says why and what to do."""

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3)) / np.sqrt(3)
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("make", [lambda: DPLogisticRegression(classes=[0, 1]),
                                  lambda: DPRidge(y_bound=1.0)])
def test_sample_weight_without_its_public_bound_is_refused_with_the_reason(make):
    X, y = _data()
    with pytest.raises(ValueError, match=r"max_sample_weight is None: .*sensitivity"):
        make().fit(X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['weights'\]"):
        make().fit(X, y, weights=np.ones(len(y)))


def test_balanced_class_weight_is_refused_with_the_reason():
    X, y = _data()
    with pytest.raises(ValueError, match="reads the class counts of the private data"):
        DPLogisticRegression(classes=[0, 1], class_weight="balanced").fit(X, y)


def test_private_classes_outside_a_pipeline_are_refused_alike_by_fit_and_plan_privacy():
    X, y = _data()
    model = DPLogisticRegression(classes="private")
    for call in (lambda: model.fit(X, y), lambda: model.plan_privacy(60, 3)):
        with pytest.raises(ValueError, match="asks a DPPipeline to release the label set"):
            call()
    for missing in (np.nan, None, pd.NA, pd.NaT):  # the fit's checks too, one rule
        with pytest.raises(ValueError, match="contains a missing label"):
            DPLogisticRegression(classes=[0, missing]).plan_privacy(60, 3)


@pytest.mark.parametrize("make", [lambda **kw: DPLogisticRegression(classes=[0, 1], **kw),
                                  lambda **kw: DPRidge(y_bound=1.0, **kw)])
def test_a_batch_size_that_a_full_batch_solver_would_ignore_is_refused(make):
    X, y = _data()
    ledger = PrivacyLedger()
    for solver in ("gd", "preconditioned"):
        with pytest.raises(ValueError, match="batch_size"):
            make(solver=solver, batch_size=10, ledger=ledger).fit(X, y)
        with pytest.raises(ValueError, match="batch_size"):
            make(solver=solver, batch_size=10).plan_privacy(60, 3)
    assert len(ledger.entries) == 0  # refused from the parameters, before the charge
    assert make(solver="cyclic", batch_size=10).fit(X, y).privacy_.batch_size == 10


def test_warm_start_is_refused_with_the_reason():
    X, y = _data()
    with pytest.raises(ValueError, match=r"warm_start=True is refused: .*depend on that fit's data"):
        DPLogisticRegression(classes=[0, 1], warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="warm_start=True is refused"):  # no plan either
        DPLogisticRegression(classes=[0, 1], warm_start=True).plan_privacy(60, 3)


def test_refusals_do_not_read_the_data_or_charge_a_ledger():
    # The error depends on parameters only: the same for any data, even unreadable X, and
    # nothing is charged (the fit never started).
    ledger = PrivacyLedger()
    for X in (np.full((5, 3), np.nan), "not an array"):
        with pytest.raises(ValueError, match="warm_start"):
            DPLogisticRegression(classes=[0, 1], warm_start=True, ledger=ledger).fit(X, [0] * 5)
        with pytest.raises(ValueError, match="DPRidge needs y_bound"):
            DPRidge(ledger=ledger).fit(X, [0.0] * 5)
    assert len(ledger.entries) == 0


def test_dpridge_needs_a_public_y_bound():
    X, y = _data()
    with pytest.raises(ValueError, match=r"DPRidge needs y_bound, a public bound B on .y.") as info:
        DPRidge(epsilon=1.0).fit(X, y.astype(float))
    assert "never from" in str(info.value)  # says what not to do
    # Given, targets beyond it are clipped (silently, by design): a fit on y and on y
    # clipped to [-B, B] by hand is the same run.
    far = np.where(y > 0, 50.0, -50.0)
    a = DPRidge(y_bound=2.0, random_state=0, max_iter=20).fit(X, far)
    b = DPRidge(y_bound=2.0, random_state=0, max_iter=20).fit(X, np.clip(far, -2.0, 2.0))
    np.testing.assert_array_equal(a.coef_, b.coef_)


# -- validation messages and warnings never quote the data --------------------------------

def test_an_unrecognised_validation_error_is_withheld():
    from skdpgd.utils._validation import validate_private

    def fails():
        raise ValueError("odd cell 'ssn 123-45-6789' in row 5")

    with pytest.raises(ValueError, match="X could not be validated") as info:
        validate_private(fails, role="X")
    assert "123-45" not in str(info.value) and "row 5" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_validation_warnings_are_shown_without_their_text():
    import warnings

    from skdpgd.utils._validation import validate_private

    def warns():
        warnings.warn("value 'ssn 123-45-6789' was converted", UserWarning, stacklevel=1)
        return "result"

    with pytest.warns(UserWarning, match="withheld") as record:
        assert validate_private(warns, role="X") == "result"
    assert all("123-45" not in str(w.message) for w in record)


def test_a_column_vector_y_keeps_scikit_learns_warning():
    from sklearn.exceptions import DataConversionWarning

    X, y = _data()
    with pytest.warns(DataConversionWarning, match="column-vector y was passed"):
        DPRidge(y_bound=1.0, max_iter=2).fit(X, y[:, None].astype(float))


@pytest.mark.parametrize("X, message", [
    (np.array([["1.0", "ssn 123-45-6789", "2"]] * 60, dtype=object),
     r"X holds values that are not numbers .*public_one_hot"),
    (np.ones((60, 3)) + 1j, r"X holds complex numbers.*real and imaginary parts"),
])
def test_content_refusals_name_the_parameter_and_the_fix(X, message):
    y = _data()[1]
    with pytest.raises(ValueError, match=message) as info:
        DPLogisticRegression(classes=[0, 1]).fit(X, y)
    assert "123-45" not in str(info.value) and "1j" not in str(info.value)


def test_a_dataframe_refusal_names_the_non_numeric_columns():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=["age", "hours", "zip"])
    frame["note"] = ["1.5"] * 59 + ["ssn 123-45-6789"]
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['note'\]") as info:
        DPLogisticRegression(classes=[0, 1]).fit(frame, y)
    assert "123-45" not in str(info.value)


def test_labels_outside_classes_are_named_by_the_public_set_only():
    X, y = _data()
    labels = np.where(y == 1, "yes", "no").astype(object)
    labels[7] = "HIV+: patient 4711"
    with pytest.raises(ValueError, match=r"not in classes=\['no', 'yes'\]") as info:
        DPLogisticRegression(classes=["no", "yes"]).fit(X, labels)
    assert "4711" not in str(info.value) and "7" not in str(info.value)
    with pytest.raises(ValueError, match="y holds a single label") as info:
        DPLogisticRegression().fit(X, np.array(["HIV+: patient 4711"] * len(y)))
    assert "4711" not in str(info.value)


def _labels(dtype, outside):
    """Binary labels 0/1 in ``dtype`` with row 7 set to ``outside``."""
    X, y = _data()
    labels = y.astype(dtype)
    labels[7] = outside
    return X, labels


OUTSIDE = {  # (dtype of y, the value at row 7): every one is a label outside [0, 1]
    "int": (np.int64, 4711),
    "float, not an integer": (np.float64, 0.4711),
    "float, another integer": (np.float64, 4711.0),
    "object int": (object, 4711),
    "object text": (object, "HIV+: patient 4711"),
    "object text of a class": (object, "1"),
    "object list": (object, [4711]),
    "numpy text": ("<U20", "4711"),
    "bool": (bool, True),  # True == 1 is in classes=[0, 1]: the control case
}


@pytest.mark.parametrize("case", list(OUTSIDE))
@pytest.mark.parametrize("ledger", [False, True], ids=["no ledger", "ledger"])
def test_a_label_outside_classes_gets_the_same_message_for_every_dtype(case, ledger):
    # whatever the dtype of y, the refusal says that y holds a label outside the public
    # set and names that set only, object dtype included (not "Unknown label type")
    dtype, outside = OUTSIDE[case]
    X, labels = _labels(dtype, outside)
    est = DPLogisticRegression(classes=[0, 1], max_iter=3, random_state=0,
                               ledger=PrivacyLedger() if ledger else None)
    if case == "bool":
        est.fit(X, labels)
        return
    with pytest.raises(ValueError, match=r"^y holds a label that is not in classes=\[0, 1\]") \
            as info:
        est.fit(X, labels)
    assert "4711" not in str(info.value) and "7" not in str(info.value)
    if ledger:
        assert len(est.ledger.entries) == 1  # refused after the charge


@pytest.mark.parametrize("missing", [None, np.nan], ids=["None", "NaN"])
def test_a_missing_label_with_public_classes_is_refused_as_nan(missing):
    # one rule for missing labels (None as NaN): a record outside the domain, after the
    # charge with a ledger, and the message names no value and no row
    X, labels = _labels(object, missing)
    est = DPLogisticRegression(classes=[0, 1], max_iter=3, random_state=0,
                               ledger=PrivacyLedger())
    with pytest.raises(ValueError, match="y contains NaN") as info:
        est.fit(X, labels)
    assert "7" not in str(info.value)


def test_object_labels_inside_classes_are_fitted_like_int_labels():
    X, y = _data()
    fits = [DPLogisticRegression(classes=[0, 1], random_state=0, max_iter=5).fit(X, labels)
            for labels in (y, y.astype(object), y.astype(float))]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.coef_, fits[0].coef_)
