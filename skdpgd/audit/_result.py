r"""What an audit measured, and the mu-GDP trade-off curve it is compared with.

:class:`AuditResult` holds the lower bound of :func:`skdpgd.audit.audit_epsilon`, the
estimator's own claim and every trial's score; :func:`gdp_tradeoff` is the trade-off
curve of mu-GDP (Dong, Roth and Su 2022, Definition 2.7), against which
:meth:`AuditResult.plot` draws the empirical one.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from ._bounds import ThresholdTest
from ._canaries import Canary

__all__ = ["AuditResult", "gdp_tradeoff"]


def gdp_tradeoff(alpha, mu):
    r"""The mu-GDP trade-off curve :math:`T_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`.

    The smallest type-II error of any test with type-I error alpha between N(0, 1) and
    N(mu, 1) (Dong, Roth, Su 2022, Definition 2.7); a mu-GDP mechanism has every test's
    (type I, type II) pair on or above it.

    Parameters
    ----------
    alpha : float or array-like of float
        Type-I errors, in [0, 1].
    mu : float
        The GDP parameter, >= 0.

    Returns
    -------
    beta : ndarray of float
        :math:`T_\mu(\alpha)` for every alpha, of alpha's shape (a 0-d array for a
        scalar alpha): 1 - alpha when mu = 0, decreasing in mu.
    """
    alpha = np.asarray(alpha, dtype=float)
    return norm.cdf(norm.isf(alpha) - float(mu))


@dataclass(frozen=True, eq=False)
class AuditResult:
    """What :func:`audit_epsilon` measured.

    Attributes
    ----------
    epsilon_lower_bound : float
        Clopper-Pearson lower bound on epsilon at ``delta``: exceeds the estimator's true
        epsilon with probability at most 1 - ``confidence``.
    epsilon_claimed, delta : float
        The estimator's own claim (``privacy_.epsilon`` at ``privacy_.delta``).
    mu_claimed : float or None
        ``privacy_.mu`` when the estimator reports one (for the trade-off plot).
    confidence : float
    n_trials : int
        Fits on each of D and D' (2 * n_trials in all).
    test : ThresholdTest
        The threshold test chosen on the selection trials and its evaluation counts.
    scores_without_canary, scores_with_canary : ndarray of shape (n_trials,)
        The statistic of every released model, in trial order.
    canary : Canary
        The neighbouring pair.
    statistic : str
        Name of the statistic.
    """

    epsilon_lower_bound: float
    epsilon_claimed: float
    delta: float
    mu_claimed: float | None
    confidence: float
    n_trials: int
    test: ThresholdTest
    scores_without_canary: np.ndarray
    scores_with_canary: np.ndarray
    canary: Canary
    statistic: str

    @property
    def passed(self):
        """True when the lower bound does not exceed the claimed epsilon."""
        return self.epsilon_lower_bound <= self.epsilon_claimed

    def tradeoff_curve(self):
        """Empirical (type I, type II) errors of "reject when score > t" over all trials.

        A description of all the trials, not a bound (no confidence interval): compare it
        with :func:`gdp_tradeoff` at ``mu_claimed``. Type I is the fraction of runs on D
        scoring above t, type II the fraction of runs on D' scoring at most t.

        Returns
        -------
        type1 : ndarray of float
            The type-I error at every threshold t: -inf, then each distinct score of
            either sample in increasing order (so it starts at 1 and ends at 0).
        type2 : ndarray of float
            The type-II error at the same thresholds (starts at 0, ends at 1).
        """
        s0, s1 = np.sort(self.scores_without_canary), np.sort(self.scores_with_canary)
        t = np.concatenate([[-np.inf], np.unique(np.concatenate([s0, s1]))])
        type1 = 1.0 - np.searchsorted(s0, t, side="right") / s0.size
        type2 = np.searchsorted(s1, t, side="right") / s1.size
        return type1, type2

    def plot(self, ax=None):
        """Plot the empirical trade-off curve against the claimed mu-GDP curve.

        Draws :meth:`tradeoff_curve` as a step curve, :func:`gdp_tradeoff` at
        ``mu_claimed`` when it is finite, and the diagonal of no privacy loss. Needs
        matplotlib (``pip install matplotlib``, or the ``plot`` extra).

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
            Where to draw; None makes a new 4.5 x 4.5 inch figure.

        Returns
        -------
        ax : matplotlib Axes
            The Axes drawn on, with axis labels, a title giving the bound and the claim,
            and a legend.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # optional dependency
            raise ImportError(
                "AuditResult.plot needs matplotlib: pip install matplotlib (or skdpgd[plot])"
            ) from exc
        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 4.5))
        type1, type2 = self.tradeoff_curve()
        ax.step(type1, type2, where="post", label="empirical (all trials)")
        if self.mu_claimed is not None and math.isfinite(self.mu_claimed):
            grid = np.linspace(0.0, 1.0, 501)
            ax.plot(
                grid,
                gdp_tradeoff(grid, self.mu_claimed),
                "--",
                label=f"claimed {self.mu_claimed:.3g}-GDP",
            )
        ax.plot([0, 1], [1, 0], ":", color="grey", label="no privacy loss")
        ax.set_xlabel("type I error (runs on D flagged)")
        ax.set_ylabel("type II error (runs on D' missed)")
        ax.set_title(
            f"eps >= {self.epsilon_lower_bound:.3g} (claimed {self.epsilon_claimed:.3g}), "
            f"{self.n_trials} trials"
        )
        ax.legend(loc="upper right", fontsize="small")
        return ax

    def __repr__(self):
        verdict = "passed" if self.passed else "FAILED: lower bound above the claim"
        return (
            f"AuditResult(epsilon >= {self.epsilon_lower_bound:.4g} at delta={self.delta:.3g} "
            f"with confidence {self.confidence:g}; claimed {self.epsilon_claimed:.4g}; "
            f"{self.n_trials} trials per data set; {self.canary.kind} canary; {verdict})"
        )
