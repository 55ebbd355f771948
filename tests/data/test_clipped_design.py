"""Rows far outside data_norm enter every product as their clipped value (no overflow).

The reference is the materialised clipped matrix built by ``clip_rows`` (x R/||x|| for
rows above R): a :class:`ClippedDesign` over the raw X must give the same products, for
dense and CSR X, float64 and float32, whole or in row subsets (chunks, batches).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgd._data._design import ClippedDesign
from skdpgd.utils._clipping import clip_rows

MAX64 = np.finfo(np.float64).max
MAX32 = float(np.finfo(np.float32).max)

ADVERSARIAL_ROWS = [
    [1.2e308, -1.2e308, 0.0],
    [MAX64, MAX64, MAX64],
    [-MAX64, 0.0, 5e-324],
    [0.0, 1e300, 0.0],
    [5e-324, -5e-324, 5e-324],  # subnormal: norm below R, kept as it is
    [3e3, 0.0, 0.0],  # clipped but not far: the lazy path
]


def _data(rng, n=40, d=3):
    X = rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0.1, 0.9, (n, 1))


@pytest.mark.parametrize("kind", ["dense", "csr"])
@pytest.mark.parametrize("row", ADVERSARIAL_ROWS)
def test_products_equal_the_clipped_matrix(kind, row):
    rng = np.random.default_rng(0)
    X = _data(rng)
    X[[3, 17]] = row
    reference = np.hstack([clip_rows(X, 1.0), np.full((X.shape[0], 1), 0.5)])
    data = sp.csr_matrix(X) if kind == "csr" else X
    design = ClippedDesign.from_data(data, 1.0, 0.5)
    assert np.array_equal(np.isfinite(design.toarray()), np.ones(reference.shape, bool))
    theta = rng.standard_normal(4)
    residual = rng.standard_normal(X.shape[0])
    # 1e-13: the lazy rows compute s (x.w) instead of (s x).w, equal to a few roundings
    np.testing.assert_allclose(design @ theta, reference @ theta, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(design.T @ residual, reference.T @ residual, rtol=1e-13, atol=1e-13)
    wide = rng.standard_normal((4, 3))
    np.testing.assert_allclose(design @ wide, reference @ wide, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        design.T @ rng.standard_normal((40, 3)) * 0 + design.T @ np.ones((40, 3)),
        reference.T @ np.ones((40, 3)), rtol=1e-13, atol=1e-13,
    )


@pytest.mark.parametrize("rows", [slice(0, 20), slice(10, 40), np.array([17, 2, 3, 39]),
                                  np.array([5, 6]), np.arange(40) % 2 == 0])
def test_row_subsets_keep_the_stored_rows(rows):
    rng = np.random.default_rng(1)
    X = _data(rng)
    X[[3, 17]] = [MAX64, -MAX64, 1.0]
    reference = clip_rows(X, 1.0)
    for data in (X, sp.csr_matrix(X)):
        sub = ClippedDesign.from_data(data, 1.0)[rows]
        theta = rng.standard_normal(3)
        np.testing.assert_allclose(sub @ theta, reference[rows] @ theta, rtol=1e-13, atol=1e-13)
        r = rng.standard_normal(sub.shape[0])
        np.testing.assert_allclose(sub.T @ r, reference[rows].T @ r, rtol=1e-13, atol=1e-13)


def test_float32_extremes_enter_as_clipped_float64_rows():
    rng = np.random.default_rng(2)
    X = _data(rng).astype(np.float32)
    X[5] = [MAX32, -MAX32, 0.0]
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    reference = np.hstack([clip_rows(X.astype(np.float64), 1.0), np.ones((40, 1))])
    theta = rng.standard_normal(4)
    # float32 products: 1e-6 is a few float32 roundings of terms of size <= 1
    np.testing.assert_allclose(design @ theta, reference @ theta, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(design.T @ np.ones(40), reference.T @ np.ones(40), rtol=1e-6, atol=1e-6)


def test_a_far_row_is_not_stored_apart():
    # The design holds X and two factors per row, whatever the rows: no copy of a far row
    # (rows just below and above 1024 times the bound, and the largest floats), nothing
    # else.
    X = np.array([[1.0, 0.0], [1024 * 0.99, 0.0], [1024 * 1.01, 0.0], [MAX64, MAX64]])
    design = ClippedDesign.from_data(X, 1.0)
    near = ClippedDesign.from_data(np.ones_like(X), 1.0)
    assert sorted(vars(design)) == sorted(vars(near))
    assert design.__sizeof__() == near.__sizeof__()
    assert np.all(np.isfinite(design.pre_scale)) and np.all(np.isfinite(design.post_scale))
    # the clipped rows: q (p x), on the unit sphere for the three rows above the bound
    norms = np.linalg.norm(design.toarray(), axis=1)
    np.testing.assert_allclose(norms, [1, 1, 1, 1], rtol=1e-15)


@pytest.mark.parametrize("kind", ["dense", "csr", "float32"])
def test_gram_of_the_design_is_the_clipped_gram(kind):
    rng = np.random.default_rng(3)
    X = _data(rng)
    X[[2, 9]] = [[MAX64 if kind != "float32" else MAX32, 1.0, -1.0], [40.0, 0.0, 3.0]]
    data = {"dense": lambda: X, "csr": lambda: sp.csr_matrix(X),
            "float32": lambda: X.astype(np.float32)}[kind]()
    design = ClippedDesign.from_data(data, 1.0, 0.7)
    reference = np.hstack([clip_rows(np.asarray(data.toarray() if kind == "csr" else data,
                                                 dtype=np.float64), 1.0), np.full((40, 1), 0.7)])
    # 1e-12: float64 products of terms <= 1 (float32 input is upcast exactly)
    np.testing.assert_allclose(design.gram(), reference.T @ reference, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(design[5:30].gram(), reference[5:30].T @ reference[5:30],
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "csr", "float32", "fortran"])
@pytest.mark.parametrize("block_bytes", [8 * 3 * 8, 8 * 3 * 13, 2**20])
def test_gram_in_blocks_is_the_clipped_gram(monkeypatch, kind, block_bytes):
    # the Gram pass reuses one buffer of clipped rows per block (8 rows, 13 rows with a
    # shorter last block, or the whole design): every block, far rows included, enters
    # as its clipped rows, and the blocks add up to the product of the clipped matrix
    from skdpgd._data import _design

    monkeypatch.setattr(_design, "GRAM_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(5)
    X = _data(rng, n=61)
    X[[0, 12, 13, 60]] = [[MAX32, 1.0, -1.0], [1e30, 0.0, 3.0], [40.0, 0.0, 3.0], [-5.0, 2.0, 0]]
    data = {"dense": lambda: X, "csr": lambda: sp.csr_matrix(X),
            "float32": lambda: X.astype(np.float32), "fortran": lambda: np.asfortranarray(X)}[kind]()
    design = ClippedDesign.from_data(data, 1.0, 0.7)
    dense = np.asarray(data.toarray() if kind == "csr" else data, dtype=np.float64)
    reference = np.hstack([clip_rows(dense, 1.0), np.full((61, 1), 0.7)])
    # 1e-12: float64 products of terms <= 1, whatever the grouping of the rows
    np.testing.assert_allclose(design.gram(), reference.T @ reference, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(design[7:50].gram(), reference[7:50].T @ reference[7:50],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(design.prescaled().gram(), reference.T @ reference,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "csr", "float32"])
def test_prescaled_design_gives_the_same_products(kind):
    # The numpy path scales a chunk's rows once (design.prescaled()) for its two
    # products: the same numbers as scaling them inside each product, bit for bit.
    rng = np.random.default_rng(4)
    X = _data(rng)
    top, far = (MAX32, 1e30) if kind == "float32" else (MAX64, 1e300)
    X[[3, 17]] = [[top, 1.0, -1.0], [far, 0.0, 0.0]]
    data = {"dense": lambda: X, "csr": lambda: sp.csr_matrix(X),
            "float32": lambda: X.astype(np.float32)}[kind]()
    design = ClippedDesign.from_data(data, 1.0, 0.7)
    once = design.prescaled()
    assert once.pre_scale is None and once.prescaled() is once
    theta, r = rng.standard_normal(4), rng.standard_normal(40)
    assert np.array_equal(once @ theta, design @ theta)
    assert np.array_equal(once.T @ r, design.T @ r)
    assert np.array_equal(once[5:30] @ theta, design[5:30] @ theta)
    np.testing.assert_allclose(once.gram(), design.gram(), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(once.toarray(), design.toarray(), rtol=1e-15, atol=0)
    assert np.all(np.isfinite(design @ theta)) and np.all(np.isfinite(design.T @ r))


def test_power_of_two_scales_bring_every_row_below_four():
    from skdpgd.utils._clipping import exponent_cap, power_of_two_scales

    peaks = np.array([0.0, 5e-324, 1e-300, 0.5, 0.99, 1.0, 3.9, 4.0, 1e10, 1e300, MAX64])
    pre = power_of_two_scales(peaks, exponent_cap(np.float64))
    mantissa, _ = np.frexp(pre)
    assert np.all(mantissa == 0.5)  # powers of two
    assert np.all(pre >= np.finfo(np.float64).tiny) and np.all(pre <= 1.0)  # normal, <= 1
    assert np.all(pre[peaks < 1.0] == 1.0)  # small rows are not scaled
    scaled = peaks * pre
    assert np.all(scaled[peaks >= 1.0] >= 0.5) and np.all(scaled < 4.0)
    # float32: the cap keeps 2**-e a normal float32
    pre32 = power_of_two_scales(np.array([MAX32, 1.0, 0.0]), exponent_cap(np.float32))
    assert np.all(pre32.astype(np.float32) >= np.finfo(np.float32).tiny)
    assert MAX32 * pre32[0] < 4.0
    # NaN and infinity get 1 (their rows are refused by the finiteness check)
    assert np.all(power_of_two_scales(np.array([np.nan, np.inf]), 1022) == 1.0)


def test_clipping_factors_give_the_clipped_row():
    from skdpgd.utils._clipping import clipping_factors, scaled_row_norms

    X = np.array([[3e300, 4e300], [3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [-MAX64, MAX64],
                  [6e-310, 8e-310]])
    pre, scaled_norm = scaled_row_norms(X)
    post = clipping_factors(pre, scaled_norm, 1.0)
    clipped = post[:, None] * (pre[:, None] * X)
    # the 3-4-5 rows above the bound: (0.6, 0.8) to a few ulps
    np.testing.assert_allclose(clipped[:2], [[0.6, 0.8], [0.6, 0.8]], rtol=4e-16)
    np.testing.assert_allclose(clipped[4], [-2**-0.5, 2**-0.5], rtol=4e-16)
    # rows inside the bound (norm 0 and subnormal entries included): exactly themselves
    assert np.array_equal(clipped[[2, 3, 5]], X[[2, 3, 5]])
    assert np.all(np.isfinite(post)) and np.all(post <= 2.0 * np.maximum(1.0, 1.0 / pre))
