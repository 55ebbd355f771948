"""An audit of the two releases a DP pipeline makes after its fit.

The regressor's mean correction (docs/theory.md, "The regressor's intercept at its mean
residual") and the classifier constant check's projected counts (docs/theory.md, "Never
below the constant predictor"), tried from outside: the accounting of all three parts of a
``DPRidge``'s allowance read from the fitted report's own step mus; the residual sum's
sensitivity through a real fitted ``DPRidge`` on rows an adversary writes (huge x, y far
outside the range or exactly at it, float32); whole fits on such tables, tiny n, a
constant y, all-equal predictions and CSR X, with every released number finite and the
decision reproduced from the released numbers; the projection's premise (every row's
label in the public set) where labels come typed differently or a label is missing; the
paths that must not reach the check (class weights, a released label set); and the
estimator protocol around the new parameter (refusal before the charge, clone,
``prepare()``, ``DPSearchCV``, pickling, the CLI).
"""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm
from sklearn.base import clone

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger, make_dp_pipeline
from skdpgd.pipeline import _mean_correction as mean_correction_module
from skdpgd.pipeline._constant_fallback import CONSTANT_CHECK, LEVEL
from skdpgd.pipeline._mean_correction import MEAN_CORRECTION, MeanCorrectionPlan
from skdpgd.preprocessing import BoundedScaler

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

Z = float(norm.isf(LEVEL / 2.0))  # the soft threshold's z_{0.975}


def _table(n=600, seed=0, skewed=True):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    noise = rng.exponential(0.3, n) - 0.3 if skewed else rng.normal(0, 0.1, n)
    return X, 0.3 * X[:, 0] - 0.2 * X[:, 1] + noise


def _ridge_pipe(y_bound=1.0, epsilon=1.0, scaler=True, dpridge__solver="auto", **kw):
    steps = [BoundedScaler((-1, 1))] if scaler else []
    return make_dp_pipeline(*steps, DPRidge(y_bound=y_bound, solver=dpridge__solver),
                            epsilon=epsilon, delta=1e-5,
                            random_state=kw.pop("random_state", 0), **kw)


def _steps(report):
    return dict(report.steps)


def _assert_released_numbers_are_consistent(pipe, n, bound):
    """Every released number finite, in its documented range, and the decision exactly
    the soft threshold of the released mean at z_{0.975} times the documented noise sd."""
    c = pipe.mean_correction_
    mu_m = _steps(pipe.privacy_)[MEAN_CORRECTION].mu
    assert math.isfinite(c.noisy_mean_residual) and abs(c.noisy_mean_residual) <= 2 * bound
    assert c.noise_std == pytest.approx(4.0 * bound / (n * mu_m), rel=1e-9)
    threshold = Z * c.noise_std
    assert c.applied == (abs(c.noisy_mean_residual) > threshold)
    expected = (math.copysign(abs(c.noisy_mean_residual) - threshold, c.noisy_mean_residual)
                if c.applied else 0.0)
    assert c.shift == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert abs(c.shift) < 2 * bound


# -- the accounting: planned == charged >= spent, three parts within the estimator's ----------

@pytest.mark.parametrize("y_bound, solver", [(1.0, "auto"), ("auto", "auto"),
                                             (1.0, "cyclic"), (1.0, "preconditioned")])
def test_fit_correction_and_check_share_the_estimator_allowance(y_bound, solver):
    X, y = _table()
    ledger = PrivacyLedger()
    pipe = _ridge_pipe(y_bound, epsilon=0.5, constant_check=True, ledger=ledger,
                       dpridge__solver=solver)
    planned = pipe.plan_privacy(len(X), X=X)
    pipe.fit(X, y)
    (entry,) = ledger.entries
    assert entry.event.mu == pytest.approx(planned.mu, rel=1e-12)  # the one charge
    steps = _steps(pipe.privacy_)
    names = [name for name, _ in pipe.privacy_.steps]
    assert names[-3:] == ["dpridge", MEAN_CORRECTION, CONSTANT_CHECK]
    mu_fit, mu_m, mu_c = (steps[k].mu for k in ("dpridge", MEAN_CORRECTION, CONSTANT_CHECK))
    mu_est = pipe.budget_.estimator_mu
    assert mu_fit ** 2 + mu_m ** 2 + mu_c ** 2 <= mu_est ** 2
    assert mu_m ** 2 == pytest.approx(pipe.mean_correction_.share * mu_est ** 2, rel=1e-9)
    # the check's share is of what the correction left
    left = mu_est ** 2 * (1.0 - pipe.mean_correction_.share)
    assert mu_c ** 2 == pytest.approx(pipe.constant_check_.share * left, rel=1e-9)
    composed = math.sqrt(math.fsum(r.mu ** 2 for _, r in pipe.privacy_.steps))
    assert pipe.privacy_.mu == pytest.approx(composed, rel=1e-12)
    assert pipe.privacy_.mu <= planned.mu and pipe.privacy_.epsilon <= 0.5
    # the same charge as without either release: they come out of the estimator's share
    plain = _ridge_pipe(y_bound, epsilon=0.5, mean_correction=False).plan_privacy(len(X), X=X)
    assert planned.mu == plain.mu


@pytest.mark.parametrize("constant_check", [True, False])
def test_the_three_plans_never_exceed_the_estimator_allowance_in_floats(constant_check):
    # every public n (2 rows to 10^9) and budget (epsilon 1e-3 to 1e3): the sum of squares
    # of what the fit, the correction and the check may spend is at most mu_est^2, exactly
    # in floating point (no tolerance: the ledger was charged mu_est)
    from skdpgd.pipeline._budget import split_budget
    from skdpgd.pipeline._mean_correction import post_fit_plans

    for n in (2, 3, 10, 999, 10 ** 6, 10 ** 9):
        for epsilon in (1e-3, 0.01, 0.1, 1.0, 10.0, 1e3):
            budget = split_budget(epsilon, 1e-5, [False])
            correction, check, fit_mu = post_fit_plans(DPRidge(y_bound=1.0), budget, n,
                                                       constant_check=constant_check)
            parts = [fit_mu, correction.release_mu] + ([check.check_mu] if check else [])
            assert math.fsum(m * m for m in parts) <= budget.estimator_mu ** 2
            assert (check is not None) is constant_check


def test_switched_off_the_planned_line_reads_as_before():
    # mean_correction=False: the check's share is of the estimator's whole mu^2 and the
    # planned report says so, as it did before the correction existed; with it, the
    # check's share is of what the correction left
    X, _ = _table(n=500)
    off = _steps(_ridge_pipe(constant_check=True, mean_correction=False).plan_privacy(
        500, X=X))["dpridge"].mechanism
    on = _steps(_ridge_pipe(constant_check=True).plan_privacy(500, X=X))["dpridge"].mechanism
    assert "of mu^2 to the check" in off and "mean correction" not in off
    assert "of what is left to the check" in on and "mean correction within" in on


def test_a_check_that_replaces_the_model_leaves_its_constant_not_the_shift():
    # y independent of X at a small budget: the check keeps a model no better than the
    # constant with probability at most 0.05, so with seed 0 it is replaced; the intercept
    # is then the check's constant, whatever the correction shifted before it
    rng = np.random.default_rng(3)
    X, y = rng.uniform(-1, 1, size=(300, 3)), rng.uniform(-1, 1, 300)
    pipe = _ridge_pipe(epsilon=0.2, constant_check=True).fit(X, y)
    assert hasattr(pipe, "mean_correction_") and not pipe.constant_check_.kept_model
    model = pipe.pipeline_[-1]
    assert np.all(model.coef_ == 0.0) and model.intercept_ == pipe.constant_check_.constant


# -- the residual sum's sensitivity through a real fitted DPRidge ----------------------------

class _NoNoise:
    def normal(self, loc, scale, size=None):
        return 0.0


def _exact_sum(estimator, X, y, monkeypatch):
    """T itself (the release with its noise removed; T/n is inside the clip [-2B, 2B])."""
    plan = MeanCorrectionPlan(share=0.5, fit_mu=1.0, release_mu=1.0)
    monkeypatch.setattr(mean_correction_module, "make_generator", lambda _: _NoNoise())
    model = clone(estimator)
    model.__dict__.update(estimator.__dict__)  # the fitted state, not refitted
    correction, _ = mean_correction_module.run_mean_correction(model, X, y, plan, 0)
    return correction.noisy_mean_residual * len(y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_adversarial_row_moves_the_residual_sum_by_at_most_4b(dtype, monkeypatch):
    # a real DPRidge fitted on a table without scaling (predictions far outside [-B, B]
    # for large rows are possible), then every replacement of the first row by rows an
    # adversary writes: huge or zero x, y far outside the range, exactly at it, inside
    bound = 2.0
    X, y = _table(n=50)
    model = DPRidge(y_bound=bound, epsilon=50.0, delta=1e-5, random_state=0).fit(X * 3, y * 4)
    big = float(np.finfo(dtype).max) / 4
    rows = [np.zeros(3), np.full(3, big), np.array([big, -big, big]), np.array([-big, 0, 0]),
            np.array([1.0, -1.0, 0.5]), np.array([1e-300, 0, 0])]
    targets = [-1e300, -bound, -bound / 2, 0.0, bound, 1e300]
    base_X, base_y = (X * 3).astype(dtype), y * 4
    totals = []
    for row in rows:
        for target in targets:
            X1, y1 = base_X.copy(), base_y.copy()
            X1[0], y1[0] = row, target
            total = _exact_sum(model, X1, y1, monkeypatch)
            assert math.isfinite(total)
            totals.append(total)
    assert max(totals) - min(totals) <= 4.0 * bound * (1 + 1e-12)
    # and the width is reached (the bound is tight on these rows, not loose)
    assert max(totals) - min(totals) >= 3.0 * bound


class _Exact:
    """A fitted model whose predictions are the targets: every residual is 0 (T = 0)."""

    def __init__(self, y):
        self.y, self.intercept_ = y, 0.0

    def predict(self, X):
        return self.y

    def _public_target_bound(self):
        return 1.0


def test_on_a_zero_mean_residual_the_noise_threshold_and_cost_are_the_documented_ones():
    # 8,000 releases on rows whose mean residual is exactly 0: the released mean's sd is
    # 4B/(n mu_m) (relative standard error 1/sqrt(2 * 8000) = 0.8%; 4% allowed), the
    # shift is nonzero with probability a = 0.05 (Binomial sd 19.5 of 400; 80 allowed) and
    # E[shift^2] / sd^2 = 2[(1 + z^2) Phi(-z) - z phi(z)] = 0.01297 (docs/theory.md; the
    # draws' standard error 0.1205 / sqrt(8000) = 0.00135, 4 of them allowed), far from the
    # 0.28 of a shift applied in full past the threshold
    n, mu_m, draws = 50, 0.7, 8000
    y = np.linspace(-0.9, 0.9, n)
    plan = MeanCorrectionPlan(share=0.5, fit_mu=1.0, release_mu=mu_m)
    rng = np.random.default_rng(0)
    released, shifts = np.empty(draws), np.empty(draws)
    for i in range(draws):
        c, _ = mean_correction_module.run_mean_correction(_Exact(y), None, y, plan, rng)
        released[i], shifts[i] = c.noisy_mean_residual, c.shift
    sd = 4.0 / (n * mu_m)
    assert c.noise_std == pytest.approx(sd, rel=1e-12)
    assert released.std() == pytest.approx(sd, rel=0.04)
    assert abs(np.count_nonzero(shifts) - 0.05 * draws) <= 80
    cost = 2.0 * ((1.0 + Z * Z) * norm.sf(Z) - Z * norm.pdf(Z))
    assert cost == pytest.approx(0.01297, abs=1e-5)
    assert np.mean(shifts ** 2) / sd ** 2 == pytest.approx(cost, abs=4 * 0.00135)


# -- whole fits on tables an adversary writes --------------------------------------------------

def _adversarial_tables():
    X, y = _table(n=300)
    huge = X.copy()
    huge[0] = [1e300, -1e300, 1e300]
    far = y.copy()
    far[:3] = [1e300, -1e300, 1e12]
    return {
        "huge x": (huge, y),
        "y far outside": (X, far),
        "y at the bounds": (X, np.where(y >= 0, 1.0, -1.0)),
        "constant y": (X, np.full(len(y), 0.7)),
        "equal predictions": (np.zeros_like(X), y),
        "float32 X": (X.astype(np.float32), y),
        "two rows": (X[:2], y[:2]),
        "three rows": (X[:3], y[:3]),
    }


@pytest.mark.parametrize("name", list(_adversarial_tables()))
@pytest.mark.parametrize("y_bound", [1.0, "auto"])
def test_adversarial_tables_release_only_accounted_finite_numbers(name, y_bound):
    X, y = _adversarial_tables()[name]
    ledger = PrivacyLedger()
    pipe = _ridge_pipe(y_bound, scaler=False, ledger=ledger)
    planned = pipe.plan_privacy(len(X), X=X)
    pipe.fit(X, y)
    assert len(ledger.entries) == 1 and ledger.entries[0].event.mu == pytest.approx(planned.mu)
    assert pipe.privacy_.mu <= planned.mu
    _assert_released_numbers_are_consistent(pipe, len(X), bound=1.0)
    assert np.all(np.isfinite(pipe.predict(X)))
    assert np.isfinite(pipe.pipeline_[-1].intercept_)


def test_sparse_rows_take_the_correction_like_dense_ones():
    # CSR X through a scaler that keeps it sparse (public lows at 0): the release reads the
    # same rows and predictions, so dense and sparse give the same fit and correction
    X, y = _table(n=400)
    X = np.abs(X)
    X[X < 0.3] = 0.0
    dense = make_dp_pipeline(BoundedScaler((0, 1)), DPRidge(y_bound=1.0), epsilon=1.0,
                             delta=1e-5, random_state=0).fit(X, y)
    sparse = make_dp_pipeline(BoundedScaler((0, 1)), DPRidge(y_bound=1.0), epsilon=1.0,
                              delta=1e-5, random_state=0).fit(sp.csr_matrix(X), y)
    _assert_released_numbers_are_consistent(sparse, len(X), bound=1.0)
    assert sparse.mean_correction_.noisy_mean_residual == pytest.approx(
        dense.mean_correction_.noisy_mean_residual, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X),
                               rtol=1e-9, atol=1e-12)


def test_the_shift_is_what_moved_the_intercept():
    # a fitted DPRidge in the fit's scale: the correction adds exactly its shift to the
    # intercept and changes no coefficient
    X, y = _table(n=800)
    model = DPRidge(y_bound=1.0, epsilon=4.0, delta=1e-5, random_state=0).fit(X, y)
    before, coef = float(model.intercept_), np.array(model.coef_)
    plan = MeanCorrectionPlan(share=0.25, fit_mu=1.0, release_mu=0.8)
    c, report = mean_correction_module.run_mean_correction(model, X, y, plan, 1)
    assert float(model.intercept_) == before + c.shift and np.array_equal(model.coef_, coef)
    assert c.applied  # the seed draws a shift: every prediction moves by exactly it
    shifted = model.predict(X)
    model.intercept_ = before
    np.testing.assert_allclose(shifted - model.predict(X), c.shift, rtol=0, atol=1e-12)
    assert report.mu == 0.8 and c.noise_std == pytest.approx(4.0 / (len(y) * 0.8))


# -- the option: public refusal before the charge, clone, prepare, search, pickle ----------------

@pytest.mark.parametrize("value", ["yes", 2, None])
def test_an_invalid_mean_correction_is_refused_before_the_charge(value):
    X, y = _table(n=100)
    ledger = PrivacyLedger()
    with pytest.raises((ValueError, TypeError)):
        _ridge_pipe(ledger=ledger, mean_correction=value).fit(X, y)
    assert ledger.entries == [] or len(ledger.entries) == 0


def test_where_it_does_not_apply_the_option_changes_nothing_to_the_bit():
    X, y = _table(n=400)
    labels = (X[:, 0] > 0).astype(int)
    for make, target in [
        (lambda **kw: make_dp_pipeline(BoundedScaler((-1, 1)),
                                       DPLogisticRegression(classes=[0, 1]), epsilon=1.0,
                                       delta=1e-5, random_state=0, **kw), labels),
        (lambda **kw: make_dp_pipeline(BoundedScaler((-1, 1)),
                                       DPRidge(y_bound=1.0, fit_intercept=False),
                                       epsilon=1.0, delta=1e-5, random_state=0, **kw), y),
    ]:
        on, off = make(mean_correction=True).fit(X, target), make(mean_correction=False).fit(
            X, target)
        assert not hasattr(on, "mean_correction_")
        assert np.array_equal(on.predict(X), off.predict(X))
        assert on.privacy_.mu == off.privacy_.mu and repr(on.privacy_) == repr(off.privacy_)


@pytest.mark.parametrize("final", [DPRidge(y_bound="auto"), DPRidge(y_bound=1.0),
                                   DPLogisticRegression(classes=[0, 1])])
def test_a_target_of_two_columns_is_refused_before_the_charge(final):
    # the shape is public: the estimators refuse it, and so must the pipeline, before its
    # ledger is charged (with y_bound="auto" the range was released on the 2n values first)
    X, _ = _table(n=100)
    Y = (np.random.default_rng(0).normal(size=(100, 2)) > 0).astype(int)
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), final, epsilon=1.0, delta=1e-5,
                            ledger=ledger, random_state=0)
    with pytest.raises(ValueError, match="single target"):
        pipe.fit(X, Y)
    assert len(ledger.entries) == 0
    pipe.fit(X, Y[:, :1])  # one column is one target per row
    assert len(ledger.entries) == 1


def test_clone_params_and_a_refit_without_it():
    X, y = _table(n=400)
    pipe = _ridge_pipe(mean_correction=False)
    assert clone(pipe).get_params()["mean_correction"] is False
    twin = clone(pipe).set_params(mean_correction=True)
    assert twin.get_params(deep=False)["mean_correction"] is True
    twin.fit(X, y)
    assert hasattr(twin, "mean_correction_")
    twin.set_params(mean_correction=False).fit(X, y)  # a refit drops the stale release
    assert not hasattr(twin, "mean_correction_")
    assert MEAN_CORRECTION not in _steps(twin.privacy_)


def test_a_fitted_pipeline_pickles_with_its_correction():
    X, y = _table(n=400)
    pipe = _ridge_pipe(y_bound="auto").fit(X, y)
    back = pickle.loads(pickle.dumps(pipe))
    assert back.mean_correction_ == pipe.mean_correction_
    assert np.array_equal(back.predict(X), pipe.predict(X))
    assert repr(back.privacy_) == repr(pipe.privacy_)
    # the fitted estimator keeps no seed (whoever held it could regenerate the noise)
    assert back.pipeline_[-1].random_state is None


def test_a_prepared_pipeline_keeps_the_option_and_is_charged_as_planned():
    pd = pytest.importorskip("pandas")
    from skdpgd.preprocessing import DPTableVectorizer

    X, y = _table(n=1000)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": np.where(X[:, 2] > 0, "u", "v")})
    for option in (True, False):
        ledger = PrivacyLedger()
        pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"), epsilon=1.0,
                                delta=1e-5, random_state=0, mean_correction=option)
        prepared = pipe.prepare(frame, y, ledger=ledger)
        assert prepared.get_params(deep=False)["mean_correction"] is option
        planned = prepared.plan_privacy(len(frame), X=frame)
        fitted = prepared.fit(frame, y)
        assert ledger.entries[-1].event.mu == pytest.approx(planned.mu, rel=1e-12)
        assert (MEAN_CORRECTION in _steps(fitted.privacy_)) is option
        assert fitted.privacy_.mu <= planned.mu
        if option:
            _assert_released_numbers_are_consistent(fitted, len(frame), bound=1.0)


def test_a_search_over_the_option_is_charged_once_within_its_budget():
    # random trials (every candidate once does not search at this size: no share resolves
    # the reference), each a pipeline fit within the trial's mu, the refit too
    from skdpgd.model_selection import DPSearchCV

    X, y = _table(n=2000)
    ledger = PrivacyLedger()
    search = DPSearchCV(_ridge_pipe(random_state=None),
                        {"mean_correction": [True, False], "dpridge__alpha": [0.1, 1.0]},
                        epsilon=4.0, delta=1e-5, expected_trials=3, refit=True,
                        ledger=ledger, random_state=0).fit(X, y)
    assert len(ledger.entries) == 1 and search.privacy_.epsilon <= 4.0 * (1 + 1e-12)
    best = search.best_estimator_
    assert best.privacy_.mu <= search.privacy_.trial_mu * (1 + 1e-12)
    if best.get_params(deep=False)["mean_correction"] is not False:
        _assert_released_numbers_are_consistent(best, len(X), bound=1.0)
    else:
        assert not hasattr(best, "mean_correction_")


def test_the_cli_ridge_fit_carries_the_correction(tmp_path):
    pytest.importorskip("pandas")
    import joblib

    from skdpgd._cli import main

    X, y = _table(n=400)
    path, out = tmp_path / "r.csv", tmp_path / "r.joblib"
    path.write_text("a,b,c,y\n" + "".join(f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{t:.4f}\n"
                                          for r, t in zip(X, y, strict=True)))
    assert main(["fit", str(path), "--target", "y", "--model", "ridge", "--epsilon", "1",
                 "--numeric", "a,b,c", "--random-state", "0", "--output", str(out)]) == 0
    bundle = joblib.load(out)
    fitted = bundle["dp_pipeline"]
    assert MEAN_CORRECTION in _steps(fitted.privacy_)
    assert fitted.privacy_.epsilon <= 1.0 and bundle["privacy"]["epsilon"] <= 1.0
    _assert_released_numbers_are_consistent(fitted, 400, bound=1.0)


# -- the classifier check's projection: its premise and the paths that must not reach it ---------

def _labels(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    return X, (X[:, 0] + rng.normal(0, 0.5, n) > 0).astype(int)


@pytest.mark.parametrize("classes, convert", [
    ([0, 1], lambda y: y),
    ([0, 1], lambda y: y.astype(float)),  # 0.0 and 1.0 are the labels 0 and 1
    ([0, 1], lambda y: y.astype(bool)),
    (["no", "yes"], lambda y: np.array(["no", "yes"], dtype=object)[y]),
    ([0, 1, 2], lambda y: y),  # a label of the public set no row holds: its count is 0
    ([1, 0, 0], lambda y: y),  # a label listed twice is one class: K = 2
])
def test_the_projected_counts_sum_to_n_for_every_label_typing(classes, convert):
    X, y = _labels()
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), DPLogisticRegression(classes=classes),
                            epsilon=0.5, delta=1e-5, random_state=0).fit(X, convert(y))
    counts, n_classes = pipe.constant_check_.noisy_counts, len(set(classes))
    assert counts.shape == (n_classes,) and pipe.classes_.size == n_classes
    assert math.fsum(counts.tolist()) == pytest.approx(len(y), abs=1e-9)
    assert pipe.constant_check_.constant == pipe.classes_[int(np.argmax(counts))]
    # the margin uses the public K: z_{0.95} sqrt(3 (2 - 1/K)) / mu_c
    mu_c = _steps(pipe.privacy_)[CONSTANT_CHECK].mu
    k = math.sqrt(3.0 * (2.0 - 1.0 / n_classes))
    assert pipe.constant_check_.margin == pytest.approx(norm.isf(LEVEL) * k / mu_c, rel=1e-9)


@pytest.mark.parametrize("classes, match", [
    ([0], "at least 2 classes"), ([1, 1], "at least 2 classes"),
    ([0, None], "missing label"), ([0.0, float("nan")], "missing label")])
def test_a_public_label_set_the_fit_refuses_is_refused_before_the_charge(classes, match):
    # the parameters alone decide it: the pipeline refuses before its ledger is charged
    # (the fit refused it after the charge, and plan_privacy priced a check of K = 1)
    X, y = _labels(n=100)
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), DPLogisticRegression(classes=classes),
                            epsilon=1.0, delta=1e-5, ledger=ledger, random_state=0)
    with pytest.raises(ValueError, match=match):
        pipe.fit(X, np.zeros_like(y))
    assert len(ledger.entries) == 0


def test_a_label_outside_the_set_is_refused_by_the_fit_before_the_check():
    X, y = _labels(n=200)
    y = y.copy()
    y[0] = 2
    with pytest.raises(ValueError, match="classes=") as error:
        make_dp_pipeline(BoundedScaler((-1, 1)), DPLogisticRegression(classes=[0, 1]),
                         epsilon=1.0, delta=1e-5, random_state=0).fit(X, y)
    assert "public label set." not in str(error.value).split("classes=")[0]


@pytest.mark.parametrize("constant_check", ["auto", True])
@pytest.mark.parametrize("final", [
    DPLogisticRegression(classes=[0, 1], class_weight="balanced"),
    DPLogisticRegression(classes=[0, 1], class_weight={0: 1.0, 1: 2.0}),
    DPLogisticRegression(),  # the label set released privately: no public set, no check
    DPLogisticRegression(classes="private"),
])
def test_weighted_or_released_label_sets_never_reach_the_check(final, constant_check):
    # the projection needs every row counted once, unweighted, over a public label set:
    # where the objective weighs classes or the set is released, no check runs (True too)
    X, y = _labels(n=800)
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), final, epsilon=1.0, delta=1e-5,
                            random_state=0, constant_check=constant_check).fit(X, y)
    assert not hasattr(pipe, "constant_check_")
    assert CONSTANT_CHECK not in _steps(pipe.privacy_)


@pytest.mark.parametrize("final", [DPLogisticRegression(classes=[0, 1]), DPRidge(y_bound=1.0)])
def test_sample_weights_never_reach_the_post_fit_releases(final):
    # both releases count every row once: a weighted fit is refused, before the charge
    X, y = _labels(n=100)
    ledger = PrivacyLedger()
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), final, epsilon=1.0, delta=1e-5,
                            ledger=ledger, random_state=0)
    with pytest.raises((TypeError, ValueError), match="sample_weight"):
        pipe.fit(X, y, sample_weight=np.ones(len(y)))
    assert len(ledger.entries) == 0
