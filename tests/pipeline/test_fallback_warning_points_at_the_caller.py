"""A :class:`~skdpgd.exceptions.PreparationFallbackWarning` names the user's line.

Found deep inside a fit (the vectorizer's summary, a pipeline's target range, through
scikit-learn's Pipeline), the warning is attributed to the first frame outside skdpgd,
scikit-learn and joblib: here, the line of this file that called ``fit``. Before, its
fixed ``stacklevel=3`` named a line of the package (``skdpgd/.../_table_vectorizer.py``).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.exceptions import PreparationFallbackWarning
from skdpgd.preprocessing import BoundedScaler, DPTableVectorizer


def _recorded(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    found = [w for w in caught if issubclass(w.category, PreparationFallbackWarning)]
    assert found, "the fit should have fallen back"
    return found


def _object_array():
    return np.array([["a"], ["b"]] * 50, dtype=object)  # every column becomes categorical


def _few_numbers():
    return pd.DataFrame({"x": np.random.default_rng(0).normal(size=40)})


@pytest.mark.parametrize("fit", [
    lambda: DPTableVectorizer(epsilon=1.0, random_state=0).fit(_object_array()),
    lambda: DPTableVectorizer(epsilon=0.01, random_state=0).fit(_few_numbers()),
    lambda: Pipeline([("vec", DPTableVectorizer(epsilon=0.01, random_state=0))]).fit(
        _few_numbers()),
    lambda: make_dp_pipeline(BoundedScaler((-3.0, 3.0)), DPRidge(y_bound="auto"),
                             epsilon=0.05, random_state=0).fit(
        np.zeros((30, 1)), np.random.default_rng(0).normal(size=30)),
], ids=["vectorizer, all categorical", "vectorizer, numeric range", "sklearn Pipeline",
        "DP pipeline, target range"])
def test_the_warning_names_the_line_of_the_users_call(fit):
    for warning in _recorded(fit):
        assert warning.filename == __file__, (warning.filename, str(warning.message))
