"""Defaults benchmark: DPLogisticRegression() and DPRidge(y_bound=1), nothing tuned.

One run, delta = 1e-5, replace-one neighbours, medians over seeds 0..seeds-1 (the seed is the
estimator's ``random_state``; nothing else varies):

(a) **Adult** test accuracy at epsilon in {0.1, 0.25, 0.5, 1, 2, 4, 8, inf} with
    ``DPLogisticRegression(epsilon, delta=1e-5, classes=[0, 1], random_state=seed)`` (the
    default ``solver="auto"``, ``data_norm=1``), next to scikit-learn's
    ``LogisticRegression(C=1, lbfgs, max_iter=1000)`` and, for reference, the same estimator
    with ``solver="gd"`` (the previous default) and ``solver="cyclic"``.
(b) **diamonds** test R^2 (log price) with ``DPRidge(epsilon, delta=1e-5, y_bound=1.0,
    random_state=seed)`` on both preprocessings of ``datasets.py`` (``load_diamonds``: carat
    on the log scale; ``load_diamonds_linear``: every numeric column linear in [0, 1], the
    ill-conditioned one), next to ``Ridge(alpha=1)`` and the ``"gd"`` / ``"cyclic"`` rows.
    Zero noise (epsilon = inf): the default's model against the minimiser of the SAME
    objective (the estimator's loss, residual clip, intercept column b and lam, on the clipped
    rows and targets) found by scipy's L-BFGS-B (the lbfgs solver scikit-learn calls), to
    gtol 1e-10: the difference in test score and in objective value.
(c) **Fit time** of the default over scikit-learn's lbfgs ``LogisticRegression(C=1,
    max_iter=1000)`` on the same arrays, interleaved in the same loop, medians over
    ``--repeats``: Adult dense at epsilon 0.1, 1, 8 (and inf, the zero-noise path); a
    synthetic dense logistic problem (``--synthetic-n`` x 100, Gaussian rows divided by
    sqrt(d) then by max(1, norm), so every row norm <= 1; labels from a noisy linear rule)
    at epsilon 1 with delta="auto" (1e-7 there: delta = 1e-5 is refused for n >= 1e5, it
    must be below 1/n), over ``--synthetic-repeats``. Each default fit starts with an empty
    plan cache (a user's first fit, planning included). skdpgd pins BLAS to one thread
    inside ``fit``; lbfgs is timed both under ``threadpool_limits(1)`` and with the BLAS
    threads the process has, and the ratio uses the FASTER of the two lbfgs timings (the
    stricter reference).
(d) **Which bound binds** (``privacy_.binding_bound``) and which solver "auto" chose
    (``solver_``) per data set and epsilon, for the default and for ``"gd"`` / ``"cyclic"``,
    with mu and what composition would claim for the same run (mu_comp / mu is also the
    factor of extra noise composition would need: its mu is proportional to 1/sigma); plus
    plan-only rows for the default and ``"gd"`` (``plan_privacy``: the plan reads public
    numbers only, no data; delta="auto") for designs wider than 2000 columns, where "auto"
    has no preconditioned candidate and picks ``"gd"`` or ``"cyclic"`` (2 to 64 batches) by
    predicted excess loss. The results in benchmarks/README.md ("Defaults") were measured
    with the previous default, ``"auto"`` -> ``"preconditioned"`` up to 2000 columns.

Usage, from the repository root (about 15-20 minutes on 2 shared cores)::

    SKDPGD_DATA=/path/to/data nice python benchmarks/defaults.py [--seeds 5] [--repeats 7]
        [--synthetic-n 1e6] [--synthetic-repeats 3] [--epsilons ...] [--out PATH]

Writes ``benchmarks/results/defaults.json`` (every fit) and prints markdown tables.
"""

import argparse
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_info, threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # the checkout's skdpgd

from datasets import load_adult, load_diamonds, load_diamonds_linear
from sklearn.linear_model import LogisticRegression, Ridge

import skdpgd
from skdpgd import DPLogisticRegression, DPRidge
from skdpgd.losses import BinaryLogisticLoss, HuberLoss

DELTA = 1e-5
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, math.inf)
LOADERS = {"adult": load_adult, "diamonds": load_diamonds, "diamonds-linear": load_diamonds_linear}
#: method name -> the ``solver=`` given (None: the default, not passed at all)
METHODS = {"default": None, "gd": "gd", "cyclic": "cyclic"}
#: epsilon = inf is an extra row (the zero-noise path's time), not one of the targets
TIMING_EPSILONS = (0.1, 1.0, 8.0, math.inf)
#: plan-only rows: (label, n, d) of designs wider than the preconditioner's 2000 columns
WIDE_SHAPES = (("Adult n, d = 5000 (plan only)", 32561, 5000),
               ("n = 1e6, d = 5000 (plan only)", 1_000_000, 5000))


def estimator(dataset, epsilon, seed, solver=None, delta=DELTA):
    kw = {} if solver is None else {"solver": solver}
    if dataset == "adult" or dataset == "synthetic":
        return DPLogisticRegression(epsilon=epsilon, delta=delta, classes=[0, 1],
                                    random_state=seed, **kw)
    return DPRidge(epsilon=epsilon, delta=delta, y_bound=1.0, random_state=seed, **kw)


def reference(dataset):
    if dataset == "adult":
        return LogisticRegression(C=1.0, max_iter=1000)
    return Ridge(alpha=1.0)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def clear_plan_cache():
    """Empty the cache of public plans, so a timed fit plans as a user's first fit does."""
    from skdpgd.solvers._base import _cached_plan

    _cached_plan.cache_clear()


def _eps_key(eps):
    return "inf" if eps == math.inf else f"{eps:g}"


# --------------------------------------------------------------------------- #
# (a), (b), (d): accuracy and the privacy report of every fit
# --------------------------------------------------------------------------- #

def accuracy(dataset, epsilons, seeds, log):
    X, y, Xt, yt = LOADERS[dataset]()
    with threadpool_limits(1):
        ref, seconds = timed(lambda: reference(dataset).fit(X, y))
    out = dict(n=X.shape[0], d=X.shape[1], reference=dict(
        estimator=repr(reference(dataset)), score=float(ref.score(Xt, yt)), fit_time=seconds))
    rows = []
    for eps in epsilons:
        for method, solver in METHODS.items():
            for seed in seeds:
                est = estimator(dataset, eps, seed, solver)
                _, seconds = timed(lambda est=est: est.fit(X, y))
                p = est.privacy_
                rows.append(dict(
                    method=method, epsilon=eps, seed=seed, score=float(est.score(Xt, yt)),
                    fit_time=seconds, solver_=est.solver_, n_iter=int(est.n_iter_),
                    binding_bound=p.binding_bound, theorem=p.theorem, mu=float(p.mu),
                    # preconditioned: composition is its bound (its report has no second mu)
                    composition_mu=float(getattr(p, "composition_mu", p.mu)),
                    reported_epsilon=float(p.epsilon), noise_std=float(est.noise_std_),
                    strong_convexity=float(est.strong_convexity_),
                    batch_size=est.batch_size_,
                ))
            sel = [r for r in rows if r["method"] == method and r["epsilon"] == eps]
            log(f"{dataset} eps={_eps_key(eps)} {method}: median "
                f"{np.median([r['score'] for r in sel]):.4f} ({sel[0]['solver_']}, "
                f"{sel[0]['binding_bound']}, K={sel[0]['n_iter']}, "
                f"{np.median([r['fit_time'] for r in sel]):.2f}s)")
    out["rows"] = rows
    if math.inf in epsilons:
        out["zero_noise"] = zero_noise(dataset, X, y, Xt, yt, log)
    return out


def zero_noise(dataset, X, y, Xt, yt, log):
    """The default at epsilon = inf against L-BFGS-B on the very same objective."""
    est = estimator(dataset, math.inf, 0).fit(X, y)
    n, d = X.shape
    b, lam, clip = est.intercept_scaling_, est.strong_convexity_, est.residual_clip_
    norms = np.linalg.norm(X, axis=1)
    design = np.hstack([X / np.maximum(1.0, norms / est.data_norm)[:, None], np.full((n, 1), b)])
    if dataset == "adult":
        loss, target = BinaryLogisticLoss(clip), y.astype(float)
        ours = np.append(est.coef_[0], est.intercept_[0] / b)
    else:
        loss, target = HuberLoss(clip), np.clip(y, -est.y_bound, est.y_bound)
        ours = np.append(est.coef_, est.intercept_ / b)

    def objective(theta):
        value = loss.value_sum(theta, design, target) / n + 0.5 * lam * theta @ theta
        grad = loss.gradient_sum(theta, design, target) / n + lam * theta
        return value, grad

    with threadpool_limits(1):
        result, seconds = timed(lambda: minimize(
            objective, np.zeros(d + 1), jac=True, method="L-BFGS-B",
            options=dict(gtol=1e-10, ftol=1e-15, maxiter=20_000, maxfun=40_000)))
    theta = result.x
    if dataset == "adult":
        ref_score = float(np.mean(((Xt @ theta[:-1] + theta[-1] * b) > 0) == (yt > 0.5)))
    else:
        pred = Xt @ theta[:-1] + theta[-1] * b
        ref_score = float(1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2))
    out = dict(
        loss=repr(loss), residual_clip=float(clip), strong_convexity=float(lam),
        intercept_scaling=float(b), solver_=est.solver_, n_iter=int(est.n_iter_),
        default_score=float(est.score(Xt, yt)), lbfgs_same_objective_score=ref_score,
        default_objective=float(objective(ours)[0]), lbfgs_objective=float(result.fun),
        lbfgs_iterations=int(result.nit), lbfgs_converged=bool(result.success),
        lbfgs_message=str(result.message), lbfgs_seconds=seconds,
    )
    log(f"{dataset} zero noise: default {out['default_score']:.4f} "
        f"(F={out['default_objective']:.6g})"
        f" vs L-BFGS-B same objective {ref_score:.4f} (F={result.fun:.6g}, {result.nit} it, "
        f"{result.message})")
    return out


# --------------------------------------------------------------------------- #
# (c): fit time against lbfgs, interleaved
# --------------------------------------------------------------------------- #

def synthetic(n, d=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # every row norm <= 1
    w = rng.standard_normal(d)
    y = (X @ w + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def fit_times(name, X, y, epsilons, repeats, delta, log):
    """Per repeat: lbfgs (1 BLAS thread), the default at each epsilon, lbfgs (process threads)."""
    times = {"lbfgs_1_thread": [], "lbfgs_process_threads": []}
    info = {}
    for eps in epsilons:
        times[_eps_key(eps)] = []
    for rep in range(repeats):
        with threadpool_limits(1):
            _, seconds = timed(lambda: LogisticRegression(C=1.0, max_iter=1000).fit(X, y))
        times["lbfgs_1_thread"].append(seconds)
        for eps in epsilons:
            est = estimator("synthetic", eps, rep, delta=delta)
            clear_plan_cache()
            _, seconds = timed(lambda est=est: est.fit(X, y))
            times[_eps_key(eps)].append(seconds)
            info[_eps_key(eps)] = dict(solver_=est.solver_, n_iter=int(est.n_iter_),
                                       delta=float(est.privacy_.delta))
        _, seconds = timed(lambda: LogisticRegression(C=1.0, max_iter=1000).fit(X, y))
        times["lbfgs_process_threads"].append(seconds)
        log(f"{name} repeat {rep}: " + ", ".join(f"{k} {v[-1]:.3f}s" for k, v in times.items()))
    med = {k: float(np.median(v)) for k, v in times.items()}
    lbfgs = min(med["lbfgs_1_thread"], med["lbfgs_process_threads"])
    return dict(
        shape=list(X.shape), repeats=repeats, seconds=times, medians=med, lbfgs_reference=lbfgs,
        ratios={_eps_key(e): med[_eps_key(e)] / lbfgs for e in epsilons}, runs=info,
        # the same repeat's fits ran back to back: their ratio cancels slow drifts in load
        paired_ratio_medians={_eps_key(e): float(np.median(
            np.array(times[_eps_key(e)]) / np.array(times["lbfgs_1_thread"]))) for e in epsilons},
    )


# --------------------------------------------------------------------------- #
# (d): plan-only rows for wide designs
# --------------------------------------------------------------------------- #

def wide_plans(epsilons):
    """What the default and "gd" would run on designs wider than 2000 columns (no data)."""
    rows = []
    for label, n, d in WIDE_SHAPES:
        for eps in epsilons:
            if eps == math.inf:
                continue
            for method in ("default", "gd"):
                est = estimator("adult", eps, 0, METHODS[method], delta="auto")
                p = est.plan_privacy(n, d, 2)
                chose = [re.search(r"chose '?(\w+)", note) for note in p.notes]
                chose = [m.group(1) for m in chose if m]
                rows.append(dict(shape=label, n=n, d=d, method=method, epsilon=eps,
                                 solver_=chose[0] if chose else METHODS[method],
                                 binding_bound=p.binding_bound, mu=float(p.mu),
                                 composition_mu=float(getattr(p, "composition_mu", p.mu)),
                                 n_iter=int(p.n_steps), delta=float(p.delta),
                                 batch_size=getattr(p, "batch_size", None)))
    return rows


# --------------------------------------------------------------------------- #
# tables
# --------------------------------------------------------------------------- #

def _median(rows, method, eps, key="score"):
    vals = [r[key] for r in rows if r["method"] == method and r["epsilon"] == eps]
    return float(np.median(vals)) if vals else None


def tables(results, epsilons):
    lines = []
    head = " | ".join(_eps_key(e) for e in epsilons)
    for dataset, block in results["accuracy"].items():
        rows, ref = block["rows"], block["reference"]
        metric = "test accuracy" if dataset == "adult" else "test R^2"
        lines += ["", f"{dataset} ({block['n']} x {block['d']}), {metric}, median of seeds",
                  "", f"| method | {head} |", "|---|" + "---:|" * len(epsilons)]
        lines.append(f"| {ref['estimator']} | " + " | ".join(
            f"{ref['score']:.4f}" for _ in epsilons) + " |")
        for method in METHODS:
            cells = [_median(rows, method, e) for e in epsilons]
            lines.append(f"| {method} | " + " | ".join(
                "" if c is None else f"{c:.4f}" for c in cells) + " |")
        lines += ["", "| method (median fit s, K) | " + head + " |",
                  "|---|" + "---:|" * len(epsilons)]
        for method in METHODS:
            cells = []
            for e in epsilons:
                t, k = _median(rows, method, e, "fit_time"), _median(rows, method, e, "n_iter")
                cells.append("" if t is None else f"{t:.2f}s K={k:g}")
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        zn = block.get("zero_noise")
        if zn:
            lines += ["", f"zero noise: default {zn['default_score']:.4f} vs L-BFGS-B on the same "
                      f"objective {zn['lbfgs_same_objective_score']:.4f}; objective "
                      f"{zn['default_objective']:.8g} vs {zn['lbfgs_objective']:.8g}"]
    lines += ["", "which bound binds: solver_, binding bound (mu_comp / mu)", "",
              f"| data set, method | {head} |", "|---|" + "---|" * len(epsilons)]
    groups = [(f"{ds}, {m}", [r for r in b["rows"] if r["method"] == m and r["seed"] == 0])
              for ds, b in results["accuracy"].items() for m in METHODS]
    wide = {}
    for r in results.get("wide_plans", []):
        wide.setdefault(f"{r['shape']}, {r['method']}", []).append(r)
    groups += list(wide.items())
    for label, sel in groups:
        cells = []
        for e in epsilons:
            hit = [r for r in sel if r["epsilon"] == e]
            if not hit:
                cells.append("")
                continue
            r = hit[0]
            ratio = r["composition_mu"] / r["mu"] if math.isfinite(r["mu"]) else None
            cells.append(f"{r['solver_']}: {r['binding_bound']}"
                         + ("" if ratio is None else f" ({ratio:.2f})"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "fit time / lbfgs (medians; lbfgs = faster of 1 thread and process threads)", ""]
    for name, block in results.get("fit_time", {}).items():
        med = block["medians"]
        lines.append(f"{name} {block['shape']}: lbfgs 1 thread {med['lbfgs_1_thread']:.3f}s, "
                     f"process threads {med['lbfgs_process_threads']:.3f}s; " + ", ".join(
                         f"eps {k}: {med[k]:.3f}s = {v:.2f}x (paired "
                         f"{block['paired_ratio_medians'][k]:.2f}x; {block['runs'][k]['solver_']}, "
                         f"K={block['runs'][k]['n_iter']})" for k, v in block["ratios"].items()))
    return "\n".join(lines)


def _finite(value):
    """JSON-safe copy: infinities and NaN become strings."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(LOADERS))
    parser.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--synthetic-n", type=float, default=1e6)
    parser.add_argument("--synthetic-repeats", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "results" / "defaults.json"))
    args = parser.parse_args(argv)

    def log(msg):
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    meta = dict(
        command=" ".join([Path(sys.executable).name, *sys.argv]), commit=_commit(),
        skdpgd=getattr(skdpgd, "__version__", None), python=platform.python_version(),
        numpy=np.__version__, sklearn=__import__("sklearn").__version__,
        machine=platform.machine(), cpu_count=os.cpu_count(), load_average_start=os.getloadavg(),
        threadpools=[{k: t.get(k) for k in ("internal_api", "num_threads", "version")}
                     for t in threadpool_info()],
        delta=DELTA, seeds=args.seeds, epsilons=[_eps_key(e) for e in args.epsilons],
    )
    results = dict(accuracy={}, fit_time={})
    for dataset in args.datasets:
        results["accuracy"][dataset] = accuracy(dataset, args.epsilons, range(args.seeds), log)
    results["wide_plans"] = wide_plans(args.epsilons)
    if args.repeats:
        X, y, _, _ = load_adult()
        results["fit_time"]["adult"] = fit_times("adult", X, y, TIMING_EPSILONS, args.repeats,
                                                 DELTA, log)
    if args.synthetic_n and args.synthetic_repeats:
        X, y = synthetic(int(args.synthetic_n))
        results["fit_time"]["synthetic"] = fit_times("synthetic", X, y, (1.0,),
                                                     args.synthetic_repeats, "auto", log)
        del X, y
    meta.update(wall_seconds=time.perf_counter() - started, load_average_end=os.getloadavg())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_finite(dict(meta=meta, results=results)), indent=1,
                              allow_nan=False) + "\n")
    print(tables(results, args.epsilons))


if __name__ == "__main__":
    main()
