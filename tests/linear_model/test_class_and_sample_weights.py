"""class_weight and sample_weight with a public bound W (docs/theory.md#weights).

The weighted objective is (1/n) sum_i w_i l(theta; x_i, y_i) + lam/2 ||theta||^2 with
w_i in [0, W]; the gradient bound, the replace-one sensitivity and the smoothness are W
times the unweighted ones, the noisy Gram of the preconditioned solver is unweighted.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.estimator_checks import (
    check_class_weight_classifiers,
    check_sample_weights_list,
    check_sample_weights_not_an_array,
    check_sample_weights_pandas_series,
    check_sample_weights_shape,
)

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd.linear_model._weights import class_weight_from_counts
from skdpgd.losses import (
    BinaryLogisticLoss,
    HuberLoss,
    MultinomialLogisticLoss,
    SquaredLoss,
    WeightedLoss,
)


def _coef_shape(loss, n_features):
    """theta's shape for a loss: (d,) for one output, (K, d) for K."""
    return (n_features,) if loss.n_outputs == 1 else (loss.n_outputs, n_features)

SOLVERS = ["gd", "cyclic", "sgd", "preconditioned"]


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2  # some rows above data_norm=1: clipping matters
    y = X @ np.array([1.0, -1.0, 0.5])[:d] + 0.3 * rng.standard_normal(n)
    return X, y


def _clipped(X, R=1.0):
    norms = np.linalg.norm(X, axis=1)
    return X * np.minimum(1.0, R / norms)[:, None]


# -- the loss: constants and the exact worst case -----------------------------------

LOSSES = [
    BinaryLogisticLoss(), BinaryLogisticLoss(0.5), MultinomialLogisticLoss(3),
    HuberLoss(0.7), SquaredLoss(),
]


def _constants(loss, row_norm):
    kwargs = {"y_bound": 1.0, "radius": 2.0} if isinstance(loss, SquaredLoss) else {}
    return (loss.gradient_bound(row_norm, **kwargs), loss.smoothness(row_norm),
            loss.sensitivity(row_norm, **kwargs)), kwargs


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_weighted_constants_are_W_times_the_unweighted_ones(loss):
    W, Rt = 3.5, 1.3
    (L, beta, S), kwargs = _constants(loss, Rt)
    weighted = WeightedLoss(loss, W)
    assert weighted.gradient_bound(Rt, **kwargs) == W * L
    assert weighted.smoothness(Rt) == W * beta
    assert weighted.sensitivity(Rt, **kwargs) == W * S  # S >= L for every loss here
    assert weighted.n_outputs == loss.n_outputs


def _one_row_gradient(loss, coef, x, y, w):
    weighted = WeightedLoss(loss, 10.0)
    return weighted.gradient_sum(coef, x[None, :], WeightedLoss.pack([y], [w]))


@pytest.mark.parametrize("W", [0.25, 1.0, 4.0])
def test_the_sensitivity_is_attained_exactly_by_a_neighbouring_pair_huber(W):
    """Two data sets that differ in one record: x with residual above c and below -c,
    both at weight W. Their weighted gradient sums differ by 2 W c ||x|| = W S."""
    c, Rt = 0.7, 1.3
    loss = HuberLoss(c)
    rng = np.random.default_rng(1)
    x = rng.normal(size=4)
    x *= Rt / np.linalg.norm(x)
    coef = rng.normal(size=4)
    others = rng.normal(size=(5, 4)) / 4
    y_others, w_others = rng.normal(size=5), rng.uniform(0, W, size=5)
    t = float(x @ coef)
    D = np.vstack([others, x]), np.append(y_others, t - 10), np.append(w_others, W)
    D2 = np.vstack([others, x]), np.append(y_others, t + 10), np.append(w_others, W)
    weighted = WeightedLoss(loss, W)
    g = weighted.gradient_sum(coef, D[0], WeightedLoss.pack(D[1], D[2]))
    g2 = weighted.gradient_sum(coef, D2[0], WeightedLoss.pack(D2[1], D2[2]))
    # residuals +10 and -10 clip to +c and -c: the difference is 2 c W x, exactly
    np.testing.assert_allclose(g - g2, 2 * c * W * x, rtol=1e-12)
    assert np.linalg.norm(g - g2) == pytest.approx(weighted.sensitivity(Rt), rel=1e-12)
    assert weighted.sensitivity(Rt) == pytest.approx(2 * c * W * Rt, rel=1e-15)


def test_the_sensitivity_is_attained_exactly_by_a_neighbouring_pair_clipped_logistic():
    """Residual clip c = 1/2: labels 0 and 1 on the same row on the decision boundary
    (theta . x = 0) give residuals sigma(0) - 0 = +c and sigma(0) - 1 = -c, so the
    weighted gradients differ by 2 c W ||x||: the bound is attained."""
    c, W, Rt = 0.5, 3.0, 1.1
    loss = BinaryLogisticLoss(c)
    x = np.array([0.6, -0.8, 0.0]) * Rt
    coef = np.array([0.8, 0.6, 5.0])  # orthogonal to x: theta . x = 0
    g0 = _one_row_gradient(loss, coef, x, 0.0, W)
    g1 = _one_row_gradient(loss, coef, x, 1.0, W)
    np.testing.assert_allclose(g0 - g1, 2 * c * W * x, rtol=1e-12)
    assert np.linalg.norm(g0 - g1) == pytest.approx(
        WeightedLoss(loss, W).sensitivity(Rt), rel=1e-12
    )


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_no_pair_of_weighted_records_exceeds_the_sensitivity(loss):
    """Random and corner records (weights 0 and W included): never above W S."""
    W, Rt, d = 2.5, 1.0, 4
    weighted = WeightedLoss(loss, W)
    (_, _, S), kwargs = _constants(loss, Rt)
    rng = np.random.default_rng(2)
    shape = _coef_shape(loss, d)
    worst = 0.0
    for _ in range(300):
        coef = rng.normal(size=shape) * rng.choice([0.1, 1.0, 30.0])
        if isinstance(loss, SquaredLoss):
            coef *= min(1.0, 2.0 / np.linalg.norm(coef))  # its constants hold on ||theta|| <= r
        rows = rng.normal(size=(2, d))
        rows *= (Rt * rng.uniform(0.5, 1.0, size=(2, 1))) / np.linalg.norm(rows, axis=1)[:, None]
        if isinstance(loss, MultinomialLogisticLoss):
            ys = rng.integers(0, 3, size=2)
        elif isinstance(loss, BinaryLogisticLoss):
            ys = rng.integers(0, 2, size=2)
        else:
            ys = rng.uniform(-1, 1, size=2)
        ws = rng.choice([0.0, W, rng.uniform(0, W)], size=2)
        g = [weighted.gradient_sum(coef, rows[i:i + 1], WeightedLoss.pack(ys[i:i + 1], ws[i:i + 1]))
             for i in range(2)]
        worst = max(worst, np.linalg.norm(g[0] - g[1]))
    assert worst <= weighted.sensitivity(Rt, **kwargs) * (1 + 1e-12)
    assert weighted.sensitivity(Rt, **kwargs) == pytest.approx(W * S)


# -- the estimators: reports from public numbers -------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_the_reports_sensitivity_is_W_times_the_unweighted_one(solver):
    X, y = _data()
    labels = (y > 0).astype(int)
    # 5 passes (and one sampling rate for sgd): the constants do not depend on them,
    # and the plans and fits stay quick
    common = dict(epsilon=1.0, classes=[0, 1], solver=solver, random_state=0, max_iter=5, C=1.0)
    if solver == "sgd":
        common["batch_size"] = 100
    plain = DPLogisticRegression(**common).fit(X, labels).privacy_
    weighted = DPLogisticRegression(max_sample_weight=2.0, **common).fit(
        X, labels, sample_weight=np.full(len(y), 1.5)
    ).privacy_
    by_class = DPLogisticRegression(class_weight={0: 1.0, 1: 3.0}, **common).fit(
        X, labels
    ).privacy_
    both = DPLogisticRegression(class_weight={0: 1.0, 1: 3.0}, max_sample_weight=2.0,
                                **common).fit(X, labels).privacy_
    for report, W in ((weighted, 2.0), (by_class, 3.0), (both, 6.0)):
        assert report.sensitivity == pytest.approx(W * plain.sensitivity, rel=1e-15)
        assert report.epsilon <= 1.0 + 1e-9
        assert any("weighted objective" in note for note in report.notes)
    if solver == "preconditioned":  # the Gram is unweighted: its sensitivity is unchanged
        assert weighted.gram_sensitivity == plain.gram_sensitivity
    if solver in ("gd", "cyclic"):  # smoothness of the objective: W beta_l + lam
        beta_l = plain.smoothness - plain.strong_convexity
        assert weighted.smoothness == pytest.approx(
            2.0 * beta_l + weighted.strong_convexity, rel=1e-12
        )


def test_ridge_report_and_plan_privacy_use_the_bound_only():
    X, y = _data()
    plain = DPRidge(y_bound=1.0, random_state=0).fit(X, y).privacy_
    est = DPRidge(y_bound=1.0, max_sample_weight=4.0, random_state=0)
    fitted = est.fit(X, y, sample_weight=np.ones(len(y))).privacy_
    assert fitted.sensitivity == pytest.approx(4.0 * plain.sensitivity, rel=1e-15)
    planned = est.plan_privacy(*X.shape)
    assert (planned.mu, planned.sensitivity) == (fitted.mu, fitted.sensitivity)
    if planned.accountant != "gram_then_run":  # else the run is chosen on the released Gram
        assert planned.noise_std == fitted.noise_std
    # the plan does not depend on whether, or which, weights are passed
    other = DPRidge(y_bound=1.0, max_sample_weight=4.0, random_state=0).fit(X, y).privacy_
    assert (other.mu, other.noise_std) == (fitted.mu, fitted.noise_std)


def test_class_weight_bound_uses_the_public_label_set():
    X, y = _data()
    labels = (y > 0).astype(int)
    base = DPLogisticRegression(classes=[0, 1], random_state=0).plan_privacy(*X.shape)
    # both labels listed: W_c = 0.5, the noise halves with the sensitivity
    half = DPLogisticRegression(classes=[0, 1], class_weight={0: 0.5, 1: 0.5}).plan_privacy(
        *X.shape
    )
    assert half.sensitivity == pytest.approx(0.5 * base.sensitivity)
    # without the label set a missing label (weight 1) must be assumed: W_c = max(1, 0.5)
    unknown = DPLogisticRegression(class_weight={0: 0.5, 1: 0.5}).plan_privacy(
        *X.shape, n_classes=2
    )
    assert unknown.sensitivity == pytest.approx(base.sensitivity)
    fitted = DPLogisticRegression(class_weight={0: 0.5, 1: 0.5}, random_state=0).fit(X, labels)
    assert fitted.privacy_.sensitivity == pytest.approx(base.sensitivity)


# -- the weighted objective at epsilon=inf equals scikit-learn's ---------------------

def test_weighted_logistic_at_epsilon_inf_equals_scikit_learn():
    """Same objective: (1/n) sum w_i l_i + ||theta||^2/(2 C n) on the clipped rows with
    the intercept column b appended (regularised), i.e. scikit-learn's
    C sum w_i l_i + ||theta||^2 / 2 on [clip(X), b] without its own intercept."""
    X, y = _data()
    labels = (y > 0).astype(int)
    w = np.random.default_rng(3).uniform(0, 3, size=len(y))
    model = DPLogisticRegression(
        epsilon=np.inf, C=1.0, residual_clip=1, intercept_scaling=0.5, max_sample_weight=3.0,
        solver="gd",
    ).fit(X, labels, sample_weight=w)
    Xa = np.hstack([_clipped(X), np.full((len(y), 1), 0.5)])
    ref = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(
        Xa, labels, sample_weight=w
    )
    # 1000 full-batch steps at epsilon=inf converge to ~1e-9 here (measured)
    np.testing.assert_allclose(model.coef_.ravel(), ref.coef_.ravel()[:-1], rtol=1e-6)
    np.testing.assert_allclose(model.intercept_, ref.coef_.ravel()[-1:] * 0.5, rtol=1e-6)


def test_weighted_multinomial_at_epsilon_inf_equals_scikit_learn():
    X, y = _data()
    labels = np.digitize(y, [-0.3, 0.3])
    w = np.random.default_rng(4).uniform(0, 2, size=len(y))
    model = DPLogisticRegression(
        epsilon=np.inf, C=0.5, fit_intercept=False, max_sample_weight=2.0, solver="gd",
    ).fit(X, labels, sample_weight=w)
    ref = LogisticRegression(C=0.5, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(
        _clipped(X), labels, sample_weight=w
    )
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("solver", ["gd", "preconditioned"])
def test_weighted_ridge_at_epsilon_inf_equals_scikit_learn(solver):
    """Huber with a threshold above every residual is the squared loss: the objective
    (1/(2n)) (sum w_i r_i^2 + alpha ||theta||^2) is scikit-learn's Ridge with the same
    sample_weight on [clip(X), b]."""
    X, y = _data()
    w = np.random.default_rng(5).uniform(0, 3, size=len(y))
    model = DPRidge(
        epsilon=np.inf, alpha=2.0, y_bound=10.0, residual_clip=1e6, intercept_scaling=1.0,
        max_sample_weight=3.0, solver=solver,
    ).fit(X, y, sample_weight=w)
    Xa = np.hstack([_clipped(X), np.ones((len(y), 1))])
    ref = Ridge(alpha=2.0, fit_intercept=False, solver="cholesky").fit(Xa, y, sample_weight=w)
    # gd: 1000 steps reach ~1e-9; preconditioned stops on convergence (~1e-7 measured)
    np.testing.assert_allclose(model.coef_, ref.coef_[:-1], rtol=1e-5)
    assert model.intercept_ == pytest.approx(ref.coef_[-1], rel=1e-5)


def test_sparse_and_float32_weighted_fits_agree_with_dense():
    X, y = _data()
    w = np.random.default_rng(6).uniform(0, 2, size=len(y))
    def make():
        return DPRidge(epsilon=1.0, y_bound=2.0, max_sample_weight=2.0, random_state=0,
                               solver="gd")
    dense = make().fit(X, y, sample_weight=w)
    sparse = make().fit(sp.csr_matrix(X), y, sample_weight=w)
    single = make().fit(X.astype(np.float32), y, sample_weight=w)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10)
    np.testing.assert_allclose(single.coef_, dense.coef_, rtol=1e-4)  # float32 rows


# -- class_weight is sample_weight by label -----------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_class_weight_dict_equals_the_same_sample_weight(solver):
    X, y = _data()
    labels = (y > 0).astype(int)
    common = dict(epsilon=1.0, classes=[0, 1], random_state=0, solver=solver)
    if solver == "sgd":
        common["batch_size"] = 100  # one sampling rate: a quick plan
    by_class = DPLogisticRegression(class_weight={0: 1.0, 1: 3.0}, **common).fit(X, labels)
    by_row = DPLogisticRegression(max_sample_weight=3.0, **common).fit(
        X, labels, sample_weight=np.where(labels == 1, 3.0, 1.0)
    )
    assert by_class.privacy_.epsilon == by_row.privacy_.epsilon
    assert by_class.privacy_.noise_std == by_row.privacy_.noise_std
    np.testing.assert_allclose(by_class.coef_, by_row.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(by_class.intercept_, by_row.intercept_, rtol=1e-12, atol=1e-15)


def test_class_weight_and_sample_weight_multiply():
    X, y = _data()
    labels = (y > 0).astype(int)
    s = np.random.default_rng(7).uniform(0, 2, size=len(y))
    common = dict(epsilon=1.0, classes=[0, 1], random_state=0, solver="gd")
    both = DPLogisticRegression(class_weight={1: 3.0}, max_sample_weight=2.0, **common).fit(
        X, labels, sample_weight=s
    )
    by_row = DPLogisticRegression(max_sample_weight=6.0, **common).fit(
        X, labels, sample_weight=s * np.where(labels == 1, 3.0, 1.0)
    )
    np.testing.assert_allclose(both.coef_, by_row.coef_, rtol=1e-12, atol=1e-15)


def test_class_weight_check_of_scikit_learn_passes_without_noise():
    """check_class_weight_classifiers (weights 1000 vs 0.0001) at epsilon=inf; at the
    default epsilon the weight 1000 multiplies the noise by 1000 (expected failure in
    test_sklearn_checks.py)."""
    check_class_weight_classifiers("DPLogisticRegression", DPLogisticRegression(epsilon=np.inf))


# -- the weights are data: clipped silently, NaN refused after the charge -----------

def test_weights_outside_the_bound_are_clipped_to_it():
    X, y = _data()
    rng = np.random.default_rng(8)
    w = rng.uniform(-2, 5, size=len(y))
    w[:5] = [np.inf, -np.inf, 1e308, -1e308, 0.0]
    common = dict(epsilon=1.0, y_bound=2.0, max_sample_weight=2.0, random_state=0)
    raw = DPRidge(**common).fit(X, y, sample_weight=w)
    clipped = DPRidge(**common).fit(X, y, sample_weight=np.clip(np.nan_to_num(w, posinf=2,
                                                                             neginf=0), 0, 2))
    np.testing.assert_array_equal(raw.coef_, clipped.coef_)


class _Ledger:
    """Records charges (the protocol PrivacyLedger implements)."""

    def __init__(self):
        self.charges = 0

    def charge(self, estimator, report, **kwargs):
        self.charges += 1


def test_shape_errors_come_before_the_charge_and_nan_after_it():
    X, y = _data(n=50)
    ledger = _Ledger()
    est = DPRidge(y_bound=1.0, max_sample_weight=2.0, ledger=ledger)
    for bad in (np.ones(49), np.ones((50, 2)), 3.0):
        with pytest.raises(ValueError, match=r"sample_weight must have shape \(50,\)"):
            est.fit(X, y, sample_weight=bad)
    assert ledger.charges == 0
    with pytest.raises(ValueError, match="max_sample_weight is None"):
        DPRidge(y_bound=1.0, ledger=ledger).fit(X, y, sample_weight=np.ones(50))
    assert ledger.charges == 0
    w = np.ones(50)
    w[17] = np.nan
    with pytest.raises(ValueError, match="sample_weight contains NaN") as info:
        est.fit(X, y, sample_weight=w)
    assert ledger.charges == 1  # the refusal depends on the data: it was paid for
    assert "17" not in str(info.value) and "nan" not in str(info.value)
    with pytest.raises(ValueError, match="must be numeric"):
        est.fit(X, y, sample_weight=np.array(["a"] * 50))
    assert ledger.charges == 2
    # every weight clipped to 0: a property of the whole data set, not of one record
    # outside the domain, so it is fitted (the regularised noisy run), never refused
    est.fit(X, y, sample_weight=-np.ones(50))
    assert ledger.charges == 3 and np.all(np.isfinite(est.coef_))


def test_a_real_ledger_records_the_weighted_report():
    X, y = _data(n=100)
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-3)
    est = DPRidge(y_bound=1.0, max_sample_weight=2.0, ledger=ledger, random_state=0)
    est.fit(X, y, sample_weight=np.ones(100))
    assert ledger.spent().mu == pytest.approx(est.privacy_.mu, rel=1e-12)


@pytest.mark.parametrize("class_weight, match", [
    ("balanced", "reads the class counts of the private data.*class_weight_from_counts"),
    ("other", "must be None or a dict"),
    ({0: -1.0}, "finite and >= 0"),
    ({0: np.inf}, "finite and >= 0"),
    ({0: "heavy"}, "must be a number"),
    ({0: 0.0, 1: 0.0}, "every class weight 0"),
    ({2: 1.0}, r"labels \[2\] that are not in classes"),
])
def test_bad_class_weights_are_refused_from_the_parameters(class_weight, match):
    X, y = _data(n=50)
    ledger = _Ledger()
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(classes=[0, 1], class_weight=class_weight, ledger=ledger).fit(
            X, (y > 0).astype(int)
        )
    assert ledger.charges == 0


@pytest.mark.parametrize("bound", [0.0, -1.0, 1e13, np.inf, "big"])
def test_max_sample_weight_is_a_positive_public_number(bound):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="max_sample_weight"):
        DPRidge(y_bound=1.0, max_sample_weight=bound).fit(X, y)


# -- scikit-learn's sample-weight checks on the weighted estimators ------------------

@pytest.mark.parametrize("check", [
    check_sample_weights_pandas_series, check_sample_weights_not_an_array,
    check_sample_weights_list, check_sample_weights_shape,
])
@pytest.mark.parametrize("make", [
    lambda: DPLogisticRegression(max_sample_weight=5.0),
    lambda: DPRidge(y_bound=1.0, max_sample_weight=5.0),
])
def test_scikit_learn_sample_weight_checks(check, make):
    estimator = make()
    check(type(estimator).__name__, estimator)


# -- "balanced" from released counts (the pipeline's hook) --------------------------

def test_class_weight_from_exact_counts_is_scikit_learns_balanced():
    labels = np.array([0] * 70 + [1] * 20 + [2] * 10)
    classes = np.array([0, 1, 2])
    counts = np.bincount(labels)
    ours = class_weight_from_counts(classes, counts, labels.size)
    theirs = compute_class_weight("balanced", classes=classes, y=labels)
    np.testing.assert_allclose([ours[k] for k in classes], theirs, rtol=1e-15)


def test_class_weight_from_noisy_counts_floors_small_counts():
    weights = class_weight_from_counts(["a", "b"], [120.4, -3.0], 100, min_count=5.0)
    assert weights == {"a": pytest.approx(100 / (2 * 120.4)), "b": pytest.approx(100 / 10)}
    assert all(math.isfinite(v) and v > 0 for v in weights.values())


@pytest.mark.parametrize("solver", ["gd", "preconditioned"])
def test_weighted_fit_on_a_dask_array_equals_the_in_memory_fit(solver):
    da = pytest.importorskip("dask.array")
    X, y = _data()
    w = np.random.default_rng(9).uniform(0, 2, size=len(y))
    common = dict(epsilon=1.0, y_bound=2.0, max_sample_weight=2.0, random_state=0, solver=solver)
    local = DPRidge(**common).fit(X, y, sample_weight=w)
    lazy = DPRidge(**common).fit(da.from_array(X, chunks=100), y, sample_weight=w)
    # the same sums block by block: equal to rounding (measured 4e-16)
    np.testing.assert_allclose(lazy.coef_, local.coef_, rtol=1e-12, atol=1e-14)
