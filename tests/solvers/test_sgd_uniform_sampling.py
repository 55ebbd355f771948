"""solver="sgd", sampling="uniform": fixed-size batches from the estimators, end to end.

The report of a uniform run is recomputed here from its public run parameters (sigma, K,
b, eta, M and the diameter of the ball the run projects onto) by two computations written
in this file: composition for sampling without replacement, with dp-accounting's RDP
accountant called directly (Wang, Balle, Kasiviswanathan 2019, Theorem 27) and Balle et
al.'s RDP conversion; and Altschuler-Talwar's eq. (3.3), minimised over every tau in
{0, ..., T-1} (not the package's closed-form minimiser) with the sampled-Gaussian Renyi
divergence written out as its binomial sum. The report's epsilon must be their minimum.
"""

import math

import numpy as np
import pytest
from scipy import special
from sklearn.utils._param_validation import InvalidParameterError

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd.accounting._altschuler_talwar import AT_ORDERS, AT_SPLITS
from skdpgd.losses import BinaryLogisticLoss
from skdpgd.model_selection import DPSearchCV
from skdpgd.optim import noisy_sampled_gradient_descent
from skdpgd.pipeline import make_dp_pipeline

dpa = pytest.importorskip("dp_accounting")

# the package's without-replacement orders (fewer orders only loosen the bound; the same
# grid makes the comparison an equality)
_WOR_ORDERS = [float(a) for a in [*list(range(2, 17)), 20, 24, 32, 48, 64, 96, 128]]


def _data(n=2000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 3.0
    return X, (X @ rng.normal(size=d) > 0).astype(int)


def _balle_epsilon(orders, rdp, delta):
    """Balle et al. (2020) / Canonne-Kamath-Steinke conversion, min over orders, >= 0."""
    orders, rdp = np.asarray(orders, float), np.asarray(rdp, float)
    eps = rdp + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    return max(0.0, float(np.min(eps)))


def _composition_epsilon(sigma, k, *, b, n, lip, delta):
    """K steps of the Gaussian (z = sigma b / 2L) subsampled without replacement, REPLACE_ONE."""
    accountant = dpa.rdp.RdpAccountant(
        orders=_WOR_ORDERS, neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    event = dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(sigma * b / (2 * lip)))
    accountant.compose(event, k)
    return accountant.get_epsilon(delta)


def _sampled_gaussian_renyi(alpha, q, z):
    """D_alpha((1-q) N(0, z^2) + q N(1, z^2) || N(0, z^2)), integer alpha: the binomial sum."""
    k = np.arange(alpha + 1)
    log_terms = (special.gammaln(alpha + 1) - special.gammaln(k + 1)
                 - special.gammaln(alpha - k + 1) + (alpha - k) * math.log1p(-q)
                 + k * math.log(q) + (k * k - k) / (2 * z * z))
    return max(0.0, float(special.logsumexp(log_terms))) / (alpha - 1)


def _altschuler_talwar_epsilon(sigma, t, *, b, n, lip, eta, diameter, delta):
    """eq. (3.3) at every integer order of AT_ORDERS, every split of AT_SPLITS, every tau."""
    m = np.arange(1, t + 1, dtype=float)  # m = T - tau
    rdp = []
    for alpha in AT_ORDERS:
        best = math.inf
        for s in AT_SPLITS:
            sampling = _sampled_gaussian_renyi(int(alpha), b / n, b * sigma * math.sqrt(s) / (2 * lip))
            forgetting = alpha * diameter**2 / (2 * eta**2 * sigma**2 * (1 - s))
            best = min(best, float(np.min(m * sampling + forgetting / m)))
        rdp.append(best)
    return _balle_epsilon(AT_ORDERS, rdp, delta)


# (radius, batch, passes, epsilon): the Altschuler-Talwar bound binds in the first (small
# ball, 10,000 steps past its burn-in of about D n/(L eta) ~ 600), composition in the second
# (a larger ball, fewer steps)
_CASES = [(0.2, 20, 100, 1.0), (2.0, 100, 5, 1.0)]


@pytest.mark.parametrize("radius, batch, passes, epsilon", _CASES)
def test_uniform_report_is_the_minimum_of_both_bounds_computed_independently(
    radius, batch, passes, epsilon
):
    X, y = _data()
    n = len(X)
    est = DPLogisticRegression(
        epsilon=epsilon, C=np.inf, solver="sgd", sampling="uniform", max_coef_norm=radius,
        batch_size=batch, max_iter=passes, classes=[0, 1], random_state=0).fit(X, y)
    report = est.privacy_
    assert report.sampling == "uniform" and report.batch_size == batch == est.batch_size_
    assert report.n_steps == passes * n // batch
    assert report.diameter == 2 * radius  # the ball the run projects onto
    # L = c Rt: the residual |sigma(t) - y| clipped at c times the augmented row norm
    lip = est.residual_clip_ * math.hypot(1.0, est.intercept_scaling_)
    assert report.gradient_bound == pytest.approx(lip, rel=1e-12)
    run = dict(b=batch, n=n, lip=report.gradient_bound, delta=report.delta)
    composition = _composition_epsilon(report.noise_std, report.n_steps, **run)
    at = _altschuler_talwar_epsilon(
        report.noise_std, report.n_steps, eta=report.learning_rate, diameter=2 * radius, **run)
    assert report.learning_rate <= 2.0 / report.smoothness  # the theorem's step condition
    expected = min(composition, at)
    assert report.epsilon == pytest.approx(expected, rel=1e-9)
    assert report.epsilon <= epsilon
    binding = "altschuler_talwar" if at < composition else "composition"
    assert report.binding_bound == binding
    assert dict(report.bound_epsilons) == pytest.approx(
        {"composition": composition, "altschuler_talwar": at}, rel=1e-9)
    assert ("altschuler_talwar" if radius == 0.2 else "composition") == binding
    # calibrated to the minimum: 1% less noise would exceed the target
    lower = dict(run, delta=report.delta)
    sigma = report.noise_std * 0.99
    assert min(_composition_epsilon(sigma, report.n_steps, **lower),
               _altschuler_talwar_epsilon(sigma, report.n_steps, eta=report.learning_rate,
                                          diameter=2 * radius, **lower)) > epsilon
    if binding == "altschuler_talwar":  # composition alone would have needed more noise
        assert composition > epsilon


def test_uniform_run_is_the_documented_loop_and_plan_privacy_matches_the_fit():
    X, y = _data(n=600)
    params = dict(epsilon=2.0, C=np.inf, solver="sgd", sampling="uniform", max_coef_norm=0.5,
                  batch_size=30, max_iter=5, classes=[0, 1], random_state=3)
    est = DPLogisticRegression(**params)
    planned = est.plan_privacy(*X.shape)
    est.fit(X, y)
    report = est.privacy_
    assert planned.epsilon == report.epsilon and planned.noise_std == report.noise_std
    # replay: materialised clipped design with the fit's intercept column, the fit's
    # residual clip, the same generator, the loop with sampling="uniform" and the ball
    norms = np.maximum(np.linalg.norm(X, axis=1), 1e-300)
    design = np.hstack([X * np.minimum(1.0, 1.0 / norms)[:, None],
                        np.full((len(X), 1), est.intercept_scaling_)])
    loss, yf = BinaryLogisticLoss(residual_clip=est.residual_clip_), y.astype(float)
    coef = noisy_sampled_gradient_descent(
        lambda c, rows: loss.gradient_sum(c, design[rows], yf[rows]), np.zeros(X.shape[1] + 1),
        n_samples=len(X), batch_size=30, learning_rate=report.learning_rate,
        noise_std=report.noise_std, n_steps=report.n_steps, rng=np.random.default_rng(3),
        sampling="uniform", max_norm=0.5,
    )
    np.testing.assert_allclose(est.coef_[0], coef[:-1], rtol=0, atol=1e-12)
    assert np.linalg.norm(coef) <= 0.5 + 1e-12  # theta = (coef, intercept / scaling)


def test_ridge_uniform_without_a_radius_reads_the_default_ball():
    X, _y = _data(n=800)
    target = np.tanh(X[:, 0])
    est = DPRidge(epsilon=1.0, alpha=1.0, y_bound=1.0, solver="sgd", sampling="uniform",
                  batch_size=40, max_iter=3, random_state=0).fit(X, target)
    report = est.privacy_
    lam, c = 1.0 / len(X), est.residual_clip_
    # f_0: the Huber loss (clip c) of a target |y| <= y_bound = 1 at 0 is at most
    # h_c(1) = c (1 - c / 2) (c < 1) or 1/2; the default ball sqrt(2 f_0 / lam) holds the
    # optimum, and its diameter is what the report reads
    f0 = c * (1 - c / 2) if c < 1 else 0.5
    assert report.diameter == pytest.approx(2 * math.sqrt(2 * f0 / lam), rel=1e-12)
    assert report.strong_convexity == pytest.approx(lam, rel=1e-12)
    assert "altschuler_talwar" in dict(report.bound_epsilons) and report.epsilon <= 1.0


def test_default_stays_poisson_and_the_parameter_changes_nothing_there():
    X, y = _data(n=600)
    params = dict(epsilon=1.0, solver="sgd", batch_size=60, max_iter=2, classes=[0, 1],
                  random_state=1)
    default = DPLogisticRegression(**params)
    assert default.get_params()["sampling"] == "poisson"
    default.fit(X, y)
    explicit = DPLogisticRegression(sampling="poisson", **params).fit(X, y)
    assert np.array_equal(default.coef_, explicit.coef_)
    assert default.privacy_ == explicit.privacy_
    assert default.privacy_.sampling == "poisson" and default.privacy_.diameter == math.inf
    assert "altschuler_talwar" in dict(default.privacy_.not_applicable)


@pytest.mark.parametrize("solver", ["auto", "gd", "cyclic", "preconditioned"])
def test_uniform_sampling_is_refused_with_other_solvers_before_any_charge(solver):
    X, y = _data(n=300)
    ledger = PrivacyLedger()
    est = DPLogisticRegression(solver=solver, sampling="uniform", classes=[0, 1],
                               ledger=ledger)
    with pytest.raises(ValueError, match="solver='sgd' only"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="solver='sgd' only"):
        est.plan_privacy(*X.shape)
    assert ledger.entries == () and not hasattr(est, "privacy_")
    with pytest.raises(InvalidParameterError, match="sampling"):
        DPLogisticRegression(solver="sgd", sampling="bernoulli").fit(X, y)


def test_a_uniform_run_is_charged_to_a_ledger_by_its_renyi_curve():
    X, y = _data(n=600)
    ledger = PrivacyLedger()
    est = DPLogisticRegression(epsilon=1.0, C=np.inf, solver="sgd", sampling="uniform",
                               max_coef_norm=0.5, batch_size=30, max_iter=4, classes=[0, 1],
                               ledger=ledger, random_state=0).fit(X, y)
    (entry,) = ledger.entries
    assert entry.mu is None
    spent = ledger.spent(est.privacy_.delta)
    # the ledger composes the event's RDP curve (a valid bound at each order): never less
    # than the report's own minimum over bounds, and not far above it for one fit
    assert est.privacy_.epsilon * (1 - 1e-9) <= spent.epsilon <= 1.2 * est.privacy_.epsilon


def test_pipeline_and_search_refuse_uniform_sgd_by_its_declaration_before_any_charge():
    X, y = _data(n=300)
    est = DPLogisticRegression(classes=[0, 1], solver="sgd", sampling="uniform",
                               max_coef_norm=1.0, C=np.inf)
    with pytest.raises(ValueError, match="reports_mu=False"):
        make_dp_pipeline(est).plan_privacy(len(X))
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-5)
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1], solver="sgd"),
                        {"sampling": ["poisson", "uniform"]}, epsilon=2.0, delta=1e-5,
                        ledger=ledger, random_state=0)
    with pytest.raises(ValueError, match=r"solver='sgd'.*reports_mu=False"):
        search.fit(X, y)
    # a gd template with a uniform candidate: the sampler's refusal, also before the charge
    search = DPSearchCV(DPLogisticRegression(classes=[0, 1], solver="gd", max_iter=5),
                        {"sampling": ["uniform"]}, epsilon=2.0, delta=1e-5, ledger=ledger,
                        random_state=0)
    with pytest.raises(ValueError, match="solver='sgd' only"):
        search.fit(X, y)
    assert ledger.entries == ()
