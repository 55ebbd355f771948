"""Default-fit time of the multinomial DPLogisticRegression against scikit-learn's lbfgs.

A dense synthetic design of ``--n`` rows (default 200,000) x 50 features (rows of norm <= 1)
with 4 classes drawn from a planted multinomial logistic model (Gumbel noise), 80 / 20
split; ``DPLogisticRegression(classes=[0, 1, 2, 3])`` with every other default (epsilon 1,
``solver="auto"``, one thread, cold plan cache) and ``LogisticRegression(max_iter=1000)``
on the same arrays, medians of ``--repeats`` fits, test accuracy alongside. With
``--before PATH`` the skdpgd fits run first on the package under PATH, in a subprocess
(``PYTHONPATH=PATH``), so that both versions are timed in one run::

    git archive HEAD~1 skdpgd | tar -x -C /tmp/before
    python benchmarks/multinomial_fit_time.py --before /tmp/before
"""

from pathlib import Path

import numpy as np
from _before_after import main_run, versus_lbfgs

RESULTS = Path(__file__).resolve().parent / "results"
N_FEATURES, N_CLASSES = 50, 4


def problem(n, seed=0):
    """(X_train, y_train, X_test, y_test) of the planted multinomial model."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, N_FEATURES)) / np.sqrt(N_FEATURES)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    weights = rng.standard_normal((N_FEATURES, N_CLASSES)) * 3.0
    y = np.argmax(X @ weights + rng.gumbel(size=(n, N_CLASSES)), axis=1)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


def measure(n, repeats, lbfgs=True):
    """The timings of the skdpgd importable here (a dict)."""
    import skdpgd
    from skdpgd import DPLogisticRegression
    from skdpgd.solvers._base import _cached_plan

    X, y, X_test, y_test = problem(n)
    classes = list(range(N_CLASSES))
    DPLogisticRegression(classes=classes, random_state=0).fit(X[:3000], y[:3000])  # warm-up
    row = versus_lbfgs(lambda: DPLogisticRegression(classes=classes, random_state=0), X, y,
                       X_test, y_test, repeats, lbfgs=lbfgs,
                       before_each=_cached_plan.cache_clear)
    row["skdpgd"] = str(Path(skdpgd.__file__).parent)
    return row


def main(argv=None):
    result = main_run(__file__, __doc__.splitlines()[0], argv, RESULTS / "multinomial_fit_time.json",
                      lambda args, baseline: measure(args.n, args.repeats, lbfgs=not baseline),
                      repeats=3, n=200_000)
    if result is None:
        return
    row = result["after"]
    line = (f"{row['shape']}: skdpgd {row['skdpgd_seconds']:.3f} s ({row['solver']}, "
            f"{row['skdpgd_score']:.4f}), lbfgs {row['lbfgs_seconds']:.3f} s "
            f"({row['lbfgs_score']:.4f}), ratio {row['skdpgd_over_lbfgs']:.2f}")
    if "before" in result:
        before = result["before"]
        line += (f" | before: {before['skdpgd_seconds']:.3f} s ({before['solver']}, "
                 f"{before['skdpgd_score']:.4f})")
    print(line)


if __name__ == "__main__":
    main()
