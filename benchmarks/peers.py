"""Peer methods for the accuracy benchmark.

* scikit-learn, non-private: ``LogisticRegression`` (lbfgs, C=1) and ``Ridge`` (alpha=1),
  run in this (main) environment.
* diffprivlib 0.6.6 ``LogisticRegression(epsilon, data_norm=1.0, C)`` and
  ``LinearRegression(epsilon, bounds_X, bounds_y)``, run INSIDE
  ``benchmarks/.venv-peers`` (built by ``setup_peers.sh``; diffprivlib needs
  scikit-learn <= 1.7) by a subprocess running ``_diffprivlib_worker.py``.
  diffprivlib's LinearRegression has no ``data_norm`` (it warns that the argument
  "is not functional"): it uses the per-feature box ``bounds_X`` and ``bounds_y``.
* AdaSSP (Wang 2018), ``adassp.py``, in this environment.
* Opacus 1.6 DP-SGD (logistic regression, Poisson sampling, per-example clipping), run
  INSIDE ``benchmarks/.venv-opacus`` (``setup_opacus.sh``) by ``_opacus_worker.py``; its
  noise multiplier is calibrated HERE, under replace-one neighbours, by skdpgd's own
  PLD accountant (``opacus_run`` / ``calibrate_opacus``).

Every function returns plain dicts / lists of dicts with ``score`` (test accuracy
for classification, test R^2 for regression) and ``fit_time`` in seconds.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

try:  # run as a script from benchmarks/ or imported as benchmarks.peers
    from adassp import adassp, add_intercept_column
except ImportError:  # pragma: no cover
    from .adassp import adassp, add_intercept_column

HERE = Path(__file__).resolve().parent
WORKER = HERE / "_diffprivlib_worker.py"
PEERS_VENV = HERE / ".venv-peers"
OPACUS_WORKER = HERE / "_opacus_worker.py"
OPACUS_VENV = HERE / ".venv-opacus"


def peers_python() -> Path:
    """Interpreter of the peer venv (``$SKDPGD_PEERS_PYTHON`` overrides)."""
    env = os.environ.get("SKDPGD_PEERS_PYTHON")
    return Path(env) if env else PEERS_VENV / "bin" / "python"


def diffprivlib_available() -> tuple[bool, str]:
    py = peers_python()
    if not py.exists():
        return False, f"{py} not found: run `bash benchmarks/setup_peers.sh`"
    proc = subprocess.run(
        [str(py), "-c", "import diffprivlib.models, diffprivlib; print(diffprivlib.__version__)"],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        return False, f"diffprivlib does not import in {py}: {proc.stderr.strip()[-300:]}"
    return True, proc.stdout.strip()


# --------------------------------------------------------------------------- #
# scikit-learn, non-private
# --------------------------------------------------------------------------- #

def _timed_fit(make, X, y, repeats):
    times = []
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - t0)
    return model, float(np.median(times))


def sklearn_logistic(X_train, y_train, X_test, y_test, *, C=1.0, repeats=3):
    """Non-private ``LogisticRegression(C=C)`` (lbfgs); fit time = median of ``repeats``."""
    from sklearn.linear_model import LogisticRegression

    model, fit_time = _timed_fit(
        lambda: LogisticRegression(C=C, solver="lbfgs", max_iter=1000), X_train, y_train, repeats
    )
    return {"score": float(model.score(X_test, y_test)), "fit_time": fit_time,
            "params": {"C": C, "solver": "lbfgs"}}


def sklearn_ridge(X_train, y_train, X_test, y_test, *, alpha=1.0, repeats=3):
    """Non-private ``Ridge(alpha=alpha)`` (solver 'auto' = Cholesky here)."""
    from sklearn.linear_model import Ridge

    model, fit_time = _timed_fit(lambda: Ridge(alpha=alpha), X_train, y_train, repeats)
    return {"score": float(model.score(X_test, y_test)), "fit_time": fit_time,
            "params": {"alpha": alpha, "solver": "auto"}}


# --------------------------------------------------------------------------- #
# AdaSSP
# --------------------------------------------------------------------------- #

def fit_adassp(X_train, y_train, X_test, y_test, *, epsilon, delta, seed,
               data_norm=1.0, y_bound=1.0, intercept_scaling=1.0, neighbouring="paper"):
    """AdaSSP with an intercept: a constant public column ``intercept_scaling`` is
    appended, so the row bound is ``sqrt(data_norm^2 + intercept_scaling^2)``."""
    from sklearn.metrics import r2_score

    t0 = time.perf_counter()
    X1, extra = add_intercept_column(X_train, intercept_scaling)
    theta = adassp(X1, y_train, epsilon, delta,
                   x_bound=float(np.sqrt(data_norm**2 + extra)), y_bound=y_bound,
                   rng=np.random.default_rng(seed), neighbouring=neighbouring)
    fit_time = time.perf_counter() - t0
    Xt1, _ = add_intercept_column(X_test, intercept_scaling)
    pred = Xt1 @ theta
    return {"epsilon": epsilon, "seed": seed, "score": float(r2_score(y_test, pred)),
            "fit_time": fit_time}


# --------------------------------------------------------------------------- #
# diffprivlib (in the peer venv)
# --------------------------------------------------------------------------- #

def run_diffprivlib(task, X_train, y_train, X_test, y_test, jobs, *, data_norm=1.0,
                    bounds_X=None, bounds_y=(-1.0, 1.0), n_jobs=1, timeout=None):
    """Fit diffprivlib models in the peer venv, one per job.

    task: "logistic" (jobs: dicts with epsilon, seed, C) or "linear" (epsilon, seed).
    Returns (results, versions): results = jobs with ``score`` and ``fit_time`` added.
    """
    ok, msg = diffprivlib_available()
    if not ok:
        raise RuntimeError(msg)
    spec = {"task": task, "jobs": list(jobs), "data_norm": data_norm, "n_jobs": n_jobs,
            "bounds_y": [float(bounds_y[0]), float(bounds_y[1])]}
    if task == "linear":
        if bounds_X is None:
            raise ValueError("linear needs public bounds_X")
        spec["bounds_X"] = [np.broadcast_to(b, X_train.shape[1]).tolist() for b in bounds_X]
    with tempfile.TemporaryDirectory(prefix="skdpgd-peers-") as tmp:
        tmp = Path(tmp)
        np.savez(tmp / "data.npz", X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
        (tmp / "spec.json").write_text(json.dumps(spec))
        proc = subprocess.run(
            [str(peers_python()), str(WORKER), str(tmp / "data.npz"), str(tmp / "spec.json"),
             str(tmp / "out.json")],
            capture_output=True, text=True, timeout=timeout,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"diffprivlib worker failed:\n{proc.stderr[-2000:]}")
        out = json.loads((tmp / "out.json").read_text())
    return out["results"], out["versions"]


# --------------------------------------------------------------------------- #
# Opacus DP-SGD (in the opacus venv), calibrated here under replace-one
# --------------------------------------------------------------------------- #

def opacus_python() -> Path:
    """Interpreter of the Opacus venv (``$SKDPGD_OPACUS_PYTHON`` overrides)."""
    env = os.environ.get("SKDPGD_OPACUS_PYTHON")
    return Path(env) if env else OPACUS_VENV / "bin" / "python"


def opacus_available() -> tuple[bool, str]:
    py = opacus_python()
    if not py.exists():
        return False, f"{py} not found: run `bash benchmarks/setup_opacus.sh`"
    proc = subprocess.run(
        [str(py), "-c", "import opacus, torch; print(opacus.__version__, torch.__version__)"],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        return False, f"opacus does not import in {py}: {proc.stderr.strip()[-300:]}"
    return True, proc.stdout.strip()


def opacus_run(n_samples, batch_size, epochs):
    """(q, K, expected batch) of Opacus 1.6's ``make_private(poisson_sampling=True)`` run.

    Opacus takes q = 1 / len(DataLoader(batch_size)) = 1 / ceil(n / batch_size)
    (``DPDataLoader.from_data_loader``), int(1 / q) steps per epoch
    (``UniformWithReplacementSampler``), and divides the noisy sum by
    ``expected_batch_size = int(n q)``.  The worker checks q and K against the real run.
    """
    q = 1.0 / math.ceil(n_samples / batch_size)
    return q, int(epochs) * int(1.0 / q), int(n_samples * q)


def calibrate_opacus(epsilon, delta, *, n_samples, batch_size, epochs, rtol=1e-3):
    """Noise multiplier z of the Opacus run, calibrated under REPLACE-ONE neighbours.

    The run is K steps of the Poisson-subsampled Gaussian mechanism with rate q
    (``opacus_run``): N(0, (z C)^2 I) added to the sum of per-example gradients clipped
    to C.  Its epsilon is skdpgd's accountant for ``solver="sgd"``: dp-accounting's PLD
    with ``PoissonSampledDpEvent(q, GaussianDpEvent(z))`` composed K times under
    ``NeighboringRelation.REPLACE_ONE`` (``composed_replace_one_epsilon``, which takes q
    as it is: Opacus's q = 1/ceil(n/b) is not of the form b'/n).  z is the smallest (to
    ``rtol``) with epsilon(z) <= target, by skdpgd's ``search_noise`` (conservative: the
    returned z's epsilon was computed).

    Returns a dict: noise_multiplier, sample_rate, steps, expected_batch_size,
    epsilon_replace_one (recomputed at z), epsilon_poisson_sgd (the same run through
    ``poisson_sgd_epsilon`` with q = b/n, noise_std = z C / b: slightly larger q, so
    slightly larger epsilon; a cross-check), calibration_time.
    """
    from skdpgd.accounting._gdp import epsilon_delta_to_gdp
    from skdpgd.accounting._sampled_sgd import (
        composed_replace_one_epsilon,
        poisson_sgd_epsilon,
        search_noise,
    )
    from skdpgd.accounting.calibration import clt_noise_multiplier

    t0 = time.perf_counter()
    q, k, b_exp = opacus_run(n_samples, batch_size, epochs)

    def eps_of(z):
        return composed_replace_one_epsilon(delta, poisson_runs=((q, float(z), k),))

    start = float(clt_noise_multiplier(epsilon_delta_to_gdp(epsilon, delta), q, k))
    z = search_noise(eps_of, epsilon, start, rtol=rtol)
    eps_z = eps_of(z)
    if not eps_z <= epsilon:  # search_noise guarantees it; keep the claim checked
        raise RuntimeError(f"calibration failed: eps({z}) = {eps_z} > {epsilon}")
    clip = 1.0  # epsilon does not depend on C once z = noise std / C
    eps_b_over_n = poisson_sgd_epsilon(z * clip / batch_size, k, delta=delta,
                                       batch_size=batch_size, n_samples=n_samples,
                                       gradient_bound=clip)
    return {"noise_multiplier": z, "sample_rate": q, "steps": k, "expected_batch_size": b_exp,
            "epsilon_replace_one": eps_z, "epsilon_poisson_sgd": eps_b_over_n,
            "calibration_time": time.perf_counter() - t0}


def run_opacus(X_train, y_train, X_test, y_test, jobs, *, delta, progress=False, timeout=None):
    """Fit Opacus DP-SGD logistic regressions in the opacus venv, one per job.

    jobs: dicts with epsilon, seed, config, batch_size, lr, epochs, momentum, clip,
    noise_multiplier, sample_rate, steps (see ``_opacus_worker.py``).  Runs serially on
    one thread.  Returns (results, versions).
    """
    ok, msg = opacus_available()
    if not ok:
        raise RuntimeError(msg)
    spec = {"delta": delta, "jobs": list(jobs), "progress": bool(progress)}
    with tempfile.TemporaryDirectory(prefix="skdpgd-opacus-") as tmp:
        tmp = Path(tmp)
        np.savez(tmp / "data.npz", X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
        (tmp / "spec.json").write_text(json.dumps(spec))
        proc = subprocess.run(
            [str(opacus_python()), str(OPACUS_WORKER), str(tmp / "data.npz"),
             str(tmp / "spec.json"), str(tmp / "out.json")],
            stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True,
            timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
        )
        if proc.returncode != 0:
            raise RuntimeError(f"opacus worker failed:\n{(proc.stderr or '')[-2000:]}")
        out = json.loads((tmp / "out.json").read_text())
    return out["results"], out["versions"]
