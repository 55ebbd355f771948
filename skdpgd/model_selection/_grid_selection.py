r"""DPSearchCV's default selection: every candidate once, the reference kept unless beaten.

Public throughout: the candidates, their number K, every budget below, the margin.

1. **Candidates.** The *reference* is the estimator's own value of every parameter the
   grid names (what one fit of the estimator would use); it is the first candidate, the
   grid's other points follow, each once (:func:`grid_candidates`).
2. **Budget** (:func:`grid_budget`). The search's (epsilon, delta) is met as Gaussian DP,
   :math:`\mu` = ``epsilon_delta_to_gdp``\ (epsilon, :math:`\delta - \delta_0`) rounded
   down, exactly as one pipeline fit meets it (:math:`\delta_0 = \kappa\delta` when a
   shared preparation thresholds). A shared preparation gets
   :math:`\mu_p = \sqrt\rho\,\mu` (``rho`` the pipeline's ``preparation_share``), as in
   one fit; the estimator's part
   :math:`\mu_{\mathrm{est}}^2 = (1-\rho)\mu^2` goes, with a refit, a share :math:`1-s`
   to the refit and :math:`s` to the K trials in equal parts,
   :math:`\mu_s = \mu_{\mathrm{est}}\sqrt{s/T}`, :math:`\mu_r = \mu_{\mathrm{est}}\sqrt{1-s}`,
   :math:`s = 0.1` (:data:`SELECTION_SHARE`), with T = K + 2 trials budgeted (K = 1:
   T = 1); without a refit the trials get all of it, :math:`\mu_s = \mu_{\mathrm{est}}/\sqrt T`.
3. **Trials.** Candidate j is fitted on the training part as a :math:`\mu_s`-GDP run and
   scored on the validation part plus :math:`N(0, \sigma^2)`, :math:`\sigma = \Delta/\mu_s`:
   a :math:`\mu_s`-GDP trial (parallel composition over the disjoint parts, as in
   :mod:`._dpsearch`).
4. **Choice** (:func:`chosen_index`). The best noisy score replaces the reference only
   if it beats the reference's noisy score by more than
   :math:`z\sqrt2\,\sigma`, :math:`z = \Phi^{-1}(1 - a/(K-1))`, :math:`a = 0.05`
   (:data:`SWITCH_LEVEL`), and then again in a *confirmation*: the reference and the
   challenger fitted and scored once more (two fresh trials), the challenger's noisy
   score beating the reference's by more than :math:`\Phi^{-1}(1 - a)\sqrt2\,\sigma`
   (:func:`confirm_margin`).
5. **Refit** of the chosen candidate on all rows as a :math:`\mu_r`-GDP run.

**Privacy.** Steps 2-5 are an adaptive composition of Gaussian-DP mechanisms, the
preparation, at most T trials (the confirmation's candidates depend on the first K
trials' outputs) and the refit (whose parameters depend on all of them):
:math:`\sqrt{\mu_p^2 + T\mu_s^2 + \mu_r^2} \le \mu`-GDP (Dong, Roth and Su 2022,
Corollary 3.3), with the preparation's additive :math:`\delta_0` added by the hybrid
argument of :mod:`skdpgd.accounting._composition`; so the search is
(epsilon, delta)-DP by the conversion that calibrated :math:`\mu` (Corollary 2.13). The
composition covers every noisy score, so the choice (step 4) is post-processing: no
selection theorem is needed, and the rule may compare with the reference.

**Why this is never worse than no search.** With the refit, the released model is the
chosen candidate fitted as one pipeline fit would be, on all rows, with the same
preparation budget and :math:`\sqrt{1-s}` = 0.949 of the estimator's :math:`\mu`: its
noise standard deviation grows by :math:`1/\sqrt{1-s}` = 1.054, the 5% the pipeline's own
preparation share costs (:mod:`skdpgd.pipeline._budget`), whatever the data. It leaves
the reference only on evidence: when no candidate's validation score exceeds the
reference's, each difference of noisy scores is :math:`N(\le 0, 2\sigma^2)`, so by the
union bound over the K - 1 others the first round leaves the reference with probability
at most :math:`a`, and the confirmation (fresh fits, fresh noise) passes with probability
at most :math:`a` again. The confirmation is what protects against a trial model that is
better by the luck of its own noise: the margin covers the score's noise, not the fit's,
and at a small trial mu two fits of the same candidate can differ in validation score as
much as two candidates do; a lucky fit rarely repeats.

A random number of trials (Papernot and Steinke's selection, ``expected_trials=``)
instead returns a single uniformly drawn candidate with probability :math:`\Pr[K=1]`
(0.27 at E[K] = 10, eta = 0) and trains the released model at the trial's share of the
budget.
"""

import math
from dataclasses import dataclass

from scipy.stats import norm

from ..pipeline import PREPARATION_SHARE, split_budget

__all__ = ["MIN_SELECTION_SHARE", "RESOLUTION", "SELECTION_SHARE", "SWITCH_LEVEL", "GridBudget",
           "budgeted_trials", "chosen_index", "confirm_margin", "grid_budget",
           "grid_candidates", "selection_share", "switch_margin"]

#: The largest share of the estimator's mu^2 the trials take when the winner is refitted.
SELECTION_SHARE = 0.1

#: The smallest share: at large budgets, a first round finer than r_0 for 1% more noise.
MIN_SELECTION_SHARE = 0.02

#: r_0: the largest first-round margin, as a fraction of the score's scale, at which the
#: trials run (the resolution of the pipeline's constant check).
RESOLUTION = 0.02

#: a: the largest probability of leaving the reference when no candidate is better.
SWITCH_LEVEL = 0.05

THEOREM = ("every candidate once, Gaussian-DP trials and refit composed exactly: Dong, "
           "Roth and Su (2022), Corollary 3.3; the choice is post-processing of the noisy "
           "scores")


def _same(a, b):
    """Whether two parameter values are equal (False where ``==`` is not a bool)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def grid_candidates(estimator, grid):
    """The reference (the estimator's own values of the grid's parameters), then the rest.

    Parameters
    ----------
    estimator : estimator
        The search's estimator (its ``get_params``).
    grid : list of dict
        The grid's points.

    Returns
    -------
    list of dict
        The reference first; a grid point equal to it is not repeated.
    """
    own = estimator.get_params()
    keys = sorted({key for params in grid for key in params})
    reference = {key: own[key] for key in keys if key in own}
    rest = [params for params in grid
            if not (params.keys() == reference.keys()
                    and all(_same(params[k], reference[k]) for k in params))]
    return [reference, *rest]


@dataclass(frozen=True)
class GridBudget:
    """The public split of the search's budget (every GDP parameter already rounded down).

    Attributes
    ----------
    mu : float
        The whole search's Gaussian-DP parameter (met at delta - extra_delta).
    extra_delta : float
        The shared preparation's additive delta (0 without one).
    estimator_mu : float
        :math:`\\mu\\sqrt{1-\\rho}` with a shared preparation, mu without.
    trial_mu, refit_mu : float
        One trial's, and the refit's (0 without a refit).
    n_trials : int
        T, the trials budgeted (:func:`budgeted_trials`).
    """

    mu: float
    extra_delta: float
    estimator_mu: float
    trial_mu: float
    refit_mu: float
    n_trials: int

    def selection_mu(self):
        """:math:`\\sqrt{T\\mu_s^2 + \\mu_r^2}`: the trials and the refit composed."""
        return math.sqrt(self.n_trials * self.trial_mu ** 2 + self.refit_mu ** 2)


def grid_budget(epsilon, delta, n_trials, *, refit, needs_extra_delta=(),
                preparation_share=PREPARATION_SHARE, share=SELECTION_SHARE):
    r"""Split (epsilon, delta) between the preparation, the T trials and the refit.

    Parameters
    ----------
    epsilon, delta : float
        The search's total budget (finite epsilon).
    n_trials : int
        T >= 1, the trials budgeted (:func:`budgeted_trials`).
    refit : bool
        Whether the chosen candidate is refitted on all rows.
    needs_extra_delta : sequence of bool, default=()
        Per private step of a shared preparation, whether it thresholds (empty: none).
    preparation_share : float, default=0.1
        :math:`\rho` of a shared preparation.
    share : float, default=0.1
        s, the trials' share with a refit (:func:`selection_share`).

    Returns
    -------
    GridBudget
        Composed, :math:`\sqrt{\mu_p^2 + T\mu_s^2 + \mu_r^2} \le \mu` with
        :math:`\mu_p = \sqrt\rho\,\mu` (module docstring, step 2): ``mu``,
        :math:`\mu_{\mathrm{est}}` and :math:`\delta_0` are one pipeline fit's
        (:func:`skdpgd.pipeline.split_budget`), and the two shares are multiplied by
        :math:`1 - 2^{-40}` so that float rounding cannot take their sum above
        :math:`\mu_{\mathrm{est}}^2`.
    """
    one_fit = split_budget(epsilon, delta, needs_extra_delta,
                           preparation_share=preparation_share)
    mu_est = one_fit.estimator_mu
    share = float(share) if refit else 1.0
    guard = 1.0 - 2.0 ** -40
    return GridBudget(
        mu=one_fit.mu, extra_delta=float(one_fit.extra_delta), estimator_mu=mu_est,
        trial_mu=mu_est * math.sqrt(share / n_trials) * guard,
        refit_mu=mu_est * math.sqrt(1.0 - share) * guard if refit else 0.0,
        n_trials=int(n_trials))


def selection_share(n_candidates, estimator_mu, sensitivity, scale, resolution=RESOLUTION):
    r"""s: the trials' share of :math:`\mu_{\mathrm{est}}^2`, or 0 where no search can pay.

    The first round's margin at share s is
    :math:`M(s) = z\sqrt2\,\Delta\sqrt{T/s}/\mu_{\mathrm{est}}`
    (:func:`switch_margin` at :math:`\mu_s = \mu_{\mathrm{est}}\sqrt{s/T}`). The share
    is the smallest with :math:`M(s) \le r_0 S` (S the score's scale: 1 for accuracy,
    :math:`y_{\mathrm{bound}}^2` for minus the squared error, the largest loss of the
    constant 0 on targets in the bound), at least :data:`MIN_SELECTION_SHARE`. Where it
    would exceed :data:`SELECTION_SHARE`, the trials cannot see a gain of :math:`r_0 S`
    over the reference for the largest cost the search may take: no trial runs, and the
    search is one fit of the estimator with its whole budget (0 is returned). With fewer
    than two candidates there is nothing to choose (0).

    Parameters
    ----------
    n_candidates : int
        K.
    estimator_mu : float
        :math:`\mu_{\mathrm{est}}`.
    sensitivity : float
        :math:`\Delta`, the score's replace-one sensitivity on the validation rows.
    scale : float
        S.
    resolution : float, default=0.02
        :math:`r_0`.

    Returns
    -------
    float
        s in [MIN_SELECTION_SHARE, SELECTION_SHARE], or 0.
    """
    if n_candidates < 2 or not estimator_mu > 0.0:
        return 0.0
    margin_at_one = switch_margin(n_candidates, sensitivity) * math.sqrt(
        budgeted_trials(n_candidates)) / estimator_mu  # M(s) = margin_at_one / sqrt(s)
    needed = (margin_at_one / (resolution * scale)) ** 2
    if not needed <= SELECTION_SHARE:
        return 0.0
    return max(needed, MIN_SELECTION_SHARE)


def budgeted_trials(n_candidates):
    """T: the K first-round trials and, when there is a choice (K >= 2), two confirmation
    trials.

    Parameters
    ----------
    n_candidates : int
        K >= 1.

    Returns
    -------
    int
        K + 2, or 1 for K = 1.
    """
    return n_candidates + 2 if n_candidates >= 2 else 1


def confirm_margin(noise_std, level=SWITCH_LEVEL):
    r""":math:`\Phi^{-1}(1 - a)\sqrt2\,\sigma`: the confirmation's lead (one comparison).

    Parameters
    ----------
    noise_std : float
        :math:`\sigma`, the noise of one score.
    level : float, default=0.05
        a.

    Returns
    -------
    float
        How much the challenger's fresh noisy score must exceed the reference's.
    """
    return float(norm.isf(level)) * math.sqrt(2.0) * noise_std


def switch_margin(n_candidates, noise_std, level=SWITCH_LEVEL):
    r""":math:`z\sqrt2\,\sigma`, :math:`z = \Phi^{-1}(1 - a/(K-1))` (0 for K = 1).

    Parameters
    ----------
    n_candidates : int
        K.
    noise_std : float
        :math:`\sigma`, the noise of one score.
    level : float, default=0.05
        a.

    Returns
    -------
    float
        How much a candidate's noisy score must exceed the reference's to replace it.
    """
    if n_candidates < 2:
        return 0.0
    return float(norm.isf(level / (n_candidates - 1))) * math.sqrt(2.0) * noise_std


def chosen_index(noisy_scores, margin):
    """The index kept: the best noisy score's if it beats the reference's (index 0) by
    more than ``margin``, else 0 (ties: the first; NaN never wins).

    Parameters
    ----------
    noisy_scores : sequence of float
        One per candidate, the reference first.
    margin : float
        From :func:`switch_margin`.

    Returns
    -------
    int
        The chosen candidate.
    """
    finite = [(s, j) for j, s in enumerate(noisy_scores) if not math.isnan(s)]
    if not finite:
        return 0
    best, j = max(finite, key=lambda pair: (pair[0], -pair[1]))
    reference = noisy_scores[0]
    if j == 0 or (not math.isnan(reference) and best - reference <= margin):
        return 0
    return j
