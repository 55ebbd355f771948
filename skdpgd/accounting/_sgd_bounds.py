r"""Privacy of one sampled noisy SGD run: the minimum over every bound that covers it.

A projected noisy SGD run is covered by several theorems at once; each is a valid upper
bound on the same quantity, so their minimum is one too, and the report names the one
that binds.

============================  ==================  =============================================
bound                         sampling            source
============================  ==================  =============================================
``"composition"``             Poisson             PLD of the Poisson-subsampled Gaussian,
                                                  replace-one (:func:`poisson_sgd_epsilon`)
``"composition"``             uniform, size b     RDP of sampling without replacement, Wang-
                                                  Balle-Kasiviswanathan 2019, Thm 27
                                                  (:func:`uniform_sgd_composition_epsilon`)
``"altschuler_talwar"``       uniform, size b     Altschuler-Talwar 2022 eq. (3.3), convex,
                                                  eta <= 2/M, projection on a set of
                                                  diameter D (:func:`altschuler_talwar_rdp`)
============================  ==================  =============================================

Not used: Ryffel, Bach, Pointcheval (2022) Theorem 3.2 (it does not hold as stated; see
``tests/test_ryffel_counterexample.py`` and ``docs/sgd_bounds.md``), and any strongly
convex last-iterate bound for *sampled* SGD: Bok-Su-Altschuler (2024) Theorem 4.9 covers
uniform runs, but its formulas could not be traced here (only the authors' CLT
approximation, Proposition C.14, is available) and its C_{b/n} composition is DRS22's
symmetrised operator, which dp-accounting's events understate (``docs/sgd_bounds.md``).
"""

import math
from dataclasses import dataclass, field

from ..exceptions import BoundNotApplicableError
from ._altschuler_talwar import SGD_ORDERS, altschuler_talwar_rdp
from ._checks import check_positive, check_probability
from ._gdp import epsilon_delta_to_gdp
from ._rdp import rdp_to_epsilon
from ._sampled_sgd import (
    clt_noise_multiplier,
    check_sgd_epsilon,
    poisson_sgd_epsilon,
    search_noise,
)
from ._uniform_sgd import uniform_sgd_composition_epsilon

SAMPLINGS = ("poisson", "uniform")

THEOREMS = {
    "composition": {
        "poisson": "composition of the Poisson-subsampled Gaussian, replace-one, PLD "
        "(dp-accounting; Doroshenko et al. 2022)",
        "uniform": "composition of the subsampled Gaussian without replacement, replace-one, "
        "RDP (Wang, Balle, Kasiviswanathan 2019, Theorem 27; dp-accounting)",
    },
    "altschuler_talwar": "Altschuler, Talwar (NeurIPS 2022), eq. (3.3) (last iterate, convex, "
    "bounded domain, fixed-size uniform batches)",
}


@dataclass(frozen=True)
class SampledSGDBounds:
    """Every bound evaluated for one run, and the minimum.

    Attributes
    ----------
    epsilon : float
        min over the bounds that apply.
    binding_bound : str
        Name of the smallest bound (``"composition"`` on ties).
    epsilons : dict
        name -> epsilon for every bound that applies.
    not_applicable : dict
        name -> why the theorem does not cover this run.
    """

    epsilon: float
    binding_bound: str
    epsilons: dict = field(default_factory=dict)
    not_applicable: dict = field(default_factory=dict)


def check_sampling(sampling):
    """Validate a sampler's name (one of ``SAMPLINGS``).

    Parameters
    ----------
    sampling : str
        The sampler.

    Returns
    -------
    str
        ``sampling``.
    """
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}.")
    return sampling


def sampled_sgd_bounds(
    noise_std,
    n_steps,
    *,
    delta,
    sampling,
    batch_size,
    n_samples,
    gradient_bound,
    learning_rate,
    smoothness,
    domain_radius=None,
    discretization=None,
):
    r"""(epsilon, delta) of a sampled noisy SGD run: the minimum over the bounds that cover it.

    Parameters
    ----------
    noise_std, n_steps : float, int
        sigma (on the averaged gradient) and K.
    delta : float
        Target delta.
    sampling : {"poisson", "uniform"}
        How :func:`skdpgd.optim.noisy_sampled_gradient_descent` drew the batches.
    batch_size, n_samples : int
        b (expected size for Poisson) and n.
    gradient_bound : float
        L, bound on every per-example gradient norm over the domain.
    learning_rate, smoothness : float
        eta and M = beta_l + lam (smoothness of the regularised objective).
    domain_radius : float, optional
        r when every iterate is projected onto the ball of radius r around 0
        (diameter 2r); None when there is no projection.
    discretization : float or None
        PLD grid (Poisson composition only); None: automatic
        (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`).

    Returns
    -------
    SampledSGDBounds
    """
    sampling = check_sampling(sampling)
    epsilons, not_applicable = {}, {}
    common = dict(batch_size=batch_size, n_samples=n_samples, gradient_bound=gradient_bound)
    at_reason = None
    if sampling == "poisson":
        epsilons["composition"] = poisson_sgd_epsilon(
            noise_std, n_steps, delta=delta, discretization=discretization, **common
        )
        at_reason = (
            "stated and proved for fixed-size batches drawn uniformly without replacement; "
            "with Poisson sampling and the fixed normaliser b a large realised batch can make "
            "the step expansive"
        )
    else:
        epsilons["composition"] = uniform_sgd_composition_epsilon(
            noise_std, n_steps, delta=delta, **common
        )
        diameter = math.inf if domain_radius is None else 2.0 * float(domain_radius)
        try:
            rdp = altschuler_talwar_rdp(
                SGD_ORDERS, noise_std, n_steps, learning_rate=learning_rate,
                smoothness=smoothness, diameter=diameter, **common
            )
            epsilons["altschuler_talwar"] = rdp_to_epsilon(SGD_ORDERS, rdp, delta)
        except BoundNotApplicableError as exc:
            at_reason = str(exc)
    if at_reason is not None:
        not_applicable["altschuler_talwar"] = at_reason
    binding = min(epsilons, key=lambda name: (epsilons[name], name != "composition"))
    return SampledSGDBounds(epsilons[binding], binding, epsilons, not_applicable)


def calibrate_sampled_sgd(
    epsilon,
    delta,
    *,
    n_steps,
    sampling,
    batch_size,
    n_samples,
    gradient_bound,
    learning_rate,
    smoothness,
    domain_radius=None,
    discretization=None,
    rtol=2e-3,
):
    r"""Smallest noise std (to ``rtol``) whose :func:`sampled_sgd_bounds` epsilon is <= target.

    Every bound decreases as sigma grows, so their minimum does too; the bracketing
    search of :func:`search_noise` returns a sigma whose epsilon was computed and is at
    most ``epsilon`` (conservative by construction). A finite ``epsilon`` above
    ``SGD_MAX_EPSILON`` (1000) is refused with a ValueError (:func:`check_sgd_epsilon`).
    """
    epsilon = check_sgd_epsilon(epsilon)
    delta = check_probability("delta", delta)
    if epsilon == math.inf or n_steps == 0 or gradient_bound == 0:
        return 0.0
    kwargs = dict(
        delta=delta, sampling=sampling, batch_size=batch_size, n_samples=n_samples,
        gradient_bound=gradient_bound, learning_rate=learning_rate, smoothness=smoothness,
        domain_radius=domain_radius, discretization=discretization,
    )

    def eps_of(sigma):
        return sampled_sgd_bounds(sigma, n_steps, **kwargs).epsilon

    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    z0 = float(clt_noise_multiplier(target_mu, batch_size / n_samples, n_steps))
    start = z0 * float(gradient_bound) / batch_size
    return search_noise(eps_of, epsilon, start, rtol=rtol)
