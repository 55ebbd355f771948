r"""The second choice of ``solver="auto"``: every candidate scored on a released spectrum.

Where the public choice releases a Gram (:mod:`._spectral`), the fit chooses its run
again on the released matrix: each candidate's proxy (:mod:`._spectral_utility`) is
evaluated on the released eigenvalues, with the spectrum the release cannot resolve
bounded as there, instead of the worst case over every spectrum the public bounds allow.
A classifier's second choice leaves the public choice only for a candidate that beats it
at the bulk's estimated level, at its worst common level
(``_spectral_utility.worst_bulk_excess_loss``) and in the mean of the two bulks the
release cannot tell apart, flat at the estimate and spread as n rows spread it at least
(``_spectral_utility.spread_bulk_excess_loss``): the release shows that it pays whatever
level the unresolved bulk has, and that its gain on the flat bulk is more than what the
least spread would cost it; among those, the smallest proxy at the estimate. A function
of the released Gram and public numbers only: post-processing of an accounted release
(:ref:`choosing-on-the-released-spectrum`).
"""

import functools
import math

import numpy as np

from ._spectral_utility import (
    estimate_spectrum,
    released_offset_distance,
    spectral_excess_loss,
    spread_bulk_excess_loss,
    worst_bulk_excess_loss,
)
from ._utility import TIE_TOLERANCE

__all__ = ["choose_on_spectrum"]



def _label(plan):
    """The candidate's name in the notes (its solver's declared ``choice_label``)."""
    return plan.solver.choice_label(plan)


def _spectral_prediction(plan, problem, released, spectrum, unresolved,
                         score=spectral_excess_loss):
    """(excess loss, passes) of one candidate on the released spectrum (by ``score``; its
    run there: its solver's declared ``spectral_run``)."""
    common = dict(curvature=problem.curvature, strong_convexity=plan.strong_convexity,
                  spectrum=spectrum, n_outputs=problem.n_outputs,
                  initial_distance=problem.largest_distance,
                  scale_free=problem.scale_free_score, **unresolved)
    run, passes = plan.solver.spectral_run(plan, problem, released, spectrum)
    return score(plan.n_steps, plan.noise_std, **run, **common), passes


def choose_on_spectrum(plan, problem, released):
    """(index, notes): the candidate with the smallest proxy on the released spectrum.

    A function of the released Gram and public numbers only (post-processing). Ties
    (within :data:`~skdpgd.solvers._utility.TIE_TOLERANCE`) go to the fewest passes. A
    classifier's candidates are those no worse than the public choice
    (``plan.public_index``) at the bulk's estimate, at its worst common level and in the
    mean of the flat and the spread bulk (module docstring); the public choice is always
    one of them.

    Parameters
    ----------
    plan : SpectralChoicePlan
        The candidates.
    problem : PublicProblem
        The public numbers of the fit.
    released : ndarray of shape (d, d)
        The released Gram.

    Returns
    -------
    index : int
        The winner, in ``plan.candidates``.
    notes : tuple of str
        Every candidate's prediction, then the winner.
    """
    eigenvalues, vectors = np.linalg.eigh(released)
    tau = plan.probe_noise_std  # the noise of the release the choice reads
    spectrum, bulk = estimate_spectrum(eigenvalues, tau, problem.row_norm)
    unresolved = dict(bulk=bulk, bulk_ceiling=tau * math.sqrt(eigenvalues.size),
                      # the intercept column is the last one of the augmented design
                      offset_weights=None if problem.intercept_scaling is None
                      else vectors[-1] ** 2,
                      offset_distance=released_offset_distance(problem, released, tau))
    scored = [_spectral_prediction(candidate, problem, eigenvalues, spectrum, unresolved)
              for candidate in plan.candidates]
    eligible = range(len(scored))
    public = plan.public_index
    if problem.scale_free_score and public is not None and unresolved["bulk"].any():
        worst = [_spectral_prediction(candidate, problem, eigenvalues, spectrum, unresolved,
                                      worst_bulk_excess_loss)[0]
                 for candidate in plan.candidates]
        spread = [_spectral_prediction(candidate, problem, eigenvalues, spectrum, unresolved,
                                       functools.partial(spread_bulk_excess_loss,
                                                         n_samples=problem.n_samples))[0]
                  for candidate in plan.candidates]
        # the gain on the flat bulk must exceed what the spread bulk would cost
        mean = [scored[i][0] + spread[i] for i in range(len(scored))]
        eligible = [i for i in eligible if scored[i][0] <= scored[public][0]
                    and worst[i] <= worst[public] and mean[i] <= mean[public]]
    best = min(scored[i][0] for i in eligible)
    tied = [i for i in eligible if scored[i][0] <= best + TIE_TOLERANCE * abs(best)]
    index = min(tied, key=lambda i: scored[i][1])
    notes = tuple(
        f"on the released spectrum: {_label(candidate)}: predicted excess loss "
        f"{excess:.2e}, {passes:.0f} passes"
        for candidate, (excess, passes) in zip(plan.candidates, scored, strict=True))
    return index, (*notes, f"solver='auto' ran {_label(plan.candidates[index])}, chosen on "
                           "the released Gram's spectrum")
