"""``skdpgd fit`` without a config on raw Adult CSV files: the price of the column-type vote.

Two runs of the command line per (epsilon, seed), on the shipped Adult split written out
as CSV files (``load_adult(..., as_frame=True).frame.to_csv``), target ``income``,
``--classes 0,1``, delta auto (1/(10 n)):

- ``vote``: nothing declared: the column types are decided by the private vote
  (``column_types`` in the report) and the vectorizer finds ranges and categories;
- ``declared``: ``--numeric`` / ``--categorical`` give Adult's types (public, from its
  code book): no vote, the vectorizer gets the whole preparation share.

Test accuracy of ``skdpgd predict`` on the test file, median over the seeds, the fit's
wall time (median), and the types the vote chose (``types_match``: all 14 as the code
book says).

    python benchmarks/cli_no_config.py [--seeds 5] [--epsilons 0.1 0.5 1]
"""

import argparse
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from skdpgd._cli import main
from skdpgd.datasets import load_adult
from skdpgd.datasets._adult import ADULT_CATEGORIES, ADULT_NUMERIC


def fit_and_score(train, test, epsilon, seed, declared, workdir):
    model = Path(workdir) / "m.joblib"
    argv = ["fit", str(train), "--target", "income", "--classes", "0,1",
            "--epsilon", str(epsilon), "--random-state", str(seed), "--output", str(model)]
    if declared:
        argv += ["--numeric", ",".join(ADULT_NUMERIC),
                 "--categorical", ",".join(ADULT_CATEGORIES)]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    seconds = time.perf_counter() - start
    predictions = Path(workdir) / "p.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["predict", str(model), str(test), "--output", str(predictions)]) == 0
    truth = pd.read_csv(test)["income"].to_numpy()
    accuracy = float((pd.read_csv(predictions)["income"].to_numpy() == truth).mean())
    schema = joblib.load(model)["pipeline"].steps[0][1]
    types_match = (set(schema.numeric_columns_) == set(ADULT_NUMERIC)
                   and set(schema.categorical_columns_) == set(ADULT_CATEGORIES))
    return accuracy, seconds, types_match


def main_benchmark():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        paths = {}
        for subset in ("train", "test"):
            paths[subset] = Path(workdir) / f"adult_{subset}.csv"
            load_adult(subset, as_frame=True).frame.to_csv(paths[subset], index=False)
        for epsilon in args.epsilons:
            for variant in ("vote", "declared"):
                runs = [fit_and_score(paths["train"], paths["test"], epsilon, seed,
                                      variant == "declared", workdir)
                        for seed in range(args.seeds)]
                row = {
                    "epsilon": epsilon, "variant": variant,
                    "median_accuracy": float(np.median([r[0] for r in runs])),
                    "accuracies": [r[0] for r in runs],
                    "median_fit_seconds": float(np.median([r[1] for r in runs])),
                    "types_match_code_book": [r[2] for r in runs],
                }
                rows.append(row)
                print(f"epsilon={epsilon:<4g} {variant:<9} accuracy {row['median_accuracy']:.3f}"
                      f"  fit {row['median_fit_seconds']:.1f} s  types as code book: "
                      f"{sum(row['types_match_code_book'])}/{args.seeds}")
    out = Path(__file__).parent / "results" / "cli_no_config.json"
    out.write_text(json.dumps({"command": "python benchmarks/cli_no_config.py "
                               f"--seeds {args.seeds} --epsilons "
                               + " ".join(f"{e:g}" for e in args.epsilons),
                               "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main_benchmark()
