"""A small version of the bigger-than-memory fit (benchmarks/out_of_memory.py) in CI.

Parquet files -> dask.dataframe -> public-bound preprocessing -> dask.array -> fit on a
LocalCluster whose memory limit is below the size of X: the workers must spill, the
privacy report is the one planned from n and d, and the model is the one the same
pipeline gives in memory (pandas and numpy, no dask).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow")
distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import out_of_memory as oom  # noqa: E402


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("parquet") / "table"
    oom.write_parquet_dir(path, n_rows=40_000, n_files=8, n_numeric=6, seed=1)
    return path


def test_parquet_pipeline_gives_a_dask_array_with_public_shape(table):
    preprocessor, data_norm = oom.public_preprocessor(6)
    X, y = oom.parquet_to_dask_array(table, preprocessor)
    # n from the Parquet footers, d from the public transformer: known before any value
    assert X.shape == (40_000, 6 + len(oom.REGIONS)) and y.shape == (40_000,)
    assert X.chunks[0] == (5000,) * 8
    X_local, y_local = oom.read_in_memory(table, preprocessor)
    np.testing.assert_array_equal(X.compute(), X_local)
    np.testing.assert_array_equal(y.compute(), y_local)
    # public-bound: every row lies within data_norm (numeric in [0, 1], one one-hot 1)
    assert np.max(np.linalg.norm(X_local, axis=1)) <= data_norm * (1 + 1e-12)


def test_fit_on_a_cluster_with_less_memory_than_X_is_the_in_memory_model(table):
    # Workers are threads (fast start); each may hold 400 kB of data before spilling,
    # while X is 40,000 x 14 float64 = 4.5 MB: most blocks must go to disk and come back
    # at every pass.
    result = oom.run(table, n_workers=2, memory_limit="800kB", max_iter=3, processes=False,
                     subsample_files=8)
    assert result["bytes_X"] > result["memory_limit_total"]
    assert sum(result["spilled_bytes_per_worker"].values()) > 0
    assert result["passes"] == 3
    # Same plan from (n, d) alone: the report of an in-memory fit of that shape.
    planned = oom.make_estimator(np.sqrt(7.0), 3).plan_privacy(40_000, 14, n_classes=2)
    assert result["epsilon"] == planned.epsilon and result["delta"] == planned.delta
    # Same rows, noise and steps; partial sums grouped by block instead of row chunks
    # (rounding only): 1e-10 is ~1e6 ulps of the coefficients' size.
    assert result["subsample_rows"] == 40_000
    assert result["max_abs_difference_vs_in_memory"] < 1e-10
