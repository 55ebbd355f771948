"""The candidates of :class:`~skdpgd.model_selection.DPSearchCV`: built and planned.

Each trial of the search fits one candidate, the estimator (or pipeline) with one point
of the grid and the parameters the search sets itself (the trial's (epsilon, delta), its
seed and the guard that re-checks its privacy report). Before anything is charged, every
candidate is planned at each number of rows it will be fitted on, from public numbers
only, and one whose privacy event is not a Gaussian-DP run within the trial's mu is
refused by name (:func:`check_candidates`).
"""

import numpy as np
from sklearn.base import is_classifier

from ..accounting import gdp_to_epsilon
from ..accounting._margin import round_down
from ..preprocessing._public_steps import features_out
from ..utils import resolve_delta
from ._pipeline import candidate, final_params, is_dp_pipeline, split_estimator
from ._trial_guard import check_trial_event

__all__ = ["check_candidates", "estimator_features", "make_candidate"]


def make_candidate(estimator, params, mu, n_rows, seed, guard, template=None):
    """One trial's model: ``template`` (default ``estimator``) with ``params`` and the
    search's own parameters, a run of at most mu-GDP on ``n_rows`` rows.

    Parameters
    ----------
    estimator : estimator
        The search's estimator (names where the reserved parameters go).
    params : dict
        One point of the grid.
    mu : float
        The trial's GDP budget (rounded down once more for the run's own epsilon).
    n_rows : int
        The rows the candidate is fitted on (public: its delta is resolved from it).
    seed : int
        The run's seed.
    guard : MuGuard or None
        The ledger that re-checks the run's report before it reads the data.
    template : estimator, optional
        A stand-in for ``estimator`` (a pipeline with a frozen shared preparation).

    Returns
    -------
    estimator
        An unfitted clone.
    """
    delta_fit = resolve_delta("auto", n_rows)
    reserved = final_params(
        estimator, epsilon=gdp_to_epsilon(round_down(mu), delta_fit),
        delta=delta_fit, ledger=guard, random_state=seed,
    )
    template = estimator if template is None else template
    return candidate(template, {**params, **reserved})[0]


def estimator_features(estimator, n_features):
    """Columns entering the skdpgd estimator of ``estimator`` (for planning), or the
    input width where a step's output width is not public."""
    pre, _, _ = split_estimator(estimator)
    width = n_features
    for _, step in pre:
        width = None if width is None else features_out(step, width)
    return n_features if width is None else width


def check_candidates(estimator, base, grid, mu, sizes, n_features, X=None, template=None):
    """Plan every candidate at each number of rows in ``sizes`` (public numbers only) and
    refuse, before anything is charged, one whose privacy event is not a Gaussian-DP run
    within the trial mu.

    The parameters of a pipeline's steps are validated here too (scikit-learn's
    ``_validate_params``, parameters only), so that a wrong parameter is refused by name
    before the charge, not withheld among the data's refusals after it.

    Parameters
    ----------
    estimator : estimator
        The search's estimator.
    base : estimator
        Its skdpgd estimator (the final step).
    grid : list of dict
        The grid's points.
    mu : float
        The trial's GDP budget.
    sizes : tuple of int
        The numbers of rows a candidate is fitted on (the trials', and the refit's).
    n_features : int
        The input's width.
    X : object, optional
        The input, for a DP pipeline that plans from its structure (dtypes, never values).
    template : estimator, optional
        As in :func:`make_candidate`.

    Raises
    ------
    ValueError
        A candidate whose planned event is not a Gaussian-DP run within mu.
    """
    n_classes = len(np.unique(np.asarray(base.classes))) if is_classifier(base) else None
    d = estimator_features(estimator, n_features)
    for n_train, params in ((size, params) for size in sizes for params in grid):
        model = make_candidate(estimator, params, mu, n_train, 0, None, template)
        pre, final, _ = split_estimator(model)
        for _, step in pre:
            if hasattr(step, "_validate_params"):
                step._validate_params()
        # a DPPipeline plans from X's structure (its dtypes), never from a value
        report = (final.plan_privacy(n_train, d, n_classes, X=X) if is_dp_pipeline(final)
                  else final.plan_privacy(n_train, d, n_classes))
        check_trial_event(report.event, mu, f"candidate {params}")
