"""Per-row clipping, target clipping and the intercept column (dense and CSR)."""

import numpy as np
import pytest
import scipy.sparse as sp

from skdpgd.utils._clipping import clip_rows, clip_targets, row_norms


def make_rows(rng, n=200, d=6, R=1.5):
    X = rng.standard_normal((n, d)) * rng.choice([0.01, 0.3, 1.0, 10.0, 1e3], size=(n, 1))
    X[rng.uniform(size=X.shape) < 0.4] = 0.0
    X[:3] = 0.0  # rows of norm zero
    X[3] = R / np.sqrt(d)  # a row exactly on the bound
    return X


def test_rows_above_land_on_the_bound_rows_below_untouched():
    rng = np.random.default_rng(0)
    R = 1.5
    X = make_rows(rng, R=R)
    before = np.linalg.norm(X, axis=1)
    Xc = clip_rows(X, R)
    after = np.linalg.norm(Xc, axis=1)
    over = before > R
    assert over.sum() > 20 and (~over).sum() > 20
    np.testing.assert_allclose(after[over], R, rtol=1e-14)
    assert np.array_equal(Xc[~over], X[~over])  # untouched, bit for bit (zero rows included)
    # clipped rows keep their direction
    np.testing.assert_allclose(Xc[over] * (before[over] / R)[:, None], X[over], rtol=1e-13)
    assert np.all(after <= R * (1 + 1e-14))


def test_returns_a_new_float_array_and_leaves_input_alone():
    X = np.array([[3, 4], [0, 1]])  # integers
    X0 = X.copy()
    Xc = clip_rows(X, 1.0)
    assert Xc.dtype == np.float64 and Xc is not X
    np.testing.assert_allclose(Xc, [[0.6, 0.8], [0.0, 1.0]], rtol=1e-15)
    assert np.array_equal(X, X0)
    Xf = np.array([[0.1, 0.2]])
    out = clip_rows(Xf, 1.0)
    assert out is not Xf and np.shares_memory(out, Xf) is False


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_csr_equals_dense(fmt):
    rng = np.random.default_rng(1)
    X = make_rows(rng)
    Xs = sp.csr_matrix(X).asformat(fmt)
    data_before = Xs.copy()
    out = clip_rows(Xs, 1.5)
    assert sp.issparse(out) and out.format == "csr" and out.dtype == np.float64
    np.testing.assert_allclose(out.toarray(), clip_rows(X, 1.5), rtol=1e-14, atol=0)
    assert (Xs != data_before).nnz == 0  # input not modified


def test_csr_with_duplicate_entries_clips_the_represented_matrix():
    # entry (0, 0) stored twice: 3 + 1 = 4, so row 0 is (4, 3) of norm 5
    X = sp.csr_matrix((np.array([3.0, 1.0, 3.0]), np.array([0, 0, 1]), np.array([0, 3])), shape=(1, 2))
    out = clip_rows(X, 1.0)
    np.testing.assert_allclose(out.toarray(), [[0.8, 0.6]], rtol=1e-15)


def test_sparse_array_flavour_is_kept():
    X = sp.csr_array(np.array([[3.0, 4.0], [0.0, 0.5]]))
    out = clip_rows(X, 1.0)
    assert isinstance(out, sp.csr_array)
    np.testing.assert_allclose(out.toarray(), [[0.6, 0.8], [0.0, 0.5]], rtol=1e-15)


def test_huge_rows_do_not_overflow():
    X = np.array([[1e200, 1e200], [3.0, 4.0]])
    out = clip_rows(X, 1.0)
    np.testing.assert_allclose(out, [[2**-0.5, 2**-0.5], [0.6, 0.8]], rtol=1e-14)
    out_s = clip_rows(sp.csr_matrix(X), 1.0)
    np.testing.assert_allclose(out_s.toarray(), out, rtol=1e-14)
    np.testing.assert_allclose(row_norms(X), [np.sqrt(2) * 1e200, 5.0], rtol=1e-14)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="non-finite"):
        clip_rows(np.array([[1.0, np.nan]]), 1.0)
    with pytest.raises(ValueError, match="non-finite"):
        clip_rows(sp.csr_matrix(np.array([[1.0, np.inf]])), 1.0)
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="max_norm"):
            clip_rows(np.ones((2, 2)), bad)
    with pytest.raises(ValueError, match="2-D"):
        clip_rows(np.ones(3), 1.0)


def test_clip_targets():
    y = np.array([-10, -1.0, 0.5, 3.0])
    np.testing.assert_array_equal(clip_targets(y, 2.0), [-2.0, -1.0, 0.5, 2.0])
    assert clip_targets([1, 5], 2).dtype == np.float64
    with pytest.raises(ValueError, match="bound"):
        clip_targets(y, 0.0)


def test_intercept_column_of_the_design_dense_and_csr():
    from skdpgd._data._design import ClippedDesign

    X = np.array([[1.0, 2.0], [0.0, 0.0]])
    dense = ClippedDesign.from_data(X, 10.0, 0.5).toarray()
    np.testing.assert_array_equal(dense, [[1.0, 2.0, 0.5], [0.0, 0.0, 0.5]])
    sparse = ClippedDesign.from_data(sp.csr_matrix(X), 10.0, 0.5)
    np.testing.assert_array_equal(sparse.toarray(), dense)
    # the augmented rows obey the bound sqrt(R^2 + b^2)
    rng = np.random.default_rng(2)
    aug = ClippedDesign.from_data(rng.standard_normal((50, 4)) * 5, 2.0, 1.5).toarray()
    assert np.all(np.linalg.norm(aug, axis=1) <= np.hypot(2.0, 1.5) * (1 + 1e-14))
