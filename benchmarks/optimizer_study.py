"""Optimizer study: Gram-preconditioned noisy GD against the current solvers and lbfgs.

Three data sets (public preprocessing, ``datasets.py``): Adult (binary logistic), diamonds
(Huber regression on log price, carat on the log scale) and ``diamonds-linear`` (every
numeric column scaled LINEARLY to [0, 1]: an ill-conditioned but equally valid
preprocessing). At each epsilon (delta = 1e-5, replace-one) and seed, fitted on the training
split and scored on the test split (accuracy / R^2), every fit timed end to end:

* ``sklearn``: LogisticRegression(C=1, lbfgs) / Ridge(alpha=1), non-private; fit time = median
  of 3 fits with BLAS limited to one thread (as skdpgd's loop; on the 2-core dev machine
  lbfgs on Adult takes 0.14 s so and 1.2 s with OpenBLAS's threads); every other fit time
  is reported as a ratio to it.
* ``default``: DPLogisticRegression(epsilon, delta) / DPRidge(epsilon, delta, data_norm=1,
  y_bound=1), everything else at its default (the installed package's default solver).
* ``cyclic``: the same with ``solver="cyclic"``.
* ``precond``: the Gram-preconditioned run planned by
  :func:`skdpgd.solvers._preconditioned.plan_preconditioned_gd` from public numbers only
  (the estimators' default loss, clip and intercept column b; Gram share 1/4; r0 from
  ``concentrated_initial_distance``, the upper end of the public range), i.e. the proposed
  default; timed end to end (planning, clipping, Gram, eigendecomposition, K passes).
  ``precond-r0mid``: the same planner with the estimators' r0 (the geometric mean of that
  range, ``_defaults.initial_distance``).
* ``grid``: the same method at fixed (share, K, momentum) points, to show where the
  planner's choice sits (lam = the planner's choice at that epsilon).
* ``nesterov``: noisy GD with Nesterov momentum 0.9 and the public step 1/beta
  (beta = c Rt^2 + lam), no preconditioner, composition accounting, K in {40, 160}.

Usage (from the repository root; about 6 minutes on 2 cores)::

    python benchmarks/optimizer_study.py [--seeds 3] [--epsilons 0.1 1 8 inf]
        [--datasets adult diamonds diamonds-linear] [--no-grid] [--out PATH]

Writes ``benchmarks/results/optimizer_study.json`` (every fit) and prints the tables.
"""

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
from datasets import load_adult, load_diamonds, load_diamonds_linear
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import r2_score
from threadpoolctl import threadpool_limits

from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data._chunks import single_threaded_blas
from skdpgd._data._design import ClippedDesign
from skdpgd._data._gradients import ChunkedRowSums
from skdpgd._data._gram import gram_sum
from skdpgd.accounting import epsilon_delta_to_gdp
from skdpgd.accounting._preconditioned import calibrate_preconditioned_gd, preconditioned_gd_gdp
from skdpgd.linear_model._defaults import (
    BINARY_RESIDUAL_CLIP,
    CONFIDENT_LOGIT,
    auto_intercept_scaling,
    logistic_initial_distance,
    ridge_initial_distance,
    ridge_residual_clip,
)
from skdpgd.losses import BinaryLogisticLoss, HuberLoss
from skdpgd.optim._gram_release import gram_sensitivity, release_gram
from skdpgd.optim._preconditioned import GramPreconditioner, preconditioned_noisy_gradient_descent
from skdpgd.solvers import concentrated_initial_distance
from skdpgd.solvers._preconditioned import (
    gram_noise_margin,
    plan_preconditioned_gd,
)
from skdpgd.utils._clipping import clip_targets

DELTA = 1e-5
LOADERS = {"adult": load_adult, "diamonds": load_diamonds, "diamonds-linear": load_diamonds_linear}
GRID_STEPS = (10, 20, 40, 80)
GRID_MOMENTA = (0.0, 0.5, 0.7)
GRID_SHARES = (0.1, 0.4)
NESTEROV_STEPS = (40, 160)


# --------------------------------------------------------------------------- #
# the preconditioned fit, end to end, from public numbers + the data
# --------------------------------------------------------------------------- #

def public_setup(dataset, n, d):
    """Loss, curvature bound c, b, Rt and r0 (the estimators' defaults), all public."""
    b = auto_intercept_scaling(1.0, d, 1)
    rt = math.hypot(1.0, b)
    if dataset == "adult":
        loss, c = BinaryLogisticLoss(BINARY_RESIDUAL_CLIP), 0.25
        r0 = logistic_initial_distance(1.0, d, 1, b)
        r0_hi = concentrated_initial_distance(CONFIDENT_LOGIT, 1.0, d, 1, b)
    else:
        loss, c = HuberLoss(ridge_residual_clip(1.0)), 1.0
        r0 = ridge_initial_distance(1.0, 1.0, d, b)
        r0_hi = concentrated_initial_distance(1.0, 1.0, d, 1, b)
    return dict(loss=loss, c=c, b=b, rt=rt, r0=r0, r0_hi=r0_hi)


def plan_for(setup, epsilon, n, d, **kw):
    return plan_preconditioned_gd(
        epsilon, DELTA, sensitivity=setup["loss"].sensitivity(setup["rt"]),
        gram_sensitivity=gram_sensitivity(setup["rt"]), curvature=setup["c"], n_samples=n,
        gram_dim=d + 1, n_params=d + 1, initial_distance=kw.pop("r0", setup["r0_hi"]), **kw,
    )


def fixed_plan(setup, epsilon, n, d, *, share, steps, momentum, lam):
    """(tau, sigma, margin) of a run at a fixed (share, K), calibrated exactly."""
    if epsilon == math.inf:
        return 0.0, 0.0, 0.0
    tau, sigma = calibrate_preconditioned_gd(
        epsilon, DELTA, gram_share=share, n_steps=steps,
        sensitivity=setup["loss"].sensitivity(setup["rt"]),
        gram_sensitivity=gram_sensitivity(setup["rt"]), n_samples=n,
    )
    return tau, sigma, gram_noise_margin(tau, d + 1)


def run_preconditioned(X, y, setup, rng, *, tau, sigma, margin, steps, momentum, lam,
                       tolerance=None, callback=None):
    """Clip, Gram, release, preconditioner, K noisy steps: returns theta (last column: b)."""
    n = X.shape[0]
    design = ClippedDesign.from_data(X, 1.0, setup["b"])
    # one BLAS thread for the whole fit, the data placed once for both passes (as the solver)
    with single_threaded_blas(), ChunkedRowSums(setup["loss"].gradient_sum, design, y) as sums:
        released = release_gram(gram_sum(sums, n, X.shape[1] + 1), n, tau, rng)
        P = GramPreconditioner(released, curvature=setup["c"], margin=margin, strong_convexity=lam)
        return preconditioned_noisy_gradient_descent(
            lambda t: sums.sum(t) / n + lam * t, np.zeros(X.shape[1] + 1), preconditioner=P,
            learning_rate=1.0, noise_std=sigma, n_steps=steps, rng=rng, momentum=momentum,
            tolerance=tolerance, callback=callback,
        )


def run_nesterov(X, y, setup, rng, *, epsilon, steps, lam, momentum=0.9):
    """Noisy GD with Nesterov momentum and the public step 1/(c Rt^2 + lam), composition."""
    n, d = X.shape
    beta = setup["c"] * setup["rt"] ** 2 + lam
    sigma = 0.0
    if epsilon != math.inf:
        mu = epsilon_delta_to_gdp(epsilon, DELTA)
        sigma = math.sqrt(steps) * setup["loss"].sensitivity(setup["rt"]) / (n * mu) * (1 + 1e-9)
    design = ClippedDesign.from_data(X, 1.0, setup["b"])
    with single_threaded_blas(), ChunkedRowSums(setup["loss"].gradient_sum, design, y) as sums:
        return preconditioned_noisy_gradient_descent(
            lambda t: sums.sum(t) / n + lam * t, np.zeros(d + 1),
            preconditioner=lambda v: v / beta, learning_rate=1.0, noise_std=sigma,
            n_steps=steps, rng=rng, momentum=momentum,
        )


def score(dataset, theta, b, Xt, yt):
    z = Xt @ theta[:-1] + theta[-1] * b
    if dataset == "adult":
        return float(np.mean((z > 0) == (yt > 0.5)))
    return float(r2_score(yt, z))


# --------------------------------------------------------------------------- #

def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def study(dataset, epsilons, seeds, grid, log):
    X, y, Xt, yt = LOADERS[dataset]()
    n, d = X.shape
    if dataset != "adult":
        y = clip_targets(y, 1.0)
    setup = public_setup(dataset, n, d)
    rows = []

    def add(method, eps, seed, value, seconds, **extra):
        rows.append(dict(method=method, epsilon=eps, seed=seed, score=value, fit_time=seconds, **extra))

    # sklearn reference (non-private): median of 3 fits
    if dataset == "adult":
        ref = lambda: LogisticRegression(C=1.0, max_iter=1000).fit(X, y)  # noqa: E731
    else:
        ref = lambda: Ridge(alpha=1.0).fit(X, y)  # noqa: E731
    times = []
    for _ in range(3):  # one BLAS thread, like skdpgd's loop: lbfgs is 8x faster so here
        with threadpool_limits(1):
            model, seconds = timed(ref)
        times.append(seconds)
    add("sklearn", None, None, float(model.score(Xt, yt)), float(np.median(times)))
    log(f"{dataset}: sklearn {rows[-1]['score']:.4f} in {rows[-1]['fit_time']:.3f}s")

    for eps in epsilons:
        plan = plan_for(setup, eps, n, d)
        plan_mid = plan_for(setup, eps, n, d, r0=setup["r0"])
        log(f"{dataset} eps={eps}: plan K={plan.n_steps} momentum={plan.momentum} "
            f"lam={plan.strong_convexity:.3g} share={plan.gram_share}; r0mid plan K={plan_mid.n_steps} "
            f"momentum={plan_mid.momentum}")
        for seed in seeds:
            # current estimators
            for method, solver in (("default", None), ("cyclic", "cyclic")):
                kw = {} if solver is None else {"solver": solver}
                if dataset == "adult":
                    est = DPLogisticRegression(epsilon=eps, delta=DELTA, random_state=seed, **kw)
                else:
                    est = DPRidge(epsilon=eps, delta=DELTA, data_norm=1.0, y_bound=1.0,
                                  random_state=seed, **kw)
                _, seconds = timed(lambda est=est: est.fit(X, y))
                add(method, eps, seed, float(est.score(Xt, yt)), seconds,
                    n_steps=int(est.n_iter_), accountant=est.privacy_.accountant,
                    binding=est.privacy_.binding_bound)
            # the proposed default: planned from public numbers, timed end to end (plan included)
            for method, r0 in (("precond", setup["r0_hi"]), ("precond-r0mid", setup["r0"])):
                done = []

                def fit(r0=r0, done=done, eps=eps, seed=seed):
                    p = plan_for(setup, eps, n, d, r0=r0)
                    theta = run_preconditioned(
                        X, y, setup, np.random.default_rng(seed), tau=p.gram_noise_std,
                        sigma=p.noise_std, margin=p.margin, steps=p.n_steps, momentum=p.momentum,
                        lam=p.strong_convexity, tolerance=p.tolerance, callback=done.append,
                    )
                    return theta, p
                (theta, p), seconds = timed(fit)
                mu = preconditioned_gd_gdp(
                    p.gram_noise_std, p.noise_std, p.n_steps,
                    gram_sensitivity=gram_sensitivity(setup["rt"]),
                    sensitivity=setup["loss"].sensitivity(setup["rt"]), n_samples=n,
                )
                add(method, eps, seed, score(dataset, theta, setup["b"], Xt, yt), seconds,
                    n_steps=len(done), planned_steps=p.n_steps, momentum=p.momentum, gram_share=p.gram_share,
                    lam=p.strong_convexity, mu=mu, target_mu=epsilon_delta_to_gdp(eps, DELTA))
            for steps in NESTEROV_STEPS:
                theta, seconds = timed(lambda seed=seed, eps=eps, steps=steps, plan=plan: run_nesterov(
                    X, y, setup, np.random.default_rng(seed), epsilon=eps, steps=steps,
                    lam=plan.strong_convexity))
                add(f"nesterov-K{steps}", eps, seed, score(dataset, theta, setup["b"], Xt, yt),
                    seconds, n_steps=steps)
            if not grid:
                continue
            configs = [(0.25, k, m) for k in GRID_STEPS for m in GRID_MOMENTA]
            configs += [(s, plan.n_steps, plan.momentum) for s in GRID_SHARES]
            for share, steps, momentum in configs:
                tau, sigma, margin = fixed_plan(setup, eps, n, d, share=share, steps=steps,
                                                momentum=momentum, lam=plan.strong_convexity)
                theta = run_preconditioned(
                    X, y, setup, np.random.default_rng(seed), tau=tau, sigma=sigma,
                    margin=margin, steps=steps, momentum=momentum, lam=plan.strong_convexity,
                )
                add(f"grid-s{share}-K{steps}-m{momentum}", eps, seed,
                    score(dataset, theta, setup["b"], Xt, yt), None)
        summary = {}
        for row in rows:
            if row["epsilon"] == eps:
                summary.setdefault(row["method"], []).append(row["score"])
        log("   " + ", ".join(f"{m} {np.median(v):.4f}" for m, v in summary.items()
                              if not m.startswith("grid")))
    return dict(n=n, d=d, public=dict(b=setup["b"], rt=setup["rt"], r0=setup["r0"],
                                      r0_hi=setup["r0_hi"], c=setup["c"],
                                      loss=repr(setup["loss"])), rows=rows)


# --------------------------------------------------------------------------- #

def _eps_key(eps):
    return "inf" if eps == math.inf else f"{eps:g}"


def tables(results, epsilons):
    lines = []
    for dataset, block in results.items():
        rows = block["rows"]
        ref = next(r for r in rows if r["method"] == "sklearn")
        methods = []
        for r in rows:
            if r["method"] not in methods and r["method"] != "sklearn":
                methods.append(r["method"])
        metric = "test accuracy" if dataset == "adult" else "test R^2"
        head = " | ".join(f"eps={_eps_key(e)}" for e in epsilons)
        lines += ["", f"{dataset}: {metric}, median over seeds; [fit time / sklearn's]; "
                  f"sklearn {ref['score']:.4f} in {ref['fit_time'] * 1e3:.0f} ms", "",
                  f"| method | {head} |", "|---|" + "---:|" * len(epsilons)]
        for method in methods:
            cells = []
            for eps in epsilons:
                sel = [r for r in rows if r["method"] == method and r["epsilon"] == eps]
                if not sel:
                    cells.append("")
                    continue
                value = np.median([r["score"] for r in sel])
                cell = f"{value:.4f}"
                times = [r["fit_time"] for r in sel if r["fit_time"] is not None]
                if times:
                    cell += f" [{np.median(times) / ref['fit_time']:.1f}x]"
                steps = [r.get("n_steps") for r in sel if r.get("n_steps") is not None]
                if steps and not method.startswith(("grid", "nesterov")):
                    cell += f" K={int(np.median(steps))}"
                cells.append(cell)
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _finite(value):
    """JSON-safe copy: infinities and NaN become strings ("inf", "nan")."""
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(LOADERS))
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.1, 1.0, 8.0, math.inf])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-grid", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "optimizer_study.json"))
    args = parser.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    started = time.perf_counter()
    results = {ds: study(ds, args.epsilons, range(args.seeds), not args.no_grid, log)
               for ds in args.datasets}
    meta = dict(delta=DELTA, seeds=args.seeds, epsilons=[_eps_key(e) for e in args.epsilons],
                python=platform.python_version(), machine=platform.machine(),
                wall_seconds=time.perf_counter() - started, command=" ".join(sys.argv))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = _finite(dict(meta=meta, results=results))
    out.write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n")
    print(tables(results, args.epsilons))


if __name__ == "__main__":
    main()
