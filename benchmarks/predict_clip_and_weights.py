"""Predictions on clipped rows, and the cost of row weights (class_weight, sample_weight).

    SKDPGD_DATA=/path/to/data nice python benchmarks/predict_clip_and_weights.py \
        --out benchmarks/results/predict_clip_and_weights.json

1. **A data_norm below the rows' norms.** ``fit`` clips rows to ``data_norm``; the
   prediction functions used to take the raw rows. Reported at epsilon=inf (the same
   algorithm without noise, so the difference is the prediction map alone), medians over
   5 seeds of the split: R^2 of ``DPRidge(y_bound=1, data_norm=1)`` and accuracy of
   ``DPLogisticRegression(data_norm=1)`` scored on the raw rows (``X @ coef_ +
   intercept_``, what ``predict`` computed before it clipped) and on the clipped rows
   (``predict`` / ``score`` now), next to a ``data_norm`` above every row. Data: the
   benchmark's diamonds and Adult (rows of norm <= 1) multiplied by 1.83, so rows have
   norms up to 1.83, and a synthetic design (4 features in [0.3, 0.915], norms 0.6-1.8).
2. **Weights.** Fit time of ``solver="gd"`` with ``max_sample_weight=1`` and
   ``sample_weight=1`` against the unweighted fit (same constants, same noise: the
   difference is the weighted row sums, which do not use the fused numba kernel), medians
   of 3 on a 200,000 x 50 design; and on Adult (24% positives), balanced accuracy of the
   unweighted fit against ``class_weight={0: 0.3, 1: 1}`` (largest weight 1: the noise is
   unchanged) at epsilon 0.5, 1 and 4, medians of 5 seeds.
"""

import argparse
import json
import os
import platform
import sys
import time

import numpy as np
import sklearn
from sklearn.metrics import balanced_accuracy_score, r2_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import skdpgd
from skdpgd import DPLogisticRegression, DPRidge

SEEDS = range(5)
SCALE = 1.83


def _synthetic(seed, n=4000):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.3, 0.915, size=(n, 4))
    y = np.clip(X @ np.array([1.0, -1.0, 1.0, 1.0]) - 1.2 + 0.1 * rng.standard_normal(n), -1, 1)
    cut = 3 * n // 4
    return X[:cut], y[:cut], X[cut:], y[cut:]


def _resplit(X, y, seed):
    """A random 75/25 split (seeded) of the concatenated train and test sets."""
    order = np.random.default_rng(seed).permutation(len(y))
    cut = 3 * len(y) // 4
    return X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]


def _raw_scores(model, X):
    return (X @ np.atleast_2d(model.coef_).T).reshape(len(X), -1) + model.intercept_


def clipping_rows(datasets):
    rows = []
    for name, loader, task in datasets:
        raw, clipped, right = [], [], []
        for seed in SEEDS:
            Xt, yt, Xs, ys = loader(seed)
            norm = float(np.max(np.linalg.norm(np.vstack([Xt, Xs]), axis=1)))
            if task == "regression":
                model = DPRidge(epsilon=np.inf, y_bound=1.0, data_norm=1.0).fit(Xt, yt)
                raw.append(r2_score(ys, _raw_scores(model, Xs).ravel()))
                clipped.append(model.score(Xs, ys))
                wide = DPRidge(epsilon=np.inf, y_bound=1.0, data_norm=norm).fit(Xt, yt)
                right.append(wide.score(Xs, ys))
            else:
                model = DPLogisticRegression(epsilon=np.inf, data_norm=1.0).fit(Xt, yt)
                raw.append(np.mean((_raw_scores(model, Xs).ravel() > 0) == ys))
                clipped.append(model.score(Xs, ys))
                wide = DPLogisticRegression(epsilon=np.inf, data_norm=norm).fit(Xt, yt)
                right.append(wide.score(Xs, ys))
        rows.append({
            "data": name, "metric": "R^2" if task == "regression" else "accuracy",
            "max_row_norm": norm, "raw_rows_old_predict": float(np.median(raw)),
            "clipped_rows_predict": float(np.median(clipped)),
            "data_norm_above_every_row": float(np.median(right)),
        })
        print(rows[-1], flush=True)
    return rows


def weighted_fit_time(n=200_000, d=50, repeats=3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = (X[:, 0] > 0).astype(int)
    common = dict(epsilon=1.0, classes=[0, 1], solver="gd", max_iter=20, C=1.0, random_state=0)
    DPLogisticRegression(**common).fit(X[:1000], y[:1000])  # compile the kernel first
    times = {"unweighted": [], "weighted": []}
    for _ in range(repeats):
        t = time.perf_counter()
        DPLogisticRegression(**common).fit(X, y)
        times["unweighted"].append(time.perf_counter() - t)
        t = time.perf_counter()
        DPLogisticRegression(max_sample_weight=1.0, **common).fit(X, y, sample_weight=np.ones(n))
        times["weighted"].append(time.perf_counter() - t)
    out = {k: float(np.median(v)) for k, v in times.items()}
    out.update(n=n, d=d, passes=20, fused_kernel=skdpgd._data._fused.available())
    print(out, flush=True)
    return out


def class_weight_rows(load_adult):
    X_train, y_train, X_test, y_test = load_adult()
    X, y = np.vstack([X_train, X_test]), np.concatenate([y_train, y_test])
    rows = []
    for epsilon in (0.5, 1.0, 4.0):
        plain, weighted = [], []
        for seed in SEEDS:
            Xt, yt, Xs, ys = _resplit(X, y, seed)
            common = dict(epsilon=epsilon, classes=[0, 1], random_state=seed)
            plain.append(balanced_accuracy_score(
                ys, DPLogisticRegression(**common).fit(Xt, yt).predict(Xs)))
            weighted.append(balanced_accuracy_score(
                ys, DPLogisticRegression(class_weight={0: 0.3, 1: 1.0}, **common)
                .fit(Xt, yt).predict(Xs)))
        rows.append({"epsilon": epsilon, "balanced_accuracy_unweighted": float(np.median(plain)),
                     "balanced_accuracy_class_weight_0.3_1": float(np.median(weighted))})
        print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results/predict_clip_and_weights.json")
    args = parser.parse_args()
    from datasets import load_adult, load_diamonds

    def scaled(loader):
        cache = {}

        def load(seed):
            if "data" not in cache:
                X_train, y_train, X_test, y_test = loader()
                cache["data"] = (np.vstack([X_train, X_test]) * SCALE,
                                 np.concatenate([y_train, y_test]))
            return _resplit(*cache["data"], seed)
        return load

    datasets = [
        ("synthetic (norms 0.6-1.8)", _synthetic, "regression"),
        ("diamonds x 1.83", scaled(load_diamonds), "regression"),
        ("adult x 1.83", scaled(load_adult), "classification"),
    ]
    result = {
        "command": "python benchmarks/predict_clip_and_weights.py",
        "versions": {"skdpgd": skdpgd.__version__, "sklearn": sklearn.__version__,
                     "numpy": np.__version__, "python": platform.python_version()},
        "seeds": list(SEEDS),
        "clipped_predictions": clipping_rows(datasets),
        "weighted_fit_time_s": weighted_fit_time(),
        "class_weight_adult": class_weight_rows(load_adult),
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
