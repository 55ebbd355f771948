"""The logistic loss's curvature at its optimum, along the optimum and across it.

``solver="auto"``'s proxy scores a run on the spectrum of the design's Gram G with one
curvature level c (the loss's bound, 1/4 for the binary logistic loss): the Hessian at
the optimum is taken to be c G + lam I. At the optimum of a well-separated problem the
Hessian is X^T D X / n with D = p(1 - p) small where the margins are large, and smallest
in the direction of the optimum itself. This script measures, on the validation grid's
``synthetic-1500`` problem (seed 0, 40,000 x 1,500, isotropic design), the Hessian's
Rayleigh quotient along theta-hat and across it (20 random orthogonal directions), each
relative to the design's own second moment in that direction, for scikit-learn's
(non-private) optimum at C = 1, 10, 100::

    python benchmarks/curvature_at_optimum.py [--out results/curvature_at_optimum.json]
"""

import argparse
import json
from pathlib import Path

import auto_grid
import numpy as np
from sklearn.linear_model import LogisticRegression


def measure(cs=(1.0, 10.0, 100.0), seed=0):
    _, X, y, Xt, yt = auto_grid.load_problem("synthetic-1500", seed, 50_000)
    rows = []
    for C in cs:
        model = LogisticRegression(C=C, max_iter=2000).fit(X, y)
        w = model.coef_[0]
        p = 1.0 / (1.0 + np.exp(-(X @ w + model.intercept_[0])))
        weight = p * (1.0 - p)
        u = w / np.linalg.norm(w)
        V = np.random.default_rng(0).standard_normal((X.shape[1], 20))
        V -= np.outer(u, u @ V)
        V /= np.linalg.norm(V, axis=0)
        along = np.mean(weight * (X @ u) ** 2) / np.mean((X @ u) ** 2)
        across = np.mean(weight[:, None] * (X @ V) ** 2) / np.mean((X @ V) ** 2)
        rows.append(dict(C=C, norm=float(np.linalg.norm(w)), accuracy=float(model.score(Xt, yt)),
                         mean_curvature=float(weight.mean()), along_optimum=float(along),
                         across_optimum=float(across), proxy_level=0.25))
        print(f"C={C:g}: |w|={rows[-1]['norm']:.0f}, test accuracy {rows[-1]['accuracy']:.4f}, "
              f"curvature along the optimum {along:.4f}, across it {across:.4f} "
              f"(the proxy's level: 0.25)")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "results"
                        / "curvature_at_optimum.json")
    args = parser.parse_args(argv)
    rows = measure()
    args.out.write_text(json.dumps(dict(problem="synthetic-1500, seed 0", rows=rows), indent=1))


if __name__ == "__main__":
    main()
