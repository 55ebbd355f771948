"""The end-to-end privacy report of a :class:`~skdpgd.model_selection.DPSearchCV` fit."""

from dataclasses import dataclass

import numpy as np

from ..accounting import PrivacyReport, rdp_to_epsilon
from ..accounting._events import RenyiDpEvent


@dataclass(frozen=True, repr=False, kw_only=True)
class SelectionPrivacyReport(PrivacyReport):
    """The end-to-end guarantee of a :class:`DPSearchCV` fit.

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
        The total Renyi-DP curve the epsilon comes from.
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

    def epsilon_at(self, delta):
        """The same release at another delta (RDP conversion).

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        float
            epsilon at ``delta``.
        """
        return rdp_to_epsilon(np.asarray(self.orders), np.asarray(self.rdp), delta)

    @property
    def event(self):
        """What the search released, as a privacy event: its total Renyi-DP curve."""
        return RenyiDpEvent(self.orders, self.rdp, self.neighbouring_relation)

    title = "SelectionPrivacyReport"
    released = "the best trial only is released"

    def _lines(self):  # under the header every report shares (PrivacyReport.__repr__)
        ek = f"{self.expected_trials:.3g}"
        return [
            f"  trials: K random (eta={self.eta:.3g}, gamma={self.gamma:.4g}, E[K]={ek}), never "
            f"released; each trial mu={self.trial_mu:.4g}-GDP",
            f"  noisy score: sensitivity {self.score_sensitivity:.4g} on "
            f"{self.n_validation} validation rows, noise std {self.score_noise_std:.4g}",
            f"  refit on all rows: {'yes (one more trial-sized run)' if self.refit else 'no'}",
            f"  bound: {self.theorem}; Renyi curve on {len(self.orders)} orders "
            f"({self.orders[0]:g} to {self.orders[-1]:g}) converted by rdp_to_epsilon",
        ]
