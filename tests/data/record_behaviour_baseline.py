"""Record the fits that the behaviour-unchanged test compares against (run once, before a refactor).

For every solver (gd, cyclic, sgd, preconditioned), model (binary and multinomial
logistic, ridge) and input kind (dense float64, CSR, dense float32) it fits one estimator
on a fixed synthetic data set with a fixed seed and stores ``coef_``, ``intercept_``,
``privacy_.mu`` (where the accountant has one), ``privacy_.epsilon`` and ``n_iter_``.
The values are the code's own outputs at the commit named in the file: the test checks
that later code reproduces them (a refactor may move summation order, not the
algorithm), not that they are right; correctness is tested elsewhere.

Usage: ``python tests/data/record_behaviour_baseline.py OUT.json`` (with the package to
record importable, e.g. ``PYTHONPATH=<checkout of that commit>``).
"""

import json
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

SOLVERS = ("gd", "cyclic", "sgd", "preconditioned")
MODELS = ("binary", "multinomial", "ridge")
KINDS = ("dense", "csr", "float32")


def make_data(model, kind, n=300, d=6, seed=0):
    """A fixed synthetic design: rows of norm about 1, some far above (clipped)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    X[:5] *= 4.0  # a few rows above data_norm = 1: clipping matters
    X[rng.random((n, d)) < 0.3] = 0.0  # zeros, so CSR differs from dense in storage
    w = rng.normal(size=d)
    if model == "binary":
        y = (X @ w + 0.3 * rng.normal(size=n) > 0).astype(int)
    elif model == "multinomial":
        y = np.argmax(X @ rng.normal(size=(d, 3)) + 0.3 * rng.normal(size=(n, 3)), axis=1)
    else:
        y = np.clip(0.5 * (X @ w) + 0.1 * rng.normal(size=n), -1, 1)
    if kind == "csr":
        X = sp.csr_matrix(X)
    elif kind == "float32":
        X = X.astype(np.float32)
    return X, y


def make_estimator(model, solver):
    from skdpgd import DPLogisticRegression, DPRidge

    common = dict(epsilon=1.0, delta=1e-5, solver=solver, random_state=1234)
    if model == "ridge":
        return DPRidge(y_bound=1.0, **common)
    classes = [0, 1] if model == "binary" else [0, 1, 2]
    return DPLogisticRegression(classes=classes, **common)


def record():
    import skdpgd

    cases = {}
    for solver in SOLVERS:
        for model in MODELS:
            for kind in KINDS:
                X, y = make_data(model, kind)
                est = make_estimator(model, solver).fit(X, y)
                mu = getattr(est.privacy_, "mu", None)
                cases[f"{solver}-{model}-{kind}"] = {
                    "coef": np.asarray(est.coef_, float).tolist(),
                    "intercept": np.atleast_1d(np.asarray(est.intercept_, float)).tolist(),
                    "mu": None if mu is None or not np.isfinite(mu) else float(mu),
                    "epsilon": float(est.privacy_.epsilon),
                    "n_iter": int(est.n_iter_),
                }
    commit = subprocess.run(
        ["git", "-C", str(__import__("pathlib").Path(skdpgd.__file__).parents[1]),
         "rev-parse", "HEAD"], capture_output=True, text=True,
    ).stdout.strip()
    return {"commit": commit, "cases": cases}


if __name__ == "__main__":
    with open(sys.argv[1], "w") as fh:
        json.dump(record(), fh, indent=1)
