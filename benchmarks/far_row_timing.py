"""Fit time with and without one far row: is there a timing channel?

Two neighbouring data sets that differ in one row: ``clean`` (rows of norm about 1, the
public ``data_norm=1``) and ``far``, the same with row 0 replaced by a finite row far
outside the bound (entries 1e200 in float64, whose sum of squares overflows; 1e30 in
float32; norm far above ``1024 * data_norm``). A third set, ``clean2``, is an identical
copy of ``clean``: its difference to ``clean`` is pure run-to-run noise, measured in the
same way and at the same time.

For each configuration (estimator with its defaults, n, layout, numba on or off) the three
fits run interleaved, in an order rotated every round (so that each set takes each place
equally often), for ``--rounds`` rounds (41 by default), after three untimed warm-up rounds.
Reported per configuration (milliseconds):

* ``clean_ms``, ``far_ms``, ``clean2_ms``: medians of the fit times;
* ``far_minus_clean_ms``: the median over rounds of ``far - clean`` (paired within a round);
* ``noise_ms``: the same for ``clean2 - clean`` (the null: no difference exists);
* ``mad_ms``: the median absolute deviation of the clean fit times;
* ``far_slower_share``: the share of rounds where ``far`` took longer than ``clean``
  (about 0.5 when there is no channel).

**CSR: the cost of a stored entry.** A CSR fit's work grows with the number of stored
entries (nnz), which is data: a row with more non-zeros takes longer. With the same
pattern (the far row above has the pattern of the row it replaces) the values change
nothing; the size of the remaining channel is measured as the slope of fit time in nnz:
the same interleaved protocol on a CSR X with every entry stored against one where half
of the rows have half of their entries zeroed (not stored). ``ms_per_million_entries``
times the largest change of one row's nnz (d) bounds what one record can change.

Usage::

    python benchmarks/far_row_timing.py [--rounds 41] [--n 100 20000] [--d 10]
        [--layouts dense64 dense32 csr dask] [--estimators logistic ridge]
        [--output benchmarks/results/far_row_timing.json]

The numba switch is :data:`skdpgd._data._fused.ENABLED` (dense layouts run with it on and off).
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data import _fused

FAR_VALUE = {"dense64": 1e200, "dense32": 1e30, "csr": 1e200, "dask": 1e200}


def make_data(n, d, seed=0):
    """Rows of norm about 1 (some above: clipped), labels and targets."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    w = rng.standard_normal(d)
    labels = (X @ w + 0.3 * rng.standard_normal(n) > 0).astype(int)
    targets = np.tanh(X @ w)
    return X, labels, targets


def layout_of(X, layout):
    if layout == "dense32":
        return X.astype(np.float32)
    if layout == "csr":
        return sp.csr_matrix(X)
    if layout == "dask":
        import dask.array as da

        return da.from_array(X, chunks=(max(2, X.shape[0] // 4), X.shape[1]))
    return X


def estimator(name):
    if name == "logistic":
        return DPLogisticRegression(random_state=0)
    return DPRidge(random_state=0, y_bound=1.0)


def measure(name, n, d, layout, numba, rounds):
    X, labels, targets = make_data(n, d)
    y = labels if name == "logistic" else targets
    far = X.copy()
    far[0] = FAR_VALUE[layout]
    sets = {
        "clean": layout_of(X, layout),
        "far": layout_of(far, layout),
        "clean2": layout_of(X.copy(), layout),
    }
    names = list(sets)
    times = {key: [] for key in names}
    previous = _fused.ENABLED
    _fused.ENABLED = numba
    try:
        for round_ in range(rounds + 3):
            shift = round_ % 3
            for key in names[shift:] + names[:shift]:
                model = estimator(name)
                start = time.perf_counter()
                model.fit(sets[key], y)
                elapsed = time.perf_counter() - start
                if round_ >= 3:
                    times[key].append(elapsed * 1e3)
    finally:
        _fused.ENABLED = previous
    clean, far_t, clean2 = (np.asarray(times[k]) for k in names)
    return {
        "estimator": name, "n": n, "d": d, "layout": layout,
        "numba": bool(numba and _fused.available()), "rounds": rounds,
        "clean_ms": float(np.median(clean)), "far_ms": float(np.median(far_t)),
        "clean2_ms": float(np.median(clean2)),
        "far_minus_clean_ms": float(np.median(far_t - clean)),
        "noise_ms": float(np.median(clean2 - clean)),
        "mad_ms": float(np.median(np.abs(clean - np.median(clean)))),
        "far_slower_share": float(np.mean(far_t > clean)),
        "times_ms": {k: [round(float(t), 4) for t in v] for k, v in times.items()},
    }


def csr_slope(name, n, d, rounds):
    """Fit time against the number of stored entries of a CSR X (see the docstring)."""
    X, labels, targets = make_data(n, d)
    y = labels if name == "logistic" else targets
    sparse = X.copy()
    sparse[: n // 2, : d // 2] = 0.0  # half of the rows lose half of their entries
    sets = {"dense_pattern": sp.csr_matrix(X), "half_pattern": sp.csr_matrix(sparse)}
    times = {key: [] for key in sets}
    for round_ in range(rounds + 3):
        order = list(sets) if round_ % 2 else list(sets)[::-1]
        for key in order:
            model = estimator(name)
            start = time.perf_counter()
            model.fit(sets[key], y)
            if round_ >= 3:
                times[key].append((time.perf_counter() - start) * 1e3)
    full, half = (np.asarray(times[k]) for k in sets)
    extra = sets["dense_pattern"].nnz - sets["half_pattern"].nnz
    per_million = float(np.median(full - half)) / extra * 1e6
    return {
        "estimator": name, "n": n, "d": d, "layout": "csr-nnz", "rounds": rounds,
        "nnz": [int(sets["dense_pattern"].nnz), int(sets["half_pattern"].nnz)],
        "full_ms": float(np.median(full)), "half_ms": float(np.median(half)),
        "full_minus_half_ms": float(np.median(full - half)),
        "ms_per_million_entries": per_million,
        "one_row_bound_ms": per_million * d / 1e6,
        "mad_ms": float(np.median(np.abs(full - np.median(full)))),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--n", type=int, nargs="+", default=[100, 20000])
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--layouts", nargs="+", default=["dense64", "dense32", "csr", "dask"])
    parser.add_argument("--estimators", nargs="+", default=["logistic", "ridge"])
    parser.add_argument("--output", default="benchmarks/results/far_row_timing.json")
    parser.add_argument("--label", default="", help="free text stored with the results")
    args = parser.parse_args()
    results = []
    print("| estimator | n | layout | numba | clean (ms) | far (ms) | far - clean (ms) "
          "| clean2 - clean (ms) | MAD (ms) | far slower |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for n in args.n:
        for layout in args.layouts:
            switches = (True, False) if layout.startswith("dense") else (True,)
            for numba in switches:
                for name in args.estimators:
                    row = measure(name, n, args.d, layout, numba, args.rounds)
                    results.append(row)
                    print(f"| {name} | {n} | {layout} | {'on' if row['numba'] else 'off'} "
                          f"| {row['clean_ms']:.3f} | {row['far_ms']:.3f} "
                          f"| {row['far_minus_clean_ms']:+.3f} | {row['noise_ms']:+.3f} "
                          f"| {row['mad_ms']:.3f} | {row['far_slower_share']:.2f} |", flush=True)
    if "csr" in args.layouts:
        print("\n| estimator | n | nnz (all, half) | all (ms) | half (ms) | difference (ms) "
              "| ms per 1e6 entries | one row (d entries, ms) |")
        print("|---|---:|---|---:|---:|---:|---:|---:|")
        for n in args.n:
            for name in args.estimators:
                row = csr_slope(name, n, args.d, args.rounds)
                results.append(row)
                print(f"| {name} | {n} | {row['nnz'][0]}, {row['nnz'][1]} | {row['full_ms']:.3f} "
                      f"| {row['half_ms']:.3f} | {row['full_minus_half_ms']:+.3f} "
                      f"| {row['ms_per_million_entries']:.1f} | {row['one_row_bound_ms']:.5f} |",
                      flush=True)
    meta = {
        "command": "python " + " ".join(sys.argv),
        "label": args.label,
        "python": platform.python_version(), "numpy": np.__version__,
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    print(f"\nsaved {path}")


if __name__ == "__main__":
    main()
