"""Scale features of the estimators: CSR and float32 input, n_jobs, cyclic batches, memory.

The privacy-relevant claims checked here: the model does not depend on how the gradient
sums are computed (n_jobs, chunking, dense or CSR), the cyclic partition comes from the
seed and n only, the ledger is charged before the data are touched, and no copy of X is
made during a fit.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from sklearn.base import clone

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data import _chunks
from skdpgd.accounting import noisy_cyclic_gd_gdp
from skdpgd.losses import BinaryLogisticLoss
from skdpgd.optim import cyclic_partition, noisy_cyclic_gradient_descent


def _sparse_problem(n=3000, d=40, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.15)
    X[:50] *= 10.0  # some rows above data_norm, so clipping is exercised
    scores = X @ rng.normal(size=(d, n_classes))
    y = scores.argmax(axis=1) if n_classes > 2 else (scores[:, 0] > 0).astype(int)
    target = np.tanh(X @ rng.normal(size=d))
    return X, y, target


ESTIMATORS = [
    ("binary", lambda **kw: DPLogisticRegression(**kw), 2),
    ("multinomial", lambda **kw: DPLogisticRegression(**kw), 4),
    ("ridge", lambda **kw: DPRidge(y_bound=1.0, **kw), None),
]


def _fit(make, n_classes, X, y, target, **params):
    params.setdefault("max_iter", 15)  # a fixed budget keeps these tests fast
    est = make(epsilon=1.0, random_state=3, **params)
    return est.fit(X, target if n_classes is None else y)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 64 rows (the minimum) so that small problems have many chunks."""
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 1)


@pytest.mark.parametrize("solver", ["gd", "cyclic"])
@pytest.mark.parametrize("name, make, n_classes", ESTIMATORS)
def test_csr_gives_the_dense_model(name, make, n_classes, solver, small_chunks):
    X, y, target = _sparse_problem(n_classes=n_classes or 2)
    dense = _fit(make, n_classes, X, y, target, solver=solver)
    sparse = _fit(make, n_classes, sp.csr_matrix(X), y, target, solver=solver)
    # Same algorithm, same noise; only the summation order inside a product differs
    # (CSR skips zeros), a few ulps per step: 1e-10 leaves a margin of ~1e4 ulps.
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=0, atol=1e-10)
    assert sparse.privacy_.mu == dense.privacy_.mu


def test_csr_with_duplicate_entries_is_the_matrix_it_represents():
    X, y, _ = _sparse_problem()
    canonical = sp.csr_matrix(X)
    coo = canonical.tocoo()
    half = coo.data / 2.0  # every entry stored twice, halves summing to the value
    duplicated = sp.csr_matrix(
        (np.r_[half, half], (np.r_[coo.row, coo.row], np.r_[coo.col, coo.col])),
        shape=X.shape,
    )
    duplicated.has_canonical_format = False
    a = DPLogisticRegression(epsilon=1.0, random_state=0).fit(canonical, y)
    b = DPLogisticRegression(epsilon=1.0, random_state=0).fit(duplicated, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver", ["gd", "cyclic", "preconditioned"])  # the last: a Gram pass
@pytest.mark.parametrize("name, make, n_classes", ESTIMATORS)
def test_model_is_bit_identical_for_every_n_jobs(name, make, n_classes, solver, small_chunks):
    X, y, target = _sparse_problem(n_classes=n_classes or 2)
    reference = _fit(make, n_classes, X, y, target, solver=solver)
    for n_jobs in (2, -1):
        other = _fit(make, n_classes, X, y, target, solver=solver, n_jobs=n_jobs)
        assert np.array_equal(other.coef_, reference.coef_)
        assert np.array_equal(other.intercept_, reference.intercept_)
    with parallel_config(backend="threading", n_jobs=2):  # n_jobs=None defers to it
        other = _fit(make, n_classes, X, y, target, solver=solver)
    assert np.array_equal(other.coef_, reference.coef_)


@pytest.mark.parametrize("name, make, n_classes", ESTIMATORS)
def test_float32_is_accepted_and_close_to_float64(name, make, n_classes):
    X, y, target = _sparse_problem(n_classes=n_classes or 2)
    wide = _fit(make, n_classes, X, y, target)
    narrow = _fit(make, n_classes, X.astype(np.float32), y, target)
    # Products in float32 carry a relative error of about d * 2**-24 ~ 2.4e-6 per step,
    # far below the injected noise; 1e-4 absolute on coefficients of size ~1 is loose
    # enough for the error to accumulate over the run and still catches a wrong model.
    np.testing.assert_allclose(narrow.coef_, wide.coef_, rtol=0, atol=1e-4)
    assert narrow.privacy_.mu == wide.privacy_.mu
    sparse32 = _fit(make, n_classes, sp.csr_matrix(X.astype(np.float32)), y, target)
    np.testing.assert_allclose(sparse32.coef_, wide.coef_, rtol=0, atol=1e-4)


def _peak_memory_of_a_fit(X, y):
    """Peak of the memory a short default fit allocates (tracemalloc), warmed up first."""
    est = DPLogisticRegression(epsilon=1.0, C=1.0, max_iter=3, random_state=0)
    est.fit(np.asarray(X[:100]), y[:100])  # imports and caches outside the measurement
    tracemalloc.start()
    try:
        est.fit(X, y)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_makes_no_copy_of_X(dtype):
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(40_000, 100)) / 10.0).astype(dtype)
    y = (X[:, 0] > 0).astype(int)
    peak = _peak_memory_of_a_fit(X, y)
    # The extra memory is O(n + chunk x d): row scales and residuals (a few n-vectors of
    # float64, 0.3 MB each here) and per-chunk temporaries (~4 MiB). A copy of X would
    # add X.nbytes (32 MB in float64, 16 MB in float32).
    assert peak < 0.5 * X.nbytes, (peak, X.nbytes)


def test_a_fortran_X_is_read_in_c_order_the_same_model():
    # a Fortran-ordered X (a DataFrame's values) is copied once to C order: the model is
    # the C-ordered X's bit for bit, and the caller's array is left as it was
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 12)) / 4.0
    y = (X[:, 0] + 0.3 * rng.normal(size=3000) > 0).astype(int)
    XF = np.asfortranarray(X)
    want = DPLogisticRegression(random_state=0).fit(X, y).coef_
    got = DPLogisticRegression(random_state=0).fit(XF, y).coef_
    np.testing.assert_array_equal(got, want)
    assert XF.flags.f_contiguous and not XF.flags.c_contiguous and np.array_equal(XF, X)


def test_a_fortran_memory_map_is_not_copied(tmp_path):
    # out-of-core data stay where they are: no copy of a memory map, whatever its order
    X = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64,
                                  shape=(40_000, 100), fortran_order=True)
    X[:] = np.random.default_rng(0).normal(size=X.shape) / 10.0
    y = (np.asarray(X[:, 0]) > 0).astype(int)
    peak = _peak_memory_of_a_fit(X, y)
    assert peak < 0.5 * X.nbytes, (peak, X.nbytes)


def test_cyclic_run_is_the_documented_algorithm():
    X, y, _ = _sparse_problem(n=600, d=5)
    est = DPLogisticRegression(
        epsilon=1.0, C=1.0, solver="cyclic", batch_size=100, max_iter=4, random_state=7,
        intercept_scaling=1.0, residual_clip=1.0,
    ).fit(X, y)
    assert est.privacy_.accountant == "noisy_cyclic_gd"
    assert est.batch_size_ == 100 and est.n_iter_ == 6 * 4
    # Independent reference: materialised clipped design, the same generator consumed in
    # the documented order (the partition first, then one normal draw per step).
    norms = np.maximum(np.linalg.norm(X, axis=1), 1e-300)  # all-zero rows keep scale 1
    design = np.hstack([X * np.minimum(1.0, 1.0 / norms)[:, None], np.ones((len(X), 1))])
    lam = 1.0 / len(X)
    rng = np.random.default_rng(7)
    batches = cyclic_partition(len(X), 100, rng)
    loss = BinaryLogisticLoss()

    def batch_gradient(coef, j):
        rows = batches[j]
        return loss.gradient_sum(coef, design[rows], y[rows].astype(float)) / len(rows) + lam * coef

    coef = noisy_cyclic_gradient_descent(
        batch_gradient, np.zeros(6), n_batches=6, learning_rate=est.learning_rate_,
        noise_std=est.noise_std_, n_epochs=4, rng=rng,
    )
    np.testing.assert_allclose(est.coef_[0], coef[:-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.intercept_[0], coef[-1], rtol=0, atol=1e-12)
    # The report is bound (C) of the run that was made, at the target.
    mu = noisy_cyclic_gd_gdp(
        est.noise_std_, 4, batch_size=100, sensitivity=2 * np.sqrt(2), n_samples=len(X),
        learning_rate=est.learning_rate_, strong_convexity=lam,
        smoothness=0.5 + lam,
    )
    assert est.privacy_.mu == pytest.approx(mu, rel=1e-12)
    assert est.privacy_.epsilon <= 1.0


def test_cyclic_auto_needs_fewer_passes_than_full_batch():
    X, y, _ = _sparse_problem(n=20_000, d=20)
    gd = DPLogisticRegression(epsilon=1.0, solver="gd", random_state=0).fit(X, y)
    cyclic = DPLogisticRegression(epsilon=1.0, solver="cyclic", random_state=0).fit(X, y)
    passes = cyclic.privacy_.n_epochs
    assert passes <= 50 < gd.n_iter_
    # Same budget, far fewer passes, and the accuracy stays within 2 points (the noise
    # level of both fits is ~1e-2 on the coefficients here; observed gap ~0.3 points).
    assert cyclic.score(X, y) > gd.score(X, y) - 0.02
    assert cyclic.privacy_.epsilon <= 1.0


class _RecordingLedger:
    def __init__(self, refuse=False):
        self.calls, self.refuse = [], refuse

    def charge(self, estimator, report, *, n_samples, sample_ids):
        self.calls.append((estimator, report, n_samples, sample_ids))
        if self.refuse:
            raise RuntimeError("over budget")


def test_ledger_is_charged_with_the_report_before_any_data_pass(monkeypatch):
    X, y, _ = _sparse_problem(n=500, d=5)
    ledger = _RecordingLedger()
    ids = np.arange(1000, 1500)
    est = DPLogisticRegression(epsilon=0.5, classes=[0, 1], ledger=ledger, random_state=0).fit(
        X, y, sample_ids=ids
    )
    (owner, report, n, passed_ids), = ledger.calls
    assert owner is est and report is est.privacy_ and n == 500
    assert np.array_equal(passed_ids, ids)

    touched = []
    monkeypatch.setattr(
        BinaryLogisticLoss, "gradient_sum", lambda *args: touched.append(1) or 1 / 0
    )
    refused = DPLogisticRegression(
        epsilon=0.5, classes=[0, 1], ledger=_RecordingLedger(refuse=True)
    )
    with pytest.raises(RuntimeError, match="over budget"):
        refused.fit(X, y)
    assert not touched  # the data were never read
    assert not hasattr(refused, "coef_")


def test_sample_ids_must_align_with_rows():
    X, y, _ = _sparse_problem(n=200, d=3)
    with pytest.raises(ValueError, match="sample_ids"):
        DPLogisticRegression(classes=[0, 1], ledger=_RecordingLedger()).fit(
            X, y, sample_ids=np.arange(10)
        )


def test_clone_keeps_scale_parameters():
    est = DPRidge(solver="cyclic", batch_size=128, n_jobs=2, y_bound=1.0)
    assert clone(est).get_params()["batch_size"] == 128
    with pytest.raises(ValueError, match="solver"):
        DPRidge(solver="sag", y_bound=1.0).fit(np.ones((4, 1)), np.ones(4))


def clipping_scales(X, max_norm, *, n_jobs=None):
    """s_i = p_i q_i = min(1, R/||x_i||) of the fit's design (its row factors)."""
    from skdpgd._data._design import ClippedDesign

    design = ClippedDesign.from_data(X, max_norm, n_jobs=n_jobs)
    return design.pre_scale * design.post_scale


def test_clipping_scales_do_not_depend_on_n_jobs(small_chunks):

    X, _, _ = _sparse_problem(n=3000, d=40)
    expected = np.minimum(1.0, 1.0 / np.maximum(np.linalg.norm(X, axis=1), 1e-300))
    for data in (X, sp.csr_matrix(X), X.astype(np.float32)):
        serial = clipping_scales(data, 1.0)
        np.testing.assert_allclose(serial, expected, rtol=1e-6)  # float32 input: 1e-7 rounding
        assert np.array_equal(clipping_scales(data, 1.0, n_jobs=2), serial)
        with parallel_config(backend="threading", n_jobs=2):
            assert np.array_equal(clipping_scales(data, 1.0), serial)


# -- the once-per-fit passes (label scan, row norms / finiteness) on the fit's threads -------


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("kind", ["int", "str", "object int", "object str"])
def test_label_scan_is_chunked_and_gives_numpys_answer(kind, n_jobs, small_chunks):
    from skdpgd._data._passes import scan_labels

    rng = np.random.default_rng(0)
    y = rng.integers(0, 5, size=1000)  # 16 chunks of 64 labels
    y[::97] = 7
    if kind.endswith("str"):
        y = np.array([f"label {v}" for v in y])
    if kind.startswith("object"):
        y = y.astype(object)
    else:  # scikit-learn's type check of an object array says "unknown": public set only
        found, codes, outside = scan_labels(y, None, n_jobs=n_jobs)
        np.testing.assert_array_equal(found, np.unique(y))
        np.testing.assert_array_equal(codes, np.searchsorted(np.unique(y), y))
        assert not outside
    public = np.unique(y)[:-1]  # the largest label (7) is not public
    same, codes, outside = scan_labels(y, public, n_jobs=n_jobs)
    assert same is public or np.array_equal(same, public)
    known = y != np.unique(y)[-1]
    np.testing.assert_array_equal(codes[known], np.searchsorted(public, y[known]))
    assert outside
    _, codes, outside = scan_labels(y[known], public, n_jobs=n_jobs)
    np.testing.assert_array_equal(codes, np.searchsorted(public, y[known]))
    assert not outside


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_integer_labels_by_counting_are_numpys_unique(dtype):
    """The counting path gives np.unique's array (values and dtype), also where a narrow
    dtype's range would overflow in its own type and at the ends of 64-bit ranges (the
    sort path, a range of 2**16 or more)."""
    from skdpgd._data._passes import COUNTED_LABEL_RANGE, _integer_labels

    info = np.iinfo(np.uint8 if dtype is bool else dtype)
    rng = np.random.default_rng(0)
    chunks = [
        rng.integers(0, 2, 500).astype(dtype),
        np.array([info.min, info.max, info.max], dtype=dtype),  # int8: 127 - (-128) = 255
        np.array([info.max, info.max - 1], dtype=dtype),
        np.array([info.min + 1, info.min], dtype=dtype),
    ]
    if dtype is not bool and info.max - info.min >= COUNTED_LABEL_RANGE:  # the sort path
        chunks.append(np.array([info.min, 0, info.max, 0], dtype=dtype))
    for chunk in chunks:
        found = _integer_labels(chunk)
        assert found.dtype == np.unique(chunk).dtype
        np.testing.assert_array_equal(found, np.unique(chunk))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_label_scan_refuses_a_continuous_target_whatever_n_jobs(n_jobs, small_chunks):
    y = (np.arange(1000) % 2).astype(float)
    y[900] = 0.5  # one continuous value in the 15th chunk
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DPLogisticRegression(max_iter=2, n_jobs=n_jobs).fit(np.ones((1000, 2)), y)
    # with the public label set, 0.5 is a label outside it, like any other
    with pytest.raises(ValueError, match=r"not in classes=\[0, 1\]"):
        DPLogisticRegression(max_iter=2, n_jobs=n_jobs, classes=[0, 1]).fit(
            np.ones((1000, 2)), y)


def test_first_error_in_chunk_order_is_raised_whatever_the_timing():
    import time

    from skdpgd._data._passes import map_chunks

    def chunk(start, stop):
        if start == 0:
            time.sleep(0.05)  # the first chunk fails last
            raise ValueError("chunk 0")
        if start == 2:
            raise KeyError("chunk 2")
        return start

    bounds = [(0, 1), (1, 2), (2, 3), (3, 4)]
    for n_jobs in (1, 2):
        with pytest.raises(ValueError, match="chunk 0"):
            map_chunks(chunk, bounds, n_jobs)
    assert map_chunks(lambda a, b: a * 10 + b, bounds, 2) == [1, 12, 23, 34]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_non_finite_X_is_refused_by_the_chunked_row_norm_pass(n_jobs, small_chunks):
    # validate_data does not read the values of X (one read less); the fit's row-norm
    # pass, chunked on n_jobs threads, refuses NaN/inf after the ledger's charge
    # (tests/linear_model/test_charge_before_reading.py), with a message that names no row, count or value.
    X, y, _ = _sparse_problem(n=1000, d=5)
    X[700, 1], X[300, 4] = np.inf, np.nan
    for data in (X, sp.csr_matrix(X), X.astype(np.float32)):
        with pytest.raises(ValueError, match="non-finite") as refusal:
            DPLogisticRegression(max_iter=2, n_jobs=n_jobs).fit(data, y)
        message = str(refusal.value)
        assert "impute" in message
        assert not any(token in message for token in ("300", "700", " 2 ", "row(s)", "nan,"))
