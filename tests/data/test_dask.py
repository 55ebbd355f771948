"""Dask: joblib's dask backend for in-memory X, and a dask.array X whose blocks stay remote.

Skipped cleanly when the optional extra ``skdpgd[dask]`` is not installed.
"""

import numpy as np
import pytest
from joblib import parallel_config

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data import _chunks
from skdpgd._data._design import ClippedDesign
from skdpgd.accounting import GramThenRunPrivacyReport

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def client():
    # processes=False: workers are threads of this process (fast to start, enough for CI).
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as dask_client:
        yield dask_client


def _problem(n=2000, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2.0
    labels = (X @ rng.normal(size=(d, 3))).argmax(axis=1)
    target = np.tanh(X @ rng.normal(size=d))
    return X, labels, target


@pytest.mark.parametrize(
    "make, use_target",
    [
        (lambda: DPLogisticRegression(epsilon=1.0, max_iter=8, random_state=0), False),
        (lambda: DPRidge(epsilon=1.0, max_iter=8, random_state=0, y_bound=1.0), True),
        (lambda: DPLogisticRegression(epsilon=1.0, max_iter=8, random_state=0, solver="gd"),
         False),
    ],
)
def test_dask_backend_gives_the_same_model_and_scatters_once(client, make, use_target, monkeypatch):
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 1)  # many chunks: work really is sent
    X, labels, target = _problem()
    y = target if use_target else labels
    reference = make().fit(X, y)

    scattered, shipped = [], []
    client_type = type(client)
    original_scatter, original_submit = client_type.scatter, client_type.submit

    def counting_scatter(self, data, *args, **kwargs):
        scattered.append(data)
        return original_scatter(self, data, *args, **kwargs)

    def recording_submit(self, func, *args, **kwargs):
        for task in kwargs.get("tasks", ()):  # joblib's batch: (function, args, kwargs)
            shipped.append(task[1])
        return original_submit(self, func, *args, **kwargs)

    monkeypatch.setattr(client_type, "scatter", counting_scatter)
    monkeypatch.setattr(client_type, "submit", recording_submit)
    with parallel_config(backend="dask"):
        est = make().fit(X, y)
    assert np.array_equal(est.coef_, reference.coef_)
    assert np.array_equal(est.intercept_, reference.intercept_)
    # Work was sent to the cluster (tasks in every one of the 8 steps), every task
    # referring to X and y (arguments 2 and 3 of the chunk-sum task) through futures:
    # the clipped design is never shipped inline, and it was scattered in one call per
    # pass structure: once for the whole fit, twice where "auto" runs a cyclic run chosen
    # on the released Gram (the Gram pass, then the run's own row sets).
    assert len(shipped) >= 8 * 2
    assert all(isinstance(args[2], distributed.Future) for args in shipped)
    assert all(isinstance(args[3], distributed.Future) for args in shipped)
    assert not any(isinstance(arg, ClippedDesign) for args in shipped for arg in args)
    holding_design = [
        data for data in scattered
        if any(isinstance(item, ClippedDesign) for item in (data if isinstance(data, list) else [data]))
    ]
    cyclic_after_gram = isinstance(est.privacy_, GramThenRunPrivacyReport) and (
        est.run_report_.run_solver.startswith("cyclic"))
    assert len(holding_design) == (2 if cyclic_after_gram else 1)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_dask_array_gives_the_in_memory_model(client, n_classes):
    X, labels, _ = _problem()
    y = labels if n_classes == 3 else (labels == 0).astype(int)
    reference = DPLogisticRegression(epsilon=1.0, max_iter=8, random_state=0).fit(X, y)
    X_dask = da.from_array(X, chunks=(300, 4))  # column chunks are merged to whole rows
    est = DPLogisticRegression(epsilon=1.0, max_iter=8, random_state=0).fit(
        X_dask, da.from_array(y, chunks=300)
    )
    # Same algorithm and noise; the partial sums are grouped by dask blocks instead of
    # row chunks, which changes rounding only (1e-10 is ~1e6 ulps of margin).
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.intercept_, reference.intercept_, rtol=0, atol=1e-10)
    assert est.n_features_in_ == X.shape[1]
    assert est.privacy_.mu == reference.privacy_.mu
    np.testing.assert_array_equal(est.predict(X), reference.predict(X))


def test_dask_array_ridge_without_a_client():
    X, _, target = _problem(n=900)
    reference = DPRidge(epsilon=1.0, max_iter=8, random_state=0, y_bound=1.0).fit(X, target)
    est = DPRidge(epsilon=1.0, max_iter=8, random_state=0, y_bound=1.0).fit(
        da.from_array(X, chunks=(250, 8)), target
    )
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-10)


def test_dask_array_refusals_are_clear():
    X, labels, _ = _problem(n=100)
    X_dask = da.from_array(X, chunks=(50, 8))
    unknown = X_dask[X_dask[:, 0] > 0]  # boolean indexing: unknown chunk sizes
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        DPLogisticRegression().fit(unknown, labels[: 10])
    with pytest.raises(ValueError, match="rows"):
        DPLogisticRegression().fit(X_dask, labels[:10])
    with_nan = X.copy()
    with_nan[7, 2] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        DPLogisticRegression(max_iter=2).fit(da.from_array(with_nan, chunks=(50, 8)), labels)


@pytest.mark.parametrize("solver", ["cyclic", "sgd"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_mini_batch_solvers_on_a_dask_array_give_the_in_memory_model(client, solver, n_classes):
    if solver == "sgd":
        pytest.importorskip("dp_accounting")
    X, labels, _ = _problem(n=1200)
    y = labels if n_classes == 3 else (labels == 0).astype(int)

    def make():
        return DPLogisticRegression(
            epsilon=1.0, solver=solver, batch_size=200, max_iter=3, random_state=0
        )

    reference = make().fit(X, y)
    # Uneven blocks, not aligned with the batches: every batch spans several blocks.
    est = make().fit(da.from_array(X, chunks=((250, 350, 170, 430), 8)), y)
    # Same batches (drawn from the seed and n) and noise; each block sums its own rows of
    # a batch, so only the order of the additions differs: 1e-10 is ~1e6 ulps of margin,
    # while a batch computed on wrong rows moves the model by far more (checked below).
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.intercept_, reference.intercept_, rtol=0, atol=1e-10)
    assert est.privacy_.epsilon == reference.privacy_.epsilon
    other = DPLogisticRegression(
        epsilon=1.0, solver=solver, batch_size=200, max_iter=3, random_state=0
    ).fit(X[::-1], y[::-1])
    assert np.max(np.abs(other.coef_ - reference.coef_)) > 1e-6


def test_ridge_cyclic_on_a_dask_array_without_a_client():
    X, _, target = _problem(n=900)

    def make():
        return DPRidge(epsilon=1.0, solver="cyclic", batch_size=100, max_iter=3,
                       random_state=1, y_bound=1.0)

    reference = make().fit(X, target)
    est = make().fit(da.from_array(X, chunks=(400, 8)), target)
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-10)


def test_row_sets_are_split_by_block_where_they_live():
    from skdpgd._data._dask import _split_by_block

    edges = np.array([0, 3, 3, 7, 10])  # an empty block too
    rows = np.array([8, 1, 4, 0, 9, 6])
    pieces = _split_by_block(rows, edges)
    assert [j for j, _ in pieces] == [0, 2, 3]
    np.testing.assert_array_equal(pieces[0][1], [1, 0])  # the batch's order kept
    np.testing.assert_array_equal(pieces[1][1], [1, 3])
    np.testing.assert_array_equal(pieces[2][1], [1, 2])
    assert _split_by_block(np.array([], dtype=int), edges) == []
    with pytest.raises(IndexError):
        _split_by_block(np.array([10]), edges)
