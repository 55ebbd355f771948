"""The reports of noisy GD: full batch (bound (A)) and cyclic mini-batches (bound (C))."""

from dataclasses import dataclass

from ..exceptions import BoundNotApplicableError
from ._format import format_contraction, format_near, format_up
from ._noisy_cyclic_gd import (
    cyclic_batch_sizes,
    noisy_cyclic_gd_gdp,
)
from ._noisy_gd import (
    composition_gdp,
    contraction_factor,
    noisy_gd_gdp,
)
from ._rdp import DEFAULT_ORDERS, chourasia_rdp, rdp_to_epsilon
from ._report import GaussianRunPrivacyReport, epsilon_of

__all__ = [
    "NoisyCyclicGDPrivacyReport", "NoisyGDPrivacyReport", "noisy_cyclic_gd_report",
    "noisy_gd_report",
]


def _binding(mu, composed):
    """Which term of the min binds; "composition" unless the convergent one is smaller by > 1e-6."""
    return "convergent" if mu < composed * (1.0 - 1e-6) else "composition"


_THEOREMS = {
    "noisy_gd": "Bok, Su, Altschuler (ICML 2024), Theorem 4.2 (convergent) / 4.1 (composition)",
    "noisy_cyclic_gd":
        "Bok, Su, Altschuler (ICML 2024), Theorem 4.5 (convergent) / 4.4 (composition)",
}


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
    ]


@dataclass(frozen=True, repr=False, kw_only=True)
class NoisyGDPrivacyReport(GaussianRunPrivacyReport):
    """The report of full-batch noisy GD: bound (A), exact (Bok, Su, Altschuler 2024, Thm 4.2).

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
        Whether Corollary 1 applies, and why not.
    """

    accountant: str = "noisy_gd"
    theorem: str = _THEOREMS["noisy_gd"]
    contraction: float
    composition_mu: float
    composition_epsilon: float
    chourasia_epsilon: float | None
    chourasia_note: str

    def _lines(self):
        chourasia = (f"epsilon={format_up(self.chourasia_epsilon)}"
                     if self.chourasia_epsilon is not None else self.chourasia_note)
        return super()._lines() + _gd_lines(self) + [
            f"  Chourasia et al. (2021) would claim: {chourasia}"]


@dataclass(frozen=True, repr=False, kw_only=True)
class NoisyCyclicGDPrivacyReport(GaussianRunPrivacyReport):
    """The report of cyclic mini-batch noisy GD: bound (C) (Bok, Su, Altschuler 2024, Thm 4.5).

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
    """

    accountant: str = "noisy_cyclic_gd"
    theorem: str = _THEOREMS["noisy_cyclic_gd"]
    batch_size: int
    n_epochs: int
    contraction: float
    composition_mu: float
    composition_epsilon: float

    def _lines(self):
        return super()._lines() + _gd_lines(
            self, f", batch={self.batch_size}, epochs={self.n_epochs}") + [
            "  Chourasia et al. (2021) would claim: does not apply: Corollary 1 is stated for "
            "full-batch noisy GD"]


def noisy_gd_report(
    noise_std, n_steps, *, delta, sensitivity, n_samples, learning_rate, strong_convexity,
    smoothness, notes=(),
):
    """Build the :class:`NoisyGDPrivacyReport` of a full-batch noisy GD run (bound (A)).

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

    Returns
    -------
    report : NoisyGDPrivacyReport
        The guarantee, the constants it used and the comparison baselines.
    """
    constants = dict(
        sensitivity=sensitivity, n_samples=n_samples, learning_rate=learning_rate,
        strong_convexity=strong_convexity, smoothness=smoothness,
    )
    mu = noisy_gd_gdp(noise_std, n_steps, **constants)
    composed = composition_gdp(noise_std, n_steps, sensitivity=sensitivity, n_samples=n_samples)
    try:
        rdp = chourasia_rdp(DEFAULT_ORDERS, noise_std, n_steps, **constants)
        chourasia, note = rdp_to_epsilon(DEFAULT_ORDERS, rdp, delta), "applies (eta < 1/beta)"
    except BoundNotApplicableError as exc:
        chourasia, note = None, f"does not apply: {exc}"
    return NoisyGDPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu,
        binding_bound=_binding(mu, composed),
        noise_std=float(noise_std), n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity), smoothness=float(smoothness),
        sensitivity=float(sensitivity),
        contraction=contraction_factor(learning_rate, strong_convexity, smoothness),
        n_samples=int(n_samples), composition_mu=composed,
        composition_epsilon=epsilon_of(composed, delta), chourasia_epsilon=chourasia,
        chourasia_note=note, notes=tuple(notes),
    )


def noisy_cyclic_gd_report(
    noise_std, n_epochs, *, delta, batch_size, sensitivity, n_samples, learning_rate,
    strong_convexity, smoothness, notes=(),
):
    """Build the :class:`NoisyCyclicGDPrivacyReport` of a cyclic noisy GD run (bound (C)).

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

    Returns
    -------
    report : NoisyCyclicGDPrivacyReport
        The guarantee, the constants it used and the comparison baseline.
    """
    sizes = cyclic_batch_sizes(n_samples, batch_size)
    b_min = int(sizes.min())
    mu = noisy_cyclic_gd_gdp(
        noise_std, n_epochs, batch_size=batch_size, sensitivity=sensitivity,
        n_samples=n_samples, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness,
    )
    composed = composition_gdp(noise_std, n_epochs, sensitivity=sensitivity, n_samples=b_min)
    return NoisyCyclicGDPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=float(delta), mu=mu,
        binding_bound=_binding(mu, composed),
        noise_std=float(noise_std), n_steps=int(n_epochs) * len(sizes),
        learning_rate=float(learning_rate), strong_convexity=float(strong_convexity),
        smoothness=float(smoothness), sensitivity=float(sensitivity),
        contraction=contraction_factor(learning_rate, strong_convexity, smoothness),
        n_samples=int(n_samples), composition_mu=composed,
        composition_epsilon=epsilon_of(composed, delta),
        batch_size=b_min, n_epochs=int(n_epochs), notes=tuple(notes),
    )
