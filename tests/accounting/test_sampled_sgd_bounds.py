"""The minimum over sampled-SGD bounds, the report and the SGD planner (needs dp-accounting)."""


import pytest

pytest.importorskip("dp_accounting")

from skdpgd.accounting import (
    RenyiDpEvent,
    calibrate_sampled_sgd,
    poisson_sgd_epsilon,
    rdp_to_epsilon,
    sampled_sgd_bounds,
    sampled_sgd_report,
)
from skdpgd.accounting._uniform_sgd import uniform_sgd_composition_epsilon
from skdpgd.solvers import plan_sampled_sgd, sgd_sampling_variance, sgd_utility_proxy

RUN = dict(batch_size=20, n_samples=1000, gradient_bound=1.0)


def test_poisson_run_is_accounted_by_composition_only():
    bounds = sampled_sgd_bounds(0.1, 200, delta=1e-5, sampling="poisson", **RUN)
    assert set(bounds.epsilons) == {"composition"}
    assert "fixed-size" in bounds.not_applicable["altschuler_talwar"]
    assert bounds.binding_bound == "composition"
    assert bounds.epsilon == poisson_sgd_epsilon(
        0.1, 200, delta=1e-5, batch_size=20, n_samples=1000, gradient_bound=1.0
    )


def test_unknown_samplers_are_refused_before_any_shortcut():
    for call in (lambda: sampled_sgd_bounds(0.1, 200, delta=1e-5, sampling="shuffle", **RUN),
                 lambda: calibrate_sampled_sgd(1.0, 1e-5, n_steps=200, sampling="shuffle", **RUN),
                 # refused before the shortcuts that need no accounting (no noise, no step)
                 lambda: calibrate_sampled_sgd(float("inf"), 1e-5, n_steps=200,
                                               sampling="shuffle", **RUN),
                 lambda: calibrate_sampled_sgd(1.0, 1e-5, n_steps=0, sampling="shuffle", **RUN)):
        with pytest.raises(ValueError, match=r"sampling must be one of \('poisson', 'uniform'\)"):
            call()


def test_uniform_run_without_a_domain_is_accounted_by_composition_only():
    bounds = sampled_sgd_bounds(0.1, 200, delta=1e-5, sampling="uniform", **RUN)
    assert set(bounds.epsilons) == {"composition"}
    assert "bounded set" in bounds.not_applicable["altschuler_talwar"]
    assert "Wang, Balle, Kasiviswanathan" in bounds.theorem
    assert bounds.epsilon == uniform_sgd_composition_epsilon(0.1, 200, delta=1e-5, **RUN)
    # a step above 2/M: the step map need not contract, the theorem does not apply
    steep = sampled_sgd_bounds(0.1, 200, delta=1e-5, sampling="uniform", learning_rate=3.0,
                               smoothness=1.0, diameter=2.0, **RUN)
    assert "2/smoothness" in steep.not_applicable["altschuler_talwar"]


def test_uniform_run_on_a_ball_takes_the_smaller_bound_and_names_it():
    run = dict(RUN, sampling="uniform", learning_rate=1.0, smoothness=1.0, delta=1e-5)
    # few steps: composition binds; many steps past the burn-in: Altschuler-Talwar binds
    # and stops growing (the same value at 10x the steps)
    short = sampled_sgd_bounds(0.3, 20, diameter=1.0, **run)
    assert short.binding_bound == "composition"
    assert short.epsilon == short.epsilons["composition"] < short.epsilons["altschuler_talwar"]
    long = sampled_sgd_bounds(0.3, 20_000, diameter=1.0, **run)
    assert long.binding_bound == "altschuler_talwar"
    assert long.epsilon == long.epsilons["altschuler_talwar"] < long.epsilons["composition"]
    assert sampled_sgd_bounds(0.3, 200_000, diameter=1.0, **run).epsilon == long.epsilon
    assert "Altschuler and Talwar" in long.theorem
    # calibration on the minimum: conservative, and less noise than composition alone
    kwargs = dict(RUN, sampling="uniform", learning_rate=1.0, smoothness=1.0)
    sigma = calibrate_sampled_sgd(1.0, 1e-5, n_steps=20_000, diameter=1.0, **kwargs)
    assert sampled_sgd_bounds(sigma, 20_000, diameter=1.0, **run).epsilon <= 1.0
    assert sampled_sgd_bounds(sigma / 1.01, 20_000, diameter=1.0, **run).epsilon > 1.0
    assert sigma < 0.5 * calibrate_sampled_sgd(1.0, 1e-5, n_steps=20_000, **kwargs)


def test_uniform_report_event_is_a_valid_renyi_curve_of_the_run():
    report = sampled_sgd_report(0.3, 20_000, delta=1e-5, sampling="uniform", learning_rate=1.0,
                                strong_convexity=0.0, smoothness=1.0, diameter=1.0, **RUN)
    assert report.binding_bound == "altschuler_talwar" and report.diameter == 1.0
    assert "domain: a ball of diameter D=1" in repr(report)
    event = report.event
    assert isinstance(event, RenyiDpEvent)
    # the per-order minimum of two valid curves converts to at most either bound
    assert rdp_to_epsilon(event.orders, event.rdp, 1e-5) <= report.epsilon * (1 + 1e-12)


def test_calibration_is_conservative():
    sigma = calibrate_sampled_sgd(1.0, 1e-5, n_steps=300, sampling="poisson", **RUN)
    run = dict(RUN, sampling="poisson", delta=1e-5)
    assert sampled_sgd_bounds(sigma, 300, **run).epsilon <= 1.0
    assert sampled_sgd_bounds(sigma / 1.01, 300, **run).epsilon > 1.0


def test_report_records_the_run_and_answers_other_deltas():
    report = sampled_sgd_report(0.1, 200, delta=1e-5, sampling="poisson", learning_rate=1.0,
                                strong_convexity=0.0, smoothness=1.0, **RUN)
    assert report.binding_bound == "composition"
    assert "Poisson-subsampled Gaussian" in report.theorem
    assert not hasattr(report, "mu")  # not Gaussian DP: no mu at all (no nan placeholder)
    assert report.neighbouring_relation == "replace-one"
    assert report.sensitivity == 2.0 and report.sampling_rate == 0.02
    assert dict(report.bound_epsilons)["composition"] == report.epsilon
    assert dict(report.not_applicable)["altschuler_talwar"].startswith("stated and proved")
    assert report.epsilon_at(1e-5) == report.epsilon
    assert report.epsilon_at(1e-8) > report.epsilon
    # delta_at inverts epsilon_at, rounding delta up (conservative)
    delta = report.delta_at(report.epsilon)
    assert 1e-5 <= delta <= 1e-5 * 1.002
    assert "binding: composition" in repr(report)
    assert "altschuler_talwar: does not apply" in repr(report)
    assert report.to_dict()["sampling"] == "poisson"


def test_sampling_variance_and_proxy():
    # Poisson: q(1-q) sum ||g||^2 / b^2 with n rows of norm L -> L^2 (1-q)/b
    assert sgd_sampling_variance(gradient_bound=2.0, batch_size=10, n_samples=100,
                                 sampling="poisson") == pytest.approx(4.0 * 0.9 / 10)
    # q = 1: every row is in every batch, the batch gradient is the full one
    assert sgd_sampling_variance(gradient_bound=2.0, batch_size=100, n_samples=100,
                                 sampling="poisson") == 0.0
    # uniform (b rows without replacement): (1 - b/n) s^2 / b with the population variance
    # s^2 = sum ||g_i - gbar||^2 / (n - 1) <= n L^2 / (n - 1) -> L^2 (n - b) / (b (n - 1))
    assert sgd_sampling_variance(gradient_bound=2.0, batch_size=10, n_samples=100,
                                 sampling="uniform") == pytest.approx(4.0 * 90 / (10 * 99))
    with pytest.raises(ValueError, match="sampling"):
        sgd_sampling_variance(gradient_bound=2.0, batch_size=10, n_samples=100,
                              sampling="shuffle")
    # proxy = bias + optimisation + eta (p sigma^2 + V) / 4: K = infinity-like removes the
    # optimisation term, leaving the two closed-form terms
    value = sgd_utility_proxy(10**6, 0.1, n_params=3, learning_rate=0.5, strong_convexity=0.1,
                              smoothness=1.0, initial_distance=2.0, sampling_variance=0.2)
    assert value == pytest.approx(0.5 * 0.1 * 4 + 0.5 * (3 * 0.01 + 0.2) / 4)


def test_planner_meets_the_target_and_reports_its_proxy():
    # (its speed is measured in benchmarks/planning_time.py, not asserted here)
    common = dict(gradient_bound=1.0, data_smoothness=0.5, n_samples=20_000, n_params=20,
                  initial_distance=5.0, max_passes=10)
    plan = plan_sampled_sgd(0.5, 1e-5, **common)  # lam "auto"
    assert plan.epsilon <= 0.5 and plan.epsilon > 0.5 * 0.98
    assert plan.n_steps * plan.batch_size / 20_000 <= 10 * 1.01  # within the pass budget
    assert plan.learning_rate <= 2.0 / (plan.smoothness + plan.strong_convexity) * (1 + 1e-12)
    recomputed = sgd_utility_proxy(
        plan.n_steps, plan.noise_std, n_params=20, learning_rate=plan.learning_rate,
        strong_convexity=plan.strong_convexity, smoothness=plan.smoothness, initial_distance=5.0,
        sampling_variance=sgd_sampling_variance(gradient_bound=1.0, batch_size=plan.batch_size,
                                                n_samples=20_000, sampling="poisson"),
    )
    assert plan.utility_proxy == pytest.approx(float(recomputed), rel=1e-12)
    assert plan_sampled_sgd(0.5, 1e-5, **common) is plan  # cached: public inputs only
    fixed = plan_sampled_sgd(0.5, 1e-5, strong_convexity=1e-3, **common)
    assert fixed.strong_convexity == 1e-3
    with pytest.raises(ValueError, match="sampling"):
        plan_sampled_sgd(0.5, 1e-5, sampling="shuffle", **common)
