r"""``skdpgd account``: the run an estimator would plan for (epsilon, delta, n, d), and baselines.

Every number comes from the core: the estimator's own planner
(:meth:`skdpgd.DPLogisticRegression.plan_privacy`, with the loss constants of
:mod:`skdpgd.losses` and the defaults of :mod:`skdpgd.linear_model._defaults`), so ``skdpgd
account`` prints exactly the sigma, K and mu that ``fit`` on any data set of that shape would use
(the planner reads only public numbers). The baselines answer: what noise would the
same K steps need for the same (epsilon, delta) if accounted

- by composition (Bok, Su, Altschuler 2024, Theorem 4.1; docs/theory.md#bound-e), with
  :func:`skdpgd.accounting.composition_gdp`, which is S sqrt(K) / (n sigma), linear in
  1/sigma; and
- by Chourasia, Ye, Shokri (2021), Corollary 1 (docs/theory.md#bound-d), with
  :func:`skdpgd.accounting.chourasia_rdp` converted by
  :func:`skdpgd.accounting.rdp_to_epsilon`. That theorem needs eta < 1/beta, so it is
  evaluated at its most favourable admissible step (eta -> 1/beta: its bound decreases
  in eta), at the same K and lam.
"""

import math

import numpy as np

from .. import accounting
from ..accounting._inverter import TargetUnreachableError, invert_monotone

#: Step used for Chourasia et al.'s bound, as a fraction of 1/beta (it needs eta < 1/beta).
CHOURASIA_STEP_FRACTION = 1.0 - 1e-9


def composition_noise(report, epsilon):
    """sigma that composition (Theorem 4.1) needs for the report's K, n, S and (epsilon, delta).

    ``composition_gdp`` is :math:`\\sqrt K S / (n\\sigma)`, so the noise meeting the
    target mu* is ``composition_gdp(1, K) / mu*``. For a cyclic run a record is in one
    batch per epoch: E steps of sensitivity S / b touch it (b the smallest batch), as in
    :func:`skdpgd.accounting.noisy_cyclic_gd_report`.
    """
    target = accounting.epsilon_delta_to_gdp(epsilon, report.delta)
    if target == math.inf:
        return 0.0
    if isinstance(report, accounting.NoisyCyclicGDPrivacyReport):
        # a record is in one batch per epoch, E steps touch it
        steps, size = report.n_epochs, report.batch_size
    else:
        steps, size = report.n_steps, report.n_samples
    return accounting.composition_gdp(
        1.0, steps, sensitivity=report.sensitivity, n_samples=size
    ) / target


def chourasia_noise(report, epsilon):
    """sigma Chourasia et al.'s Corollary 1 needs for (epsilon, delta) at the same K and lam.

    Evaluated at eta = (1 - 1e-9) / beta, the largest step the corollary admits (its bound
    decreases in eta). The RDP curve is proportional to 1/sigma^2, so the
    (epsilon, delta) it gives is decreasing in sigma; the smallest admissible sigma is
    found by bisection on log sigma and rounded up. Returns None when the corollary
    cannot apply (lam = 0, or a cyclic run: it is stated for full-batch GD).
    """
    if report.accountant != "noisy_gd" or report.strong_convexity <= 0.0:
        return None
    if epsilon == math.inf:
        return 0.0
    eta = CHOURASIA_STEP_FRACTION / report.smoothness
    orders = accounting.DEFAULT_ORDERS
    unit = accounting.chourasia_rdp(
        orders, 1.0, report.n_steps, sensitivity=report.sensitivity,
        n_samples=report.n_samples, learning_rate=eta,
        strong_convexity=report.strong_convexity, smoothness=report.smoothness,
    )

    def epsilon_of(sigma):  # RDP at noise sigma is unit / sigma^2 (bound (D) is ~ 1/s^2)
        return accounting.rdp_to_epsilon(orders, unit / sigma**2, report.delta)

    try:  # from 1 by factors of 10, then bisection in log space to the smallest that meets
        return invert_monotone(epsilon_of, epsilon, lower=1e-12, upper=1e300,
                               increasing=False, start=1.0, growth=10.0, rtol=1e-12)
    except TargetUnreachableError:
        return math.inf


def bound_values(report):
    """Every bound of a gd or cyclic run at its noise: [(name, mu or None, why not)].

    Composition (Theorem 4.1 / 4.4), the strongly convex bound (Theorem 4.2 / 4.5: its
    factor times composition's unit S/(n sigma), resp. S/(b sigma)) and the convex
    bounded-domain bound (Theorem 4.3 / bound (F), diameter D of the run's ball), in the
    order of the report's theorem; None with the reason where one does not apply.
    """
    cyclic = isinstance(report, accounting.NoisyCyclicGDPrivacyReport)
    passes = report.n_epochs if cyclic else report.n_steps
    unit = report.composition_mu / math.sqrt(passes) if passes > 0 else 0.0
    names = (("Theorem 4.4 (composition)", "Theorem 4.5 (strongly convex)",
              "bound (F) (convex, bounded domain, cyclic)") if cyclic else
             ("Theorem 4.1 (composition)", "Theorem 4.2 (strongly convex)",
              "Theorem 4.3 (convex, bounded domain)"))
    out = [(names[0], report.composition_mu, None)]
    if report.contraction >= 1.0 and cyclic:
        # Theorem 4.5 at c = 1 (lam = 0) is its limit 1 + (E - 1)/l (docs/theory.md): the
        # factor is finite, but the bound is no longer a strongly convex one.
        factor = accounting.convergent_cyclic_factor(
            1.0, report.n_steps // report.n_epochs, passes)
        out.append(("Theorem 4.5 (its c = 1 limit, lam = 0)", unit * factor, None))
    elif report.contraction >= 1.0:
        out.append((names[1], None, "does not apply: c = 1 (lam = 0)"))
    else:
        factor = (accounting.convergent_cyclic_factor(
            report.contraction, report.n_steps // report.n_epochs, passes) if cyclic
            else accounting.convergent_gd_factor(report.contraction, passes))
        out.append((names[1], unit * factor, None))
    if report.diameter is None:
        out.append((names[2], None, "not reported: no ball"))
    elif math.isfinite(report.bounded_domain_mu):
        out.append((names[2], report.bounded_domain_mu, None))
    else:
        burn_in = accounting.convex_gd_burn_in(
            sensitivity=report.sensitivity, n_samples=report.n_samples,
            learning_rate=report.learning_rate, diameter=report.diameter)
        out.append((names[2], None, f"inf: K={report.n_steps} is below its burn-in "
                                    f"tau*={burn_in} steps (D={report.diameter:.6g})"))
    return out


def binding_lines(report):
    """``binding bound:`` and each bound's (mu, epsilon) at the run's noise (gd, cyclic)."""
    lines = [f"binding bound: {report.binding_bound}; every bound at this run's noise "
             f"(sigma={report.noise_std:.6g}), epsilon at delta={report.delta:.3g}:"]
    for name, mu, why in bound_values(report):
        value = why if mu is None else (
            f"mu={mu:.6g}, epsilon={accounting.epsilon_of(mu, report.delta):.6g}")
        lines.append(f"  {name:<44}{value}")
    return lines


def account_lines(report, epsilon):
    """The table ``skdpgd account`` prints (list of str)."""
    sigma = report.noise_std
    comp = composition_noise(report, epsilon)
    chou = chourasia_noise(report, epsilon)
    lines = [
        f"target: ({epsilon:g}, {report.delta:.3g})-DP  <=>  mu* = "
        f"{accounting.epsilon_delta_to_gdp(epsilon, report.delta):.6g}-GDP "
        f"({report.neighbouring_relation} neighbours, n={report.n_samples} public)",
        f"calibrated run ({report.accountant}): sigma={sigma:.6g}, K={report.n_steps}, "
        f"eta={report.learning_rate:.6g}, lam={report.strong_convexity:.6g}"
        + (f", batch={report.batch_size}, epochs={report.n_epochs}"
           if isinstance(report, accounting.NoisyCyclicGDPrivacyReport) else ""),
        f"guarantee: mu={report.mu:.6g}-GDP, epsilon={report.epsilon:.6g} at delta="
        f"{report.delta:.3g}; bound: {report.theorem} ({report.binding_bound} term binds)",
    ]
    if report.accountant not in ("noisy_gd", "noisy_cyclic_gd"):  # composition is the bound
        if hasattr(report, "run_mu"):  # auto: a run chosen on the released Gram
            lines.append(f"Gram release: tau={report.gram_noise_std:.6g}, "
                         f"mu_G={report.gram_mu:.6g}; then the run chosen on its spectrum: "
                         f"mu_run={report.run_mu:.6g} charged whichever runs (sigma and K "
                         f"above: the {report.run_solver})")
        elif hasattr(report, "gram_mu"):
            lines.append(f"Gram release: tau={report.gram_noise_std:.6g}, "
                         f"mu_G={report.gram_mu:.6g}; steps: mu={report.steps_mu:.6g}")
        lines.append(f"constants: S={report.sensitivity:.6g}, beta={report.smoothness:.6g}")
        notes = [f"note: {note}" for note in report.notes]
        lines.append(
            "binding bound: composition (of the Gram release and the run chosen on its "
            "spectrum; the run's own bound within mu_run is known once it is chosen)"
            if hasattr(report, "run_mu") else
            f"binding bound: {report.binding_bound} (no other bound applies to these releases)")
        if hasattr(report, "run_mu"):  # the run that follows the Gram is not known yet
            last = ("composition of the Gram release and the run is the exact bound; the "
                    "run chosen on the released spectrum is accounted by its own bound "
                    "within mu_run (convergent or composition for gd and cyclic, "
                    "composition for a preconditioned run)")
        else:
            last = ("composition of the run's releases is its exact bound (no convergent "
                    "bound applies to a preconditioned step); --solver cyclic plans a run "
                    "that the convergent bound accounts, and its table shows what that "
                    "bound saves")
        return lines + notes + [last]
    lines += [
        f"constants: S={report.sensitivity:.6g}, beta={report.smoothness:.6g}, "
        f"c={report.contraction:.6g}",
        *binding_lines(report),
        "",
        f"{'same K, same (epsilon, delta), accounted by':<52}{'sigma needed':>14}{'x ours':>9}",
        f"{f'this run ({report.binding_bound} bound binds)':<52}{sigma:>14.6g}{1.0:>9.3g}",
        f"{'composition (Thm 4.1)':<52}{comp:>14.6g}{_ratio(comp, sigma):>9.3g}",
    ]
    if chou is None:
        lines.append(f"{'Chourasia et al. Cor. 1':<52}{'does not apply':>14}")
    else:
        lines.append(f"{'Chourasia et al. Cor. 1 (at eta -> 1/beta)':<52}{chou:>14.6g}"
                     f"{_ratio(chou, sigma):>9.3g}")
    lines.append(
        f"this run's sigma under composition would claim epsilon={report.composition_epsilon:.6g}"
    )
    if report.binding_bound.endswith("(composition)"):
        lines.append(f"composition binds: at c={report.contraction:.6g} (lam="
                     f"{report.strong_convexity:.3g}) the strongly convex bound needs no less "
                     f"noise for these K={report.n_steps} steps")
    elif report.binding_bound.endswith("not converged"):
        lines.append("not converged: at this noise the bound at twice the passes is more than "
                     "1% above this one (more passes would cost privacy); "
                     + ("the gain over composition is shifted interpolation across batches"
                        if "across batches" in report.binding_bound else ""))
    return lines + [f"note: {note}" for note in report.notes]


def _ratio(a, b):
    return a / b if b > 0 else (1.0 if a == 0 else np.inf)
