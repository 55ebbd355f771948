"""``solver="auto"`` against auto without its second choice, per seed, on chosen grid cells.

The validation grid (``auto_grid.py --auto-variants``) compares the medians of 5 seeds of
``auto`` and ``auto-public`` (auto without its second choice). This script runs only those
two arms (the same problems, seeds and estimators as ``auto_grid.run_task``) on the cells
named, at more seeds, and reports the paired per-seed differences auto minus auto-public:
their median, mean and standard error (sample standard deviation over sqrt(seeds)), so
that a cell's gap can be told from the seed noise.

Usage, from the repository root::

    nice python benchmarks/auto_second_choice_cells.py --cells synthetic-1500:4 \\
        synthetic-10:0.1 [--seeds 15] [--n-jobs 1] [--out PATH]
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # the checkout's skdpgd

import auto_grid

ARMS = ("auto", "auto-public")


def paired(rows, problem, epsilon):
    """Per-seed auto minus auto-public of one cell, and its summary."""
    by = {(r["method"], r["seed"]): r for r in rows
          if r["problem"] == problem and r["epsilon"] == epsilon and r.get("score") is not None}
    seeds = sorted(s for (m, s) in by if m == "auto" and ("auto-public", s) in by)
    diff = np.array([by["auto", s]["score"] - by["auto-public", s]["score"] for s in seeds])
    auto = [by["auto", s]["score"] for s in seeds]
    public = [by["auto-public", s]["score"] for s in seeds]
    return dict(problem=problem, epsilon=epsilon, seeds=seeds,
                auto_chose=[by["auto", s].get("solver_") for s in seeds],
                public_chose=[by["auto-public", s].get("solver_") for s in seeds],
                difference=diff.tolist(),
                median_auto_minus_median_public=float(np.median(auto) - np.median(public)),
                median_difference=float(np.median(diff)), mean_difference=float(diff.mean()),
                standard_error=float(diff.std(ddof=1) / math.sqrt(diff.size))
                if diff.size > 1 else None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", required=True, metavar="PROBLEM:EPS")
    parser.add_argument("--seeds", type=int, default=15)
    parser.add_argument("--synthetic-n", type=int, default=50_000)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default=str(HERE / "results" / "auto_second_choice_cells.json"))
    args = parser.parse_args(argv)
    cells = [(c.split(":")[0], float(c.split(":")[1])) for c in args.cells]
    started = time.perf_counter()
    tasks = [(p, e, s) for p, e in cells for s in range(args.seeds)]
    rows = []
    jobs = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(auto_grid.run_task)(p, e, s, list(ARMS), args.synthetic_n) for p, e, s in tasks)
    for done, result in enumerate(jobs, 1):
        rows += [r for r in result if r["method"] in ARMS]
        print(f"[{time.perf_counter() - started:7.1f}s] {done}/{len(tasks)} "
              + ", ".join(f"{r['problem']} eps={r['epsilon']:g} seed={r['seed']} {r['method']} "
                          f"{r.get('score')} ({r.get('solver_')})" for r in result
                          if r["method"] in ARMS), file=sys.stderr, flush=True)
    summary = [paired(rows, p, e) for p, e in cells]
    print("| problem | eps | seeds | median auto - median public | median of differences "
          "| mean (standard error) | auto chose |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for c in summary:
        chose = {s: c["auto_chose"].count(s) for s in dict.fromkeys(c["auto_chose"])}
        print(f"| {c['problem']} | {c['epsilon']:g} | {len(c['seeds'])} | "
              f"{c['median_auto_minus_median_public']:+.4f} | {c['median_difference']:+.4f} | "
              f"{c['mean_difference']:+.4f} ({c['standard_error']:.4f}) | "
              + ", ".join(f"{k} {v}" for k, v in chose.items()) + " |")
        print("  per seed: " + " ".join(f"{d:+.4f}" for d in c["difference"]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join([Path(sys.executable).name, *sys.argv]), commit=auto_grid._commit(),
        seconds=time.perf_counter() - started, cells=summary, rows=rows),
        indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
