r"""``solver="auto"``'s second choice: on the spectrum of the Gram it releases.

When the public choice of ``"auto"`` (:mod:`skdpgd.solvers._auto`) is a preconditioned
run, a noisy Gram :math:`\tilde G` is released anyway. Its spectrum tells what the
worst case over spectra of the public proxy cannot: whether the design is
ill-conditioned (the preconditioner pays) or isotropic (plain GD is better). So
(docs/theory.md#choosing-on-the-released-spectrum):

1. **before any value is read**: the Gram of the public pick is split into a probe
   (noise :math:`\tau/\sqrt q`, :math:`\mu_G = S_G/(n\tau_P)`, :data:`PROBE_FRACTION`)
   and a top-up (:math:`\tau/\sqrt{1-q}`), whose precisions add up to the pick's, and
   the candidate runs at
   :math:`\mu_{\mathrm{run}} = \sqrt{\mu^{*2} - \mu_G^2}` are planned from public numbers
   (:func:`spectral_plan`): GD and cyclic GD planned for :math:`\mu_{\mathrm{run}}`
   (their own accountants: convergent bound or composition, whichever is smaller), the
   preconditioned runs with the pick's Gram share and each margin factor (their top-up
   release and steps are :math:`\le\mu_{\mathrm{run}}`-GDP by the calibration of the
   pick's share, their step noise raised by a few ulps where a rounding would put the
   charge above the target: ``_after_probe``) at
   every compute budget of :data:`SPECTRAL_PASS_BUDGETS` (steps), so that a problem the
   released spectrum shows to be easy runs few steps. The
   report charges :math:`\sqrt{\mu_G^2 + \max_c\mu_c^2}` whichever candidate runs
   (:func:`skdpgd.accounting.gram_then_run_report`);
2. **the fit** releases the probe, scores every candidate with the proxy on its
   spectrum (:mod:`skdpgd.solvers._spectral_utility`) and runs the winner: a
   preconditioned one releases the top-up and runs on the two combined
   (:func:`combine_releases`: noise tau, its plan's), a GD one on the data; predictions
   within :data:`~skdpgd.solvers._utility.TIE_TOLERANCE` of the smallest go to the fewest
   passes. Nothing but :math:`\tilde G` and public numbers enters the choice
   (:func:`~skdpgd.solvers._spectral_choice.choose_on_spectrum`).

Without a Gram release (the public choice is GD or cyclic, or the design is wider than
``MAX_DENSE_DIM``), with ``epsilon=inf`` and with ``inference=True`` nothing changes.
"""

import math
from dataclasses import dataclass, replace

from .._data import gram_sum, single_threaded_blas
from ..accounting import (
    calibrate_run_after_gram,
    epsilon_delta_to_gdp,
    gdp_to_epsilon,
    gram_then_run_mu,
    gram_then_run_report,
)
from ..optim import release_gram
from ._capabilities import plan_candidates
from ._spectral_choice import _label, choose_on_spectrum

__all__ = ["SpectralChoicePlan", "SpectralChoiceSolver", "spectral_plan"]

#: The run's share of the budget is planned this much below sqrt(mu*^2 - mu_G^2), so that
#: the composed epsilon cannot exceed the target by a rounding.
RUN_MARGIN = 1e-9

#: Compute budgets (steps) of the preconditioned candidates chosen on the released
#: spectrum: each setting at each budget. gd and cyclic keep the public choice's budget:
#: with theirs at 10 and 20 passes too, an unfinished gd run predicted within the tie
#: tolerance of a finished one won on a 400-row table and lost .1 of accuracy (the proxy
#: of a classifier does not see the offset, which an unfinished run has not fitted).
SPECTRAL_PASS_BUDGETS = (10, 20, 50)

#: The probe's fraction q of the pick's Gram precision (its share of mu^2): the fit first
#: releases the Gram with noise tau / sqrt(q) and chooses on that spectrum; a preconditioned
#: winner then releases the rest (noise tau / sqrt(1 - q)) and combines the two draws into
#: the planned Gram of noise tau, losing nothing (precisions add); a gd or cyclic winner
#: has paid q s mu*^2 only. q = 1/4 doubles the probe's noise (its resolved eigenvalues
#: are those above twice the planned margin) and leaves a plain-step winner
#: (1 - s/4) mu*^2 instead of (1 - s) mu*^2.
PROBE_FRACTION = 0.25


@dataclass(frozen=True)
class SpectralChoicePlan:
    """What ``"auto"`` plans when its public choice releases a Gram (all public).

    Parameters
    ----------
    public_plan : PreconditionedGDPlan
        The public choice: its Gram noise tau is that of the Gram a preconditioned winner
        runs on (the probe and the top-up combined).
    candidates : tuple
        The candidates' plans at mu_run (each names its solver).
    run_reports : tuple
        Their reports (a preconditioned one's: its Gram at tau and its steps).
    run_mus : tuple of float
        Each candidate's own GDP parameter after the probe (a preconditioned one's: the
        top-up Gram release and its steps, composed).
    gram_mu : float
        mu_G of the probe, the Gram release the choice reads.
    problem : PublicProblem
        The public numbers the candidates are scored with.
    n_steps, strong_convexity : int, float
        The public choice's (a fitted model reports the winner's).
    solver : SpectralChoiceSolver
        The solver that runs the plan.
    notes : tuple of str
        Public notes for the report.
    without_choice : dataclass, optional
        The plan ``"auto"`` runs where no second choice follows (private inference),
        where it differs from ``public_plan`` (chosen for its Gram's route,
        :mod:`skdpgd.solvers._gram_route`).
    public_index : int
        The public choice's place among ``candidates`` (its settings after the probe,
        ``_after_probe``), whose report the planned guarantee names.
    """

    public_plan: object
    candidates: tuple
    run_reports: tuple
    run_mus: tuple
    gram_mu: float
    problem: object
    n_steps: int
    strong_convexity: float
    solver: object = None
    notes: tuple = ()
    without_choice: object = None
    public_index: object = None

    @property
    def plan_without_choice(self):
        """The plan to run where no second choice follows (private inference)."""
        return self.public_plan if self.without_choice is None else self.without_choice

    @property
    def run_mu(self):
        """The largest GDP parameter of the candidates: what the run is charged."""
        return max(self.run_mus)

    @property
    def probe_noise_std(self):
        """tau / sqrt(q): the noise of the probe, the release the choice reads."""
        return _split(self.public_plan.gram_noise_std)[0]

    @property
    def top_up_noise_std(self):
        """tau / sqrt(1 - q): the noise of the rest of a preconditioned winner's Gram."""
        return _split(self.public_plan.gram_noise_std)[1]


def spectral_plan(problem, public_plan, found, settings=None):
    """The :class:`SpectralChoicePlan` of ``problem`` whose public choice is ``public_plan``.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.
    public_plan : PreconditionedGDPlan
        ``"auto"``'s public choice (a preconditioned plan).
    found : callable
        ``found(problem, budgets)``: ``"auto"``'s candidate solvers of a problem at
        those compute budgets (:func:`skdpgd.solvers._auto.candidates`).
    settings : list of PreconditionedGDPlan, optional
        ``"auto"``'s preconditioned candidates on ``problem``, planned with their noise
        at the closed form (:func:`~skdpgd.solvers._preconditioned.plan_together` with
        ``calibrate=False``): those of the pick's Gram share are calibrated here
        (:func:`~skdpgd.solvers._preconditioned.calibrate_preconditioned`), the plans
        their solvers give alone, instead of planned again. Default: planned here.

    Returns
    -------
    SpectralChoicePlan or None
        None where there is nothing to choose on (``epsilon=inf``, or a composed epsilon
        that a rounding would put above the target).
    """
    target = epsilon_delta_to_gdp(problem.epsilon, problem.delta)
    if not math.isfinite(target) or public_plan.gram_noise_std == 0.0:
        return None  # no noise: nothing to choose on (and nothing to gain)
    probe_tau, top_up_tau = _split(public_plan.gram_noise_std)
    gram_mu = public_plan.gram_sensitivity / (problem.n_samples * probe_tau)  # the probe's
    top_up_mu = public_plan.gram_sensitivity / (problem.n_samples * top_up_tau)
    if not gram_mu < target:
        return None
    run_target = math.sqrt(target * target - gram_mu * gram_mu) * (1.0 - RUN_MARGIN)
    run_problem = replace(problem, epsilon=gdp_to_epsilon(run_target, problem.delta))
    share = public_plan.gram_share
    # gd and cyclic: one search of the grid for all of them, each calibrated as its own
    # plan() would be, at the public pick's budget
    plain = [solver for solver in found(run_problem)
             if solver.second_choice and not solver.releases_gram]
    found_plans = plan_candidates(run_problem, plain, calibrate=True)
    found_plans += public_plan.solver.gram_settings(problem, share, found, settings,
                                                    SPECTRAL_PASS_BUDGETS)
    plans, reports, mus, seen = [], [], [], set()
    public_key, public_index = repr(replace(public_plan, solver=None, notes=())), None
    for plan in found_plans:  # a plan that another budget reached already is listed once
        key = repr(replace(plan, solver=None))
        if key in seen:
            continue
        seen.add(key)
        if public_index is None and repr(replace(plan, solver=None, notes=())) == public_key:
            public_index = len(plans)  # the public choice among the candidates
        if not plan.solver.releases_gram:
            report = plan.solver.report(plan, run_problem)
            mu = report.mu
        else:  # the top-up Gram release and its steps (the probe is counted once)
            after = _after_probe(plan, problem, probe_tau, top_up_mu)
            if after is None:  # not reached (a rounding is a few ulps): the public choice
                return None
            plan, report, mu = after
        plans.append(plan), reports.append(report), mus.append(mu)
    if public_index is None:  # not reached (its settings are among the candidates)
        return None
    composed = gram_then_run_mu(probe_tau, public_plan.gram_sensitivity, problem.n_samples,
                                max(mus))  # as the report composes
    if not (composed <= target and gdp_to_epsilon(composed, problem.delta) <= problem.epsilon):
        return None  # not reached (every candidate meets it): keep the public choice
    note = (f"solver='auto' will choose again on the released Gram's spectrum among "
            f"{', '.join(map(_label, plans))}; charged mu = sqrt(mu_G^2 + mu_run^2) whichever "
            f"runs, mu_G the probe's (tau={probe_tau:.4g}); a preconditioned winner releases "
            f"the rest of its Gram (tau={top_up_tau:.4g}, in mu_run) and runs on the two "
            f"combined (tau={public_plan.gram_noise_std:.4g}) "
            "(docs/theory.md#choosing-on-the-released-spectrum)")
    return SpectralChoicePlan(
        public_plan=public_plan, candidates=tuple(plans), run_reports=tuple(reports),
        run_mus=tuple(mus), gram_mu=gram_mu, problem=problem, n_steps=public_plan.n_steps,
        strong_convexity=public_plan.strong_convexity, solver=SpectralChoiceSolver(),
        notes=(*public_plan.notes, note), public_index=public_index,
    )


def _after_probe(plan, problem, probe_tau, top_up_mu):
    r"""(plan, report, mu_c) of a preconditioned candidate whose charge after the probe
    meets the target.

    Calibrated alone, the candidate's Gram (noise tau) and steps compose to at most
    :math:`\mu^*`; after the probe its own part is the top-up and the steps,
    :math:`\mu_c = \mathrm{hypot}(\mu_T, \mu_{\mathrm{steps}})`, and the charge
    :math:`\sqrt{\mu_G^2 + \mu_c^2}` equals its own composition in exact arithmetic, but
    in floats may exceed :math:`\mu^*` by an ulp (about 4% of public problems; the whole
    second choice was then dropped). Its step noise is scaled by the first factor
    :math:`(1 + 10^{-12})^j` that meets the target
    (:func:`~skdpgd.accounting.calibrate_run_after_gram`): 1, the plan unchanged, wherever
    the rounding falls on the safe side. None where no factor within
    :math:`2 \times 10^{-10}` does (not a rounding; the fit keeps the public choice).
    """

    def run_mu(scale):
        scaled = plan if scale == 1.0 else replace(plan, noise_std=plan.noise_std * scale)
        return math.hypot(top_up_mu, scaled.solver.report(scaled, problem).steps_mu)

    try:
        scale = calibrate_run_after_gram(
            run_mu, gram_noise_std=probe_tau, gram_sensitivity=plan.gram_sensitivity,
            n_samples=problem.n_samples, epsilon=problem.epsilon, delta=problem.delta)
    except RuntimeError:  # more than 2e-10 over: not a rounding (None keeps the public
        return None  # choice, which meets the target alone)
    if scale != 1.0:
        plan = replace(plan, noise_std=plan.noise_std * scale)
    report = plan.solver.report(plan, problem)
    return plan, report, math.hypot(top_up_mu, report.steps_mu)


def _split(tau):
    r"""(probe, top-up) noise std of the two Gram releases whose precisions add up to the
    planned tau's: :math:`1/\tau_P^2 + 1/\tau_T^2 = 1/\tau^2` with
    :math:`\tau_P = \tau/\sqrt q`, :math:`\tau_T = \tau/\sqrt{1-q}`."""
    return tau / math.sqrt(PROBE_FRACTION), tau / math.sqrt(1.0 - PROBE_FRACTION)


def combine_releases(probe, top_up):
    r"""The Gram of noise tau from the probe and the top-up (:func:`_split`): their
    precision-weighted mean :math:`q\tilde G_P + (1-q)\tilde G_T`, whose noise is
    :math:`qE_P + (1-q)E_T`, of variance :math:`q^2\tau^2/q + (1-q)^2\tau^2/(1-q) =
    \tau^2` per entry (post-processing of the two releases)."""
    return PROBE_FRACTION * probe + (1.0 - PROBE_FRACTION) * top_up


class SpectralChoiceSolver:
    """Runs a :class:`SpectralChoicePlan`: release the Gram, choose, run (module docstring).

    Not a registered solver: ``"auto"`` (:class:`~skdpgd.solvers.AutoSolver`) delegates
    to it when its plan is a :class:`SpectralChoicePlan`.
    """

    name = "auto"

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def report(self, plan, problem, notes=(), index=None):
        """The report charged for ``plan`` (the run named: the public choice's, or
        candidate ``index``'s once it ran).

        Parameters
        ----------
        plan : SpectralChoicePlan
        problem : PublicProblem
        notes : tuple of str, default=()
        index : int, optional
            The candidate that ran.

        Returns
        -------
        GramThenRunPrivacyReport
        """
        public = plan.public_plan
        if index is None:  # before the data: the guarantee, naming the public choice as
            # it would run after the probe
            run, own = plan.run_reports[plan.public_index], plan.run_mus[plan.public_index]
            label, batch = f"planned {_label(public)}; chosen on the released Gram", None
        else:
            run, chosen = plan.run_reports[index], plan.candidates[index]
            label, own = _label(chosen), plan.run_mus[index]
            batch = getattr(run, "batch_size", None)
        return gram_then_run_report(
            run, run_solver=label, run_own_mu=own, run_mu=plan.run_mu,
            gram_noise_std=plan.probe_noise_std, gram_sensitivity=public.gram_sensitivity,
            delta=problem.delta, candidates=tuple(map(_label, plan.candidates)),
            batch_size=batch, notes=tuple(notes) + plan.notes,
        )

    def predict(self, plan, problem):
        """The public choice's prediction (the spectrum is not known before the fit)."""
        return plan.public_plan.solver.predict(plan.public_plan, problem)

    def run(self, data, loss, plan, rng, callback=None):
        """The last iterate of :meth:`run_chosen`."""
        return self.run_chosen(data, loss, plan, None, rng, callback)[0]

    def run_released(self, data, loss, plan, rng, callback=None):
        """Refused: a run chosen on the released Gram hands on no release.

        Private inference (``inference=True``) plans and runs ``"auto"``'s public choice
        (``plan.public_plan``), whose report covers what it hands on; it never reaches
        here. The refusal reads no data (it depends on the plan's type only).

        Raises
        ------
        TypeError
            Always, naming the plan to run instead.
        """
        raise TypeError(
            "a run chosen on the released Gram hands on no release; private inference "
            "runs auto's public choice: call run_released with plan.public_plan."
        )

    def run_chosen(self, data, loss, plan, report, rng, callback=None):
        """Release the Gram, choose on its spectrum, run the winner.

        Parameters
        ----------
        data, loss, plan, rng, callback
            As in :meth:`skdpgd.solvers.Solver.run`.
        report : GramThenRunPrivacyReport or None
            The charged report (its notes are kept; the run's fields become the
            winner's).

        Returns
        -------
        coef : ndarray
            The last iterate.
        plan : dataclass
            The winner's plan.
        report : GramThenRunPrivacyReport or None
            The charged report naming the winner (post-processing: same mu and epsilon).
        """
        problem = plan.problem
        n_samples = data.n_samples
        row_sums = data.row_sums(loss.gradient_sum)
        with single_threaded_blas(), row_sums:
            gram = gram_sum(row_sums, n_samples, data.coef_shape[-1])
            probe = release_gram(gram, n_samples, plan.probe_noise_std, rng)
            index, notes = choose_on_spectrum(plan, problem, probe)  # reads the probe only
            chosen = plan.candidates[index]
            released = None
            if chosen.solver.releases_gram:  # the rest of its Gram
                top_up = release_gram(gram, n_samples, plan.top_up_noise_std, rng)
                released = combine_releases(probe, top_up)
            del gram  # from here on only the released Grams
            # on this engine (a full batch, or the released Gram), else None
            coef = chosen.solver.run_after_gram(row_sums, data, released, chosen, rng, callback)
        if coef is None:  # its own row sets
            coef = chosen.solver.run(data, loss, chosen, rng, callback)
        if report is not None:
            report = replace(self.report(plan, problem, index=index), notes=report.notes + notes)
        return coef, chosen, report
