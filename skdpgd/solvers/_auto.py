"""``solver="auto"`` (the default): the run with the smallest predicted excess loss.

Every candidate is planned by its own solver from the public numbers of the fit, then
scored by one utility proxy (:mod:`skdpgd.solvers._utility`, docs/theory.md#predicted-utility):
the excess loss the run is predicted to leave (noise and optimisation), in the same units
for every solver, with its compute cost in passes over the data. The candidates are
those every registered solver declares (:meth:`~skdpgd.solvers.Solver.auto_candidates`,
read in registration order; no solver is named here), today:

* ``"gd"``: full-batch noisy GD (Bok, Su and Altschuler's convergent bound or composition,
  whichever is smaller). Not at its own longer budget (up to 1000 passes): chosen from
  public numbers, such a run cannot see a geometry that it would not finish (an uncentred
  design), and it was measured to end at the majority class there while adding nothing
  on the validation grid (benchmarks/README.md, "Preprocessing robustness");
* ``"cyclic"`` with each l of :data:`AUTO_CYCLIC_BATCHES` (2, 4, ..., 64 batches, the
  choices of ``solver="cyclic"``);
* ``"preconditioned"`` with each Gram share of :data:`AUTO_GRAM_SHARES` and each margin
  factor of :data:`AUTO_MARGIN_FACTORS`, while the augmented design has at most
  ``MAX_DENSE_DIM`` columns.

Each is planned for each compute budget of :data:`AUTO_PASS_BUDGETS` (today one,
:data:`~skdpgd.solvers._base.AUTO_MAX_PASSES` passes; steps of the preconditioned
candidates; ``solver="preconditioned"`` alone plans up to 100). Each kind is planned once
for all its candidates (one cyclic search, one preconditioned table), the candidates are
scored with the closed-form noise of their plans and together
(:func:`~skdpgd.solvers._utility.predicted_excess_losses`), a plan reached by a smaller
budget is listed once, and only the winner's noise is calibrated by the accountant (the
plan its solver gives alone). The smallest prediction wins; predictions within
:data:`TIE_TOLERANCE` of it tie, and the cheapest of those wins. Not candidates:
``"sgd"`` (its report is not mu-GDP, which pipelines and the ledger compose, and its
accountant is an optional dependency). A fixed ``learning_rate``
or ``batch_size`` keeps the plain-step solvers (``"gd"``, or ``"cyclic"`` with a fixed
batch size). The report's notes list every candidate's prediction and the winner.

Where the winner is a preconditioned candidate (a Gram will be released), the fit chooses
again after the release, on the released spectrum (:mod:`skdpgd.solvers._spectral`,
:class:`~skdpgd.solvers._spectral.SpectralChoicePlan`): the charge composes the Gram
release with the largest budget of the candidate runs, fixed before any value is read.
Because of that second choice, a Gram is worth more than its preconditioned run: where a
plain-step run wins, each Gram share is also scored as the worst case of the best run the
second choice could make (:mod:`skdpgd.solvers._gram_route`), and a share whose route
beats every candidate by more than :data:`TIE_TOLERANCE` is taken instead (its best
preconditioned candidate becomes the public choice; private inference, which has no
second choice, runs the choice without the route).
"""

import math
from dataclasses import replace

from ..accounting import epsilon_delta_to_gdp
from ._base import AUTO_MAX_PASSES, Solver
from ._capabilities import plan_candidates
from ._cyclic import AUTO_CYCLIC_BATCHES
from ._gram_route import gram_route_values
from ._preconditioned import AUTO_GRAM_SHARES, AUTO_MARGIN_FACTORS
from ._registry import registered
from ._spectral import SpectralChoicePlan, spectral_plan
from ._utility import TIE_TOLERANCE, predict_runs

__all__ = ["AUTO_GRAM_SHARES", "AUTO_MARGIN_FACTORS", "AUTO_CYCLIC_BATCHES",
           "AUTO_PASS_BUDGETS", "AutoSolver", "SpectralChoicePlan", "TIE_TOLERANCE", "candidates",
           "choose"]

#: Compute budgets of the candidates, in passes over the data (steps of the preconditioned
#: candidates): each candidate is planned once per budget (ties go to the fewest passes).
#: One today: with (10, 20, 50) the validation grid lost accuracy (Adult-5000 at epsilon
#: 0.1 by .008) and the planning took 1.5-2x longer (benchmarks/README.md, "Candidates at
#: several pass budgets").
AUTO_PASS_BUDGETS = (AUTO_MAX_PASSES,)



def candidates(problem, budgets=AUTO_PASS_BUDGETS):
    """The solver objects ``"auto"`` compares on ``problem`` (public numbers only).

    Every registered solver, in registration order, adds its own
    (:meth:`~skdpgd.solvers._capabilities.Capabilities.auto_candidates`): gd, cyclic and
    the preconditioned settings today, and a solver registered later that declares
    candidates, scored by the same proxy.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    budgets : tuple of int, default=AUTO_PASS_BUDGETS
        The compute budgets: each candidate once per budget (passes; steps of the
        preconditioned candidates), ascending.

    Returns
    -------
    list of Solver
        Solver by solver (gd, cyclic, preconditioned settings), each at every budget.
    """
    # a fixed max_iter is every candidate's number of passes: one budget
    budgets = sorted(budgets) if problem.max_iter is None else [AUTO_MAX_PASSES]
    return [candidate for solver in registered()
            for candidate in solver.auto_candidates(problem, budgets)]


def choose(problem, budgets=AUTO_PASS_BUDGETS):
    """(plan, notes): the winning candidate's plan and one note per candidate.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    budgets : tuple of int, default=AUTO_PASS_BUDGETS
        The candidates' compute budgets (:func:`candidates`).

    Returns
    -------
    plan : dataclass
        The winner's plan (its ``solver`` is the winning solver object).
    notes : tuple of str
        Every candidate's prediction, then why the winner won.
    """
    plan, notes, _, _ = _choose(problem, budgets)
    return plan, notes


def _choose(problem, budgets, second_choice=False):
    """:func:`choose`, and every candidate's plan before calibration (a list, in the
    order of :func:`candidates`), which the second choice reuses.

    ``second_choice``: a preconditioned winner will choose again on its released
    spectrum, so a Gram share whose route
    (:func:`~skdpgd.solvers._gram_route.gram_route_values`) beats every candidate by more
    than :data:`TIE_TOLERANCE` is taken over a plain-step winner. The fourth value is
    ``(plan, notes)`` of the choice without that route (what runs where no second
    choice follows), None where the route was not taken.
    """
    found = candidates(problem, budgets)
    # one search per kind; the noise calibrated for the winner only
    found_plans = plan_candidates(problem, found, calibrate=False)
    kept, seen = [], set()
    for plan in found_plans:  # a plan that a smaller budget reached already is that candidate
        key = repr(replace(plan, solver=None))
        if key not in seen:
            seen.add(key)
            kept.append(plan)
    # every prediction at once: the recursions of one setting at several budgets shared
    runs = [plan.solver._prediction_run(plan, problem) for plan in kept]
    predictions, terms = predict_runs(problem, runs, terms=True)
    every = list(zip(predictions, kept, strict=True))
    best = min(prediction.excess_loss for prediction, _ in every)
    tied = [pair for pair in every
            if pair[0].excess_loss <= best + TIE_TOLERANCE * abs(best)]
    winner, plan = min(tied, key=lambda pair: pair[0].passes)
    lines = tuple(
        f"candidate {p.label}: predicted excess loss {p.excess_loss:.2e}, {p.passes:.0f} passes"
        for p, _ in every
    )
    if winner.excess_loss <= best:
        why = f"solver='auto' chose {winner.label}: the smallest predicted excess loss"
    else:
        why = (f"solver='auto' chose {winner.label}: the fewest passes among the candidates "
               f"within {TIE_TOLERANCE:.0%} of the smallest predicted excess loss")
    chosen = _calibrated(plan, problem), (*lines, _with_kind(why, problem))
    # a plain-step winner the second choice could run: would a Gram be worth more?
    route = (_gram_route(problem, runs, every, terms, best) if second_choice
             and plan.solver.second_choice and not plan.solver.releases_gram else None)
    if route is None:
        return (*chosen, found_plans, None)
    (winner, plan), value = route
    why = (f"solver='auto' chose {winner.label} for its Gram: the choice on its released "
           f"spectrum is predicted at worst {value:.2e} (the worst case over spectra of "
           f"its best run), below every candidate's own prediction")
    return (_calibrated(plan, problem), (*lines, _with_kind(why, problem)), found_plans,
            chosen)


def _gram_route(problem, runs, every, terms, best):
    """((prediction, plan), V) of the Gram route that beats every candidate's ``best``
    by more than :data:`TIE_TOLERANCE` (its share's best preconditioned candidate), or
    None (no such share, or no second choice possible: ``epsilon=inf``)."""
    if not math.isfinite(epsilon_delta_to_gdp(problem.epsilon, problem.delta)):
        return None
    values = gram_route_values(problem, runs, [plan for _, plan in every], terms)
    if not values:
        return None
    share = min(values, key=values.get)  # the smallest share of equal values
    if not best > values[share] + TIE_TOLERANCE * abs(values[share]):
        return None
    members = [pair for pair in every if pair[1].solver.releases_gram
               and pair[1].gram_share == share]
    return min(members, key=lambda pair: (pair[0].excess_loss, pair[0].passes)), values[share]


def _calibrated(plan, problem):
    """The plan ``plan.solver.plan(problem)`` gives: the winner's noise calibrated."""
    return plan.solver.calibrate(plan, problem)


def _with_kind(why, problem):
    if problem.scale_free_score:
        return why + (" (excess loss of the best rescaling of theta: a classifier's "
                      "accuracy sees only its direction)")
    return why


class AutoSolver(Solver):
    """``solver="auto"``: plans every candidate and keeps the best (module docstring).

    Its plan is the chosen candidate's plan, which names that candidate (``plan.solver``);
    the report, the prediction and the run are the chosen candidate's, delegated here.
    """

    name = "auto"

    #: Inference runs its public choice (no second choice), among candidates that
    #: declare ``supports_inference`` (checked again on the chosen one, before the charge).
    supports_inference = True

    def _plan(self, problem):
        plan, notes, planned, fixed = _choose(problem, AUTO_PASS_BUDGETS, second_choice=True)
        plan = replace(plan, notes=plan.notes + notes)
        if fixed is not None:  # the choice where no second choice follows
            fixed = replace(fixed[0], notes=fixed[0].notes + fixed[1])
        if not plan.solver.releases_gram:
            return plan
        # a Gram will be released: choose again on it, among the preconditioned settings
        # planned here (same problem) and the plain-step runs planned for the rest of the
        # budget
        settings = [p for p in planned if p.solver.releases_gram]
        chosen = spectral_plan(problem, plan, candidates, settings)
        if chosen is None:  # no second choice: the route was not worth the Gram
            return plan if fixed is None else fixed
        return chosen if fixed is None else replace(chosen, without_choice=fixed)

    def _report(self, plan, problem, notes):
        return plan.solver.report(plan, problem, notes)  # the chosen candidate's accountant

    def _predict(self, plan, problem):
        return plan.solver.predict(plan, problem)

    def _run(self, data, loss, plan, rng, callback):
        return plan.solver.run(data, loss, plan, rng, callback)

    def run_chosen(self, data, loss, plan, report, rng, callback=None):
        """The chosen candidate's :meth:`~skdpgd.solvers.Solver.run_chosen` (parameters and
        returns as there): a :class:`~skdpgd.solvers._spectral.SpectralChoicePlan` chooses
        its run on the released Gram (:mod:`skdpgd.solvers._spectral`)."""
        return plan.solver.run_chosen(data, loss, plan, report, rng, callback)
