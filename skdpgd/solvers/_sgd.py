r"""``solver="sgd"``: sampled noisy SGD, Poisson (the default) or fixed-size uniform batches.

``"poisson"``: composition with amplification by Poisson sampling, computed with
dp-accounting's PLD accountant. ``"uniform"`` (b distinct rows each step): the minimum of
composition for sampling without replacement and Altschuler-Talwar's last-iterate bound on
the ball the run projects onto (diameter 2r, r = ``projection_radius``), the noise
calibrated to that minimum. See the theory page, "Sampled SGD", and docs/sgd_bounds.md.

Planned by :func:`plan_sampled_sgd` for the problem's ``sampling``, from a privacy target
to a run (batch size, steps, step size, noise, lam), by the same recipe as the full-batch
planner (:mod:`skdpgd.solvers._cyclic`, docs/theory.md#calibration): every candidate run is
scored by a utility proxy built from public numbers only, the best is kept, and its noise
is calibrated exactly and conservatively (:func:`calibrate_sampled_sgd`). Within one
sampling rate, candidates are ranked with a closed-form CLT estimate of the noise
(:func:`skdpgd.accounting.calibration.clt_noise_multiplier`); the best candidate of each
rate is calibrated exactly and the rates are compared at their exact noise, so the search
costs one exact calibration per rate (a handful of PLD evaluations each, cached).
"""

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from .. import accounting
from .._data import single_threaded_blas
from ..accounting import calibrate_sampled_sgd, epsilon_delta_to_gdp, sampled_sgd_bounds
from ..accounting.calibration import (
    check_count,
    check_positive,
    check_probability,
    check_sampling,
    check_sgd_epsilon,
    clt_noise_multiplier,
)
from ..optim import noisy_sampled_gradient_descent
from ._base import AUTO_MAX_PASSES, Solver, projection_radius
from ._cyclic import optimisation_error

__all__ = ["SampledSGDPlan", "SampledSolver", "plan_sampled_sgd", "sgd_sampling_variance",
           "sgd_utility_proxy"]

#: Sampling rates q = b/n the planner tries by default.
SGD_SAMPLING_RATES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5)

#: Step sizes the planner tries, as fractions of 2 / (beta + lam). Smaller steps average
#: more mini-batches (less sampling and injected noise) at the price of more steps.
SGD_STEP_FRACTIONS = (1.0, 0.5, 0.25, 0.1, 0.05, 0.02, 0.01)

#: Numbers of passes over the data (epochs, K q) the planner tries, up to ``max_passes``.
SGD_PASSES = (0.5, 1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 120, 200)


@dataclass(frozen=True)
class SampledSGDPlan:
    """Run parameters chosen by :func:`plan_sampled_sgd` (all public) and their guarantee.

    It is also the plan the ``"sgd"`` solver runs (``solver``, ``notes`` and the
    ``gradient_bound`` L set by the solver): passed down whole, not copied.

    Parameters
    ----------
    sampling : str
        How batches are drawn (``"poisson"``).
    batch_size : int
        The expected batch size b = q n.
    n_steps : int
        The number of steps K.
    noise_std : float
        The noise scale sigma of each step.
    learning_rate : float
        The step size eta.
    strong_convexity : float
        lam, the L2 regularisation.
    smoothness : float
        beta, the smoothness of the objective.
    utility_proxy : float
        The planner's predicted excess loss of the run.
    epsilon : float
        The guarantee of the plan at its delta (the minimum of the bounds that apply).
    binding_bound : str
        The bound that gives ``epsilon``.
    gradient_bound : float, default=nan
        The per-example gradient bound L (set by the solver).
    solver : object, default=None
        The solver that runs the plan (set by the solver).
    notes : tuple of str, default=()
        Notes the solver adds to the report.
    projection_radius : float, default=inf
        r, the radius of the public ball every iterate is projected onto (set by the
        solver, :func:`~skdpgd.solvers._base.projection_radius`; ``inf``: none).
    """

    sampling: str
    batch_size: int
    n_steps: int
    noise_std: float
    learning_rate: float
    strong_convexity: float
    smoothness: float
    utility_proxy: float
    epsilon: float
    binding_bound: str
    gradient_bound: float = math.nan
    solver: object = None
    notes: tuple = ()
    projection_radius: float = math.inf


def sgd_sampling_variance(*, gradient_bound, batch_size, n_samples, sampling):
    r"""Bound on the variance of the normalised mini-batch gradient (planning only).

    Poisson sampling (every row kept independently with probability q = b/n) with the
    sum divided by the fixed b, as :func:`skdpgd.optim.noisy_sampled_gradient_descent`
    does: the indicators are independent Bernoulli(q), so

    .. math::

        \mathrm{Var}\,\frac1b\sum_{i\in B} g_i = \frac{q(1-q)}{b^2}\sum_{i=1}^n\|g_i\|^2
        \le L^2\,\frac{1-q}{b},

    using :math:`\|g_i\|\le L` and :math:`nq = b` (the trace of the covariance; zero at
    q = 1, where every row is in every batch). Uniform sampling (b distinct rows): the
    mean of a simple random sample has variance :math:`(1 - b/n)\,s^2/b` with
    :math:`s^2 = \sum_i\|g_i - \bar g\|^2/(n-1) \le nL^2/(n-1)`, so at most
    :math:`L^2 (n-b)/(b(n-1))`. It enters only the utility proxy
    (:func:`sgd_utility_proxy`, :ref:`calibration`) and plays no part in any
    privacy claim.

    Parameters
    ----------
    gradient_bound : float
        L >= 0, the bound on every per-example gradient norm.
    batch_size : int
        b in [1, n], the expected (Poisson) or exact (uniform) batch size.
    n_samples : int
        n, the number of rows.
    sampling : {"poisson", "uniform"}
        The sampler of the run (validated).

    Returns
    -------
    float
        :math:`L^2 (1 - b/n) / b` (Poisson) or :math:`L^2 (n - b)/(b (n - 1))` (uniform).

    Raises
    ------
    ValueError
        When ``sampling`` is not one of the samplers skdpgd runs and accounts.
    """
    check_sampling(sampling)
    b, n, lip = float(batch_size), float(n_samples), float(gradient_bound)
    if sampling == "uniform":
        return lip * lip * (n - b) / (b * (n - 1.0)) if n > 1 else 0.0
    return lip * lip * (1.0 - b / n) / b


def sgd_utility_proxy(
    n_steps, noise_std, *, n_params, learning_rate, strong_convexity, smoothness,
    initial_distance, sampling_variance,
):
    r"""Public proxy for the excess loss of the last SGD iterate (planning only).

    .. math::

        U = \tfrac{\lambda}{2}r_0^2 + \tfrac{r_0^2}{2}\max_{h\in[\lambda,\beta]} h(1-\eta h)^{2K}
          + \tfrac{\eta}{4}\big(p\,\sigma^2 + V\big)

    the full-batch proxy (:func:`utility_proxy`: regularisation bias, worst-case
    optimisation error of the mean iterate, which follows full-batch GD since the
    sampled gradient is unbiased, stationary excess loss :math:`\eta\,\mathrm{tr}/4` of a
    gradient method with gradient noise of covariance trace tr) with the sampling variance
    V of :func:`sgd_sampling_variance` added to the injected noise trace :math:`p\sigma^2`
    (:ref:`calibration`, step 3). Vectorised over ``n_steps`` / ``noise_std``.
    Plays no part in any privacy claim.

    Parameters
    ----------
    n_steps : int or array-like of int
        K >= 0, the number of steps.
    noise_std : float or array-like of float
        sigma >= 0, the injected noise on the averaged gradient (broadcast against
        ``n_steps``).
    n_params : int
        p, the number of parameters.
    learning_rate : float
        eta > 0, the step size.
    strong_convexity : float
        lam >= 0, the L2 regularisation.
    smoothness : float
        beta >= lam, the smoothness of the objective.
    initial_distance : float
        r0, a public guess of the optimum's norm (the start is 0).
    sampling_variance : float
        V >= 0, the bound on the variance of the mini-batch gradient
        (:func:`sgd_sampling_variance`).

    Returns
    -------
    float or ndarray of float
        U, with the broadcast shape of ``n_steps`` and ``noise_std``.
    """
    optimisation = optimisation_error(
        n_steps, learning_rate=learning_rate, strong_convexity=strong_convexity,
        smoothness=smoothness, initial_distance=initial_distance,
    )
    noise = learning_rate * (n_params * np.asarray(noise_std, float) ** 2 + sampling_variance) / 4.0
    return 0.5 * strong_convexity * float(initial_distance) ** 2 + optimisation + noise


def _candidates(target_mu, *, lip, beta_l, n, p, r0, lams, rates, passes, fractions, sampling):
    """Yield (approx proxy, lam, b, K, eta) for the whole grid, vectorised over K and eta."""
    for lam in lams:
        beta = beta_l + lam
        for q in rates:
            b = max(1, min(n, round(float(q * n))))  # an int under numpy 1.x too
            steps = np.unique(np.maximum(1, np.ceil(np.asarray(passes) * n / b)).astype(int))
            if target_mu == math.inf or lip == 0.0:
                sigma = np.zeros(steps.shape)
            else:
                sigma = clt_noise_multiplier(target_mu, b / n, steps) * lip / b
            variance = sgd_sampling_variance(
                gradient_bound=lip, batch_size=b, n_samples=n, sampling=sampling
            )
            for fraction in fractions:
                eta = fraction * 2.0 / (beta + lam)
                proxy = sgd_utility_proxy(
                    steps, sigma, n_params=p, learning_rate=eta, strong_convexity=lam,
                    smoothness=beta, initial_distance=r0, sampling_variance=variance,
                )
                best = int(np.argmin(proxy))
                yield float(proxy[best]), lam, b, int(steps[best]), eta


def _best_per_rate(candidates):
    """The candidate with the smallest (approximate) proxy for each batch size b."""
    best = {}
    for cand in candidates:
        b = cand[2]
        if b not in best or cand[0] < best[b][0]:
            best[b] = cand
    return [best[b] for b in sorted(best)]


def domain_diameter(strong_convexity, *, max_coef_norm, zero_loss_bound):
    r"""D = 2r of the ball a run with this lam projects onto (``inf``: none).

    The same radius as :func:`skdpgd.solvers._base.projection_radius`: the user's
    ``max_coef_norm``, else :math:`\sqrt{2 f_0/\lambda}` for lam > 0 and a finite f_0.

    Parameters
    ----------
    strong_convexity : float
        lam >= 0.
    max_coef_norm : float or None
        The user's public radius.
    zero_loss_bound : float
        f_0, a public bound on the data term at 0 (``inf``: none known).

    Returns
    -------
    float
        2r, or ``inf``.
    """
    if max_coef_norm is not None:
        return 2.0 * float(max_coef_norm)
    lam, bound = float(strong_convexity), float(zero_loss_bound)
    if lam > 0.0 and math.isfinite(bound) and bound > 0.0:
        return 2.0 * math.sqrt(2.0 * bound / lam)
    return math.inf


@lru_cache(maxsize=256)
def _plan_cached(
    epsilon, delta, lip, beta_l, n, p, r0, lams, max_passes, sampling, rates, discretization,
    exact_passes=False, max_coef_norm=None, zero_loss_bound=math.inf,
):
    target_mu = epsilon_delta_to_gdp(epsilon, delta)
    if exact_passes:
        passes = [max_passes]
    else:
        passes = [x for x in SGD_PASSES if x <= max_passes] or [max_passes]
    finalists = _best_per_rate(_candidates(
        target_mu, lip=lip, beta_l=beta_l, n=n, p=p, r0=r0, lams=lams, rates=rates,
        passes=passes, fractions=SGD_STEP_FRACTIONS, sampling=sampling,
    ))
    # The CLT noise ranks (lam, K, eta) within one sampling rate well, but across rates
    # it is optimistic by up to 2x at small q (many steps, large noise multiplier), which
    # would favour tiny batches. So every rate's best candidate is calibrated exactly and
    # the finalists are compared at their exact noise.
    domain = dict(max_coef_norm=max_coef_norm, zero_loss_bound=zero_loss_bound)
    plans = [_exact_plan(epsilon, delta, cand, lip=lip, beta_l=beta_l, n=n, p=p, r0=r0,
                         sampling=sampling, discretization=discretization, domain=domain)
             for cand in finalists]
    return min(plans, key=lambda plan: plan.utility_proxy)


def _exact_plan(epsilon, delta, candidate, *, lip, beta_l, n, p, r0, sampling, discretization,
                domain):
    """A candidate (proxy, lam, b, K, eta) with its noise calibrated exactly."""
    _, lam, b, k, eta = candidate
    beta = beta_l + lam
    run = dict(
        sampling=sampling, batch_size=b, n_samples=n, gradient_bound=lip,
        discretization=discretization,
    )
    if sampling == "uniform":  # Altschuler-Talwar reads the step, M and the diameter
        run.update(learning_rate=eta, smoothness=beta,
                   diameter=domain_diameter(lam, **domain))
    sigma = calibrate_sampled_sgd(epsilon, delta, n_steps=k, **run)
    bounds = sampled_sgd_bounds(sigma, k, delta=delta, **run)
    proxy = float(sgd_utility_proxy(
        k, sigma, n_params=p, learning_rate=eta, strong_convexity=lam, smoothness=beta,
        initial_distance=r0, sampling_variance=sgd_sampling_variance(
            gradient_bound=lip, batch_size=b, n_samples=n, sampling=sampling),
    ))
    return SampledSGDPlan(
        sampling, b, k, sigma, eta, lam, beta, proxy, bounds.epsilon,
        bounds.binding_bound,
    )


def plan_sampled_sgd(
    epsilon,
    delta,
    *,
    gradient_bound,
    data_smoothness,
    n_samples,
    n_params,
    initial_distance,
    max_passes,
    strong_convexity=None,
    sampling="poisson",
    sampling_rates=SGD_SAMPLING_RATES,
    discretization=None,
    exact_passes=False,
    max_coef_norm=None,
    zero_loss_bound=math.inf,
):
    r"""Choose b, K, eta, sigma (and lam) for sampled noisy SGD under (epsilon, delta).

    For every lam (``strong_convexity``, or a log grid of 25 values from 1e-8 to 1
    times beta_l when it is None, i.e. "auto"), every sampling rate q, every number of
    passes K q <= ``max_passes`` (the compute budget) and every step fraction, the noise
    meeting the target is estimated in closed form (CLT, planning only) and
    :func:`sgd_utility_proxy` evaluated. The best candidate of each sampling rate is then
    calibrated exactly with :func:`calibrate_sampled_sgd` (never above the target), and
    the finalist with the smallest proxy at its exact noise is the plan (the CLT is
    optimistic at small q, so comparing rates on it would favour tiny batches). Pure
    function of public numbers, cached.

    Parameters
    ----------
    epsilon, delta : float
        Privacy target (replace-one).
    gradient_bound : float
        L, per-example gradient norm bound (replace-one sensitivity S = 2L).
    data_smoothness : float
        beta_l; the objective is (beta_l + lam)-smooth.
    n_samples, n_params : int
        n and p.
    initial_distance : float
        r0, public guess of the optimum's norm.
    max_passes : float
        Largest number of passes over the data, K b / n.
    strong_convexity : float or None, default=None
        lam > 0, or None to choose it.
    sampling : {"poisson", "uniform"}, default="poisson"
        The sampler the run will use. ``"uniform"`` (b distinct rows per step) is
        accounted by the minimum of its composition bound and, on a bounded domain,
        Altschuler-Talwar's (:func:`sampled_sgd_bounds`); candidates are still ranked by
        the Poisson CLT noise, then calibrated exactly on that minimum.
    sampling_rates : tuple of float, default=SGD_SAMPLING_RATES
        Candidate q.
    discretization : float or None, default=None
        PLD grid of the exact calibration; None: automatic, relative to each evaluated
        run's epsilon scale beyond epsilon ~ 100
        (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`), which bounds the
        work for any budget.
    exact_passes : bool, default=False
        Plan exactly ``max_passes`` passes (a user's fixed ``max_iter``) instead of
        choosing the number of passes up to it.
    max_coef_norm : float or None, default=None
        The user's public radius r of the projection ball (uniform runs: D = 2r).
    zero_loss_bound : float, default=inf
        f_0, for the default ball :math:`\sqrt{2 f_0/\lambda}` of a uniform run
        without ``max_coef_norm`` (``domain_diameter``).

    Returns
    -------
    SampledSGDPlan
        The chosen sampling, b, K, sigma (calibrated exactly: its epsilon was computed and
        is at most the target), eta, lam, beta, the proxy value at that sigma, and the
        plan's epsilon with the bound that gives it (:func:`sampled_sgd_bounds`).

    Raises
    ------
    ValueError
        When ``epsilon`` is finite and above ``SGD_MAX_EPSILON`` = 1000 (the PLD's
        float64 range; see :func:`~skdpgd.accounting._sampled_sgd.check_sgd_epsilon`).
        Planning is bounded in time and memory below it: the PLD grid step grows with
        the run's epsilon scale (:func:`~skdpgd.accounting._sampled_sgd.pld_discretization`).
    """
    epsilon = check_sgd_epsilon(epsilon)
    delta = check_probability("delta", delta)
    sampling = check_sampling(sampling)
    lip = check_positive("gradient_bound", gradient_bound, allow_zero=True)
    beta_l = check_positive("data_smoothness", data_smoothness)
    n = check_count("n_samples", n_samples, minimum=2)
    p = check_count("n_params", n_params)
    r0 = check_positive("initial_distance", initial_distance)
    max_passes = check_positive("max_passes", max_passes)
    if strong_convexity is None:
        lams = tuple(float(x) for x in beta_l * np.logspace(-8, 0, 25))
    else:
        # 0: composition with amplification holds for any loss (the estimators allow it on
        # a bounded domain only)
        lams = (check_positive("strong_convexity", strong_convexity, allow_zero=True),)
    rates = tuple(float(q) for q in sampling_rates)
    if not rates or any(not 0.0 < q <= 1.0 for q in rates):
        raise ValueError(f"sampling_rates must be numbers in (0, 1], got {sampling_rates!r}.")
    return _plan_cached(
        float(epsilon), float(delta), float(lip), float(beta_l), n, p, float(r0), lams,
        float(max_passes), sampling, rates,
        None if discretization is None else float(discretization), bool(exact_passes),
        None if max_coef_norm is None else float(max_coef_norm), float(zero_loss_bound),
    )


class SampledSolver(Solver):
    """Sampled noisy SGD (``solver="sgd"``; module docstring)."""

    name = "sgd"
    reports_mu = False

    def _plan(self, problem):
        if problem.learning_rate is not None:
            raise ValueError(
                "solver='sgd' chooses its step with its batch size; use learning_rate='auto'."
            )
        n = problem.n_samples
        if problem.batch_size is None:
            rates = SGD_SAMPLING_RATES
        else:
            rates = (min(problem.batch_size, n) / n,)
        plan = plan_sampled_sgd(
            problem.epsilon, problem.delta, gradient_bound=problem.gradient_bound,
            data_smoothness=problem.data_smoothness, n_samples=n, n_params=problem.n_params,
            initial_distance=problem.initial_distance,
            max_passes=AUTO_MAX_PASSES if problem.max_iter is None else problem.max_iter,
            strong_convexity=problem.strong_convexity, sampling_rates=tuple(rates),
            sampling=problem.sampling, exact_passes=problem.max_iter is not None,
            max_coef_norm=problem.max_coef_norm, zero_loss_bound=problem.zero_loss_bound,
        )
        return replace(plan, solver=self, gradient_bound=problem.gradient_bound,
                       projection_radius=projection_radius(problem, plan.strong_convexity))

    def _report(self, plan, problem, notes):
        # The ball the run projects onto is the domain Altschuler-Talwar reads (uniform
        # batches only; a Poisson report keeps its one bound and says why).
        uniform = plan.sampling == "uniform"
        return accounting.sampled_sgd_report(
            plan.noise_std, plan.n_steps, delta=problem.delta, sampling=plan.sampling,
            batch_size=plan.batch_size, n_samples=problem.n_samples,
            gradient_bound=plan.gradient_bound, learning_rate=plan.learning_rate,
            strong_convexity=plan.strong_convexity, smoothness=plan.smoothness,
            notes=tuple(notes) + plan.notes,
            diameter=2.0 * plan.projection_radius if uniform else None,
        )

    def _run(self, data, loss, plan, rng, callback):
        row_sums = data.row_sums(loss.gradient_sum)
        with single_threaded_blas(), row_sums:
            return noisy_sampled_gradient_descent(
                row_sums.sum_rows, np.zeros(data.coef_shape),
                n_samples=data.n_samples, batch_size=plan.batch_size,
                learning_rate=plan.learning_rate, noise_std=plan.noise_std,
                n_steps=plan.n_steps, rng=rng, sampling=plan.sampling,
                regularization=plan.strong_convexity, max_norm=plan.projection_radius,
                callback=callback,
            )
