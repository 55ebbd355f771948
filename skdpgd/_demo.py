"""The main job of the README (``skdpgd demo``): private vs non-private on a bundled data set.

Uses scikit-learn's handwritten digits (8x8 images, pixel values in [0, 16] by
construction of the data set, so the feature bound is public and nothing is computed
from the data to scale it): every row is divided by 16 * sqrt(64) = 128, the largest
possible row norm, so ``data_norm=1`` holds for every image.
"""

import math
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from .linear_model import DPLogisticRegression

#: Largest possible row norm of a digits image: 64 pixels at the maximum value 16.
DIGITS_MAX_ROW_NORM = 16.0 * np.sqrt(64)


def _report_epsilon(epsilons):
    """Which fit's privacy report to print: epsilon=1 if run, else the largest finite one."""
    finite = [e for e in epsilons if math.isfinite(e)]
    if not finite:
        return None
    return 1.0 if 1.0 in finite else max(finite)


def run_demo(epsilons=(0.5, 1.0, 2.0, 4.0, 8.0, np.inf), seeds=(0, 1, 2), out=print):
    """Fit DPLogisticRegression at several budgets next to scikit-learn; print a table.

    Parameters
    ----------
    epsilons : tuple of float
        Budgets to train at (``np.inf``: the same algorithm without noise).
    seeds : tuple of int
        Noise seeds; the table shows the median test accuracy over them.
    out : callable
        Where lines go (``print``).
    """
    X, y = load_digits(return_X_y=True)
    X = X / DIGITS_MAX_ROW_NORM  # public bound: every row now has norm <= 1
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
    classes = np.arange(10)  # the label set is public: digits 0-9
    out(f"Digits (scikit-learn), n_train={len(y_train)}, 10 classes, "
        "rows scaled by the public bound 16*8")
    start = time.perf_counter()
    baseline = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)
    out(f"{'model':<28}{'epsilon':>9}{'accuracy':>10}{'mu-GDP':>9}{'steps':>7}")
    out(f"{'sklearn LogisticRegression':<28}{'-':>9}{baseline:>10.3f}{'-':>9}{'-':>7}")
    shown, shown_report = _report_epsilon(epsilons), None
    for epsilon in epsilons:
        scores, model = [], None
        for seed in seeds:
            model = DPLogisticRegression(epsilon=epsilon, classes=classes, random_state=seed)
            scores.append(model.fit(X_train, y_train).score(X_test, y_test))
        if epsilon == shown:
            shown_report = model.privacy_
        out(
            f"{'DPLogisticRegression':<28}{epsilon:>9.3g}{np.median(scores):>10.3f}"
            f"{model.privacy_.mu:>9.3g}{model.n_iter_:>7d}"
        )
    out(f"(median test accuracy over seeds {list(seeds)}; delta = min(1e-5, 1/(10 n)); "
        f"{time.perf_counter() - start:.1f}s)")
    if shown_report is not None:
        out(f"\nPrivacy report of the epsilon={shown:g} fit:")
        out(repr(shown_report))
