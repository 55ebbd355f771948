"""The privacy report attached to every fitted estimator (docs/theory.md#calibration, step 5)."""

import dataclasses
import decimal
import math
from dataclasses import dataclass

from ..exceptions import BoundNotApplicableError
from ._gdp import gdp_to_delta, gdp_to_epsilon
from ._inverter import TargetUnreachableError, invert_monotone
from ._noisy_gd import (
    composition_gdp,
    contraction_factor,
    cyclic_batch_sizes,
    noisy_cyclic_gd_gdp,
    noisy_gd_gdp,
)
from ._rdp import DEFAULT_ORDERS, chourasia_rdp, rdp_to_epsilon

NEIGHBOURING_RELATION = "replace-one"

#: Significant digits of the numbers a report prints (the attributes keep full precision).
DIGITS = 4


def format_up(value, digits=DIGITS):
    """``value`` rounded *up* to ``digits`` significant digits, trailing zeros dropped.

    For privacy losses (epsilon, delta, mu): a printed claim is never below the computed
    one, and 1.9999999999977915 prints as ``2``. Infinities and NaN print as ``inf``,
    ``nan``.
    """
    value = float(value)
    if not math.isfinite(value) or value == 0.0:
        return f"{value:g}"
    exact = decimal.Decimal(repr(value))
    exponent = exact.adjusted() - digits + 1
    rounded = exact.quantize(decimal.Decimal(1).scaleb(exponent), rounding=decimal.ROUND_CEILING)
    return f"{float(rounded):.{digits}g}"


def format_near(value, digits=DIGITS):
    """``value`` rounded to the nearest ``digits`` significant digits (run parameters)."""
    return f"{float(value):.{digits}g}"


def format_contraction(c):
    """The contraction factor; ``1 - 2.1e-08`` rather than ``1`` when it is that close."""
    c = float(c)
    if math.isfinite(c) and 0.999 < c < 1.0:
        return f"1 - {1.0 - c:.2g}"
    return format_near(c)

def _binding(mu, composed):
    """Which term of the min binds; "composition" unless the convergent one is smaller by > 1e-6."""
    return "convergent" if mu < composed * (1.0 - 1e-6) else "composition"


_THEOREMS = {
    "noisy_gd": "Bok, Su, Altschuler (ICML 2024), Theorem 4.2 (convergent) / 4.1 (composition)",
    "noisy_cyclic_gd": "Bok, Su, Altschuler (ICML 2024), Theorem 4.5 (convergent) / 4.4 (composition)",
}


@dataclass(frozen=True, repr=False)
class PrivacyReport:
    """What a noisy-GD run guarantees, and every public constant the guarantee used.

    The run is ``mu``-GDP for replace-one neighbours, hence (epsilon, delta)-DP for every
    pair on the curve ``delta = gdp_to_delta(mu, epsilon)``; ``epsilon`` and ``delta``
    are the point that was asked for. Only the last iterate is released.

    Attributes
    ----------
    epsilon, delta : float
        The (epsilon, delta)-DP guarantee at the requested delta (``epsilon`` is the
        smallest epsilon the bound supports, never above the target of a calibrated run).
    mu : float
        Gaussian-DP parameter of the run (exact composition across runs:
        sqrt(sum mu_i^2)).
    accountant : str
        ``"noisy_gd"`` (full batch) or ``"noisy_cyclic_gd"``.
    theorem : str
        The theorems the bound comes from.
    binding_bound : str
        ``"convergent"`` when the convergent term is smaller than composition by more than
        1e-6 relative, else ``"composition"`` (for tiny lam the two coincide).
    neighbouring_relation : str
        Always ``"replace-one"`` (n is public).
    noise_std, n_steps, learning_rate, strong_convexity, smoothness, sensitivity, contraction
        sigma, K, eta, lam, beta, S and c (docs/theory.md#conventions, #loss-constants, #contraction).
    n_samples : int
        n (public).
    batch_size, n_epochs : int or None
        For the cyclic accountant: the smallest batch size used by the bound and E.
    composition_mu, composition_epsilon : float
        What composition (Theorem 4.1 / 4.4) would claim for the same run.
    chourasia_epsilon : float or None
        What Chourasia, Ye and Shokri (2021), Corollary 1, would claim at ``delta``;
        ``None`` when the theorem does not apply (see ``chourasia_note``).
    chourasia_note : str
    notes : tuple of str
        Anything else the user should know (e.g. which inputs were treated as public).
    """

    epsilon: float
    delta: float
    mu: float
    accountant: str
    theorem: str
    binding_bound: str
    noise_std: float
    n_steps: int
    learning_rate: float
    strong_convexity: float
    smoothness: float
    sensitivity: float
    contraction: float
    n_samples: int
    composition_mu: float
    composition_epsilon: float
    chourasia_epsilon: float | None
    chourasia_note: str
    batch_size: int | None = None
    n_epochs: int | None = None
    neighbouring_relation: str = NEIGHBOURING_RELATION
    notes: tuple = ()

    def epsilon_at(self, delta):
        """Smallest epsilon such that this run is (epsilon, delta)-DP.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        epsilon : float
            ``gdp_to_epsilon(mu, delta)`` (Dong, Roth, Su 2022, Corollary 2.13).
        """
        return gdp_to_epsilon(self.mu, delta)

    def delta_at(self, epsilon):
        """Smallest delta such that this run is (epsilon, delta)-DP.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        delta : float
            ``gdp_to_delta(mu, epsilon)`` (Dong, Roth, Su 2022, Corollary 2.13).
        """
        return gdp_to_delta(self.mu, epsilon)

    @property
    def event(self):
        """What this run released, as a privacy event: ``GaussianDpEvent(mu)``.

        The currency the ledger and the searches compose (:mod:`skdpgd.accounting._events`),
        with the neighbouring relation as a :class:`~skdpgd.accounting.NeighbouringRelation`.
        """
        from ._events import GaussianDpEvent, NeighbouringRelation

        return GaussianDpEvent(self.mu, NeighbouringRelation.parse(self.neighbouring_relation))

    def to_dict(self):
        """All fields as a plain dict (JSON-serialisable).

        Returns
        -------
        fields : dict
            Every attribute by name; ``notes`` as a list.
        """
        out = dataclasses.asdict(self)
        out["notes"] = list(self.notes)
        return out

    def __repr__(self):
        head = (
            f"PrivacyReport(({format_up(self.epsilon)}, {format_up(self.delta)})-DP, "
            f"mu={format_up(self.mu)}-GDP, "
            f"{self.neighbouring_relation} neighbours, last iterate only)"
        )
        lines = [
            head,
            f"  bound: {self.theorem}; binding: {self.binding_bound}",
            f"  run: sigma={format_near(self.noise_std)}, K={self.n_steps}, "
            f"eta={format_near(self.learning_rate)}, "
            f"n={self.n_samples}"
            + (f", batch={self.batch_size}, epochs={self.n_epochs}" if self.batch_size else ""),
            f"  constants: S={format_near(self.sensitivity)}, "
            f"lam={format_near(self.strong_convexity)}, beta={format_near(self.smoothness)}, "
            f"c={format_contraction(self.contraction)}",
            f"  composition would claim: mu={format_up(self.composition_mu)}, "
            f"epsilon={format_up(self.composition_epsilon)}",
            "  Chourasia et al. (2021) would claim: "
            + (f"epsilon={format_up(self.chourasia_epsilon)}"
               if self.chourasia_epsilon is not None
               else self.chourasia_note),
        ]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def _epsilon(mu, delta):
    return math.inf if mu == math.inf else gdp_to_epsilon(mu, delta)


def noisy_gd_report(
    noise_std, n_steps, *, delta, sensitivity, n_samples, learning_rate, strong_convexity,
    smoothness, notes=(),
):
    """Build the :class:`PrivacyReport` of a full-batch noisy GD run (bound (A)).

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
    report : PrivacyReport
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
    return PrivacyReport(
        epsilon=_epsilon(mu, delta), delta=float(delta), mu=mu, accountant="noisy_gd",
        theorem=_THEOREMS["noisy_gd"],
        binding_bound=_binding(mu, composed),
        noise_std=float(noise_std), n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity), smoothness=float(smoothness),
        sensitivity=float(sensitivity),
        contraction=contraction_factor(learning_rate, strong_convexity, smoothness),
        n_samples=int(n_samples), composition_mu=composed,
        composition_epsilon=_epsilon(composed, delta), chourasia_epsilon=chourasia,
        chourasia_note=note, notes=tuple(notes),
    )


def noisy_cyclic_gd_report(
    noise_std, n_epochs, *, delta, batch_size, sensitivity, n_samples, learning_rate,
    strong_convexity, smoothness, notes=(),
):
    """Build the :class:`PrivacyReport` of a cyclic mini-batch noisy GD run (bound (C)).

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
    report : PrivacyReport
        The guarantee, the constants it used and the comparison baselines.
    """
    sizes = cyclic_batch_sizes(n_samples, batch_size)
    b_min = int(sizes.min())
    mu = noisy_cyclic_gd_gdp(
        noise_std, n_epochs, batch_size=batch_size, sensitivity=sensitivity,
        n_samples=n_samples, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness,
    )
    composed = composition_gdp(noise_std, n_epochs, sensitivity=sensitivity, n_samples=b_min)
    return PrivacyReport(
        epsilon=_epsilon(mu, delta), delta=float(delta), mu=mu, accountant="noisy_cyclic_gd",
        theorem=_THEOREMS["noisy_cyclic_gd"],
        binding_bound=_binding(mu, composed),
        noise_std=float(noise_std), n_steps=int(n_epochs) * len(sizes),
        learning_rate=float(learning_rate), strong_convexity=float(strong_convexity),
        smoothness=float(smoothness), sensitivity=float(sensitivity),
        contraction=contraction_factor(learning_rate, strong_convexity, smoothness),
        n_samples=int(n_samples), composition_mu=composed,
        composition_epsilon=_epsilon(composed, delta), chourasia_epsilon=None,
        chourasia_note="does not apply: Corollary 1 is stated for full-batch noisy GD",
        batch_size=b_min, n_epochs=int(n_epochs), notes=tuple(notes),
    )


# --- sampled noisy SGD (docs/theory.md#sampled-sgd) ---------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SampledSGDPrivacyReport(PrivacyReport):
    """:class:`PrivacyReport` of a sampled noisy SGD run (min over the bounds that cover it).

    A sampled run is not Gaussian-DP in closed form: ``mu`` is ``nan`` and
    :meth:`epsilon_at` / :meth:`delta_at` recompute the bounds of
    :func:`skdpgd.accounting.sampled_sgd_bounds` instead. ``composition_mu`` is ``nan`` too;
    ``composition_epsilon`` is the composition bound's epsilon at ``delta``.

    Attributes
    ----------
    sampling : str
        ``"poisson"`` (rate q = b/n, sum normalised by the expected size b) or
        ``"uniform"`` (b rows without replacement).
    sampling_rate : float
        q = b / n.
    gradient_bound : float
        L (``sensitivity`` = 2L is the replace-one sensitivity of the batch sum).
    domain_radius : float or None
        Radius of the projection ball, None without projection.
    bound_epsilons : tuple of (str, float)
        epsilon at ``delta`` of every bound that applies; ``binding_bound`` is the smallest.
    not_applicable : tuple of (str, str)
        Bounds that do not cover the run, and why.
    discretization : float
        PLD grid used for the Poisson composition bound.
    """

    sampling: str = "poisson"
    sampling_rate: float = math.nan
    gradient_bound: float = math.nan
    domain_radius: float | None = None
    bound_epsilons: tuple = ()
    not_applicable: tuple = ()
    discretization: float = math.nan

    def _bounds(self, delta):
        from ._sgd_bounds import sampled_sgd_bounds

        return sampled_sgd_bounds(
            self.noise_std, self.n_steps, delta=delta, sampling=self.sampling,
            batch_size=self.batch_size, n_samples=self.n_samples,
            gradient_bound=self.gradient_bound, learning_rate=self.learning_rate,
            smoothness=self.smoothness, domain_radius=self.domain_radius,
            discretization=self.discretization,
        )

    @property
    def event(self):
        r"""What this run released, as a privacy event.

        Poisson sampling: ``PoissonSampledGaussianEvent(q, z, K)`` with the noise
        multiplier :math:`z = \sigma b / L` (``poisson_noise_multiplier`` in
        ``skdpgd.accounting._sampled_sgd``). This is the composition-with-amplification view of the
        run: when another bound binds in this report, an accountant composing the event
        charges more than the report says, never less. Uniform fixed-size batches: an
        ``UnsupportedEvent`` (no composition with other fits is implemented).
        """
        from ._events import NeighbouringRelation, PoissonSampledGaussianEvent, UnsupportedEvent
        from ._sampled_sgd import poisson_noise_multiplier

        relation = NeighbouringRelation.parse(self.neighbouring_relation)
        if self.sampling != "poisson":
            return UnsupportedEvent(
                f"sampled SGD with {self.sampling!r} sampling: only Poisson-sampled runs can "
                "be composed with other fits", relation)
        z = poisson_noise_multiplier(self.noise_std, batch_size=self.batch_size,
                                     gradient_bound=self.gradient_bound)
        return PoissonSampledGaussianEvent(self.sampling_rate, z, self.n_steps, relation)

    def epsilon_at(self, delta):
        """Smallest epsilon the bounds give for this run at ``delta``.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        epsilon : float
            The minimum over the bounds that apply (:func:`sampled_sgd_bounds`).
        """
        return self._bounds(delta).epsilon

    def delta_at(self, epsilon):
        """A delta (within 1e-3 relative, rounded up) such that the run is (epsilon, delta)-DP.

        Bisection on log delta over :meth:`epsilon_at` (non-increasing in delta); the
        returned delta's epsilon was computed and is <= ``epsilon``.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        delta : float
            1.0 when no delta below 1 works.
        """
        try:
            return invert_monotone(self.epsilon_at, float(epsilon), lower=1e-300,
                                   upper=1.0 - 1e-12, increasing=False, rtol=1e-3)
        except TargetUnreachableError:
            return 1.0

    def __repr__(self):
        lines = [
            f"PrivacyReport(({format_up(self.epsilon)}, {format_up(self.delta)})-DP, "
            f"{self.neighbouring_relation} neighbours, last iterate only)",
            f"  bound: {self.theorem}; binding: {self.binding_bound}",
            f"  run: {self.sampling} sampling q={format_near(self.sampling_rate)} "
            f"(b={self.batch_size}), sigma={format_near(self.noise_std)}, K={self.n_steps}, "
            f"eta={format_near(self.learning_rate)}, "
            f"n={self.n_samples}, projection radius={self.domain_radius}",
            f"  constants: L={format_near(self.gradient_bound)}, "
            f"S={format_near(self.sensitivity)}, lam={format_near(self.strong_convexity)}, "
            f"beta={format_near(self.smoothness)}",
        ]
        lines += [f"  {name}: epsilon={format_up(eps)}" for name, eps in self.bound_epsilons]
        lines += [f"  {name}: does not apply ({why})" for name, why in self.not_applicable]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def sampled_sgd_report(
    noise_std, n_steps, *, delta, sampling, batch_size, n_samples, gradient_bound,
    learning_rate, strong_convexity, smoothness, domain_radius=None, notes=(),
    discretization=None,
):
    """Build the :class:`SampledSGDPrivacyReport` of a sampled noisy SGD run.

    The guarantee is :func:`skdpgd.accounting.sampled_sgd_bounds` (min over composition
    with amplification and, for uniform fixed-size batches with a projection,
    Altschuler-Talwar eq. (3.3)). Needs the ``sgd`` extra (dp-accounting).

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
        b (expected size for Poisson sampling).
    n_samples : int
        n (public).
    gradient_bound : float
        L, the bound on a per-example gradient norm (S = 2L).
    learning_rate, strong_convexity, smoothness : float
        eta, lam and beta of the objective.
    domain_radius : float or None, default=None
        Radius of the projection ball; None without projection.
    notes : tuple of str, default=()
        Lines copied into the report's ``notes``.
    discretization : float or None, default=None
        PLD grid of the Poisson composition bound (None: the run's default).

    Returns
    -------
    report : SampledSGDPrivacyReport
        The minimum over the bounds that apply, each bound's epsilon and why the others
        do not apply.
    """
    from ._sampled_sgd import poisson_run_discretization
    from ._sgd_bounds import THEOREMS, sampled_sgd_bounds

    if discretization is None:  # the grid poisson_sgd_epsilon picks for this run
        discretization = poisson_run_discretization(
            noise_std, n_steps, batch_size=batch_size, n_samples=n_samples,
            gradient_bound=gradient_bound)
    discretization = float(discretization)
    bounds = sampled_sgd_bounds(
        noise_std, n_steps, delta=delta, sampling=sampling, batch_size=batch_size,
        n_samples=n_samples, gradient_bound=gradient_bound, learning_rate=learning_rate,
        smoothness=smoothness, domain_radius=domain_radius, discretization=discretization,
    )
    theorem = THEOREMS[bounds.binding_bound]
    if isinstance(theorem, dict):
        theorem = theorem[sampling]
    return SampledSGDPrivacyReport(
        epsilon=bounds.epsilon, delta=float(delta), mu=math.nan, accountant="sampled_sgd",
        theorem=theorem, binding_bound=bounds.binding_bound, noise_std=float(noise_std),
        n_steps=int(n_steps), learning_rate=float(learning_rate),
        strong_convexity=float(strong_convexity), smoothness=float(smoothness),
        sensitivity=2.0 * float(gradient_bound),
        contraction=contraction_factor(learning_rate, strong_convexity, smoothness),
        n_samples=int(n_samples), composition_mu=math.nan,
        composition_epsilon=bounds.epsilons["composition"], chourasia_epsilon=None,
        chourasia_note="does not apply: Corollary 1 is stated for full-batch noisy GD",
        batch_size=int(batch_size), notes=tuple(notes), sampling=sampling,
        sampling_rate=int(batch_size) / int(n_samples), gradient_bound=float(gradient_bound),
        domain_radius=None if domain_radius is None else float(domain_radius),
        bound_epsilons=tuple(sorted(bounds.epsilons.items())),
        not_applicable=tuple(sorted(bounds.not_applicable.items())),
        discretization=discretization,
    )
