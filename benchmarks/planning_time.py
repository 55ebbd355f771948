"""Planning time of a default fit: first fit (cold plan cache) against a cached repeat.

``DPLogisticRegression()`` with every default (``solver="auto"``, ``epsilon=1``) on a
synthetic dense 20,000 x 20 problem (rows of norm <= 1), in one process whose numba
kernels (where numba is installed) are already compiled by a warm-up fit on other
public numbers, so that "first" means a cold plan cache only. Medians of ``--repeats``:

* ``plan_first``: ``solver="auto"``'s whole planning (``AutoSolver._plan``: every
  candidate planned and scored by :func:`skdpgd.solvers._auto.choose`, then, where a Gram
  will be released, the candidates of the second choice on its spectrum, planned for the
  rest of the budget) with a cold plan cache, wall-clock and CPU time of
  the process (the latter less sensitive to other processes on a loaded machine);
* ``fit_first`` / ``fit_repeat``: the whole ``fit`` with a cold plan cache, and again with
  the same public numbers (the plan cached: a grid search or an audit refitting one
  configuration), side by side, and their ratio;
* ``search``: a 5-fold ``cross_val_score`` on n rows and on n + 3 rows (folds of two
  sizes), cold cache: how many plans it pays and their total time, against 5 first plans.

With ``--before PATH`` the same measurements run first in a subprocess on the skdpgd
package found under PATH (``PYTHONPATH=PATH``), so that both versions are measured in one
run on one machine; the JSON holds both. ``--compare LABEL=PATH`` (repeatable) measures
further packages the same way, stored under LABEL (e.g. a variant with more candidates).
``--sizes N [N ...]`` measures the first fit against its cached repeat at those n too
(d = 20, this package only; ``by_size`` in the JSON): planning costs the same at every
n, so the ratio falls as the run grows. Usage::

    git archive 8942247 skdpgd | tar -x -C /tmp/before   # the code before the change
    python benchmarks/planning_time.py [--before /tmp/before] [--repeats 7]
        [--compare budgets=/tmp/variant] [--sizes 2000 200000]
        [--out benchmarks/results/planning_time.json]
"""

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

N_SAMPLES, N_FEATURES = 20_000, 20


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = (X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0).astype(float)
    return X, y


def measure(repeats, sizes=()):
    """The measurements on the skdpgd importable here (a dict); ``sizes``: the first fit
    against its cached repeat at those n too (``by_size``)."""
    from sklearn.model_selection import cross_val_score

    import skdpgd
    from skdpgd import DPLogisticRegression
    from skdpgd.solvers import _auto, _base

    def cold():  # every planning cache of the package
        # and the process's garbage: a full collection (36-59 ms with numba and
        # scikit-learn loaded) otherwise lands inside whichever measurement allocates
        # past its threshold, a cost of the whole process's heap, not of planning
        gc.collect()
        _base._cached_plan.cache_clear()
        try:  # the cyclic grid's kept terms (skdpgd.solvers._cyclic), where present
            from skdpgd.solvers._cyclic import clear_grid_terms
        except ImportError:
            try:  # a tree of before the cyclic sub-package
                from skdpgd.solvers._cyclic_grid import clear_grid_terms
            except ImportError:
                return
        clear_grid_terms()

    plans = {"calls": 0, "seconds": 0.0, "cpu": 0.0}
    auto_plan = _auto.AutoSolver._plan

    def timed_plan(self, problem):  # auto's whole planning (choose, spectral candidates)
        tic, cpu = time.perf_counter(), time.process_time()
        try:
            return auto_plan(self, problem)
        finally:
            plans["calls"] += 1
            plans["seconds"] += time.perf_counter() - tic
            plans["cpu"] += time.process_time() - cpu

    _auto.AutoSolver._plan = timed_plan
    X, y = _data(N_SAMPLES, N_FEATURES)
    DPLogisticRegression(classes=[0, 1], random_state=0).fit(X[:5000], y[:5000])  # warm-up

    def first_and_repeat(X, y):  # medians' raw lists: plan, plan CPU, first fit, repeat fit
        rounds = [], [], [], []
        for r in range(repeats):
            cold()
            plans.update(calls=0, seconds=0.0, cpu=0.0)
            model = DPLogisticRegression(classes=[0, 1], random_state=r)
            tic = time.perf_counter()
            model.fit(X, y)
            rounds[2].append(time.perf_counter() - tic)
            rounds[0].append(plans["seconds"])
            rounds[1].append(plans["cpu"])
            tic = time.perf_counter()
            DPLogisticRegression(classes=[0, 1], random_state=r).fit(X, y)
            rounds[3].append(time.perf_counter() - tic)
        return (*rounds, model.solver_)

    plan_first, plan_first_cpu, fit_first, fit_repeat, model_solver = first_and_repeat(X, y)
    by_size = {}
    for n in sizes:  # the same at other n (d = N_FEATURES): planning is a cost per plan
        first = first_and_repeat(*_data(n, N_FEATURES, seed=2))
        by_size[str(n)] = dict(
            plan_first_ms=1e3 * float(np.median(first[0])),
            fit_first_ms=1e3 * float(np.median(first[2])),
            fit_repeat_ms=1e3 * float(np.median(first[3])),
            first_over_repeat=float(np.median(first[2]) / np.median(first[3])),
            chosen=first[4])
    search = {}
    for extra in (0, 3):
        Xs, ys = _data(N_SAMPLES + extra, N_FEATURES, seed=1)
        cold()
        plans.update(calls=0, seconds=0.0)
        tic = time.perf_counter()
        cross_val_score(DPLogisticRegression(classes=[0, 1], random_state=0), Xs, ys, cv=5)
        search[f"n={N_SAMPLES + extra}"] = dict(
            plans_paid=plans["calls"], plan_seconds=plans["seconds"],
            total_seconds=time.perf_counter() - tic,
        )
    _auto.AutoSolver._plan = auto_plan
    med = lambda xs: float(np.median(xs))  # noqa: E731
    return dict(
        skdpgd=str(Path(skdpgd.__file__).parent), chosen=model_solver, by_size=by_size,
        plan_first_ms=1e3 * med(plan_first), plan_first_cpu_ms=1e3 * med(plan_first_cpu),
        fit_first_ms=1e3 * med(fit_first),
        fit_repeat_ms=1e3 * med(fit_repeat),
        first_over_repeat=med(fit_first) / med(fit_repeat),
        search_5_fold=search,
        search_within_5_first_plans=all(
            s["plan_seconds"] <= 5 * med(plan_first) for s in search.values()),
        raw=dict(plan_first=plan_first, plan_first_cpu=plan_first_cpu, fit_first=fit_first,
                 fit_repeat=fit_repeat),
    )


def _merge(measured):
    """One package's rounds as one result: the raw repeats joined, medians over all."""
    raw = {key: [x for m in measured for x in m["raw"][key]] for key in measured[0]["raw"]}
    med = lambda xs: float(np.median(xs))  # noqa: E731
    return dict(
        measured[0], raw=raw, rounds=len(measured),
        plan_first_ms=1e3 * med(raw["plan_first"]),
        plan_first_cpu_ms=1e3 * med(raw["plan_first_cpu"]),
        fit_first_ms=1e3 * med(raw["fit_first"]), fit_repeat_ms=1e3 * med(raw["fit_repeat"]),
        first_over_repeat=med(raw["fit_first"]) / med(raw["fit_repeat"]),
        search_within_5_first_plans=all(
            s["plan_seconds"] <= 5 * med(raw["plan_first"]) for m in measured
            for s in m["search_5_fold"].values()),
        search_5_fold_rounds=[m["search_5_fold"] for m in measured],
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--before", help="a directory holding the skdpgd package before")
    parser.add_argument("--compare", action="append", default=[], metavar="LABEL=PATH",
                        help="another package to measure in the same run, stored as LABEL")
    parser.add_argument("--rounds", type=int, default=1,
                        help="interleave the packages: each measured --repeats times per round, "
                             "every package (this one too) in a subprocess, rounds merged")
    parser.add_argument("--sizes", type=int, nargs="*", default=[],
                        help="also the first fit against its repeat at these n (this package)")
    parser.add_argument("--json-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                             "planning_time.json"))
    args = parser.parse_args(argv)
    if args.json_only:
        print(json.dumps(measure(args.repeats)))
        return
    result = dict(problem=f"DPLogisticRegression() defaults, dense {N_SAMPLES} x {N_FEATURES}",
                  machine=f"{platform.machine()}, {os.cpu_count()} cores, "
                          f"Python {platform.python_version()}, numpy {np.__version__}",
                  load_average_before=os.getloadavg())
    result["command"] = " ".join([Path(sys.executable).name, *sys.argv])
    others = ([("before", args.before)] if args.before else []) + [
        tuple(item.split("=", 1)) for item in args.compare]
    here = str(Path(__file__).resolve().parent.parent)
    runs = {}
    for _ in range(args.rounds):  # on a loaded machine, interleaving shares the load out
        for label, path in others + ([("after", here)] if args.rounds > 1 else []):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
            command = [sys.executable, os.path.abspath(__file__), "--json-only",
                       "--repeats", str(args.repeats)]
            done = subprocess.run(command, env=env, capture_output=True, text=True,
                                  check=True, cwd=path)
            runs.setdefault(label, []).append(json.loads(done.stdout.strip().splitlines()[-1]))
    if args.rounds == 1:
        runs["after"] = [measure(args.repeats, args.sizes)]
    for label, measured in runs.items():
        result[label] = _merge(measured)
    result["load_average_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for label in [label for label, _ in others] + ["after"]:
        if label in result:
            r = result[label]
            print(f"{label:6s} plan (first fit) {r['plan_first_ms']:6.1f} ms "
                  f"(CPU {r['plan_first_cpu_ms']:6.1f} ms) | fit first "
                  f"{r['fit_first_ms']:7.1f} ms, repeat {r['fit_repeat_ms']:6.1f} ms, ratio "
                  f"{r['first_over_repeat']:.2f} | 5-fold search: " + ", ".join(
                      f"{k}: {s['plans_paid']} plans, {1e3 * s['plan_seconds']:.1f} ms"
                      for k, s in r["search_5_fold"].items()) + f" | chose {r['chosen']}")
            for n, row in r.get("by_size", {}).items():
                print(f"       n={n:>7s}: plan {row['plan_first_ms']:6.1f} ms | fit first "
                      f"{row['fit_first_ms']:7.1f} ms, repeat {row['fit_repeat_ms']:7.1f} ms, "
                      f"ratio {row['first_over_repeat']:.2f} | chose {row['chosen']}")


if __name__ == "__main__":
    main()
