"""How often a column's released range is stretched far beyond its data, over many draws.

A range read from a noisy histogram can be stretched by noise: a single cell far from the
data that passes its threshold (a family-wise rate of 1e-3 per reading), or the window
rule walking an end over a run of positive noise. For a target range the result is a
model whose predictions are mapped back by a range orders of magnitude too wide (raw
diamonds' price: [-5.9e6, 23170], test R^2 -578). This benchmark draws many releases of
``column_range`` (the vectorizer's and the target range's mechanism) on fixed columns and
counts the draws whose range reaches beyond ``32 max|x|`` ("far": beyond what the
far-cell rule lets through, 16 times the located range's magnitude, with a located range
about a cell beyond the data), ``8 max|x|`` ("stretched") and ``4 max|x|`` ("wide"):
the last two within the rule's reach, which it does not claim to bound. Also reported: the median range and the number of draws
that clip more than 1% of the records (the cost of reading fewer far cells).

Columns (each drawn once from its own seed; n rows):

* ``price``: raw diamonds' price on a 7,000-row training split (the case above), if
  ``$SKDPGD_DATA`` holds diamonds; else a lognormal(8, 1) stand-in of 7,000 rows;
* ``normal``: N(0, 1), 5,000 rows; ``t3``: Student t(3), 5,000 rows;
* ``lognormal``: lognormal(3, 1), 5,000 rows; ``zeros``: 85% zeros, else geometric(0.1),
  5,000 rows (integer); ``year``: integers 1871-2007, 5,000 rows (integer).

Usage (once per package tree; the same draws)::

    PYTHONPATH=<tree> python benchmarks/far_cells.py --draws 4000 --out results/far_cells_<label>.json
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from skdpgd.preprocessing import column_range

MUS = (0.0343, 0.0596)


def columns():
    rng = np.random.default_rng(0)
    price = None
    data = os.environ.get("SKDPGD_DATA")
    if data and (Path(data) / "diamonds" / "diamonds.csv").exists():
        import pandas as pd

        frame = pd.read_csv(Path(data) / "diamonds" / "diamonds.csv")
        price = frame["price"].to_numpy()[rng.permutation(len(frame))[:7000]]
    if price is None:
        price = np.round(rng.lognormal(8.0, 1.0, 7000))
    return {
        "price": (price.astype(float), True),
        "normal": (rng.normal(size=5000), False),
        "t3": (rng.standard_t(3, 5000), False),
        "lognormal": (rng.lognormal(3.0, 1.0, 5000), False),
        "zeros": (np.where(rng.random(5000) < 0.85, 0, rng.geometric(0.1, 5000)).astype(float),
                  True),
        "year": (rng.integers(1871, 2008, 5000).astype(float), True),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = {}
    for name, (x, integer) in columns().items():
        top = 8.0 * float(np.max(np.abs(x)))
        for mu in MUS:
            lows, highs, far, stretched, wide, clipping = [], [], 0, 0, 0, 0
            for draw in range(args.draws):
                r = column_range(x, mu, np.random.default_rng(10_000 + draw),
                                 integer=integer).range
                lows.append(r.low)
                highs.append(r.high)
                far += bool(r.low < -4 * top or r.high > 4 * top)
                stretched += bool(r.low < -top or r.high > top)
                wide += bool(r.low < -top / 2 or r.high > top / 2)
                clipping += bool(np.mean((x < r.low) | (x > r.high)) > 0.01)
            key = f"{name}/{mu:g}"
            results[key] = {"far": far, "stretched": stretched, "wide": wide, "clip_over_1pct": clipping,
                            "draws": args.draws, "median_low": float(np.median(lows)),
                            "median_high": float(np.median(highs)),
                            "data": [float(x.min()), float(x.max())]}
            print(f"{key:18s} far {far:3d}/{args.draws}  stretched {stretched:3d}  wide {wide:3d}  clip>1% "
                  f"{clipping:4d}  median range [{np.median(lows):.4g}, {np.median(highs):.4g}]"
                  f"  data [{x.min():.4g}, {x.max():.4g}]", flush=True)
    out = {"command": "python benchmarks/far_cells.py --draws "
                      f"{args.draws}" + (f" --out {args.out}" if args.out else ""),
           "machine": f"{platform.machine()}, Python {platform.python_version()}",
           "seconds": time.perf_counter() - started, "results": results}
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
