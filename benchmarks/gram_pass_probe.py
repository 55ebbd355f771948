"""Device probe: the Gram pass, the label scan and the row factors at 1 and 16 threads.

Parts of a default fit timed alone on a 2,000,000 x 100 float64 design (``PROBE_N`` rows),
medians of 3 after one warm call: the Gram pass (``gram_sum`` over ``ChunkedRowSums`` with
``n_jobs`` threads) at several block sizes (``GRAM_BLOCK_BYTES`` patched), the label scan
without and with a public label set, the row factors. Written to find where the
16-thread default fit lost its speedup (``benchmarks/README.md``, "Multi-core scaling of
the default fit"); ``results/gram_pass_probe_device16.json`` holds its runs on the 16-core
device machine, with the commit each ran on (the runs at 5f6e83d also timed premade
blocks through ``np.matmul`` alone, a variant since removed from this script).

Usage::

    PROBE_NAME=gram_pass_probe OUT=/tmp python benchmarks/gram_pass_probe.py
"""

import json
import os

import numpy as np
from bandwidth import median_seconds
from threadpoolctl import threadpool_info

from skdpgd._data import _design
from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd._data._gram import gram_sum
from skdpgd._data._passes import scan_labels


def main():
    n, d = int(float(os.environ.get("PROBE_N", "2e6"))), 100
    rng = np.random.default_rng(0)
    X = np.empty((n, d))
    for start in range(0, n, 500_000):
        X[start:start + 500_000] = rng.standard_normal((min(500_000, n - start), d)) / np.sqrt(d)
    y = rng.integers(0, 2, n)
    design = ClippedDesign.from_data(X, 1.0, 1.0)
    print([(i["internal_api"], i.get("version"), i["num_threads"]) for i in threadpool_info()])
    out = {}

    def record(key, call):
        out[key] = median_seconds(call, 3)  # after one warm call
        print(key, round(out[key], 4), flush=True)

    default_block = _design.GRAM_BLOCK_BYTES
    for block in [default_block, 2 * default_block, 4 * default_block]:
        _design.GRAM_BLOCK_BYTES = block
        for jobs in [1, 16]:
            def gram(jobs=jobs):
                with ChunkedRowSums(None, design, y.astype(float), n_jobs=jobs) as row_sums:
                    gram_sum(row_sums, n, d + 1)
            record(f"gram block={block >> 10}K jobs={jobs}", gram)
    _design.GRAM_BLOCK_BYTES = default_block
    for jobs in [1, 16]:
        record(f"labels jobs={jobs}", lambda jobs=jobs: scan_labels(y, n_jobs=jobs))
        record(f"labels+classes jobs={jobs}",
               lambda jobs=jobs: scan_labels(y, np.array([0, 1]), n_jobs=jobs))
        record(f"row factors jobs={jobs}",
               lambda jobs=jobs: ClippedDesign.from_data(X, 1.0, 1.0, n_jobs=jobs))
    name = os.environ.get("PROBE_NAME", "gram_pass_probe") + ".json"
    with open(os.path.join(os.environ.get("OUT", "/tmp"), name), "w") as file:
        json.dump(out, file, indent=1)


if __name__ == "__main__":
    main()
