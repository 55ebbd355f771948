"""The public plan of one DPSearchCV fit: its candidates, budgets, report and choice rule.

Two selections share :class:`DPSearchCV`'s split, trials and refit
(:mod:`._dpsearch`); they differ in which candidates run, how the budget is split and
how the released one is chosen:

* **every candidate once** (the default, ``expected_trials=None``:
  :mod:`._grid_selection`): K = the number of candidates, the reference first;
  Gaussian-DP composition; the reference is kept unless beaten by a margin, twice (the
  second time in two fresh trials); the winner is refitted on all rows with most of the
  budget;
* **a random number of trials** (``expected_trials=E[K]``: Papernot and Steinke,
  :mod:`._tuning_privacy`): K ~ D_{eta, gamma} uniform draws from the grid; Renyi-DP
  bound; the best noisy score is kept (:func:`._selection_rule.better`); the optional
  refit is one more trial-sized run.

Everything here reads public numbers only (the budget, n, m, the grid, the plan of the
shared preparation); nothing reads a value of the data.
"""

import dataclasses
import math
from dataclasses import dataclass

from ..accounting import DEFAULT_ORDERS, rdp_to_epsilon
from ._grid_report import GridSelectionPrivacyReport
from ._grid_selection import (
    THEOREM as GRID_THEOREM,
)
from ._grid_selection import (
    budgeted_trials,
    chosen_index,
    confirm_margin,
    grid_budget,
    grid_candidates,
    selection_share,
    switch_margin,
)
from ._selection_budget import calibrate_trial_mu, selection_rdp
from ._selection_report import SelectionPrivacyReport
from ._selection_rule import better
from ._tuning_privacy import THEOREM, gamma_for_expected_trials, sample_trials


@dataclass(frozen=True)
class SearchPlan:
    """What one search runs, decided before the ledger charge.

    Attributes
    ----------
    candidates : list of dict
        The points trials draw from (random) or run in order (every candidate once).
    trial_mu, refit_mu : float
        GDP parameters of one trial and of the refit (0: no refit).
    preparation_scale : float
        The mu a shared preparation's allowance is scaled from
        (:meth:`._shared_preparation.SharedPreparation.allowance`).
    noise_std : float
        The noise standard deviation of one validation score.
    report : PrivacyReport
        The search's end-to-end report.
    selection_report : PrivacyReport
        What the ledger is charged after the shared preparation (the whole report
        without a preparation).
    eta, gamma : float or None
        K's distribution (random trials only).
    margin, confirm_margin : float
        The reference's protection in the first round and in the confirmation (every
        candidate once; 0 and None otherwise).
    direct : bool
        No search can pay (:mod:`._no_search`): no trial runs, the search is one fit of
        the estimator; ``trial_mu`` is then what a trial would have had (its candidates
        are checked at it all the same), ``refit_mu`` the estimator's whole mu, and
        ``report`` the one fit's planned report.
    """

    candidates: list
    trial_mu: float
    refit_mu: float
    preparation_scale: float
    noise_std: float
    report: object
    selection_report: object
    eta: float = None
    gamma: float = None
    margin: float = 0.0
    confirm_margin: float = None
    direct: bool = False

    @property
    def random(self):
        """Whether the number of trials is random (Papernot and Steinke)."""
        return self.gamma is not None

    def trial_order(self, rng):
        """The candidate index of each trial: K uniform draws (random), or 0..K-1.

        A random K is drawn here and never stored; each draw of a candidate comes from
        ``rng`` as the trial starts (:meth:`draw`).
        """
        if self.random:
            return [None] * sample_trials(rng, self.eta, self.gamma)
        return list(range(len(self.candidates)))

    def draw(self, rng, index):
        """The trial's candidate index (``index`` None: a uniform draw from ``rng``)."""
        return int(rng.integers(len(self.candidates))) if index is None else index

    def choose(self, noisy_scores):
        """The position of the released trial among ``noisy_scores`` (in trial order)."""
        if not self.random:
            return chosen_index(noisy_scores, self.margin)
        best = None
        for position, noisy in enumerate(noisy_scores):
            if better(noisy, best):
                best = (noisy, position)
        return best[1]

    def select(self, run_trial, trials, rng):
        """Run the trials and return the released one, ``(noisy score, params, model)``.

        ``run_trial(params)`` fits and scores one candidate; ``trials`` is
        :meth:`trial_order`'s list. Every candidate once: a challenger that passes the
        first round replaces the reference only if it beats it again in two fresh trials
        (:mod:`._grid_selection`, step 4).
        """
        results = [run_trial(self.candidates[self.draw(rng, index)]) for index in trials]
        chosen = self.choose([noisy for noisy, _, _ in results])
        if self.random or chosen == 0:
            return results[chosen]
        reference, challenger = run_trial(results[0][1]), run_trial(results[chosen][1])
        if math.isnan(challenger[0]) or not (
                math.isnan(reference[0]) or challenger[0] - reference[0] > self.confirm_margin):
            return results[0]
        return results[chosen]


def _preparation_fields(shared, scale):
    if shared is None:
        return {}
    return dict(preparation_mu=shared.ratio * scale,
                preparation_extra_delta=float(shared.extra_delta),
                preparation_steps=shared.names)


def random_trials_plan(search, grid, epsilon, delta, m, refit, shared, sensitivity):
    """The plan of a random number of trials (``search.expected_trials`` = E[K])."""
    eta = float(search.eta)
    gamma = gamma_for_expected_trials(search.expected_trials, eta)
    ratio, extra = (0.0, 0.0) if shared is None else (shared.ratio, shared.extra_delta)
    mu = calibrate_trial_mu(epsilon, delta - extra, eta=eta, gamma=gamma, refit=refit,
                            preparation_ratio=ratio)
    orders = DEFAULT_ORDERS
    rdp = selection_rdp(orders, mu, eta=eta, gamma=gamma, refit=refit)
    report = SelectionPrivacyReport(
        epsilon=0.0, delta=float(delta), trial_mu=float(mu),
        score_sensitivity=float(sensitivity), score_noise_std=float(sensitivity / mu),
        n_validation=int(m), eta=eta, gamma=float(gamma),
        expected_trials=float(search.expected_trials), refit=refit, theorem=THEOREM,
        orders=tuple(float(a) for a in orders), rdp=tuple(float(e) for e in rdp),
        **_preparation_fields(shared, mu))
    report = dataclasses.replace(report, epsilon=float(report.epsilon_at(delta)))
    selection = dataclasses.replace(  # the selection alone: its Renyi curve
        report, epsilon=float(rdp_to_epsilon(orders, rdp, delta)), preparation_mu=0.0,
        preparation_extra_delta=0.0, preparation_steps=())
    return SearchPlan(candidates=grid, trial_mu=mu, refit_mu=mu if refit else 0.0,
                      preparation_scale=mu, noise_std=sensitivity / mu, report=report,
                      selection_report=selection, eta=eta, gamma=gamma)


def every_candidate_plan(search, grid, epsilon, delta, m, refit, shared, sensitivity, scale):
    """The plan of every candidate once, the reference first (:mod:`._grid_selection`);
    ``scale`` is the score's (:func:`._selection_rule.score_scale`)."""
    candidates = grid_candidates(search.estimator, grid)
    n_trials = budgeted_trials(len(candidates))  # K, and two to confirm a switch
    split = {} if shared is None else dict(  # the pipeline's own split
        needs_extra_delta=shared.needs_extra_delta,
        preparation_share=float(search.estimator.preparation_share))
    budget = grid_budget(epsilon, delta, n_trials, refit=refit, **split)
    if refit:  # the trials' share: the smallest that resolves r_0, or none (no search)
        share = selection_share(len(candidates), budget.estimator_mu, sensitivity, scale)
        if share == 0.0:
            return SearchPlan(candidates=candidates, trial_mu=budget.trial_mu,
                              refit_mu=budget.estimator_mu,
                              preparation_scale=budget.estimator_mu, noise_std=math.nan,
                              report=None, selection_report=None, direct=True)
        budget = grid_budget(epsilon, delta, n_trials, refit=refit, share=share, **split)
    noise_std = sensitivity / budget.trial_mu
    margin = switch_margin(len(candidates), noise_std)
    confirm = confirm_margin(noise_std)
    # the preparation's allowance is c times its scale, c = sqrt(rho / (1 - rho)): scaled
    # from the estimator's mu it is sqrt(rho) mu, what one pipeline fit gives it
    fields = _preparation_fields(shared, budget.estimator_mu)
    mu_p = fields.get("preparation_mu", 0.0)
    total = math.sqrt(mu_p ** 2 + budget.selection_mu() ** 2)
    report = GridSelectionPrivacyReport(
        epsilon=0.0, delta=float(delta), mu=total, trial_mu=budget.trial_mu,
        refit_mu=budget.refit_mu, n_candidates=len(candidates), n_trials=budget.n_trials,
        n_validation=int(m), score_sensitivity=float(sensitivity),
        score_noise_std=float(noise_std), switch_margin=margin, confirm_margin=confirm,
        refit=refit, theorem=GRID_THEOREM, **fields)
    report = dataclasses.replace(report, epsilon=float(report.epsilon_at(delta)))
    selection = dataclasses.replace(
        report, mu=budget.selection_mu(), preparation_mu=0.0, preparation_extra_delta=0.0,
        preparation_steps=())
    selection = dataclasses.replace(selection, epsilon=float(selection.epsilon_at(delta)))
    return SearchPlan(candidates=candidates, trial_mu=budget.trial_mu,
                      refit_mu=budget.refit_mu, preparation_scale=budget.estimator_mu,
                      noise_std=noise_std, report=report, selection_report=selection,
                      margin=margin, confirm_margin=confirm)
