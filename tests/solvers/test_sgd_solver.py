"""solver="sgd" in the estimators: the run is the documented loop, the report its accountant."""

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd._data import _chunks
from skdpgd.accounting import sampled_sgd_bounds
from skdpgd.losses import BinaryLogisticLoss
from skdpgd.optim import noisy_sampled_gradient_descent

pytest.importorskip("dp_accounting")


def _problem(n=1500, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2.0
    X[:20] *= 5.0  # some rows above data_norm
    y = (X @ rng.normal(size=d) > 0).astype(int)
    return X, y


def test_sgd_run_is_the_documented_loop_and_meets_its_target():
    X, y = _problem()
    est = DPLogisticRegression(epsilon=1.0, C=1.0, solver="sgd", batch_size=150, max_iter=3,
                               random_state=5, intercept_scaling=1.0,
                               residual_clip=1.0).fit(X, y)
    report = est.privacy_
    assert report.epsilon <= 1.0
    assert est.batch_size_ == 150
    # The guarantee is the minimum of the bounds that apply to the run that was made,
    # recomputed here from the public run parameters.
    bounds = sampled_sgd_bounds(
        report.noise_std, report.n_steps, delta=report.delta, sampling="poisson",
        batch_size=150, n_samples=len(X), gradient_bound=np.sqrt(2.0),
    )
    assert report.epsilon == pytest.approx(bounds.epsilon, rel=1e-9)
    assert report.binding_bound == bounds.binding_bound
    # Independent replay: materialised clipped design, same generator, same loop.
    norms = np.maximum(np.linalg.norm(X, axis=1), 1e-300)
    design = np.hstack([X * np.minimum(1.0, 1.0 / norms)[:, None], np.ones((len(X), 1))])
    loss, yf = BinaryLogisticLoss(), y.astype(float)
    coef = noisy_sampled_gradient_descent(
        lambda c, rows: loss.gradient_sum(c, design[rows], yf[rows]), np.zeros(7),
        n_samples=len(X), batch_size=150, learning_rate=report.learning_rate,
        noise_std=report.noise_std, n_steps=report.n_steps, rng=np.random.default_rng(5),
        sampling="poisson", regularization=1.0 / len(X),
    )
    np.testing.assert_allclose(est.coef_[0], coef[:-1], rtol=0, atol=1e-12)


def test_sgd_model_is_bit_identical_for_every_n_jobs(monkeypatch):
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 1)  # several chunks per batch
    X, y = _problem(n=3000)
    kwargs = dict(epsilon=1.0, C=1.0, solver="sgd", batch_size=600, max_iter=2, random_state=1)
    reference = DPLogisticRegression(**kwargs).fit(X, y)
    other = DPLogisticRegression(**kwargs, n_jobs=2).fit(X, y)
    assert np.array_equal(reference.coef_, other.coef_)


def test_sgd_planned_defaults_and_refusals():
    X, y = _problem()
    est = DPRidge(epsilon=2.0, solver="sgd", random_state=0, y_bound=1.0)
    planned = est.plan_privacy(len(X), X.shape[1])
    fitted = est.fit(X, np.tanh(X[:, 0])).privacy_
    assert planned.epsilon == fitted.epsilon <= 2.0
    assert planned.n_steps == fitted.n_steps
    with pytest.raises(ValueError, match="learning_rate"):
        DPLogisticRegression(solver="sgd", learning_rate=0.1).fit(X, y)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_the_audit_passes_for_sgd(epsilon):
    from skdpgd.audit import audit_epsilon

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.3, 0.3, size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    est = DPLogisticRegression(epsilon=epsilon, C=1.0, solver="sgd", batch_size=5, max_iter=3,
                               random_state=0)
    # 300 trials per data set: the audit's lower bound exceeds the true epsilon with
    # probability <= 5% (its confidence); a correct accountant must not be flagged.
    result = audit_epsilon(est, X, y, n_trials=300, random_state=0)
    assert result.epsilon_claimed <= epsilon
    assert result.passed and result.epsilon_lower_bound <= result.epsilon_claimed


def test_ledger_composes_sgd_fits_by_pld_and_enforces_its_cap():
    from skdpgd.accounting import composed_replace_one_epsilon, gdp_to_epsilon
    from skdpgd.exceptions import PrivacyBudgetExceeded

    X, y = _problem()
    n = len(X)
    ledger = PrivacyLedger()
    sgd = DPLogisticRegression(epsilon=0.5, solver="sgd", classes=[0, 1], ledger=ledger,
                               random_state=0).fit(X, y)
    gd = DPLogisticRegression(epsilon=0.5, classes=[0, 1], ledger=ledger,
                              random_state=0).fit(X, y)
    report = sgd.privacy_
    run = (report.sampling_rate, report.noise_std * report.batch_size / report.gradient_bound,
           report.n_steps)
    (entry_sgd, _entry_gd) = ledger.entries
    assert entry_sgd.mu is None and entry_sgd.poisson_run == pytest.approx(run, rel=1e-15)
    spend = ledger.spent(1e-5)
    assert spend.composition == "pld" and spend.mu is None
    # The worst record pays the PLD composition of both fits, computed independently of
    # the ledger's bookkeeping; it is more than either fit alone and (being a tighter
    # accountant than adding epsilons) at most their sum.
    expected = composed_replace_one_epsilon(1e-5, gaussian_mu=gd.privacy_.mu,
                                            poisson_runs=(run,))
    assert spend.epsilon == pytest.approx(expected, rel=1e-12)
    assert max(report.epsilon, gd.privacy_.epsilon) < spend.epsilon
    assert spend.epsilon <= report.epsilon + gd.privacy_.epsilon
    # The Gaussian part alone is the exact GDP conversion (PLD discretisation 1e-3).
    alone = composed_replace_one_epsilon(1e-5, gaussian_mu=gd.privacy_.mu)
    assert alone == pytest.approx(gdp_to_epsilon(gd.privacy_.mu, 1e-5), abs=2e-3)
    # Disjoint ids compose in parallel: two sgd fits on halves cost one fit.
    halves = PrivacyLedger()
    est = DPLogisticRegression(epsilon=0.5, solver="sgd", classes=[0, 1], ledger=halves,
                               random_state=1)
    ids = np.arange(n)
    est.fit(X[: n // 2], y[: n // 2], sample_ids=ids[: n // 2])
    one = halves.spent(1e-5).epsilon
    est.fit(X[n // 2:], y[n // 2:], sample_ids=ids[n // 2:])
    assert halves.spent(1e-5).epsilon == pytest.approx(one, rel=1e-12)
    # A cap is enforced before the data are touched.
    capped = PrivacyLedger(epsilon=0.6, delta=1e-5)  # two epsilon=0.5 fits compose to > 0.6
    est = DPLogisticRegression(epsilon=0.5, solver="sgd", classes=[0, 1], ledger=capped,
                               random_state=2)
    est.fit(X, y)
    with pytest.raises(PrivacyBudgetExceeded):
        est.fit(X, y)
    assert len(capped.entries) == 1 and not hasattr(est, "coef_")


def test_ledger_refuses_to_mix_sgd_fits_with_renyi_entries():
    X, y = _problem()
    ledger = PrivacyLedger()
    ledger.charge_rdp("a private selection", lambda orders: 0.01 * orders, n_samples=len(X),
                      epsilon=0.5, delta=1e-5)
    est = DPLogisticRegression(epsilon=0.5, solver="sgd", classes=[0, 1], ledger=ledger)
    with pytest.raises(ValueError, match="common currency"):
        est.fit(X, y)
    assert len(ledger.entries) == 1 and not hasattr(est, "coef_")


def test_ledger_charges_the_worst_record_of_overlapping_sgd_fits():
    from skdpgd.accounting import composed_replace_one_epsilon

    X, y = _problem()
    n = len(X)
    ids = np.arange(n)
    first, second = ids[: 2 * n // 3], ids[n // 3:]  # overlap: the middle third
    ledger = PrivacyLedger()
    sgd = dict(solver="sgd", classes=[0, 1], ledger=ledger, random_state=0)
    a = DPLogisticRegression(epsilon=0.5, **sgd).fit(X[first], y[first], sample_ids=first)
    b = DPLogisticRegression(epsilon=0.3, **sgd).fit(X[second], y[second], sample_ids=second)
    c = DPLogisticRegression(epsilon=0.4, classes=[0, 1], ledger=ledger,
                             random_state=0).fit(X, y)  # no ids: every record

    def run(report):
        return (report.sampling_rate,
                report.noise_std * report.batch_size / report.gradient_bound, report.n_steps)

    # Records of the middle third are in all three fits: they are the worst off.
    worst = composed_replace_one_epsilon(
        1e-5, gaussian_mu=c.privacy_.mu, poisson_runs=(run(a.privacy_), run(b.privacy_)))
    only_a = composed_replace_one_epsilon(
        1e-5, gaussian_mu=c.privacy_.mu, poisson_runs=(run(a.privacy_),))
    assert ledger.spent(1e-5).epsilon == pytest.approx(worst, rel=1e-12)
    assert worst > only_a
