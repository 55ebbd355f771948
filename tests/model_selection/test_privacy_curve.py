"""privacy_utility_curve: one row per budget, the baseline, the cost column, the plot."""

import math

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from skdpgd import DPLogisticRegression, PrivacyLedger
from skdpgd.model_selection import plot_privacy_utility_curve, privacy_utility_curve


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) / 3.0
    y = (X[:, 0] + 0.2 * rng.normal(size=300) > 0).astype(int)
    return X, y


def _clf(**kw):
    return DPLogisticRegression(C=1.0, max_iter=30, classes=[0, 1], random_state=0, **kw)


def test_rows_scores_and_cost(data):
    X, y = data
    epsilons = [0.05, 1.0, 8.0]
    table = privacy_utility_curve(_clf(), X, y, epsilons, cv=KFold(3))
    assert [r["epsilon"] for r in table] == [*epsilons, math.inf]
    assert [r["baseline"] for r in table] == [False] * 3 + [True]
    # each mean is the mean of its folds, and the folds are the ones of a plain loop
    for row in table:
        assert row["mean_score"] == pytest.approx(np.mean(row["scores"]))
        assert len(row["scores"]) == 3
    by_hand = [_clf(epsilon=1.0).fit(X[tr], y[tr]).score(X[te], y[te])
               for tr, te in KFold(3).split(X)]
    np.testing.assert_allclose(table[1]["scores"], by_hand)
    # utility grows with the budget on this easy problem (eps=0.05 on 200 rows is mostly
    # noise; eps=8 and no noise are both close to the signal)
    assert table[0]["mean_score"] < table[2]["mean_score"]
    assert abs(table[2]["mean_score"] - table[3]["mean_score"]) < 0.05
    # cost: every record is in 2 of the 3 training folds, per budget
    mu2 = sum(2 * r["mu"] ** 2 for r in table[:3])
    assert table[2]["mu_per_record"] == pytest.approx(math.sqrt(mu2), rel=1e-6)
    assert table[3]["mu_per_record"] == math.inf


def test_ledger_is_charged_and_baseline_refused(data):
    X, y = data
    ledger = PrivacyLedger()
    with pytest.raises(ValueError, match="baseline"):
        privacy_utility_curve(_clf(ledger=ledger), X, y, [1.0], cv=KFold(2))
    with pytest.raises(ValueError, match="labels"):
        privacy_utility_curve(_clf(ledger=ledger), X, y, [1.0], cv=StratifiedKFold(2),
                              baseline=False)
    table = privacy_utility_curve(_clf(ledger=ledger), X, y, [0.5, 1.0], cv=KFold(2),
                                  baseline=False)
    assert len(ledger.entries) == 4
    assert ledger.spent(1e-5).mu == pytest.approx(table[-1]["mu_per_record"], rel=1e-12)


def test_bad_epsilons(data):
    with pytest.raises(ValueError, match="epsilons"):
        privacy_utility_curve(_clf(), *data, [np.inf])
    with pytest.raises(ValueError, match="epsilons"):
        privacy_utility_curve(_clf(), *data, [])


def test_frame_and_plot(data):
    pd = pytest.importorskip("pandas")
    table = privacy_utility_curve(_clf(), *data, [1.0, 4.0], cv=KFold(2), as_frame=True)
    assert isinstance(table, pd.DataFrame) and list(table["baseline"]) == [False, False, True]
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = plot_privacy_utility_curve(table)
    baseline = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(baseline) == 1
    assert baseline[0].get_ydata()[0] == pytest.approx(table["mean_score"].iloc[-1])


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_far_rows_in_a_test_fold_score_finitely_and_silently(data, kind):
    """Scores are computed on the rows the fit sees (clipped to data_norm, targets to
    y_bound): far rows give finite scores and no warning (a fold holding
    [1.797e308] * 4, scored unclipped, would give NaN or -inf with an overflow warning)."""
    import warnings

    from skdpgd import DPRidge

    X, y = data
    X = X.copy()
    X[:4] = 1.797e308 * np.array([[1, 1, 1, 1], [1, -1, 1, -1], [-1, -1, 1, 1], [1, 0, 0, 0]])
    if kind == "classifier":
        est = _clf()
    else:
        est = DPRidge(y_bound=10.0, max_iter=30, random_state=0)
        y = 5.0 * np.tanh(3.0 * data[0][:, 0])
        y[5] = 1e308
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = privacy_utility_curve(est, X, y, [1.0, 8.0], cv=KFold(4))
    assert [str(w.message) for w in caught] == []
    for row in table:
        assert np.all(np.isfinite(row["scores"]))
        if kind == "classifier":
            assert all(0.0 <= s <= 1.0 for s in row["scores"])
        else:  # R^2 <= 1, on clipped targets of a bounded model: finite
            assert all(s <= 1.0 for s in row["scores"])
