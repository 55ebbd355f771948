"""Gram-preconditioned noisy GD: the Gram and its release, the preconditioner, the loop, the
accounting (composition of the Gram release with K noisy gradients) and the planner."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd._data._gram import gram_sum
from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon
from skdpgd.accounting._preconditioned import (
    calibrate_preconditioned_gd,
    preconditioned_gd_gdp,
    preconditioned_gd_report,
)
from skdpgd.losses import BinaryLogisticLoss, HuberLoss, MultinomialLogisticLoss, SquaredLoss
from skdpgd.optim._gram_release import gram_sensitivity, release_gram, symmetric_gaussian
from skdpgd.optim._preconditioned import GramPreconditioner, preconditioned_noisy_gradient_descent
from skdpgd.solvers._preconditioned import gram_noise_margin, plan_preconditioned_gd


def _coef_shape(loss, n_features):
    """theta's shape for a loss: (d,) for one output, (K, d) for K."""
    return (n_features,) if loss.n_outputs == 1 else (loss.n_outputs, n_features)


def upper(a):
    return a[np.triu_indices(a.shape[0])]


def design(rng, n=300, d=6, sparse=False, dtype=np.float64, b=0.7):
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 3.0, size=d)  # uneven columns
    X[::7] *= 50.0  # rows far outside the clip
    if sparse:
        X[rng.uniform(size=X.shape) < 0.6] = 0.0
        X = sp.csr_matrix(X.astype(dtype))
    else:
        X = X.astype(dtype)
    return ClippedDesign.from_data(X, 1.0, b)


# -- the Gram ------------------------------------------------------------------------------


def _gram(des, *, n_jobs=None, chunk_size=None):
    """The Gram pass of a fit over the design ``des`` (row sums opened for it alone)."""
    with ChunkedRowSums(None, des, np.zeros(des.shape[0]), n_jobs=n_jobs) as sums:
        return gram_sum(sums, des.shape[0], des.shape[1], chunk_size=chunk_size)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("b", [0.7, None])
def test_gram_sum_equals_dense_product(sparse, dtype, b):
    rng = np.random.default_rng(0)
    des = design(rng, sparse=sparse, dtype=dtype, b=b)
    dense = des.toarray()
    expected = dense.T @ dense
    got = _gram(des, chunk_size=37)
    tol = 1e-5 if dtype == np.float32 else 1e-10  # float32 X is cast per chunk, exactly
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    np.testing.assert_array_equal(got, got.T)
    assert np.all(np.linalg.norm(dense, axis=1) <= math.hypot(1.0, b or 0.0) * (1 + 1e-12))


def test_gram_sum_is_bit_identical_for_every_n_jobs():
    rng = np.random.default_rng(1)
    des = design(rng, n=2000, d=9)
    one = _gram(des, n_jobs=1, chunk_size=128)
    two = _gram(des, n_jobs=2, chunk_size=128)
    np.testing.assert_array_equal(one, two)


def test_gram_pass_copies_each_chunk_once(monkeypatch):
    # the Gram pass builds each block's clipped rows itself (ClippedDesign.gram): the row
    # sums hand it the chunk as is, not a pre-scaled copy made first
    rng = np.random.default_rng(2)
    des = design(rng, n=500, d=5)
    expected = _gram(des, chunk_size=64)
    calls = []
    original = ClippedDesign.prescaled

    def counted(self, *args, **kwargs):
        calls.append(self.shape[0])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ClippedDesign, "prescaled", counted)
    np.testing.assert_array_equal(_gram(des, chunk_size=64), expected)  # bit-identical
    assert calls == []


def _brute_force_sensitivity(x, xp):
    return np.linalg.norm(upper(np.outer(x, x) - np.outer(xp, xp)))


def test_gram_sensitivity_bound_holds_and_is_attained():
    rt, d = 1.3, 5
    bound = gram_sensitivity(rt)
    assert bound == pytest.approx(math.sqrt(2) * rt**2, rel=1e-15)
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(2000):  # random pairs of rows of norm <= rt
        x, xp = rng.standard_normal((2, d))
        x *= rt * rng.uniform() ** 0.2 / np.linalg.norm(x)
        xp *= rt * rng.uniform() ** 0.2 / np.linalg.norm(xp)
        worst = max(worst, _brute_force_sensitivity(x, xp))
    assert worst <= bound
    e = np.eye(d) * rt
    adversarial = [
        (e[0], e[1]),  # orthogonal axis-aligned rows: D diagonal, ||v(D)|| = ||D||_F
        (e[0], -e[0]),  # opposite rows: D = 0
        (e[0], np.zeros(d)),  # a row replaced by zero
        (np.full(d, rt / math.sqrt(d)), e[0]),  # dense vs one-hot
        ((e[0] + e[1]) / math.sqrt(2), (e[0] - e[1]) / math.sqrt(2)),  # rotated orthogonal pair
    ]
    values = [_brute_force_sensitivity(x, xp) for x, xp in adversarial]
    assert max(values) <= bound * (1 + 1e-15)
    assert values[0] == pytest.approx(bound, rel=1e-14)  # attained
    # the upper-triangle norm is at most the Frobenius norm of D, whose formula is checked
    for x, xp in adversarial:
        frob2 = np.linalg.norm(np.outer(x, x) - np.outer(xp, xp)) ** 2
        assert frob2 == pytest.approx(
            np.dot(x, x) ** 2 + np.dot(xp, xp) ** 2 - 2 * np.dot(x, xp) ** 2, abs=1e-12
        )


def test_gram_sum_of_neighbouring_data_sets_moves_by_at_most_the_sensitivity():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 4))
    for trial in range(50):
        Xp = X.copy()
        Xp[trial % 50] = rng.standard_normal(4) * 10.0 ** rng.integers(-3, 300)  # huge finite
        g = _gram(ClippedDesign.from_data(X, 1.0, 0.5))
        gp = _gram(ClippedDesign.from_data(Xp, 1.0, 0.5))
        assert np.linalg.norm(upper(g - gp)) <= gram_sensitivity(math.hypot(1.0, 0.5)) * (1 + 1e-12)


def test_gram_sensitivity_refuses_bad_bounds():
    for bad in (0.0, -1.0, np.inf, np.nan, 1e200):
        with pytest.raises(ValueError, match="row_norm"):
            gram_sensitivity(bad)


def test_release_is_symmetric_with_the_stated_noise():
    rng = np.random.default_rng(4)
    gram = np.diag([4.0, 2.0, 1.0])
    released = release_gram(gram, 2, 0.0, rng)
    np.testing.assert_array_equal(released, gram / 2)  # no noise: exact, no draw
    assert rng.bit_generator.state == np.random.default_rng(4).bit_generator.state
    draws = np.array([upper(symmetric_gaussian(3, 0.5, rng)) for _ in range(4000)])
    noise = symmetric_gaussian(3, 0.5, rng)
    np.testing.assert_array_equal(noise, noise.T)
    # 4000 x 6 draws: the std estimate has relative error ~ 1/sqrt(2 * 4000) = 1.1%; 5% is > 4 sd
    np.testing.assert_allclose(draws.std(axis=0), 0.5, rtol=0.05)
    np.testing.assert_allclose(np.corrcoef(draws.T), np.eye(6), atol=0.07)  # 0.07 > 4 / sqrt(4000)


def test_margin_bounds_the_noise_operator_norm():
    rng = np.random.default_rng(5)
    dim, tau, p = 30, 0.01, 0.05
    margin = gram_noise_margin(tau, dim, p)
    norms = np.array([np.linalg.norm(symmetric_gaussian(dim, tau, rng), 2) for _ in range(400)])
    # the bound allows 5% of exceedances; it is loose (the mean is near 2 sqrt(d) tau), so
    # none is expected: 400 draws give P(any) <= 400 * P(one) with P(one) far below 5%
    assert np.mean(norms > margin) <= p
    assert norms.mean() <= 2 * math.sqrt(dim) * tau
    assert gram_noise_margin(0.0, dim) == 0.0


# -- the preconditioner ----------------------------------------------------------------------


def test_preconditioner_majorises_when_the_noise_is_within_the_margin():
    rng = np.random.default_rng(6)
    A = rng.standard_normal((40, 5))
    G = A.T @ A / 40
    E = symmetric_gaussian(5, 0.05, rng)
    m = np.linalg.norm(E, 2)
    c, lam = 0.25, 1e-3
    P = GramPreconditioner(G + E, curvature=c, margin=m, strong_convexity=lam)
    assert np.all(np.linalg.eigvalsh(P.matrix() - (c * G + lam * np.eye(5))) >= -1e-12)
    assert P.eigenvalues.min() >= c * m + lam - 1e-15
    v = rng.standard_normal(5)
    np.testing.assert_allclose(P.matrix() @ P.solve(v), v, atol=1e-10)
    V = rng.standard_normal((3, 5))  # softmax coefficients: row-wise
    np.testing.assert_allclose(P.solve(V), np.array([P.solve(row) for row in V]), atol=1e-12)


def test_preconditioner_refuses_a_singular_floor_and_bad_input():
    with pytest.raises(ValueError, match="positive floor"):
        GramPreconditioner(np.eye(2), curvature=1.0, margin=0.0, strong_convexity=0.0)
    with pytest.raises(ValueError, match="non-finite"):
        GramPreconditioner(np.array([[np.nan]]), curvature=1.0, margin=0.1, strong_convexity=0.0)
    with pytest.raises(ValueError, match="square"):
        GramPreconditioner(np.ones((2, 3)), curvature=1.0, margin=0.1, strong_convexity=0.0)


# -- the loop --------------------------------------------------------------------------------


def test_one_newton_step_solves_a_quadratic_exactly():
    # F(theta) = (1/2n)||X theta - y||^2 + lam/2 ||theta||^2 has Hessian G + lam I: with the
    # exact Gram, curvature 1 and margin 0, P is the Hessian and one step lands on the optimum.
    rng = np.random.default_rng(7)
    X, y = rng.standard_normal((200, 4)), rng.standard_normal(200)
    lam, n = 0.1, 200
    P = GramPreconditioner(X.T @ X / n, curvature=1.0, margin=0.0, strong_convexity=lam)

    def gradient(theta):
        return SquaredLoss().gradient_sum(theta, X, y) / n + lam * theta

    theta = preconditioned_noisy_gradient_descent(
        gradient, np.zeros(4), preconditioner=P, learning_rate=1.0, noise_std=0.0, n_steps=1,
        rng=None,
    )
    exact = np.linalg.solve(X.T @ X / n + lam * np.eye(4), X.T @ y / n)
    np.testing.assert_allclose(theta, exact, atol=1e-12)


def _objective(loss, X, y, lam):
    n = X.shape[0]

    def f(flat):
        theta = flat.reshape(_coef_shape(loss, X.shape[1]))
        value = loss.value_sum(theta, X, y) / n + 0.5 * lam * np.sum(theta * theta)
        grad = loss.gradient_sum(theta, X, y) / n + lam * theta
        return value, grad.ravel()

    return f


def _problem(name, rng, n=400, d=5):
    X = rng.standard_normal((n, d)) + 0.8  # uncentred: an ill-conditioned Gram
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    X = np.hstack([X, np.full((n, 1), 0.6)])  # intercept column
    w = rng.standard_normal(d + 1)
    t = X @ w
    if name == "logistic":
        return BinaryLogisticLoss(), 0.25, (rng.uniform(size=n) < 1 / (1 + np.exp(-3 * t))) * 1.0, X
    if name == "logistic_clipped":
        return BinaryLogisticLoss(0.5), 0.25, (rng.uniform(size=n) < 1 / (1 + np.exp(-3 * t))) * 1.0, X
    if name == "huber":
        return HuberLoss(0.3), 1.0, t + 0.3 * rng.standard_normal(n), X
    if name == "softmax":
        scores = X @ rng.standard_normal((d + 1, 3))
        return MultinomialLogisticLoss(3), 0.5, np.argmax(scores + rng.gumbel(size=(n, 3)), axis=1), X
    return SquaredLoss(), 1.0, t + 0.1 * rng.standard_normal(n), X


@pytest.mark.parametrize("name", ["logistic", "logistic_clipped", "huber", "softmax", "squared"])
def test_zero_noise_reaches_scipys_minimiser(name):
    rng = np.random.default_rng(8)
    loss, c, y, X = _problem(name, rng)
    n, lam = X.shape[0], 1e-3
    P = GramPreconditioner(X.T @ X / n, curvature=c, margin=0.0, strong_convexity=lam)
    shape = _coef_shape(loss, X.shape[1])

    def gradient(theta):
        return loss.gradient_sum(theta, X, y) / n + lam * theta

    theta = preconditioned_noisy_gradient_descent(
        gradient, np.zeros(shape), preconditioner=P, learning_rate=1.0, noise_std=0.0,
        n_steps=300, rng=None,
    )
    f = _objective(loss, X, y, lam)
    ref = minimize(f, np.zeros(int(np.prod(shape))), jac=True, method="L-BFGS-B",
                   options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000))
    # strongly convex (lam = 1e-3): a gradient norm g leaves a distance <= g / lam
    assert np.linalg.norm(gradient(theta)) < 1e-9
    assert f(theta.ravel())[0] <= ref.fun + 1e-12
    np.testing.assert_allclose(theta.ravel(), ref.x, atol=1e-4)


def test_zero_noise_matches_scikit_learn_at_matching_regularisation():
    from sklearn.linear_model import LogisticRegression, Ridge

    rng = np.random.default_rng(9)
    _, _, y, X = _problem("logistic", rng)
    n, lam = X.shape[0], 1e-2
    P = GramPreconditioner(X.T @ X / n, curvature=0.25, margin=0.0, strong_convexity=lam)
    loss = BinaryLogisticLoss()
    theta = preconditioned_noisy_gradient_descent(
        lambda t: loss.gradient_sum(t, X, y) / n + lam * t, np.zeros(X.shape[1]),
        preconditioner=P, learning_rate=1.0, noise_std=0.0, n_steps=200, rng=None,
    )
    # sklearn: C sum_i l_i + ||w||^2 / 2, i.e. lam = 1 / (C n); the intercept is our last column
    ref = LogisticRegression(C=1 / (lam * n), fit_intercept=False, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(theta, ref.fit(X, y).coef_[0], atol=1e-5)

    _, _, y, X = _problem("squared", rng)
    P = GramPreconditioner(X.T @ X / n, curvature=1.0, margin=0.0, strong_convexity=lam)
    theta = preconditioned_noisy_gradient_descent(
        lambda t: SquaredLoss().gradient_sum(t, X, y) / n + lam * t, np.zeros(X.shape[1]),
        preconditioner=P, learning_rate=1.0, noise_std=0.0, n_steps=3, rng=None,
    )
    ridge = Ridge(alpha=lam * n, fit_intercept=False, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(theta, ridge.coef_, atol=1e-10)


def test_momentum_reaches_the_same_minimiser_and_noise_is_drawn_exactly_k_times():
    rng = np.random.default_rng(10)
    loss, c, y, X = _problem("huber", rng)
    n, lam = X.shape[0], 1e-3
    P = GramPreconditioner(X.T @ X / n, curvature=c, margin=0.05, strong_convexity=lam)

    def gradient(theta):
        return loss.gradient_sum(theta, X, y) / n + lam * theta

    kw = dict(preconditioner=P, learning_rate=1.0, n_steps=400)
    plain = preconditioned_noisy_gradient_descent(gradient, np.zeros(6), noise_std=0.0, rng=None, **kw)
    heavy = preconditioned_noisy_gradient_descent(
        gradient, np.zeros(6), noise_std=0.0, rng=None, momentum=0.7, **kw
    )
    np.testing.assert_allclose(heavy, plain, atol=1e-8)
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    preconditioned_noisy_gradient_descent(
        gradient, np.zeros(6), preconditioner=P, learning_rate=1.0, noise_std=0.1, n_steps=7,
        rng=a, momentum=0.5,
    )
    b.standard_normal((7, 6))
    assert a.bit_generator.state == b.bit_generator.state
    with pytest.raises(ValueError, match="momentum"):
        preconditioned_noisy_gradient_descent(gradient, np.zeros(6), noise_std=0.0, rng=None,
                                              momentum=1.0, **kw)


def test_whole_run_is_bit_identical_for_every_n_jobs():
    rng = np.random.default_rng(12)
    des = design(rng, n=3000, d=8)
    y = (rng.uniform(size=3000) < 0.4).astype(float)
    loss = BinaryLogisticLoss(0.5)

    def fit(n_jobs):
        run_rng = np.random.default_rng(0)
        with ChunkedRowSums(loss.gradient_sum, des, y, n_jobs=n_jobs, chunk_size=256) as sums:
            gram = release_gram(gram_sum(sums, 3000, 9, chunk_size=256), 3000, 1e-3, run_rng)
            P = GramPreconditioner(gram, curvature=0.25, margin=0.01, strong_convexity=1e-4)
            return preconditioned_noisy_gradient_descent(
                lambda t: sums.sum(t) / 3000 + 1e-4 * t, np.zeros(9), preconditioner=P,
                learning_rate=1.0, noise_std=1e-3, n_steps=10, rng=run_rng, momentum=0.5,
            )

    np.testing.assert_array_equal(fit(1), fit(2))


# -- accounting ------------------------------------------------------------------------------


def test_gdp_is_the_composition_of_the_gram_and_k_gaussian_mechanisms():
    mu = preconditioned_gd_gdp(0.01, 0.02, 9, gram_sensitivity=2.0, sensitivity=3.0, n_samples=100)
    assert mu == pytest.approx(math.hypot(2.0 / (100 * 0.01), 3.0 * 3.0 / (100 * 0.02)), rel=1e-15)
    assert preconditioned_gd_gdp(0.01, 0.0, 0, gram_sensitivity=2.0, sensitivity=3.0,
                                 n_samples=100) == pytest.approx(2.0)
    assert preconditioned_gd_gdp(0.0, 0.02, 3, gram_sensitivity=2.0, sensitivity=3.0,
                                 n_samples=100) == math.inf


@pytest.mark.parametrize("epsilon", [0.05, 0.1, 1.0, 8.0])
@pytest.mark.parametrize("share", [0.02, 0.25, 0.9])
@pytest.mark.parametrize("steps", [1, 17, 200])
def test_calibration_round_trip(epsilon, share, steps):
    delta, n, s, s_g = 1e-5, 32_561, 1.1, 1.8
    tau, sigma = calibrate_preconditioned_gd(
        epsilon, delta, gram_share=share, n_steps=steps, sensitivity=s, gram_sensitivity=s_g,
        n_samples=n,
    )
    target = epsilon_delta_to_gdp(epsilon, delta)
    mu = preconditioned_gd_gdp(tau, sigma, steps, gram_sensitivity=s_g, sensitivity=s, n_samples=n)
    assert mu <= target
    assert mu == pytest.approx(target, rel=1e-9)
    assert gdp_to_epsilon(mu, delta) <= epsilon
    # the split is the one asked for
    assert (s_g / (n * tau)) ** 2 == pytest.approx(share * target**2, rel=1e-9)


def test_calibration_edge_cases():
    kw = dict(n_steps=5, sensitivity=1.0, gram_sensitivity=1.0, n_samples=100)
    assert calibrate_preconditioned_gd(np.inf, 1e-5, gram_share=0.3, **kw) == (0.0, 0.0)
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="gram_share"):
            calibrate_preconditioned_gd(1.0, 1e-5, gram_share=bad, **kw)


def test_report_states_the_composed_guarantee():
    kw = dict(sensitivity=1.1, gram_sensitivity=1.8, n_samples=32_561)
    tau, sigma = calibrate_preconditioned_gd(0.5, 1e-5, gram_share=0.25, n_steps=20, **kw)
    report = preconditioned_gd_report(
        tau, sigma, 20, delta=1e-5, learning_rate=1.0, strong_convexity=1e-6, curvature=0.25,
        margin=gram_noise_margin(tau, 105), row_norm=1.1, momentum=0.5, **kw,
    )
    assert report.epsilon <= 0.5 and report.epsilon == pytest.approx(0.5, rel=1e-6)
    assert report.mu == pytest.approx(math.hypot(report.gram_mu, report.steps_mu), rel=1e-14)
    assert report.gram_mu == pytest.approx(1.8 / (32_561 * tau), rel=1e-14)
    assert report.binding_bound == "composition" and report.neighbouring_relation == "replace-one"
    assert "Corollary 3.3" in report.theorem and "Gram release" in repr(report)
    assert report.momentum == 0.5 and "momentum=0.5" in repr(report)
    no_steps = preconditioned_gd_report(
        tau, 0.0, 0, delta=1e-5, learning_rate=1.0, strong_convexity=1e-6, curvature=0.25,
        margin=0.0, row_norm=1.1, **kw,
    )
    assert no_steps.steps_mu == 0.0 and no_steps.mu == pytest.approx(report.gram_mu)


def test_planner_is_public_and_calibrated():
    kw = dict(sensitivity=1.1, gram_sensitivity=1.8, curvature=0.25, n_samples=32_561,
              gram_dim=105, n_params=105, initial_distance=16.0)
    plan = plan_preconditioned_gd(0.5, 1e-5, **kw)
    assert plan == plan_preconditioned_gd(0.5, 1e-5, **kw)  # a function of public numbers
    assert 1 <= plan.n_steps <= 200 and 0 < plan.gram_share < 1
    mu = preconditioned_gd_gdp(plan.gram_noise_std, plan.noise_std, plan.n_steps,
                               gram_sensitivity=1.8, sensitivity=1.1, n_samples=32_561)
    assert mu <= epsilon_delta_to_gdp(0.5, 1e-5)
    assert plan.margin == gram_noise_margin(plan.gram_noise_std, 105)
    free = plan_preconditioned_gd(np.inf, 1e-5, **kw)
    assert free.noise_std == free.gram_noise_std == free.margin == 0.0
    assert free.tolerance is not None and plan.tolerance is None
    with pytest.raises(ValueError, match="multiple"):
        plan_preconditioned_gd(1.0, 1e-5, **dict(kw, n_params=106))


def test_proxy_recursion_matches_closed_form_and_the_loop():
    from skdpgd.solvers._preconditioned._planning import _recursion
    from skdpgd.solvers._utility import error_moments

    def _unit_errors(n_steps, g, **kw):
        a, b, q, h = _recursion(g, **kw)
        mean, variance = (np.array(x) for x in zip(*error_moments(a, b, q, n_steps), strict=True))
        return mean, variance / q, h, q

    g = np.array([1e-4, 0.01, 0.3])
    kw = dict(margin=0.05, curvature=0.5, strong_convexity=1e-3, learning_rate=0.9)
    mean, variance, h, q = _unit_errors(30, g, momentum=0.0, **kw)
    opt, noise = 0.5 * h * mean**2, 0.5 * h * q * variance
    h = 0.5 * g + 1e-3
    p = 0.5 * (g + 0.05) + 1e-3
    r = 0.9 * h / p
    k = np.arange(1, 31)[:, None]
    np.testing.assert_allclose(opt, 0.5 * h * (1 - r) ** (2 * k), rtol=1e-12)
    np.testing.assert_allclose(noise, 0.9 / (2 * p) * (1 - (1 - r) ** (2 * k)) / (2 - r), rtol=1e-10)
    # with momentum: Monte Carlo of the loop itself on a 1-D quadratic with theta* = 1
    mean, variance, h, q = _unit_errors(12, np.array([0.02]), momentum=0.6, **kw)
    opt, noise = 0.5 * h * mean**2, 0.5 * h * q * variance
    hh, pp = 0.5 * 0.02 + 1e-3, 0.5 * (0.02 + 0.05) + 1e-3
    rng, sigma, runs = np.random.default_rng(13), 0.01, 4000
    finals = np.array([
        preconditioned_noisy_gradient_descent(
            lambda t: hh * (t - 1.0), np.zeros(1), preconditioner=lambda v: v / pp,
            learning_rate=0.9, noise_std=sigma, n_steps=12, rng=rng, momentum=0.6,
        )[0]
        for _ in range(runs)
    ])
    errors = finals - 1.0
    exact = preconditioned_noisy_gradient_descent(
        lambda t: hh * (t - 1.0), np.zeros(1), preconditioner=lambda v: v / pp,
        learning_rate=0.9, noise_std=0.0, n_steps=12, rng=None, momentum=0.6,
    )[0]
    assert 0.5 * hh * (exact - 1.0) ** 2 == pytest.approx(opt[-1, 0], rel=1e-10)
    # variance estimate from 4000 draws: relative sd sqrt(2/4000) = 2.2%; 10% is > 4 sd
    assert 0.5 * hh * errors.var() == pytest.approx(sigma**2 * noise[-1, 0], rel=0.1)


def test_tolerance_stops_noiseless_runs_only():
    rng = np.random.default_rng(14)
    loss, c, y, X = _problem("logistic", rng)
    n, lam = X.shape[0], 1e-3
    P = GramPreconditioner(X.T @ X / n, curvature=c, margin=0.0, strong_convexity=lam)
    calls = []

    def gradient(theta):
        calls.append(1)
        return loss.gradient_sum(theta, X, y) / n + lam * theta

    theta = preconditioned_noisy_gradient_descent(
        gradient, np.zeros(6), preconditioner=P, learning_rate=1.0, noise_std=0.0,
        n_steps=1000, rng=None, tolerance=1e-9,
    )
    assert len(calls) < 1000 and np.linalg.norm(gradient(theta)) < 1e-8
    with pytest.raises(ValueError, match="only allowed without noise"):
        preconditioned_noisy_gradient_descent(
            gradient, np.zeros(6), preconditioner=P, learning_rate=1.0, noise_std=0.1,
            n_steps=10, rng=rng, tolerance=1e-9,
        )


def test_concentrated_initial_distance_is_the_upper_end_of_the_range():
    from skdpgd.linear_model._defaults import initial_distance
    from skdpgd.solvers import concentrated_initial_distance

    assert concentrated_initial_distance(2.0, 0.5, 16, 3) == pytest.approx(2.0 * math.sqrt(48) / 0.5)
    assert concentrated_initial_distance(2.0, 0.5, 16, 1, 0.25) == pytest.approx(
        math.hypot(2.0 * 4 / 0.5, 2.0 / 0.25))
    assert concentrated_initial_distance(1.0, 1.0, 100, 1, 0.5) >= initial_distance(1.0, 1.0, 100, 1, 0.5)
