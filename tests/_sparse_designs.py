"""A CSR design with adversarial rows, shared by the data layer's tests."""

import numpy as np
import scipy.sparse as sp

from skdpgd._data._design import ClippedDesign


def sparse_design(dtype, intercept, seed=11, n=2500, d=23):
    """A clipped CSR design (density 0.2) with a huge finite row whose every entry is
    stored, one huge entry, and a row with no stored entry; canonical form."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=seed,
                  data_rvs=lambda k: rng.standard_normal(k) * 2.0).astype(dtype)
    X = X.tolil()
    X[5, :] = np.finfo(dtype).max / 2  # a huge finite row, every entry stored
    X[9, 3] = -np.finfo(dtype).max / 3
    X[12, :] = 0.0  # no stored entry
    X = X.tocsr()
    X.eliminate_zeros()
    assert X.has_canonical_format
    return ClippedDesign.from_data(X, 1.3, 0.7 if intercept else None)
