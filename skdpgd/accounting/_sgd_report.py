"""The report of sampled noisy SGD (docs/theory.md#sampled-sgd): the minimum over its bounds."""

import math
from dataclasses import dataclass

import numpy as np

from ._altschuler_talwar import altschuler_talwar_rdp
from ._events import NeighbouringRelation, PoissonSampledGaussianEvent, RenyiDpEvent
from ._format import format_near, format_up
from ._report import RunPrivacyReport
from ._sampled_sgd import poisson_noise_multiplier, poisson_run_discretization
from ._sgd_bounds import sampled_sgd_bounds
from ._uniform_sgd import WOR_ORDERS, uniform_sgd_composition_rdp
from .allowance import EpsilonCurve

__all__ = ["SampledSGDPrivacyReport", "sampled_sgd_report"]


@dataclass(frozen=True, repr=False, kw_only=True)
class SampledSGDPrivacyReport(RunPrivacyReport):
    """The report of a sampled noisy SGD run (min over the bounds that cover it).

    A sampled run is not Gaussian-DP in closed form: it has no ``mu``, and
    ``epsilon_at`` / ``delta_at`` recompute the
    bounds of :func:`skdpgd.accounting.sampled_sgd_bounds` instead.

    Attributes
    ----------
    sampling : str
        ``"poisson"`` (rate q = b/n, sum normalised by the expected size b) or
        ``"uniform"`` (b distinct rows each step, uniformly without replacement).
    batch_size : int
        b (the expected size for Poisson sampling, the exact size for uniform).
    sampling_rate : float
        q = b / n.
    gradient_bound : float
        L (``sensitivity`` = 2L is the replace-one sensitivity of the batch sum).
    composition_epsilon : float
        The composition bound's epsilon at ``delta``.
    bound_epsilons : tuple of (str, float)
        epsilon at ``delta`` of every bound that applies; ``binding_bound`` is the smallest.
    not_applicable : tuple of (str, str)
        Bounds that do not cover the run, and why.
    discretization : float
        PLD grid used for the Poisson composition bound.
    diameter : float
        D, the diameter of the projection ball (2r; ``inf``: no projection), which the
        Altschuler-Talwar bound of a uniform run reads.
    """

    accountant: str = "sampled_sgd"
    sampling: str = "poisson"
    batch_size: int
    sampling_rate: float
    gradient_bound: float
    composition_epsilon: float
    bound_epsilons: tuple = ()
    not_applicable: tuple = ()
    discretization: float
    diameter: float = math.inf

    def _bounds(self, delta):
        return sampled_sgd_bounds(
            self.noise_std, self.n_steps, delta=delta, sampling=self.sampling,
            batch_size=self.batch_size, n_samples=self.n_samples,
            gradient_bound=self.gradient_bound, discretization=self.discretization,
            learning_rate=self.learning_rate, smoothness=self.smoothness,
            diameter=self.diameter,
        )

    def _uniform_rdp(self):
        """Per-order RDP of a uniform run: the smaller of its bounds at each order."""
        run = dict(batch_size=self.batch_size, n_samples=self.n_samples,
                   gradient_bound=self.gradient_bound)
        rdp = uniform_sgd_composition_rdp(self.noise_std, self.n_steps, **run)
        if "altschuler_talwar" in dict(self.bound_epsilons):
            rdp = np.minimum(rdp, altschuler_talwar_rdp(
                WOR_ORDERS, self.noise_std, self.n_steps, learning_rate=self.learning_rate,
                smoothness=self.smoothness, diameter=self.diameter, **run))
        return rdp

    @property
    def event(self):
        r"""What this run released, as a privacy event.

        Poisson: ``PoissonSampledGaussianEvent(q, z, K)`` with the noise multiplier
        :math:`z = \sigma b / L` (``poisson_noise_multiplier`` in
        ``skdpgd.accounting._sampled_sgd``): the composition-with-amplification view of the
        run, the bound this report states. Uniform: a ``RenyiDpEvent`` over the orders of
        ``skdpgd.accounting._uniform_sgd.WOR_ORDERS``, at each order the smaller of the
        composition and (where it applies) Altschuler-Talwar RDP bounds, both valid there.
        """
        relation = NeighbouringRelation.parse(self.neighbouring_relation)
        if self.sampling == "uniform":
            return RenyiDpEvent(WOR_ORDERS, tuple(self._uniform_rdp()), relation)
        z = poisson_noise_multiplier(self.noise_std, batch_size=self.batch_size,
                                     gradient_bound=self.gradient_bound)
        return PoissonSampledGaussianEvent(self.sampling_rate, z, self.n_steps, relation)

    def _curve(self):
        """The minimum over the bounds that apply (:func:`sampled_sgd_bounds`) at each delta."""
        return EpsilonCurve(lambda delta: self._bounds(delta).epsilon)

    def _lines(self):
        lines = [
            *super()._lines(),
            f"  run: {self.sampling} sampling q={format_near(self.sampling_rate)} "
            f"(b={self.batch_size}), sigma={format_near(self.noise_std)}, K={self.n_steps}, "
            f"eta={format_near(self.learning_rate)}, "
            f"n={self.n_samples}",
            f"  constants: L={format_near(self.gradient_bound)}, "
            f"S={format_near(self.sensitivity)}, lam={format_near(self.strong_convexity)}, "
            f"beta={format_near(self.smoothness)}",
        ]
        if math.isfinite(self.diameter):
            lines.append(f"  domain: a ball of diameter D={format_near(self.diameter)} "
                         "(every iterate projected)")
        lines += [f"  {name}: epsilon={format_up(eps)}" for name, eps in self.bound_epsilons]
        lines += [f"  {name}: does not apply ({why})" for name, why in self.not_applicable]
        return lines


def sampled_sgd_report(
    noise_std, n_steps, *, delta, sampling, batch_size, n_samples, gradient_bound,
    learning_rate, strong_convexity, smoothness, notes=(), discretization=None,
    diameter=None,
):
    """Build the :class:`SampledSGDPrivacyReport` of a sampled noisy SGD run.

    The guarantee is :func:`skdpgd.accounting.sampled_sgd_bounds` (composition with
    amplification by sampling, and for uniform batches on a bounded domain
    Altschuler-Talwar's bound). Needs the ``sgd`` extra (dp-accounting).

    Parameters
    ----------
    noise_std : float
        sigma, the noise standard deviation on the averaged batch gradient.
    n_steps : int
        K, the number of noisy steps.
    delta : float
        The delta at which ``epsilon`` is reported.
    sampling : {"poisson", "uniform"}
        How each step's batch is drawn.
    batch_size : int
        b (expected size for Poisson sampling, exact size for uniform).
    n_samples : int
        n (public).
    gradient_bound : float
        L, the bound on a per-example gradient norm (S = 2L).
    learning_rate, strong_convexity, smoothness : float
        eta, lam and beta of the objective (public numbers of the run, reported).
    notes : tuple of str, default=()
        Lines copied into the report's ``notes``.
    discretization : float or None, default=None
        PLD grid of the Poisson composition bound (None: the run's default).
    diameter : float or None, default=None
        D of the projection ball (2r); None or ``inf``: no projection.

    Returns
    -------
    report : SampledSGDPrivacyReport
        The minimum over the bounds that apply, each bound's epsilon and why the others
        do not apply.
    """
    if discretization is None:  # the grid poisson_sgd_epsilon picks for this run
        discretization = poisson_run_discretization(
            noise_std, n_steps, batch_size=batch_size, n_samples=n_samples,
            gradient_bound=gradient_bound)
    discretization = float(discretization)
    bounds = sampled_sgd_bounds(
        noise_std, n_steps, delta=delta, sampling=sampling, batch_size=batch_size,
        n_samples=n_samples, gradient_bound=gradient_bound, discretization=discretization,
        learning_rate=learning_rate, smoothness=smoothness, diameter=diameter,
    )
    theorem = bounds.theorem
    return SampledSGDPrivacyReport(
        epsilon=bounds.epsilon, delta=float(delta),
        theorem=theorem, binding_bound=bounds.binding_bound, noise_std=float(noise_std),
        n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity), smoothness=float(smoothness),
        sensitivity=2.0 * float(gradient_bound), n_samples=int(n_samples),
        composition_epsilon=bounds.epsilons["composition"],
        batch_size=int(batch_size), notes=tuple(notes), sampling=sampling,
        sampling_rate=int(batch_size) / int(n_samples), gradient_bound=float(gradient_bound),
        bound_epsilons=tuple(sorted(bounds.epsilons.items())),
        not_applicable=tuple(sorted(bounds.not_applicable.items())),
        discretization=discretization,
        diameter=math.inf if diameter is None else float(diameter),
    )
