r"""The one privacy report of a fit with ``inference=True``: the run and two matrices.

:math:`\mu^2 = \mu_{\mathrm{run}}^2 + \mu_M^2 + \mu_Q^2` (Dong, Roth and Su 2022,
Corollary 3.3: the Hessian and the score covariance are Gaussian mechanisms evaluated at
the released estimate, adaptively composed with the run that released it), with
:math:`\mu_M = S_M/(n\tau_M)`, :math:`\mu_Q = S_Q/(n\tau_Q)` (Theorem 2.7). The ledger
charges this one mu, once, before any value of the data is read.
"""

import math
from dataclasses import dataclass

from ..accounting._format import format_near, format_up
from ..accounting._report import GaussianRunPrivacyReport, epsilon_of
from ._budget import release_noise_std

__all__ = ["InferencePrivacyReport", "inference_report"]

THEOREM = (
    "Dong, Roth, Su (JRSS B 2022), Theorem 2.7 (the Hessian and score-covariance "
    "releases) and Corollary 3.3 (adaptive composition with the run)"
)


@dataclass(frozen=True, repr=False, kw_only=True)
class InferencePrivacyReport(GaussianRunPrivacyReport):
    """The report of a fit with private inference: its run's report plus two releases.

    The run's fields (``noise_std``, ``n_steps``, ...) are those of ``run``; ``mu``,
    ``epsilon`` and ``event`` cover everything released.

    Attributes
    ----------
    run : GaussianRunPrivacyReport
        The report of the solver's run alone (planned at the fit's share of the budget).
    hessian_noise_std, score_noise_std : float
        tau_M and tau_Q, the noise std of each upper-triangle entry of the averaged
        matrices.
    hessian_sensitivity, score_sensitivity : float
        S_M and S_Q (of the sums; docs/theory.md, "Private inference for the coefficients").
    hessian_mu, score_mu : float
        The mu of each matrix release.
    inference_share : float
        s, the public share of mu^2 planned for the two matrices.
    """

    run: GaussianRunPrivacyReport
    hessian_noise_std: float
    score_noise_std: float
    hessian_sensitivity: float
    score_sensitivity: float
    hessian_mu: float
    score_mu: float
    inference_share: float

    released = "last iterate, its private Hessian and score covariance"

    @property
    def batch_size(self):
        """The run's batch size (None for full batches)."""
        return getattr(self.run, "batch_size", None)

    def _lines(self):
        return [
            f"  run: {type(self.run).__name__}, mu_run={format_up(self.run.mu)} "
            f"({self.run.theorem}; binding: {self.run.binding_bound})",
            f"  inference: Hessian tau={format_near(self.hessian_noise_std)}, "
            f"mu_H={format_up(self.hessian_mu)}; score covariance "
            f"tau={format_near(self.score_noise_std)}, mu_Q={format_up(self.score_mu)} "
            f"(share {self.inference_share:g} of mu^2; {THEOREM})",
        ]


def inference_report(run, *, delta, hessian_sensitivity, score_sensitivity, hessian_mu,
                     score_mu, share, notes=()):
    """Build the :class:`InferencePrivacyReport` of a run and the two matrix releases.

    The noise of each matrix is :math:`\\tau = S/(n\\mu_i)`; the report's mu is the exact
    composition of the run's mu and the two releases' mus.
    """
    n = run.n_samples
    tau_m = release_noise_std(hessian_sensitivity, n, hessian_mu)
    tau_q = release_noise_std(score_sensitivity, n, score_mu)
    mu = math.sqrt(run.mu**2 + hessian_mu**2 + score_mu**2)
    return InferencePrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu,
        notes=tuple(notes) + tuple(run.notes),
        accountant="inference", theorem=f"{run.theorem}; {THEOREM}",
        binding_bound=run.binding_bound, noise_std=run.noise_std, n_steps=run.n_steps,
        learning_rate=run.learning_rate, strong_convexity=run.strong_convexity,
        smoothness=run.smoothness, sensitivity=run.sensitivity, n_samples=n, run=run,
        hessian_noise_std=tau_m, score_noise_std=tau_q,
        hessian_sensitivity=float(hessian_sensitivity),
        score_sensitivity=float(score_sensitivity), hessian_mu=float(hessian_mu),
        score_mu=float(score_mu), inference_share=float(share),
    )
