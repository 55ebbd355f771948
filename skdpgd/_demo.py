"""The main job of the README: private vs non-private logistic regression on a bundled data set.

Uses scikit-learn's handwritten digits (8x8 images, pixel values in [0, 16] by
construction of the data set, so the feature bound is public and nothing is computed
from the data to scale it).
"""

import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from .linear_model import DPLogisticRegression

#: Largest possible row norm of a digits image: 64 pixels at the maximum value 16.
DIGITS_MAX_ROW_NORM = 16.0 * np.sqrt(64)


def run_demo(epsilons=(0.5, 1.0, 2.0, 4.0, 8.0, np.inf), seeds=(0, 1, 2), out=print):
    """Fit DPLogisticRegression at several budgets next to scikit-learn; print a table."""
    X, y = load_digits(return_X_y=True)
    X = X / DIGITS_MAX_ROW_NORM  # public bound: every row now has norm <= 1
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
    classes = np.arange(10)  # the label set is public: digits 0-9
    out(f"Digits (scikit-learn), n_train={len(y_train)}, 10 classes, rows scaled by the public bound 16*8")
    start = time.perf_counter()
    baseline = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)
    out(f"{'model':<28}{'epsilon':>9}{'accuracy':>10}{'mu-GDP':>9}{'steps':>7}")
    out(f"{'sklearn LogisticRegression':<28}{'-':>9}{baseline:>10.3f}{'-':>9}{'-':>7}")
    for epsilon in epsilons:
        scores, model = [], None
        for seed in seeds:
            model = DPLogisticRegression(epsilon=epsilon, classes=classes, random_state=seed)
            scores.append(model.fit(X_train, y_train).score(X_test, y_test))
        out(
            f"{'DPLogisticRegression':<28}{epsilon:>9.3g}{np.median(scores):>10.3f}"
            f"{model.privacy_.mu:>9.3g}{model.n_iter_:>7d}"
        )
    out(f"(median test accuracy over seeds {list(seeds)}; delta = min(1e-5, 1/(10 n)); "
        f"{time.perf_counter() - start:.1f}s)")
    out("\nPrivacy report of the last fit:")
    out(repr(model.privacy_))
