"""A fit on a table bigger than the cluster's memory: Parquet -> dask.dataframe -> public-bound
preprocessing -> dask.array -> DPLogisticRegression on a LocalCluster with a memory limit.

What it does, end to end:

1. writes a directory of Parquet files (one per partition) of a synthetic census-like table:
   ``--numeric`` numeric columns with documented public ranges, one categorical column
   ``region`` over a public code list, a binary ``label`` (or reuses ``--data``);
2. reads it with ``dask.dataframe.read_parquet`` (one partition per file), and maps every
   partition through a scikit-learn ``ColumnTransformer`` of public-bound steps
   (:class:`~skdpgd.preprocessing.BoundedScaler` over the public ranges,
   :func:`~skdpgd.preprocessing.public_one_hot` over the code list). The transformer is
   fitted on a row built from the public constants, never on the data; the row counts
   come from the Parquet footers (structure, not values), so the ``dask.array`` has known
   chunk sizes and n is public before any value is read;
3. fits ``DPLogisticRegression(classes=[0, 1], data_norm=sqrt(numeric + 1))`` on the
   dask array while a ``distributed.LocalCluster`` whose total memory limit is below the
   size of X runs it: the clipped row blocks are persisted on the workers, which spill
   what exceeds their limit to disk and read it back at each pass;
4. prints rows, bytes, workers, memory limit, wall time, what was spilled, the privacy
   report, and the same fit in memory on a subsample that fits (the first files) against
   the same fit through the cluster: the same model to rounding.

Usage (about 25 s on the 2-core dev machine, writing the files included)::

    python benchmarks/out_of_memory.py --rows 6e6 --files 24 --workers 2 \\
        --memory-limit 250MB --max-iter 5 --out benchmarks/results/out_of_memory.json

``tests/data/test_out_of_memory.py`` runs a small version of the same functions; the gallery
example ``examples/out_of_memory_parquet.py`` shows the pipeline in a few lines.
"""

import argparse
import itertools
import json
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

#: Public ranges of the numeric columns (a code book would give them; here: by design).
NUMERIC_RANGE = (-4.0, 4.0)
#: The public code list of the categorical column.
REGIONS = ["north", "south", "east", "west", "centre", "islands", "abroad", "unknown"]


def write_parquet_dir(path, n_rows, n_files, n_numeric=10, seed=0):
    """Write ``n_files`` Parquet files of the synthetic table under ``path``; return the
    list of files. Rows are generated file by file (bounded memory)."""
    import pandas as pd

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal(n_numeric)
    region_effect = rng.standard_normal(len(REGIONS))
    edges = np.linspace(0, int(n_rows), n_files + 1).astype(int)
    files = []
    for k, (a, b) in enumerate(itertools.pairwise(edges)):
        m = b - a
        numeric = rng.standard_normal((m, n_numeric))
        region = rng.integers(0, len(REGIONS), m)
        score = numeric @ truth / math.sqrt(n_numeric) + region_effect[region]
        frame = pd.DataFrame(numeric, columns=[f"x{j}" for j in range(n_numeric)])
        frame["region"] = np.asarray(REGIONS, dtype=object)[region]
        frame["label"] = (score + rng.logistic(size=m) > 0).astype(np.int8)
        name = path / f"part-{k:05d}.parquet"
        frame.to_parquet(name, index=False)
        files.append(name)
    return files


def public_preprocessor(n_numeric):
    """The ColumnTransformer of public-bound steps, fitted on one row of public constants.

    Every constant is public (ranges, code list); fitting reads no data. Output rows have
    ``n_numeric`` values in [0, 1] and one one-hot group: norm at most sqrt(n_numeric + 1).
    """
    import pandas as pd
    from sklearn.compose import ColumnTransformer

    from skdpgd.preprocessing import BoundedScaler, public_one_hot

    numeric = [f"x{j}" for j in range(n_numeric)]
    transformer = ColumnTransformer(
        [("numeric", BoundedScaler(bounds=NUMERIC_RANGE), numeric),
         ("region", public_one_hot([REGIONS]), ["region"])],
        sparse_threshold=0.0,
    )
    public_row = pd.DataFrame([[NUMERIC_RANGE[0]] * n_numeric + [REGIONS[0]]],
                              columns=[*numeric, "region"])
    return transformer.fit(public_row), math.sqrt(n_numeric + 1)


def parquet_to_dask_array(path, preprocessor, n_files=None):
    """(X, y) as dask arrays with known chunk sizes, from a Parquet directory.

    ``dask.dataframe.read_parquet`` with one partition per file; every partition goes
    through ``preprocessor.transform`` where it is read (features and label in one
    array, so that no column projection makes dask fuse files into fewer partitions).
    The row counts are read from the files' footers (metadata: structure, not values).
    ``n_files``: only the first files (a subsample).
    """
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow.parquet as pq

    files = sorted(Path(path).glob("*.parquet"))[:n_files]
    lengths = [pq.ParquetFile(f).metadata.num_rows for f in files]
    frame = dd.read_parquet([str(f) for f in files], split_row_groups=False)
    width = len(preprocessor.get_feature_names_out())
    names = [f"f{j}" for j in range(width)] + ["label"]

    def transform(part):  # every column is read: no projection, one partition per file
        values = np.column_stack([preprocessor.transform(part), part["label"].to_numpy(float)])
        return pd.DataFrame(values, columns=names, index=part.index)

    table = frame.map_partitions(
        transform, meta=pd.DataFrame({name: pd.Series(dtype=float) for name in names})
    ).optimize()
    if table.npartitions != len(files):
        raise RuntimeError(f"expected one partition per Parquet file, got {table.npartitions}")
    values = table.to_dask_array(lengths=lengths)
    return values[:, :width], values[:, width]


def read_in_memory(path, preprocessor, n_files=None):
    """(X, y) as numpy arrays: the first files read with pandas and the same transformer."""
    import pandas as pd

    files = sorted(Path(path).glob("*.parquet"))[:n_files]
    frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    return preprocessor.transform(frame), frame["label"].to_numpy(float)


def spilled_bytes(client):
    """Bytes each worker holds on disk (its spill buffer's slow store)."""
    def on_disk(dask_worker):
        total = getattr(dask_worker.data, "spilled_total", None)  # a SpillBuffer's
        return 0 if total is None else int(total.disk)

    return client.run(on_disk)


def make_estimator(data_norm, max_iter, n_jobs=None):
    from skdpgd import DPLogisticRegression

    return DPLogisticRegression(
        epsilon=1.0, classes=[0, 1], data_norm=data_norm, solver="gd", max_iter=max_iter,
        random_state=0, n_jobs=n_jobs,
    )


def run(path, *, n_workers, memory_limit, max_iter, processes, subsample_files):
    """Fit through the cluster; then the in-memory check on the first files."""
    import dask
    from distributed import Client, LocalCluster

    n_numeric = sum(1 for c in _columns(path) if c.startswith("x"))
    preprocessor, data_norm = public_preprocessor(n_numeric)
    X, y = parquet_to_dask_array(path, preprocessor)
    config = {  # spill by managed bytes; never pause or kill a worker for its process size
        "distributed.worker.memory.target": 0.5,
        "distributed.worker.memory.spill": False,
        "distributed.worker.memory.pause": False,
        "distributed.worker.memory.terminate": False,
    }
    with dask.config.set(config), LocalCluster(
        n_workers=n_workers, threads_per_worker=1, memory_limit=memory_limit,
        processes=processes, dashboard_address=":0",
    ) as cluster, Client(cluster) as client:
        limit = sum(w["memory_limit"] for w in client.scheduler_info()["workers"].values())
        start = time.perf_counter()
        model = make_estimator(data_norm, max_iter).fit(X, y)
        wall = time.perf_counter() - start
        spilled = spilled_bytes(client)
        # the same fit on a subsample that fits in memory, through the cluster and locally
        X_small, y_small = parquet_to_dask_array(path, preprocessor, subsample_files)
        rows = X_small.shape[0]
        through = make_estimator(data_norm, max_iter).fit(X_small, y_small)
    X_local, y_local = read_in_memory(path, preprocessor, subsample_files)  # pandas, no dask
    local = make_estimator(data_norm, max_iter).fit(X_local, y_local)
    difference = float(np.max(np.abs(np.r_[through.coef_.ravel(), through.intercept_]
                                      - np.r_[local.coef_.ravel(), local.intercept_])))
    return dict(
        rows=int(X.shape[0]), features=int(X.shape[1]), bytes_X=int(X.nbytes),
        files=len(X.chunks[0]), workers=n_workers, processes=processes,
        memory_limit_total=int(limit), X_over_limit=X.nbytes / limit,
        spilled_bytes_per_worker=spilled, wall_s=wall, passes=model.n_iter_,
        epsilon=model.privacy_.epsilon, delta=model.privacy_.delta,
        report=str(model.privacy_), subsample_rows=int(rows),
        max_abs_difference_vs_in_memory=difference,
        coef=model.coef_.ravel().tolist(), intercept=float(model.intercept_[0]),
    )


def _columns(path):
    import pyarrow.parquet as pq

    first = sorted(Path(path).glob("*.parquet"))[0]
    return pq.ParquetFile(first).schema_arrow.names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=4e6)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--numeric", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="300MB", help="per worker")
    parser.add_argument("--max-iter", type=int, default=5)
    parser.add_argument("--threads", action="store_true",
                        help="workers as threads of this process (processes=False)")
    parser.add_argument("--subsample-files", type=int, default=2)
    parser.add_argument("--data", default=None, help="an existing Parquet directory")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    scratch = None
    path = args.data
    if path is None:
        scratch = tempfile.mkdtemp(prefix="skdpgd-parquet-")
        path = os.path.join(scratch, "table")
        start = time.perf_counter()
        write_parquet_dir(path, int(args.rows), args.files, args.numeric)
        print(f"wrote {int(args.rows)} rows in {args.files} files in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    try:
        result = run(path, n_workers=args.workers, memory_limit=args.memory_limit,
                     max_iter=args.max_iter, processes=not args.threads,
                     subsample_files=args.subsample_files)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    on_disk = sum(result["spilled_bytes_per_worker"].values())
    print("| rows | features | X (MB) | workers | memory limit, total (MB) | X / limit | "
          "spilled to disk (MB) | passes | wall (s) | in-memory check: max |diff| |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {result['rows']:,} | {result['features']} | {result['bytes_X'] / 1e6:.0f} | "
          f"{result['workers']} | {result['memory_limit_total'] / 1e6:.0f} | "
          f"{result['X_over_limit']:.2f} | {on_disk / 1e6:.0f} | {result['passes']} | "
          f"{result['wall_s']:.1f} | {result['max_abs_difference_vs_in_memory']:.1e} "
          f"({result['subsample_rows']:,} rows) |")
    print(result["report"])
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
