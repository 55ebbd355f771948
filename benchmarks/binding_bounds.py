"""Which bound binds for the default fits on real tables, and what every bound gives.

Adult (the package's public-bound preprocessing, 32,561 x 104, ``DPLogisticRegression``) and
diamonds (``datasets.load_diamonds``, ``DPRidge(y_bound=1)``) at epsilon 0.3, 1 and 4 (delta
the estimators' default), ``solver="auto"`` (the default), ``"gd"`` and ``"cyclic"``, every
other parameter at its default. For each fit: the run that ran (``solver_``, steps, batches),
the bound that binds (``run_report_.run_binding_bound`` where ``auto`` chose its run on a
released Gram, else ``privacy_.binding_bound``), and the epsilon each bound of that run
gives at its noise: composition (Bok, Su and Altschuler 2024, Theorem 4.1 / 4.4), strongly
convex (Theorem 4.2 / 4.5) and convex bounded domain (Theorem 4.3 / bound (F), on the ball
sqrt(2 f_0/lam) the fit projects onto), with Theorem 4.3's burn-in tau* = ceil(D n/(S eta))
against K. The binding bound of gd and cyclic is decided by public numbers (the planner);
auto's run is chosen on the released Gram, so it is read from the fit. Medians over seeds of
the accuracy / R^2 for orientation.

Usage (about 2 minutes)::

    SKDPGD_DATA=/path/to/data nice python benchmarks/binding_bounds.py --seeds 2 \
        --out benchmarks/results/binding_bounds.json
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # the checkout's skdpgd

import auto_grid
from bounded_domain import _commit, _short, bound_epsilons

from skdpgd import DPLogisticRegression, DPRidge, accounting

TABLES = ("adult-32561", "diamonds")
EPSILONS = (0.3, 1.0, 4.0)
SOLVERS = ("auto", "gd", "cyclic")


def fit_one(name, eps, seed, solver):
    task, X, y, Xt, yt = auto_grid.load_problem(name, seed, 0)
    n, d = X.shape
    est = (DPLogisticRegression(epsilon=eps, classes=[0, 1], solver=solver, random_state=seed)
           if task == "classification" else
           DPRidge(epsilon=eps, y_bound=1.0, solver=solver, random_state=seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    run = getattr(est, "run_report_", est.privacy_)
    row = dict(table=name, epsilon=eps, seed=seed, solver=solver, n=n, d=d,
               score=float(est.score(Xt, yt)), solver_=est.solver_, n_iter=int(est.n_iter_),
               binding_bound=getattr(run, "run_binding_bound",
                                     getattr(run, "binding_bound", None)),
               accountant=getattr(run, "accountant", None),
               bound_epsilons=bound_epsilons(run, n))
    if getattr(run, "accountant", None) in ("noisy_gd", "noisy_cyclic_gd") and run.diameter:
        size = run.batch_size if run.accountant == "noisy_cyclic_gd" else n
        row.update(diameter=run.diameter, steps=run.n_steps, burn_in=int(
            accounting.convex_gd_burn_in(sensitivity=run.sensitivity, n_samples=size,
                                         learning_rate=run.learning_rate,
                                         diameter=run.diameter)))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--out", default=str(HERE / "results" / "binding_bounds.json"))
    args = parser.parse_args(argv)
    tic = time.perf_counter()
    rows = [fit_one(name, eps, seed, solver) for name in TABLES for eps in EPSILONS
            for solver in SOLVERS for seed in range(args.seeds)]
    Path(args.out).write_text(json.dumps(dict(
        command="python benchmarks/binding_bounds.py " + " ".join(argv or sys.argv[1:]),
        commit=_commit(), seconds=round(time.perf_counter() - tic, 1), rows=rows),
        indent=1, default=str) + "\n")
    print("| table | eps | solver | run | binds | eps: comp / s.c. / bd | tau* / K | median score |")
    print("|---|---:|---|---|---|---|---|---:|")
    for name in TABLES:
        for eps in EPSILONS:
            for solver in SOLVERS:
                sel = [r for r in rows if (r["table"], r["epsilon"], r["solver"])
                       == (name, eps, solver)]
                first = sel[0]
                vals = " / ".join("inf" if not np.isfinite(v) else f"{v:.3g}"
                                  for v in (first["bound_epsilons"] or {}).values()) or "-"
                runs = ", ".join(sorted({f"{r['solver_']} K={r['n_iter']}" for r in sel}))
                binds = "; ".join(sorted({_short(str(r["binding_bound"])) for r in sel}))
                burn = (f"{first['burn_in']:.3g} / {first['steps']}" if "burn_in" in first
                        else "-")
                print(f"| {name} | {eps:g} | {solver} | {runs} | {binds} | {vals} | {burn} | "
                      f"{np.median([r['score'] for r in sel]):.4f} |")
    print(f"\n{time.perf_counter() - tic:.0f} s; JSON in {args.out}")


if __name__ == "__main__":
    main()
