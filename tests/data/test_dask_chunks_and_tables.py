"""A dask X's chunking is structure: an empty block changes no model, and a dask table is
refused before the charge.

An empty row block (``chunks=((1000, 0, 2000), (4,))``, or an empty partition of a
filter after ``compute_chunk_sizes()``) reached a per-block check after the charge: "X
must have at least one row, got n_samples=0", one entry recorded and no model, for every
solver; since chunk sizes often come from the data, the refusal depended on a whole
partition's values. A dask DataFrame was taken for an array ("'DataFrame' object has no
attribute 'dtype'") or, in a DPPipeline, read as an object array (its column names and
dtypes lost) after the charge.
"""

import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, DPPipeline, PrivacyLedger
from skdpgd.model_selection import DPSearchCV
from skdpgd.preprocessing import DPTableVectorizer

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


def _problem(n=3000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2.0
    return X, (X[:, 0] + rng.normal(0, 0.5, n) > 0).astype(int)


def _model(solver, ledger=None):
    extra = {"batch_size": 300} if solver == "sgd" else {}
    return DPLogisticRegression(classes=[0, 1], solver=solver, max_iter=6, random_state=0,
                                ledger=ledger, **extra)


@pytest.mark.parametrize("solver", ["auto", "gd", "sgd"])
def test_an_empty_block_gives_the_model_of_the_same_array_without_it(solver):
    if solver == "sgd":
        pytest.importorskip("dp_accounting")
    X, y = _problem()
    reference = _model(solver).fit(X, y)
    without = _model(solver).fit(da.from_array(X, chunks=((1000, 2000), (4,))), y)
    ledger = PrivacyLedger()
    with_empty = _model(solver, ledger).fit(
        da.from_array(X, chunks=((1000, 0, 2000), (4,))), y)
    assert len(ledger.entries) == 1  # one entry and a model
    # the same blocks in the same order: bit for bit the model without the empty block
    assert np.array_equal(with_empty.coef_, without.coef_)
    assert np.array_equal(with_empty.intercept_, without.intercept_)
    # and the in-memory model up to the order of the additions (~1e6 ulps of margin)
    np.testing.assert_allclose(with_empty.coef_, reference.coef_, rtol=0, atol=1e-10)
    assert with_empty.privacy_.epsilon == reference.privacy_.epsilon


def test_a_filter_with_an_empty_partition_fits_under_a_ledger():
    X, y = _problem()
    X_dask = da.from_array(X, chunks=(1000, 4))
    keep = np.ones(3000, dtype=bool)
    keep[1000:2000] = False  # the second partition is filtered away entirely
    filtered = X_dask[da.from_array(keep, chunks=1000)]
    filtered.compute_chunk_sizes()
    assert filtered.chunks[0] == (1000, 0, 1000)
    ledger = PrivacyLedger()
    model = _model("gd", ledger).fit(filtered, y[keep])
    assert len(ledger.entries) == 1
    reference = _model("gd").fit(X[keep], y[keep])
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=0, atol=1e-10)


def _step():
    return DPLogisticRegression(classes=[0, 1], solver="gd", max_iter=6)


def _table():
    X, y = _problem(n=600)
    return dd.from_pandas(pd.DataFrame(X, columns=list("abcd")), npartitions=3), y


@pytest.mark.parametrize("fit", [
    lambda X, y, ledger: _model("gd", ledger).fit(X, y),
    lambda X, y, ledger: DPPipeline([("vectorizer", DPTableVectorizer()),
                                     ("model", _step())], ledger=ledger).fit(X, y),
    lambda X, y, ledger: DPPipeline([("vectorizer", DPTableVectorizer()),
                                     ("model", _step())], ledger=ledger).prepare(X),
    lambda X, y, ledger: DPPipeline([("model", _step())], ledger=ledger).fit(X, y),
    lambda X, y, ledger: DPSearchCV(_step(), {"max_iter": [3, 6]},
                                    ledger=ledger).fit(X, y),
], ids=["estimator", "pipeline", "prepare", "pipeline of the estimator", "DPSearchCV"])
def test_a_dask_table_is_refused_before_the_charge_with_what_to_do(fit):
    X, y = _table()
    ledger = PrivacyLedger()
    with pytest.raises(ValueError, match=r"to_dask_array\(lengths=True\)") as info:
        fit(X, y, ledger)
    assert "X.compute()" in str(info.value) and "dask DataFrame" in str(info.value)
    assert len(ledger.entries) == 0
    with pytest.raises(ValueError, match="dask Series"):
        _model("gd").fit(X["a"], y)


def test_the_conversion_the_refusal_names_fits_the_in_memory_model():
    X, y = _table()
    model = _model("gd").fit(X.to_dask_array(lengths=True), y)
    reference = _model("gd").fit(X.compute().to_numpy(), y)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=0, atol=1e-10)
