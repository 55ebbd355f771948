"""Default-fit time on CSR input against scikit-learn's lbfgs on the same matrix.

Two sparse designs, each a ``scipy.sparse.csr_matrix`` (canonical):

* ``adult``: the code-book preprocessing of Adult (``datasets.load_adult``, 32,561 x 104,
  rows of norm <= 1), stored as CSR (10.6% of the entries are non-zero);
* ``one-hot``: ``--n`` rows (default 200,000) of 12 categorical columns one-hot encoded
  over 40 levels each (480 columns, 12 stored entries per row, every row of norm 1),
  labels from a planted logistic model.

``DPLogisticRegression()`` with every default (``epsilon=1``, ``solver="auto"``, one
thread) and ``LogisticRegression(max_iter=1000)`` on the same matrix, medians of
``--repeats`` fits, cold plan cache for each skdpgd fit; test accuracy alongside. With
``--before PATH`` the skdpgd fits run first on the package under PATH, in a subprocess
(``PYTHONPATH=PATH``), so that both versions are timed in one run::

    git archive HEAD~1 skdpgd | tar -x -C /tmp/before
    SKDPGD_DATA=/path/to/data python benchmarks/sparse_fit_time.py --before /tmp/before
"""

import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _before_after import main_run, versus_lbfgs

RESULTS = Path(__file__).resolve().parent / "results"


def one_hot(n, columns=12, levels=40, seed=0):
    """(X_train, y_train, X_test, y_test): a planted logistic model on one-hot rows."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, (n, columns))
    indices = (codes + levels * np.arange(columns)).ravel()
    data = np.full(n * columns, 1.0 / np.sqrt(columns))  # rows of norm 1
    X = sp.csr_matrix((data, indices, np.arange(0, n * columns + 1, columns)),
                      shape=(n, columns * levels))
    X.sum_duplicates()
    weights = rng.standard_normal(columns * levels) * 2.0
    y = (X @ weights + 0.5 * rng.standard_normal(n) > 0).astype(int)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


def _problems(n):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from datasets import load_adult

    X, y, X_test, y_test = load_adult()
    return {"adult": (sp.csr_matrix(X), y, sp.csr_matrix(X_test), y_test),
            "one-hot": one_hot(n)}


def measure(n, repeats, lbfgs=True):
    """The timings of the skdpgd importable here (a dict)."""
    import skdpgd
    from skdpgd import DPLogisticRegression
    from skdpgd.solvers._base import _cached_plan

    result = {"skdpgd": str(Path(skdpgd.__file__).parent)}
    for name, (X, y, X_test, y_test) in _problems(n).items():
        DPLogisticRegression(random_state=0).fit(X, y)  # warm-up: every kernel compiled
        result[name] = dict(stored=int(X.nnz), **versus_lbfgs(
            lambda: DPLogisticRegression(random_state=0), X, y, X_test, y_test, repeats,
            lbfgs=lbfgs, before_each=_cached_plan.cache_clear))
    return result


def main(argv=None):
    result = main_run(__file__, __doc__.splitlines()[0], argv, RESULTS / "sparse_fit_time.json",
                      lambda args, baseline: measure(args.n, args.repeats, lbfgs=not baseline),
                      repeats=5, n=200_000)
    if result is None:
        return
    for name, row in result["after"].items():
        if not isinstance(row, dict):
            continue
        line = (f"{name:8s} {row['shape']} stored {row['stored']}: skdpgd "
                f"{row['skdpgd_seconds']:.3f} s ({row['solver']}, {row['skdpgd_score']:.4f}), "
                f"lbfgs {row['lbfgs_seconds']:.3f} s ({row['lbfgs_score']:.4f}), ratio "
                f"{row['skdpgd_over_lbfgs']:.2f}")
        before = result.get("before", {}).get(name)
        if before:
            line += (f" | before: {before['skdpgd_seconds']:.3f} s ({before['solver']}, "
                     f"{before['skdpgd_score']:.4f})")
        print(line)


if __name__ == "__main__":
    main()
