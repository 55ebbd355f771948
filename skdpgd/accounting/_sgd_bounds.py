r"""Privacy of one sampled noisy SGD run: the bounds that cover it, and their minimum.

A projected noisy SGD run may be covered by several theorems at once; each is a valid
upper bound on the same quantity, so their minimum is one too, and the report names the
one that binds. The run skdpgd implements and accounts (``solver="sgd"``) is Poisson
sampling with the sum normalised by the expected batch size b, and one bound covers it:

============================  ==================  =============================================
bound                         sampling            source
============================  ==================  =============================================
``"composition"``             Poisson             PLD of the Poisson-subsampled Gaussian,
                                                  replace-one (:func:`poisson_sgd_epsilon`)
============================  ==================  =============================================

Every report also states why Altschuler and Talwar (NeurIPS 2022), eq. (3.3), does not
cover the run (:data:`NOT_APPLICABLE`): it is stated and proved for fixed-size batches
drawn uniformly without replacement and a bounded domain, a run no estimator makes.

Not used: Ryffel, Bach, Pointcheval (2022) Theorem 3.2 (it does not hold as stated; see
``tests/accounting/test_dp_sgld_theorem_counterexample.py`` and ``docs/sgd_bounds.md``), and any
strongly convex last-iterate bound for *sampled* SGD: Bok-Su-Altschuler (2024) Theorem 4.9 covers
uniform runs, but its formulas could not be traced here (only the authors' CLT
approximation, Proposition C.14, is available) and its C_{b/n} composition is DRS22's
symmetrised operator, which dp-accounting's events understate (``docs/sgd_bounds.md``).
"""

import math
from dataclasses import dataclass, field

from ._checks import check_probability
from ._gdp import epsilon_delta_to_gdp
from ._sampled_sgd import (
    check_sgd_epsilon,
    clt_noise_multiplier,
    poisson_sgd_epsilon,
    search_noise,
)

#: The samplers accounted here (the one ``solver="sgd"`` runs).
SAMPLINGS = ("poisson",)

#: Bound name -> the theorem it comes from.
THEOREMS = {
    "composition": "composition of the Poisson-subsampled Gaussian, replace-one, PLD "
    "(dp-accounting; Doroshenko et al. 2022)",
}

#: Theorems about sampled SGD that do not cover skdpgd's run, and why (every report
#: lists them).
NOT_APPLICABLE = {
    "altschuler_talwar": "stated and proved for fixed-size batches drawn uniformly without "
    "replacement; with Poisson sampling and the fixed normaliser b a large realised batch "
    "can make the step expansive",
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
    discretization=None,
):
    r"""(epsilon, delta) of a sampled noisy SGD run: the minimum over the bounds that cover it.

    Parameters
    ----------
    noise_std, n_steps : float, int
        sigma (on the averaged gradient) and K.
    delta : float
        Target delta.
    sampling : {"poisson"}
        How :func:`skdpgd.optim.noisy_sampled_gradient_descent` drew the batches.
    batch_size, n_samples : int
        b (the expected size) and n.
    gradient_bound : float
        L, bound on every per-example gradient norm over the domain.
    discretization : float or None
        PLD grid; None: automatic
        (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`).

    Returns
    -------
    SampledSGDBounds
    """
    check_sampling(sampling)
    epsilons = {"composition": poisson_sgd_epsilon(
        noise_std, n_steps, delta=delta, discretization=discretization,
        batch_size=batch_size, n_samples=n_samples, gradient_bound=gradient_bound)}
    binding = min(epsilons, key=lambda name: (epsilons[name], name != "composition"))
    return SampledSGDBounds(epsilons[binding], binding, epsilons, dict(NOT_APPLICABLE))


def calibrate_sampled_sgd(
    epsilon,
    delta,
    *,
    n_steps,
    sampling,
    batch_size,
    n_samples,
    gradient_bound,
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
        gradient_bound=gradient_bound, discretization=discretization,
    )

    def eps_of(sigma):
        return sampled_sgd_bounds(sigma, n_steps, **kwargs).epsilon

    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    z0 = float(clt_noise_multiplier(target_mu, batch_size / n_samples, n_steps))
    start = z0 * float(gradient_bound) / batch_size
    return search_noise(eps_of, epsilon, start, rtol=rtol)
