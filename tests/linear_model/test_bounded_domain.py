"""max_coef_norm: the unregularised fit on a public ball, refused without one before any value."""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    X /= np.linalg.norm(X, axis=1).max()
    return X, (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)


@pytest.mark.parametrize("make", [lambda: DPLogisticRegression(C=np.inf, classes=[0, 1]),
                                  lambda: DPRidge(alpha=0, y_bound=1.0)])
def test_no_regularisation_without_a_ball_is_refused_before_any_value(make):
    X, y = _data()
    X[0, 0] = np.nan  # a refusal that read the values would name the NaN
    with pytest.raises(ValueError, match="max_coef_norm"):
        make().fit(X, y)
    with pytest.raises(ValueError, match="max_coef_norm"):
        make().plan_privacy(600, 3)


@pytest.mark.parametrize("solver", ["gd", "cyclic", "preconditioned", "auto"])
def test_the_unregularised_fit_stays_in_its_ball(solver):
    X, y = _data()
    radius = 1.5  # smaller than the unconstrained optimum's norm on this separable-ish data
    clf = DPLogisticRegression(epsilon=1.0, C=np.inf, max_coef_norm=radius, classes=[0, 1],
                               solver=solver, random_state=0).fit(X, y)
    theta = np.r_[clf.coef_.ravel(), clf.intercept_ / clf.intercept_scaling_]
    assert np.linalg.norm(theta) <= radius * (1 + 1e-12)
    assert clf.C_ == np.inf and clf.strong_convexity_ == 0.0
    assert clf.privacy_.epsilon <= 1.0
    reg = DPRidge(epsilon=1.0, alpha=0, y_bound=1.0, max_coef_norm=radius, solver=solver,
                  random_state=0).fit(X, 2.0 * y - 1.0)
    theta = np.r_[reg.coef_, reg.intercept_ / reg.intercept_scaling_]
    assert np.linalg.norm(theta) <= radius * (1 + 1e-12) and reg.alpha_ == 0.0


def test_a_ball_reported_by_its_diameter_for_gd():
    report = DPLogisticRegression(epsilon=1.0, C=np.inf, max_coef_norm=0.5, classes=[0, 1],
                                  solver="gd").plan_privacy(100_000, 3)
    assert report.diameter == 1.0 and report.bounded_domain_mu is not None
    assert report.mu <= min(report.composition_mu, report.bounded_domain_mu) * (1 + 1e-15)


@pytest.mark.parametrize("solver, passes, batch_size", [("gd", 2000, "auto"),
                                                         ("cyclic", 400, 20)])
def test_past_the_burn_in_four_times_the_passes_plan_the_same_noise(solver, passes,
                                                                     batch_size):
    # C = inf on a small ball (x = D n/(S eta) small): Theorem 4.3 / bound (F) binds and is
    # constant past its burn-in, so the planned noise does not grow with max_iter
    def plan(max_iter):
        return DPLogisticRegression(epsilon=1.0, classes=[0, 1], C=np.inf,
                                    max_coef_norm=0.05, solver=solver, max_iter=max_iter,
                                    batch_size=batch_size).plan_privacy(200, 5)

    once, four = plan(passes), plan(4 * passes)
    assert four.n_steps == 4 * once.n_steps
    assert four.noise_std == once.noise_std
    assert once.binding_bound.endswith("bounded domain), convergent") or (
        once.binding_bound.endswith("cyclic), convergent"))
    # without the ball's bound (the default C) the noise grows with the passes
    free = [DPLogisticRegression(epsilon=1.0, classes=[0, 1], solver="gd", max_iter=k,
                                 C=1e6).plan_privacy(200, 5).noise_std for k in (50, 200)]
    assert free[1] > 1.5 * free[0]
