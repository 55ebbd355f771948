r"""A Gram release followed by a run chosen on it: the report of ``solver="auto"``'s second choice.

When ``solver="auto"`` plans a Gram-preconditioned run, the fit releases the noisy Gram
first (:math:`\mu_G`-GDP, the Gaussian mechanism of :mod:`skdpgd.optim._gram_release`),
then chooses among candidate runs by a proxy evaluated on the released spectrum and runs
the winner (:mod:`skdpgd.solvers._spectral`). Every candidate is calibrated, before any
value is read, to at most :math:`\mu_{\mathrm{run}}`-GDP under its own accountant (Bok,
Su and Altschuler's convergent bound or composition for GD and cyclic GD; composition of
its noisy steps for a preconditioned run on the released Gram). Then, whichever candidate
the released Gram selects, the fit is

.. math::

    \mu = \sqrt{\mu_G^2 + \mu_{\mathrm{run}}^2}\text{-GDP}

by the adaptive composition theorem of Gaussian DP (Dong, Roth and Su 2022, Theorem 3.2:
the second mechanism may depend on the first one's output as long as it is
:math:`G_{\mu_{\mathrm{run}}}`-DP for every such output; Corollary 3.3:
:math:`G_{\mu_1}\otimes G_{\mu_2} = G_{\sqrt{\mu_1^2+\mu_2^2}}`), with
:math:`\mu_{\mathrm{run}} = \max_c \mu_c`. The charge is fixed before the data are read;
which candidate ran is post-processing of the two releases (docs/theory.md,
"Choosing on the released spectrum").

References
----------
.. [1] J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS B 84 (2022),
   Theorem 2.7, Theorem 3.2, Corollary 3.3.
"""

import math
from dataclasses import dataclass

from ._checks import check_count, check_positive, check_probability
from ._format import format_near, format_up
from ._gdp import epsilon_delta_to_gdp
from ._inverter import nudge_up
from ._report import GaussianRunPrivacyReport, epsilon_of

__all__ = ["GramThenRunPrivacyReport", "calibrate_run_after_gram", "gram_then_run_mu",
           "gram_then_run_report"]

THEOREM = (
    "Dong, Roth, Su (JRSS B 2022), Theorem 2.7 (the Gram release), Theorem 3.2 and "
    "Corollary 3.3 (adaptive composition with a run chosen on the released Gram)"
)


@dataclass(frozen=True, repr=False, kw_only=True)
class GramThenRunPrivacyReport(GaussianRunPrivacyReport):
    r"""The report of a Gram release followed by a run chosen on it (module docstring).

    ``mu`` is exact: :math:`\sqrt{\mu_G^2 + \mu_{\mathrm{run}}^2}`, fixed before the data
    are read; ``binding_bound`` is ``"composition"`` (of the two releases) and
    ``run_binding_bound`` the bound that binds in the run. The run's fields (``noise_std``,
    ``n_steps``, ``learning_rate``, ``strong_convexity``, ``smoothness``, ``run_*``) are
    those of the run that ran once the model is fitted, and of the run public planning
    picked in a report planned without data (``plan_privacy``).

    Attributes
    ----------
    gram_noise_std : float
        tau, the noise std of each released upper-triangle entry of the averaged Gram.
    gram_sensitivity : float
        :math:`S_G = \sqrt2\,\tilde R^2`.
    gram_mu : float
        :math:`\mu_G = S_G/(n\tau)`.
    run_mu : float
        :math:`\mu_{\mathrm{run}}`, the largest GDP parameter of the candidate runs (what
        is charged for the run, whichever runs).
    run_solver : str
        The candidate that ran (or that public planning picked).
    run_accountant, run_theorem, run_binding_bound : str
        Its accountant, the theorems of its bound and the bound that binds for it.
    run_own_mu : float
        Its own GDP parameter (<= ``run_mu``).
    batch_size : int or None
        Its batch size (cyclic runs; None otherwise).
    candidates : tuple of str
        The candidate runs the released spectrum chooses among.
    """

    accountant: str = "gram_then_run"
    theorem: str = THEOREM
    binding_bound: str = "composition"
    gram_noise_std: float
    gram_sensitivity: float
    gram_mu: float
    run_mu: float
    run_solver: str
    run_accountant: str
    run_theorem: str
    run_binding_bound: str
    run_own_mu: float
    batch_size: int | None = None
    candidates: tuple = ()

    def to_dict(self):
        """All fields as a plain dict (JSON-serialisable).

        Returns
        -------
        fields : dict
            Every attribute by name; ``notes`` and ``candidates`` as lists.
        """
        out = super().to_dict()
        out["candidates"] = list(self.candidates)
        return out

    def _lines(self):
        return [
            *super()._lines(),
            f"  Gram release: tau={format_near(self.gram_noise_std)}, "
            f"S_G={format_near(self.gram_sensitivity)}, mu_G={format_up(self.gram_mu)}",
            f"  run ({self.run_solver}): sigma={format_near(self.noise_std)}, "
            f"K={self.n_steps}, eta={format_near(self.learning_rate)}, "
            f"mu_run={format_up(self.run_mu)} charged (its own bound: "
            f"{format_up(self.run_own_mu)}, {self.run_theorem}; binding: "
            f"{self.run_binding_bound})",
            f"  constants: S={format_near(self.sensitivity)}, "
            f"lam={format_near(self.strong_convexity)}, beta={format_near(self.smoothness)}",
            f"  candidates chosen among on the released spectrum: {', '.join(self.candidates)}",
        ]


def gram_then_run_report(run, *, run_solver, run_own_mu, run_mu, gram_noise_std,
                         gram_sensitivity, delta, candidates=(), batch_size=None, notes=()):
    r"""Build the :class:`GramThenRunPrivacyReport` of a Gram release and a run.

    Parameters
    ----------
    run : GaussianRunPrivacyReport
        The report of the run that ran (or that public planning picked): its public
        numbers (sigma, K, eta, lam, smoothness, S, n), accountant, theorem and binding
        bound are copied.
    run_solver : str
        Its label.
    run_own_mu : float
        Its own GDP parameter (for a preconditioned run chosen on a probe of the Gram, that
        of its top-up Gram release and its K steps, composed).
    run_mu : float
        :math:`\mu_{\mathrm{run}} \ge` ``run_own_mu``, the largest GDP parameter of the
        candidates (what is charged).
    gram_noise_std, gram_sensitivity : float
        tau and S_G of the Gram release the choice reads (the probe).
    delta : float
        The delta the report's epsilon is stated at.
    candidates : tuple of str, default=()
        The candidate runs.
    batch_size : int, optional
        The run's batch size (cyclic runs).
    notes : tuple of str, default=()
        Lines for the report.

    Returns
    -------
    GramThenRunPrivacyReport
        :math:`\mu = \sqrt{\mu_G^2 + \mu_{\mathrm{run}}^2}` and epsilon at ``delta``.
    """
    delta = check_probability("delta", delta)
    tau = check_positive("gram_noise_std", gram_noise_std, allow_zero=True, allow_inf=True)
    s_g = check_positive("gram_sensitivity", gram_sensitivity)
    n = check_count("n_samples", run.n_samples)
    run_mu = check_positive("run_mu", run_mu, allow_zero=True, allow_inf=True)
    own = check_positive("run_own_mu", run_own_mu, allow_zero=True, allow_inf=True)
    if own > run_mu:
        raise ValueError(f"run_own_mu={own!r} exceeds the charged run_mu={run_mu!r}.")
    gram_mu = _gram_mu(tau, s_g, n)
    mu = gram_then_run_mu(tau, s_g, n, run_mu)
    return GramThenRunPrivacyReport(
        epsilon=epsilon_of(mu, delta), delta=delta, mu=mu, noise_std=run.noise_std,
        n_steps=run.n_steps, learning_rate=run.learning_rate,
        strong_convexity=run.strong_convexity, smoothness=run.smoothness,
        sensitivity=run.sensitivity, n_samples=n, notes=tuple(notes),
        gram_noise_std=tau, gram_sensitivity=s_g, gram_mu=gram_mu, run_mu=run_mu,
        run_solver=str(run_solver), run_accountant=run.accountant, run_theorem=run.theorem,
        run_binding_bound=run.binding_bound, run_own_mu=own,
        batch_size=None if batch_size is None else int(batch_size),
        candidates=tuple(candidates),
    )


def _gram_mu(gram_noise_std, gram_sensitivity, n_samples):
    """mu_G = S_G / (n tau) of the Gram release (inf for tau = 0)."""
    if gram_noise_std == 0.0:
        return math.inf
    return gram_sensitivity / (n_samples * gram_noise_std)


def gram_then_run_mu(gram_noise_std, gram_sensitivity, n_samples, run_mu):
    r"""The charge of a Gram release and a run, :math:`\sqrt{\mu_G^2 + \mu_{\mathrm{run}}^2}`.

    :math:`\mu_G = S_G/(n\tau)`; Dong, Roth and Su (2022), Corollary 3.3 (module
    docstring). The one place this composition is computed: the report
    (:func:`gram_then_run_report`) and the calibration that must meet it
    (:func:`calibrate_run_after_gram`) get the same float.

    Parameters
    ----------
    gram_noise_std, gram_sensitivity : float
        tau (0: an exact release, mu_G = inf) and S_G of the Gram release.
    n_samples : int
        n.
    run_mu : float
        :math:`\mu_{\mathrm{run}}`.

    Returns
    -------
    float
        The composed GDP parameter (inf for an exact Gram or an infinite run_mu).
    """
    tau = check_positive("gram_noise_std", gram_noise_std, allow_zero=True, allow_inf=True)
    gram_mu = _gram_mu(tau, check_positive("gram_sensitivity", gram_sensitivity),
                       check_count("n_samples", n_samples))
    run_mu = check_positive("run_mu", run_mu, allow_zero=True, allow_inf=True)
    return math.sqrt(gram_mu * gram_mu + run_mu * run_mu)


def calibrate_run_after_gram(run_mu_of, *, gram_noise_std, gram_sensitivity, n_samples,
                             epsilon, delta):
    r"""The factor of a run's noise that makes its charge after a Gram release meet a target.

    A run whose noise is scaled by f has the GDP parameter ``run_mu_of(f)`` (falling
    with f). The factor returned is the first :math:`f = (1 + 10^{-12})^j`, j = 0, 1, ...
    for which the composed charge :math:`\mu = ` :func:`gram_then_run_mu` is at most
    :math:`\mu^*(\varepsilon, \delta)` and its epsilon at ``delta`` at most ``epsilon``:
    1 for a run planned within :math:`\sqrt{\mu^{*2} - \mu_G^2}` with room for rounding,
    and the smallest safe factor (a few ulps of noise) for one planned for that budget
    exactly, whose composition a float rounding can put one ulp above the target
    (docs/theory.md#choosing-on-the-released-spectrum).

    Parameters
    ----------
    run_mu_of : callable
        ``run_mu_of(f) -> float``, non-increasing in f >= 1.
    gram_noise_std, gram_sensitivity : float
        tau and S_G of the Gram release.
    n_samples : int
        n.
    epsilon, delta : float
        The target.

    Returns
    -------
    float
        f >= 1.

    Raises
    ------
    RuntimeError
        If no factor within 200 steps of :math:`10^{-12}` meets the target (the run was
        not planned within the budget: a bug of the caller).
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_probability("delta", delta)
    check_positive("gram_noise_std", gram_noise_std, allow_inf=True)  # an exact Gram
    # release (tau = 0) meets no finite target
    target = epsilon_delta_to_gdp(epsilon, delta)

    def excess(scale):  # <= 0 when the composed charge meets the target
        mu = gram_then_run_mu(gram_noise_std, gram_sensitivity, n_samples, run_mu_of(scale))
        return max(mu - target, epsilon_of(mu, delta) - epsilon)

    return nudge_up(excess, 0.0, 1.0)
