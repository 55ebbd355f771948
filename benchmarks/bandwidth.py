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

Floor and gradient are timed **interleaved** (floor, gradient, floor, ... in each repeat) and
the reported ratio is the median over repeats of (faster of the two floor reads around a
gradient) / (that gradient): on a machine shared with other jobs, a ratio of times taken
seconds apart is far less noisy than a ratio of medians taken minutes apart. Bytes per
second are medians too.

Variants of the pass, compared in the same run (switches of this benchmark; the library
runs whole chunks with einsum products): ``--cache-blocks`` (KiB of X per block inside a
chunk, summed block by block on the numpy path; 0 = a whole chunk in one call) and
``--products`` (``blas`` gemv or numpy ``einsum``, the library's). Before the blocks, a gradient read X twice (``X w``, then ``X^T r``), so 0.5
meant both passes at the floor; with blocks the second product reads the block from cache.

Usage::

    python benchmarks/bandwidth.py                      # 2-core dev box: n*d <= 1e8
    python benchmarks/bandwidth.py --n-jobs 1 2 4 8 16 --shapes 10000000x100
    python benchmarks/bandwidth.py --shapes 1000000x100 --layouts dense \
        --cache-blocks 0 1024 --products einsum blas
"""

import argparse
import itertools
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skdpgd._data import _design, _fused
from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd.losses import BinaryLogisticLoss

DEFAULT_SHAPES = [
    (10_000, 10), (10_000, 100), (10_000, 1000),
    (100_000, 10), (100_000, 100), (100_000, 1000),
    (1_000_000, 10), (1_000_000, 100),
    (10_000_000, 10),
]


#: The variant switches (they were library settings; the library keeps the defaults).
CACHE_BLOCK_BYTES = None
DENSE_PRODUCT = "einsum"
_EINSUM = (_design._product, _design._transposed_product)


def _set_product(product):
    """The design's dense products: the library's einsum, or BLAS gemv (``X @ w``)."""
    global DENSE_PRODUCT
    DENSE_PRODUCT = product
    if product == "blas":
        _design._product = lambda X, w: np.asarray(X @ w)
        _design._transposed_product = lambda X, r: X.T @ r
    else:
        _design._product, _design._transposed_product = _EINSUM


def _method(gradient_sum):
    """``gradient_sum``, or a chunk summed in cache-sized blocks (:data:`CACHE_BLOCK_BYTES`,
    numpy path: the fused kernel takes only a loss's own ``gradient_sum``)."""
    if CACHE_BLOCK_BYTES is None:
        return gradient_sum

    def blocked(coef, X, y):
        size = max(64, CACHE_BLOCK_BYTES // (X.dtype.itemsize * max(1, X.shape[1])))
        total = None
        for a in range(0, X.shape[0], size):
            part = np.asarray(gradient_sum(coef, X[a:a + size], y[a:a + size]), dtype=np.float64)
            total = part.copy() if total is None else total + part
        return total

    return blocked


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
                  for a, b in itertools.pairwise(edges)]

        def read(piece):
            data, indices = piece
            return float(np.dot(data, data)) + float(indices.sum())
    else:
        pieces = [X[a:b].ravel() for a, b in itertools.pairwise(edges)]

        def read(piece):
            return float(np.dot(piece, piece))

    if n_threads == 1:
        return lambda: read(pieces[0])
    pool = ThreadPoolExecutor(n_threads)
    return lambda: list(pool.map(read, pieces))


def _seconds(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure(X, y, n_jobs, repeats, cache_block_kib=None, product=None, fused=None):
    """Interleaved floor / gradient timings of one variant of the pass (module docstring)."""
    if fused is not None:
        _fused.ENABLED = fused == "on"
    if cache_block_kib is not None:
        global CACHE_BLOCK_BYTES
        CACHE_BLOCK_BYTES = None if cache_block_kib == 0 else cache_block_kib * 1024
    if product is not None:
        _set_product(product)
    d = X.shape[1]
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    coef = np.zeros(d + 1)
    size = nbytes(X)
    floors, gradients, ratios = [], [], []
    with threadpool_limits(limits=1, user_api="blas"):
        read = floor_read(X, n_jobs)
        sums = ChunkedRowSums(_method(BinaryLogisticLoss().gradient_sum), design, y, n_jobs=n_jobs)
        with sums:
            read(), sums.sum(coef)  # warm caches, pools and page tables
            for _ in range(repeats):
                before, gradient, after = _seconds(read), _seconds(lambda: sums.sum(coef)), _seconds(read)
                floors.append(min(before, after))
                gradients.append(gradient)
                ratios.append(min(before, after) / gradient)
    return dict(n_jobs=n_jobs, bytes=size, fused=_fused.available(), cache_block_KiB=CACHE_BLOCK_BYTES and
                CACHE_BLOCK_BYTES // 1024, product=DENSE_PRODUCT,
                floor_GBps=size / float(np.median(floors)) / 1e9,
                gradient_GBps=size / float(np.median(gradients)) / 1e9,
                ratio=float(np.median(ratios)), ratio_min=float(np.min(ratios)),
                ratio_max=float(np.max(ratios)))


def profile_pass(args):
    """cProfile of ``--repeats`` gradient passes (first shape and dtype, dense, one thread)."""
    import cProfile
    import pstats

    n, d = (1_000_000, 100) if args.shapes is None else (
        tuple(int(float(v)) for v in args.shapes[0].lower().split("x")))
    rng = np.random.default_rng(0)
    X = make_X(n, d, args.dtypes[0], "dense", rng)
    y = (rng.random(n) < 0.5).astype(np.float64)
    global CACHE_BLOCK_BYTES
    if args.cache_blocks[0] is not None:
        CACHE_BLOCK_BYTES = args.cache_blocks[0] * 1024 or None
    if args.products[0] is not None:
        _set_product(args.products[0])
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    coef = np.zeros(d + 1)
    with threadpool_limits(limits=1, user_api="blas"):
        with ChunkedRowSums(_method(BinaryLogisticLoss().gradient_sum), design, y) as sums:
            sums.sum(coef)
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(args.repeats):
                sums.sum(coef)
            profiler.disable()
    print(f"{n} x {d} {args.dtypes[0]}, block {CACHE_BLOCK_BYTES} B, "
          f"product {DENSE_PRODUCT}, {args.repeats} passes")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=None, help="NxD, e.g. 1000000x100")
    parser.add_argument("--max-elements", type=float, default=1e8)
    parser.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    parser.add_argument("--layouts", nargs="+", default=["dense", "csr"])
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cache-blocks", type=int, nargs="+", default=[None],
                        help="KiB of X per block inside a chunk (0: none); default: the library's")
    parser.add_argument("--products", nargs="+", default=[None], choices=[None, "blas", "einsum"],
                        help="dense product; default: the library's")
    parser.add_argument("--fused", nargs="+", default=[None], choices=[None, "on", "off"],
                        help="the numba kernel of skdpgd._data._fused (on: if numba is installed)")
    parser.add_argument("--profile", action="store_true",
                        help="print where one pass's time goes (cProfile, first shape, 1 thread)")
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    args = parser.parse_args()
    if args.profile:
        return profile_pass(args)
    shapes = DEFAULT_SHAPES if args.shapes is None else [
        tuple(int(float(v)) for v in s.lower().split("x")) for s in args.shapes
    ]
    shapes = [(n, d) for n, d in shapes if n * d <= args.max_elements]
    rng = np.random.default_rng(0)
    rows = []
    print("| n | d | dtype | layout | n_jobs | fused | block KiB | product | MB of X | floor GB/s | "
          "gradient GB/s | gradient / floor (min-max) |")
    print("|---:|---:|---|---|---:|---|---:|---|---:|---:|---:|---:|")
    for n, d in shapes:
        for dtype in args.dtypes:
            for layout in args.layouts:
                X = make_X(n, d, dtype, layout, rng)
                y = (rng.random(n) < 0.5).astype(np.float64)
                for n_jobs in args.n_jobs:
                    for fused, block, product in [(f, b, p) for f in args.fused
                                                  for b in args.cache_blocks
                                                  for p in args.products]:
                        row = dict(n=n, d=d, dtype=dtype, layout=layout, **measure(
                            X, y, n_jobs, args.repeats, block, product, fused))
                        rows.append(row)
                        print(f"| {n:.0e} | {d} | {dtype} | {layout} | {n_jobs} | "
                              f"{'yes' if row['fused'] else 'no'} | "
                              f"{row['cache_block_KiB'] or 0} | {row['product']} | "
                              f"{row['bytes'] / 1e6:.0f} | {row['floor_GBps']:.1f} | "
                              f"{row['gradient_GBps']:.1f} | {row['ratio']:.2f} "
                              f"({row['ratio_min']:.2f}-{row['ratio_max']:.2f}) |", flush=True)
                del X
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
