"""How much of a column its private range holds, and how wide it is: two reading rules.

:func:`skdpgd.preprocessing.private_range` releases a noisy histogram of a column over a
public log grid and reads a range from it (post-processing). Two readings of the same
noisy histograms are compared, draw by draw:

* ``first survivor``: the first scale (single cells, then sums of 2, 4, 8, 16 cells)
  with a survivor gives the range (``range_from_noisy_counts(..., n_records=0)``: the
  rule before the majority rule);
* ``majority`` (the package's rule): the scales are read until their survivors hold
  half of the records present, and the range spans every survivor read
  (``n_records=n``).

For each distribution, n and mu (the budget a pipeline gives one column: a 3-column
table at epsilon 1 gives each release about 0.03), over ``--draws`` draws of data and
noise (fixed seeds): how often a range is found (else the column falls back to the
public map over the whole grid), and over the draws that find one the share of the
records inside the range (10% quantile and median) and the width against the data's
1%-99% quantile range (median and 90% quantile; above 1 the range is wider than the
bulk, far below 1 it clips it).
Usage::

    python benchmarks/private_range_coverage.py [--draws 100]
        [--out benchmarks/results/private_range_coverage.json]
"""

import argparse
import json
import math
import platform
from pathlib import Path

import numpy as np

from skdpgd.preprocessing._private_range import (
    noisy_histogram,
    public_grid,
    range_from_noisy_counts,
    threshold_z,
)

RESULTS = Path(__file__).resolve().parent / "results" / "private_range_coverage.json"

DISTRIBUTIONS = {
    "standard normal": lambda rng, n: rng.standard_normal(n),
    "normal(100, 15)": lambda rng, n: rng.normal(100.0, 15.0, n),
    "uniform(20, 60)": lambda rng, n: rng.uniform(20.0, 60.0, n),
    "exponential(1)": lambda rng, n: rng.exponential(1.0, n),
    "lognormal(3, 1)": lambda rng, n: rng.lognormal(3.0, 1.0, n),
    "integers 0..10": lambda rng, n: rng.integers(0, 11, n).astype(float),
}

SETTINGS = ((1000, 0.03), (2000, 0.03), (2000, 0.06), (5000, 0.03), (20000, 0.03),
            (200000, 0.03))


def measure(draws):
    edges = public_grid()
    rows = []
    for n, mu in SETTINGS:
        sigma = math.sqrt(2.0) / mu
        threshold = threshold_z(edges.size + 1) * sigma
        for name, draw in DISTRIBUTIONS.items():
            held = {"first survivor": [], "majority": []}
            width = {"first survivor": [], "majority": []}
            for seed in range(draws):
                x = draw(np.random.default_rng(seed), n)
                noisy = noisy_histogram(x, sigma, np.random.default_rng(10_000 + seed), edges)
                low_q, high_q = np.quantile(x, [0.01, 0.99])
                for rule, records in (("first survivor", 0), ("majority", n)):
                    found = range_from_noisy_counts(noisy, edges, threshold, sigma=sigma,
                                                    n_records=records)
                    inside = np.mean((x >= found.low) & (x <= found.high))
                    held[rule].append(float(inside) if found.found else math.nan)
                    width[rule].append((found.high - found.low) / (high_q - low_q)
                                       if found.found else math.nan)
            row = dict(distribution=name, n=n, mu=mu)
            for rule in held:
                h, w = np.array(held[rule]), np.array(width[rule])
                row[rule] = dict(found=float(np.mean(~np.isnan(h))),
                                 held_q10=float(np.nanquantile(h, 0.1)),
                                 held_median=float(np.nanmedian(h)),
                                 width_median=float(np.nanmedian(w)),
                                 width_q90=float(np.nanquantile(w, 0.9)))
            rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    rows = measure(args.draws)
    print("| column | n | mu | found | held q10 / median: first survivor | majority "
          "| width median / q90: first survivor | majority |")
    print("|---|---:|---:|---:|---|---|---|---|")
    for row in rows:
        a, b = row["first survivor"], row["majority"]
        print(f"| {row['distribution']} | {row['n']} | {row['mu']} | {a['found']:.2f} "
              f"| {a['held_q10']:.2f} / {a['held_median']:.2f} "
              f"| {b['held_q10']:.2f} / {b['held_median']:.2f} "
              f"| {a['width_median']:.2f} / {a['width_q90']:.1f} "
              f"| {b['width_median']:.2f} / {b['width_q90']:.1f} |")
    Path(args.out).write_text(json.dumps(dict(
        command=f"python benchmarks/private_range_coverage.py --draws {args.draws}",
        machine=f"{platform.machine()}, Python {platform.python_version()}",
        draws=args.draws, rows=rows), indent=1) + "\n")


if __name__ == "__main__":
    main()
