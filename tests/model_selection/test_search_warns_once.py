"""A search warns once for what every trial says, at the user's line."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin

from skdpgd import DPLogisticRegression, make_dp_pipeline
from skdpgd.model_selection import DPSearchCV


class LoudScaler(TransformerMixin, BaseEstimator):
    """A public-bound step (divides by a public constant) that warns at every fit."""

    __skdpgd_public_fit__ = True
    fits = 0

    def fit(self, X, y=None):
        LoudScaler.fits += 1
        warnings.warn("LoudScaler was fitted", UserWarning, stacklevel=2)
        warnings.warn(f"LoudScaler saw {np.asarray(X).shape[1]} columns", RuntimeWarning,
                      stacklevel=2)
        self.scale_ = 4.0
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float) / self.scale_


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(4000, 3))
    return X, (X[:, 0] > 0).astype(int)


def test_every_trial_warns_but_the_search_warns_once_each():
    X, y = _data()
    pipe = make_dp_pipeline(LoudScaler(), DPLogisticRegression(classes=[0, 1], data_norm=1.0))
    grid = {"dplogisticregression__C": [0.1, 1.0, 10.0]}
    LoudScaler.fits = 0
    search = DPSearchCV(pipe, grid, epsilon=8.0, random_state=0)
    with pytest.warns(Warning) as record:
        search.fit(X, y)
    assert LoudScaler.fits >= 3  # every candidate (and the refit) fits the step
    texts = [str(r.message) for r in record]
    assert texts.count("LoudScaler was fitted") == 1
    assert texts.count("LoudScaler saw 3 columns") == 1
    assert all(r.filename == __file__ for r in record)  # the user's line, no library path
