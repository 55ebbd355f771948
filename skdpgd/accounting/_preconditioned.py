r"""Accounting and planning of Gram-preconditioned noisy gradient descent.

The run (:func:`skdpgd.optim._preconditioned.preconditioned_noisy_gradient_descent`) releases two
things about the data, in this order:

1. once, the Gram matrix :math:`\tilde G = \frac1n\sum_i \tilde x_i\tilde x_i^\top + E` with
   i.i.d. :math:`\mathcal N(0, \tau^2)` noise on its upper triangle
   (:func:`skdpgd._data._gram.release_gram`): a Gaussian mechanism with replace-one sensitivity
   :math:`S_G/n`, :math:`S_G = \sqrt2\,\tilde R^2` (:func:`skdpgd._data._gram.gram_sensitivity`,
   proof there), hence :math:`\mu_G = S_G/(n\tau)`-GDP;
2. K noisy averaged gradients :math:`g_k + \sigma Z_k`, each a Gaussian mechanism with
   replace-one sensitivity S/n (S the loss's per-example sensitivity), hence
   :math:`S/(n\sigma)`-GDP, chosen adaptively (the point at which step k evaluates the
   gradient depends on the earlier releases).

Every iterate, and the last one, is a post-processing of these releases (the step size,
the preconditioner built from :math:`\tilde G` and the number of steps are public or
released), so by adaptive composition of Gaussian DP (Dong, Roth, Su 2022, Corollary 3.3,
which holds for adaptively chosen mechanisms) the released model is :math:`\mu`-GDP with

.. math::

    \mu^2 = \mu_G^2 + K\Big(\frac{S}{n\sigma}\Big)^2 .

This is the composition bound: it needs no convexity, smoothness or step-size condition,
and it also covers releasing every iterate. The convergent bounds of Bok, Su and
Altschuler (2024) do not apply to a preconditioned step and are not claimed.

Calibration splits a target :math:`\mu^*` (= ``epsilon_delta_to_gdp(epsilon, delta)``) as
:math:`\mu_G^2 = s\,\mu^{*2}` and :math:`K (S/(n\sigma))^2 = (1-s)\,\mu^{*2}` for a public share
s in (0, 1). The solver's planner (``skdpgd.solvers._preconditioned``) chooses K,
the momentum and lam from public numbers only by minimising a utility proxy.

References
----------
.. [1] J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 84 (2022),
   Theorem 2.7, Corollary 3.3.
.. [2] D. Böhning, B. Lindsay. Monotonicity of quadratic-approximation algorithms.
   Ann. Inst. Statist. Math. 40 (1988).
.. [3] D. Böhning. Multinomial logistic regression algorithm. Ann. Inst. Statist. Math.
   44 (1992).
.. [4] K. R. Davidson, S. J. Szarek. Local operator theory, random matrices and Banach
   spaces. Handbook of the Geometry of Banach Spaces, vol. 1 (2001), Theorem 2.11.
"""

import math
from dataclasses import dataclass

from ._checks import check_count, check_positive, check_probability
from ._format import format_near, format_up
from ._gdp import epsilon_delta_to_gdp, gdp_to_epsilon
from ._inverter import nudge_up
from ._report import GaussianRunPrivacyReport, epsilon_of

__all__ = [
    "PreconditionedPrivacyReport",
    "calibrate_preconditioned_gd",
    "preconditioned_gd_gdp",
    "preconditioned_gd_report",
]

THEOREM = (
    "Dong, Roth, Su (JRSS B 2022), Theorem 2.7 (Gaussian mechanism) and Corollary 3.3 "
    "(adaptive composition of the Gram release and the K noisy gradients)"
)


def _gaussian_mu(sensitivity, size, noise_std):
    if sensitivity == 0.0 or noise_std == math.inf:
        return 0.0
    if noise_std == 0.0:
        return math.inf
    return sensitivity / (size * noise_std)


def preconditioned_gd_gdp(
    gram_noise_std, noise_std, n_steps, *, gram_sensitivity, sensitivity, n_samples
):
    r""":math:`\mu = \sqrt{\mu_G^2 + K (S/(n\sigma))^2}` of the whole run (module docstring).

    Parameters
    ----------
    gram_noise_std : float
        tau, the noise std of each upper-triangle entry of the released Gram (averaged, i.e.
        divided by n).
    noise_std : float
        sigma, the noise std on the averaged gradient.
    n_steps : int
        K, the number of noisy gradients (K = 0: only the Gram is released).
    gram_sensitivity : float
        :math:`S_G = \sqrt2\,\tilde R^2` (:func:`skdpgd._data._gram.gram_sensitivity`).
    sensitivity : float
        S, replace-one sensitivity of a per-example gradient.
    n_samples : int
        n (public).

    Returns
    -------
    mu : float
        ``inf`` when a noise std is 0 with a positive sensitivity.
    """
    tau = check_positive("gram_noise_std", gram_noise_std, allow_zero=True, allow_inf=True)
    sigma = check_positive("noise_std", noise_std, allow_zero=True, allow_inf=True)
    k = check_count("n_steps", n_steps, minimum=0)
    s_g = check_positive("gram_sensitivity", gram_sensitivity, allow_zero=True)
    s = check_positive("sensitivity", sensitivity, allow_zero=True)
    n = check_count("n_samples", n_samples)
    mu_g = _gaussian_mu(s_g, n, tau)
    mu_step = _gaussian_mu(s, n, sigma) if k > 0 else 0.0
    if math.inf in (mu_g, mu_step):
        return math.inf
    return math.sqrt(mu_g * mu_g + k * mu_step * mu_step)


def check_share(gram_share):
    """Validate the Gram share s in (0, 1), the fraction of mu^2 spent on the Gram release.

    Parameters
    ----------
    gram_share : float
        s.

    Returns
    -------
    float
        s.
    """
    share = check_positive("gram_share", gram_share)
    if not share < 1.0:
        raise ValueError(
            f"gram_share must be in (0, 1) (the fraction of mu^2 spent on the Gram release); "
            f"got {gram_share!r}."
        )
    return share


def calibrate_preconditioned_gd(
    epsilon, delta, *, gram_share, n_steps, sensitivity, gram_sensitivity, n_samples,
    target_mu=None,
):
    r"""(tau, sigma) spending the share s of :math:`\mu^{*2}` on the Gram, the rest on K steps.

    :math:`\tau = S_G/(n\sqrt{s}\,\mu^*)`, :math:`\sigma = \sqrt K\,S/(n\sqrt{1-s}\,\mu^*)`
    with :math:`\mu^*` = ``epsilon_delta_to_gdp(epsilon, delta)``; both are then scaled
    up by the same factor :math:`1 + 10^{-12}` until ``preconditioned_gd_gdp()`` is at
    most :math:`\mu^*` and its epsilon at delta at most the target (conservative rounding).
    ``target_mu`` is :math:`\mu^*` when the caller (a planner) computed it already.

    Returns
    -------
    gram_noise_std, noise_std : float
        Both 0.0 when ``epsilon`` is ``inf``.
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_probability("delta", delta)
    share = check_share(gram_share)
    k = check_count("n_steps", n_steps)
    s = check_positive("sensitivity", sensitivity)
    s_g = check_positive("gram_sensitivity", gram_sensitivity)
    n = check_count("n_samples", n_samples)
    target = epsilon_delta_to_gdp(epsilon, delta) if target_mu is None else float(target_mu)
    if target == math.inf:
        return 0.0, 0.0
    tau = s_g / (n * math.sqrt(share) * target)
    sigma = math.sqrt(k) * s / (n * math.sqrt(1.0 - share) * target)

    def excess(scale):  # <= 0 when both mu and epsilon meet the target; falls with scale
        mu = preconditioned_gd_gdp(
            tau * scale, sigma * scale, k, gram_sensitivity=s_g, sensitivity=s, n_samples=n
        )
        return max(mu - target, gdp_to_epsilon(mu, delta) - epsilon)

    scale = nudge_up(excess, 0.0, 1.0)
    return tau * scale, sigma * scale


@dataclass(frozen=True, repr=False, kw_only=True)
class PreconditionedPrivacyReport(GaussianRunPrivacyReport):
    """The report of a Gram-preconditioned run (composition of K + 1 releases).

    ``mu`` is exact: sqrt(gram_mu^2 + K (S/(n sigma))^2); composition is the bound
    (``binding_bound`` is ``"composition"``). ``smoothness`` is c Rt^2 + lam.

    Attributes
    ----------
    gram_noise_std : float
        tau, the noise std of each released upper-triangle entry of the averaged Gram.
    gram_sensitivity : float
        :math:`S_G = \\sqrt2\\,\\tilde R^2` (replace-one, upper triangle of the Gram sum).
    gram_mu, steps_mu : float
        GDP of the Gram release and of the K noisy gradients (``mu`` is their hypot).
    margin, curvature : float
        m and c of the preconditioner :math:`c(\\tilde G + mI)_+ + \\lambda I`.
    momentum : float
        beta of the Nesterov step (0: none).
    """

    accountant: str = "preconditioned_gd"
    theorem: str = THEOREM
    binding_bound: str = "composition"
    gram_noise_std: float
    gram_sensitivity: float
    gram_mu: float
    steps_mu: float
    margin: float
    curvature: float
    momentum: float = 0.0

    def _lines(self):
        return [
            *super()._lines(),
            f"  Gram release: tau={format_near(self.gram_noise_std)}, "
            f"S_G={format_near(self.gram_sensitivity)}, mu_G={format_up(self.gram_mu)}",
            f"  run: sigma={format_near(self.noise_std)}, K={self.n_steps}, "
            f"eta={format_near(self.learning_rate)}, momentum={format_near(self.momentum)}, "
            f"n={self.n_samples}, mu_steps={format_up(self.steps_mu)}",
            f"  constants: S={format_near(self.sensitivity)}, "
            f"lam={format_near(self.strong_convexity)}, c={format_near(self.curvature)}, "
            f"margin={format_near(self.margin)}",
        ]


def preconditioned_gd_report(
    gram_noise_std, noise_std, n_steps, *, delta, sensitivity, gram_sensitivity, n_samples,
    learning_rate, strong_convexity, curvature, margin, row_norm, momentum=0.0, notes=(),
):
    r"""Build the :class:`PreconditionedPrivacyReport` of a preconditioned run.

    Parameters
    ----------
    gram_noise_std, noise_std : float
        tau (the Gram release's noise) and sigma (each step's, on the averaged gradient).
    n_steps : int
        K.
    delta : float
        The delta the report's epsilon is stated at.
    sensitivity, gram_sensitivity : float
        S (per-example gradient) and S_G (per-example Gram term).
    n_samples : int
        n.
    learning_rate, strong_convexity, curvature, margin, row_norm, momentum : float
        The run's eta, lam, c, preconditioner margin, Rt and momentum (recorded).
    notes : tuple of str, default=()
        Lines for the report.

    Returns
    -------
    PreconditionedPrivacyReport
        mu by composition of the K + 1 Gaussian releases (``preconditioned_gd_gdp()``).
    """
    delta = check_probability("delta", delta)
    constants = dict(gram_sensitivity=gram_sensitivity, sensitivity=sensitivity,
                     n_samples=n_samples)
    mu = preconditioned_gd_gdp(gram_noise_std, noise_std, n_steps, **constants)
    gram_mu = preconditioned_gd_gdp(gram_noise_std, noise_std, 0, **constants)
    steps_mu = 0.0 if int(n_steps) == 0 else math.sqrt(n_steps) * _gaussian_mu(
        float(sensitivity), int(n_samples), float(noise_std)
    )
    return PreconditionedPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu,
        noise_std=float(noise_std), n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity),
        smoothness=float(curvature) * float(row_norm) ** 2 + float(strong_convexity),
        sensitivity=float(sensitivity), n_samples=int(n_samples),
        notes=tuple(notes), gram_noise_std=float(gram_noise_std),
        gram_sensitivity=float(gram_sensitivity), gram_mu=gram_mu, steps_mu=steps_mu,
        margin=float(margin), curvature=float(curvature), momentum=float(momentum),
    )
