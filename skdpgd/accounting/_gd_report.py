"""The reports of noisy GD: full batch (bounds (A), (B)) and cyclic mini-batches ((C), (F)).

Every valid bound of the run is computed and the least one reported (docs/theory.md#bounds):
composition, the strongly convex bound (Bok, Su and Altschuler 2024, Theorems 4.2 and 4.5;
projection keeps it, being 1-Lipschitz) and, for a run projected onto a ball of diameter D,
the convex bounded-domain bound (their Theorem 4.3; bound (F) for cyclic batches).
``binding_bound`` names the one that binds by its theorem, and says "convergent" only where
the same bound at twice the steps with the same noise is within 1% of it (more passes then
cost essentially nothing); else "not converged".
"""

import math
from dataclasses import dataclass

from ..exceptions import BoundNotApplicableError
from ._convex_gd import convex_cyclic_squares, shift_ratio
from ._format import format_contraction, format_near, format_up
from ._noisy_cyclic_gd import (
    convergent_cyclic_factor,
    cyclic_batch_sizes,
)
from ._noisy_gd import (
    _gdp,
    _scale,
    contraction_factor,
    convergent_gd_factor,
)
from ._rdp import DEFAULT_ORDERS, chourasia_rdp, rdp_to_epsilon
from ._report import GaussianRunPrivacyReport, epsilon_of

__all__ = [
    "NoisyCyclicGDPrivacyReport", "NoisyGDPrivacyReport", "noisy_cyclic_gd_report",
    "noisy_gd_report", "run_bounds",
]

#: Within this relative margin of the bound at twice the steps, a run is "convergent".
CONVERGED_WITHIN = 0.01

_NAMES = {
    1: ("Theorem 4.1 (composition)", "Theorem 4.2 (strongly convex)",
        "Theorem 4.3 (convex, bounded domain)"),
    0: ("Theorem 4.4 (composition)", "Theorem 4.5 (strongly convex)",
        "bound (F) (convex, bounded domain, cyclic)"),
}

_THEOREMS = {
    "noisy_gd": "Bok, Su, Altschuler (ICML 2024): the least of Theorems 4.1 (composition), "
                "4.2 (strongly convex) and, on a bounded domain, 4.3 (convex)",
    "noisy_cyclic_gd":
        "Bok, Su, Altschuler (ICML 2024): the least of Theorems 4.4 (composition), 4.5 "
        "(strongly convex) and, on a bounded domain, bound (F) (convex; docs/theory.md#bound-f)",
}

CHOURASIA_COMPARED = (
    "compared only, not a guarantee: Corollary 1 assumes a Gaussian start theta_0 ~ "
    "N(0, 2 s^2/lam I) where skdpgd starts at 0 (its eta < 1/beta holds)"
)


def run_bounds(noise_std, passes, *, n_batches, size, sensitivity, contraction,
               learning_rate, diameter=None):
    """Every bound of a full-batch (l = 1) or cyclic run, by name: {name: mu}.

    Parameters
    ----------
    noise_std : float
        sigma.
    passes : int or float
        K for full batch, E for cyclic.
    n_batches : int
        l (1: full batch, Theorems 4.1-4.3; else 4.4, 4.5 and (F)).
    size : int
        n, or the smallest batch b.
    sensitivity : float
        S.
    contraction : float
        c of one step.
    learning_rate : float
        eta.
    diameter : float, optional
        D of the projection's ball (None: no bounded-domain bound).

    Returns
    -------
    dict
        {name: mu}, composition first.
    """
    scale = _scale(float(sensitivity), size, float(noise_std))
    if passes == 0:
        return dict.fromkeys(_NAMES[int(n_batches == 1)], 0.0)
    names = _NAMES[int(n_batches == 1)]
    if n_batches == 1:
        strongly = convergent_gd_factor(contraction, passes)
    else:
        strongly = convergent_cyclic_factor(contraction, n_batches, passes)
    bounds = {names[0]: _gdp(math.sqrt(passes), scale), names[1]: _gdp(strongly, scale)}
    if diameter is not None and sensitivity > 0.0:
        ratio = shift_ratio(diameter=diameter, size=size, sensitivity=sensitivity,
                            learning_rate=learning_rate)
        convex = math.sqrt(float(convex_cyclic_squares(n_batches, passes, ratio)))
        bounds[names[2]] = _gdp(convex, scale)
    return bounds


def _least(bounds):
    """(mu, name): the least bound, named composition unless another is smaller by > 1e-6."""
    composed_name = next(iter(bounds))
    name = min(bounds, key=bounds.get)
    mu = bounds[name]
    return mu, (name if mu < bounds[composed_name] * (1.0 - 1e-6) else composed_name)


def _binding(noise_std, passes, common):
    """(mu, binding_bound): the least bound and its name, with "convergent" where it is."""
    mu, name = _least(run_bounds(noise_std, passes, **common))
    if name.endswith("(composition)"):
        return mu, name
    doubled, _ = _least(run_bounds(noise_std, 2 * passes, **common))
    if doubled <= mu * (1.0 + CONVERGED_WITHIN):
        return mu, f"{name}, convergent"
    if common["n_batches"] > 1 and name.startswith("Theorem 4.5"):
        # its gain over composition is shifted interpolation across batches, not convergence
        return mu, "Theorem 4.5 (shifted interpolation across batches, not converged)"
    return mu, f"{name}, not converged"


class _ComposedComparison:
    """``composition_epsilon``, read at the report's delta when asked (an edge: printed).

    What composition would claim is a comparison, not the guarantee: its mu is stored
    (``composition_mu``), its epsilon computed only where a report prints it or a user
    reads it, so that a fit converts mu to epsilon once, for its guarantee.
    """

    @property
    def composition_epsilon(self):
        """What composition would claim, as epsilon at ``delta`` (from ``composition_mu``)."""
        return epsilon_of(self.composition_mu, self.delta)

    def to_dict(self):
        """All fields as a plain dict (JSON-serialisable), ``composition_epsilon`` included.

        Returns
        -------
        fields : dict
            Every attribute by name, ``composition_epsilon`` after ``composition_mu``;
            ``notes`` as a list.
        """
        out = {}
        for key, value in super().to_dict().items():
            out[key] = value
            if key == "composition_mu":
                out["composition_epsilon"] = self.composition_epsilon
        return out


def _gd_lines(report, run_extra=""):
    """The lines the two GD reports share (run, constants, composition)."""
    return [
        f"  run: sigma={format_near(report.noise_std)}, K={report.n_steps}, "
        f"eta={format_near(report.learning_rate)}, n={report.n_samples}" + run_extra,
        f"  constants: S={format_near(report.sensitivity)}, "
        f"lam={format_near(report.strong_convexity)}, beta={format_near(report.smoothness)}, "
        f"c={format_contraction(report.contraction)}",
        f"  composition would claim: mu={format_up(report.composition_mu)}, "
        f"epsilon={format_up(report.composition_epsilon)}",
    ] + ([] if report.diameter is None else [
        f"  bounded domain (diameter D={format_near(report.diameter)}) would claim: "
        f"mu={format_up(report.bounded_domain_mu)}"])


@dataclass(frozen=True, repr=False, kw_only=True)
class NoisyGDPrivacyReport(_ComposedComparison, GaussianRunPrivacyReport):
    """The report of full-batch noisy GD: the least of Theorems 4.1, 4.2 and 4.3 (bounds (A), (B)).

    Attributes
    ----------
    contraction : float
        c, the contraction factor of a step (:ref:`contraction`).
    composition_mu, composition_epsilon : float
        What composition (Theorem 4.1) would claim for the same run.
    chourasia_epsilon : float or None
        What Chourasia, Ye and Shokri (2021), Corollary 1, would claim at ``delta``;
        ``None`` when the theorem does not apply (see ``chourasia_note``).
    chourasia_note : str
        Whether Corollary 1 applies, and why it is a comparison only.
    diameter : float or None
        D of the ball the run projected onto (None: no bounded-domain bound).
    bounded_domain_mu : float or None
        What Theorem 4.3 would claim (None without a diameter; inf before its burn-in).
    """

    accountant: str = "noisy_gd"
    theorem: str = _THEOREMS["noisy_gd"]
    contraction: float
    composition_mu: float
    chourasia_epsilon: float | None
    chourasia_note: str
    diameter: float | None = None
    bounded_domain_mu: float | None = None

    def _lines(self):
        chourasia = (f"epsilon={format_up(self.chourasia_epsilon)}"
                     if self.chourasia_epsilon is not None else self.chourasia_note)
        return super()._lines() + _gd_lines(self) + [
            f"  Chourasia et al. (2021) would claim: {chourasia}"]


@dataclass(frozen=True, repr=False, kw_only=True)
class NoisyCyclicGDPrivacyReport(_ComposedComparison, GaussianRunPrivacyReport):
    """The report of cyclic mini-batch noisy GD: the least of Theorems 4.4, 4.5 and bound (F).

    Attributes
    ----------
    batch_size : int
        The smallest batch of the partition (what the bound uses).
    n_epochs : int
        E, passes over the l batches (``n_steps`` = l E).
    contraction : float
        c, the contraction factor of a step.
    composition_mu, composition_epsilon : float
        What composition (Theorem 4.4) would claim for the same run.
    diameter : float or None
        D of the ball the run projected onto (None: no bounded-domain bound).
    bounded_domain_mu : float or None
        What bound (F) would claim (None without a diameter).
    """

    accountant: str = "noisy_cyclic_gd"
    theorem: str = _THEOREMS["noisy_cyclic_gd"]
    batch_size: int
    n_epochs: int
    contraction: float
    composition_mu: float
    diameter: float | None = None
    bounded_domain_mu: float | None = None

    def _lines(self):
        return super()._lines() + _gd_lines(
            self, f", batch={self.batch_size}, epochs={self.n_epochs}") + [
            "  Chourasia et al. (2021) would claim: does not apply: Corollary 1 is stated for "
            "full-batch noisy GD"]


def noisy_gd_report(
    noise_std, n_steps, *, delta, sensitivity, n_samples, learning_rate, strong_convexity,
    smoothness, notes=(), diameter=None,
):
    """Build the :class:`NoisyGDPrivacyReport` of a full-batch noisy GD run (bounds (A), (B)).

    Parameters
    ----------
    noise_std : float
        sigma, the noise standard deviation on the averaged gradient.
    n_steps : int
        K, the number of noisy steps.
    delta : float
        The delta at which ``epsilon`` is reported.
    sensitivity : float
        S, the replace-one sensitivity of one per-example gradient.
    n_samples : int
        n (public).
    learning_rate, strong_convexity, smoothness : float
        eta, lam and beta of the objective.
    notes : tuple of str, default=()
        Lines copied into the report's ``notes``.
    diameter : float, optional
        D, the diameter of the ball every iterate was projected onto (Theorem 4.3).

    Returns
    -------
    report : NoisyGDPrivacyReport
        The guarantee, the constants it used and the comparison baselines.
    """
    constants = dict(
        sensitivity=sensitivity, n_samples=n_samples, learning_rate=learning_rate,
        strong_convexity=strong_convexity, smoothness=smoothness,
    )
    contraction = contraction_factor(learning_rate, strong_convexity, smoothness)
    common = dict(n_batches=1, size=int(n_samples), sensitivity=float(sensitivity),
                  contraction=contraction, learning_rate=float(learning_rate),
                  diameter=None if diameter is None else float(diameter))
    bounds = run_bounds(noise_std, n_steps, **common)
    mu, binding = _binding(noise_std, n_steps, common)
    composed = bounds[_NAMES[1][0]]
    try:
        rdp = chourasia_rdp(DEFAULT_ORDERS, noise_std, n_steps, **constants)
        chourasia, note = rdp_to_epsilon(DEFAULT_ORDERS, rdp, delta), CHOURASIA_COMPARED
    except BoundNotApplicableError as exc:
        chourasia, note = None, f"does not apply: {exc}"
    return NoisyGDPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu, binding_bound=binding,
        noise_std=float(noise_std), n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity), smoothness=float(smoothness),
        sensitivity=float(sensitivity), contraction=contraction,
        n_samples=int(n_samples), composition_mu=composed,
        chourasia_epsilon=chourasia,
        chourasia_note=note, notes=tuple(notes), diameter=common["diameter"],
        bounded_domain_mu=bounds.get(_NAMES[1][2]),
    )


def noisy_cyclic_gd_report(
    noise_std, n_epochs, *, delta, batch_size, sensitivity, n_samples, learning_rate,
    strong_convexity, smoothness, notes=(), diameter=None,
):
    """Build the :class:`NoisyCyclicGDPrivacyReport` of a cyclic noisy GD run ((C), (F)).

    Parameters
    ----------
    noise_std : float
        sigma, the noise standard deviation on the averaged gradient.
    n_epochs : int
        E, the number of passes over the l batches.
    delta : float
        The delta at which ``epsilon`` is reported.
    batch_size : int
        Requested batch size (the bound uses the smallest batch of the partition).
    sensitivity : float
        S, the replace-one sensitivity of one per-example gradient.
    n_samples : int
        n (public).
    learning_rate, strong_convexity, smoothness : float
        eta, lam and beta of the objective.
    notes : tuple of str, default=()
        Lines copied into the report's ``notes``.
    diameter : float, optional
        D, the diameter of the ball every iterate was projected onto (bound (F)).

    Returns
    -------
    report : NoisyCyclicGDPrivacyReport
        The guarantee, the constants it used and the comparison baseline.
    """
    sizes = cyclic_batch_sizes(n_samples, batch_size)
    b_min = int(sizes.min())
    contraction = contraction_factor(learning_rate, strong_convexity, smoothness)
    common = dict(n_batches=len(sizes), size=b_min, sensitivity=float(sensitivity),
                  contraction=contraction, learning_rate=float(learning_rate),
                  diameter=None if diameter is None else float(diameter))
    bounds = run_bounds(noise_std, n_epochs, **common)
    mu, binding = _binding(noise_std, n_epochs, common)
    composed = bounds[_NAMES[0][0]]
    return NoisyCyclicGDPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu, binding_bound=binding,
        noise_std=float(noise_std), n_steps=int(n_epochs) * len(sizes),
        learning_rate=float(learning_rate), strong_convexity=float(strong_convexity),
        smoothness=float(smoothness), sensitivity=float(sensitivity),
        contraction=contraction, n_samples=int(n_samples), composition_mu=composed,
        batch_size=b_min, n_epochs=int(n_epochs), notes=tuple(notes),
        diameter=common["diameter"], bounded_domain_mu=bounds.get(_NAMES[0][2]),
    )
