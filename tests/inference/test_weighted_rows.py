"""Row weights in [0, 1] with ``inference=True`` (the 0/1 weights of a private label set):
the releases' sensitivities hold, and 0/1 weights target the model of the rows of
weight 1 (docs/theory.md, "Weighted rows")."""

import math

import numpy as np
import pytest
from scipy import sparse

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.inference import curvature_and_residual_bounds, matrix_sensitivity
from skdpgd.inference._releases import _chunk_matrices
from skdpgd.losses import BinaryLogisticLoss, HuberLoss, WeightedLoss


@pytest.mark.parametrize("loss", [BinaryLogisticLoss(1.0), HuberLoss(0.5)],
                         ids=["logistic", "huber"])
def test_weighted_rows_keep_the_releases_sensitivities(loss):
    # brute force over random neighbours (x, y, v) -> (x', y', v'), rows of norm <= R,
    # weights drawn at the corners {0, 1} and inside [0, 1]: every change of the two
    # matrix sums stays within the unweighted bound sqrt(2) A R^2, and of the gradient
    # sum within the unweighted loss's sensitivity S
    rng = np.random.default_rng(0)
    weighted, R, p = WeightedLoss(loss, 1.0), 1.3, 3
    bound_h, bound_psi = curvature_and_residual_bounds(loss)
    limits = (matrix_sensitivity(bound_h, R), matrix_sensitivity(bound_psi**2, R))
    method, worst = _chunk_matrices(weighted), [0.0, 0.0, 0.0]
    for _ in range(3000):
        rows = rng.standard_normal((2, p))
        rows *= R * rng.choice([1.0, rng.random()]) / np.linalg.norm(rows, axis=1)[:, None]
        coef = 3 * rng.standard_normal(p)
        y = rng.integers(0, 2, 2).astype(float) if type(loss) is BinaryLogisticLoss else (
            2 * rng.standard_normal(2))
        v = np.where(rng.random(2) < 0.7, rng.integers(0, 2, 2), rng.random(2))
        packed = WeightedLoss.pack(y, v)
        one = [method(coef, sparse.csr_matrix(rows[i:i + 1]), packed[i:i + 1])
               for i in range(2)]
        grads = [weighted.gradient_sum(coef, rows[i:i + 1], packed[i:i + 1]) for i in range(2)]
        worst[0] = max(worst[0], np.linalg.norm(one[0][0] - one[1][0]) / limits[0])
        worst[1] = max(worst[1], np.linalg.norm(one[0][1] - one[1][1]) / limits[1])
        worst[2] = max(worst[2], np.linalg.norm(np.ravel(grads[0]) - np.ravel(grads[1]))
                       / loss.sensitivity(R))
    assert max(worst) <= 1.0 + 1e-12
    assert min(worst) > 0.5  # the draws reach the bounds' scale (the test can fail)


@pytest.mark.parametrize("make", [
    lambda: DPLogisticRegression(classes=[0, 1], epsilon=np.inf, inference=True,
                                 random_state=0),
    lambda: DPRidge(y_bound=3.0, epsilon=np.inf, inference=True, random_state=0),
], ids=["logistic", "ridge"])
def test_zero_one_weights_give_the_table_of_the_rows_of_weight_one(make):
    # without noise the weighted releases are (n1 / n) times the subset's, and the
    # Newton step and the sandwich cancel that factor: the same estimate and table
    rng = np.random.default_rng(1)
    n, p = 4000, 3
    X = rng.uniform(-1, 1, (n, p)) / math.sqrt(p)
    signal = X @ np.array([1.0, -1.0, 0.5]) + 0.2
    y = ((rng.random(n) < 1 / (1 + np.exp(-signal))).astype(int)
         if isinstance(make(), DPLogisticRegression) else signal + 0.3 * rng.standard_normal(n))
    keep = rng.random(n) < 0.6
    weighted = make().set_params(max_sample_weight=1.0).fit(X, y, sample_weight=keep * 1.0)
    subset = make().fit(X[keep], y[keep])
    np.testing.assert_allclose(weighted.inference_.estimate, subset.inference_.estimate,
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(weighted.inference_.std_err, subset.inference_.std_err,
                               rtol=1e-6)
    assert "weight 0" in weighted.inference_.covers
