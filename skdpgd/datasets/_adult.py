r"""UCI Adult, shipped with the package, and its public-bound preprocessing."""

import csv
import gzip
import io
import math
from importlib import resources

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import Bunch

from ..preprocessing import BoundedScaler, public_one_hot

#: Column names of the code book (``adult.names``), in file order; the last is the label.
ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
)
ADULT_NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss",
                 "hours-per-week")

#: Category lists exactly as in the code book; its unknown marker is ``"?"``.
ADULT_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
                  "Doctorate", "5th-6th", "Preschool"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated",
                       "Widowed", "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada",
                       "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece",
                       "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy",
                       "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland",
                       "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti",
                       "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland",
                       "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru",
                       "Hong", "Holand-Netherlands"],
}

#: Public ranges of the numeric features used by :func:`make_adult_preprocessor`, with
#: their source. ``fnlwgt`` (a survey weight with no public upper bound) is dropped.
ADULT_BOUNDS = {
    "age": (17.0, 90.0),  # adult.names: AAGE > 16; the CPS top-codes age at 90
    "education-num": (1.0, 16.0),  # the code book's 16 education levels
    "capital-gain": (0.0, 99999.0),  # CPS 5-digit field (top-code 99,999); log1p scale
    "capital-loss": (0.0, 99999.0),  # idem
    "hours-per-week": (1.0, 99.0),  # adult.names: HRSWK > 0; CPS 2-digit field
}

#: 5 numeric features in [0, 1] and 8 one-hot groups (at most one 1 each): ||row||^2 <= 13.
ADULT_ROW_SCALE = math.sqrt(len(ADULT_BOUNDS) + len(ADULT_CATEGORIES))

_FILES = {"train": "adult_train.csv.gz", "test": "adult_test.csv.gz"}
_TARGET_NAMES = np.array(["<=50K", ">50K"], dtype=object)

DESCR = """UCI Adult (census income), 1994 US Census extract.

32,561 training and 16,281 test rows (the original split), 14 attributes (6 numeric,
8 categorical; unknown values are "?"), binary target: income > 50K (1) or not (0).

Source: B. Becker and R. Kohavi, Adult [Dataset], UCI Machine Learning Repository, 1996,
https://doi.org/10.24432/C5XW20. Licence: CC BY 4.0. skdpgd ships the two files with
the space after each comma and the trailing "." of the test labels removed (no value
changed); see skdpgd/datasets/data/README.md for the changes and checksums.
"""


def _read(subset):
    name = _FILES[subset]
    raw = resources.files("skdpgd.datasets").joinpath("data", name).read_bytes()
    with gzip.open(io.BytesIO(raw), "rt", encoding="ascii", newline="") as handle:
        rows = list(csv.reader(handle))
    header, rows = rows[0], rows[1:]
    if tuple(header[:-1]) != ADULT_COLUMNS or header[-1] != "income":
        raise RuntimeError(f"the packaged file {name} is damaged (unexpected header).")
    return rows


def load_adult(subset="train", *, as_frame=False, return_X_y=False):
    """Load the UCI Adult data shipped with skdpgd (no download).

    The values are the raw ones of the UCI files: numbers as numbers, categories as the
    code book spells them (``"?"`` marks an unknown value). Nothing is scaled: use
    :func:`make_adult_preprocessor` (public bounds only) before a private model.

    Parameters
    ----------
    subset : {"train", "test"}, default="train"
        The original split: ``adult.data`` (32,561 rows) or ``adult.test`` (16,281 rows).
    as_frame : bool, default=False
        Return ``data`` as a pandas DataFrame (numeric columns as int64, categorical
        columns as strings) and ``target`` as a Series; needs pandas.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data``: the 14 attributes, an object ndarray of shape (n, 14) (numbers as
        float) or a DataFrame; ``target``: int array, 1 for income > 50K;
        ``feature_names``, ``target_names``, ``categories`` (the code book's lists),
        ``bounds`` (the public numeric ranges), ``frame`` (data and target, when
        ``as_frame``) and ``DESCR`` (source and licence). With ``return_X_y``, the
        tuple ``(data, target)``.

    Raises
    ------
    ValueError
        If ``subset`` is neither ``"train"`` nor ``"test"``.

    See Also
    --------
    make_adult_preprocessor : The public-bound preprocessing of these columns.

    Notes
    -----
    Becker and Kohavi, *Adult*, UCI Machine Learning Repository (1996),
    https://doi.org/10.24432/C5XW20, licensed CC BY 4.0.

    Examples
    --------
    >>> from skdpgd.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape, adult.target.mean().round(3)
    ((32561, 14), np.float64(0.241))
    >>> adult.data[0, :4]
    array([39.0, 'State-gov', 77516.0, 'Bachelors'], dtype=object)
    """
    if subset not in _FILES:
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}.")
    rows = _read(subset)
    target = np.array([row[-1] == ">50K" for row in rows], dtype=np.int64)
    numeric = [ADULT_COLUMNS.index(name) for name in ADULT_NUMERIC]
    data = np.array([row[:-1] for row in rows], dtype=object)
    for j in numeric:
        data[:, j] = data[:, j].astype(np.float64)
    frame = None
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "load_adult(as_frame=True) needs pandas: pip install pandas "
                "(or pip install 'skdpgd[pandas]')."
            ) from exc
        data = pd.DataFrame(data, columns=list(ADULT_COLUMNS))
        data = data.astype({name: np.int64 for name in ADULT_NUMERIC})
        data = data.astype({name: str for name in ADULT_CATEGORIES})
        target = pd.Series(target, name="income")
        frame = pd.concat([data, target], axis=1)
    if return_X_y:
        return data, target
    return Bunch(
        data=data, target=target, frame=frame, feature_names=list(ADULT_COLUMNS),
        target_names=_TARGET_NAMES.copy(),
        categories={k: list(v) for k, v in ADULT_CATEGORIES.items()},
        bounds=dict(ADULT_BOUNDS), DESCR=DESCR,
    )


def log1p_nonnegative(X):
    """``log(1 + x)`` of amounts clipped below at 0 (a per-record map, no privacy cost).

    Parameters
    ----------
    X : array-like
        Non-negative amounts (negative values are clipped to 0).

    Returns
    -------
    X_log : ndarray of float64
        ``log1p(max(X, 0))``.
    """
    return np.log1p(np.clip(np.asarray(X, dtype=np.float64), 0.0, None))


def divide_rows(X, scale):
    """Divide every row by the public constant ``scale``.

    Parameters
    ----------
    X : array-like or sparse matrix
        Rows to scale.
    scale : float
        A public constant (:data:`ADULT_ROW_SCALE` for Adult).

    Returns
    -------
    X_scaled : same type as X
        ``X / scale``.
    """
    return X / scale


def make_adult_preprocessor():
    """The public-bound preprocessing of :func:`load_adult`'s columns (unfitted).

    Every constant comes from the code book (``adult.names``) and the public CPS
    field limits, never from the data (see :data:`ADULT_BOUNDS`):

    - age, education-num and hours-per-week are mapped from their public range to
      [0, 1] by :class:`~skdpgd.preprocessing.BoundedScaler` (values outside clipped);
    - capital-gain and capital-loss likewise on a ``log1p`` scale (top-code 99,999);
    - the 8 categorical columns are one-hot encoded over the code book's lists by
      :func:`~skdpgd.preprocessing.public_one_hot`, the code book's marker ``"?"`` as
      all zeros, any other unlisted value NaN (the estimator then refuses the fit after
      its ledger charge);
    - ``fnlwgt`` (a survey weight without a public bound) is dropped;
    - every row is divided by :data:`ADULT_ROW_SCALE` = sqrt(13), so every row has norm
      at most 1 (``data_norm=1``).

    Columns are selected by position, so the transformer takes the object array of
    :func:`load_adult` and its DataFrame alike. 104 output features.

    Returns
    -------
    preprocessor : sklearn.pipeline.Pipeline
        A ``ColumnTransformer`` followed by the row scaling; fitting it reads no value.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd.datasets import load_adult, make_adult_preprocessor
    >>> X = make_adult_preprocessor().fit_transform(load_adult().data)
    >>> X.shape, bool(np.linalg.norm(X, axis=1).max() <= 1.0)
    ((32561, 104), True)
    """
    col = ADULT_COLUMNS.index
    linear = ["age", "education-num"]
    money = ["capital-gain", "capital-loss"]
    log_top = math.log1p(ADULT_BOUNDS["capital-gain"][1])
    columns = ColumnTransformer(
        [
            ("linear", BoundedScaler(bounds=([ADULT_BOUNDS[k][0] for k in linear],
                                             [ADULT_BOUNDS[k][1] for k in linear])),
             [col(k) for k in linear]),
            ("money", make_pipeline(
                FunctionTransformer(log1p_nonnegative, feature_names_out="one-to-one"),
                BoundedScaler(bounds=(0.0, log_top)),
            ), [col(k) for k in money]),
            ("hours", BoundedScaler(bounds=ADULT_BOUNDS["hours-per-week"]),
             [col("hours-per-week")]),
            ("categories", public_one_hot(list(ADULT_CATEGORIES.values()), unknown_values="?"),
             [col(k) for k in ADULT_CATEGORIES]),
        ],
        remainder="drop",  # fnlwgt: no public bound
        verbose_feature_names_out=False,
    )
    scale = FunctionTransformer(divide_rows, kw_args={"scale": ADULT_ROW_SCALE},
                                feature_names_out="one-to-one")
    return make_pipeline(columns, scale)
