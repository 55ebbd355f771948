r"""The one privacy report of a fit with ``inference=True``: the run and three releases.

:math:`\mu^2 = \mu_{\mathrm{run}}^2 + \mu_g^2 + \mu_M^2 + \mu_Q^2` (Dong, Roth and Su
2022, Corollary 3.3: the gradient, the Hessian and the score covariance are Gaussian
mechanisms evaluated at the released estimate, adaptively composed with the run that
released it), with :math:`\mu_g = S/(n\sigma_g)`, :math:`\mu_M = S_M/(n\tau_M)`,
:math:`\mu_Q = S_Q/(n\tau_Q)` (Theorem 2.7). The ledger charges this one mu, once,
before any value of the data is read.

The gradient's share carries a reserve (:func:`~skdpgd.inference._budget.hessian_reserve`):
where the first Hessian release shows :math:`\rho > 1/2` (a post-processing of it), the
reserve's :math:`\mu_r` goes to a second Hessian release and the gradient is released at
:math:`\mu_{g0} = \sqrt{\mu_g^2 - \mu_r^2}`; otherwise the gradient gets all of
:math:`\mu_g`. Either way what follows the first Hessian is a :math:`\mu_g`-GDP mechanism
(two Gaussian mechanisms of :math:`\mu_r^2 + \mu_{g0}^2 = \mu_g^2` compose to
:math:`G_{\mu_g}`, Corollary 3.3), chosen from earlier outputs: adaptive composition,
the same mu. For the logistic loss a fixed fraction 0.02 of :math:`\mu_g^2` (out of the
gradient's release) releases the Newton step's second-order term
(:func:`~skdpgd.inference._releases.curvature_drift_at`): the squares still sum to
:math:`\mu_g^2`.
"""

import math
from dataclasses import dataclass

from ..accounting import (
    GaussianDpEvent,
    GaussianRunPrivacyReport,
    epsilon_of,
    format_near,
    format_up,
    get_accountant,
)
from ._budget import hessian_reserve, release_noise_std

__all__ = ["InferencePrivacyReport", "inference_report"]

THEOREM = (
    "Dong, Roth, Su (JRSS B 2022), Theorem 2.7 (the gradient, Hessian and score-covariance "
    "releases) and Corollary 3.3 (adaptive composition with the run)"
)


@dataclass(frozen=True, repr=False, kw_only=True)
class InferencePrivacyReport(GaussianRunPrivacyReport):
    """The report of a fit with private inference: its run's report plus three releases.

    The run's fields (``noise_std``, ``n_steps``, ...) are those of ``run``; ``mu``,
    ``epsilon`` and ``event`` cover everything released.

    Attributes
    ----------
    run : GaussianRunPrivacyReport
        The report of the solver's run alone (planned at its share of the budget).
    gradient_noise_std : float
        sigma_g, the noise std of each coordinate of the released averaged gradient.
    hessian_noise_std, score_noise_std : float
        tau_M and tau_Q, the noise std of each upper-triangle entry of the averaged
        matrices.
    gradient_sensitivity, hessian_sensitivity, score_sensitivity : float
        S, S_M and S_Q (of the sums; :ref:`private-inference`).
    gradient_mu, hessian_mu, score_mu : float
        The mu of each release.
    inference_shares : tuple of float
        The public shares of mu^2 (run, gradient, Hessian, score covariance).
    reserve_mu : float
        mu_r, the part of mu_g a second Hessian release takes where the first shows
        rho > 1/2 (0: no reserve).
    reserve_hessian_noise_std, reserve_gradient_noise_std : float
        The second Hessian's tau and the gradient's sigma at mu_g0 in that case.
    correction_mu : float
        mu_c, the part of mu_g that releases the Newton step's second-order term (logistic
        loss; 0: none). ``gradient_noise_std`` and ``reserve_gradient_noise_std`` are then
        at sqrt(mu_g^2 - mu_c^2) and sqrt(mu_g^2 - mu_r^2 - mu_c^2).
    correction_sensitivity : float
        2 c_3 Rt^3: the replace-one sensitivity of that sum per unit lambda_max(W).
    """

    run: GaussianRunPrivacyReport
    gradient_noise_std: float
    hessian_noise_std: float
    score_noise_std: float
    gradient_sensitivity: float
    hessian_sensitivity: float
    score_sensitivity: float
    gradient_mu: float
    hessian_mu: float
    score_mu: float
    inference_shares: tuple
    reserve_mu: float = 0.0
    reserve_hessian_noise_std: float = 0.0
    reserve_gradient_noise_std: float = 0.0
    correction_mu: float = 0.0
    correction_sensitivity: float = 0.0

    title = "InferencePrivacyReport"
    released = "last iterate, then its private gradient, Hessian and score covariance"

    @property
    def batch_size(self):
        """The run's batch size (None for full batches)."""
        return getattr(self.run, "batch_size", None)

    def _lines(self):
        shares = ", ".join(f"{s:g}" for s in self.inference_shares)
        return [
            (f"  run: {type(self.run).__name__}, mu_run={format_up(self.run.mu)} "
             f"({self.run.theorem}; binding: {self.run.binding_bound})"),
            (f"  inference: gradient sigma={format_near(self.gradient_noise_std)}, "
             f"mu_g={format_up(self.gradient_mu)}; Hessian "
             f"tau={format_near(self.hessian_noise_std)}, mu_H={format_up(self.hessian_mu)}; "
             f"score covariance tau={format_near(self.score_noise_std)}, "
             f"mu_Q={format_up(self.score_mu)}"),
            f"  shares of mu^2 (run, gradient, Hessian, score): {shares}; {THEOREM}",
        ] + ([
            (f"  reserve: where the first Hessian shows rho > 1/2, "
             f"mu_r={format_up(self.reserve_mu)} of mu_g goes to a second Hessian "
             f"(tau={format_near(self.reserve_hessian_noise_std)}) and the gradient gets "
             f"sigma={format_near(self.reserve_gradient_noise_std)}"),
        ] if self.reserve_mu > 0.0 else []) + ([
            (f"  step correction: mu_c={format_up(self.correction_mu)} of mu_g releases the "
             "Newton step's second-order term (sensitivity "
             f"{format_near(self.correction_sensitivity)} times the largest eigenvalue of "
             "the run's error moment)"),
        ] if self.correction_mu > 0.0 else [])


def inference_report(run, *, delta, sensitivities, mus, shares, notes=(), correction=(0.0, 0.0)):
    """Build the :class:`InferencePrivacyReport` of a run and the three releases.

    ``sensitivities`` and ``mus`` are (gradient, Hessian, score covariance); each
    release's noise is :math:`S/(n\\mu_i)`, and the report's mu is the exact composition
    of the run's event with the three Gaussian events by the registry's ``"gdp"``
    accountant (:mod:`skdpgd.accounting`).

    Parameters
    ----------
    run : GaussianRunPrivacyReport
        The run's report.
    delta : float
        The fit's delta.
    sensitivities, mus : tuple of 3 floats
        Of the gradient, the Hessian and the score covariance.
    shares : tuple of 4 floats
        The public shares of mu^2.
    notes : tuple of str, default=()
        Lines for the report's notes.
    correction : (float, float), default=(0, 0)
        The fraction of mu_g^2 the step's correction takes (0: none) and its
        sensitivity per unit lambda_max(W), 2 c_3 Rt^3
        (:func:`~skdpgd.inference._releases.curvature_drift_at`).

    Returns
    -------
    InferencePrivacyReport
        The one report of the fit.
    """
    n = run.n_samples
    fraction = float(correction[0])  # of mu_g^2, out of the gradient's release
    noise = [release_noise_std(s, n, m) for s, m in
             zip(sensitivities, (mus[0] * math.sqrt(1.0 - fraction), *mus[1:]), strict=True)]
    reserve = hessian_reserve(shares) / float(shares[1])  # of mu_g^2
    reserve_mu = float(mus[0]) * math.sqrt(reserve)
    rest_mu = float(mus[0]) * math.sqrt(1.0 - reserve - fraction)
    events = [run.event, *(GaussianDpEvent(m) for m in mus)]
    mu = get_accountant("gdp").compose(events).mu
    return InferencePrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu,
        notes=tuple(notes) + tuple(run.notes),
        accountant="inference", theorem=f"{run.theorem}; {THEOREM}",
        binding_bound=run.binding_bound, noise_std=run.noise_std, n_steps=run.n_steps,
        learning_rate=run.learning_rate, strong_convexity=run.strong_convexity,
        smoothness=run.smoothness, sensitivity=run.sensitivity, n_samples=n, run=run,
        gradient_noise_std=noise[0], hessian_noise_std=noise[1], score_noise_std=noise[2],
        gradient_sensitivity=float(sensitivities[0]),
        hessian_sensitivity=float(sensitivities[1]), score_sensitivity=float(sensitivities[2]),
        gradient_mu=float(mus[0]), hessian_mu=float(mus[1]), score_mu=float(mus[2]),
        inference_shares=tuple(shares), reserve_mu=reserve_mu if reserve > 0.0 else 0.0,
        reserve_hessian_noise_std=(release_noise_std(sensitivities[1], n, reserve_mu)
                                   if reserve > 0.0 else 0.0),
        reserve_gradient_noise_std=(release_noise_std(sensitivities[0], n, rest_mu)
                                    if reserve > 0.0 else 0.0),
        correction_mu=float(mus[0]) * math.sqrt(fraction),
        correction_sensitivity=float(correction[1]) if fraction > 0.0 else 0.0,
    )
