r"""Private inference for a fit: plan its releases (public), then compute the table.

The two halves an estimator calls (docs/theory.md, "Private inference for the
coefficients"):

* :func:`fit_budget` and :func:`compose_report`, before any value is read: split the
  budget (:func:`~skdpgd.inference._budget.split_inference_budget`), refuse what
  inference does not support (with the reason) and compose the one report
  (:func:`~skdpgd.inference._report.inference_report`) the ledger charges;
* :func:`infer`, after the run: releases M and Q at the estimate, a second M from the
  gradient's reserve where the first shows rho > 1/2, then the gradient
  (:func:`adaptive_release`), for the logistic loss the step's second-order term
  (:func:`step_correction`), and post-processes them with the plan's public numbers
  into a :class:`~skdpgd.inference._table.CoefficientTable`.
"""

import math

import numpy as np

from .. import solvers
from ._adaptive_release import adaptive_release, correction_applies, step_correction
from ._budget import INFERENCE_SHARES, inference_shares, split_inference_budget
from ._identification import NOT_IDENTIFIED
from ._inference_block import inference_block
from ._releases import (
    curvature_and_residual_bounds,
    curvature_drift_at,
    exact_at,
    matrix_sensitivity,
    third_derivative_bound,
)
from ._report import inference_report
from ._sandwich import FIRST_ORDER_LIMIT, coefficient_covariance, repaired_hessian
from ._table import CoefficientTable

__all__ = ["CORRECTION_FRACTION", "DROPPED_NOTE", "adaptive_release", "check_identifiable",
           "check_solver", "compose_report", "correction_applies", "dropped_note", "fit_budget",
           "infer", "public_noise_ratio", "reliability_note", "step_correction"]

#: The fraction of the gradient's mu_g^2 that releases the Newton step's second-order term
#: (losses with a bounded third derivative; docs/theory.md, "The Newton step's
#: second-order term").
CORRECTION_FRACTION = 0.02

#: The table's note naming the columns dropped from the inference block.
DROPPED_NOTE = (
    "columns dropped from the inference block (their released curvature is that of an "
    "empty column: no interval; the others' intervals hold them at the run's values): "
    "{columns}"
)

def check_solver(solver):
    """Refuse a solver whose optimizer noise is not computed (public: its declaration).

    Reads the solver's declared ``supports_inference``
    (:class:`~skdpgd.solvers.Solver`), never its name.

    Parameters
    ----------
    solver : str or Solver
        The solver, or its registry name.
    """
    declared = solvers.get(solver) if isinstance(solver, str) else solver
    if not declared.supports_inference:
        supported = [name for name in solvers.names() if solvers.get(name).supports_inference]
        raise ValueError(
            f"inference=True is not available with solver={declared.name!r}: its run's "
            "linearised noise covariance is not computed here (the noise of a sampled run "
            "depends on which rows each step drew). Use solver="
            f"{', '.join(map(repr, supported))}."
        )


def fit_budget(epsilon, delta, n_samples=None, n_params=None, *, shares=None):
    """The :class:`~skdpgd.inference._budget.InferenceBudget` of a target (public).

    Parameters
    ----------
    epsilon, delta : float
        The fit's target.
    n_samples, n_params : int, optional
        n and p: the shares are then :func:`~skdpgd.inference._budget.inference_shares`'s.
    shares : tuple of float, optional
        Shares of mu^2 (run, gradient, Hessian, score covariance); default
        ``INFERENCE_SHARES`` without n and p.

    Returns
    -------
    InferenceBudget
        The split.
    """
    if shares is None:
        shares = (INFERENCE_SHARES if n_samples is None
                  else inference_shares(epsilon, delta, n_samples, n_params))
    return split_inference_budget(epsilon, delta, shares)


def compose_report(loss, run_report, budget, *, row_norm, delta, notes=()):
    """The one report of a fit with inference: the run's and the two releases'.

    Parameters
    ----------
    loss : BinaryLogisticLoss or HuberLoss
        The fit's loss (anything else is refused with the reason, before any value is read).
    run_report : GaussianRunPrivacyReport
        The run's report, planned at ``budget.fit_epsilon``.
    budget : InferenceBudget
        From :func:`fit_budget`.
    row_norm : float
        Rt, the bound on an augmented row.
    delta : float
        The fit's delta.
    notes : tuple of str
        Lines for the report's notes.

    Returns
    -------
    InferencePrivacyReport
        mu of the run and the three releases, composed.
    """
    bound_h, bound_psi = curvature_and_residual_bounds(loss)
    bound_3 = third_derivative_bound(loss)
    sensitivities = (float(loss.sensitivity(row_norm)), matrix_sensitivity(bound_h, row_norm),
                     matrix_sensitivity(bound_psi**2, row_norm))
    return inference_report(
        run_report, delta=delta, sensitivities=sensitivities,
        mus=(budget.gradient_mu, budget.hessian_mu, budget.score_mu), shares=budget.shares,
        notes=notes, correction=((CORRECTION_FRACTION, 2.0 * bound_3 * float(row_norm) ** 3)
                                 if bound_3 > 0.0 else (0.0, 0.0)),
    )


def infer(row_sums, loss, coef, *, plan, report, n_steps, rng, preconditioner=None,
          names, intercept_scaling, covers, indicators=None):
    r"""Release the gradient, M and Q at ``coef``; return the private coefficient table.

    Parameters
    ----------
    row_sums : ChunkedRowSums or DaskRowSums
        The fit's row sums (entered).
    loss : BinaryLogisticLoss or HuberLoss
        The fit's loss.
    coef : ndarray of shape (p,)
        The last iterate (augmented coordinates).
    plan : dataclass
        The run's plan (``learning_rate``, ``noise_std``, ``strong_convexity``,
        ``momentum`` for the preconditioned solver, ``n_batches`` for cyclic).
    report : InferencePrivacyReport
        Gives the noise of the two releases.
    n_steps : int
        The steps that ran (every batch step).
    rng : numpy.random.Generator
        The fit's generator, after the run.
    preconditioner : ndarray, optional
        The preconditioned solver's P (None: the identity).
    names : list of str
        Feature names (the intercept is appended when ``intercept_scaling`` is not None).
    intercept_scaling : float or None
        b: the intercept is b times the last coordinate.
    covers : str
        What the intervals cover (a note of the table).
    indicators : sequence of bool, optional
        One per feature: a 0/1 indicator column of the preparation's public structure,
        which may leave the inference block where the release shows it empty
        (:func:`~skdpgd.inference._inference_block.inference_block`); None: none.

    Returns
    -------
    CoefficientTable
        In the caller's units, with the diagnostics in ``diagnostics``.
    """
    n = report.n_samples
    gradient, hessian, score, sigma_g, tau_m, second = adaptive_release(
        exact_at(row_sums, loss, coef, n), report, rng)
    # the columns the release shows empty leave the block (post-processing of M and g)
    candidates = None if indicators is None else np.r_[
        np.asarray(indicators, dtype=bool), np.zeros(coef.size - len(indicators), bool)]
    keep, dropped_notes, run = inference_block(
        hessian, tau_m, preconditioner, candidates, gradient=gradient,
        gradient_noise_std=sigma_g)
    block = np.ix_(keep, keep)
    estimate_k, cov_k, diag = coefficient_covariance(
        coef[keep], gradient[keep], hessian[block], score[block], n_samples=n,
        gradient_noise_std=sigma_g, hessian_noise_std=tau_m,
        score_noise_std=report.score_noise_std, strong_convexity=plan.strong_convexity,
        learning_rate=plan.learning_rate, noise_std=plan.noise_std, n_steps=n_steps,
        momentum=getattr(plan, "momentum", 0.0), **run,
    )
    diag["second_hessian"] = second
    moment = diag.pop("run_error_moment")
    # the same decision adaptive_release took from the same (whole) M and tau
    diag["step_corrected"] = bool(report.correction_mu > 0.0
                                  and correction_applies(hessian, tau_m))
    if diag["step_corrected"]:
        # W of the block, zero on the dropped coordinates (held at the run's values): the
        # released drift T[W] is the whole p-vector; its kept part corrects the block
        full_moment = np.zeros((coef.size, coef.size))
        full_moment[block] = moment
        drift = curvature_drift_at(row_sums, loss, coef, full_moment, n)
        estimate_k, cov_k = step_correction(
            estimate_k, cov_k, drift, full_moment, repaired_hessian(hessian[block], tau_m),
            report, rng, keep=keep)
    estimate, cov = np.array(coef, dtype=np.float64), np.full((coef.size, coef.size), np.nan)
    estimate[keep], cov[block] = estimate_k, cov_k  # a dropped coefficient keeps the run's
    diag = _embedded(diag, keep)
    scale = np.ones(estimate.shape[0])
    names = list(names)
    if intercept_scaling is not None:
        scale[-1] = intercept_scaling
        names.append("intercept")
    notes = [covers]
    warning = reliability_note(diag)
    if warning:
        notes.append(warning)
    row_notes = [dropped or (NOT_IDENTIFIED.format(ratio=ratio) if out else "")
                 for dropped, out, ratio in zip(dropped_notes, diag["not_identified"],
                                                diag["identified_ratio"], strict=True)]
    note = dropped_note(names, ~keep)
    if note:
        notes.append(note)
    table = CoefficientTable(names, scale * estimate, cov * np.outer(scale, scale), notes,
                             row_notes=row_notes)
    table.diagnostics = diag
    return table


def dropped_note(names, dropped):
    """The table's note naming the columns dropped from the inference block, or None.

    Parameters
    ----------
    names : list of str
        The table's row names.
    dropped : ndarray of bool
        ``diagnostics["dropped"]`` (one per row).

    Returns
    -------
    str or None
        :data:`DROPPED_NOTE` with the names, None when nothing was dropped.
    """
    columns = [name for name, out in zip(names, dropped, strict=True) if out]
    return DROPPED_NOTE.format(columns=", ".join(columns)) if columns else None


def _embedded(diagnostics, keep):
    """The block's per-coordinate diagnostics written at the kept coordinates of p
    (``dropped`` added; a dropped coordinate is not "not identified": it has its own
    reason)."""
    out = dict(diagnostics)
    for key, fill in (("not_identified", False), ("identified_ratio", np.nan)):
        full = np.full(keep.size, fill, dtype=np.asarray(diagnostics[key]).dtype)
        full[keep] = diagnostics[key]
        out[key] = full
    out["dropped"] = ~keep
    return out


def public_noise_ratio(n_samples, n_params, hessian_mu):
    r""":math:`\rho_{\mathrm{pub}} = 2\sqrt2\,p^{3/2}/(n\mu_M)`, from public numbers only.

    The Hessian noise's edge :math:`f_M = 2\tau_M\sqrt p`,
    :math:`\tau_M = \sqrt2 c_H\tilde R^2/(n\mu_M)`, over the largest smallest curvature
    any data set of this shape can have, :math:`c_H\tilde R^2/p` (rows of norm at most
    :math:`\tilde R` give :math:`\mathrm{tr}\,H \le c_H\tilde R^2`): a lower bound on
    the ratio :math:`\rho` of every fit (:ref:`inference-trust`).

    Parameters
    ----------
    n_samples, n_params : int
        n and p (coefficients, intercept included).
    hessian_mu : float
        mu_M of the Hessian release.

    Returns
    -------
    float
        rho_pub (0 without noise).
    """
    if hessian_mu == float("inf"):
        return 0.0
    return 2.0 * 2.0**0.5 * n_params**1.5 / (int(n_samples) * float(hessian_mu))


def check_identifiable(n_samples, n_params, budget):
    """Refuse inference when no data set of this shape can show its curvature (public).

    The rule reads rho_pub at the base Hessian share (0.1 of mu^2, whatever share
    :func:`~skdpgd.inference._budget.inference_shares` then gives): above 1 the noise of
    a tenth of the budget would exceed the curvature of every data set of this shape
    (:ref:`inference-trust`).

    Parameters
    ----------
    n_samples, n_params : int
        n and p (coefficients, intercept included).
    budget : InferenceBudget
        The split of the fit's budget (its total ``mu`` is read).

    Returns
    -------
    float
        rho_pub at the base share, at most 1.

    Raises
    ------
    ValueError
        When it exceeds 1, with the n the shape would need.
    """
    base_mu = budget.mu * math.sqrt(INFERENCE_SHARES[2])
    ratio = public_noise_ratio(n_samples, n_params, base_mu)
    if ratio > 1.0:
        need = 2.0 * 2.0**0.5 * n_params**1.5 / base_mu
        raise ValueError(
            f"inference=True is refused for these public numbers: with {n_params} "
            f"coefficients (intercept included) and mu = {budget.mu:.3g}, the noise of a "
            "Hessian released with a tenth of mu^2 would exceed the curvature of every data "
            "set of this size (the noise edge 2 tau sqrt(p) is above the largest smallest "
            "eigenvalue a design of rows of norm <= data_norm can have), and the intervals "
            f"measured below 90% coverage there. It needs n >= {math.ceil(need)} rows at "
            "this budget: use more rows, a larger epsilon, or fewer features."
        )
    return ratio


def reliability_note(diagnostics):
    """A note when the released Hessian barely stands out of its noise, else None.

    Post-processing of the releases only: rho > 1/2 (the leftover then takes its bound).
    """
    if diagnostics["hessian_noise_ratio"] <= FIRST_ORDER_LIMIT:
        return None
    return (
        "the private Hessian's noise is comparable to its smallest curvature in some "
        f"direction (ratio {_shown_above(diagnostics['hessian_noise_ratio'], FIRST_ORDER_LIMIT)}"
        f" > {FIRST_ORDER_LIMIT}): "
        "the run's leftover error takes its bound, with the run's error computed at the "
        "smallest curvature the release allows (wide intervals; coefficients whose "
        "direction the release does not identify have none: more rows or a larger "
        "epsilon help)."
    )


def _shown_above(value, limit):
    """``value`` with the fewest significant digits (two or more) that still read above
    ``limit`` (0.5004 is "0.5004", not "0.5", beside "> 0.5")."""
    for digits in range(2, 18):
        text = f"{value:.{digits}g}"
        if float(text) > limit:
            return text
    return repr(float(value))
