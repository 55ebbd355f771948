"""Start-up of the command line and the first fit of a new process.

Measures, in one run and interleaved (so that a loaded machine slows every command
alike), the wall time of

* ``python -c "import sklearn.linear_model"`` (the reference),
* ``skdpgd --version``,
* ``skdpgd predict MODEL CSV`` on 2,000 rows of UCI Adult (a model saved by ``skdpgd
  fit`` on 3,000 other rows),

as medians of ``--repeats`` runs (default 5), and the ratio of each to the reference
(target: at most 1.5). Then the first fit of a new process (2,000 x 5, ``solver="gd"``)
with the numba kernels found in numba's on-disk cache, with the kernels compiled afresh
(an empty cache directory), and with the pure-numpy path, plus one larger fit
(200,000 x 20) timed on both paths in-process after warm-up, to decide whether numba can
stay optional.

Run: ``python benchmarks/cli_startup.py [--repeats 5] [--out benchmarks/results/cli_startup.json]``
(about a minute on an idle 2-core machine).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_FIT = """
import sys, time, numpy as np
import skdpgd._data._fused as f
f.ENABLED = sys.argv[1] == "numba"
from skdpgd import DPLogisticRegression
rng = np.random.default_rng(0); X = rng.normal(size=(2000, 5)) / 3; y = (X[:, 0] > 0).astype(int)
t = time.perf_counter()
DPLogisticRegression(classes=[0, 1], random_state=0, solver="gd").fit(X, y)
print(time.perf_counter() - t)
"""

LARGE_FIT = """
import sys, time, numpy as np
import skdpgd._data._fused as f
from skdpgd import DPLogisticRegression
rng = np.random.default_rng(0); X = rng.normal(size=(200_000, 20)) / 5
y = (X[:, 0] > 0).astype(int)
out = {}
for mode in ("numba", "numpy", "numba", "numpy"):
    f.ENABLED = mode == "numba"
    t = time.perf_counter()
    DPLogisticRegression(classes=[0, 1], random_state=0, solver="gd", max_iter=30).fit(X, y)
    out.setdefault(mode, []).append(time.perf_counter() - t)
print({k: min(v) for k, v in out.items()})
"""


def _time(command, env=None):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def _prepare(folder):
    from skdpgd.datasets import load_adult

    frame = load_adult(as_frame=True).frame
    train, new = folder / "train.csv", folder / "new.csv"
    frame.iloc[:3000].to_csv(train, index=False)
    frame.iloc[3000:5000].to_csv(new, index=False)
    model = folder / "model.joblib"
    subprocess.run([sys.executable, "-m", "skdpgd", "fit", str(train), "--target", "income",
                    "--classes", "0,1", "--epsilon", "1", "--random-state", "0",
                    "--output", str(model)], check=True, stdout=subprocess.DEVNULL)
    return model, new


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/cli_startup.json")
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model, new = _prepare(folder)
        commands = {
            "import sklearn.linear_model": [py, "-c", "import sklearn.linear_model"],
            "skdpgd --version": [py, "-m", "skdpgd", "--version"],
            "skdpgd predict (2,000 rows)": [py, "-m", "skdpgd", "predict", str(model),
                                            str(new)],
        }
        times = {name: [] for name in commands}
        for _ in range(args.repeats):  # interleaved
            for name, command in commands.items():
                times[name].append(_time(command))
        medians = {name: statistics.median(v) for name, v in times.items()}
        reference = medians["import sklearn.linear_model"]
        first = {"numba, kernels in the on-disk cache": [],
                 "numba, compiled afresh (empty cache)": [], "numpy path": []}
        subprocess.run([py, "-c", FIRST_FIT, "numba"], check=True, capture_output=True)
        for i in range(args.repeats):
            env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / f"empty{i}")}
            for name, mode, extra in (
                    ("numba, kernels in the on-disk cache", "numba", None),
                    ("numba, compiled afresh (empty cache)", "numba", env),
                    ("numpy path", "numpy", None)):
                out = subprocess.run([py, "-c", FIRST_FIT, mode], check=True,
                                     capture_output=True, text=True, env=extra).stdout
                first[name].append(float(out.strip()))
        large = subprocess.run([py, "-c", LARGE_FIT], check=True, capture_output=True,
                               text=True).stdout.strip()
    result = {
        "command": "python benchmarks/cli_startup.py --repeats %d" % args.repeats,
        "load_average_at_end": os.getloadavg(),
        "startup_median_s": medians,
        "startup_ratio_to_sklearn_import": {k: v / reference for k, v in medians.items()},
        "startup_runs_s": times,
        "first_fit_median_s": {k: statistics.median(v) for k, v in first.items()},
        "first_fit_runs_s": first,
        "fit_200000x20_gd_30_steps_best_of_2_s": large,
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("startup_median_s",
                                             "startup_ratio_to_sklearn_import",
                                             "first_fit_median_s",
                                             "fit_200000x20_gd_30_steps_best_of_2_s")},
                     indent=2))


if __name__ == "__main__":
    main()
