"""Bad input and faults at every public entry point.

Each bad input must give a clear error (an exception naming the problem) or a correct
result, never a silent wrong model or a hang. "Correct" is checked against an
independently prepared input: e.g. rows of 1e300 must give exactly the model of the same
rows scaled onto the sphere of radius data_norm (clipping is a per-row map), a read-only
or Fortran-ordered X the model of a fresh C-ordered copy (same seed, same noise).

Known bugs are documented with ``xfail(strict=True)``: they flip to failures when fixed,
so the marker must then be removed.
"""

import io
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from skdpgd import DPLogisticRegression, DPRidge, accounting
from skdpgd.audit import NoisyGDMean, audit_epsilon

N, D = 30, 3


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.3, 0.3, size=(N, D))
    return X, (X[:, 0] > 0).astype(int), X[:, 0] + 0.1 * X[:, 1]


def _logistic(**kw):
    return DPLogisticRegression(1.0, **{"C": 1.0, "max_iter": 5, "random_state": 0, **kw})


def _ridge(**kw):
    return DPRidge(1.0, **{"alpha": 1.0, "max_iter": 5, "random_state": 0, **kw}, y_bound=1.0)


ESTIMATORS = [
    pytest.param(_logistic, "labels", id="logistic"),
    pytest.param(_ridge, "targets", id="ridge"),
]


def _y(data, kind):
    return data[1] if kind == "labels" else data[2]


def _coef(est):
    return np.concatenate([np.ravel(est.coef_), np.ravel(est.intercept_)])


def _with(X, i, j, value):
    X = np.array(X, dtype=float)
    X[i, j] = value
    return X


# -- X and y that must be refused ------------------------------------------------------------

BAD_X_Y = {
    "X has NaN": (lambda X, y: (_with(X, 0, 0, np.nan), y), "NaN"),
    "X has inf": (lambda X, y: (_with(X, 3, 1, np.inf), y), "infinity"),
    "X has -inf": (lambda X, y: (_with(X, 3, 1, -np.inf), y), "infinity"),
    "y has NaN": (lambda X, y: (X, np.where(np.arange(N) == 2, np.nan, y)), "NaN|Unknown label"),
    "empty": (lambda X, y: (X[:0], y[:0]), "0 sample"),
    "one row": (lambda X, y: (X[:1], y[:1]), "1 sample"),
    "1-D X": (lambda X, y: (X[:, 0], y), "2D array"),
    "3-D X": (lambda X, y: (X[:, :, None], y), "dim 3"),
    "complex X": (lambda X, y: (X + 1j, y), "X holds complex numbers"),
    "strings X": (lambda X, y: (np.full((N, D), "a", dtype=object), y), "X holds values that are not numbers"),
    "y too short": (lambda X, y: (X, y[:-1]), "inconsistent numbers of samples"),
    "X too short": (lambda X, y: (X[:-3], y), "inconsistent numbers of samples"),
}


@pytest.mark.parametrize("make, kind", ESTIMATORS)
@pytest.mark.parametrize("case", list(BAD_X_Y))
def test_bad_data_gets_a_clear_error(data, make, kind, case):
    build, message = BAD_X_Y[case]
    X, y = build(data[0], _y(data, kind))
    est = make()
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert not hasattr(est, "coef_") and not hasattr(est, "privacy_")


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_pandas_categorical_column_is_refused(data, make, kind):
    pd = pytest.importorskip("pandas")
    X = data[0]
    frame = pd.DataFrame(
        {"a": X[:, 0], "b": X[:, 1], "c": pd.Categorical(np.where(X[:, 2] > 0, "up", "down"))}
    )
    with pytest.raises(ValueError, match=r"not numbers .*non-numeric column\(s\) \['c'\]"):
        make().fit(frame, _y(data, kind))


def test_labels_a_classifier_cannot_use_are_refused(data):
    X, labels, targets = data
    with pytest.raises(ValueError, match="continuous"):
        _logistic().fit(X, targets)
    with pytest.raises(ValueError, match="at least 2 classes"):
        _logistic().fit(X, np.zeros(N, dtype=int))
    with pytest.raises(ValueError, match="at least 2 classes"):  # public: before any read
        _logistic(classes=[0]).fit(X, labels)
    with pytest.raises(ValueError, match="not in classes"):
        _logistic(classes=[0, 5]).fit(X, labels)


def test_string_targets_are_refused_by_the_regressor(data):
    with pytest.raises(ValueError, match="y holds values that are not numbers"):
        _ridge().fit(data[0], np.array(["a"] * N))


# -- layouts and dtypes that must give the very same model -----------------------------------

LAYOUTS = {
    "Fortran order": lambda X: np.asfortranarray(X),
    "read-only": lambda X: _read_only(X),
    "non-contiguous view": lambda X: np.repeat(X, 2, axis=1)[:, ::2],
    "nested lists": lambda X: X.tolist(),
    "pandas numeric frame": lambda X: pytest.importorskip("pandas").DataFrame(
        X, columns=list("abc")
    ),
}


def _read_only(X):
    X = np.array(X, copy=True)
    X.setflags(write=False)
    return X


@pytest.mark.parametrize("make, kind", ESTIMATORS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layouts_give_the_same_model(data, make, kind, layout):
    X, y = data[0], _y(data, kind)
    reference = _coef(make().fit(np.ascontiguousarray(X), y))
    Xl = LAYOUTS[layout](X)
    est = make().fit(Xl, y)
    np.testing.assert_allclose(
        _coef(est), reference, rtol=1e-12, atol=1e-14
    )  # same seed, same maths
    if layout == "read-only":
        assert not Xl.flags.writeable and np.array_equal(Xl, X)  # not modified in place


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_integer_and_boolean_X_are_read_as_numbers(data, make, kind):
    X, y = data[0], _y(data, kind)
    Xi = (X * 10).astype(int)
    np.testing.assert_allclose(
        _coef(make().fit(Xi, y)), _coef(make().fit(Xi.astype(float), y)), rtol=1e-12
    )
    Xb = X > 0
    np.testing.assert_allclose(
        _coef(make().fit(Xb, y)), _coef(make().fit(Xb.astype(float), y)), rtol=1e-12
    )


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_huge_rows_are_clipped_onto_the_norm_bound(data, make, kind):
    # Rows of norm ~1e300 must be scaled onto the sphere of radius data_norm = 1 (docs/theory.md#row-clipping),
    # i.e. give the model of the unit-normalised rows, computed here independently.
    X, y = data[0], _y(data, kind)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    expected = _coef(make().fit(unit, y))
    np.testing.assert_allclose(_coef(make().fit(X * 1e300, y)), expected, rtol=1e-9, atol=1e-12)


def test_huge_targets_are_clipped_onto_y_bound(data):
    X, _, targets = data
    expected = _coef(_ridge().fit(X, np.sign(targets) * 1.0))  # y_bound = 1
    np.testing.assert_allclose(_coef(_ridge().fit(X, targets * 1e300)), expected, rtol=1e-12)


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_more_features_than_rows(data, make, kind):
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.1, 0.1, size=(12, 40))
    y = _y(data, kind)[:12]
    est = make().fit(X, y)
    assert np.all(np.isfinite(_coef(est))) and est.coef_.size == 40
    assert est.privacy_.epsilon <= 1.0 * (1 + 1e-9)
    assert est.predict(X).shape == (12,)


# -- hyperparameters ---------------------------------------------------------------------------

BAD_PARAMS = [
    ("epsilon", 0),
    ("epsilon", -1.0),
    ("epsilon", np.nan),
    ("epsilon", "1"),
    ("delta", 0.0),
    ("delta", 1.0),
    ("delta", np.nan),
    ("delta", 0.5),  # 0.5 >= 1/n
    ("data_norm", 0.0),
    ("data_norm", np.inf),
    ("data_norm", np.nan),
    ("intercept_scaling", np.inf),
    ("max_iter", 0),
    ("max_iter", 2.5),
    ("learning_rate", 100.0),
    ("learning_rate", np.inf),
    ("random_state", "seed"),
]


@pytest.mark.parametrize("make, kind", ESTIMATORS)
@pytest.mark.parametrize("name, value", BAD_PARAMS)
def test_bad_hyperparameters_get_a_clear_error(data, make, kind, name, value):
    est = make().set_params(**{name: value})
    with pytest.raises(ValueError, match=f"{name}|{value!r}"):
        est.fit(data[0], _y(data, kind))
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize(
    "name, value",
    [("y_bound", np.nan), ("y_bound", np.inf), ("residual_clip", np.inf), ("alpha", -1.0)],
)
def test_bad_ridge_bounds_get_a_clear_error(data, name, value):
    with pytest.raises(ValueError, match=name):
        _ridge().set_params(**{name: value}).fit(data[0], data[2])


@pytest.mark.parametrize("name", ["data_norm", "intercept_scaling"])
def test_huge_public_bound_gets_a_clear_error(data, name):
    with pytest.raises(ValueError, match=name):
        _logistic().set_params(**{name: 1e300}).fit(data[0], data[1])


def test_nan_in_the_public_label_set_is_refused(data):
    with pytest.raises(ValueError, match="classes"):
        _logistic(classes=[0, 1, np.nan]).fit(data[0], data[1])


def test_absurd_budget_fails_fast_instead_of_hanging(data):
    with pytest.raises(ValueError, match="too loose"):
        _logistic().set_params(epsilon=1e300).fit(data[0], data[1])


# -- prediction -------------------------------------------------------------------------------


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_prediction_inputs_are_checked(data, make, kind):
    X, y = data[0], _y(data, kind)
    with pytest.raises(NotFittedError):
        make().predict(X)
    est = make().fit(X, y)
    methods = ["predict"] + (["predict_proba", "decision_function"] if kind == "labels" else [])
    for method in methods:
        with pytest.raises(ValueError, match="NaN"):
            getattr(est, method)(_with(X, 0, 0, np.nan))
        with pytest.raises(ValueError, match="features"):
            getattr(est, method)(X[:, :2])
        with pytest.raises(ValueError, match="0 sample"):
            getattr(est, method)(X[:0])


def test_probabilities_stay_finite_on_huge_rows(data):
    est = _logistic().fit(data[0], data[1])
    proba = est.predict_proba(data[0] * 1e300)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


# -- faults: an interrupted fit ------------------------------------------------------------------


class _InterruptOnWrite(io.StringIO):
    """stdout that raises KeyboardInterrupt at the first progress line (verbose=1)."""

    def write(self, text):
        raise KeyboardInterrupt


def _interrupted_fit(est, X, y):
    old = sys.stdout
    sys.stdout = _InterruptOnWrite()
    try:
        with pytest.raises(KeyboardInterrupt):
            est.fit(X, y)
    finally:
        sys.stdout = old
    return est


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_interrupted_fit_leaves_no_model_behind(data, make, kind):
    # The progress printer (public verbose behaviour) fires mid-loop: no coefficient, report
    # or noise level of the interrupted run may remain on the estimator.
    est = _interrupted_fit(make(verbose=1, max_iter=20), data[0], _y(data, kind))
    for name in ("coef_", "intercept_", "privacy_", "noise_std_", "n_iter_"):
        assert not hasattr(est, name), name


@pytest.mark.parametrize("make, kind", ESTIMATORS)
def test_interrupted_fit_leaves_the_estimator_unfitted(data, make, kind):
    est = _interrupted_fit(make(verbose=1, max_iter=20), data[0], _y(data, kind))
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_failed_refit_does_not_mix_two_fits(data):
    # A failed refit leaves the estimator unfitted: neither the old model with the new
    # n_features_in_ nor any other mixture of two fits survives.
    X, labels, _ = data
    est = _logistic().fit(X, labels)
    with pytest.raises(ValueError, match="learning_rate"):
        est.set_params(learning_rate=100.0).fit(X[:, :2], labels)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert not hasattr(est, "coef_") and not hasattr(est, "n_features_in_")


# -- accounting entry points -------------------------------------------------------------------

GD = dict(sensitivity=1.0, n_samples=10, learning_rate=0.5, strong_convexity=0.1, smoothness=1.0)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: accounting.gdp_to_delta(np.nan, 1.0), ValueError, "mu"),
        (lambda: accounting.gdp_to_delta(-1.0, 1.0), ValueError, "mu"),
        (lambda: accounting.gdp_to_epsilon(1.0, 0.0), ValueError, "delta"),
        (lambda: accounting.gdp_to_epsilon(1.0, 1.0), ValueError, "delta"),
        (lambda: accounting.epsilon_delta_to_gdp([1.0, np.nan], 1e-5), ValueError, "epsilon"),
        (lambda: accounting.epsilon_delta_to_gdp(1e300, 1e-5), ValueError, "too loose"),
        (lambda: accounting.noisy_gd_gdp(np.nan, 10, **GD), ValueError, "noise_std"),
        (lambda: accounting.noisy_gd_gdp(1.0, -1, **GD), ValueError, "n_steps"),
        (lambda: accounting.noisy_gd_gdp(1.0, 1.5, **GD), TypeError, "n_steps"),
        (lambda: accounting.noisy_gd_gdp(1.0, True, **GD), TypeError, "n_steps"),
        (
            lambda: accounting.noisy_gd_gdp(1.0, 10, **{**GD, "n_samples": 0}),
            ValueError,
            "n_samples",
        ),
        (
            lambda: accounting.noisy_gd_gdp(1.0, 10, **{**GD, "strong_convexity": 2.0}),
            ValueError,
            "strong_convexity",
        ),
        (
            lambda: accounting.calibrate_noisy_gd(
                1.0, 1e-5, n_steps=10, **{**GD, "sensitivity": np.nan}
            ),
            ValueError,
            "sensitivity",
        ),
        (lambda: accounting.calibrate_noisy_gd(0.0, 1e-5, n_steps=10, **GD), ValueError, "epsilon"),
        (
            lambda: accounting.calibrate_noisy_gd(
                1.0, 1e-5, n_steps=10, **{**GD, "n_samples": 2.5}
            ),
            TypeError,
            "n_samples",
        ),
    ],
)
def test_accounting_refuses_bad_numbers(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- the audit itself --------------------------------------------------------------------------


class _Ledger:
    def charge(self, *args, **kwargs):  # pragma: no cover - never reached
        raise AssertionError("the audit must refuse before fitting")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(n_trials=3), ValueError, "n_trials"),
        (dict(n_trials=10.5), ValueError, "n_trials"),
        (dict(confidence=1.5), ValueError, "confidence"),
        (dict(canary=([1.0], None)), ValueError, "canary's x"),
        (dict(canary="loud"), ValueError, "canary kind"),
        (dict(canary=[1.0, 0.0]), TypeError, "canary"),
        (dict(replace_index=99), ValueError, "replace_index"),
        (dict(canary_scale=0.5), ValueError, "canary_scale"),
        (dict(statistic="mean"), TypeError, "statistic"),
    ],
)
def test_audit_refuses_bad_arguments(data, kwargs, error, message):
    with pytest.raises(error, match=message):
        audit_epsilon(NoisyGDMean(1.0), data[0], **{"n_trials": 8, **kwargs})


def test_audit_refuses_bad_data_and_unauditable_estimators(data):
    X = data[0]
    with pytest.raises(ValueError, match="NaN"):
        audit_epsilon(NoisyGDMean(1.0), _with(X, 0, 0, np.nan), n_trials=8)
    with pytest.raises(ValueError, match="shape"):
        audit_epsilon(_ridge(), X, data[2][:-1], n_trials=8)
    with pytest.raises(ValueError, match="ledger"):
        audit_epsilon(_ridge(ledger=_Ledger()), X, data[2], n_trials=8)

    class NoSeed(NoisyGDMean):
        def __init__(self, epsilon=1.0):
            self.epsilon = epsilon

        def get_params(self, deep=True):
            return {"epsilon": self.epsilon}

    with pytest.raises(ValueError, match="random_state"):
        audit_epsilon(NoSeed(), X, n_trials=8)


def test_noisy_gd_mean_refuses_bad_input():
    X = np.zeros((20, 2))
    with pytest.raises(ValueError, match="NaN"):
        NoisyGDMean().fit(_with(X, 0, 0, np.nan))
    with pytest.raises(ValueError, match="2 rows"):
        NoisyGDMean().fit(X[:1])
    with pytest.raises(ValueError, match="epsilon"):
        NoisyGDMean(epsilon=-1.0).fit(X)
    with pytest.raises(ValueError, match="max_iter"):
        NoisyGDMean(max_iter=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.all(np.isfinite(NoisyGDMean(random_state=0).fit(X * 1e300).coef_))


# -- every solver and input kind (Dask included): non-finite values are refused ---------------

INPUT_KINDS = ["dense", "csr", "float32", "dask"]


def _input(X, kind):
    if kind == "csr":
        import scipy.sparse as sp

        return sp.csr_matrix(X)
    if kind == "float32":
        return np.asarray(X, dtype=np.float32)
    if kind == "dask":
        da = pytest.importorskip("dask.array")
        return da.from_array(np.asarray(X), chunks=(10, D))
    return X


@pytest.mark.parametrize("make, kind", ESTIMATORS)
@pytest.mark.parametrize("solver", ["gd", "cyclic", "sgd"])
@pytest.mark.parametrize("input_kind", INPUT_KINDS)
@pytest.mark.parametrize("value", [np.nan, -np.inf])
def test_non_finite_values_are_refused_for_every_solver_and_input(
    data, make, kind, solver, input_kind, value
):
    if solver == "sgd":
        pytest.importorskip("dp_accounting")
    X = _input(_with(data[0], 4, 1, value), input_kind)
    est = make(solver=solver, max_iter=2)
    message = "NaN|infinity|non-finite"
    with pytest.raises(ValueError, match=message):
        est.fit(X, _y(data, kind))
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("make, kind", ESTIMATORS)
@pytest.mark.parametrize("solver", ["gd", "cyclic", "sgd"])
@pytest.mark.parametrize("input_kind", ["csr", "float32", "dask"])
def test_every_solver_and_input_kind_gives_the_dense_float64_model(
    data, make, kind, solver, input_kind
):
    # Same seed, same maths: CSR and Dask give the dense model to rounding; float32 is
    # computed in float32 (relative rounding 6e-8 per operation over a few steps on 30
    # rows: 1e-4 leaves a wide margin while catching any scale or clipping error).
    if solver == "sgd":
        pytest.importorskip("dp_accounting")
    X, y = data[0], _y(data, kind)
    X = np.asarray(X, dtype=np.float32).astype(float) if input_kind == "float32" else X
    reference = _coef(make(solver=solver, max_iter=2).fit(X, y))
    got = _coef(make(solver=solver, max_iter=2).fit(_input(X, input_kind), y))
    rtol = 1e-4 if input_kind == "float32" else 1e-10
    np.testing.assert_allclose(got, reference, rtol=rtol, atol=1e-7)
