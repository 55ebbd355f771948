"""Default-fit time against scikit-learn's lbfgs, with and without numba.

``DPLogisticRegression()`` with every default (``solver="auto"``, ``epsilon=1``) on Adult
(32,561 x 104, dense float64) and on a synthetic dense 1e6 x 100 problem
(``fit_time.synthetic``), cold plan cache, medians of ``--repeats`` fits; lbfgs
(``LogisticRegression(max_iter=1000)``) on the same arrays. The numba switch is
:data:`skdpgd._data._fused.ENABLED` (``--numba off`` runs the numpy path). One JSON line per run
is appended to ``--output`` with the skdpgd module path, so runs of two versions
(``PYTHONPATH=/tmp/old``) can be compared.

Usage::

    python benchmarks/default_fit_time.py [--numba on|off] [--repeats 3] [--synthetic-n 1e6]
        [--no-lbfgs] [--output benchmarks/results/default_fit_time.jsonl]

Before and after of the change that clips every row by the same steps (the README's
"Fit time with and without a far row")::

    git archive 1dd830c skdpgd | tar -x -C /tmp/old
    for numba in on off; do
        PYTHONPATH=/tmp/old python benchmarks/default_fit_time.py --numba $numba --label before
        python benchmarks/default_fit_time.py --numba $numba --label after
    done
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from datasets import load_adult
from fit_time import synthetic
from sklearn.linear_model import LogisticRegression

import skdpgd
from skdpgd import DPLogisticRegression
from skdpgd._data import _fused
from skdpgd.solvers._base import _cached_plan

RESULTS = Path(__file__).resolve().parent / "results"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numba", choices=["on", "off"], default="on")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--synthetic-n", type=float, default=1e6)
    parser.add_argument("--no-lbfgs", action="store_true")
    parser.add_argument("--label", default="")
    parser.add_argument("--output", default=str(RESULTS / "default_fit_time.jsonl"))
    args = parser.parse_args()
    _fused.ENABLED = args.numba == "on"
    X, y, _, _ = load_adult()
    problems = {"adult": (X, y), "synthetic": synthetic(int(args.synthetic_n))}
    result = {"label": args.label, "skdpgd": str(Path(skdpgd.__file__).parent),
              "numba": _fused.available(), "load_average": os.getloadavg()}
    for name, (A, b) in problems.items():
        fits, lbfgs = [], []
        for seed in range(args.repeats):
            _cached_plan.cache_clear()
            start = time.perf_counter()
            model = DPLogisticRegression(random_state=seed).fit(A, b)
            fits.append(time.perf_counter() - start)
        for _ in range(0 if args.no_lbfgs else args.repeats):
            start = time.perf_counter()
            LogisticRegression(max_iter=1000).fit(A, b)
            lbfgs.append(time.perf_counter() - start)
        result[name] = {
            "shape": list(A.shape), "fit_s": float(np.median(fits)), "steps": int(model.n_iter_),
            "lbfgs_s": float(np.median(lbfgs)) if lbfgs else None,
        }
    print(json.dumps(result))
    with open(args.output, "a") as handle:
        handle.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
