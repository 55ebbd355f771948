"""``skdpgd fit`` on a large raw CSV file against the same pipeline in Python.

Writes a 200,000-row file with 15 columns (9 numeric with 5% missing cells, one heavy-
tailed, 4 categorical, a binary target), then runs, each in a fresh process under
``/usr/bin/time`` (wall time and peak resident memory):

* ``skdpgd fit FILE --target y --classes 0,1 --epsilon 1 --random-state 0``;
* the same pipeline in Python: ``pd.read_csv`` then ``make_dp_pipeline(DPTableVectorizer(),
  DPLogisticRegression(classes=[0, 1]), epsilon=1, random_state=0).fit``.

Target: the command line within 1.5x the Python pipeline's time and memory. (The
command line also votes the column types privately, which the Python pipeline does not.)

Run: ``python benchmarks/cli_read.py [--rows 200000] [--repeats 3]
[--out benchmarks/results/cli_read.json]``; with ``--pythonpath DIR`` the command line
of another checkout is timed (e.g. the code before the vectorised read).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PYTHON_PIPELINE = """
import sys
import pandas as pd
from skdpgd import DPLogisticRegression, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer
frame = pd.read_csv(sys.argv[1])
y = frame.pop("y")
make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]), epsilon=1,
                 random_state=0).fit(frame, y)
"""


def write_table(path, n):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    data = {f"x{j}": np.round(rng.normal(j, 1 + j, n), 4) for j in range(8)}
    data["income"] = np.round(rng.lognormal(10, 1.5, n), 2)
    for j in range(4):
        data[f"c{j}"] = rng.choice([f"v{k}" for k in range(3 + 4 * j)], n)
    frame = pd.DataFrame(data)
    for name in list(frame)[:9]:
        frame.loc[rng.random(n) < 0.05, name] = np.nan
    score = frame["x0"].fillna(0) - frame["x1"].fillna(1) / 2 + (frame["c0"] == "v0")
    frame["y"] = (score + rng.normal(0, 1, n) > 0).astype(int)
    frame.to_csv(path, index=False)


def timed(command, env=None):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True,
                         text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    seconds, kib = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pythonpath", default=None)
    parser.add_argument("--out", default="benchmarks/results/cli_read.json")
    args = parser.parse_args()
    env = None
    if args.pythonpath:
        env = {**os.environ, "PYTHONPATH": args.pythonpath}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.csv"
        write_table(path, args.rows)
        runs = {"skdpgd fit": [], "python pipeline": []}
        for _ in range(args.repeats):  # interleaved
            runs["skdpgd fit"].append(timed(
                [sys.executable, "-m", "skdpgd", "fit", str(path), "--target", "y",
                 "--classes", "0,1", "--epsilon", "1", "--random-state", "0"], env))
            runs["python pipeline"].append(timed([sys.executable, "-c", PYTHON_PIPELINE,
                                                  str(path)]))
    medians = {k: {"seconds": statistics.median(t for t, _ in v),
                   "peak_mib": statistics.median(m for _, m in v)} for k, v in runs.items()}
    ratio = {key: medians["skdpgd fit"][key] / medians["python pipeline"][key]
             for key in ("seconds", "peak_mib")}
    result = {"command": " ".join(["python", "benchmarks/cli_read.py", *sys.argv[1:]]),
              "rows": args.rows, "columns": 15, "load_average_at_end": os.getloadavg(),
              "medians": medians, "cli_over_python": ratio, "runs": runs}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("medians", "cli_over_python")}, indent=2))


if __name__ == "__main__":
    main()
