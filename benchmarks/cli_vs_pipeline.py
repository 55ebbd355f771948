"""``skdpgd fit`` against the Python pipeline on the same CSV file, split and seed.

The command line reads every cell as text, so it decides each undeclared column's type
by a private vote (``PrivateTableSchema``) charged to the budget; the Python pipeline
``make_dp_pipeline(DPTableVectorizer(), estimator)`` on ``pd.read_csv`` of the same file
gets the numeric dtypes for free (it votes only on object columns). This measures what
that costs, per table and epsilon, with the vote's share:

- ``before``: an equal part of the preparation's share (``rho mu^2 / m``, the vote being
  one of the m releases), as before the vote stated its need;
- ``after``: the vote's request ``2 sqrt(u) z / (c n)`` (``vote_mu_needed``), capped at
  the equal part, the rest shared by the other releases (docs/theory.md#type-vote).

Tables (the train/test split is drawn from the seed; 70/30):

- ``adult``: the shipped Adult training file (``load_adult(as_frame=True).frame``, 14
  columns, ``"?"`` for unknown values), a random subsample of ``--adult-rows`` rows
  (default 10,000, to fit this benchmark on a 2-core machine), binary, accuracy;
- ``diamonds``: the raw ``diamonds.csv`` of ``$SKDPGD_DATA`` (its unnamed row-index first
  column kept: both interfaces drop it by the same header rule), ``--diamonds-rows``
  rows (default 10,000), target ``price``, ridge, R^2;
- ``panel``: a synthetic 21-column regression panel (21,699 rows as the sports panel
  that showed the gap: 12 counts, 6 continuous columns, 3 text columns, about 10% of
  the cells missing), ridge, R^2;
- ``poll``: a synthetic 2,500-row 4-class poll (3 text and 4 numeric columns with
  missing cells), accuracy.

Both interfaces get the public class list (``--classes`` / ``classes=``) and a private
target range for ridge (no ``--y-bound`` / ``y_bound="auto"``). Reported: CLI minus
Python per seed, its median and worst seed, before and after, in one run; beside them
the noise floor, the Python pipeline at another seed minus itself (two fits whose noise
differs: what CLI minus Python would be if the two were the same mechanism).

    SKDPGD_DATA=/path/to/data python benchmarks/cli_vs_pipeline.py [--seeds 15]

Results: ``benchmarks/results/cli_vs_pipeline.json``.
"""

import argparse
import contextlib
import io
import json
import platform
import tempfile
import time
import warnings
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from datasets import data_dir

from skdpgd import DPLogisticRegression, DPRidge, make_dp_pipeline
from skdpgd._cli import main
from skdpgd.datasets import load_adult
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._table_schema import PrivateTableSchema

EPSILONS = (0.1, 0.3, 1.0, 4.0)


def _missing(rng, values, rate):
    out = np.asarray(values, dtype=object)
    out[rng.random(len(out)) < rate] = np.nan
    return out


def make_panel(n=21_699, seed=0):
    """21 features: 12 counts (Poisson, some heavy-tailed), 6 continuous, 3 text; the
    target is linear in 8 of them; each column misses 0-20% of its cells (about 10%)."""
    rng = np.random.default_rng(seed)
    cols, signal = {}, np.zeros(n)
    ability = rng.normal(size=n)
    for j in range(12):
        mean = [0.3, 1, 3, 8, 20, 60][j % 6] * np.exp(0.3 * ability)
        counts = rng.poisson(mean * rng.gamma(2.0 if j < 6 else 0.7, 0.5 if j < 6 else 1.4,
                                              n))
        cols[f"count{j}"] = counts
        if j in (1, 3, 4, 7, 9):
            signal += counts / np.std(counts)
    for j in range(6):
        x = rng.normal(50 * j, 1 + 5 * j, n) + 2 * ability
        cols[f"rate{j}"] = np.round(x, 2)
        if j in (0, 2):
            signal += (x - x.mean()) / x.std()
    team = rng.choice([f"T{k:02d}" for k in range(30)], n)
    cols["team"] = team
    cols["position"] = rng.choice(["G", "F", "C", "GF", "FC"], n, p=[.3, .3, .2, .1, .1])
    league = rng.choice(["east", "west"], n)
    cols["league"] = league
    signal += np.where(league == "east", 0.5, -0.5)
    y = 10 * signal + rng.normal(0, 5, n)
    frame = pd.DataFrame({name: _missing(rng, values, 0.2 * (k % 3) / 2 + 0.05 * (k % 2))
                          for k, (name, values) in enumerate(cols.items())})
    frame["target"] = np.round(y, 3)
    return frame


def make_poll(n=2_500, seed=0):
    """A 4-class poll: the answer depends on age, region, education and two ratings."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    region = rng.choice(["north", "south", "east", "west", "centre"], n)
    education = rng.choice(["none", "school", "college", "degree"], n, p=[.1, .4, .3, .2])
    income = rng.choice(["low", "mid", "high"], n)
    r1, r2 = rng.integers(0, 11, n), rng.integers(0, 11, n)
    hours = np.round(rng.gamma(2, 10, n), 1)
    scores = np.column_stack([
        0.08 * (age - 50) + 0.6 * (r1 - 5),
        -0.08 * (age - 50) + 1.5 * (education == "degree") + 0.4 * (r2 - 5),
        2.0 * (region == "south") - 0.4 * (r1 - 5),
        np.zeros(n),
    ]) + rng.gumbel(size=(n, 4))
    answer = np.array(list("ABCD"))[scores.argmax(axis=1)]
    frame = pd.DataFrame({"age": _missing(rng, age, .05), "region": _missing(rng, region, .08),
                          "education": _missing(rng, education, .1),
                          "income": _missing(rng, income, .15),
                          "rating1": _missing(rng, r1, .1), "rating2": _missing(rng, r2, .1),
                          "hours": _missing(rng, hours, .2)})
    frame["answer"] = answer
    return frame


def tables(args):
    adult = load_adult("train", as_frame=True).frame
    adult = adult.sample(n=min(args.adult_rows, len(adult)), random_state=0)
    lines = (data_dir() / "diamonds" / "diamonds.csv").read_text().splitlines()
    keep = np.sort(np.random.default_rng(0).choice(len(lines) - 1, args.diamonds_rows,
                                                   replace=False)) + 1
    diamonds = [lines[0]] + [lines[i] for i in keep]
    return {
        "adult": ("income", "logistic", [0, 1], adult),
        "diamonds": ("price", "ridge", None, diamonds),
        "panel": ("target", "ridge", None, make_panel()),
        "poll": ("answer", "logistic", list("ABCD"), make_poll()),
    }


def write_split(data, seed, workdir):
    """(train.csv, test.csv): 70/30 by the seed; raw lines stay raw lines."""
    rng = np.random.default_rng(1000 + seed)
    paths = Path(workdir) / "train.csv", Path(workdir) / "test.csv"
    if isinstance(data, list):  # raw lines of a CSV file
        rows = rng.permutation(len(data) - 1) + 1
        cut = int(0.7 * len(rows))
        for path, part in zip(paths, (rows[:cut], rows[cut:]), strict=True):
            path.write_text("\n".join([data[0]] + [data[i] for i in np.sort(part)]) + "\n")
    else:
        rows = rng.permutation(len(data))
        cut = int(0.7 * len(rows))
        for path, part in zip(paths, (rows[:cut], rows[cut:]), strict=True):
            data.iloc[np.sort(part)].to_csv(path, index=False)
    return paths


def score(model, truth, predicted):
    if model == "logistic":
        return float(np.mean(np.asarray(predicted) == np.asarray(truth)))
    truth, predicted = np.asarray(truth, float), np.asarray(predicted, float)
    return float(1 - np.sum((truth - predicted) ** 2) / np.sum((truth - truth.mean()) ** 2))


def cli_score(train, test, target, model, classes, epsilon, seed, workdir):
    out = Path(workdir) / "m.joblib"
    argv = ["fit", str(train), "--target", target, "--model", model, "--epsilon",
            str(epsilon), "--random-state", str(seed), "--output", str(out)]
    if classes is not None:
        argv += ["--classes", ",".join(str(c) for c in classes)]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    bundle = joblib.load(out)
    frame = pd.read_csv(test)
    predicted = bundle["pipeline"].predict(frame)
    schema = bundle["pipeline"].steps[0][1]
    return score(model, frame[target], predicted), list(schema.numeric_columns_)


def python_score(train, test, target, model, classes, epsilon, seed):
    frame, held = pd.read_csv(train), pd.read_csv(test)
    features = [c for c in frame.columns if c != target]
    estimator = (DPLogisticRegression(classes=classes) if model == "logistic"
                 else DPRidge(y_bound="auto"))
    pipe = make_dp_pipeline(DPTableVectorizer(), estimator, epsilon=epsilon,
                            random_state=seed)
    pipe.fit(frame[features], frame[target])
    return score(model, held[target], pipe.predict(held[features]))


def run(args):
    original = PrivateTableSchema._requested_mu
    rows = []
    for name, (target, model, classes, data) in tables(args).items():
        if args.tables and name not in args.tables:
            continue
        for epsilon in args.epsilons:
            per_seed = []
            for seed in range(args.seeds):
                with tempfile.TemporaryDirectory() as workdir:
                    train, test = write_split(data, seed, workdir)
                    python = python_score(train, test, target, model, classes, epsilon, seed)
                    # the noise floor: the same pipeline with other noise (seed + 1000)
                    other = python_score(train, test, target, model, classes, epsilon,
                                         seed + 1000)
                    PrivateTableSchema._requested_mu = lambda self, n: None  # before
                    before, types_before = cli_score(train, test, target, model, classes,
                                                     epsilon, seed, workdir)
                    PrivateTableSchema._requested_mu = original  # after
                    after, types_after = cli_score(train, test, target, model, classes,
                                                   epsilon, seed, workdir)
                per_seed.append({"seed": seed, "python": python, "cli_before": before,
                                 "python_other_noise": other,
                                 "cli_after": after, "numeric_before": len(types_before),
                                 "numeric_after": len(types_after)})
            gaps = {k: [r[f"cli_{k}"] - r["python"] for r in per_seed]
                    for k in ("before", "after")}
            gaps["floor"] = [r["python_other_noise"] - r["python"] for r in per_seed]
            row = {"table": name, "epsilon": epsilon, "seeds": per_seed,
                   "python_median": float(np.median([r["python"] for r in per_seed]))}
            for k, gap in gaps.items():
                row[f"gap_{k}_median"] = float(np.median(gap))
                row[f"gap_{k}_worst"] = float(np.min(gap))
            rows.append(row)
            print(f"{name:<9} eps {epsilon:<4g} python {row['python_median']:.3f}  CLI-python "
                  f"before {row['gap_before_median']:+.3f} (worst {row['gap_before_worst']:+.3f})"
                  f"  after {row['gap_after_median']:+.3f} (worst {row['gap_after_worst']:+.3f})"
                  f"  python-python {row['gap_floor_median']:+.3f} "
                  f"(worst {row['gap_floor_worst']:+.3f})"
                  f"  numeric cols {[r['numeric_before'] for r in per_seed]} -> "
                  f"{[r['numeric_after'] for r in per_seed]}", flush=True)
    return rows


def main_benchmark():
    warnings.simplefilter("ignore")  # the fallbacks are part of what is measured
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--adult-rows", type=int, default=10_000)
    parser.add_argument("--diamonds-rows", type=int, default=10_000)
    parser.add_argument("--tables", nargs="*", default=None)
    parser.add_argument("--out", default="cli_vs_pipeline.json")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = run(args)
    command = ("SKDPGD_DATA=/path/to/data python benchmarks/cli_vs_pipeline.py --seeds "
               f"{args.seeds} --epsilons {' '.join(f'{e:g}' for e in args.epsilons)} "
               f"--adult-rows {args.adult_rows} --diamonds-rows {args.diamonds_rows}")
    if args.tables:
        command += " --tables " + " ".join(args.tables)
    if args.out != "cli_vs_pipeline.json":
        command += f" --out {args.out}"
    out = Path(__file__).parent / "results" / args.out
    out.write_text(json.dumps({"command": command, "machine": platform.platform(),
                               "seconds": time.perf_counter() - start, "rows": rows},
                              indent=1) + "\n")


if __name__ == "__main__":
    main_benchmark()
