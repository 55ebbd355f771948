"""One thread: default fits against scikit-learn's lbfgs and Ridge and the read floor, same run.

A well-conditioned dense design (default 1,000,000 x 100 float64, 800 MB): rows drawn
isotropic, of norm about 1 and scaled down to norm 1 where above (so ``data_norm=1`` is
public and clips nothing); logistic labels drawn from a planted model (Bernoulli of
``sigmoid(x . w)``, ``||w|| = 4 sqrt(d)``), and a regression target
``clip(x . beta + 0.1 noise, -1, 1)`` bounded by 1 (``DPRidge(y_bound=1)``). One BLAS,
OpenMP and numba thread (the variables are set before numpy is imported, in every
process); ``--threads N`` sets N of each instead and ``n_jobs=N`` for the skdpgd fits (the
multi-core speedup: run it with 1 and with N, and divide). In the same run, interleaved round by round (medians of ``--repeats``):

* ``floor``: one read of X (``dot(X.ravel(), X.ravel())``, BLAS, as in ``bandwidth.py``);
  every time below is also given in units of this floor ("floors": how many reads of X
  the method costs);
* ``lbfgs``: ``LogisticRegression()`` (lbfgs, default ``tol`` and ``max_iter``);
  ``ridge``: ``Ridge()`` (closed form, ``solver="auto"``);
* ``dplog``: ``DPLogisticRegression()``; ``dpridge``: ``DPRidge(y_bound=1)``, every other
  parameter at its default, cold plan cache (a user's first fit);
* ``dplog@K``, ``dpridge@K`` for each ``--budgets K``: the same with
  ``solver="preconditioned", max_iter=K``, i.e. what a default that runs K passes of the
  preconditioned solver would cost (the pass budgets of ``solver="auto"``'s candidates);
* for every skdpgd fit, where its time goes, from timers around the library's own steps:
  ``planning`` (plan and report from public numbers), ``labels`` (the label scan),
  ``row_factors`` (the clipping factors, which are also the finiteness check),
  ``gram`` (the Gram pass), ``passes`` (the gradient passes, with their count ``n_passes``),
  ``rest_of_run`` (noise, the preconditioner, the steps' arithmetic) and ``outside``
  (validation, copies, storing: the fit less all of the above).

``--baseline DIR`` also times the skdpgd fits of another copy of the package (a directory
holding ``skdpgd/``, e.g. ``git archive <commit> skdpgd | tar -x -C /tmp/old``) in the same
run, in its own process, round by round with this checkout's: before and after a change.
Each time is also taken as the process's CPU time: on a machine shared with other jobs,
the CPU ratios are the steadier ones (they leave out the time other jobs held the core, not
the memory bandwidth they used). Test accuracy (``--n-test`` held-out rows) is recorded for the classifiers and R^2 for the
regressors. Everything, with the load average before and after, is appended to the list of
runs in ``--out``.

Usage::

    nice python benchmarks/one_core_fit_time.py --budgets 10 20 \\
        --out benchmarks/results/one_core_fit_time.json
    nice python benchmarks/one_core_fit_time.py --baseline /tmp/old --repeats 3
"""

import os
import shlex
import sys


def _threads_argument(argv):
    """The value of ``--threads`` (1 if absent), read before numpy is imported."""
    for index, word in enumerate(argv):
        if word == "--threads" and index + 1 < len(argv):
            return int(argv[index + 1])
        if word.startswith("--threads="):
            return int(word.split("=", 1)[1])
    return 1


THREADS = _threads_argument(sys.argv)
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_name] = str(THREADS)

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def make_data(n, d, n_test, seed=0):
    """X (rows of norm <= 1), logistic labels of a planted model, a target in [-1, 1]."""
    rng = np.random.default_rng(seed)
    m = n + n_test
    X = np.empty((m, d))
    for start in range(0, m, 500_000):  # bounded temporaries
        stop = min(m, start + 500_000)
        block = rng.standard_normal((stop - start, d)) / np.sqrt(d)
        block /= np.maximum(1.0, np.linalg.norm(block, axis=1))[:, None]
        X[start:stop] = block
    w = rng.standard_normal(d)
    w *= 4.0 * np.sqrt(d) / np.linalg.norm(w)
    labels = (rng.random(m) < 1.0 / (1.0 + np.exp(-(X @ w)))).astype(np.int64)
    beta = rng.standard_normal(d)
    beta *= 0.3 * np.sqrt(d) / np.linalg.norm(beta)
    target = np.clip(X @ beta + 0.1 * rng.standard_normal(m), -1.0, 1.0)
    return X, labels, target


# -- worker side: one process per copy of skdpgd, data loaded once -------------------------
class Timers:
    """Wall time of the library's steps during one fit (patched around its own functions)."""

    def __init__(self):
        self.seconds, self.n_passes = {}, 0

    def add(self, key, seconds):
        self.seconds[key] = self.seconds.get(key, 0.0) + seconds

    def wrap(self, owner, name, key, *, classmethod_=False):
        original = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name)
        if original is None:
            return
        function = original.__func__ if classmethod_ else original
        timers = self

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                if key == "sums":  # a gradient pass, or the Gram pass (its method's name)
                    method = args[4] if len(args) > 4 else kwargs.get("method")
                    gram = getattr(method, "__name__", "") == "chunk_gram"
                    timers.add("gram" if gram else "passes", elapsed)
                    timers.n_passes += 0 if gram else 1
                else:
                    timers.add(key, elapsed)

        setattr(owner, name, classmethod(timed) if classmethod_ else timed)


def instrument(timers):
    from skdpgd._data import _design, _gradients
    from skdpgd.linear_model import _base, _labels

    timers.wrap(_base.BaseDPLinearModel, "_plan_and_report", "planning")
    timers.wrap(_base.BaseDPLinearModel, "_run", "run")
    timers.wrap(_labels, "scan_labels", "labels")
    timers.wrap(_design.ClippedDesign, "from_data", "row_factors", classmethod_=True)
    timers.wrap(_gradients.ChunkedRowSums, "_reduce", "sums")


def estimator(method):
    """(estimator, kind) of a method name."""
    from sklearn.linear_model import LogisticRegression, Ridge

    from skdpgd import DPLogisticRegression, DPRidge

    name, _, budget = method.partition("@")
    explicit = {"solver": "preconditioned", "max_iter": int(budget)} if budget else {}
    return {
        "lbfgs": (LogisticRegression(), "log"), "ridge": (Ridge(), "reg"),
        "dplog": (DPLogisticRegression(random_state=0, n_jobs=THREADS, **explicit), "log"),
        "dpridge": (DPRidge(y_bound=1.0, random_state=0, n_jobs=THREADS, **explicit), "reg"),
    }[name]


def worker(data_dir, n):
    import skdpgd
    from skdpgd.solvers._base import _cached_plan

    X_all = np.load(Path(data_dir) / "X.npy")
    labels, target = np.load(Path(data_dir) / "labels.npy"), np.load(Path(data_dir) / "target.npy")
    X, X_test = X_all[:n], X_all[n:]
    targets = {"log": (labels[:n], labels[n:]), "reg": (target[:n], target[n:])}
    timers = Timers()
    instrument(timers)
    print(json.dumps({"skdpgd": str(Path(skdpgd.__file__).parent)}), flush=True)
    for line in sys.stdin:
        method = json.loads(line)["method"]
        if method == "floor":
            flat = X.ravel()
            start, cpu = time.perf_counter(), time.process_time()
            float(np.dot(flat, flat))
            print(json.dumps({"seconds": time.perf_counter() - start,
                              "cpu_seconds": time.process_time() - cpu}), flush=True)
            continue
        model, kind = estimator(method)
        y, y_test = targets[kind]
        if method.startswith("dp"):  # warm: numba's kernels loaded, imports done
            estimator(method)[0].fit(X[:2000], y[:2000])
        _cached_plan.cache_clear()
        timers.seconds, timers.n_passes = {}, 0
        start, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        n_iter = getattr(model, "n_iter_", None)
        result = {"seconds": seconds, "cpu_seconds": cpu,
                  "score": float(model.score(X_test, y_test)),
                  "n_iter": None if n_iter is None else int(np.max(n_iter)),
                  "solver": getattr(model, "solver_", None)}
        if method.startswith("dp"):
            parts = dict(timers.seconds)
            run = parts.pop("run", 0.0)
            inside = sum(parts.get(k, 0.0) for k in ("row_factors", "gram", "passes"))
            parts["rest_of_run"] = run - inside
            parts["outside"] = seconds - run - parts.get("planning", 0.0) - parts.get("labels", 0.0)
            result.update(breakdown=parts, n_passes=timers.n_passes)
        print(json.dumps(result), flush=True)


# -- driver --------------------------------------------------------------------------------
class Worker:
    def __init__(self, package_root, data_dir, n):
        env = dict(os.environ, PYTHONPATH=str(package_root))
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--worker", data_dir, "--n", str(n),
             "--threads", str(THREADS)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )
        self.skdpgd = json.loads(self.process.stdout.readline())["skdpgd"]

    def ask(self, method):
        self.process.stdin.write(json.dumps({"method": method}) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def summarise(runs, floor):
    """Medians over repeats of the time, its ratio to the floor, and of each breakdown part."""
    out = {"seconds": float(np.median([r["seconds"] for r in runs])),
           "cpu_seconds": float(np.median([r["cpu_seconds"] for r in runs])),
           "score": runs[0]["score"], "n_iter": runs[0]["n_iter"], "solver": runs[0]["solver"],
           "all_seconds": [round(r["seconds"], 4) for r in runs]}
    out["floors"] = out["seconds"] / floor
    if "breakdown" in runs[0]:
        keys = sorted({k for r in runs for k in r["breakdown"]})
        out["breakdown"] = {k: float(np.median([r["breakdown"].get(k, 0.0) for r in runs]))
                            for k in keys}
        out["n_passes"] = runs[0]["n_passes"]
        passes = out["breakdown"].get("passes", 0.0)
        out["floor_over_pass"] = (floor * out["n_passes"] / passes) if passes else None
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--n-test", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budgets", type=int, nargs="*", default=[])
    parser.add_argument("--methods", nargs="+", default=["lbfgs", "ridge", "dplog", "dpridge"])
    parser.add_argument("--baseline", default=None, help="directory holding an older skdpgd/")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS / OpenMP / numba threads of every method and n_jobs of the "
                             "skdpgd fits (default 1)")
    parser.add_argument("--label", default="")
    parser.add_argument("--out", default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    n = int(args.n)
    if args.worker:
        return worker(args.worker, n)
    load_before = os.getloadavg()
    dp = [m for m in args.methods if m.startswith("dp")]
    dp += [f"{m}@{k}" for k in args.budgets for m in ("dplog", "dpridge") if m in dp]
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        X, labels, target = make_data(n, args.d, args.n_test)
        for name, array in (("X", X), ("labels", labels), ("target", target)):
            np.save(Path(tmp) / f"{name}.npy", array)
        del X, labels, target
        variants = {"current": Worker(ROOT, tmp, n)}
        if args.baseline:
            variants["baseline"] = Worker(Path(args.baseline).resolve(), tmp, n)
        current = variants["current"]
        runs = {}
        for _ in range(args.repeats):
            runs.setdefault("floor", []).append(current.ask("floor"))
            for method in [m for m in args.methods if not m.startswith("dp")]:
                runs.setdefault(method, []).append(current.ask(method))
            for method in dp:
                for name, variant in variants.items():
                    runs.setdefault(f"{name}:{method}", []).append(variant.ask(method))
            runs["floor"].append(current.ask("floor"))
        packages = {name: variant.skdpgd for name, variant in variants.items()}
        for variant in variants.values():
            variant.close()
    floor = float(np.median([r["seconds"] for r in runs["floor"]]))
    methods = {m: summarise(r, floor) for m, r in runs.items() if m != "floor"}
    ratios, cpu_ratios = {}, {}
    for key, value in methods.items():
        reference = methods.get("lbfgs" if "dplog" in key else "ridge")
        if ":" in key and reference:
            ratios[key] = value["seconds"] / reference["seconds"]
            cpu_ratios[key] = value["cpu_seconds"] / reference["cpu_seconds"]
    result = {"command": shlex.join(["python", *sys.argv]), "label": args.label,
              "shape": [n, args.d], "repeats": args.repeats, "cpus": os.cpu_count(),
              "threads": THREADS,
              "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "packages": packages, "floor_s": floor, "floor_GBps": n * args.d * 8 / floor / 1e9,
              "floor_cpu_s": float(np.median([r["cpu_seconds"] for r in runs["floor"]])),
              "ratio_to_sklearn": ratios, "cpu_ratio_to_sklearn": cpu_ratios, "methods": methods}
    print(f"floor {floor:.3f} s ({result['floor_GBps']:.1f} GB/s); load {load_before}")
    print("| method | s | CPU s | floors | x sklearn | x sklearn (CPU) | passes | floor / pass | "
          "score | breakdown (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for key, value in methods.items():
        parts = ", ".join(f"{k} {v:.2f}" for k, v in value.get("breakdown", {}).items())
        ratio = ratios.get(key)
        per_pass = value.get("floor_over_pass")
        cpu_ratio = cpu_ratios.get(key)
        print(f"| {key} | {value['seconds']:.2f} | {value['cpu_seconds']:.2f} | "
              f"{value['floors']:.1f} | {'' if ratio is None else f'{ratio:.2f}'} | "
              f"{'' if cpu_ratio is None else f'{cpu_ratio:.2f}'} | {value.get('n_passes', '')} | "
              f"{'' if per_pass is None else f'{per_pass:.2f}'} | {value['score']:.4f} | "
              f"{parts} |")
    if args.out:  # a list of runs: this one appended
        out = Path(args.out)
        runs = json.loads(out.read_text())["runs"] if out.exists() else []
        out.write_text(json.dumps({"runs": [*runs, result]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
