"""Planning time of ``solver="sgd"`` with ``batch_size="auto"``: uniform against Poisson.

``DPLogisticRegression(solver="sgd")`` planned from public numbers only
(``plan_privacy(n, d)``, no data) on the shape of Adult (32,561 x 104) and of a 2,000-row
subsample, epsilon 1 (delta the default):

* ``poisson``: the default sampler (``C="auto"``);
* ``uniform-ball``: ``sampling="uniform"``, ``C=np.inf``, ``max_coef_norm=2`` (the
  minimum of composition without replacement and Altschuler-Talwar's bound);
* ``uniform-default``: ``sampling="uniform"``, ``C="auto"`` (the default ball
  sqrt(2 f0/lam) of the planned lam).

Each case is planned in a fresh subprocess (every cache cold), ``--repeats`` times; the
JSON holds the median wall-clock seconds and the plan (sigma, K, batch size, lam, eta,
epsilon, binding bound, with floats as ``repr``). With ``--before PATH`` the same cases run
on the skdpgd package under PATH, interleaved with this one, and the script asserts that
every planned number is bit-identical. Usage (about 4 minutes with ``--before``)::

    git archive e97c870 skdpgd | tar -x -C /tmp/before   # the code before the change
    nice python benchmarks/sgd_planning_time.py --before /tmp/before --repeats 3 \
        --out benchmarks/results/sgd_planning_time.json
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CASES = {
    "poisson": dict(),
    "uniform-ball": dict(sampling="uniform", C=float("inf"), max_coef_norm=2.0),
    "uniform-default": dict(sampling="uniform"),
}
SHAPES = ((32_561, 104), (2_000, 104))


def plan_once(case, n, d):
    """(seconds, plan) of one plan in this process (the caller starts a fresh one)."""
    from skdpgd import DPLogisticRegression

    est = DPLogisticRegression(epsilon=1.0, classes=[0, 1], solver="sgd", **CASES[case])
    tic = time.perf_counter()
    report = est.plan_privacy(n, d)
    seconds = time.perf_counter() - tic
    keys = ("noise_std", "n_steps", "batch_size", "strong_convexity", "learning_rate",
            "epsilon", "binding_bound")
    plan = {key: repr(getattr(report, key, None)) for key in keys}
    return seconds, plan


def _run(path, case, n, d):
    """One fresh subprocess planning ``case`` with the skdpgd under ``path``."""
    env = dict(os.environ, PYTHONPATH=str(path))
    out = subprocess.run([sys.executable, __file__, "--one", case, str(n), str(d)],
                         env=env, capture_output=True, text=True, check=True, cwd=path)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="a tree holding the old skdpgd")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    parser.add_argument("--one", nargs=3, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        case, n, d = args.one
        seconds, plan = plan_once(case, int(n), int(d))
        print(json.dumps({"seconds": seconds, "plan": plan}))
        return
    trees = {"after": HERE.parent}
    if args.before:
        trees = {"before": Path(args.before).resolve(), **trees}
    rows = []
    for n, d in SHAPES:
        for case in CASES:
            runs = {label: [] for label in trees}
            for _ in range(args.repeats):  # interleaved: the same load on both
                for label, path in trees.items():
                    runs[label].append(_run(path, case, n, d))
            row = dict(case=case, n=n, d=d)
            for label, results in runs.items():
                plans = {json.dumps(r["plan"], sort_keys=True) for r in results}
                assert len(plans) == 1, (label, case, plans)
                row[label] = dict(median_seconds=float(np.median([r["seconds"] for r in
                                                                   results])),
                                  seconds=[r["seconds"] for r in results],
                                  plan=results[0]["plan"])
            if "before" in row:
                assert row["before"]["plan"] == row["after"]["plan"], row  # bit-identical
                row["speedup"] = row["before"]["median_seconds"] / row["after"][
                    "median_seconds"]
            rows.append(row)
            print(case, n, {k: round(row[k]["median_seconds"], 2) for k in trees},
                  row["after"]["plan"]["binding_bound"], flush=True)
    result = dict(command=" ".join(sys.argv), machine=platform.platform(),
                  cpus=os.cpu_count(), load=os.getloadavg(), rows=rows)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
