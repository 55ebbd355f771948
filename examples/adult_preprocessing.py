"""
Public-bound preprocessing of the Adult census data with a ColumnTransformer
============================================================================

A model trained with differential privacy is only as private as its preprocessing.
``StandardScaler``, ``MinMaxScaler`` or ``OneHotEncoder(categories="auto")`` fitted on
the private rows put statistics of those rows (means, extremes, the list of rare
categories) into the released pipeline without any accounting. Here every constant
comes from the Adult *code book* (``adult.names``) and the public CPS field limits:

- numeric features are mapped from a documented range to [0, 1] by
  :class:`skdpgd.preprocessing.BoundedScaler` (clipping outside values), capital gain
  and loss on a log scale;
- categorical features are one-hot encoded over the code book's category lists by
  :func:`skdpgd.preprocessing.public_one_hot` (the code book's unknown marker ``"?"`` -> all
  zeros; any other value outside a list is NaN, which the estimator refuses after its
  ledger charge);
- ``fnlwgt`` (a survey weight with no public upper bound) is dropped;
- every row is divided by sqrt(13): 5 numeric features in [0, 1] and 8 one-hot groups
  give a squared row norm of at most 13, so rows have norm <= 1 (``data_norm=1``).

This is exactly the preprocessing of the Adult benchmark in ``benchmarks/`` (a test
checks equality on the real data when it is available). The script itself runs on a
few rows typed in below, so it needs no download.
"""

import math

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgd.preprocessing import BoundedScaler, public_one_hot

# %%
# The public constants: ranges and category lists from the code book
# -------------------------------------------------------------------

#: (low, high) per numeric feature, with where the bound comes from.
LINEAR_BOUNDS = {
    "age": (17.0, 90.0),  # adult.names: AAGE > 16; CPS top-codes age at 90
    "education-num": (1.0, 16.0),  # 16 education levels in the code book
    "hours-per-week": (1.0, 99.0),  # adult.names: HRSWK > 0; CPS 2-digit field
}
#: Capital gain / loss: CPS 5-digit fields (top-code 99,999), used on a log1p scale.
MONEY_TOP_CODE = 99999.0

CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
                  "Doctorate", "5th-6th", "Preschool"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
                       "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
                       "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
                       "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
                       "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
                       "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
                       "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"],
}

#: 5 numeric features in [0, 1] + 8 one-hot groups (at most one 1 each): ||row||^2 <= 13.
ROW_SCALE = math.sqrt(5 + len(CATEGORIES))


def log1p_nonnegative(X):
    """log(1 + x) of amounts clipped below at 0 (a per-record map)."""
    return np.log1p(np.clip(np.asarray(X, dtype=float), 0.0, None))


def divide_by(X, scale):
    """Divide every row by a public constant."""
    return X / scale


# %%
# The transformer
# ---------------
# The column order (age, education-num, capital-gain, capital-loss, hours-per-week,
# then the eight groups) is the benchmark's.


def make_adult_preprocessor():
    """The public-bound Adult preprocessing as a scikit-learn transformer (unfitted)."""
    linear = ["age", "education-num"]
    money = ["capital-gain", "capital-loss"]
    columns = ColumnTransformer(
        [
            ("linear", BoundedScaler(bounds={k: LINEAR_BOUNDS[k] for k in linear}), linear),
            ("money", make_pipeline(
                FunctionTransformer(log1p_nonnegative, feature_names_out="one-to-one"),
                BoundedScaler(bounds=(0.0, math.log1p(MONEY_TOP_CODE))),
            ), money),
            ("hours", BoundedScaler(bounds={"hours-per-week": LINEAR_BOUNDS["hours-per-week"]}),
             ["hours-per-week"]),
            ("categories", public_one_hot(list(CATEGORIES.values()), unknown_values="?"),
             list(CATEGORIES)),
        ],
        remainder="drop",  # fnlwgt: no public bound
        verbose_feature_names_out=False,
    )
    scale = FunctionTransformer(divide_by, kw_args={"scale": ROW_SCALE},
                                feature_names_out="one-to-one")
    return make_pipeline(columns, scale)


# %%
# On a few rows
# -------------
# Fitting reads no value of the data: it records the column names and checks shapes.

if __name__ == "__main__":
    rows = pd.DataFrame(
        {
            "age": [39, 50, 95], "workclass": ["State-gov", "Self-emp-not-inc", "?"],
            "fnlwgt": [77516, 83311, 215646], "education": ["Bachelors", "Bachelors", "HS-grad"],
            "education-num": [13, 13, 9],
            "marital-status": ["Never-married", "Married-civ-spouse", "Divorced"],
            "occupation": ["Adm-clerical", "Exec-managerial", "?"],
            "relationship": ["Not-in-family", "Husband", "Not-in-family"],
            "race": ["White", "White", "White"], "sex": ["Male", "Male", "Female"],
            "capital-gain": [2174, 0, 150000], "capital-loss": [0, 0, 0],
            "hours-per-week": [40, 13, 40],
            "native-country": ["United-States", "United-States", "United-States"],
        }
    )
    pre = make_adult_preprocessor().set_output(transform="pandas")
    X = pre.fit_transform(rows)
    print(f"{X.shape[1]} features; first ones:")
    print(X.iloc[:, :6].round(3).to_string())
    print("row norms:", np.round(np.linalg.norm(X.to_numpy(), axis=1), 3), "(all <= 1)")

    # The three encoded rows: five scaled numbers, then one 1/sqrt(13) per category group
    # (the unknown "?" of the third row encodes as all zeros).
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 1.8))
    ax.imshow(X.to_numpy(), aspect="auto", cmap="Blues", vmin=0.0, vmax=1.0 / ROW_SCALE)
    ax.set_yticks(range(len(rows)), [f"row {i}" for i in range(len(rows))])
    ax.set_xlabel(f"encoded feature (of {X.shape[1]})")
    fig.tight_layout()
