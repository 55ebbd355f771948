"""The Newton step's second-order term (skdpgd.inference): the released drift T[W], its
sensitivity bound, its share of the gradient's mu and its effect on the step."""

import math

import numpy as np
import pytest
from scipy.special import expit

from skdpgd import DPLogisticRegression
from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd.inference import compose_report, fit_budget
from skdpgd.inference._releases import (
    LOGISTIC_THIRD_BOUND,
    curvature_drift_at,
    third_derivative_bound,
)
from skdpgd.losses import BinaryLogisticLoss, HuberLoss


def _third(t):
    """l''' of the logistic loss by a central difference of sigma(1 - sigma) (not the code's
    closed form)."""
    h = 1e-4
    w = lambda s: expit(s) * (1.0 - expit(s))  # noqa: E731
    return (w(t + h) - w(t - h)) / (2.0 * h)


def _drift(rows, coef, moment):
    """(1/n) sum l'''(t_i) (x_i' W x_i) x_i by a direct loop over rows."""
    out = np.zeros(rows.shape[1])
    for x in rows:
        out += _third(x @ coef) * (x @ moment @ x) * x
    return out / rows.shape[0]


def test_third_derivative_bound_is_the_maximum():
    grid = np.linspace(-10.0, 10.0, 200001)
    assert np.max(np.abs(_third(grid))) == pytest.approx(LOGISTIC_THIRD_BOUND, rel=1e-6)
    assert third_derivative_bound(BinaryLogisticLoss(1.0)) == LOGISTIC_THIRD_BOUND
    assert third_derivative_bound(HuberLoss(0.7)) == 0.0


def test_drift_is_the_direct_sum_and_its_sensitivity_holds():
    rng = np.random.default_rng(3)
    n, loss = 200, BinaryLogisticLoss(1.0)
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 2, n).astype(float)
    design = ClippedDesign.from_data(X, 1.0, 0.5)  # rows of norm <= sqrt(1 + 0.5^2)
    row_norm = math.sqrt(1.25)
    coef = np.array([0.5, -1.0, 2.0, -2.2])
    a = rng.normal(size=(4, 4))
    moment = a @ a.T
    with ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=64) as sums:
        drift = curvature_drift_at(sums, loss, coef, moment, n)
    rows = design.toarray()
    np.testing.assert_allclose(drift, _drift(rows, coef, moment), rtol=1e-6, atol=1e-12)
    # replace-one: the sum moves by at most 2 c3 lambda_max(W) Rt^3 (random and
    # adversarial rows at the norm bound, along W's top eigenvector, at |l'''| = c3)
    bound = 2.0 * LOGISTIC_THIRD_BOUND * np.linalg.eigvalsh(moment)[-1] * row_norm**3
    top = np.linalg.eigh(moment)[1][:, -1] * row_norm
    worst = []
    for _ in range(300):
        x = rng.normal(size=4)
        worst.append(x / np.linalg.norm(x) * row_norm * rng.uniform(0.5, 1.0))
    worst += [top, -top]
    base = _drift(rows[:1], coef, moment)
    for x in worst:
        change = np.linalg.norm(_drift(x[None, :], coef, moment) - base)
        assert change <= bound * (1 + 1e-6)
        change = np.linalg.norm(_drift(x[None, :], coef, moment) - _drift(-x[None, :], coef,
                                                                            moment))
        assert change <= bound * (1 + 1e-6)


def test_correction_comes_out_of_the_gradient_mu_and_leaves_the_ledger_unchanged():
    from skdpgd import DPRidge

    delta, n, epsilon = 1e-5, 5000, 1.0
    budget = fit_budget(epsilon, delta, n, 4)
    run = DPRidge(epsilon=budget.fit_epsilon, delta=delta, y_bound=1.0).plan_privacy(n, 4)
    logistic = compose_report(BinaryLogisticLoss(1.0), run, budget, row_norm=1.2, delta=delta)
    huber = compose_report(HuberLoss(0.25), run, budget, row_norm=1.2, delta=delta)
    assert logistic.mu == huber.mu  # the same one mu is charged
    assert huber.correction_mu == 0.0
    assert logistic.correction_mu == pytest.approx(math.sqrt(0.02) * budget.gradient_mu)
    gradient_mu = logistic.gradient_sensitivity / (n * logistic.gradient_noise_std)
    assert gradient_mu**2 + logistic.correction_mu**2 == pytest.approx(budget.gradient_mu**2)
    assert logistic.correction_sensitivity == pytest.approx(
        2 * LOGISTIC_THIRD_BOUND * 1.2**3)
    assert "step correction" in repr(logistic)


def test_the_fit_corrects_the_logistic_step_only():
    """A first-order logistic fit releases the correction; a Huber fit does not (its
    report has no correction mu, and the diagnostics say so)."""
    from skdpgd import DPRidge

    rng = np.random.default_rng(5)
    n, p = 20000, 4
    X = rng.uniform(-1, 1, (n, p)) / math.sqrt(p)
    t = X @ np.linspace(-1, 1, p) + math.log(1 / 9)
    y = (rng.random(n) < expit(t)).astype(float)
    est = DPLogisticRegression(epsilon=1.0, delta=1e-5, classes=[0, 1], random_state=0,
                               inference=True).fit(X, y)
    diagnostics = est.inference_.diagnostics
    assert diagnostics["hessian_noise_ratio"] <= 0.5 and diagnostics["step_corrected"]
    ridge = DPRidge(epsilon=1.0, delta=1e-5, y_bound=4.0, random_state=0,
                    inference=True).fit(X, t + 0.5 * np.clip(rng.normal(size=n), -4, 4))
    assert not ridge.inference_.diagnostics["step_corrected"]


def test_unspent_correction_goes_back_to_the_gradient():
    """rho > 1/2 (decided from M alone): no correction, and the gradient is released at the
    whole mu_g; rho <= 1/2: at sqrt(mu_g^2 - mu_c^2), the report's sigma."""
    from types import SimpleNamespace

    from skdpgd.inference import adaptive_release, correction_applies

    dim, n, sens, mu_g, mu_c = 3, 1000, 2.0, 0.5, 0.5 * math.sqrt(0.02)
    report = SimpleNamespace(
        hessian_noise_std=0.01, score_noise_std=0.0, reserve_mu=0.0, n_samples=n,
        gradient_noise_std=sens / (n * math.sqrt(mu_g**2 - mu_c**2)), gradient_mu=mu_g,
        gradient_sensitivity=sens, correction_mu=mu_c)
    for curvature, applies in ((1.0, True), (0.02, False)):
        exact = (np.zeros(dim), curvature * np.eye(dim), np.eye(dim))
        _, hessian, _, sigma, tau, _ = adaptive_release(exact, report, np.random.default_rng(0))
        assert correction_applies(hessian, tau) is applies
        expected = report.gradient_noise_std if applies else sens / (n * mu_g)
        assert sigma == pytest.approx(expected)
