"""Real tabular benchmark data, preprocessed with PUBLIC bounds only.

Privacy rule followed by every transform in this file: a feature is scaled by
bounds that come from public documentation (the data set's code book, the
documentation of the package that ships it, physical limits), never from
statistics (min / max / mean / std / quantiles) of the data.  Clipping a record
to a public bound is a per-record transform and is allowed.  After the
per-feature transforms every row is divided by a public constant so that every
row has Euclidean norm <= 1 (``data_norm=1.0`` for every private method).

Data location: ``$SKDPGD_DATA``, else ``benchmarks/data/``; ``python benchmarks/fetch_data.py``
puts the files there and checks their SHA-256.

    load_adult()     -> X_train, y_train, X_test, y_test   (y in {0, 1})
    load_diamonds()  -> X_train, y_train, X_test, y_test   (y = log price in [-1, 1])

Both return float64 arrays.  ``feature_names(dataset)`` gives the column names
and ``PUBLIC_BOUNDS`` records every bound with its source.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from skdpgd.datasets import ADULT_CATEGORIES as PACKAGE_ADULT_CATEGORIES

REPO_ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """Folder holding ``adult/`` and ``diamonds/`` (``$SKDPGD_DATA``)."""
    env = os.environ.get("SKDPGD_DATA")
    path = Path(env) if env else REPO_ROOT / "benchmarks" / "data"
    path = path.resolve()
    if not path.is_dir():
        raise FileNotFoundError(
            f"benchmark data folder {path} not found: run `python benchmarks/fetch_data.py` "
            "(downloads and checks the files), or set SKDPGD_DATA to a folder that holds "
            "adult/ and diamonds/"
        )
    return path


# --------------------------------------------------------------------------- #
# Adult (UCI census income)
# --------------------------------------------------------------------------- #

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
]

# Categories exactly as listed in the code book (adult/adult.names, last lines).
# A value outside the list (the code book's unknown marker '?') is encoded as all zeros.
#: The public category lists of the code book: the package's own copy (one source).
ADULT_CATEGORIES = PACKAGE_ADULT_CATEGORIES

# Numeric features: (kind, lower, upper, source).  Each maps into [0, 1].
#   linear: (x - lower) / (upper - lower), clipped to [0, 1]
#   log1p:  log1p(clip(x, 0, upper)) / log1p(upper)
ADULT_NUMERIC = {
    # adult.names: extraction condition AAGE > 16, so 17 is the smallest age; 90 is the CPS
    # public-use top-code for age (ages above 90 are recorded as 90).
    "age": ("linear", 17.0, 90.0, "adult.names (AAGE>16); CPS top-code 90"),
    # 16 education levels in the code book's `education` list, numbered 1 (Preschool) .. 16 (Doctorate).
    "education-num": ("linear", 1.0, 16.0, "adult.names: 16 education levels"),
    # CPS public-use top-code for capital gains is 99,999 (a 5-digit field).  The same public
    # 5-digit bound is used for capital loss.
    "capital-gain": ("log1p", 0.0, 99999.0, "CPS 5-digit top-code 99999"),
    "capital-loss": ("log1p", 0.0, 99999.0, "CPS 5-digit field, bound 99999"),
    # adult.names: extraction condition HRSWK > 0, so >= 1; CPS records hours in a 2-digit
    # field top-coded at 99.
    "hours-per-week": ("linear", 1.0, 99.0, "adult.names (HRSWK>0); CPS 2-digit field <= 99"),
}
# fnlwgt (the CPS sampling weight) is DROPPED: the code book gives no public upper bound
# for it (only AFNLWGT > 1), and it is a survey weight, not an attribute of the person.

# Public row-norm constant: each numeric feature is in [0, 1] and each one-hot group
# contributes at most one 1, so ||row||^2 <= n_numeric + n_groups = 5 + 8 = 13.
ADULT_ROW_SCALE = float(np.sqrt(len(ADULT_NUMERIC) + len(ADULT_CATEGORIES)))


def _read_adult(path: Path, skip_first_line: bool) -> pd.DataFrame:
    df = pd.read_csv(
        path,
        header=None,
        names=ADULT_COLUMNS,
        skiprows=1 if skip_first_line else 0,
        skipinitialspace=True,
        na_values=[],
        keep_default_na=False,
        dtype=str,
    )
    df = df[df["income"].str.len() > 0]  # trailing blank line(s)
    return df


def _scale_numeric(values: np.ndarray, kind: str, lower: float, upper: float) -> np.ndarray:
    values = values.astype(np.float64)
    if kind == "linear":
        return np.clip((values - lower) / (upper - lower), 0.0, 1.0)
    if kind == "log1p":
        return np.log1p(np.clip(values, lower, upper)) / np.log1p(upper)
    if kind == "log":
        return np.clip((np.log(np.clip(values, lower, None)) - np.log(lower))
                       / (np.log(upper) - np.log(lower)), 0.0, 1.0)
    raise ValueError(kind)


def _one_hot(values: pd.Series, categories: list[str]) -> np.ndarray:
    """One-hot with a fixed public category list; anything else ('?') -> all zeros."""
    index = {c: i for i, c in enumerate(categories)}
    out = np.zeros((len(values), len(categories)))
    codes = values.map(index)
    rows = np.flatnonzero(codes.notna().to_numpy())
    out[rows, codes.to_numpy()[rows].astype(int)] = 1.0
    return out


def _adult_features(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    blocks = [
        _scale_numeric(df[name].to_numpy(), *spec[:3])[:, None]
        for name, spec in ADULT_NUMERIC.items()
    ]
    blocks += [_one_hot(df[name], cats) for name, cats in ADULT_CATEGORIES.items()]
    X = np.hstack(blocks) / ADULT_ROW_SCALE
    label = df["income"].str.rstrip(".")
    if not label.isin([">50K", "<=50K"]).all():
        raise ValueError("unexpected income labels in adult data")
    y = (label == ">50K").to_numpy().astype(np.float64)
    return X, y


def load_adult():
    """UCI Adult: the original train / test split (32,561 / 16,281 rows).

    Features (104 columns): age, education-num, capital-gain, capital-loss,
    hours-per-week scaled to [0, 1] by the public bounds in ``ADULT_NUMERIC``
    (fnlwgt dropped), then the 8 categoricals one-hot over the code book's
    category lists ('?' -> all zeros); every row divided by sqrt(13) so that
    every row norm is <= 1.  Returns float64 X_train, y_train, X_test, y_test,
    y in {0, 1} (1 = income >50K).
    """
    folder = data_dir() / "adult"
    train = _read_adult(folder / "adult.data", skip_first_line=False)
    test = _read_adult(folder / "adult.test", skip_first_line=True)  # '|1x3 Cross validator'
    X_train, y_train = _adult_features(train)
    X_test, y_test = _adult_features(test)
    _check_rows(X_train, X_test)
    return X_train, y_train, X_test, y_test


# --------------------------------------------------------------------------- #
# diamonds (ggplot2)
# --------------------------------------------------------------------------- #

# All ranges below are quoted from the ggplot2 documentation of `diamonds`
# (https://ggplot2.tidyverse.org/reference/diamonds.html, also
# https://search.r-project.org/CRAN/refmans/ggplot2/html/diamonds.html):
#   price  "price in US dollars ($326-$18,823)"
#   carat  "weight of the diamond (0.2-5.01)"
#   x      "length in mm (0-10.74)"
#   y      "width in mm (0-58.9)"     (the few values > 10.74 are known entry errors)
#   z      "depth in mm (0-31.8)"     (idem)
#   depth  "total depth percentage = z / mean(x, y) (43-79)"
#   table  "width of top of diamond relative to widest point (43-95)"
#   cut / color / clarity category lists, in the documented order.
DIAMONDS_PRICE_BOUNDS = (326.0, 18823.0)
DIAMONDS_NUMERIC = {
    # log price is close to linear in log carat, so carat enters on the log scale;
    # public range 0.2-5.01 ct from the ggplot2 docs.
    "carat": ("log", 0.2, 5.01, "ggplot2 docs: carat 0.2-5.01"),
    "depth": ("linear", 43.0, 79.0, "ggplot2 docs: depth 43-79 (%)"),
    "table": ("linear", 43.0, 95.0, "ggplot2 docs: table 43-95 (%)"),
    # Lengths in mm.  The documented length range is 0-10.74 mm.  For the (round cut)
    # stones in this data width ~ length and depth ~ 0.6 * length, so the same public
    # bound [0, 10.74] mm is used for x, y and z; the handful of documented y / z values
    # above it (58.9, 31.8: entry errors) are clipped to it, a per-record transform.
    "x": ("linear", 0.0, 10.74, "ggplot2 docs: x 0-10.74 mm"),
    "y": ("linear", 0.0, 10.74, "ggplot2 docs: x 0-10.74 mm (width of a round stone ~ length)"),
    "z": ("linear", 0.0, 10.74, "ggplot2 docs: x 0-10.74 mm (depth < length)"),
}
DIAMONDS_CATEGORIES = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": ["D", "E", "F", "G", "H", "I", "J"],
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}
# ||row||^2 <= 6 numeric features in [0, 1] + 3 one-hot groups = 9.
DIAMONDS_ROW_SCALE = float(np.sqrt(len(DIAMONDS_NUMERIC) + len(DIAMONDS_CATEGORIES)))


def diamonds_target(price) -> np.ndarray:
    """y = log(price) mapped affinely from [log 326, log 18823] (public) to [-1, 1]."""
    lo, hi = np.log(DIAMONDS_PRICE_BOUNDS[0]), np.log(DIAMONDS_PRICE_BOUNDS[1])
    y = 2.0 * (np.log(np.asarray(price, dtype=np.float64)) - lo) / (hi - lo) - 1.0
    return np.clip(y, -1.0, 1.0)


def diamonds_price(y) -> np.ndarray:
    """Inverse of :func:`diamonds_target` (predicted log-price scale -> dollars)."""
    lo, hi = np.log(DIAMONDS_PRICE_BOUNDS[0]), np.log(DIAMONDS_PRICE_BOUNDS[1])
    return np.exp(lo + (np.asarray(y) + 1.0) * (hi - lo) / 2.0)


def _diamonds_features(df: pd.DataFrame) -> np.ndarray:
    blocks = [
        _scale_numeric(df[name].to_numpy(), *spec[:3])[:, None]
        for name, spec in DIAMONDS_NUMERIC.items()
    ]
    blocks += [_one_hot(df[name], cats) for name, cats in DIAMONDS_CATEGORIES.items()]
    return np.hstack(blocks) / DIAMONDS_ROW_SCALE


def load_diamonds(random_state=0, test_size=0.2):
    """ggplot2 diamonds, regression on log price, fixed-seed random split.

    Features (26 columns): log carat, depth, table, x, y, z scaled to [0, 1]
    by the public ranges in ``DIAMONDS_NUMERIC``; cut / color / clarity one-hot
    over the documented categories; every row divided by 3 (row norm <= 1).
    y = log(price) rescaled from [log 326, log 18823] to [-1, 1].
    Split: ``sklearn.model_selection.train_test_split(test_size, random_state)``.
    """
    from sklearn.model_selection import train_test_split

    df = pd.read_csv(data_dir() / "diamonds" / "diamonds.csv", index_col=0)
    X = _diamonds_features(df)
    y = diamonds_target(df["price"].to_numpy())
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=random_state
    )
    _check_rows(X_train, X_test)
    return X_train, y_train, X_test, y_test


# An equally valid preprocessing a new user would write: every numeric column scaled
# LINEARLY to [0, 1] by its documented range (carat too), same one-hot groups, rows divided
# by 3, same target. Uncentred [0, 1] columns next to one-hot groups make X^T X badly
# conditioned, which is what it is for (an optimiser test, not a better model).
DIAMONDS_LINEAR_NUMERIC = dict(
    DIAMONDS_NUMERIC, carat=("linear", 0.2, 5.01, "ggplot2 docs: carat 0.2-5.01")
)


def load_diamonds_linear(random_state=0, test_size=0.2):
    """diamonds with every numeric column scaled linearly to [0, 1] (ill-conditioned).

    As :func:`load_diamonds` (same split, target, one-hot groups and row scale 3) except that
    carat enters linearly, (carat - 0.2) / (5.01 - 0.2), like the other numeric columns.
    """
    from sklearn.model_selection import train_test_split

    df = pd.read_csv(data_dir() / "diamonds" / "diamonds.csv", index_col=0)
    blocks = [
        _scale_numeric(df[name].to_numpy(), *spec[:3])[:, None]
        for name, spec in DIAMONDS_LINEAR_NUMERIC.items()
    ]
    blocks += [_one_hot(df[name], cats) for name, cats in DIAMONDS_CATEGORIES.items()]
    X = np.hstack(blocks) / DIAMONDS_ROW_SCALE
    y = diamonds_target(df["price"].to_numpy())
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=random_state
    )
    _check_rows(X_train, X_test)
    return X_train, y_train, X_test, y_test


# --------------------------------------------------------------------------- #

def feature_names(dataset: str) -> list[str]:
    if dataset == "adult":
        numeric, cats = ADULT_NUMERIC, ADULT_CATEGORIES
    elif dataset == "diamonds":
        numeric, cats = DIAMONDS_NUMERIC, DIAMONDS_CATEGORIES
    else:
        raise ValueError(dataset)
    return list(numeric) + [f"{g}={c}" for g, cs in cats.items() for c in cs]


def public_feature_bounds(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-column public box of the preprocessed features: every column lies in
    [0, 1 / row_scale] by construction (used as diffprivlib's ``bounds_X``)."""
    scale = {"adult": ADULT_ROW_SCALE, "diamonds": DIAMONDS_ROW_SCALE}[dataset]
    d = len(feature_names(dataset))
    return np.zeros(d), np.full(d, 1.0 / scale)


PUBLIC_BOUNDS = {
    "adult": {
        "numeric": {k: v for k, v in ADULT_NUMERIC.items()},
        "dropped": {"fnlwgt": "no public upper bound in the code book; survey weight"},
        "row_scale": ("sqrt(5 numeric + 8 categorical groups) = sqrt(13)", ADULT_ROW_SCALE),
    },
    "diamonds": {
        "target": ("log price, price in [326, 18823] USD -> [-1, 1]", DIAMONDS_PRICE_BOUNDS),
        "numeric": {k: v for k, v in DIAMONDS_NUMERIC.items()},
        "row_scale": ("sqrt(6 numeric + 3 categorical groups) = 3", DIAMONDS_ROW_SCALE),
    },
}


def _check_rows(*arrays: np.ndarray) -> None:
    for X in arrays:
        assert X.dtype == np.float64
        assert np.isfinite(X).all()
        norms = np.linalg.norm(X, axis=1)
        assert norms.max() <= 1.0 + 1e-12, f"row norm {norms.max()} > 1"


if __name__ == "__main__":  # quick summary
    for name, loader in (("adult", load_adult), ("diamonds", load_diamonds)):
        X_tr, y_tr, X_te, y_te = loader()
        print(
            f"{name}: train {X_tr.shape}, test {X_te.shape}, "
            f"max row norm {np.linalg.norm(np.vstack([X_tr, X_te]), axis=1).max():.4f}, "
            f"y range [{min(y_tr.min(), y_te.min()):.3f}, {max(y_tr.max(), y_te.max()):.3f}], "
            f"mean y_train {y_tr.mean():.3f}"
        )
