"""Private inference (skdpgd.inference): sensitivities, the optimizer-noise covariance, the
budget and report, the covariance pieces. Estimator-level tests: test_inference_api.py."""

import itertools
import math

import numpy as np
import pytest

from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd.accounting import epsilon_delta_to_gdp
from skdpgd.inference import (
    INFERENCE_SHARES,
    CoefficientTable,
    coefficient_covariance,
    compose_report,
    curvature_and_residual_bounds,
    fit_budget,
    matrix_sensitivity,
    optimizer_noise,
    release_at,
    row_weights_and_residuals,
)
from skdpgd.losses import BinaryLogisticLoss, HuberLoss, MultinomialLogisticLoss
from skdpgd.optim import noisy_cyclic_gradient_descent, noisy_gradient_descent
from skdpgd.optim._preconditioned import (
    GramPreconditioner,
    preconditioned_noisy_gradient_descent,
)

LOSSES = [BinaryLogisticLoss(1.0), HuberLoss(0.7)]


def _upper(matrix):
    return matrix[np.triu_indices(matrix.shape[0])]


def _sums(loss, coef, rows, y):
    """The two sums by a direct loop (not the code under test's vectorised form)."""
    h, q = np.zeros((rows.shape[1],) * 2), np.zeros((rows.shape[1],) * 2)
    for x, target in zip(rows, y, strict=True):
        t = float(x @ coef)
        if isinstance(loss, BinaryLogisticLoss):
            s = 1.0 / (1.0 + math.exp(-t))
            w, psi = s * (1 - s), s - target
        else:
            r = t - target
            w, psi = float(abs(r) <= loss.residual_clip), max(-loss.residual_clip,
                                                              min(loss.residual_clip, r))
        h += w * np.outer(x, x)
        q += psi * psi * np.outer(x, x)
    return h, q


def _adversarial_records(dim, row_norm, targets):
    """Rows on axes and a diagonal at norm Rt, with targets that push w and psi to their ends."""
    rows = []
    for j in range(dim):
        rows.append(np.eye(dim)[j] * row_norm)
        rows.append(-np.eye(dim)[j] * row_norm)
    rows.append(np.ones(dim) * row_norm / math.sqrt(dim))
    return [(x, y) for x in rows for y in targets]


@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber"])
def test_matrix_sensitivity_bounds_neighbours(loss):
    """Replace one record of a small data set, maximise over adversarial records and thetas:
    the upper-triangle change of each sum stays below sqrt(2) A Rt^2 and comes close to it."""
    rng = np.random.default_rng(0)
    dim, row_norm = 3, 1.5
    bound_h, bound_psi = curvature_and_residual_bounds(loss)
    s_h, s_q = matrix_sensitivity(bound_h, row_norm), matrix_sensitivity(bound_psi**2, row_norm)
    base = rng.uniform(-1, 1, (6, dim))
    base = base / np.linalg.norm(base, axis=1, keepdims=True) * row_norm * 0.9
    y = rng.integers(0, 2, 6).astype(float)
    targets = (0.0, 1.0) if isinstance(loss, BinaryLogisticLoss) else (-20.0, 0.0, 20.0)
    worst_h = worst_q = 0.0
    for coef in (np.zeros(dim), np.array([8.0, -8.0, 8.0]), np.array([0.0, 30.0, 0.0])):
        for (x, t), (x2, t2) in itertools.product(_adversarial_records(dim, row_norm, targets),
                                                  repeat=2):
            rows, target = base.copy(), y.copy()
            rows[0], target[0] = x, t
            h1, q1 = _sums(loss, coef, rows, target)
            rows[0], target[0] = x2, t2
            h2, q2 = _sums(loss, coef, rows, target)
            worst_h = max(worst_h, np.linalg.norm(_upper(h1 - h2)))
            worst_q = max(worst_q, np.linalg.norm(_upper(q1 - q2)))
    assert worst_h <= s_h * (1 + 1e-12) and worst_q <= s_q * (1 + 1e-12)
    # attained up to the logistic residual's open end (|psi| < 1) and the orthogonal pair
    assert worst_h >= 0.99 * s_h
    assert worst_q >= (0.9 if isinstance(loss, BinaryLogisticLoss) else 0.99) * s_q


def test_unsupported_losses_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="plain logistic loss"):
        curvature_and_residual_bounds(BinaryLogisticLoss(0.5))
    with pytest.raises(ValueError, match="binary logistic and the Huber"):
        curvature_and_residual_bounds(MultinomialLogisticLoss(3))


def test_inference_reads_the_losses_declaration_not_their_type():
    class OwnSum(HuberLoss):  # its own gradient sum: it declares nothing, so it gets none
        def gradient_sum(self, coef, X, y, sample_weight=None):
            return super().gradient_sum(coef, X, y, sample_weight)

    with pytest.raises(ValueError, match="declare their inference bounds"):
        curvature_and_residual_bounds(OwnSum(0.7))

    class Declared(OwnSum):  # a new loss that declares its bounds and rows
        def inference_bounds(self):
            return 0.5, 2.0

        def inference_rows(self, t, y):
            return np.full_like(t, 0.5), np.clip(t - y, -2.0, 2.0)

    assert curvature_and_residual_bounds(Declared(0.7)) == (0.5, 2.0)
    t, y = np.array([-3.0, 0.5, 4.0]), np.array([0.0, 0.0, 1.0])
    w, psi = row_weights_and_residuals(Declared(0.7), t, y)
    assert w.tolist() == [0.5, 0.5, 0.5] and psi.tolist() == [-2.0, 0.5, 2.0]


@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber"])
def test_releases_without_noise_are_the_exact_averages(loss):
    """No noise: the gradient and the weighted Grams averaged over the clipped rows."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) * 0.7
    y = rng.integers(0, 2, 300).astype(float)
    design = ClippedDesign.from_data(X, 1.0, 0.5)
    coef = np.array([0.5, -1.0, 2.0, 0.3])
    with ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=64) as sums:
        g, h, q = release_at(sums, loss, coef, 300, (0.0, 0.0, 0.0), rng)
    h_ref, q_ref = _sums(loss, coef, design.toarray(), y)
    rows = design.toarray()
    _, psi = row_weights_and_residuals(loss, rows @ coef, y)
    np.testing.assert_allclose(g, rows.T @ psi / 300, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(h, h_ref / 300, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(q, q_ref / 300, rtol=1e-10, atol=1e-14)
    w, psi = row_weights_and_residuals(loss, design.toarray() @ coef, y)
    assert np.all((w >= 0) & (w <= curvature_and_residual_bounds(loss)[0]))
    assert np.all(np.abs(psi) <= curvature_and_residual_bounds(loss)[1])


# -- the optimizer's noise: Monte Carlo of the actual loops on a quadratic -----------------

def _quadratic(dim, rng):
    """A Hessian with eigenvalues spread over [0.05, 1.5] and a random linear term."""
    basis, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    hessian = (basis * np.linspace(0.05, 1.5, dim)) @ basis.T
    return 0.5 * (hessian + hessian.T), rng.normal(size=dim)


def _check_moments(chains, cov, mean, *, n_chains):
    """Sample covariance and mean of the chains against the formula, with tolerances from
    the sampling error of n_chains Gaussian draws (6 standard errors)."""
    sample_cov = np.cov(chains.T)
    se = np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / n_chains)
    assert np.all(np.abs(sample_cov - cov) <= 6 * se + 1e-15)
    se_mean = np.sqrt(np.diag(cov) / n_chains)
    assert np.all(np.abs(chains.mean(axis=0) - mean) <= 6 * se_mean + 1e-12)


def test_gd_noise_covariance_matches_monte_carlo():
    rng = np.random.default_rng(2)
    dim, lam, eta, sigma, k, n_chains = 3, 0.01, 0.8, 0.3, 25, 20000
    hessian, b = _quadratic(dim, rng)
    optimum = np.linalg.solve(hessian + lam * np.eye(dim), b)
    chains = noisy_gradient_descent(
        lambda c: c @ hessian - b + lam * c, np.zeros((n_chains, dim)), learning_rate=eta,
        noise_std=sigma, n_steps=k, rng=rng,
    )
    cov, unfinished = optimizer_noise(hessian, strong_convexity=lam, learning_rate=eta,
                                      noise_std=sigma, n_steps=k)
    _check_moments(chains, cov, (np.eye(dim) - unfinished) @ optimum, n_chains=n_chains)
    # the anchor's one-step term eta^2 sigma^2 I is far from it here
    assert np.max(np.abs(cov - (eta * sigma) ** 2 * np.eye(dim))) > 10 * np.max(
        np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / n_chains))


def test_cyclic_noise_covariance_matches_monte_carlo():
    """Batches with the same Hessian and different linear terms: the covariance is exact
    (the batch offsets move the mean only)."""
    rng = np.random.default_rng(3)
    dim, eta, sigma, epochs, n_batches, n_chains = 3, 0.5, 0.2, 6, 4, 20000
    hessian, b = _quadratic(dim, rng)
    offsets = rng.normal(size=(n_batches, dim))
    chains = noisy_cyclic_gradient_descent(
        lambda c, j: c @ hessian - b - offsets[j], np.zeros((n_chains, dim)),
        n_batches=n_batches, learning_rate=eta, noise_std=sigma, n_epochs=epochs, rng=rng,
    )
    cov, _ = optimizer_noise(hessian, strong_convexity=0.0, learning_rate=eta,
                             noise_std=sigma, n_steps=epochs * n_batches)
    _check_moments(chains, cov, chains.mean(axis=0), n_chains=n_chains)


def test_preconditioned_momentum_noise_covariance_matches_monte_carlo():
    rng = np.random.default_rng(4)
    dim, lam, sigma, k, beta, n_chains = 3, 0.02, 0.3, 12, 0.5, 20000
    hessian, b = _quadratic(dim, rng)
    gram = hessian + 0.1 * rng.normal(size=(dim, dim))
    gram = 0.5 * (gram + gram.T)
    pre = GramPreconditioner(gram, curvature=1.0, margin=0.2, strong_convexity=lam)
    chains = preconditioned_noisy_gradient_descent(
        lambda c: c @ hessian - b + lam * c, np.zeros((n_chains, dim)), preconditioner=pre,
        learning_rate=1.0, noise_std=sigma, n_steps=k, rng=rng, momentum=beta,
    )
    cov, unfinished = optimizer_noise(hessian, strong_convexity=lam, learning_rate=1.0,
                                      noise_std=sigma, n_steps=k, momentum=beta,
                                      preconditioner=pre.matrix())
    optimum = np.linalg.solve(hessian + lam * np.eye(dim), b)
    _check_moments(chains, cov, (np.eye(dim) - unfinished) @ optimum, n_chains=n_chains)


def test_newton_step_recovers_the_unpenalised_optimum_of_a_quadratic():
    """Exact releases: from a run stopped early with a large lam, one Newton step on the
    unpenalised loss lands on its minimiser, and the covariance is the sandwich plus the
    gradient noise through the step (rho = 0: no Hessian noise, no leftover)."""
    rng = np.random.default_rng(5)
    dim, lam, eta, k = 4, 0.3, 0.5, 15
    hessian, b = _quadratic(dim, rng)
    coef = noisy_gradient_descent(lambda c: hessian @ c - b + lam * c, np.zeros(dim),
                                  learning_rate=eta, noise_std=0.0, n_steps=k, rng=rng)
    score = np.diag([1.0, 2.0, 3.0, 4.0])
    estimate, cov, diag = coefficient_covariance(
        coef, hessian @ coef - b, hessian, score, n_samples=100, gradient_noise_std=0.1,
        hessian_noise_std=0.0, score_noise_std=0.0, strong_convexity=lam, learning_rate=eta,
        noise_std=0.3, n_steps=k,
    )
    np.testing.assert_allclose(estimate, np.linalg.solve(hessian, b), rtol=1e-8)
    inv = np.linalg.inv(hessian)
    np.testing.assert_allclose(cov, inv @ score @ inv / 100 + 0.01 * inv @ inv, rtol=1e-8)
    assert diag["unfinished"] > 0.01 and diag["hessian_floored"] == 0
    assert diag["hessian_noise_ratio"] == 0.0


@pytest.mark.parametrize("tau, low, high", [(0.003, 0.6, 1.1), (0.01, 0.0, 1.0),
                                             (0.02, 0.0, 1.0)],
                         ids=["first order", "bound", "floored"])
def test_leftover_term_matches_a_noisy_newton_step(tau, low, high):
    """Monte Carlo over the run's noise and the Hessian's noise on a quadratic (no gradient
    noise, no sampling term): the mean squared standardised error of the Newton-step
    estimate around the exact minimiser is about 1 where the first order holds (noise edge
    0.2 of the smallest curvature; 400 draws of a chi-square(1): standard error 0.07) and
    at most 1 where the edge is 0.7 and 1.4 of it (rho > 1/2: the bound), over the
    coefficients the release identifies (the others have no variance, NaN)."""
    rng = np.random.default_rng(6)
    dim, eta, sigma, k, reps = 3, 0.8, 0.05, 20, 400
    hessian, b = _quadratic(dim, rng)
    target = np.linalg.solve(hessian, b)
    z2 = []
    for _ in range(reps):
        coef = noisy_gradient_descent(lambda c: hessian @ c - b, np.zeros(dim),
                                      learning_rate=eta, noise_std=sigma, n_steps=k, rng=rng)
        noisy = hessian + tau * _symmetric(dim, rng)
        estimate, cov, _ = coefficient_covariance(
            coef, hessian @ coef - b, noisy, np.zeros((dim, dim)), n_samples=1,
            gradient_noise_std=0.0, hessian_noise_std=tau, score_noise_std=0.0,
            strong_convexity=0.0, learning_rate=eta, noise_std=sigma, n_steps=k,
        )
        z2.append((estimate - target) ** 2 / np.diag(cov))
    assert np.all(np.isfinite(z2) | np.isnan(z2))
    mean = np.nanmean(z2, axis=0)  # NaN: the release does not identify that coefficient
    assert np.all((mean >= low) & (mean <= high))


def _symmetric(dim, rng):
    upper = np.triu(rng.normal(size=(dim, dim)))
    return upper + np.triu(upper, 1).T


def test_repair_floors_a_noisy_hessian_at_the_public_level():
    hessian = np.diag([1.0, -0.01])  # a release whose noise made an eigenvalue negative
    _, cov, diag = coefficient_covariance(
        np.zeros(2), np.zeros(2), hessian, np.eye(2), n_samples=10, gradient_noise_std=0.0,
        hessian_noise_std=0.05, score_noise_std=0.0, strong_convexity=0.0, learning_rate=0.1,
        noise_std=0.0, n_steps=1,
    )
    assert diag["hessian_floored"] == 1 and diag["hessian_noise_ratio"] == 1.0
    # the negative direction is below the noise edge: not identified, no variance
    assert list(diag["not_identified"]) == [False, True]
    assert np.isnan(cov[1]).all() and np.isnan(cov[:, 1]).all()
    # sandwich 1/10, plus the bound 2 tau^2 (W + tr W) (M_+ = 1 and no repair there):
    # the one step of rate 0.1 from 0 carries the sampling variance 1/10 of theta_lambda
    # by (eta h)/h = 0.1, so W_00 = tr W = 0.1^2 / 10 (no run noise, nothing in the
    # direction without curvature)
    np.testing.assert_allclose(cov[0, 0], 1 / 10 + 2 * 0.05**2 * (2 * 0.1**2 / 10),
                               rtol=1e-10)


# -- budget and report ---------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_report_composes_run_and_releases_in_one_mu(epsilon):
    from skdpgd import DPRidge

    delta, n = 1e-5, 5000
    budget = fit_budget(epsilon, delta)
    mu = epsilon_delta_to_gdp(epsilon, delta)
    for part, share in zip((budget.gradient_mu, budget.hessian_mu, budget.score_mu),
                           INFERENCE_SHARES[1:], strict=True):
        assert part**2 == pytest.approx(share * mu**2)
    run = DPRidge(epsilon=budget.fit_epsilon, delta=delta, y_bound=1.0).plan_privacy(n, 4)
    assert run.mu <= budget.fit_mu * (1 + 1e-9)
    report = compose_report(HuberLoss(0.25), run, budget, row_norm=1.2, delta=delta)
    assert report.mu == pytest.approx(math.sqrt(
        run.mu**2 + budget.gradient_mu**2 + budget.hessian_mu**2 + budget.score_mu**2),
        rel=1e-12)
    assert report.mu <= mu and report.epsilon <= epsilon
    assert report.event.mu == report.mu
    # each release's noise is its Gaussian mechanism at its mu
    assert report.gradient_noise_std == pytest.approx(2 * 0.25 * 1.2 / (n * budget.gradient_mu))
    assert report.hessian_noise_std == pytest.approx(
        math.sqrt(2) * 1.2**2 / (n * budget.hessian_mu))
    assert report.score_noise_std == pytest.approx(
        math.sqrt(2) * 0.25**2 * 1.2**2 / (n * budget.score_mu))
    assert "mu_H=" in repr(report) and "score covariance" in repr(report)


def test_table_wald_quantities():
    table = CoefficientTable(["a", "intercept"], [1.0, -2.0], np.diag([0.25, 4.0]))
    np.testing.assert_allclose(table.std_err, [0.5, 2.0])
    np.testing.assert_allclose(table.conf_int(0.05)[0], [1 - 1.959964 * 0.5, 1 + 1.959964 * 0.5],
                               rtol=1e-6)
    np.testing.assert_allclose(table.pvalues, [0.0455003, 0.3173105], rtol=1e-5)
    frame = table.frame()
    assert list(frame.columns) == ["coef", "std_err", "ci_low", "ci_high", "p_value", "note"]
    assert list(frame.index) == ["a", "intercept"]
    assert "intercept" in table.text()


def test_public_ratio_bounds_every_design_and_refuses_hopeless_shapes():
    """rho_pub uses the largest smallest curvature c_H Rt^2 / p a design can have: random
    designs stay below it, the isotropic design at full norm attains it; a shape with
    rho_pub > 1 is refused with the n it needs (no row count of the data in the message)."""
    from skdpgd.inference import check_identifiable, public_noise_ratio

    rng = np.random.default_rng(7)
    dim, row_norm, c_h = 5, 1.3, 0.25
    for _ in range(20):
        rows = rng.normal(size=(50, dim)) * rng.uniform(0.1, 2.0, dim)
        rows *= row_norm / np.linalg.norm(rows, axis=1, keepdims=True)
        assert np.linalg.eigvalsh(c_h * rows.T @ rows / 50)[0] <= c_h * row_norm**2 / dim
    axes = np.vstack([row_norm * np.eye(dim), -row_norm * np.eye(dim)])
    np.testing.assert_allclose(np.linalg.eigvalsh(c_h * axes.T @ axes / len(axes)),
                               c_h * row_norm**2 / dim)
    budget = fit_budget(1.0, 1e-5)  # the base shares: hessian_mu = mu sqrt(0.1)
    tau = math.sqrt(2) * c_h * row_norm**2 / (1000 * budget.hessian_mu)
    assert public_noise_ratio(1000, dim, budget.hessian_mu) == pytest.approx(
        2 * tau * math.sqrt(dim) / (c_h * row_norm**2 / dim))
    assert check_identifiable(100000, 11, budget) < 0.05
    with pytest.raises(ValueError, match=r"needs n >= \d+ rows") as info:
        check_identifiable(1000, 31, budget)
    # the rule reads the base share, whatever share the Hessian then gets
    adaptive = fit_budget(1.0, 1e-5, 1000, 11)
    assert adaptive.hessian_mu > budget.hessian_mu
    with pytest.raises(ValueError, match="needs n >= "):
        check_identifiable(1000, 11, adaptive)
    assert "1000" not in str(info.value)


def test_hessian_share_grows_only_where_the_shape_needs_it():
    """Public rule: 0.1 of mu^2 for the Hessian where rho_pub(0.1) <= 0.04, up to 0.3 where
    it is larger, taken from the gradient's share; the shares always sum to 1."""
    from skdpgd.inference import inference_shares, public_noise_ratio

    shares = [inference_shares(1.0, 1e-6, n, 11) for n in (1000, 10000, 30000, 10**5, 10**6)]
    hessian = [s[2] for s in shares]
    assert hessian[0] == hessian[1] == 0.3 and hessian[-2] == hessian[-1] == 0.1
    assert all(a >= b for a, b in itertools.pairwise(hessian))
    for s in shares:
        assert sum(s) == pytest.approx(1.0) and s[0] == 0.3 and s[3] == 0.1
    middle = fit_budget(1.0, 1e-6, 30000, 11)
    if 0.1 < middle.shares[2] < 0.3:  # on target in between
        assert public_noise_ratio(30000, 11, middle.hessian_mu) == pytest.approx(0.04)
    assert inference_shares(math.inf, 1e-6, 100, 11) == INFERENCE_SHARES
