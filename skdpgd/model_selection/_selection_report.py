"""The end-to-end privacy report of a :class:`~skdpgd.model_selection.DPSearchCV` fit."""

from dataclasses import dataclass

import numpy as np

from ..accounting import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    PrivacyReport,
    RenyiDpEvent,
    UnsupportedEventError,
    gdp_to_rdp,
    rdp_to_epsilon,
)
from ..accounting.allowance import EpsilonCurve


@dataclass(frozen=True, repr=False, kw_only=True)
class SelectionPrivacyReport(PrivacyReport):
    r"""The end-to-end guarantee of a :class:`DPSearchCV` fit.

    Parameters
    ----------
    epsilon, delta : float
        As the attributes (the search builds the report).
    notes : tuple of str, default=()
        As the attribute.
    neighbouring_relation : str, default="replace-one"
        As the attribute.
    trial_mu, score_sensitivity, score_noise_std : float
        As the attributes.
    n_validation : int
        As the attribute.
    eta, gamma, expected_trials : float
        As the attributes.
    refit : bool
        As the attribute.
    theorem : str
        As the attribute.
    orders, rdp : tuple of float
        As the attributes.
    preparation_mu, preparation_extra_delta : float, default=0.0
        As the attributes.
    preparation_steps : tuple of str, default=()
        As the attribute.

    Attributes
    ----------
    epsilon, delta : float
        (epsilon, delta)-DP of everything released (best parameters, model, noisy score,
        and the refit if any), replace-one neighbours.
    trial_mu : float
        GDP parameter of one trial (each candidate fit, each noisy score, and the refit).
    score_sensitivity, score_noise_std : float
        Delta and the noise standard deviation of the validation score.
    n_validation : int
        m, rows in the validation part.
    eta, gamma, expected_trials : float
        The distribution of the number of trials K (K itself is not released).
    refit : bool
    theorem : str
    orders, rdp : tuple of float
        The selection's Renyi-DP curve (trials, selection, refit).
    preparation_mu, preparation_extra_delta : float
        A DP pipeline's private preparation, released once on all rows before the
        trials and shared by them: its GDP parameter and additive delta (0 without).
        ``epsilon`` composes it with the selection: the curve
        :math:`\mathrm{rdp}(\alpha) + \alpha\mu_p^2/2` converted at
        :math:`\delta - \delta_0` (:doc:`/budgets`, "A private search on a raw table").
    preparation_steps : tuple of str
        The steps released once.
    neighbouring_relation : str
        ``"replace-one"``.
    notes : tuple of str
        Anything else the user should know.
    """

    trial_mu: float
    score_sensitivity: float
    score_noise_std: float
    n_validation: int
    eta: float
    gamma: float
    expected_trials: float
    refit: bool
    theorem: str
    orders: tuple
    rdp: tuple
    preparation_mu: float = 0.0
    preparation_extra_delta: float = 0.0
    preparation_steps: tuple = ()

    def total_rdp(self):
        r"""The Renyi-DP curve of everything but the additive delta.

        Returns
        -------
        ndarray
            :math:`\mathrm{rdp}(\alpha) + \alpha\mu_p^2/2` at each order.
        """
        orders = np.asarray(self.orders)
        return np.asarray(self.rdp) + gdp_to_rdp(orders, self.preparation_mu)

    def _curve(self):
        r"""The total Renyi-DP curve converted by ``rdp_to_epsilon`` at
        :math:`\delta - \delta_0` (inf when ``delta`` is at most the additive delta)."""
        return EpsilonCurve(self._rdp_epsilon_at)

    def _rdp_epsilon_at(self, delta):
        if delta <= self.preparation_extra_delta:
            return np.inf
        return rdp_to_epsilon(np.asarray(self.orders), self.total_rdp(),
                              delta - self.preparation_extra_delta)

    @property
    def events(self):
        """What the search released, as the privacy events the ledger is charged.

        The preparation (when there is one: ``GaussianDpWithDeltaEvent`` with its additive
        delta, or ``GaussianDpEvent``), then the selection's Renyi-DP curve.
        """
        selection = RenyiDpEvent(self.orders, self.rdp, self.neighbouring_relation)
        if not self.preparation_steps:
            return (selection,)
        if self.preparation_extra_delta > 0.0:
            prep = GaussianDpWithDeltaEvent(self.preparation_mu, self.preparation_extra_delta)
        else:
            prep = GaussianDpEvent(self.preparation_mu)
        return (prep, selection)

    @property
    def event(self):
        """What the search released as one privacy event: its total Renyi-DP curve.

        Without an additive delta only (a preparation that thresholds has two events:
        :attr:`events`).
        """
        if self.preparation_extra_delta > 0.0:
            raise UnsupportedEventError(
                "This search's preparation has an additive delta: its release is two "
                "events (report.events), which the ledger composes.")
        return RenyiDpEvent(self.orders, tuple(float(e) for e in self.total_rdp()),
                            self.neighbouring_relation)

    title = "SelectionPrivacyReport"
    released = "the best trial only is released"

    def _lines(self):  # under the header every report shares (PrivacyReport.__repr__)
        ek = f"{self.expected_trials:.3g}"
        prep = []
        if self.preparation_steps:
            extra = (f", additive delta {self.preparation_extra_delta:.3g}"
                     if self.preparation_extra_delta else "")
            prep = [(f"  preparation ({', '.join(self.preparation_steps)}): released once on "
                     f"all rows and shared by every trial, mu={self.preparation_mu:.4g}-GDP"
                     f"{extra}; composed with the selection in Renyi DP")]
        return [*prep,
            f"  trials: K random (eta={self.eta:.3g}, gamma={self.gamma:.4g}, E[K]={ek}), never "
            f"released; each trial mu={self.trial_mu:.4g}-GDP",
            f"  noisy score: sensitivity {self.score_sensitivity:.4g} on "
            f"{self.n_validation} validation rows, noise std {self.score_noise_std:.4g}",
            f"  refit on all rows: {'yes (one more trial-sized run)' if self.refit else 'no'}",
            f"  bound: {self.theorem}; Renyi curve on {len(self.orders)} orders "
            f"({self.orders[0]:g} to {self.orders[-1]:g}) converted by rdp_to_epsilon",
        ]
