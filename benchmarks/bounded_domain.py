"""Where does a bounded domain pay? The unregularised fit on a public ball against the default.

For every problem, epsilon (delta = the estimators' default) and seed, logistic regression

* ``default``: ``DPLogisticRegression(epsilon, classes=[0, 1])`` (``solver="auto"``);
* ``gd``, ``cyclic``: the same with that solver (which bound binds for them);
* ``bd-gd``, ``bd-cyclic``, ``bd-auto``: ``C=np.inf`` (no regularisation, lam = 0) with
  ``max_coef_norm=r``, the planner's own step and pass counts;
* ``bd-cyclic-C``: ``max_coef_norm=r`` with the default C (lam > 0 tiny): the radius only
  adds the bounded-domain bound (F) beside Theorem 4.5;
* ``bd-cyclic-past``: the same for cyclic batches (l = 16, ``batch_size = ceil(n/16)``),
  ``max_iter`` = twice the first epoch count at which bound (F) is below composition;
* ``bd-gd-past``: ``C=np.inf``, ``max_coef_norm=r``, ``solver="gd"`` with ``max_iter`` =
  twice the step count from which Theorem 4.3 is below composition (3x + ceil(x) < K, x =
  D n/(S eta), D = 2r), where that run is affordable here (K n (d+1) <= ``--past-work``);
  past it more steps cost no privacy, so this is the bounded domain at its best;

with the test accuracy, the run that ran (``solver_``, steps), the bound that binds
(``run_report_.run_binding_bound`` where ``auto`` chose its run on a released Gram, else
``privacy_.binding_bound``) and the epsilon each bound of that run gives at its noise
(composition, strongly convex, convex bounded domain; Bok, Su and Altschuler 2024,
Theorems 4.1-4.5 and bound (F) of docs/theory.md). Medians over seeds.

The radius r (public): ``r = log(n) / Rt``, Rt = sqrt(data_norm^2 + b^2) the norm bound of an
augmented row (b the estimator's public intercept scaling, data_norm d^(-1/8)), so that
every logit theta . (x, b) lies within +-log n: a predicted probability beyond 1/n cannot be
checked on n rows. It uses n, d and data_norm only, nothing of the data. Non-private
references per problem (not used by any private fit): the accuracy of the constrained
optimum on that ball (the radius's bias; 3,000 accelerated projected gradient steps) and of
the unregularised maximum likelihood fit with its norm.

Private inference (``--inference``): on six public-bound Adult columns
(``inference_adult.design``, n = 32,561), ``inference=True`` with the default C against
``C=np.inf, max_coef_norm=r``, at epsilon 1 and 4: median width ratio to the non-private one,
share of intervals containing the non-private estimate (width reference: the MLE's Wald
  interval from the inverse Fisher information, statsmodels' Logit's), share of NaN intervals.

Problems: ``adult-750``, ``adult-2000`` (subsamples of the training split, seed s draws
them), ``adult-32561`` (all of it): the package's public-bound Adult (104 columns, test on
the original test split); ``synthetic-500``: the wide isotropic design of
``auto_grid.load_problem`` with ``--synthetic-n`` rows (80 / 20).

Usage (the stored run, 96 s on a shared 2-core machine)::

    SKDPGD_DATA=/path/to/data nice python benchmarks/bounded_domain.py \
        --seeds 5 --full-seeds 2 --inference --out benchmarks/results/bounded_domain.json
"""

import argparse
import json
import math
import platform
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # the checkout's skdpgd

import auto_grid

from skdpgd import DPLogisticRegression, accounting
from skdpgd.accounting._gd_report import run_bounds

PROBLEMS = ("adult-750", "adult-2000", "synthetic-500", "adult-32561")
EPSILONS = (0.1, 0.3, 1.0, 4.0)
METHODS = ("default", "gd", "cyclic", "bd-gd", "bd-cyclic", "bd-cyclic-C", "bd-auto",
           "bd-gd-past", "bd-cyclic-past")
#: batches of the bd-cyclic-past run (bound (F)'s burn-in in epochs falls like l^(-1/2))
PAST_BATCHES = 16


def public_radius(n, d, data_norm=1.0):
    """r = log(n) / Rt: every logit of an augmented row within +-log n (public numbers only)."""
    b = data_norm * d ** (-1.0 / 8.0)  # the estimators' "auto" intercept scaling
    return math.log(n) / math.hypot(data_norm, b), b


def _kwargs(method, eps, seed, r):
    kw = dict(epsilon=eps, classes=[0, 1], random_state=seed)
    solver = {"default": "auto", "gd": "gd", "cyclic": "cyclic", "bd-gd": "gd",
              "bd-cyclic": "cyclic", "bd-cyclic-C": "cyclic", "bd-auto": "auto",
              "bd-gd-past": "gd", "bd-cyclic-past": "cyclic"}[method]
    kw["solver"] = solver
    if method.startswith("bd-"):
        kw["max_coef_norm"] = r
        if method != "bd-cyclic-C":
            kw["C"] = np.inf
    return kw


def past_burn_in_steps(est, n, d):
    """2 x the first K at which Theorem 4.3 is below composition, from the public plan."""
    plan = est.plan_privacy(n, d)
    x = float(accounting.convex_gd_burn_in(
        sensitivity=plan.sensitivity, n_samples=n, learning_rate=plan.learning_rate,
        diameter=2.0 * est.max_coef_norm))
    # Theorem 4.3's square is 3x' + ceil(x') with x' = D n/(S eta) <= x: below K when K > 4x
    return 2 * int(4 * x + 1), x


def past_burn_in_epochs(est, n, d):
    """2 x the first E at which bound (F) is below composition (l = PAST_BATCHES), public."""
    est.set_params(batch_size=math.ceil(n / PAST_BATCHES))
    plan = est.plan_privacy(n, d)
    sizes = accounting.cyclic_batch_sizes(n, est.batch_size)
    x = 2.0 * est.max_coef_norm * int(sizes.min()) / (plan.sensitivity * plan.learning_rate)
    epochs = np.arange(1, 200_001)
    below = np.flatnonzero(accounting.convex_cyclic_squares(len(sizes), epochs, x) < epochs)
    return (2 * int(epochs[below[0]]) if below.size else None), x, len(sizes)


def bound_epsilons(report, n):
    """{bound name: epsilon at the report's delta} of the run's every bound at its noise."""
    if getattr(report, "accountant", None) not in ("noisy_gd", "noisy_cyclic_gd"):
        return None
    cyclic = report.accountant == "noisy_cyclic_gd"
    passes = report.n_epochs if cyclic else report.n_steps
    batches = report.n_steps // report.n_epochs if cyclic else 1
    bounds = run_bounds(report.noise_std, passes, n_batches=batches,
                        size=report.batch_size if cyclic else n,
                        sensitivity=report.sensitivity, contraction=report.contraction,
                        learning_rate=report.learning_rate, diameter=report.diameter)
    return {name: accounting.epsilon_of(mu, report.delta) for name, mu in bounds.items()}


def run_task(name, eps, seed, methods, synthetic_n, past_work):
    from threadpoolctl import threadpool_limits

    _, X, y, Xt, yt = auto_grid.load_problem(name, seed, synthetic_n)
    n, d = X.shape
    r, _ = public_radius(n, d)
    rows = []
    for method in methods:
        kw = _kwargs(method, eps, seed, r)
        row = dict(problem=name, epsilon=eps, seed=seed, method=method, n=n, d=d, radius=r)
        try:
            est = DPLogisticRegression(**kw)
            if method == "bd-gd-past":
                steps, x = past_burn_in_steps(est, n, d)
                row.update(max_iter=steps, shift_ratio=x)
                if steps * n * (d + 1) > past_work:
                    row.update(score=None, skipped=f"K = {steps} steps: above --past-work")
                    rows.append(row)
                    continue
                est.set_params(max_iter=steps)
            if method == "bd-cyclic-past":
                epochs, x, batches = past_burn_in_epochs(est, n, d)
                row.update(max_iter=epochs, shift_ratio=x, batches=batches)
                if epochs is None or epochs * n * (d + 1) > past_work:
                    row.update(score=None, skipped=f"E = {epochs} epochs: above --past-work")
                    rows.append(row)
                    continue
                est.set_params(max_iter=epochs)
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tic = time.perf_counter()
                est.fit(X, y)
                row["fit_time"] = time.perf_counter() - tic
            run = getattr(est, "run_report_", est.privacy_)
            row.update(score=float(est.score(Xt, yt)), solver_=est.solver_,
                       n_iter=int(est.n_iter_), batch_size=getattr(est, "batch_size_", None),
                       binding_bound=getattr(run, "run_binding_bound",
                                             getattr(run, "binding_bound", None)),
                       epsilon_charged=float(est.privacy_.epsilon),
                       bound_epsilons=bound_epsilons(run, n))
        except Exception as exc:  # recorded, not fatal: a refused plan is a result too
            row.update(score=None, error=f"{type(exc).__name__}: {exc}"[:300])
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- #
# non-private references: the ball's bias, the unregularised optimum
# --------------------------------------------------------------------------- #

def constrained_optimum(Xa, y, radius, steps=3000):
    """Accelerated projected gradient on the mean logistic loss over the ball (non-private)."""
    beta = 0.25 * float(np.max(np.einsum("ij,ij->i", Xa, Xa)))
    theta = np.zeros(Xa.shape[1])
    z, a = theta.copy(), 1.0
    for _ in range(steps):
        p = 0.5 * (1.0 + np.tanh(0.5 * (Xa @ z)))
        new = z - (Xa.T @ (p - y)) / (len(y) * beta)
        norm = np.linalg.norm(new)
        if norm > radius:
            new *= radius / norm
        a_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * a * a))
        z = new + (a - 1.0) / a_new * (new - theta)
        theta, a = new, a_new
    return theta


def references(name, synthetic_n, steps):
    from sklearn.linear_model import LogisticRegression

    _, X, y, Xt, yt = auto_grid.load_problem(name, 0, synthetic_n)
    n, d = X.shape
    r, b = public_radius(n, d)
    Xa, Xta = np.c_[X, np.full(n, b)], np.c_[Xt, np.full(len(Xt), b)]
    theta = constrained_optimum(Xa, y, r, steps)
    mle = LogisticRegression(C=1e8, max_iter=10_000).fit(X, y)
    full = np.r_[mle.coef_.ravel(), mle.intercept_ / b]  # in the package's theta units
    return dict(problem=name, n=n, d=d, radius=r, intercept_scaling=b,
                ball_optimum_accuracy=float(np.mean((Xta @ theta > 0) == (yt > 0.5))),
                mle_accuracy=float(mle.score(Xt, yt)), mle_norm=float(np.linalg.norm(full)))


# --------------------------------------------------------------------------- #
# private inference: default C against C = inf on the ball
# --------------------------------------------------------------------------- #

def inference_runs(epsilons, seeds):
    import inference_adult
    from sklearn.linear_model import LogisticRegression

    Z, y = inference_adult.design()
    n, d = Z.shape
    r, b = public_radius(n, d)
    # the non-private MLE and its Wald intervals (inverse Fisher information), as Logit's
    ref = LogisticRegression(penalty=None, tol=1e-10, max_iter=10_000).fit(Z, y)
    est_ref = np.r_[ref.coef_.ravel(), ref.intercept_]
    Za = np.c_[Z, np.ones(n)]
    p = 1.0 / (1.0 + np.exp(-(Za @ est_ref)))
    se = np.sqrt(np.diag(np.linalg.inv((Za * (p * (1 - p))[:, None]).T @ Za)))
    width_ref = 2 * 1.959963984540054 * se
    mle_norm = float(np.linalg.norm(np.r_[est_ref[:-1], est_ref[-1] / b]))
    out = []
    for eps in epsilons:
        for label, extra in (("default", {}), ("bd", dict(C=np.inf, max_coef_norm=r))):
            ratios, contains, nan, errors, binds = [], [], [], [], set()
            for seed in range(seeds):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf = DPLogisticRegression(epsilon=eps, classes=[0, 1], inference=True,
                                                   random_state=seed, **extra).fit(Z, y)
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                    continue
                ci = clf.conf_int(0.05)
                finite = np.isfinite(ci).all(axis=1)
                nan.append(1.0 - finite.mean())
                ratios.append(np.where(finite, (ci[:, 1] - ci[:, 0]) / width_ref, np.nan))
                contains.append(np.where(finite, (ci[:, 0] <= est_ref) & (est_ref <= ci[:, 1]),
                                         np.nan))
                binds.add(str(getattr(clf.privacy_, "binding_bound", None)))
            out.append(dict(
                epsilon=eps, method=label, radius=r if label == "bd" else None, n=n, d=d,
                mle_norm=mle_norm, fits=len(nan), errors=errors[:2],
                nan_share=float(np.mean(nan)) if nan else None,
                width_ratio_median=(np.nanmedian(np.asarray(ratios), axis=0).round(3).tolist()
                                    if ratios else None),
                contains_nonprivate=(np.nanmean(np.asarray(contains), axis=0).round(3).tolist()
                                     if contains else None),
                binding_bounds=sorted(binds)))
    return out


# --------------------------------------------------------------------------- #
# auto's proxy: public predictions of the default and of the bounded-domain auto
# --------------------------------------------------------------------------- #

def proxy_predictions(problems, epsilons, synthetic_n):
    """The least predicted excess loss among auto's candidates, default and bounded (public)."""
    out = []
    for name in problems:
        n = (int(name.split("-")[1]) if name.startswith("adult-")
             else int(0.8 * synthetic_n))
        d = 104 if name.startswith("adult-") else int(name.split("-")[1])
        r, _ = public_radius(n, d)
        for eps in epsilons:
            row = dict(problem=name, epsilon=eps)
            for label, extra in (("default", {}), ("bd-auto", dict(C=np.inf, max_coef_norm=r))):
                report = DPLogisticRegression(epsilon=eps, classes=[0, 1], **extra
                                              ).plan_privacy(n, d)
                losses = [float(m.group(1)) for note in report.notes if note.startswith(
                    "candidate") for m in [re.search(r"predicted excess loss ([0-9.e+-]+)",
                                                      note)] if m]
                row[label] = min(losses) if losses else None
            out.append(row)
    return out


# --------------------------------------------------------------------------- #
# tables
# --------------------------------------------------------------------------- #

def cells(rows):
    out = {}
    for row in rows:
        out.setdefault((row["problem"], row["epsilon"], row["method"]), []).append(row)
    result = []
    for (name, eps, method), sel in out.items():
        scores = [r["score"] for r in sel if r.get("score") is not None]
        first = next((r for r in sel if r.get("score") is not None), sel[0])
        result.append(dict(
            problem=name, epsilon=eps, method=method, seeds=len(sel),
            median=float(np.median(scores)) if len(scores) == len(sel) else None,
            solvers=sorted({str(r.get("solver_")) for r in sel if r.get("solver_")}),
            binding_bounds=sorted({str(r.get("binding_bound")) for r in sel
                                   if r.get("binding_bound")}),
            bound_epsilons=first.get("bound_epsilons"), n_iter=first.get("n_iter"),
            max_iter=first.get("max_iter"), skipped=first.get("skipped"),
            errors=[r["error"] for r in sel if r.get("error")][:1]))
    return result


def _short(name):
    return (name.replace(" (shifted interpolation across batches, not converged)",
                         " (across batches)")
            .replace(" (composition)", " comp").replace(" (strongly convex)", " s.c.")
            .replace(" (convex, bounded domain)", " bd").replace(" (convex, bounded domain, "
                                                                  "cyclic)", " bd"))


def table(cell_list):
    lines = ["| problem | eps | method | median acc | run | binds | eps: comp / s.c. / bd |",
             "|---|---:|---|---:|---|---|---|"]
    for c in sorted(cell_list, key=lambda c: (PROBLEMS.index(c["problem"]), c["epsilon"],
                                              METHODS.index(c["method"]))):
        acc = "-" if c["median"] is None else f"{c['median']:.4f}"
        if c.get("skipped"):
            acc = f"not run ({c['skipped'].split(':')[0]})"
        eps_b = c.get("bound_epsilons") or {}
        vals = " / ".join("inf" if not math.isfinite(v) else f"{v:.3g}" for v in eps_b.values())
        run = ",".join(c["solvers"]) + (f" K={c['n_iter']}" if c.get("n_iter") else "")
        lines.append(f"| {c['problem']} | {c['epsilon']:g} | {c['method']} | {acc} | {run} | "
                     f"{'; '.join(_short(b) for b in c['binding_bounds'])} | {vals} |")
    return "\n".join(lines)


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=HERE, check=True).stdout.strip()
    except Exception:
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--full-seeds", type=int, default=2,
                        help="seeds for adult-32561 and synthetic problems")
    parser.add_argument("--synthetic-n", type=int, default=10_000)
    parser.add_argument("--past-work", type=float, default=4e9,
                        help="largest K n (d+1) of a bd-gd-past run")
    parser.add_argument("--reference-steps", type=int, default=3000)
    parser.add_argument("--inference", action="store_true")
    parser.add_argument("--inference-seeds", type=int, default=10)
    parser.add_argument("--out", default=str(HERE / "results" / "bounded_domain.json"))
    args = parser.parse_args(argv)
    tic = time.perf_counter()
    rows = []
    for name in args.problems:
        seeds = args.seeds if name in ("adult-750", "adult-2000") else args.full_seeds
        for eps in args.epsilons:
            for seed in range(seeds):
                rows += run_task(name, eps, seed, args.methods, args.synthetic_n,
                                 args.past_work)
            print(f"  {name} eps {eps:g} done ({time.perf_counter() - tic:.0f} s)",
                  file=sys.stderr, flush=True)
    cell_list = cells(rows)
    refs = [references(name, args.synthetic_n, args.reference_steps) for name in args.problems]
    proxy = proxy_predictions(args.problems, args.epsilons, args.synthetic_n)
    def save(inference):
        result = dict(
        command="python benchmarks/bounded_domain.py " + " ".join(argv or sys.argv[1:]),
        commit=_commit(), python=platform.python_version(), machine=platform.machine(),
        seconds=round(time.perf_counter() - tic, 1), cells=cell_list, references=refs,
            proxy=proxy, inference=inference, rows=rows)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n")

    save(None)  # what finished is kept if the inference part fails
    inference = (inference_runs([1.0, 4.0], args.inference_seeds) if args.inference else None)
    save(inference)
    print(table(cell_list))
    print("\nreferences (non-private):")
    for ref in refs:
        print(f"  {ref['problem']}: r={ref['radius']:.3g}, ball optimum "
              f"{ref['ball_optimum_accuracy']:.4f}, MLE {ref['mle_accuracy']:.4f} "
              f"(norm {ref['mle_norm']:.3g})")
    print("\nauto's proxy (least predicted excess loss): default vs bounded-domain auto")
    for row in proxy:
        print(f"  {row['problem']} eps {row['epsilon']:g}: {row['default']} vs {row['bd-auto']}")
    if inference:
        print("\nprivate inference (6 Adult columns):")
        for row in inference:
            print(f"  eps {row['epsilon']:g} {row['method']}: fits {row['fits']}, NaN "
                  f"{row['nan_share']}, width ratio {row['width_ratio_median']}, contains "
                  f"{row['contains_nonprivate']}, {row['binding_bounds']} {row['errors'][:1]}")
    print(f"\n{time.perf_counter() - tic:.0f} s; JSON in {args.out}")


if __name__ == "__main__":
    main()
