"""``solver="auto"`` choosing again on the released Gram (skdpgd/solvers/_spectral.py).

The charge is fixed before the data and exact, the choice is a function of the released
Gram and public numbers only, and the proxy on a released spectrum tells an isotropic
design from an ill-conditioned one; a classifier leaves the public choice only for a run
no worse at the unresolved bulk's estimate, at its worst common level and in the mean of
the flat and the spread (Marchenko-Pastur) bulk.
"""

import functools
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd.accounting import GramThenRunPrivacyReport
from skdpgd.solvers import _spectral, _spectral_choice
from skdpgd.solvers._spectral import SpectralChoicePlan
from skdpgd.solvers._spectral_choice import choose_on_spectrum
from skdpgd.solvers._spectral_utility import (
    BULK_GRID,
    estimate_spectrum,
    marchenko_pastur_quantiles,
    released_offset_distance,
    spectral_excess_loss,
    spread_bulk_excess_loss,
    worst_bulk_excess_loss,
)


def gdp_epsilon(mu, delta):
    """epsilon at delta of mu-GDP from its closed form (Dong, Roth, Su 2022, Cor. 2.13)."""
    def excess(eps):
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta
    return brentq(excess, 0.0, 100.0, xtol=1e-14, rtol=1e-14)


def logistic_data(n, d, seed, scales=None):
    rng = np.random.default_rng(seed)
    scales = np.ones(d) if scales is None else np.asarray(scales)
    X = rng.standard_normal((n, d)) * scales / math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = (X @ rng.standard_normal(d) * 3.0 + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def test_charge_is_exact_and_fixed_before_the_data():
    X, y = logistic_data(3000, 3, 0)
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-3)
    model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0, ledger=ledger)
    planned = model.plan_privacy(3000, 3)
    model.fit(X, y)
    report = model.privacy_
    assert isinstance(planned, GramThenRunPrivacyReport)
    assert isinstance(report, GramThenRunPrivacyReport)
    # mu_G from the Gram's noise, computed here: S_G = sqrt(2) Rt^2, Rt = |(R, b)|
    rt2 = 1.0 + model.intercept_scaling_**2
    mu_g = math.sqrt(2.0) * rt2 / (3000 * report.gram_noise_std)
    assert report.gram_mu == pytest.approx(mu_g, rel=1e-12)
    mu = math.sqrt(mu_g**2 + report.run_mu**2)
    assert report.mu == pytest.approx(mu, rel=1e-12)
    assert report.epsilon == pytest.approx(gdp_epsilon(mu, report.delta), rel=1e-9)
    assert report.epsilon <= 1.0
    # whichever candidate ran, the charge is the one planned without data
    assert (report.mu, report.epsilon, report.event) == (planned.mu, planned.epsilon,
                                                         planned.event)
    assert ledger.spent(report.delta).epsilon == pytest.approx(report.epsilon, rel=1e-9)
    # privacy_ is the charge, public numbers only (what an audit compares between
    # neighbouring data sets); the run chosen on the released Gram is run_report_
    assert report.to_dict() == planned.to_dict() | {"notes": list(report.notes)}
    ran = model.run_report_
    assert (ran.mu, ran.epsilon, ran.event) == (report.mu, report.epsilon, report.event)
    assert ran.run_own_mu <= ran.run_mu == report.run_mu
    assert model.solver_ in {"gd", "cyclic", "preconditioned"}
    assert ran.run_solver in report.candidates
    assert (model.noise_std_, model.learning_rate_) == (ran.noise_std, ran.learning_rate)


def test_choice_is_a_function_of_the_released_gram_only(monkeypatch):
    """Two data sets whose released Gram is the same draw make the same choice."""
    fixed, release = {}, _spectral.release_gram

    def same_release(gram, n_samples, noise_std, rng):  # the first data set's draw, twice
        return fixed.setdefault("G", release(gram, n_samples, noise_std, rng))

    monkeypatch.setattr(_spectral, "release_gram", same_release)
    chosen = []
    for seed, scales in ((0, None), (1, [10.0, 0.1, 1.0])):
        X, y = logistic_data(3000, 3, seed, scales)
        model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=seed).fit(X, y)
        chosen.append((model.solver_, model.run_report_.run_solver, model.run_report_.notes[-7:]))
    assert chosen[0] == chosen[1]


def _plan(n, d, epsilon):
    model = DPLogisticRegression(epsilon=epsilon, classes=[0, 1])
    *_, problem, plan, _ = model._plan_and_report(n, d, 2)
    assert isinstance(plan, SpectralChoicePlan)
    return problem, plan


def test_isotropic_spectrum_keeps_plain_gd_and_ill_conditioned_keeps_preconditioned():
    # 100 isotropic levels of 1/100 lie below the probe's noise edge (the bulk: their
    # level unresolved), so the run stays preconditioned; 20 levels of 1/20 are resolved
    problem, plan = _plan(100_000, 100, 1.0)
    dim = problem.gram_dim
    b2 = problem.row_norm**2 - 1.0
    isotropic = np.diag(np.r_[np.full(dim - 1, 1.0 / (dim - 1)), b2])
    index, _ = choose_on_spectrum(plan, problem, isotropic)
    assert plan.candidates[index].solver.name == "preconditioned"
    problem, plan = _plan(100_000, 20, 1.0)
    dim = problem.gram_dim
    b2 = problem.row_norm**2 - 1.0
    isotropic = np.diag(np.r_[np.full(dim - 1, 1.0 / (dim - 1)), b2])
    index, _ = choose_on_spectrum(plan, problem, isotropic)
    assert plan.candidates[index].solver.name in ("gd", "cyclic")
    # condition number 1e4 over the features: the probe (twice the pick's Gram noise)
    # resolves its spread (at 1e7 most levels fall below the probe's noise, into the bulk)
    levels = np.logspace(-4, 0, dim - 1)
    ill = np.diag(np.r_[levels / levels.sum(), b2])
    index, _ = choose_on_spectrum(plan, problem, ill)
    assert plan.candidates[index].solver.name == "preconditioned"


def test_estimate_spectrum_removes_the_semicircle_and_stays_in_range():
    rng = np.random.default_rng(3)
    d, tau = 200, 1e-3
    noise = rng.standard_normal((d, d)) * tau
    noise = np.triu(noise) + np.triu(noise, 1).T
    truth = np.r_[0.5, np.full(d - 1, 0.2 / (d - 1))]
    w = np.linalg.eigvalsh(np.diag(truth) + noise)
    g, bulk = estimate_spectrum(w, tau, 1.0)
    assert np.count_nonzero(~bulk) == 1  # the bulk's edge, above r, is not taken for a spike
    assert g.max() == pytest.approx(0.5, rel=0.01)  # the spike, its BBP shift undone
    assert np.median(g) == pytest.approx(0.2 / (d - 1), rel=0.3)  # the bulk, from the trace
    assert g.min() >= 0.0 and g.sum() <= 1.0 + 1e-12


@pytest.mark.parametrize("case", ["d=1", "small n", "weights", "multinomial", "ridge"])
def test_edge_cases_fit_with_an_exact_charge(case):
    rng = np.random.default_rng(5)
    n, d = (300, 1) if case in ("d=1", "small n") else (3000, 3)
    X = rng.uniform(-1, 1, (n, d)) / math.sqrt(d)
    fit = {}
    if case == "ridge":
        model, y = DPRidge(epsilon=1.0, y_bound=1.0, random_state=0), np.clip(X.sum(1), -1, 1)
    elif case == "multinomial":
        model = DPLogisticRegression(epsilon=1.0, classes=[0, 1, 2], random_state=0)
        y = np.digitize(X[:, 0], [-0.2, 0.2])
        X, n = np.repeat(X, 10, axis=0), 10 * n
        y = np.repeat(y, 10)
    else:
        model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                     max_sample_weight=2.0 if case == "weights" else None)
        y = (X[:, 0] > 0).astype(int)
        if case == "weights":
            fit["sample_weight"] = rng.uniform(0, 2, n)
    planned = model.plan_privacy(n, d, 3 if case == "multinomial" else 2)
    model.fit(X, y, **fit)
    report = model.privacy_
    assert type(report) is type(planned)
    assert report.epsilon == planned.epsilon <= 1.0
    if isinstance(report, GramThenRunPrivacyReport):
        assert report.mu == pytest.approx(math.hypot(report.gram_mu, report.run_mu), rel=1e-12)
        assert np.all(np.isfinite(model.coef_))


def test_no_second_choice_without_noise_or_with_inference():
    model = DPLogisticRegression(epsilon=np.inf, classes=[0, 1])
    assert not isinstance(model.plan_privacy(3000, 3), GramThenRunPrivacyReport)
    model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], inference=True)
    assert not isinstance(model.plan_privacy(20_000, 3), GramThenRunPrivacyReport)


def test_run_released_is_refused_before_reading_and_names_the_public_plan():
    """Private inference runs the public choice; a spectral plan refuses to hand on its
    releases before touching the data (None here), and says which plan to run."""
    model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)
    plan = model._plan_and_report(3000, 3, 2)[3]
    assert isinstance(plan.solver, _spectral.SpectralChoiceSolver)
    with pytest.raises(TypeError, match=r"plan\.public_plan"):
        plan.solver.run_released(None, None, plan, None)


def test_candidates_span_the_pass_budgets_and_the_charge_covers_every_one():
    from skdpgd.solvers._auto import AUTO_CYCLIC_BATCHES, AUTO_MARGIN_FACTORS
    from skdpgd.solvers._spectral import SPECTRAL_PASS_BUDGETS

    problem, plan = _plan(40_000, 100, 1.0)
    runs = {}
    for candidate in plan.candidates:
        kind = candidate.solver.name
        passes = (candidate.n_steps if kind == "preconditioned" else candidate.n_epochs)
        runs.setdefault(kind, []).append(passes)
    # preconditioned runs at every budget (none beyond it); gd and cyclic at the public
    # choice's 50 passes only
    assert max(runs["preconditioned"]) <= max(SPECTRAL_PASS_BUDGETS)
    assert min(runs["preconditioned"]) <= min(SPECTRAL_PASS_BUDGETS)
    assert len(runs["preconditioned"]) > len(AUTO_MARGIN_FACTORS)
    assert len(runs["gd"]) == 1 and len(runs["cyclic"]) == len(AUTO_CYCLIC_BATCHES)
    # the charge: the Gram release composed with the largest of the candidates' own mu
    assert plan.run_mu == max(plan.run_mus)
    report = plan.solver.report(plan, problem)
    assert report.mu == pytest.approx(math.hypot(plan.gram_mu, max(plan.run_mus)), rel=1e-12)
    assert report.epsilon <= problem.epsilon
    assert len({repr(c) for c in plan.candidates}) == len(plan.candidates)  # listed once


def test_ties_on_the_released_spectrum_go_to_the_fewest_passes(monkeypatch):
    problem, plan = _plan(40_000, 100, 1.0)
    # every candidate predicted alike, up to half the tie tolerance: the cheapest runs
    rng = np.random.default_rng(0)
    fake = dict(zip(map(id, plan.candidates),
                    1.0 + 0.005 * rng.uniform(size=len(plan.candidates)), strict=True))

    def predicted(candidate, *args):  # the same at every level of the bulk
        passes = (candidate.n_steps if candidate.solver.name == "preconditioned"
                  else candidate.n_epochs)
        return fake[id(candidate)], float(passes)

    monkeypatch.setattr(_spectral_choice, "_spectral_prediction", predicted)
    dim = problem.gram_dim
    index, _ = choose_on_spectrum(plan, problem, np.eye(dim) / dim)
    chosen = plan.candidates[index]
    fewest = min(c.n_steps if c.solver.name == "preconditioned" else c.n_epochs
                 for c in plan.candidates)
    assert (chosen.n_steps if chosen.solver.name == "preconditioned"
            else chosen.n_epochs) == fewest


def test_a_well_conditioned_problem_runs_few_passes():
    # isotropic rows, many of them, a loose budget: the released spectrum shows an easy
    # problem, and the fit runs fewer passes than the public choice planned (50)
    X, y = logistic_data(20_000, 20, 0)
    model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert isinstance(model.privacy_, GramThenRunPrivacyReport)
    ran = model.run_report_
    passes = model.n_iter_ if model.solver_ != "cyclic" else model.n_iter_ / (
        -(-40_000 // model.batch_size_))
    assert passes < 50, (model.solver_, model.n_iter_, ran.run_solver)


def test_the_gram_is_released_in_two_draws_whose_precisions_add_up(monkeypatch):
    """The probe and the top-up split the planned Gram's precision exactly: a
    preconditioned branch pays what the public plan pays, a plain-step branch the probe."""
    from skdpgd.solvers._spectral import PROBE_FRACTION, combine_releases

    problem, plan = _plan(40_000, 100, 1.0)
    tau, s_g, n = plan.public_plan.gram_noise_std, plan.public_plan.gram_sensitivity, 40_000
    mu_p, mu_t = s_g / (n * plan.probe_noise_std), s_g / (n * plan.top_up_noise_std)
    assert mu_p**2 + mu_t**2 == pytest.approx((s_g / (n * tau)) ** 2, rel=1e-12)
    assert plan.gram_mu == mu_p and mu_p**2 == pytest.approx(PROBE_FRACTION * (s_g / (n * tau)) ** 2)
    for candidate, report, mu in zip(plan.candidates, plan.run_reports, plan.run_mus, strict=True):
        if candidate.solver.name == "preconditioned":  # top-up Gram and steps, composed
            assert mu == pytest.approx(math.hypot(mu_t, report.steps_mu), rel=1e-12)
        else:
            assert mu == report.mu
    charged = plan.solver.report(plan, problem)
    assert charged.gram_noise_std == plan.probe_noise_std
    assert charged.mu == pytest.approx(math.hypot(mu_p, max(plan.run_mus)), rel=1e-12)
    assert charged.epsilon <= problem.epsilon
    # the combined release has the planned noise: 4,000 entries of each, fixed seed; the
    # sample variance of 4,000 normals is within 4 standard errors (sqrt(2/4000) = 2.2%)
    rng = np.random.default_rng(0)
    shape = (4000,)
    combined = combine_releases(rng.normal(0.0, plan.probe_noise_std, shape),
                                rng.normal(0.0, plan.top_up_noise_std, shape))
    assert np.var(combined) / tau**2 == pytest.approx(1.0, abs=4 * math.sqrt(2 / 4000))


@pytest.mark.parametrize("winner", ["gd", "preconditioned"])
def test_the_choice_reads_the_probe_and_only_a_preconditioned_winner_tops_up(monkeypatch,
                                                                             winner):
    released, release = [], _spectral.release_gram

    def recorded(gram, n_samples, noise_std, rng):
        out = release(gram, n_samples, noise_std, rng)
        released.append((noise_std, out))
        return out

    read = []

    def choose(plan, problem, gram):
        read.append(gram)
        index = next(i for i, c in enumerate(plan.candidates) if c.solver.name == winner)
        return index, ()

    from skdpgd.solvers._preconditioned import PreconditionedSolver
    from skdpgd.solvers._spectral import combine_releases

    ran_on, descend = [], PreconditionedSolver.descend

    def descend_recorded(self, row_sums, data, gram, *args, **kwargs):
        ran_on.append(gram)
        return descend(self, row_sums, data, gram, *args, **kwargs)

    monkeypatch.setattr(_spectral, "release_gram", recorded)
    monkeypatch.setattr(_spectral, "choose_on_spectrum", choose)
    monkeypatch.setattr(PreconditionedSolver, "descend", descend_recorded)
    X, y = logistic_data(20_000, 20, 0)
    model = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    plan = model._plan_and_report(20_000, 20, 2)[3]
    assert isinstance(plan, SpectralChoicePlan) and model.solver_ == winner
    assert released[0][0] == plan.probe_noise_std and read[0] is released[0][1]
    if winner == "gd":
        assert len(released) == 1 and not ran_on
    else:  # it runs on the two releases combined
        assert [tau for tau, _ in released] == [plan.probe_noise_std, plan.top_up_noise_std]
        np.testing.assert_array_equal(ran_on[0],
                                      combine_releases(released[0][1], released[1][1]))


def test_a_full_batch_winner_runs_on_the_gram_pass_engine_with_the_same_sums(monkeypatch):
    # gd chosen on the probe runs on the row-sum engine of the Gram pass; a fresh engine
    # over the same rows gives the very same model (the sums do not depend on the engine)
    from skdpgd.solvers._cyclic import CyclicSolver

    def choose_gd(plan, problem, gram):
        return next(i for i, c in enumerate(plan.candidates) if c.solver.name == "gd"), ()

    monkeypatch.setattr(_spectral, "choose_on_spectrum", choose_gd)
    X, y = logistic_data(20_000, 20, 0)
    shared = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert shared.solver_ == "gd"
    descend, engines = CyclicSolver.descend, []

    def on_a_fresh_engine(self, row_sums, data, *args, **kwargs):
        with data.row_sums(row_sums.method) as fresh:
            engines.append(fresh)
            return descend(self, fresh, data, *args, **kwargs)

    monkeypatch.setattr(CyclicSolver, "descend", on_a_fresh_engine)
    fresh = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert len(engines) == 1
    np.testing.assert_array_equal(fresh.coef_, shared.coef_)
    np.testing.assert_array_equal(fresh.intercept_, shared.intercept_)


def _gram(dim, scale, mean_level, b):
    """The augmented Gram of rows whose features have trace scale^2, a mean of norm
    mean_level * scale spread evenly, and the intercept column b last."""
    d = dim - 1
    mu = np.full(d, mean_level * scale / np.sqrt(d))
    gram = np.zeros((dim, dim))
    gram[:d, :d] = np.eye(d) * scale**2 * (1 - mean_level**2) / d + np.outer(mu, mu)
    gram[:d, d] = gram[d, :d] = b * mu
    gram[d, d] = b * b
    return gram


def test_uncentred_columns_give_the_offset_its_share_and_keep_the_preconditioner():
    # an unfinished plain-gradient run fits the offset (the features' mean) at once and the
    # features slowly: on uncentred columns the released mean says so and the choice keeps
    # the preconditioner; on centred ones (no offset to absorb) plain steps stay
    from skdpgd.solvers._spectral_utility import released_offset_distance

    # (centred plain steps: where the probe resolves the levels, 20 columns at their
    # bound; below its noise edge, the bulk, the classifier keeps the public choice's
    # preconditioner unless a run beats it at the bulk's worst common level too)
    for d in (100, 20):
        problem, plan = _plan(100_000, d, 1.0)
        b, dim = problem.intercept_scaling, problem.gram_dim
        for scale in (1.0, 0.3):  # rows at their bound, and 0.3 of it (a loose data_norm)
            centred, uncentred = _gram(dim, scale, 0.0, b), _gram(dim, scale, 0.3, b)
            assert released_offset_distance(problem, centred, plan.probe_noise_std) == 0.0
            assert released_offset_distance(problem, uncentred, plan.probe_noise_std) > 0.0
            if d == 100:
                index, _ = choose_on_spectrum(plan, problem, uncentred)
                assert plan.candidates[index].solver.name == "preconditioned"
    index, _ = choose_on_spectrum(plan, problem, _gram(dim, 1.0, 0.0, b))  # d = 20
    assert plan.candidates[index].solver.name in ("gd", "cyclic")


def test_the_offset_share_ignores_the_release_noise_of_a_centred_mean():
    # a mean that is only the release's noise (tau per entry) counts for nothing: its
    # squared norm is debiased and must stand 3 sd above it (fixed seed, 50 draws)
    from skdpgd.solvers._spectral_utility import released_offset_distance

    problem, plan = _plan(100_000, 100, 1.0)
    b, dim, tau = problem.intercept_scaling, problem.gram_dim, plan.probe_noise_std
    rng = np.random.default_rng(0)
    for _ in range(50):
        noisy = _gram(dim, 1.0, 0.0, b)
        noise = rng.normal(0.0, tau, dim - 1)
        noisy[:-1, -1] += noise
        noisy[-1, :-1] += noise
        assert released_offset_distance(problem, noisy, tau) == 0.0


#: Public problems (n, d, classes, epsilon) whose preconditioned public choice, calibrated
#: alone to the target exactly, composed with the probe one ulp above it: the second
#: choice was dropped there (12 of 282 public problems of the grid and its neighbours).
AT_THE_BUDGET = [(160_000, 50, 4, 1.0), (40_000, 10, 2, 1.0), (40_000, 100, 2, 4.0),
                 (160_000, 5, 2, 1.0), (100_000, 50, 4, 0.1)]


@pytest.mark.parametrize("n, d, classes, epsilon", AT_THE_BUDGET)
def test_a_public_choice_at_the_budget_keeps_its_second_choice(n, d, classes, epsilon):
    model = DPLogisticRegression(epsilon=epsilon, classes=list(range(classes)))
    *_, problem, plan, report = model._plan_and_report(n, d, classes)
    assert isinstance(plan, SpectralChoicePlan)
    target = _spectral.epsilon_delta_to_gdp(epsilon, problem.delta)
    assert report.mu <= target and report.epsilon <= epsilon
    assert report.mu == _spectral.gram_then_run_mu(
        plan.probe_noise_std, plan.public_plan.gram_sensitivity, n, plan.run_mu)
    # the public choice is among the candidates, its step noise raised by a few ulps at
    # most (the first factor (1 + 1e-12)^j that meets the target), its Gram untouched
    public = plan.candidates[plan.public_index]
    assert public.solver.name == "preconditioned"
    assert public.gram_noise_std == plan.public_plan.gram_noise_std
    assert plan.public_plan.noise_std <= public.noise_std <= plan.public_plan.noise_std * (
        1 + 1e-10)
    assert report.run_own_mu == plan.run_mus[plan.public_index] <= report.run_mu
    for index in range(len(plan.candidates)):  # whichever runs, the same charge
        ran = plan.solver.report(plan, problem, index=index)
        assert (ran.mu, ran.epsilon) == (report.mu, report.epsilon)
        assert ran.run_own_mu <= ran.run_mu


def test_a_public_choice_within_the_budget_is_not_changed():
    _problem, plan = _plan(40_000, 100, 1.0)  # composed on the safe side of the target
    public = plan.candidates[plan.public_index]
    assert public.noise_std == plan.public_plan.noise_std
    assert repr(_spectral.replace(public, notes=())) == repr(
        _spectral.replace(plan.public_plan, notes=()))


def test_no_second_choice_is_dropped_on_drawn_public_problems():
    # a finite-epsilon "auto" plan that is a bare preconditioned plan is a public choice
    # whose second choice was dropped (spectral_plan returns None only without noise)
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(80):
        n, d = int(10 ** rng.uniform(2.5, 5.3)), int(10 ** rng.uniform(0, 2.5))
        epsilon, classes = float(10 ** rng.uniform(-1.3, 1)), int(rng.choice([0, 2, 4]))
        if classes:
            est, k = DPLogisticRegression(classes=list(range(classes)), epsilon=epsilon), classes
        else:
            est, k = DPRidge(y_bound=1.0, epsilon=epsilon), None
        *_, plan, report = est._plan_and_report(n, d, k)
        assert plan.solver.name != "preconditioned", (n, d, epsilon, classes)
        if isinstance(plan, SpectralChoicePlan):
            seen += 1
            assert report.epsilon <= epsilon
    assert seen >= 20  # the draw reaches the second choice often


def test_a_candidate_beyond_rounding_keeps_the_public_choice(monkeypatch):
    # a preconditioned candidate whose charge after the probe is more than a rounding
    # above the target (not reached: a planner bug) drops the second choice, never the fit
    def refuse(*args, **kwargs):
        raise RuntimeError("calibration did not converge; please report this as a bug.")

    from skdpgd.solvers._base import _cached_plan

    monkeypatch.setattr(_spectral, "calibrate_run_after_gram", refuse)
    _cached_plan.cache_clear()  # plan afresh, and forget this plan afterwards
    try:
        model = DPLogisticRegression(epsilon=1.0, classes=[0, 1])
        *_, plan, report = model._plan_and_report(40_000, 100, 2)
    finally:
        _cached_plan.cache_clear()
    assert plan.solver.name == "preconditioned" and report.epsilon <= 1.0


def _copula_gram(n, d, b, seed):
    """The augmented Gram of n rows of d correlated features in [0, 1] / sqrt(d) (one
    common factor: one strong direction, the rest near the probe's noise edge)."""
    rng = np.random.default_rng(seed)
    X = norm.cdf(0.6 * rng.standard_normal((n, 1)) + 0.8 * rng.standard_normal((n, d)))
    X = np.hstack([X / math.sqrt(d), np.full((n, 1), b)])
    return X.T @ X / n


def _noisy(gram, tau, rng):
    upper = np.triu(rng.normal(scale=tau, size=gram.shape))
    return gram + upper + np.triu(upper, 1).T


def _scores(plan, problem, released, score):
    eigenvalues, vectors = np.linalg.eigh(released)
    tau = plan.probe_noise_std
    spectrum, bulk = estimate_spectrum(eigenvalues, tau, problem.row_norm)
    unresolved = dict(bulk=bulk, bulk_ceiling=tau * math.sqrt(eigenvalues.size),
                      offset_weights=vectors[-1] ** 2,
                      offset_distance=released_offset_distance(problem, released, tau))
    return [_spectral_choice._spectral_prediction(c, problem, eigenvalues, spectrum,
                                                  unresolved, score)[0]
            for c in plan.candidates], bulk


def test_a_classifier_leaves_the_public_choice_only_for_a_run_better_at_both_levels():
    """On 5,410 rows of 15 correlated features at epsilon 0.5 most released levels fall
    in the bulk. The second choice runs a candidate no worse than the public choice at
    the bulk's estimate and at its worst common level; the smallest estimate alone (the
    rule before) is rejected on some draws, where it is worse at the worst level."""
    problem, plan = _plan(5410, 15, 0.5)
    rng = np.random.default_rng(0)
    rejected = 0
    for seed in range(8):
        released = _noisy(_copula_gram(5410, 15, problem.intercept_scaling, seed),
                          plan.probe_noise_std, rng)
        estimate, bulk = _scores(plan, problem, released, spectral_excess_loss)
        worst, _ = _scores(plan, problem, released, worst_bulk_excess_loss)
        assert bulk.any()
        index, _ = choose_on_spectrum(plan, problem, released)
        public = plan.public_index
        assert estimate[index] <= estimate[public] and worst[index] <= worst[public]
        alone = int(np.argmin(estimate))
        if worst[alone] > worst[public]:
            rejected += 1
            assert index != alone
    assert rejected >= 1


def test_the_bulk_at_its_worst_common_level_scores_at_least_the_levels_it_tries():
    """worst_bulk_excess_loss is the largest score over the common levels it tries
    ({0} and r/2 times BULK_GRID), each scored with the bulk set to that level."""
    problem, plan = _plan(5410, 15, 0.5)
    released = _noisy(_copula_gram(5410, 15, problem.intercept_scaling, 0),
                      plan.probe_noise_std, np.random.default_rng(1))
    eigenvalues, vectors = np.linalg.eigh(released)
    tau = plan.probe_noise_std
    spectrum, bulk = estimate_spectrum(eigenvalues, tau, problem.row_norm)
    candidate = plan.candidates[plan.public_index]
    kw = dict(steps=np.full(spectrum.shape, 0.5), curvature=problem.curvature,
              strong_convexity=candidate.strong_convexity, n_outputs=1,
              initial_distance=problem.largest_distance, scale_free=True,
              offset_weights=vectors[-1] ** 2, bulk=bulk,
              bulk_ceiling=tau * math.sqrt(eigenvalues.size))
    worst = worst_bulk_excess_loss(20, candidate.noise_std, spectrum=spectrum, **kw)
    ceiling = kw["bulk_ceiling"]
    tried = [spectral_excess_loss(20, candidate.noise_std, **dict(
        kw, spectrum=np.where(bulk, level, spectrum), bulk=None))
        for level in ceiling * np.r_[0.0, BULK_GRID]]
    assert worst == pytest.approx(max(tried), rel=1e-12)
    # a regressor's score already takes the bulk's worst level: unchanged
    regressor = dict(kw, scale_free=False)
    assert worst_bulk_excess_loss(20, candidate.noise_std, spectrum=spectrum,
                                  **regressor) == spectral_excess_loss(
        20, candidate.noise_std, spectrum=spectrum, **regressor)


def test_marchenko_pastur_quantiles_have_the_law_s_moments_and_support():
    """Mean 1 (by construction), variance gamma and support [(1 - sqrt g)^2, (1 + sqrt g)^2]
    for gamma <= 1 (Bai and Silverstein 2010, Theorem 3.6); for gamma > 1 a share
    1 - 1/gamma at 0 (the Gram has rank n)."""
    for gamma in (0.0375, 0.25, 0.8):
        q = marchenko_pastur_quantiles(2000, gamma)
        assert np.all(np.diff(q) >= 0.0)
        assert q.mean() == pytest.approx(1.0, rel=1e-12)
        # mid-quantiles of a smooth law: the variance within a few per cent
        assert q.var() == pytest.approx(gamma, rel=0.03)
        assert (1 - math.sqrt(gamma)) ** 2 * 0.999 <= q[0] and q[-1] <= (1 + math.sqrt(gamma)) ** 2
    q = marchenko_pastur_quantiles(1000, 4.0)
    assert np.mean(q == 0.0) == pytest.approx(0.75, abs=1e-3)
    assert q.mean() == pytest.approx(1.0, rel=1e-12)


def _bulk_kwargs(plan, problem, released):
    eigenvalues, vectors = np.linalg.eigh(released)
    tau = plan.probe_noise_std
    spectrum, bulk = estimate_spectrum(eigenvalues, tau, problem.row_norm)
    return eigenvalues, spectrum, dict(
        curvature=problem.curvature, n_outputs=1, initial_distance=problem.largest_distance,
        scale_free=True, offset_weights=vectors[-1] ** 2, bulk=bulk,
        bulk_ceiling=tau * math.sqrt(eigenvalues.size), spectrum=spectrum)


def test_the_spread_bulk_scores_every_level_of_the_law_and_degenerates_to_the_flat_bulk():
    """spread_bulk_excess_loss: with n so large that the law is a point (gamma -> 0) it is
    the flat bulk's score; on an isotropic bulk an unfinished plain run (every direction
    the same step) pays for the spread (its iterate is distorted by the levels); a
    regressor is scored as before (its score takes the bulk's worst level)."""
    problem, plan = _plan(8000, 300, 4.0)
    dim = problem.gram_dim
    flat = np.diag(np.r_[np.full(dim - 1, 1.0 / (dim - 1)), problem.row_norm**2 - 1.0])
    released = _noisy(flat, plan.probe_noise_std, np.random.default_rng(0))
    _, spectrum, kw = _bulk_kwargs(plan, problem, released)
    assert kw["bulk"].sum() == dim - 1
    candidate = plan.candidates[plan.public_index]
    kw.update(steps=np.full(spectrum.shape, 4.0), strong_convexity=candidate.strong_convexity)
    flat_score = spectral_excess_loss(50, candidate.noise_std, **kw)
    assert spread_bulk_excess_loss(50, candidate.noise_std, n_samples=10**15,
                                   **kw) == pytest.approx(flat_score, rel=1e-6)
    assert spread_bulk_excess_loss(50, candidate.noise_std, n_samples=8000, **kw) > 2 * flat_score
    regressor = dict(kw, scale_free=False)
    assert spread_bulk_excess_loss(50, candidate.noise_std, n_samples=8000, **regressor) == \
        spectral_excess_loss(50, candidate.noise_std, **regressor)


def test_weights_count_an_entry_as_its_share_of_a_direction():
    """spectral_excess_loss with each direction split in two entries of weight 1/2 (the
    same level and step) is the score of the unsplit spectrum."""
    problem, plan = _plan(5410, 15, 0.5)
    released = _noisy(_copula_gram(5410, 15, problem.intercept_scaling, 0),
                      plan.probe_noise_std, np.random.default_rng(1))
    _, spectrum, kw = _bulk_kwargs(plan, problem, released)
    kw.update(steps=np.linspace(0.5, 2.0, spectrum.size), strong_convexity=1e-3, bulk=None)
    whole = spectral_excess_loss(30, 0.01, **kw)
    split = dict(kw, spectrum=np.repeat(spectrum, 2), steps=np.repeat(kw["steps"], 2),
                 offset_weights=np.repeat(kw["offset_weights"], 2),
                 weights=np.full(2 * spectrum.size, 0.5))
    assert spectral_excess_loss(30, 0.01, **split) == pytest.approx(whole, rel=1e-12)


def test_plain_steps_that_gain_only_noise_on_an_isotropic_bulk_keep_the_preconditioner(
        monkeypatch):
    """8,000 isotropic rows of 300 features: every level is in the probe's bulk, where a
    flat bulk shows no distortion and plain steps win by their smaller noise. At epsilon
    4 that gain is less than what the least spread of 8,000 rows (Marchenko-Pastur, ratio
    300/8000) costs an unfinished plain run, so the preconditioner is kept (the rule
    before, without the spread, left it for cyclic steps); at epsilon 0.5 the noise gain
    is larger and plain gd runs under both rules."""
    for epsilon, kept in ((4.0, True), (0.5, False)):
        problem, plan = _plan(8000, 300, epsilon)
        dim = problem.gram_dim
        flat = np.diag(np.r_[np.full(dim - 1, 1.0 / (dim - 1)), problem.row_norm**2 - 1.0])
        for seed in range(3):
            released = _noisy(flat, plan.probe_noise_std, np.random.default_rng(seed))
            index, _ = choose_on_spectrum(plan, problem, released)
            with monkeypatch.context() as patch:
                patch.setattr(_spectral_choice, "spread_bulk_excess_loss",
                              lambda *args, **kwargs: 0.0)
                before, _ = choose_on_spectrum(plan, problem, released)
            assert plan.candidates[before].solver.name in ("gd", "cyclic")
            assert (plan.candidates[index].solver.name == "preconditioned") == kept


def test_a_classifier_leaves_the_public_choice_only_for_a_run_no_worse_in_the_mean():
    """On the 5,410-row copula draws the winner is no worse than the public choice in the
    mean of the flat and the spread bulk (and at both levels of the rule before)."""
    problem, plan = _plan(5410, 15, 0.5)
    rng = np.random.default_rng(0)
    spread = functools.partial(spread_bulk_excess_loss, n_samples=problem.n_samples)
    for seed in range(4):
        released = _noisy(_copula_gram(5410, 15, problem.intercept_scaling, seed),
                          plan.probe_noise_std, rng)
        estimate, _ = _scores(plan, problem, released, spectral_excess_loss)
        worst, _ = _scores(plan, problem, released, worst_bulk_excess_loss)
        spread_scores, _ = _scores(plan, problem, released, spread)
        index, _ = choose_on_spectrum(plan, problem, released)
        public = plan.public_index
        assert estimate[index] <= estimate[public] and worst[index] <= worst[public]
        assert estimate[index] + spread_scores[index] <= estimate[public] + spread_scores[public]


@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_the_worst_bulk_level_scores_every_level_at_once_with_the_same_floats(momentum):
    # worst_bulk_excess_loss scores all the bulk's levels in one call (a spectrum per
    # row); each row must give the float a one-level call gives, and their largest the
    # one the loop over levels took (Python's max, in the grid's order)
    rng = np.random.default_rng(3)
    for _ in range(60):
        d = int(rng.integers(2, 40))
        spectrum = rng.uniform(0.0, 0.5, d)
        bulk = rng.random(d) < 0.6
        bulk[0] = True
        offset = rng.dirichlet(np.ones(d)) if rng.random() < 0.5 else None
        kwargs = dict(steps=rng.uniform(0.2, 3.0, d), curvature=0.25,
                      strong_convexity=float(rng.choice([1e-9, 1e-4])), spectrum=spectrum,
                      n_outputs=int(rng.choice([1, 3])), initial_distance=2.0,
                      momentum=momentum, scale_free=True, offset_weights=offset,
                      offset_distance=0.5, bulk=bulk, bulk_ceiling=float(rng.uniform(0, .1)))
        n_steps, sigma = int(rng.integers(1, 120)), float(rng.uniform(0.0, 0.1))
        levels = kwargs["bulk_ceiling"] * np.concatenate([[0.0], BULK_GRID])
        one_at_a_time = [spectral_excess_loss(n_steps, sigma, **dict(
            kwargs, spectrum=np.where(bulk, level, spectrum), bulk=None)) for level in levels]
        assert worst_bulk_excess_loss(n_steps, sigma, **kwargs) == max(one_at_a_time)
        assert np.array_equal(spectral_excess_loss(n_steps, sigma, **dict(
            kwargs, spectrum=np.where(bulk, levels[:, None], spectrum), bulk=None)),
            np.array(one_at_a_time))
    with pytest.raises(ValueError, match="a spectrum per row"):
        spectral_excess_loss(10, 0.1, **dict(kwargs, spectrum=np.ones((2, 3)), scale_free=False))
