"""One full gradient pass against the memory-bandwidth floor of reading X, same machine, same run.

For each shape (n, d), dtype (float64, float32) and layout (dense, CSR with 10% nonzeros),
it times

* the **floor**: the fastest plain numpy read of the bytes of X with the same number of
  threads (each thread reads its own row block: ``dot(block.ravel(), block.ravel())`` for a
  dense X, the same on ``X.data`` plus a sum of ``X.indices`` for CSR), a STREAM-like
  "read" kernel;
* the **gradient**: one binary-logistic gradient sum of skdpgd (clipped design with the
  intercept column, row chunks reduced in order, ``n_jobs`` threads, BLAS pinned to one
  thread as in ``fit``).

Both are reported as bytes of X per second (median of ``--repeats``), and their ratio.
A gradient reads X twice (``X w``, then ``X^T r``), so a ratio near 0.5 means each pass runs
at the floor.

Usage::

    python benchmarks/bandwidth.py                      # 2-core dev box: n*d <= 1e8
    python benchmarks/bandwidth.py --n-jobs 1 2 4 8 16 --shapes 10000000x100
"""

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skdpgd._design import ClippedDesign
from skdpgd._gradients import ChunkedRowSums
from skdpgd.losses import BinaryLogisticLoss

DEFAULT_SHAPES = [
    (10_000, 10), (10_000, 100), (10_000, 1000),
    (100_000, 10), (100_000, 100), (100_000, 1000),
    (1_000_000, 10), (1_000_000, 100),
    (10_000_000, 10),
]


def median_seconds(function, repeats):
    function()  # warm caches, pools and page tables
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def make_X(n, d, dtype, layout, rng):
    if layout == "dense":
        X = rng.standard_normal((n, d), dtype=np.float64 if dtype == "float64" else np.float32)
        X /= np.sqrt(d)
        return X
    X = sp.random(n, d, density=0.1, format="csr", random_state=rng, dtype=np.float64)
    X.data = (X.data * np.sqrt(10.0 / d)).astype(dtype)
    return X


def nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def floor_read(X, n_threads):
    """A function reading every byte of X once, split over ``n_threads`` row blocks."""
    edges = np.linspace(0, X.shape[0], n_threads + 1).astype(int)
    if sp.issparse(X):
        pieces = [(X.data[X.indptr[a]:X.indptr[b]], X.indices[X.indptr[a]:X.indptr[b]])
                  for a, b in zip(edges[:-1], edges[1:])]

        def read(piece):
            data, indices = piece
            return float(np.dot(data, data)) + float(indices.sum())
    else:
        pieces = [X[a:b].ravel() for a, b in zip(edges[:-1], edges[1:])]

        def read(piece):
            return float(np.dot(piece, piece))

    if n_threads == 1:
        return lambda: read(pieces[0])
    pool = ThreadPoolExecutor(n_threads)
    return lambda: list(pool.map(read, pieces))


def measure(n, d, dtype, layout, n_jobs, repeats, rng):
    X = make_X(n, d, dtype, layout, rng)
    y = (rng.random(n) < 0.5).astype(np.float64)
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    coef = np.zeros(d + 1)
    size = nbytes(X)
    with threadpool_limits(limits=1, user_api="blas"):
        floor = size / median_seconds(floor_read(X, n_jobs), repeats)
        sums = ChunkedRowSums(BinaryLogisticLoss().gradient_sum, design, y, n_jobs=n_jobs)
        with sums:
            gradient = size / median_seconds(lambda: sums.sum(coef), repeats)
    return dict(n=n, d=d, dtype=dtype, layout=layout, n_jobs=n_jobs, bytes=size,
                floor_GBps=floor / 1e9, gradient_GBps=gradient / 1e9, ratio=gradient / floor)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=None, help="NxD, e.g. 1000000x100")
    parser.add_argument("--max-elements", type=float, default=1e8)
    parser.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    parser.add_argument("--layouts", nargs="+", default=["dense", "csr"])
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    args = parser.parse_args()
    shapes = DEFAULT_SHAPES if args.shapes is None else [
        tuple(int(float(v)) for v in s.lower().split("x")) for s in args.shapes
    ]
    shapes = [(n, d) for n, d in shapes if n * d <= args.max_elements]
    rng = np.random.default_rng(0)
    rows = []
    print("| n | d | dtype | layout | n_jobs | MB of X | floor GB/s | gradient GB/s | gradient / floor |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---:|")
    for n, d in shapes:
        for dtype in args.dtypes:
            for layout in args.layouts:
                for n_jobs in args.n_jobs:
                    row = measure(n, d, dtype, layout, n_jobs, args.repeats, rng)
                    rows.append(row)
                    print(f"| {n:.0e} | {d} | {dtype} | {layout} | {n_jobs} | "
                          f"{row['bytes'] / 1e6:.0f} | {row['floor_GBps']:.1f} | "
                          f"{row['gradient_GBps']:.1f} | {row['ratio']:.2f} |", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
