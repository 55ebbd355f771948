r"""The public value of releasing a Gram: the worst case of the choice made on its spectrum.

``solver="auto"`` scores each candidate run by the worst case of the utility proxy over
the spectra that the public numbers allow (:mod:`skdpgd.solvers._utility`). A
preconditioned candidate is more than its own run: it releases a noisy Gram, and the
fit then chooses again on the released spectrum among the preconditioned settings of its
share and every plain-step run at the rest of the budget
(:mod:`skdpgd.solvers._spectral`). Scoring that route by its preconditioned run alone
values the release at nothing. Its value as a decision (docs/theory.md#the-gram-route):

.. math::

    V_s = \max_{S} \min_{c \in \mathcal C_s} U_c(S)
        \;\le\; \min_{c \in \mathcal C_s} \max_S U_c(S),

where S ranges over the proxy's spectra (for a classifier pairs of levels of
:data:`~skdpgd.solvers._utility.SPECTRUM_GRID`, for a regressor the optimum's level and
the noise's: the worst case of
:func:`~skdpgd.solvers._utility.predicted_excess_losses`), :math:`U_c(S)` is candidate
c's predicted excess loss on S, and :math:`\mathcal C_s` holds the preconditioned
candidates of Gram share s and every plain-step candidate with its noise at the run's
budget after the probe, :math:`\sigma/\sqrt{1 - q s}` (the probe takes
:math:`q s\mu^{*2}` of :math:`\mu^{*2}`, q = :data:`~skdpgd.solvers._spectral.PROBE_FRACTION`;
a plain run's closed-form noise scales as :math:`1/\mu`). The inequality is the
minimax inequality: a choice made after seeing S is never worse in the worst case than
the best fixed run, and strictly better where different runs have their worst case on
different spectra (a plain run on slow directions, a preconditioned one where its Gram
noise distorts).

It idealises the second choice (it reads a noisy spectrum, and it assumes the optimum
spread evenly over it, as the proxy does), so ``"auto"`` uses it only to decide whether
to release a Gram at all: the Gram route is taken where its value is below every
candidate's own prediction by more than the tie tolerance. Public numbers only: a
planning heuristic that plays no part in any privacy claim.
"""

import math

import numpy as np

from ._proxy_kernels import minimax_pair, minimax_sum
from ._spectral import PROBE_FRACTION
from ._utility import predicted_excess_losses

__all__ = ["gram_route_values", "minimax_value"]


def gram_route_values(problem, runs, plans, terms):
    r""":math:`V_s` (module docstring) of every Gram share among the candidates.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    runs : list of tuple
        ``(label, passes, run)`` of each candidate, as
        :meth:`~skdpgd.solvers.Solver._prediction_run` gives them.
    plans : list of dataclass
        The candidates' plans (in the order of ``runs``; each names its solver).
    terms : list of LevelTerms
        The candidates' proxy at every level (:func:`~skdpgd.solvers._utility.predict_runs`
        with ``terms=True``), in the same order.

    Returns
    -------
    dict
        ``{share: V_s}``; empty where there is no preconditioned or no plain-step
        candidate.
    """
    plain = [run for (_, _, run), plan in zip(runs, plans, strict=True)
             if plan.solver.second_choice and not plan.solver.releases_gram]
    preconditioned = [(plan.gram_share, level_terms)
                      for plan, level_terms in zip(plans, terms, strict=True)
                      if plan.solver.releases_gram]
    shares = sorted({share for share, _ in preconditioned})
    if not plain or not shares:
        return {}
    inflated = []
    for share in shares:  # the plain runs at the budget the probe leaves
        inflation = 1.0 / math.sqrt(1.0 - PROBE_FRACTION * share)
        inflated += [dict(run, noise_std=run["noise_std"] * inflation) for run in plain]
    inflated = predicted_excess_losses(
        inflated, curvature=problem.curvature, n_params=problem.n_params,
        n_outputs=problem.n_outputs, row_norm=problem.row_norm,
        initial_distance=problem.largest_distance, scale_free=problem.scale_free_score,
        terms=True,
    )
    values = {}
    for t, share in enumerate(shares):
        own = [level_terms for s, level_terms in preconditioned if s == share]
        values[share] = minimax_value(own + inflated[t * len(plain):(t + 1) * len(plain)])
    return values


def minimax_value(terms):
    r""":math:`\max_S \min_r U_r(S)` over the spectra S of the proxy's worst case, for the
    runs r whose :class:`~skdpgd.solvers._proxy_scores.LevelTerms` are ``terms`` (all of one
    kind): pairs of levels for classifiers, (optimum's level, noise's level) for
    regressors. With one run it is that run's prediction."""
    extra = np.array([level_terms.extra for level_terms in terms])
    if terms[0].scale_free:
        c, a, b = (np.stack(arrays) for arrays in zip(*(t.levels for t in terms), strict=True))
        return minimax_pair(c, a, b, extra)
    opt, noise = (np.stack(arrays) for arrays in zip(*(t.levels for t in terms), strict=True))
    return minimax_sum(np.array([t.bias for t in terms]), opt, noise, extra)
