"""Where the private regression on the raw baseball panel loses R^2 against scikit-learn.

The table is ``unseen_tables.py``'s ``panel`` (``plyr::baseball``, label ``r``, runs; a
70 / 30 split drawn from the seed). Per seed and epsilon the default pipeline
``make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"))`` is fitted once; then,
on *its own* features F (the fitted vectorizer's transform) and its released target range
[a, b], each row below changes one thing, so that the differences decompose the gap:

* ``sklearn``: scikit-learn's impute + scale + one-hot pipeline and ``Ridge()``;
* ``features``: ``Ridge()`` on F, y as it is (``unseen_tables.py``'s row), and
  ``least squares on F`` (``Ridge(alpha=1e-8)``: F's columns are at most 1 / the row
  divisor, so ``alpha=1`` shrinks them; what the preparation keeps);
* ``objective``: the non-private optimum of the private model's own objective on F (rows
  clipped to ``data_norm_``, y mapped by [a, b] to [-1, 1] and clipped, Huber threshold
  ``residual_clip_``, lam = ``alpha_ / n``, the intercept column scaled by
  ``intercept_scaling_``), by L-BFGS to convergence: clipping and regularisation bias,
  no noise;
* ``pipeline``: the default pipeline (the headline number);
* ``replay <solver>``: a standalone ``DPRidge(y_bound=1)`` on the same F and mapped y at
  the estimator's own (epsilon, delta) (``pipeline.privacy_``'s estimator part), with
  ``solver`` "auto", "preconditioned", "gd" or "cyclic": the noise of each solver at the
  same budget, and ``replay gd without noise`` (the same K, step and lam at epsilon
  inf: plain GD's convergence);
* ``replay whole budget``: ``solver="auto"`` at the pipeline's whole (epsilon, delta), as
  if the preparation's releases were free (the cost of the preparation's share of the
  budget);
* ``replay c/k``: ``solver="auto"`` with the Huber threshold divided by k (public
  choice, to see how much of the noise the threshold buys);
* ``oracle range``: ``solver="auto"`` with y mapped by the training targets' exact range
  (not private: a stand-in for a user's tight public bound) instead of [a, b];
* ``oracle spread``: ``solver="auto"`` with the released range, the threshold set by the
  default rule (``ridge_residual_clip``) from the training targets' exact standard
  deviation instead of the uniform law's (not private: a stand-in for a released spread);
* ``sim ...``: the pipeline's own run re-simulated with the loop of ``skdpgd.optim``
  when it was ``"preconditioned"``, at its reported constants (K, sigma, eta, lam, the
  combined Gram noise tau and the margin factor of ``run_report_``; momentum 0, which
  the report does not give; the median of 5 noise draws), to split it: ``sim full`` (Gram noise and gradient noise, the
  check that the simulation matches ``pipeline``), ``sim no gradient noise`` (sigma = 0),
  ``sim exact Gram`` (the exact Gram with the same margin m, sigma = 0: what K steps of
  a preconditioner with the margin reach without any noise; the rest to ``objective``
  is the convergence the margin costs), ``sim above the margin`` (least squares within
  the eigendirections of the exact Gram whose eigenvalue exceeds the unscaled margin
  m / kappa, the directions the released Gram resolves: what the other directions hold).

Medians and the worst seed of test R^2. Usage::

    PYTHONPATH=$PWD bench-venv/bin/python benchmarks/panel_gap.py [--seeds 10] \\
        [--epsilons 1] [--table panel]
"""

import argparse
import json
import platform
import re
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.optim import GramPreconditioner, preconditioned_noisy_gradient_descent
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.solvers._preconditioned import gram_noise_margin

sys.path.insert(0, str(Path(__file__).resolve().parent))
from unseen_tables import load, sklearn_pipeline

RESULTS = Path(__file__).resolve().parent / "results" / "panel_gap.json"
#: 1.345 sqrt(0.1): Huber's 95%-efficiency threshold for residuals of a model with
#: R^2 = 0.9, in units of the target's standard deviation (the default rule's factor).
HUBER_PER_SD = 1.345 * 0.1**0.5
#: Noise draws per simulated noisy run (their median R^2 is the seed's).
DRAWS = 5


def clip_rows(F, norm):
    """Each row scaled by min(1, norm / ||row||), as DPRidge's fit and predict do."""
    norms = np.linalg.norm(F, axis=1)
    return F * np.minimum(1.0, norm / np.maximum(norms, 1e-300))[:, None]


def huber_optimum(F, y, c, lam, scaling):
    """Non-private minimiser of mean h_c(theta . [x, b] - y) + lam/2 ||theta||^2."""
    A = np.hstack([F, np.full((F.shape[0], 1), scaling)])

    def objective(theta):
        r = A @ theta - y
        small = np.abs(r) <= c
        loss = np.where(small, 0.5 * r * r, c * np.abs(r) - 0.5 * c * c)
        grad = A.T @ np.clip(r, -c, c) / len(y) + lam * theta
        return loss.mean() + 0.5 * lam * theta @ theta, grad

    theta = minimize(objective, np.zeros(A.shape[1]), jac=True, method="L-BFGS-B",
                     options=dict(maxiter=20000, gtol=1e-12, ftol=1e-15)).x
    return theta[:-1], theta[-1] * scaling


def mapped(y, low, high):
    centre, half = (high + low) / 2.0, (high - low) / 2.0
    return np.clip((y - centre) / half, -1.0, 1.0), centre, half


def simulated(F_tr, y_fit, F_te, est, seed):
    """{sim row: test predictions of y_fit, one per noise draw} of the run ``est`` reports
    (module docstring); empty when it was not ``"preconditioned"``."""
    report = est.run_report_  # what ran (privacy_ says what was planned)
    solver = getattr(report, "run_solver", "") or ""
    found = re.search(r"two combined \(tau=([^)]+)\)", " ".join(report.notes))
    if not solver.startswith("preconditioned") or found is None:
        return {}
    tau, kappa = float(found.group(1)), float(re.search(r"margin x([0-9.]+)", solver).group(1))
    b, c = est.intercept_scaling_, est.residual_clip_
    A = np.hstack([clip_rows(F_tr, est.data_norm_), np.full((len(F_tr), 1), b)])
    A_te = np.hstack([clip_rows(F_te, est.data_norm_), np.full((len(F_te), 1), b)])
    n, p = A.shape
    lam = report.strong_convexity
    gram = A.T @ A / n
    margin = kappa * gram_noise_margin(tau, p)
    rng = np.random.default_rng(seed + 2000)

    def gradient(theta):
        return A.T @ np.clip(A @ theta - y_fit, -c, c) / n + lam * theta

    def run(noisy_gram, sigma):
        g = gram
        if noisy_gram:
            Z = np.triu(rng.standard_normal((p, p)))
            g = gram + tau * (Z + np.triu(Z, 1).T)
        P = GramPreconditioner(g, curvature=1.0, margin=margin,
                               strong_convexity=max(lam, 1e-12))
        theta = preconditioned_noisy_gradient_descent(
            gradient, np.zeros(p), preconditioner=P, learning_rate=report.learning_rate,
            noise_std=sigma, n_steps=report.n_steps, rng=rng)
        return A_te @ theta

    eigenvalues, vectors = np.linalg.eigh(gram)
    top = vectors[:, eigenvalues > margin / kappa]
    inside = top @ np.linalg.lstsq(A @ top, y_fit, rcond=None)[0]
    simulated.last = dict(margin=margin, gram_eigenvalues_below_margin=int(
        np.sum(eigenvalues < margin)), gram_eigenvalues_above_unscaled_margin=int(
        top.shape[1]), gram_dim=p, n_steps=int(report.n_steps),
        top_gram_eigenvalues=[float(w) for w in eigenvalues[::-1][:6]])
    return {"sim full": [run(True, report.noise_std) for _ in range(DRAWS)],
            "sim no gradient noise": [run(True, 0.0) for _ in range(DRAWS)],
            "sim exact Gram": [run(False, 0.0)], "sim above the margin": [A_te @ inside]}


def one_split(name, epsilon, seed):
    """{row: R^2} for one seed (module docstring)."""
    task, X, y = load(name)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed)
    row = {"sklearn": r2_score(y_te, sklearn_pipeline(task).fit(X_tr, y_tr).predict(X_te))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"),
                                 epsilon=epsilon, random_state=seed).fit(X_tr, y_tr)
    vectorizer, est = model.pipeline_.steps[0][1], model.pipeline_.steps[-1][1]
    F_tr, F_te = vectorizer.transform(X_tr), vectorizer.transform(X_te)
    row["features"] = r2_score(y_te, Ridge().fit(F_tr, y_tr).predict(F_te))
    row["least squares on F"] = r2_score(y_te, Ridge(alpha=1e-8).fit(F_tr, y_tr).predict(F_te))
    low, high = model.target_range_
    y_fit, centre, half = mapped(y_tr, low, high)
    n = F_tr.shape[0]
    coef, intercept = huber_optimum(clip_rows(F_tr, est.data_norm_), y_fit, est.residual_clip_,
                                    est.alpha_ / n, est.intercept_scaling_)
    row["objective"] = r2_score(
        y_te, (clip_rows(F_te, est.data_norm_) @ coef + intercept) * half + centre)
    row["pipeline"] = r2_score(y_te, model.predict(X_te))
    norms = np.linalg.norm(F_tr, axis=1)
    info = dict(range=[low, high], n_features=int(F_tr.shape[1]), solver=est.solver_,
                row_divisor=float(vectorizer.row_divisor_),
                row_norm_median=float(np.median(norms)), row_norm_max=float(norms.max()),
                residual_clip=est.residual_clip_, alpha=est.alpha_,
                y_sd_mapped=float(np.std(y_fit)))
    eps_est, delta_est = est.privacy_.epsilon, est.privacy_.delta

    def replay(y_mapped, ctr, hlf, **params):
        params = dict(dict(epsilon=eps_est, delta=delta_est), **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reg = DPRidge(y_bound=1.0, data_norm=est.data_norm_, random_state=seed + 1000,
                          **params).fit(F_tr, y_mapped)
        return r2_score(y_te, reg.predict(F_te) * hlf + ctr), reg

    for solver in ("auto", "preconditioned", "gd", "cyclic"):
        row[f"replay {solver}"], reg = replay(y_fit, centre, half, solver=solver)
        if solver == "auto":
            info["replay_auto_solver"] = reg.solver_
        if solver == "gd":  # the same K, step and lam without noise: its convergence
            info.update(gd_steps=int(reg.n_iter_), gd_learning_rate=float(reg.learning_rate_))
            quiet, _ = replay(y_fit, centre, half, solver="gd", max_iter=reg.n_iter_,
                              learning_rate=reg.learning_rate_, alpha=reg.alpha_,
                              epsilon=np.inf)
            row["replay gd without noise"] = quiet
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = DPRidge(epsilon=epsilon, delta=model.privacy_.delta, y_bound=1.0,
                        data_norm=est.data_norm_, random_state=seed + 1000).fit(F_tr, y_fit)
    row["replay whole budget"] = r2_score(y_te, whole.predict(F_te) * half + centre)
    for k in (2, 4):
        row[f"replay c/{k}"], _ = replay(y_fit, centre, half,
                                        residual_clip=est.residual_clip_ / k)
    y_or, c_or, h_or = mapped(y_tr, float(y_tr.min()), float(y_tr.max()))
    row["oracle range"], _ = replay(y_or, c_or, h_or)
    row["oracle spread"], _ = replay(y_fit, centre, half,
                                     residual_clip=HUBER_PER_SD * float(np.std(y_fit)))
    simulated.last = {}
    for key, preds in simulated(F_tr, y_fit, F_te, est, seed).items():
        row[key] = np.median([r2_score(y_te, pred * half + centre) for pred in preds])
    info.update(simulated.last)
    return {k: float(v) for k, v in row.items()}, info


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0])
    parser.add_argument("--table", default="panel")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    results = {}
    for epsilon in args.epsilons:
        rows, infos = [], []
        for seed in range(args.seeds):
            row, info = one_split(args.table, epsilon, seed)
            rows.append(row)
            infos.append(info)
            print(f"seed {seed}: " + ", ".join(f"{k} {v:.4f}" for k, v in row.items()),
                  info, flush=True)
        print(f"\n{args.table}, epsilon {epsilon:g}: median [worst] of {args.seeds} seeds; "
              "reference: sklearn for both feature rows, least squares on F for objective, "
              "objective after")
        print("| row | seeds | test R^2 | minus sklearn | minus its reference |")
        print("|---|---:|---|---:|---:|")
        previous = None
        keys = list(dict.fromkeys(k for r in rows for k in r))
        med = {k: float(np.median([r[k] for r in rows if k in r])) for k in keys}
        for key in keys:
            worst = min(r[key] for r in rows if key in r)
            step = "" if previous is None else f"{med[key] - med[previous]:+.4f}"
            count = sum(key in r for r in rows)
            print(f"| {key} | {count} | {med[key]:.4f} [{worst:.4f}] "
                  f"| {med[key] - med['sklearn']:+.4f} | {step} |")
            previous = key if key in ("sklearn", "least squares on F", "objective") else previous
        for name in ("n_features", "row_divisor", "row_norm_median", "row_norm_max", "margin",
                     "gram_eigenvalues_below_margin", "gram_eigenvalues_above_unscaled_margin",
                     "n_steps", "gd_steps", "gd_learning_rate"):
            values = [i[name] for i in infos if name in i]
            if values:
                print(f"{name}: median {np.median(values):.4g} (range {min(values):.4g}.."
                      f"{max(values):.4g})")
        print("released ranges:", sorted({tuple(round(v, 1) for v in i["range"])
                                          for i in infos}))
        results[f"{epsilon:g}"] = dict(rows=rows, infos=infos, medians=med)
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join(["python", "benchmarks/panel_gap.py"] + (argv or sys.argv[1:])),
        machine=f"{platform.machine()}, Python {platform.python_version()}",
        table=args.table, seeds=args.seeds, results=results), indent=1) + "\n")


if __name__ == "__main__":
    main()
