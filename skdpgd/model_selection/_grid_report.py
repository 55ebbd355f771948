"""The privacy report of DPSearchCV's default selection (every candidate once: Gaussian DP)."""

import math
from dataclasses import dataclass

from ..accounting import (
    GaussianDpEvent,
    PrivacyReport,
    UnsupportedEventError,
    format_up,
)
from ..accounting.allowance import Allowance


@dataclass(frozen=True, repr=False, kw_only=True)
class GridSelectionPrivacyReport(PrivacyReport):
    r"""The end-to-end guarantee of a :class:`DPSearchCV` that runs every candidate once.

    The preparation, the K trials and the refit compose as Gaussian DP
    (:mod:`skdpgd.model_selection._grid_selection`): the search is ``mu``-GDP up to the
    additive ``preparation_extra_delta``, and ``epsilon`` is its exact conversion at
    :math:`\delta - \delta_0`.

    Parameters
    ----------
    epsilon, delta : float
        As the attributes (the search builds the report).
    notes : tuple of str, default=()
        As the attribute.
    neighbouring_relation : str, default="replace-one"
        As the attribute.
    mu, trial_mu, refit_mu : float
        As the attributes.
    n_candidates, n_trials, n_validation : int
        As the attributes.
    score_sensitivity, score_noise_std, switch_margin, confirm_margin : float
        As the attributes.
    refit : bool
        As the attribute.
    theorem : str
        As the attribute.
    preparation_mu, preparation_extra_delta : float, default=0.0
        As the attributes.
    preparation_steps : tuple of str, default=()
        As the attribute.

    Attributes
    ----------
    epsilon, delta : float
        (epsilon, delta)-DP of everything released (chosen parameters, model, its noisy
        score), replace-one neighbours.
    mu : float
        :math:`\sqrt{\mu_p^2 + T\mu_s^2 + \mu_r^2}`, the whole search's GDP parameter.
    trial_mu, refit_mu : float
        One trial's GDP parameter (fit and noisy score), and the refit's (0 without).
    n_candidates : int
        K, the number of candidates (the reference first), each run once.
    n_trials : int
        T, the trials budgeted: K, and two for the confirmation when K >= 2 (they run
        only when a challenger passes the first round).
    n_validation : int
        m, rows in the validation part.
    score_sensitivity, score_noise_std, switch_margin, confirm_margin : float
        Delta, the noise standard deviation of a score, the lead over the reference's
        noisy score a candidate needs in the first round, and again in the
        confirmation, to replace it.
    refit : bool
    theorem : str
    preparation_mu, preparation_extra_delta : float
        A DP pipeline's private preparation released once before the trials: its GDP
        parameter and additive delta (0 without).
    preparation_steps : tuple of str
    neighbouring_relation : str
        ``"replace-one"``.
    notes : tuple of str
    """

    mu: float
    trial_mu: float
    refit_mu: float
    n_candidates: int
    n_trials: int
    n_validation: int
    score_sensitivity: float
    score_noise_std: float
    switch_margin: float
    confirm_margin: float
    refit: bool
    theorem: str
    preparation_mu: float = 0.0
    preparation_extra_delta: float = 0.0
    preparation_steps: tuple = ()

    title = "SelectionPrivacyReport"
    released = "the chosen candidate only is released"

    def selection_mu(self):
        """The trials and the refit composed, without the preparation.

        Returns
        -------
        float
            :math:`\\sqrt{T\\mu_s^2 + \\mu_r^2}`.
        """
        return math.sqrt(self.n_trials * self.trial_mu ** 2 + self.refit_mu ** 2)

    def _curve(self):
        """``Allowance(mu, preparation_extra_delta)``: the exact Gaussian-DP curve plus the
        additive delta (epsilon inf when ``delta`` is at most that delta)."""
        return Allowance(self.mu, self.preparation_extra_delta)

    @property
    def events(self):
        """The preparation (when there is one), then the trials and the refit, as events."""
        selection = GaussianDpEvent(self.selection_mu())
        if not self.preparation_steps:
            return (selection,)
        prep = Allowance(self.preparation_mu, self.preparation_extra_delta).event
        return (prep, selection)

    @property
    def event(self):
        """The whole search as one event, ``GaussianDpEvent(mu)``; without an additive
        delta only (with one, :attr:`events` are the two events the ledger composes)."""
        if self.preparation_extra_delta > 0.0:
            raise UnsupportedEventError(
                "This search's preparation has an additive delta: its release is two "
                "events (report.events), which the ledger composes.")
        return GaussianDpEvent(self.mu)

    def _guarantee(self):
        extra = (f" + additive delta {format_up(self.preparation_extra_delta)}"
                 if self.preparation_extra_delta else "")
        return f"mu={format_up(self.mu)}-GDP{extra}, "

    def _lines(self):  # under the header every report shares (PrivacyReport.__repr__)
        prep = []
        if self.preparation_steps:
            extra = (f", additive delta {self.preparation_extra_delta:.3g}"
                     if self.preparation_extra_delta else "")
            prep = [f"  preparation ({', '.join(self.preparation_steps)}): released once on "
                    f"all rows and shared by every trial, mu={self.preparation_mu:.4g}-GDP{extra}"]
        refit = (f"yes, mu={self.refit_mu:.4g}-GDP" if self.refit else "no")
        return [*prep,
                f"  trials: every candidate once ({self.n_candidates}, the reference first) "
                f"and {self.n_trials - self.n_candidates} to confirm a switch, each "
                f"mu={self.trial_mu:.4g}-GDP",
                f"  noisy score: sensitivity {self.score_sensitivity:.4g} on "
                f"{self.n_validation} validation rows, noise std {self.score_noise_std:.4g}; "
                f"the reference is kept unless beaten by {self.switch_margin:.4g}, then "
                f"again by {self.confirm_margin:.4g}",
                f"  refit on all rows: {refit}",
                f"  bound: {self.theorem}"]
