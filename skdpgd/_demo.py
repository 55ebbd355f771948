"""The main job of the README (``skdpgd demo``): private vs non-private on UCI Adult.

The data ship with the package (:func:`skdpgd.datasets.load_adult`; Becker and Kohavi
1996, CC BY 4.0), so the demo needs no download. Every feature is scaled with public
bounds from the code book (:func:`skdpgd.datasets.make_adult_preprocessor`), so rows
have norm at most 1 and ``data_norm=1`` holds without reading the data. The demo trains
:class:`~skdpgd.DPLogisticRegression` at several budgets next to scikit-learn's
non-private ``LogisticRegression`` on the same features, prints the test accuracies and
the privacy report of one fit.
"""

import math
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

from .accounting._format import format_up
from .datasets import load_adult, make_adult_preprocessor
from .linear_model import DPLogisticRegression

#: Budgets of the default table (np.inf: the same algorithm without noise).
DEMO_EPSILONS = (0.1, 0.5, 1.0, 4.0, math.inf)


def _report_epsilon(epsilons):
    """Which fit's privacy report to print: epsilon=1 if run, else the largest finite one."""
    finite = [e for e in epsilons if math.isfinite(e)]
    if not finite:
        return None
    return 1.0 if 1.0 in finite else max(finite)


def _adult_features():
    """Train / test features of Adult, preprocessed with public bounds only."""
    train, test = load_adult("train"), load_adult("test")
    pre = make_adult_preprocessor().fit(train.data)  # reads no value: public constants
    return pre.transform(train.data), train.target, pre.transform(test.data), test.target


def run_demo(epsilons=DEMO_EPSILONS, seeds=(0,), solver="auto", out=print):
    """Fit DPLogisticRegression on Adult at several budgets next to scikit-learn; print a table.

    Parameters
    ----------
    epsilons : tuple of float, default=DEMO_EPSILONS
        Budgets to train at (``np.inf``: the same algorithm without noise).
    seeds : tuple of int, default=(0,)
        Noise seeds; the table shows the median test accuracy over them.
    solver : {"auto", "preconditioned", "cyclic", "gd", "sgd"}, default="auto"
        Passed to the estimator; ``"auto"`` is the estimator's default, which runs the
        candidate with the smallest predicted excess loss (the printed report's notes list
        the candidates and the choice; docs/solvers.md).
    out : callable, default=print
        Where lines go.

    Returns
    -------
    rows : list of tuple
        ``(label, epsilon, median test accuracy)`` for every line of the table.
    """
    start = time.perf_counter()
    X_train, y_train, X_test, y_test = _adult_features()
    majority = max(np.mean(y_test), 1.0 - np.mean(y_test))
    out("skdpgd demo: UCI Adult census income (shipped with skdpgd; Becker and Kohavi 1996, "
        "CC BY 4.0)")
    out(f"  task: predict income > 50K; {len(y_train)} training rows, {len(y_test)} test "
        f"rows, {X_train.shape[1]} features")
    out("  features scaled with public bounds from the code book only: every row has norm "
        "<= 1 = data_norm")
    out("")
    out(f"{'model':<38}{'epsilon':>8}{'test accuracy':>15}{'steps':>7}{'seconds':>9}")
    rows = []
    tic = time.perf_counter()
    baseline = LogisticRegression(max_iter=1000).fit(X_train, y_train).score(X_test, y_test)
    rows.append(("scikit-learn LogisticRegression", None, baseline))
    out(f"{'scikit-learn LogisticRegression':<38}{'-':>8}{baseline:>15.3f}{'-':>7}"
        f"{time.perf_counter() - tic:>9.1f}   (not private)")
    shown, shown_model, ran = _report_epsilon(epsilons), None, {}
    label = f'DPLogisticRegression(solver="{solver}")' if solver != "auto" else \
        "DPLogisticRegression()"
    for epsilon in epsilons:
        scores, model, tic = [], None, time.perf_counter()
        for seed in seeds:
            model = DPLogisticRegression(
                epsilon=epsilon, classes=[0, 1], solver=solver, random_state=seed
            ).fit(X_train, y_train)
            scores.append(model.score(X_test, y_test))
        bound = (f"{model.privacy_.binding_bound} bound binds" if math.isfinite(epsilon)
                 else "no noise")
        ran.setdefault((model.solver_, bound), []).append(f"{epsilon:g}")
        if epsilon == shown:
            shown_model = model
        accuracy = float(np.median(scores))
        rows.append((label, epsilon, accuracy))
        note = "   (same algorithm, no noise)" if math.isinf(epsilon) else ""
        out(f"{label:<38}{epsilon:>8g}{accuracy:>15.3f}{model.n_iter_:>7d}"
            f"{(time.perf_counter() - tic) / len(seeds):>9.1f}{note}")
    out(f"{'(majority class)':<38}{'-':>8}{majority:>15.3f}")
    out("")
    finite = [m for m in (shown_model, model) if m is not None and m.privacy_.epsilon < math.inf]
    deltas = sorted({m.privacy_.delta for m in finite[:1]})
    seeds_text = (f"noise seed {seeds[0]} (one run per epsilon)" if len(seeds) == 1
                  else f"median over noise seeds {list(seeds)}")
    out(f"solver={solver!r} ran " + "; ".join(
        f"{name!r} at epsilon {', '.join(eps)} ({bound})"
        for (name, bound), eps in ran.items()))
    out(f"delta = {', '.join(f'{d:.3g}' for d in deltas) or '-'} (the estimator's default, "
        f"min(1e-5, 1/(10 n)) with n = {len(y_train)}); replace-one neighbours; "
        f"{seeds_text}; total {time.perf_counter() - start:.1f} s")
    if shown_model is not None:
        out("")
        out(f"Privacy report of the epsilon = {shown:g} fit (clf.privacy_):")
        out(repr(shown_model.privacy_))
        out("")
        report = shown_model.privacy_
        gains = not report.binding_bound.endswith("composition)")
        if gains and hasattr(report, "composition_epsilon"):
            out(f"Only the final model is released, and the theorem above bounds its privacy "
                f"loss: epsilon = {format_up(report.epsilon)}. Accounting by composition (as "
                f"DP-SGD libraries do) would claim epsilon = "
                f"{format_up(report.composition_epsilon)} for the very same run. Formulas "
                "and sources: docs/theory.md.")
        else:
            ran = getattr(shown_model, "run_report_", report)  # the run that ran
            released = f"{ran.n_steps} noisy steps"
            if hasattr(report, "gram_mu"):  # the run was chosen on the released Gram
                released = (f"one noisy Gram matrix, then {released} of the run chosen on "
                            f"its spectrum, {ran.run_solver}")
            out(f"The run released only what the report lists ({released}), "
                f"composed exactly in Gaussian DP: epsilon = {format_up(report.epsilon)}. "
                "Where solver='auto' picks 'cyclic' (see `skdpgd account` for other n and "
                "d) the convergent bound of Bok, Su and Altschuler binds instead. Formulas "
                "and sources: docs/theory.md, docs/solvers.md.")
    return rows
