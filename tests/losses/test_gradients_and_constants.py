"""Losses: gradients against finite differences, and the public constants of
docs/theory.md#loss-constants checked numerically (never exceeded, and nearly attained)."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit, softmax

from skdpgd.losses import BinaryLogisticLoss, HuberLoss, MultinomialLogisticLoss, SquaredLoss


def _coef_shape(loss, n_features):
    """theta's shape for a loss: (d,) for one output, (K, d) for K."""
    return (n_features,) if loss.n_outputs == 1 else (loss.n_outputs, n_features)

RT = 1.7  # augmented row-norm bound Rt used throughout
B = 2.5  # target bound
RADIUS = 3.0  # projection radius of the squared loss
CLIP = 0.8  # Huber threshold
LOGIT_CLIP = 0.4  # residual clip of the Huberised logistic loss (a < 1 clip: a > 0)
K = 4  # classes of the multinomial loss
D = 5  # features
REL = 1e-12  # rounding slack on "never exceeds"


def make_loss(name):
    return {
        "binary": BinaryLogisticLoss,
        "clipped_binary": lambda: BinaryLogisticLoss(LOGIT_CLIP),
        "multinomial": lambda: MultinomialLogisticLoss(K),
        "huber": lambda: HuberLoss(CLIP),
        "squared": SquaredLoss,
    }[name]()


LOSSES = ["binary", "clipped_binary", "multinomial", "huber", "squared"]
BOUNDS = dict(y_bound=B, radius=RADIUS)


def sphere(rng, n, d, radius=RT):
    """n points on the sphere of radius ``radius``."""
    x = rng.standard_normal((n, d))
    return radius * x / np.linalg.norm(x, axis=1, keepdims=True)


def in_ball(rng, n, d, radius=RT):
    """n points in the ball: half on the sphere (adversarial), half inside."""
    x = sphere(rng, n, d, radius)
    x[n // 2 :] *= rng.uniform(0, 1, size=(n - n // 2, 1))
    return x


def random_targets(name, rng, n):
    if name in ("binary", "clipped_binary"):
        return rng.integers(0, 2, n).astype(float)
    if name == "multinomial":
        return rng.integers(0, K, n)
    if name == "huber":  # no target bound needed: include huge targets
        return rng.choice([-1e6, -B, 0.0, B, 1e6], n) * rng.uniform(0.5, 1, n)
    return rng.choice([-B, B], n) * rng.uniform(0.5, 1, n) ** rng.integers(0, 2, n)


def random_coef(name, rng, scale):
    loss = make_loss(name)
    coef = rng.standard_normal(_coef_shape(loss, D)) * scale
    if name == "squared":  # the squared loss lives on the ball of radius r
        norm = np.linalg.norm(coef)
        coef *= min(1.0, RADIUS / norm) * rng.uniform(0.5, 1.0) ** rng.integers(0, 2)
    return coef


def per_example_grads(loss, coef, X, y):
    return np.array([loss.gradient_sum(coef, X[i : i + 1], y[i : i + 1]) for i in range(X.shape[0])])


# --------------------------------------------------------------------------- values


def test_values_match_closed_forms():
    rng = np.random.default_rng(0)
    X = in_ball(rng, 30, D)
    coef = rng.standard_normal(D)
    t = X @ coef
    y01 = rng.integers(0, 2, 30).astype(float)
    expected = np.sum(np.log1p(np.exp(t)) - y01 * t)
    assert BinaryLogisticLoss().value_sum(coef, X, y01) == pytest.approx(expected, rel=1e-13)

    yk = rng.integers(0, K, 30)
    W = rng.standard_normal((K, D))
    s = X @ W.T
    expected = np.sum(np.log(np.sum(np.exp(s), axis=1)) - s[np.arange(30), yk])
    assert MultinomialLogisticLoss(K).value_sum(W, X, yk) == pytest.approx(expected, rel=1e-13)

    yr = rng.normal(0, 2, 30)
    r = t - yr
    huber = np.where(np.abs(r) <= CLIP, 0.5 * r**2, CLIP * np.abs(r) - 0.5 * CLIP**2)
    assert HuberLoss(CLIP).value_sum(coef, X, yr) == pytest.approx(huber.sum(), rel=1e-13)
    assert SquaredLoss().value_sum(coef, X, yr) == pytest.approx(0.5 * np.sum(r**2), rel=1e-13)


def test_logistic_values_are_stable_for_huge_scores():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    coef = np.array([1e4, 0.0])  # scores +-1e4: exp overflows, log-sum-exp must not
    binary = BinaryLogisticLoss()
    assert binary.value_sum(coef, X, np.array([1.0, 0.0])) == pytest.approx(0.0, abs=1e-300)
    assert binary.value_sum(coef, X, np.array([0.0, 1.0])) == pytest.approx(2e4)
    assert np.all(np.isfinite(binary.gradient_sum(coef, X, np.array([0.0, 1.0]))))
    multi = MultinomialLogisticLoss(3)
    W = np.array([[1e4, 0.0], [0.0, 0.0], [-1e4, 0.0]])
    assert multi.value_sum(W, X, np.array([2, 0])) == pytest.approx(4e4)
    assert np.all(np.isfinite(multi.gradient_sum(W, X, np.array([2, 0]))))


def test_huber_value_does_not_overflow():
    loss = HuberLoss(1.0)
    value = loss.value_sum(np.array([1.0]), np.array([[1e200]]), np.array([0.0]))
    assert value == pytest.approx(1e200 - 0.5)


# ------------------------------------------------------------------------ gradients


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", LOSSES)
def test_gradient_matches_finite_differences(name, sparse):
    rng = np.random.default_rng(1)
    loss = make_loss(name)
    X = in_ball(rng, 40, D)
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    y = random_targets(name, rng, 40)
    if name == "huber":
        y = rng.normal(0, 1.0, 40)  # a mix of residuals inside and outside [-c, c]
    Xop = sp.csr_matrix(X) if sparse else X
    coef = random_coef(name, rng, 1.0)
    grad = loss.gradient_sum(coef, Xop, y)
    assert grad.shape == coef.shape and grad.dtype == np.float64
    h = 1e-6
    numeric = np.zeros_like(coef)
    for idx in np.ndindex(coef.shape):
        e = np.zeros_like(coef)
        e[idx] = h
        numeric[idx] = (loss.value_sum(coef + e, Xop, y) - loss.value_sum(coef - e, Xop, y)) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", LOSSES)
def test_csr_equals_dense(name):
    rng = np.random.default_rng(2)
    loss = make_loss(name)
    X = in_ball(rng, 50, D)
    X[rng.uniform(size=X.shape) < 0.5] = 0.0
    y = random_targets(name, rng, 50)
    coef = random_coef(name, rng, 2.0)
    Xs = sp.csr_matrix(X)
    np.testing.assert_allclose(
        loss.gradient_sum(coef, Xs, y), loss.gradient_sum(coef, X, y), rtol=1e-13, atol=1e-13
    )
    assert loss.value_sum(coef, Xs, y) == pytest.approx(loss.value_sum(coef, X, y), rel=1e-13)


def test_gradient_closed_forms():
    rng = np.random.default_rng(3)
    X = in_ball(rng, 20, D)
    coef = rng.standard_normal(D)
    y = rng.integers(0, 2, 20).astype(float)
    np.testing.assert_allclose(BinaryLogisticLoss().gradient_sum(coef, X, y), X.T @ (expit(X @ coef) - y))
    W = rng.standard_normal((K, D))
    yk = rng.integers(0, K, 20)
    P = softmax(X @ W.T, axis=1)
    P[np.arange(20), yk] -= 1
    np.testing.assert_allclose(MultinomialLogisticLoss(K).gradient_sum(W, X, yk), P.T @ X)
    yr = rng.normal(size=20)
    np.testing.assert_allclose(
        HuberLoss(CLIP).gradient_sum(coef, X, yr), X.T @ np.clip(X @ coef - yr, -CLIP, CLIP)
    )
    np.testing.assert_allclose(SquaredLoss().gradient_sum(coef, X, yr), X.T @ (X @ coef - yr))


# ------------------------------------------------------------------ shapes and API


def test_shapes_and_outputs():
    assert BinaryLogisticLoss().n_outputs == 1 and SquaredLoss().n_outputs == 1
    assert MultinomialLogisticLoss(5).n_outputs == 5


def test_missing_or_bad_bounds_raise():
    loss = SquaredLoss()
    with pytest.raises(ValueError, match="radius"):
        loss.gradient_bound(1.0, y_bound=1.0)
    with pytest.raises(ValueError, match="radius"):
        loss.sensitivity(1.0, y_bound=1.0, radius=0.0)
    with pytest.raises(ValueError, match="radius"):
        loss.sensitivity(1.0, y_bound=1.0, radius=-2.0)
    with pytest.raises(ValueError, match="y_bound"):
        loss.sensitivity(1.0, radius=1.0)
    with pytest.raises(ValueError, match="residual_clip"):
        HuberLoss(0.0)
    with pytest.raises(ValueError, match="residual_clip"):
        HuberLoss(float("nan"))
    with pytest.raises(ValueError, match="n_classes"):
        MultinomialLogisticLoss(1)
    for bad in (0.0, -1.0, float("inf"), None):
        with pytest.raises(ValueError, match="row_norm"):
            BinaryLogisticLoss().sensitivity(bad)
    with pytest.raises(ValueError, match="labels"):
        MultinomialLogisticLoss(3).gradient_sum(np.zeros((3, 2)), np.ones((2, 2)), np.array([0, 3]))


def test_constants_match_the_design_table():
    Rt = RT
    assert BinaryLogisticLoss().gradient_bound(Rt) == Rt
    assert BinaryLogisticLoss().smoothness(Rt) == Rt**2 / 4
    assert BinaryLogisticLoss().sensitivity(Rt) == 2 * Rt
    m = MultinomialLogisticLoss(K)
    assert m.gradient_bound(Rt) == pytest.approx(math.sqrt(2) * Rt, rel=1e-15)
    assert m.smoothness(Rt) == Rt**2 / 2
    assert m.sensitivity(Rt) == pytest.approx(2 * math.sqrt(2) * Rt, rel=1e-15)
    h = HuberLoss(CLIP)
    assert h.gradient_bound(Rt) == CLIP * Rt
    assert h.smoothness(Rt) == Rt**2
    assert h.sensitivity(Rt) == 2 * CLIP * Rt
    s = SquaredLoss()
    L = Rt * (RADIUS * Rt + B)
    assert s.gradient_bound(Rt, **BOUNDS) == pytest.approx(L, rel=1e-15)
    assert s.smoothness(Rt) == Rt**2
    assert s.sensitivity(Rt, **BOUNDS) == pytest.approx(2 * L, rel=1e-15)


# --------------------------------------------------- constants are never exceeded


@pytest.mark.parametrize("name", LOSSES)
def test_gradient_bound_and_sensitivity_never_exceeded(name):
    rng = np.random.default_rng(4)
    loss = make_loss(name)
    L = loss.gradient_bound(RT, **BOUNDS)
    S = loss.sensitivity(RT, **BOUNDS)
    n = 60
    worst_norm = worst_diff = 0.0
    for scale in (0.1, 1.0, 10.0, 1e3):  # includes |theta.x| far in the tails
        for _ in range(3):
            coef = random_coef(name, rng, scale)
            X = in_ball(rng, n, D)
            y = random_targets(name, rng, n)
            G = per_example_grads(loss, coef, X, y).reshape(n, -1)
            norms = np.linalg.norm(G, axis=1)
            worst_norm = max(worst_norm, norms.max())
            diffs = np.linalg.norm(G[:, None, :] - G[None, :, :], axis=2)
            worst_diff = max(worst_diff, diffs.max())
    assert worst_norm <= L * (1 + REL)
    assert worst_diff <= S * (1 + REL)
    assert S <= 2 * L * (1 + REL)


def _numeric_hessian(loss, coef, x, y, h=1e-5):
    """Central-difference Hessian of one example's loss (from its gradient)."""
    flat = coef.ravel()
    H = np.zeros((flat.size, flat.size))
    for j in range(flat.size):
        e = np.zeros_like(flat)
        e[j] = h
        gp = loss.gradient_sum((flat + e).reshape(coef.shape), x, y).ravel()
        gm = loss.gradient_sum((flat - e).reshape(coef.shape), x, y).ravel()
        H[:, j] = (gp - gm) / (2 * h)
    return 0.5 * (H + H.T)


@pytest.mark.parametrize("name", ["binary", "clipped_binary", "multinomial", "squared"])
def test_hessian_eigenvalues_never_exceed_smoothness(name):
    rng = np.random.default_rng(5)
    loss = make_loss(name)
    beta = loss.smoothness(RT)
    worst = 0.0
    for scale in (0.01, 0.3, 1.0, 5.0):
        for _ in range(8):
            coef = random_coef(name, rng, scale)
            x = in_ball(rng, 2, D)[:1]
            y = random_targets(name, rng, 1)
            H = _numeric_hessian(loss, coef, x, y)
            worst = max(worst, np.linalg.eigvalsh(H)[-1])
    assert worst <= beta * (1 + 1e-6)


def test_analytic_hessian_bounds_of_logistic_losses():
    """sigma(1 - sigma) <= 1/4 and lambda_max(diag p - p p^T) <= 1/2 on many random p."""
    rng = np.random.default_rng(6)
    t = rng.standard_normal(10_000) * rng.choice([0.1, 1, 10, 100], 10_000)
    assert np.max(expit(t) * (1 - expit(t))) <= 0.25
    worst = 0.0
    for _ in range(2000):
        k = rng.integers(2, 8)
        p = softmax(rng.standard_normal(k) * rng.choice([0.1, 1.0, 5.0]))
        worst = max(worst, np.linalg.eigvalsh(np.diag(p) - np.outer(p, p))[-1])
    assert worst <= 0.5 + 1e-15
    # and the per-example Hessian of the loss is (diag p - p p^T) kron x x^T
    loss = MultinomialLogisticLoss(3)
    W = rng.standard_normal((3, 2))
    x = sphere(rng, 1, 2)
    p = softmax(W @ x[0])
    expected = np.kron(np.diag(p) - np.outer(p, p), np.outer(x[0], x[0]))
    np.testing.assert_allclose(_numeric_hessian(loss, W, x, np.array([1])), expected, atol=1e-7)


@pytest.mark.parametrize("name", LOSSES)
def test_gradient_is_smoothness_lipschitz(name):
    """||grad l(th) - grad l(th')|| <= beta_l ||th - th'|| (covers Huber's kinks too)."""
    rng = np.random.default_rng(7)
    loss = make_loss(name)
    beta = loss.smoothness(RT)
    worst = 0.0
    for scale in (0.05, 0.5, 3.0):
        for _ in range(40):
            x = in_ball(rng, 2, D)[:1]
            y = random_targets(name, rng, 1)
            if name == "huber":
                y = rng.normal(0, 1, 1)
            a, b = random_coef(name, rng, scale), random_coef(name, rng, scale)
            ga, gb = loss.gradient_sum(a, x, y), loss.gradient_sum(b, x, y)
            worst = max(worst, np.linalg.norm(ga - gb) / np.linalg.norm(a - b))
    assert worst <= beta * (1 + REL)


# ------------------------------------------------- ... and (nearly) attained


def test_binary_logistic_bounds_are_attained():
    loss = BinaryLogisticLoss()
    x = np.array([[RT, 0.0]])
    # L: t -> -infinity with y = 1
    g = loss.gradient_sum(np.array([-1e3, 0.0]), x, np.array([1.0]))
    assert np.linalg.norm(g) >= 0.999 * loss.gradient_bound(RT)
    # beta: Hessian x x^T / 4 at t = 0
    H = _numeric_hessian(loss, np.zeros(2), x, np.array([0.0]))
    assert np.linalg.eigvalsh(H)[-1] == pytest.approx(loss.smoothness(RT), rel=1e-6)
    # S: two nearly equal rows, opposite labels, theta.x -> +inf and theta.x' -> -inf
    eps = 1e-3
    x1 = RT * np.array([[math.cos(eps), math.sin(eps)]])
    x2 = RT * np.array([[math.cos(eps), -math.sin(eps)]])
    coef = np.array([0.0, 1e7])
    diff = loss.gradient_sum(coef, x1, np.array([0.0])) - loss.gradient_sum(coef, x2, np.array([1.0]))
    assert np.linalg.norm(diff) >= 0.999 * loss.sensitivity(RT)


def test_multinomial_bounds_are_attained():
    loss = MultinomialLogisticLoss(3)
    x = np.array([[RT, 0.0]])
    # L: p concentrates on class 1, label 0
    W = np.array([[0.0, 0.0], [1e3, 0.0], [0.0, 0.0]])
    g = loss.gradient_sum(W, x, np.array([0]))
    assert np.linalg.norm(g) >= 0.999 * loss.gradient_bound(RT)
    # beta: p = (1/2, 1/2, 0)
    W = np.array([[0.0, 0.0], [0.0, 0.0], [-1e3, 0.0]])
    H = _numeric_hessian(loss, W, x, np.array([0]))
    assert np.linalg.eigvalsh(H)[-1] == pytest.approx(loss.smoothness(RT), rel=1e-6)
    # S: nearly equal rows; p -> e_0 on the first, e_1 on the second; labels 1 and 0
    eps = 1e-3
    x1 = RT * np.array([[math.cos(eps), math.sin(eps)]])
    x2 = RT * np.array([[math.cos(eps), -math.sin(eps)]])
    s = 1e7
    W = np.array([[0.0, s], [0.0, -s], [-s, 0.0]])
    diff = loss.gradient_sum(W, x1, np.array([1])) - loss.gradient_sum(W, x2, np.array([0]))
    assert np.linalg.norm(diff) >= 0.999 * loss.sensitivity(RT)


def test_huber_bounds_are_attained():
    loss = HuberLoss(CLIP)
    x = np.array([[0.0, RT]])
    coef = np.array([0.0, 1.0])
    g_hi = loss.gradient_sum(coef, x, np.array([-100.0]))
    g_lo = loss.gradient_sum(coef, x, np.array([100.0]))
    assert np.linalg.norm(g_hi) == pytest.approx(loss.gradient_bound(RT), rel=1e-15)
    assert np.linalg.norm(g_hi - g_lo) == pytest.approx(loss.sensitivity(RT), rel=1e-15)
    ga = loss.gradient_sum(coef, x, np.array([RT]))  # residual 0
    gb = loss.gradient_sum(coef + np.array([0.0, 1e-3]), x, np.array([RT]))
    assert np.linalg.norm(ga - gb) / 1e-3 == pytest.approx(loss.smoothness(RT), rel=1e-12)


@pytest.mark.parametrize("y_bound", [0.1, B, 100.0])
def test_squared_bounds_are_attained(y_bound):
    loss = SquaredLoss()
    bounds = dict(radius=RADIUS, y_bound=y_bound)
    L, S = loss.gradient_bound(RT, **bounds), loss.sensitivity(RT, **bounds)
    # L exactly: theta = r x / Rt, y = -B
    x = np.array([[RT, 0.0]])
    g = loss.gradient_sum(np.array([RADIUS, 0.0]), x, np.array([-y_bound]))
    assert np.linalg.norm(g) == pytest.approx(L, rel=1e-14)
    H = _numeric_hessian(loss, np.zeros(2), x, np.array([0.0]))
    assert np.linalg.eigvalsh(H)[-1] == pytest.approx(loss.smoothness(RT), rel=1e-6)
    # S: rows at angles +-psi from theta, both at the largest residual; best psi by grid.
    a, b = RADIUS * RT, y_bound
    psi = np.linspace(1e-4, np.pi / 2, 20001)
    psi = psi[np.argmax((a * np.cos(psi) + b) * np.sin(psi))]
    coef = np.array([RADIUS, 0.0])
    x1 = RT * np.array([[math.cos(psi), math.sin(psi)]])
    x2 = RT * np.array([[math.cos(psi), -math.sin(psi)]])
    y = np.array([-y_bound])
    diff = loss.gradient_sum(coef, x1, y) - loss.gradient_sum(coef, x2, y)
    ratio = np.linalg.norm(diff) / S
    assert ratio <= 1 + REL
    # the triangle bound is within a factor 2, and tight as B / (r Rt) grows (psi = pi/2)
    assert ratio >= max(0.5, b / (a + b)) * (1 - 1e-9)


# ------------------------------------------- Huberised (residual-clipped) logistic


@pytest.mark.parametrize("c", [0.1, 0.4, 0.5, 0.9])
def test_clipped_logistic_value_is_the_documented_piecewise_form(c):
    """phi_c(u) = log(1 + e^-u) above a = log((1-c)/c), its tangent line below."""
    loss = BinaryLogisticLoss(c)
    a = math.log((1 - c) / c)
    for u in [-50.0, a - 3, a - 1e-3, a, a + 1e-3, a + 2, 30.0]:
        for y in (0.0, 1.0):
            t = u if y == 1.0 else -u  # u = (2y - 1) t
            expected = (math.log1p(math.exp(-u)) if u >= a
                        else math.log1p(math.exp(-a)) - c * (u - a))
            value = loss.value_sum(np.array([t]), np.array([[1.0]]), np.array([y]))
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_clipped_logistic_is_convex_and_equals_plain_where_unclipped():
    rng = np.random.default_rng(11)
    loss, plain = BinaryLogisticLoss(LOGIT_CLIP), BinaryLogisticLoss()
    t = np.linspace(-40, 40, 4001)
    for y in (0.0, 1.0):
        values = np.array([loss.value_sum(np.array([s]), np.array([[1.0]]), np.array([y]))
                           for s in t])
        second = values[:-2] - 2 * values[1:-1] + values[2:]
        assert second.min() >= -1e-12  # midpoint convexity on a fine grid (rounding slack)
    # Where the residual is inside [-c, c] the gradient is the logistic one.
    X, y = in_ball(rng, 200, D), rng.integers(0, 2, 200).astype(float)
    coef = rng.standard_normal(D) * 0.3
    inside = np.abs(expit(X @ coef) - y) < LOGIT_CLIP
    assert 0 < inside.sum() < 200
    np.testing.assert_allclose(loss.gradient_sum(coef, X[inside], y[inside]),
                               plain.gradient_sum(coef, X[inside], y[inside]), rtol=1e-13)


def test_clipped_logistic_bounds_are_attained():
    loss = BinaryLogisticLoss(LOGIT_CLIP)
    assert loss.gradient_bound(RT) == pytest.approx(LOGIT_CLIP * RT, rel=1e-15)
    assert loss.sensitivity(RT) == pytest.approx(2 * LOGIT_CLIP * RT, rel=1e-15)
    assert loss.smoothness(RT) == pytest.approx(RT**2 / 4, rel=1e-15)
    x = np.array([[RT, 0.0]])
    g = loss.gradient_sum(np.array([-3.0, 0.0]), x, np.array([1.0]))  # residual clipped
    assert np.linalg.norm(g) == pytest.approx(loss.gradient_bound(RT), rel=1e-15)
    # S: rows x1 ~ x2 on either side of the boundary, y = 0 and y' = 1: residuals +c and
    # -c are reached at finite scores, so the difference c (x1 + x2) has norm 2 c Rt cos e.
    e = 1e-6
    x1 = RT * np.array([[math.cos(e), math.sin(e)]])
    x2 = RT * np.array([[math.cos(e), -math.sin(e)]])
    coef = np.array([0.0, 1.0])
    diff = loss.gradient_sum(coef, x1, np.array([0.0])) - loss.gradient_sum(coef, x2, np.array([1.0]))
    assert np.linalg.norm(diff) == pytest.approx(loss.sensitivity(RT), rel=1e-10)


@pytest.mark.parametrize("c", [0.0, -0.5, 1.5, np.nan])
def test_clipped_logistic_refuses_clips_outside_zero_one(c):
    with pytest.raises(ValueError, match="residual_clip"):
        BinaryLogisticLoss(c)
