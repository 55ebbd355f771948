"""The optional fused gradient kernel (numba) against the numpy path it replaces.

The kernel must give the numpy path's sums to rounding for every loss it accepts (with and
without the intercept column, float64 and float32, rows stored clipped), decline what it
does not handle (the numpy path then runs), and leave fits unchanged to rounding.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _sparse_designs import sparse_design  # tests/_sparse_designs.py

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data import _fused
from skdpgd._data._design import ClippedDesign, fused_gradient_sum
from skdpgd.losses import BinaryLogisticLoss, HuberLoss, MultinomialLogisticLoss, SquaredLoss

pytest.importorskip("numba")

LOSSES = [BinaryLogisticLoss(), BinaryLogisticLoss(0.5), HuberLoss(0.3), SquaredLoss()]


def _design(dtype, intercept, seed=0, n=3000, d=17):
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((n, d)) * rng.uniform(0.1, 3.0, (n, 1))).astype(dtype)
    X[5] = np.finfo(dtype).max / 2  # a huge finite row: its squares overflow
    X[6, ::2] = -np.finfo(dtype).max / 3
    y = rng.integers(0, 2, n).astype(float)
    return ClippedDesign.from_data(X, 1.3, 0.7 if intercept else None), y, rng


@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_fused_kernel_gives_the_numpy_sum(loss, dtype, intercept):
    design, y, rng = _design(dtype, intercept)
    coef = rng.standard_normal(design.shape[1]) * 3.0
    fused = fused_gradient_sum(loss.gradient_sum, coef, design, y)
    assert fused is not None and fused.dtype == np.float64 and np.all(np.isfinite(fused))
    reference = loss.gradient_sum(coef, design.toarray(), y)  # materialised, float64
    # The numpy path computes float32 products in float32 (relative rounding ~6e-8 per
    # term); the kernel accumulates in float64 (~1e-16 per term, reassociated).
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    scale = np.max(np.abs(reference))
    np.testing.assert_allclose(fused, reference, rtol=0, atol=rtol * scale)


def test_kernel_is_chosen_by_the_declared_name_not_by_the_type():
    design, y, rng = _design(np.float64, True)
    coef = rng.standard_normal(design.shape[1])

    class OwnSum(BinaryLogisticLoss):  # overrides the sum: must not run the parent's kernel
        def gradient_sum(self, coef, X, y, sample_weight=None):
            """Twice the logistic sum."""
            return 2.0 * super().gradient_sum(coef, X, y, sample_weight)

    assert OwnSum.fused_kernel is None
    assert fused_gradient_sum(OwnSum().gradient_sum, coef, design, y) is None

    class SameSum(BinaryLogisticLoss):  # same sum, so the kernel still applies
        pass

    parent = fused_gradient_sum(BinaryLogisticLoss().gradient_sum, coef, design, y)
    np.testing.assert_array_equal(fused_gradient_sum(SameSum().gradient_sum, coef, design, y), parent)

    class Declared:  # no loss class at all: a declared kernel name and clip suffice
        fused_kernel, fused_residual_clip = "logistic", 1.0

        def gradient_sum(self, coef, X, y):
            raise AssertionError("the kernel computes this sum")

    np.testing.assert_array_equal(fused_gradient_sum(Declared().gradient_sum, coef, design, y), parent)
    Declared.fused_kernel = "no such kernel"
    assert fused_gradient_sum(Declared().gradient_sum, coef, design, y) is None


def test_kernel_declines_what_it_does_not_handle():
    design, y, rng = _design(np.float64, True)
    coef = rng.standard_normal(design.shape[1])
    multinomial = MultinomialLogisticLoss(3)
    assert fused_gradient_sum(multinomial.gradient_sum, np.ones((3, 18)), design, y) is None
    loss = BinaryLogisticLoss()
    assert fused_gradient_sum(loss.value_sum, coef, design, y) is None
    csr = ClippedDesign.from_data(sp.csr_matrix(design.X[:50]), 1.3, 0.7)
    assert fused_gradient_sum(loss.gradient_sum, coef, csr, y[:50]) is None
    strided = ClippedDesign(design.X[:, ::2], design.pre_scale, design.post_scale, 0.7)
    assert fused_gradient_sum(loss.gradient_sum, coef[:10], strided, y) is None


@pytest.mark.parametrize("make, target", [
    (lambda **kw: DPLogisticRegression(classes=[0, 1], **kw), "labels"),
    (lambda **kw: DPRidge(y_bound=1.0, **kw), "values"),
])
@pytest.mark.parametrize("solver", ["gd", "cyclic", "preconditioned"])
def test_fits_are_the_same_with_and_without_the_kernel(make, target, solver, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4000, 6))
    y = (X[:, 0] > 0).astype(int) if target == "labels" else np.tanh(X[:, 1])

    def fit(enabled, n_jobs):
        monkeypatch.setattr(_fused, "ENABLED", enabled)
        est = make(epsilon=1.0, solver=solver, max_iter=4, random_state=0, n_jobs=n_jobs)
        return np.r_[est.fit(X, y).coef_.ravel(), est.intercept_]

    with_kernel, without = fit(True, 1), fit(False, 1)
    # Same noise and steps; the sums differ by rounding only (~1e-16 relative): 1e-10
    # leaves a wide margin while any wrong term (a scale, the intercept) shows at 1e-3.
    np.testing.assert_allclose(with_kernel, without, rtol=0, atol=1e-10)
    assert np.array_equal(fit(True, 2), with_kernel)  # bit-identical across n_jobs


def test_numpy_path_when_disabled(monkeypatch):
    monkeypatch.setattr(_fused, "ENABLED", False)
    assert not _fused.available()
    design, y, _rng = _design(np.float64, True)
    loss = BinaryLogisticLoss()
    assert fused_gradient_sum(loss.gradient_sum, np.zeros(18), design, y) is None


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_factor_pass_with_the_kernel_is_the_numpy_one(dtype, monkeypatch):
    from skdpgd._data._design import _chunk_factors

    rng = np.random.default_rng(4)
    X = rng.standard_normal((500, 7)).astype(dtype)
    big = np.finfo(dtype).max
    X[3] = big / 2  # its sum of squares overflows; the pre-scaled one does not
    X[4, 2], X[5, 1], X[6, 0] = np.nan, np.inf, -np.inf
    X[7] = 0.0  # R / ||p x|| = R / 0 = inf: q = 1 / p
    X[8] = 3e-30  # small entries: not scaled (p = 1)
    X[9] = 0.1  # a row inside the ball (||x|| < 1.3): q = 1 / p, x unchanged

    def factors(start, stop):
        pre, post = np.full(500, -1.0), np.full(500, -1.0)
        total = _chunk_factors(X, start, stop, 1.3, pre, post)
        return pre, post, total

    with_kernel = [factors(0, 500), factors(5, 500), factors(100, 180)]
    monkeypatch.setattr(_fused, "ENABLED", False)
    with_numpy = [factors(0, 500), factors(5, 500), factors(100, 180)]
    bad = np.zeros(500, bool)
    bad[[4, 5, 6]] = True
    for (pre_k, post_k, total_k), (pre_n, post_n, total_n) in zip(with_kernel, with_numpy, strict=True):
        # the sum is NaN exactly for a range holding a row with NaN or infinity
        assert np.isnan(total_k) == np.isnan(total_n)
        # rows outside the range are not written
        written = pre_n != -1.0
        np.testing.assert_array_equal(pre_k != -1.0, written)
        np.testing.assert_array_equal(post_k != -1.0, written)
        good = written & ~bad
        # the same powers of two (both from the exponent of the row's largest entry), and
        # the same post-scales to float64 rounding (1e-14 relative: the norms of 7-term
        # sums, ~50 ulps, divided into R)
        np.testing.assert_array_equal(pre_k[good], pre_n[good])
        np.testing.assert_allclose(post_k[good], post_n[good], rtol=1e-14, atol=0)
    assert np.isnan(with_kernel[0][2]) and np.isnan(with_kernel[1][2])  # rows 5, 6 in range
    assert with_kernel[2][2] == 0.0
    pre_k, post_k, _ = with_kernel[0]
    assert pre_k[7] == 1.0 and post_k[7] == 1.0 and pre_k[8] == 1.0 and post_k[8] == 1.0
    assert post_k[9] * pre_k[9] == 1.0  # q (p x) = x exactly
    # the huge row: p x has its largest entry in [1/2, 4), clipped to norm 1.3
    assert 0.5 <= np.max(np.abs(X[3].astype(np.float64) * pre_k[3])) < 4
    clipped = post_k[3] * (X[3].astype(np.float64) * pre_k[3])
    np.testing.assert_allclose(np.linalg.norm(clipped), 1.3, rtol=1e-14)
    # ordinary rows: q (p x) is x clipped to norm 1.3
    norms = np.linalg.norm(X[:3].astype(np.float64), axis=1)
    np.testing.assert_allclose(post_k[:3] * pre_k[:3], np.minimum(1.0, 1.3 / norms),
                               rtol=1e-14)


@pytest.mark.parametrize("block_bytes", [8 * 17 * 8, 8 * 17 * 13, 2**20])
@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gram_pass_with_the_kernel_is_numpys_to_rounding(dtype, intercept, block_bytes,
                                                         monkeypatch):
    # the kernel clips the same blocks by the same operations as numpy and calls BLAS's
    # syrk from compiled code: the same matrix up to the grouping of the products inside
    # BLAS (huge rows, clipped, included), with blocks of 8 rows, of 13 (a shorter last
    # block) or whole; exactly symmetric either way
    from skdpgd._data import _design as design_module

    monkeypatch.setattr(design_module, "GRAM_BLOCK_BYTES", block_bytes)
    design, _, _ = _design(dtype, intercept, seed=3, n=2500)
    ran = []
    kernel = _fused.fused_gram
    monkeypatch.setattr(design_module, "fused_gram",
                        lambda *args: ran.append(kernel(*args) is not None) or kernel(*args))
    whole, part = design.gram(), design[40:2000].gram()
    assert ran == [True, True]  # the kernel ran on both
    monkeypatch.setattr(_fused, "ENABLED", False)
    for fused, numpy in ((whole, design.gram()), (part, design[40:2000].gram())):
        assert np.array_equal(fused, fused.T)
        # entries are sums of at most 2,500 products of clipped entries (|x| <= 1.3):
        # float64 rounding of such sums, whatever their grouping, is below 1e-12
        np.testing.assert_allclose(fused, numpy, rtol=1e-12, atol=1e-12)
    assert ran[-1] is False  # and the numpy path ran after


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_powers_of_two_from_the_bits_are_frexps_at_every_magnitude(dtype, monkeypatch):
    # the kernel reads the largest magnitude's exponent from the entries' bit patterns;
    # numpy's path takes frexp of the largest magnitude: the same p for every finite row,
    # whatever its scale (subnormal, around 1/2 and 1, powers of two, the largest float)
    # and whichever entry, positive or negative, is the largest
    from skdpgd._data._design import _chunk_factors

    info = np.finfo(dtype)
    rng = np.random.default_rng(7)
    exponents = np.arange(info.minexp - info.nmant, info.maxexp)  # subnormals to the top
    rows = []
    for e in exponents:
        scale = np.ldexp(1.0, int(e))
        row = rng.uniform(-1.0, 1.0, 6) * scale
        row[rng.integers(6)] = -scale if e % 2 else scale  # an exact power of two, +/-
        rows.append(row)
    specials = [0.5, 1.0, np.nextafter(0.5, 0), np.nextafter(1.0, 2), info.max, info.tiny,
                info.smallest_subnormal, 0.0]
    rows += [np.full(6, value) * sign for value in specials for sign in (1.0, -1.0)]
    X = np.clip(np.array(rows), -info.max, info.max).astype(dtype)
    assert np.isfinite(X).all()
    n = X.shape[0]

    def powers():
        pre, post = np.empty(n), np.empty(n)
        assert _chunk_factors(X, 0, n, 1.0, pre, post) == 0.0
        return pre, post

    with_kernel = powers()
    monkeypatch.setattr(_fused, "ENABLED", False)
    with_numpy = powers()
    np.testing.assert_array_equal(with_kernel[0], with_numpy[0])
    np.testing.assert_allclose(with_kernel[1], with_numpy[1], rtol=1e-14, atol=0)


def test_gram_pass_without_scipys_blas_symbol_runs_numpy(monkeypatch):
    # where scipy's cython_blas would not give dsyrk, the kernel declines and the Gram
    # pass runs numpy's blocks: the same matrix to rounding
    from skdpgd._data import _design as design_module

    design, _, _ = _design(np.float64, True, seed=5, n=700)
    with_kernel = design.gram()
    monkeypatch.setattr(_fused, "_blas_syrk", lambda: None)
    assert _fused.fused_gram(design.X, design.pre_scale, design.post_scale, 64) is None
    declined = []
    original = design_module.fused_gram
    monkeypatch.setattr(design_module, "fused_gram",
                        lambda *args: declined.append(original(*args)) or declined[-1])
    without = design.gram()
    assert declined == [None]
    np.testing.assert_allclose(without, with_kernel, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_csr_gram_kernel_is_the_dense_blocks_to_rounding(dtype, intercept, monkeypatch):
    # the CSR kernel adds the products of each row's stored entries; numpy densifies
    # blocks and calls BLAS: the same matrix to rounding (huge and empty rows included),
    # exactly symmetric; on a chunk (a row view) too
    from skdpgd._data import _design as design_module

    design = sparse_design(dtype, intercept)
    ran = []
    kernel = _fused.fused_csr_gram
    monkeypatch.setattr(design_module, "fused_csr_gram",
                        lambda *args: ran.append(kernel(*args) is not None) or kernel(*args))
    whole, part = design.gram(), design[40:2000].gram()
    assert ran == [True, True]
    monkeypatch.setattr(_fused, "ENABLED", False)
    for fused, numpy in ((whole, design.gram()), (part, design[40:2000].gram())):
        assert np.array_equal(fused, fused.T)
        np.testing.assert_allclose(fused, numpy, rtol=1e-12, atol=1e-12)
        # and the dense matrix's Gram: the clipped rows of X.toarray()
        assert np.isfinite(fused).all()
    dense = design.toarray()
    np.testing.assert_allclose(whole, dense.T @ dense, rtol=1e-12, atol=1e-12)


def test_csr_gram_kernel_declines_a_matrix_out_of_canonical_form():
    # duplicates or unsorted indices: the kernel's upper-triangle rule needs sorted,
    # unique indices, so it declines (the estimators' input checks canonicalise first)
    X = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 0]), np.array([0, 2])),
                      shape=(1, 2))
    assert not X.has_canonical_format
    assert _fused.fused_csr_gram(X, np.ones(1), np.ones(1)) is None
    X.sum_duplicates()  # what the estimators' input checks do: sorted, canonical
    top, column = _fused.fused_csr_gram(X, np.ones(1), np.ones(1))
    np.testing.assert_array_equal(top, [[4.0, 2.0], [2.0, 1.0]])
    np.testing.assert_array_equal(column, [2.0, 1.0])


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_csr_gradient_sums_with_kept_chunks_are_the_per_call_sums(n_jobs):
    # one thread keeps a small CSR design's chunks pre-scaled for the fit; the sums are
    # those of the chunks cut and scaled at every call, bit for bit, and those of 2 jobs
    from skdpgd._data._gradients import ChunkedRowSums

    design = sparse_design(np.float64, True)
    y = np.random.default_rng(2).integers(0, 2, design.shape[0]).astype(float)
    loss = BinaryLogisticLoss()
    coef = np.random.default_rng(3).standard_normal(design.shape[1]) * 0.1
    with ChunkedRowSums(loss.gradient_sum, design, y, n_jobs=n_jobs, chunk_size=300) as sums:
        kept = [sums.sum(coef), sums.sum(coef * 2.0)]
        held = dict(sums._kept)
    with ChunkedRowSums(loss.gradient_sum, design, y, n_jobs=1, chunk_size=300) as sums:
        sums._keeps_sparse_chunks = lambda method: False  # cut and scaled at every call
        fresh = [sums.sum(coef), sums.sum(coef * 2.0)]
    assert bool(held) == (n_jobs == 1)
    for a, b in zip(kept, fresh, strict=True):
        np.testing.assert_array_equal(a, b)


def test_csr_row_set_sums_gathered_once_are_the_per_call_sums():
    # a cyclic run's batches of a small CSR design are gathered and pre-scaled once for
    # the fit: the same sums, bit for bit, as gathering and scaling them at every call
    from skdpgd._data._gradients import ChunkedRowSums

    design = sparse_design(np.float64, False, seed=4)
    n = design.shape[0]
    y = np.random.default_rng(5).integers(0, 2, n).astype(float)
    batches = [np.sort(part) for part in np.array_split(
        np.random.default_rng(6).permutation(n), 3)]
    coef = np.random.default_rng(7).standard_normal(design.shape[1]) * 0.1
    loss = BinaryLogisticLoss()

    def sums(keep):
        with ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=200,
                            row_sets=batches) as engine:
            if not keep:
                engine._gathers_once = lambda: False
            got = [engine.sum(coef, j) for j in range(3) for _ in range(2)]
            return got, len(engine._kept)

    kept, n_kept = sums(True)
    fresh, n_fresh = sums(False)
    assert (n_kept, n_fresh) == (3, 0)
    for a, b in zip(kept, fresh, strict=True):
        np.testing.assert_array_equal(a, b)
