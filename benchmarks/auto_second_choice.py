"""``solver="auto"``'s second choice on tables of a few thousand rows with public bounds.

A new user's table of 5,410 rows and 15 public-bound features scored lower with auto's
second choice (the choice on a released Gram's spectrum) than with explicit
``solver="preconditioned"`` at epsilon 0.5 and 1. This script measures tables like it,
built from public data (medians over seeds, every arm on the same draws):

* ``adult-15``: 5,410 rows of the package's Adult (``skdpgd.datasets.load_adult``), 5
  numeric columns scaled by the code book's ranges (``ADULT_BOUNDS``; capital gain and
  loss on log1p), ``workclass`` and ``sex`` one-hot from the code book, rows divided by
  sqrt(7); test: the whole test split;
* ``adult-18``: the same with ``race``, ``sex`` and ``relationship`` (18 columns, sqrt(8));
* ``synthetic-15``: 5,410 training and 5,000 test rows of 15 correlated features in
  [0, 1] (Gaussian copula, one common factor), labels from a logistic model, rows divided
  by sqrt(15) (accuracy about .65, as the user's table).

Arms: ``auto`` (today's default: a classifier's second choice leaves the public choice
only for a candidate that beats it at the unresolved bulk's estimated level, at its worst
common level and in the mean of the flat and the spread bulk,
:mod:`skdpgd.solvers._spectral_choice`), ``no-spread`` (the rule before the spread bulk:
the estimate and the worst common level), ``before`` (the second
choice before: the smallest proxy at the bulk's estimate alone), ``worst-bulk`` (the
smallest proxy at the bulk's worst common level alone: measured on the validation grid
before, it lost up to .0085, synthetic-100 at epsilon 0.1), ``public`` (auto without its second
choice: the plan it runs where no second choice follows, ``plan_without_choice``), and
the explicit solvers ``gd``, ``cyclic`` and ``preconditioned``. ``no-spread``, ``before``
and ``worst-bulk`` are patched in here (:func:`patched`), not in the package. Every arm is
charged the same epsilon (the second choice's charge is fixed before the data).
Usage, from the repository root::

    nice python benchmarks/auto_second_choice.py [--seeds 5] [--epsilons 0.5 1]
        [--tables adult-15 adult-18 synthetic-15] [--out PATH]
"""

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import norm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the checkout's skdpgd

from skdpgd import DPLogisticRegression
from skdpgd.datasets import ADULT_BOUNDS, ADULT_CATEGORIES, load_adult
from skdpgd.solvers import _auto, _spectral, _spectral_choice, _spectral_utility
from skdpgd.solvers._base import _cached_plan
from skdpgd.solvers._utility import TIE_TOLERANCE

TABLES = {"adult-15": ("workclass", "sex"), "adult-18": ("race", "sex", "relationship"),
          "synthetic-15": None}
ARMS = ("auto", "no-spread", "before", "worst-bulk", "public", "gd", "cyclic",
        "preconditioned")
N_ROWS = 5410
_ADULT = {}


def _adult_features(data, groups):
    columns = dict(zip(load_adult("train").feature_names, np.asarray(data, dtype=object).T, strict=True))
    blocks = []
    for name, (lower, upper) in ADULT_BOUNDS.items():  # the code book's ranges (public)
        v = np.asarray(columns[name], float)
        if name.startswith("capital"):
            v, lower, upper = np.log1p(v), math.log1p(lower), math.log1p(upper)
        blocks.append(np.clip((v - lower) / (upper - lower), 0.0, 1.0)[:, None])
    for group in groups:
        blocks.append((columns[group][:, None] == np.array(ADULT_CATEGORIES[group])).astype(float))
    return np.hstack(blocks) / math.sqrt(len(ADULT_BOUNDS) + len(groups))


def load_table(name, seed):
    """(X, y, X_test, y_test) of table ``name`` for seed ``seed``."""
    if name == "synthetic-15":
        rng = np.random.default_rng(seed)
        m, d = N_ROWS + 5000, 15
        X = norm.cdf(0.6 * rng.standard_normal((m, 1)) + 0.8 * rng.standard_normal((m, d)))
        y = (rng.random(m) < 1 / (1 + np.exp(-(X - 0.5) @ rng.standard_normal(d)))).astype(float)
        X = X / math.sqrt(d)
        return X[:N_ROWS], y[:N_ROWS], X[N_ROWS:], y[N_ROWS:]
    if name not in _ADULT:
        train, test = load_adult("train"), load_adult("test")
        _ADULT[name] = (_adult_features(train.data, TABLES[name]), np.asarray(train.target, float),
                        _adult_features(test.data, TABLES[name]), np.asarray(test.target, float))
    X, y, Xt, yt = _ADULT[name]
    idx = np.random.default_rng(seed).choice(X.shape[0], N_ROWS, replace=False)
    return X[idx], y[idx], Xt, yt


def _choose_by(score):
    """The second choice by one score alone (smallest; ties to the fewest passes), as
    ``_spectral_choice.choose_on_spectrum`` was before (``score`` the estimate)."""
    def choose(plan, problem, released):
        eigenvalues, vectors = np.linalg.eigh(released)
        tau = plan.probe_noise_std
        spectrum, bulk = _spectral_utility.estimate_spectrum(eigenvalues, tau, problem.row_norm)
        unresolved = dict(bulk=bulk, bulk_ceiling=tau * math.sqrt(eigenvalues.size),
                          offset_weights=None if problem.intercept_scaling is None
                          else vectors[-1] ** 2,
                          offset_distance=_spectral_utility.released_offset_distance(
                              problem, released, tau))
        scored = [_spectral_choice._spectral_prediction(c, problem, eigenvalues, spectrum,
                                                        unresolved, score)
                  for c in plan.candidates]
        best = min(excess for excess, _ in scored)
        tied = [i for i, (excess, _) in enumerate(scored)
                if excess <= best + TIE_TOLERANCE * abs(best)]
        return min(tied, key=lambda i: scored[i][1]), ()
    return choose


#: The patched variants: what replaces the second choice (None: no second choice).
VARIANTS = {"before": _choose_by(_spectral_utility.spectral_excess_loss),
            "worst-bulk": _choose_by(_spectral_utility.worst_bulk_excess_loss),
            "public": None}


def _no_spread(n_steps, noise_std, **kwargs):
    """The spread bulk's score replaced by 0: the rule before it (the estimate and the
    worst common level; the mean's condition is then the estimate's)."""
    return 0.0


class patched:
    """``with patched(arm):`` the package's auto with that variant's second choice."""

    def __init__(self, arm):
        self.arm = arm

    def __enter__(self):
        self.saved = (_auto.spectral_plan, _spectral.choose_on_spectrum,
                      _spectral_choice.spread_bulk_excess_loss)
        if self.arm == "public":
            _auto.spectral_plan = lambda *args, **kwargs: None  # no second choice
        elif self.arm == "no-spread":
            _spectral_choice.spread_bulk_excess_loss = _no_spread
        elif self.arm in VARIANTS:
            _spectral.choose_on_spectrum = VARIANTS[self.arm]
        _cached_plan.cache_clear()

    def __exit__(self, *exc):
        (_auto.spectral_plan, _spectral.choose_on_spectrum,
         _spectral_choice.spread_bulk_excess_loss) = self.saved
        _cached_plan.cache_clear()


def fit(arm, X, y, epsilon, seed):
    solver = arm if arm in ("gd", "cyclic", "preconditioned") else "auto"
    model = DPLogisticRegression(epsilon=epsilon, classes=[0, 1], solver=solver,
                                 random_state=seed)
    with patched(arm), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    ran = getattr(getattr(model, "run_report_", None), "run_solver", model.solver_)
    return model, ran, model.privacy_.epsilon


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--out", default=str(HERE / "results" / "auto_second_choice.json"))
    args = parser.parse_args(argv)
    started, rows = time.perf_counter(), []
    for name in args.tables:
        for epsilon in args.epsilons:
            for seed in range(args.seeds):
                X, y, Xt, yt = load_table(name, seed)
                for arm in ARMS:
                    model, ran, spent = fit(arm, X, y, epsilon, seed)
                    rows.append(dict(table=name, epsilon=epsilon, seed=seed, arm=arm, ran=ran,
                                     epsilon_spent=spent, score=float(model.score(Xt, yt))))
    print("| table | eps | " + " | ".join(ARMS) + " | auto - best explicit | before - best "
          "| public - best |")
    print("|---|---:|" + "---:|" * (len(ARMS) + 3))
    cells = []
    for name in args.tables:
        for epsilon in args.epsilons:
            med = {arm: float(np.median([r["score"] for r in rows if r["table"] == name
                                         and r["epsilon"] == epsilon and r["arm"] == arm]))
                   for arm in ARMS}
            best = max(med[a] for a in ("gd", "cyclic", "preconditioned"))
            cells.append(dict(table=name, epsilon=epsilon, median=med, best_explicit=best))
            print(f"| {name} | {epsilon:g} | " + " | ".join(f"{med[a]:.4f}" for a in ARMS)
                  + f" | {med['auto'] - best:+.4f} | {med['before'] - best:+.4f} "
                  f"| {med['public'] - best:+.4f} |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(dict(
        command=" ".join([Path(sys.executable).name, *sys.argv]), seconds=time.perf_counter()
        - started, cells=cells, rows=rows), indent=1) + "\n")


if __name__ == "__main__":
    main()
