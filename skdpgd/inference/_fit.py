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

from ..optim import symmetric_gaussian
from ._budget import INFERENCE_SHARES, inference_shares, split_inference_budget
from ._identification import NOT_IDENTIFIED
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

__all__ = ["CORRECTION_FRACTION", "SUPPORTED_SOLVERS", "adaptive_release", "check_identifiable",
           "check_solver", "correction_applies",
           "compose_report", "fit_budget", "infer", "public_noise_ratio", "reliability_note",
           "step_correction"]

#: The fraction of the gradient's mu_g^2 that releases the Newton step's second-order term
#: (losses with a bounded third derivative; docs/theory.md, "The Newton step's
#: second-order term").
CORRECTION_FRACTION = 0.02

#: The solvers whose noise covariance is computed (sgd: refused, see ``plan_inference``).
SUPPORTED_SOLVERS = ("gd", "cyclic", "preconditioned")


def check_solver(name):
    """Refuse a solver whose optimizer noise is not computed (public: the solver's name).

    Parameters
    ----------
    name : str
        The solver's registry name.
    """
    if name not in SUPPORTED_SOLVERS:
        raise ValueError(
            f"inference=True is not available with solver={name!r}: the noise of a sampled "
            "run depends on which rows each step drew (Poisson or shuffled batches), and its "
            "linearised covariance is not computed here. Use solver='auto', 'gd', 'cyclic' "
            "or 'preconditioned'."
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
          names, intercept_scaling, covers):
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

    Returns
    -------
    CoefficientTable
        In the caller's units, with the diagnostics in ``diagnostics``.
    """
    n = report.n_samples
    gradient, hessian, score, sigma_g, tau_m, second = adaptive_release(
        exact_at(row_sums, loss, coef, n), report, rng)
    estimate, cov, diag = coefficient_covariance(
        coef, gradient, hessian, score, n_samples=n,
        gradient_noise_std=sigma_g, hessian_noise_std=tau_m,
        score_noise_std=report.score_noise_std, strong_convexity=plan.strong_convexity,
        learning_rate=plan.learning_rate, noise_std=plan.noise_std, n_steps=n_steps,
        momentum=getattr(plan, "momentum", 0.0), preconditioner=preconditioner,
    )
    diag["second_hessian"] = second
    moment = diag.pop("run_error_moment")
    # the same decision adaptive_release took from the same M and tau
    diag["step_corrected"] = bool(report.correction_mu > 0.0
                                  and correction_applies(hessian, tau_m))
    if diag["step_corrected"]:
        estimate, cov = step_correction(estimate, cov, curvature_drift_at(
            row_sums, loss, coef, moment, n), moment, repaired_hessian(hessian, tau_m), report,
            rng)
    scale = np.ones(estimate.shape[0])
    names = list(names)
    if intercept_scaling is not None:
        scale[-1] = intercept_scaling
        names.append("intercept")
    notes = [covers]
    warning = reliability_note(diag)
    if warning:
        notes.append(warning)
    row_notes = [NOT_IDENTIFIED.format(ratio=ratio) if out else ""
                 for out, ratio in zip(diag["not_identified"], diag["identified_ratio"])]
    table = CoefficientTable(names, scale * estimate, cov * np.outer(scale, scale), notes,
                             row_notes=row_notes)
    table.diagnostics = diag
    return table


def step_correction(estimate, covariance, drift, moment, repaired, report, rng):
    r"""Remove the one Newton step's second-order term (docs/theory.md, "The Newton
    step's second-order term").

    The step from :math:`\theta_K` with M released there lands at
    :math:`\hat\theta_n + \frac12 M^{-1}T[e, e]` to second order in the run's error e
    (T the loss's third-derivative tensor); its mean :math:`\frac12 M^{-1}T[W]` is removed
    with the released drift :math:`\tilde v = T[W] + \sigma_c Z`
    (:func:`~skdpgd.inference._releases.curvature_drift_at`), whose noise adds
    :math:`\frac14\sigma_c^2 M_+^{-2}` to the covariance.

    Parameters
    ----------
    estimate, covariance : ndarray
        From :func:`~skdpgd.inference._sandwich.coefficient_covariance`.
    drift : ndarray of shape (p,)
        T[W] before noise.
    moment : ndarray of shape (p, p)
        W.
    repaired : ndarray of shape (p, p)
        :math:`M_+`.
    report : InferencePrivacyReport
        Gives :math:`\mu_c` and the sensitivity per unit :math:`\lambda_{\max}(W)`.
    rng : numpy.random.Generator
        Draws the drift's p normals (after every other release).

    Returns
    -------
    estimate, covariance : ndarray
        Corrected.
    """
    dim = estimate.shape[0]
    sigma = 0.0
    if report.correction_mu != math.inf:
        top = max(float(np.linalg.eigvalsh(0.5 * (moment + moment.T))[-1]), 0.0)
        sigma = report.correction_sensitivity * top / (report.n_samples * report.correction_mu)
        drift = drift + sigma * rng.standard_normal(dim)
    inverse = np.linalg.inv(repaired)
    covariance = covariance + 0.25 * sigma**2 * (inverse @ inverse)
    return estimate - 0.5 * inverse @ drift, covariance


def adaptive_release(exact, report, rng):
    r"""The releases in their adaptive order: the Hessian, the score covariance, then the
    reserve's use, then the gradient (:ref:`inference-budget`).

    The first Hessian :math:`M_1 = \bar H + E_1` (noise :math:`\tau_1`) and Q are released;
    where :math:`M_1` shows :math:`\rho > 1/2`, i.e. :math:`\lambda_{\min}(M_1) <
    2f_1` with :math:`f_1 = 2\tau_1\sqrt p` (post-processing of it), a second
    :math:`M_2 = \bar H + E_2` is released with the reserve (noise :math:`\tau_2`) and
    the two are averaged with inverse-variance weights, :math:`M = (M_1/\tau_1^2 +
    M_2/\tau_2^2)\tau^2`, :math:`\tau^{-2} = \tau_1^{-2} + \tau_2^{-2}` (i.i.d.
    :math:`\mathcal N(0, \tau^2)` entries again: the noise of one release at
    :math:`\sqrt{\mu_M^2 + \mu_r^2}`), and the gradient gets the rest of its share;
    otherwise the gradient gets all of it.

    Parameters
    ----------
    exact : tuple
        (gradient, Hessian, score covariance) before noise
        (:func:`~skdpgd.inference._releases.exact_at`).
    report : InferencePrivacyReport
        The noise of each release (``reserve_mu`` 0: no reserve).
    rng : numpy.random.Generator
        Draws M_1's and Q's noise, then M_2's (if released), then the gradient's.

    Returns
    -------
    gradient, hessian, score : ndarray
        The released gradient, M and Q.
    gradient_noise_std, hessian_noise_std : float
        sigma_g and tau of what was released.
    second : bool
        Whether the reserve went to a second Hessian.
    """
    gradient, hessian, score = exact
    dim = gradient.shape[0]
    tau, sigma = report.hessian_noise_std, report.gradient_noise_std
    first = hessian + symmetric_gaussian(dim, tau, rng)
    score = score + symmetric_gaussian(dim, report.score_noise_std, rng)
    edge = 2.0 * tau * math.sqrt(dim)
    second = bool(report.reserve_mu > 0.0 and tau > 0.0
                  and np.linalg.eigvalsh(0.5 * (first + first.T))[0] < edge / FIRST_ORDER_LIMIT)
    if second:
        tau_2 = report.reserve_hessian_noise_std
        other = hessian + symmetric_gaussian(dim, tau_2, rng)
        weight = tau_2**2 / (tau**2 + tau_2**2)
        first = weight * first + (1.0 - weight) * other
        tau = tau * tau_2 / math.sqrt(tau**2 + tau_2**2)
        sigma = report.reserve_gradient_noise_std
    if (getattr(report, "correction_mu", 0.0) > 0.0 and sigma > 0.0
            and not correction_applies(first, tau)):
        # the correction will not be released (decided from M): its mu_c goes back to the
        # gradient, which is then the one mechanism of its mu_g (or mu_g0) after M
        rest = (math.sqrt(report.gradient_mu**2 - report.reserve_mu**2) if second
                else report.gradient_mu)
        sigma = report.gradient_sensitivity / (report.n_samples * rest)
    if sigma > 0.0:
        gradient = gradient + sigma * rng.standard_normal(dim)
    return gradient, first, score, sigma, tau, second


def correction_applies(hessian, hessian_noise_std):
    r"""Whether the step's correction is released: :math:`\rho \le 1/2` for the released M.

    Post-processing of M alone (the same :math:`\rho = \min(1, f_M/\lambda_{\min}(M_+))`
    as :func:`~skdpgd.inference._sandwich.coefficient_covariance`), so the gradient's
    release that follows may take the correction's :math:`\mu_c` where it is not spent.

    Parameters
    ----------
    hessian : ndarray of shape (p, p)
        The released M (after the reserve's average, if any).
    hessian_noise_std : float
        Its tau.

    Returns
    -------
    bool
    """
    floor = 2.0 * hessian_noise_std * math.sqrt(hessian.shape[0])
    smallest = float(np.linalg.eigvalsh(repaired_hessian(hessian, hessian_noise_std))[0])
    return min(1.0, floor / smallest) <= FIRST_ORDER_LIMIT


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
