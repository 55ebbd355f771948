r"""A search that cannot pay is no search: one fit of the estimator with its whole budget.

DPSearchCV's default (every candidate once, :mod:`._grid_selection`) leaves the reference
only when a challenger's noisy validation score beats it by the first round's margin
:math:`M = z\sqrt2\,\Delta/\mu_s`. Where the largest share the trials may take cannot
bring M down to the resolution :math:`r_0 S` (:func:`._grid_selection.selection_share`,
public: K, the validation rows m, :math:`\mu_{\mathrm{est}}` and the score's scale S), a
switch needs a gain no candidate can be expected to show, so the trials would only cost
the refit its share. The search then runs no trial: it fits the estimator itself, with
the search's (epsilon, delta), its random state, and no ledger of its own, on all rows,
and charges the search's ledger that fit's planned report before reading a value. The
release is the estimator's own fit, private by that fit's own accounting; with an int
``random_state`` it is, bit for bit, the fit of the estimator with that seed.
"""

import numpy as np
from sklearn.base import is_classifier

from ._candidates import estimator_features
from ._pipeline import candidate, final_params, is_dp_pipeline, split_estimator

__all__ = ["one_fit", "one_fit_report"]


def one_fit(estimator, epsilon, delta, random_state):
    """The estimator (or pipeline) with the search's budget and random state, unfitted.

    Parameters
    ----------
    estimator : estimator
        The search's estimator (its own values of the grid's parameters: the reference).
    epsilon, delta : float
        The search's total budget.
    random_state : int, Generator or None
        The search's.

    Returns
    -------
    estimator
        A clone, with no ledger (the search charges its own).
    """
    reserved = final_params(estimator, epsilon=epsilon, delta=delta, ledger=None,
                            random_state=random_state)
    return candidate(estimator, reserved)[0]


def one_fit_report(estimator, epsilon, delta, n_samples, n_features, X=None):
    """What :func:`one_fit`'s fit on ``n_samples`` rows is charged (public numbers only).

    Parameters
    ----------
    estimator : estimator
        The search's estimator.
    epsilon, delta : float
        The search's total budget.
    n_samples, n_features : int
        The input's shape.
    X : object, optional
        The input, for a DP pipeline that plans from its structure (dtypes, never values).

    Returns
    -------
    PrivacyReport
        The fit's planned report (a DP pipeline's composed plan, or the estimator's).
    """
    final = split_estimator(one_fit(estimator, epsilon, delta, None))[1]
    n_classes = (len(np.unique(np.asarray(final._public_label_set()))) if is_classifier(final)
                 else None)
    d = estimator_features(estimator, n_features)
    if is_dp_pipeline(final):
        return final.plan_privacy(n_samples, d, n_classes, X=X)
    return final.plan_privacy(n_samples, d, n_classes)
