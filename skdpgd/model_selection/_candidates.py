"""The candidates of :class:`~skdpgd.model_selection.DPSearchCV`: built and planned.

Each trial of the search fits one candidate, the estimator (or pipeline) with one point
of the grid and the parameters the search sets itself (the trial's (epsilon, delta), its
seed and the guard that re-checks its privacy report). Before anything is charged, every
candidate is planned at each number of rows it will be fitted on, from public numbers
only, and one whose solver does not declare a Gaussian-DP report (``reports_mu``), or
whose planned privacy event is not a Gaussian-DP run within the trial's mu, is refused
(:func:`check_candidates`).
"""

import numpy as np
from sklearn.base import is_classifier

from ..accounting import gdp_to_epsilon
from ..accounting.calibration import round_down
from ..preprocessing._public_steps import features_out
from ..solvers import get as get_solver
from ..solvers import names as solver_names
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
    n_classes = (len(np.unique(np.asarray(base._public_label_set()))) if is_classifier(base)
                 else None)
    d = estimator_features(estimator, n_features)
    for n_train, params in ((size, params) for size in sizes for params in grid):
        model = make_candidate(estimator, params, mu, n_train, 0, None, template)
        pre, final, _ = split_estimator(model)
        if not is_dp_pipeline(final):  # a DPPipeline refuses its own (check_steps)
            check_reports_mu(final, params)
        for _, step in pre:  # a PreparedStep refuses here one that no charge made
            if hasattr(step, "_validate_params"):
                step._validate_params()
        # a DPPipeline plans from X's structure (its dtypes), never from a value
        report = (final.plan_privacy(n_train, d, n_classes, X=X) if is_dp_pipeline(final)
                  else final.plan_privacy(n_train, d, n_classes))
        check_trial_event(report.event, mu, f"candidate {params}")


def check_reports_mu(final, params):
    """Refuse a candidate whose solver does not declare a Gaussian-DP report.

    The selection bound composes trials that are mu-GDP runs, so a solver whose
    declared capability ``reports_mu`` is False (``"sgd"``, or a registered one) is
    refused from that declaration, before any charge, whatever its name.

    Parameters
    ----------
    final : skdpgd estimator
        The candidate's estimator (its ``solver`` is looked up in the registry).
    params : dict
        The candidate's point of the grid (for the message).
    """
    if get_solver(final.solver).reports_mu is not True:
        usable = [name for name in solver_names() if get_solver(name).reports_mu is True]
        raise ValueError(
            f"candidate {params}: solver={final.solver!r} is refused in DPSearchCV: its "
            "solver declares reports_mu=False (its privacy report has no single "
            "Gaussian-DP parameter mu), and the selection bound composes trials that are "
            f"mu-GDP runs. Use a solver that reports mu: {usable}."
        )
