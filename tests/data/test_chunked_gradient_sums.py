"""Row-chunked gradient sums: correct, chunked by shape only, bit-identical for every n_jobs."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_info

from skdpgd._data import _chunks, _design, _fused, _gradients
from skdpgd._data._chunks import chunk_bounds, single_threaded_blas
from skdpgd.losses import BinaryLogisticLoss, HuberLoss, MultinomialLogisticLoss, SquaredLoss


def _coef_shape(loss, n_features):
    """theta's shape for a loss: (d,) for one output, (K, d) for K."""
    return (n_features,) if loss.n_outputs == 1 else (loss.n_outputs, n_features)


def make_problem(name, n, d, rng, sparse=False):
    X = rng.standard_normal((n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    if sparse:
        X[rng.uniform(size=X.shape) < 0.7] = 0.0
    if name == "binary":
        loss, y = BinaryLogisticLoss(), rng.integers(0, 2, n).astype(float)
    elif name == "multinomial":
        loss, y = MultinomialLogisticLoss(5), rng.integers(0, 5, n)
    elif name == "huber":
        loss, y = HuberLoss(0.5), rng.normal(size=n)
    else:
        loss, y = SquaredLoss(), rng.normal(size=n)
    coef = rng.standard_normal(_coef_shape(loss, d))
    return loss, coef, (sp.csr_matrix(X) if sparse else X), y


LOSSES = ["binary", "multinomial", "huber", "squared"]


def gradient_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    """One chunked sum of the per-row gradients (the engine of a fit, used once)."""
    with _gradients.ChunkedRowSums(loss.gradient_sum, X, y, n_jobs=n_jobs, chunk_size=chunk_size) as sums:
        return sums.sum(coef)


def value_sum(loss, coef, X, y, *, n_jobs=None, chunk_size=None):
    """One chunked sum of the per-row losses."""
    with _gradients.ChunkedRowSums(loss.value_sum, X, y, n_jobs=n_jobs, chunk_size=chunk_size) as sums:
        return float(sums.sum(coef))


def test_chunk_bounds_depend_on_shape_only_and_cover_rows():
    for n, d in [(1, 1), (10, 3), (1000, 1000), (100_000, 20), (5000, 10**6)]:
        bounds = chunk_bounds(n, d)
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(b0[1] == b1[0] for b0, b1 in itertools.pairwise(bounds))
        sizes = [b - a for a, b in bounds]
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
        target = max(_chunks.MIN_CHUNK_ROWS, _chunks.CHUNK_BYTES // (8 * d))
        assert max(sizes) <= target and len(bounds) == -(-n // target)
    assert chunk_bounds(10, 3, chunk_size=4) == [(0, 4), (4, 8), (8, 10)]
    # ~4 MiB of float64 per chunk
    assert chunk_bounds(100_000, 100)[0] == (0, 100_000 // 20)
    with pytest.raises(ValueError, match="chunk_size"):
        chunk_bounds(10, 3, chunk_size=0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LOSSES)
def test_chunked_sum_equals_whole_sum(name, sparse):
    rng = np.random.default_rng(0)
    loss, coef, X, y = make_problem(name, 503, 7, rng, sparse)
    whole_g, whole_v = loss.gradient_sum(coef, X, y), loss.value_sum(coef, X, y)
    for chunk_size in (None, 1, 50, 503, 1000):
        g = gradient_sum(loss, coef, X, y, chunk_size=chunk_size)
        assert g.shape == coef.shape and g.dtype == np.float64
        np.testing.assert_allclose(g, whole_g, rtol=1e-12, atol=1e-12)
        assert value_sum(loss, coef, X, y, chunk_size=chunk_size) == pytest.approx(whole_v, rel=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LOSSES)
def test_bit_identical_for_every_n_jobs(name, sparse):
    rng = np.random.default_rng(1)
    loss, coef, X, y = make_problem(name, 2000, 9, rng, sparse)
    ref_g = gradient_sum(loss, coef, X, y, n_jobs=1, chunk_size=97)
    ref_v = value_sum(loss, coef, X, y, n_jobs=1, chunk_size=97)
    for n_jobs in (None, 2, -1, 3):
        assert np.array_equal(gradient_sum(loss, coef, X, y, n_jobs=n_jobs, chunk_size=97), ref_g)
        assert value_sum(loss, coef, X, y, n_jobs=n_jobs, chunk_size=97) == ref_v


def test_bit_identical_with_default_chunks_on_a_blas_sized_problem():
    """Several default (4 MiB) chunks and a multinomial gemm large enough for BLAS threads."""
    rng = np.random.default_rng(2)
    loss, coef, X, y = make_problem("multinomial", 1600, 1000, rng)
    assert len(chunk_bounds(*X.shape)) == 4
    ref = gradient_sum(loss, coef, X, y, n_jobs=1)
    assert np.array_equal(gradient_sum(loss, coef, X, y, n_jobs=2), ref)
    assert np.array_equal(gradient_sum(loss, coef, X, y, n_jobs=-1), ref)


def test_thread_limits_are_restored():
    rng = np.random.default_rng(3)
    loss, coef, X, y = make_problem("binary", 300, 4, rng)
    before = [(i["filepath"], i["num_threads"]) for i in threadpool_info()]
    gradient_sum(loss, coef, X, y, n_jobs=2, chunk_size=10)
    gradient_sum(loss, coef, X, y, n_jobs=1, chunk_size=10)
    after = [(i["filepath"], i["num_threads"]) for i in threadpool_info()]
    assert after == before


def test_result_is_a_new_array_and_inputs_untouched():
    rng = np.random.default_rng(4)
    loss, coef, X, y = make_problem("huber", 100, 3, rng)
    coef0, X0 = coef.copy(), X.copy()
    g1 = gradient_sum(loss, coef, X, y, chunk_size=10)
    g2 = gradient_sum(loss, coef, X, y, chunk_size=10)
    assert g1 is not g2 and np.array_equal(g1, g2)
    assert np.array_equal(coef, coef0) and np.array_equal(X, X0)


def test_mismatched_lengths_raise():
    with pytest.raises(ValueError, match="rows"):
        gradient_sum(BinaryLogisticLoss(), np.zeros(2), np.ones((3, 2)), np.ones(2))


def test_blas_limit_is_entered_once_when_nested(monkeypatch):
    # A solver's loop holds the limit and its row sums ask for it again: threadpoolctl's
    # limit is entered once, and the pools are restored when the outer context leaves.
    with single_threaded_blas():  # builds the controller
        pass
    entered = []
    original = type(_chunks._CONTROLLER).limit
    monkeypatch.setattr(type(_chunks._CONTROLLER), "limit",
                        lambda self, **kw: entered.append(kw) or original(self, **kw))
    rng = np.random.default_rng(3)
    loss, coef, X, y = make_problem("binary", 2000, 9, rng, False)
    with single_threaded_blas():
        with _gradients.ChunkedRowSums(loss.gradient_sum, X, y, chunk_size=97) as sums:
            sums.sum(coef)
        assert _chunks._HOLDERS == 1
    assert entered == [{"limits": 1}] and _chunks._HOLDERS == 0


def test_dense_products_keep_huge_finite_rows_clipped():
    # A finite row whose plain product would overflow enters as q (p x): its gradient term
    # is the clipped row's (the materialised design is the reference).
    rng = np.random.default_rng(6)
    X = rng.standard_normal((200, 3))
    X[17] = [1.2e308, -1.2e308, 0.0]
    y = rng.integers(0, 2, 200).astype(float)
    design = _design.ClippedDesign.from_data(X, 1.0, 1.0)
    coef = rng.standard_normal(4)
    loss = BinaryLogisticLoss()
    g = gradient_sum(loss, coef, design, y, chunk_size=50)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, loss.gradient_sum(coef, design.toarray(), y),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_one_chunk_numpy_path_scales_the_rows_once_per_fit(sparse, monkeypatch):
    # X of one chunk: the numpy path keeps its pre-scaled rows for the engine's life
    # (one chunk of memory) instead of scaling them at every step, with the same sums.
    from skdpgd._data import _fused

    monkeypatch.setattr(_fused, "ENABLED", False)
    rng = np.random.default_rng(7)
    loss, _coef, X, y = make_problem("binary", 300, 4, rng, sparse=sparse)
    design = _design.ClippedDesign.from_data(X, 1.0, 1.0)
    calls = []
    original = _design.ClippedDesign.prescaled
    monkeypatch.setattr(_design.ClippedDesign, "prescaled",
                        lambda self: calls.append(1) or original(self))
    theta = rng.standard_normal(5)
    with _gradients.ChunkedRowSums(loss.gradient_sum, design, y) as sums:
        first, second = sums.sum(theta), sums.sum(theta)
        assert len(calls) == 1 and sums._whole is not None
    assert sums._whole is None  # released with the engine
    assert np.array_equal(first, second)
    np.testing.assert_allclose(first, loss.gradient_sum(theta, design.toarray(), y),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("name", LOSSES)
def test_row_sets_gathered_once_give_the_same_sums_bit_for_bit(monkeypatch, name, fused):
    """A small X's fixed row sets (a cyclic partition) are gathered once per fit and kept:
    every sum equals the one that gathers each chunk anew, bit for bit, over several calls
    (the kept chunks are never scaled in place), on the fused and the numpy path."""
    rng = np.random.default_rng(7)
    loss, coef, X, y = make_problem(name, 1003, 9, rng)
    X[5] *= 1e300  # a far row: pre-scaled by a power of two on every path
    design = _design.ClippedDesign.from_data(X, 1.0, intercept_scaling=1.0)
    coef = rng.standard_normal(_coef_shape(loss, 10))
    row_sets = np.array_split(rng.permutation(len(y)), 4)
    monkeypatch.setattr(_fused, "ENABLED", fused)

    def sums(gather_bytes):
        monkeypatch.setattr(_gradients, "GATHER_ONCE_BYTES", gather_bytes)
        with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=100,
                                       row_sets=row_sets) as engine:
            assert engine._gathers_once() == (gather_bytes > 0)
            return [engine.sum(coef * (1 + k), j) for k in range(3) for j in range(4)]

    for kept, fresh in zip(sums(2**30), sums(0), strict=True):
        np.testing.assert_array_equal(kept, fresh)
