"""The noisy validation score of a trial and the rule that keeps the best one.

The score is a mean of per-row terms computed on clipped rows (:mod:`._scoring`), so its
replace-one sensitivity on m validation rows is 1/m for accuracy and (2 y_bound)^2 / m
for minus the clipped squared error; the search adds Gaussian noise of that scale over
the trial mu and keeps the trial with the largest noisy score (:func:`better`).
"""

import math

from sklearn.base import is_classifier

from ._scoring import clipped_accuracy, clipped_squared_error


def _neg_clipped_mse(bound):
    def score(model, X, y):
        return clipped_squared_error(model, X, y, bound)

    return score


def better(noisy, best):
    """Whether the trial scoring ``noisy`` replaces the best so far (``best`` None: none yet).

    NaN-safe by construction: a NaN score (impossible for the clipped scores of
    :mod:`skdpgd.model_selection._scoring`, kept as a guard) never wins, and a NaN best so far is
    replaced by any number, so no single value can freeze the selection.
    """
    if math.isnan(noisy):
        return best is None
    return best is None or math.isnan(best[0]) or noisy > best[0]


def validation_score(base, m):
    """The validation score and its replace-one sensitivity on m rows."""
    if is_classifier(base):
        return clipped_accuracy, 1.0 / m
    bound = base._public_target_bound()
    if isinstance(bound, str):  # a DPPipeline's DPRidge(y_bound="auto")
        raise ValueError(
            "DPSearchCV's noisy validation score needs a public bound on |y|: its "
            "sensitivity is (2 y_bound)^2 / m. A DPPipeline with DPRidge(y_bound='auto') "
            "releases the range of y inside each trial, so give DPRidge a numeric y_bound."
        )
    bound = float(bound)
    return _neg_clipped_mse(bound), (2.0 * bound) ** 2 / m


def score_scale(base):
    """S, the score's scale: 1 for accuracy, ``y_bound ** 2`` for minus the clipped squared
    error (the largest mean squared error of the constant 0 on targets within the bound).

    Parameters
    ----------
    base : skdpgd estimator
        The search's estimator (a numeric ``y_bound`` for a regressor:
        :func:`validation_score` refuses any other first).

    Returns
    -------
    float
        S.
    """
    return 1.0 if is_classifier(base) else float(base._public_target_bound()) ** 2
