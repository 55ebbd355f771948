r"""One utility proxy for every solver: the excess loss a run is predicted to leave.

``solver="auto"`` compares runs of different solvers (full-batch and cyclic noisy GD,
Gram-preconditioned GD), so their predictions must be in the same units and under the
same model of what is public. That model (docs/theory.md#predicted-utility):

* **Spectrum.** The Gram :math:`G = \frac1n\sum_i \tilde x_i\tilde x_i^\top` is private;
  what is public is :math:`\|\tilde x_i\| \le \tilde R`, hence
  :math:`\mathrm{tr}\,G \le \tilde R^2`. The proxy takes the worst case over the
  spectra allowed by that trace bound that have one non-zero level: for each g on a log
  grid of :math:`[10^{-8}, 1]\,\tilde R^2`, :math:`t_g = \min(p, k\tilde R^2/g)` parameter
  directions with eigenvalue g and the others at 0 (k outputs, p parameters). The
  loss's curvature there is :math:`h_d = c\,g` (c its bound on l'': 1/4, 1/2 or 1) and
  :math:`h = c g + \lambda` with the regularisation.
* **Optimum.** :math:`\|\theta_*\| = r_0`, spread evenly: :math:`\theta_{*i}^2 = r_0^2/p`
  (r0 the upper end of its public range,
  :func:`concentrated_initial_distance`).
* **Run.** In each eigendirection the error :math:`e_k` to the regularised optimum
  follows the linear recursion of a (preconditioned, momentum) gradient step with
  Gaussian noise, :math:`e_{k+1} = (1 - \gamma h)((1+\beta)e_k - \beta e_{k-1}) -
  \gamma\sigma Z_k`, whose mean and variance are propagated exactly
  (:func:`direction_errors`). The step :math:`\gamma` is :math:`\eta` for plain GD and
  :math:`\eta/(c(g + m + s) + \lambda)` for the Gram preconditioner, where the Gram noise
  E adds s to the preconditioner's eigenvalues: E is a Wigner matrix, whose eigenvalues
  follow the semicircle law on :math:`[-2\tau\sqrt d, 2\tau\sqrt d]` (Wigner 1958;
  Anderson, Guionnet and Zeitouni 2010, Theorem 2.1.1), averaged over here by
  Gauss-Chebyshev quadrature (:func:`semicircle_nodes`).

Two scores, both in units of the loss:

* **excess loss** (regressors, whose score R^2 depends on the scale of theta):
  :math:`\frac\lambda2 r_0^2 + \frac{r_0^2}{p}\max_g t_g\bar O_g +
  \sigma^2\max_g\big[t_g\bar N_g + (p - t_g)N_0\big]`, the proxy of
  :func:`~skdpgd.solvers._preconditioned.preconditioned_utility_proxy`;
* **excess loss of the best rescaling** (classifiers, whose score, accuracy, depends on
  theta only through its direction): :math:`\max_g \min_\alpha` of the expected excess
  loss of :math:`\alpha\theta_K` in the block of g (:func:`~._proxy_scores.scale_free_excess`).

It is a planning heuristic from public numbers only and plays no part in any privacy
claim.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..accounting.calibration import check_count, check_positive
from ._proxy_kernels import impulse_moments
from ._proxy_kernels import impulse_response as _impulse_response
from ._proxy_scores import LevelTerms, scale_free_terms, worst_level_value

__all__ = ["TIE_TOLERANCE", "Prediction", "concentrated_initial_distance", "direction_errors",
           "error_moments", "predict_runs", "predicted_excess_loss", "predicted_excess_losses",
           "semicircle_nodes"]

#: Predictions within this relative gap of the smallest tie (the proxy's digits beyond
#: the first two mean nothing), and the cheapest of them wins: in the public choice
#: (:mod:`._auto`), the Gram route and the choice on a released spectrum
#: (:mod:`._spectral_choice`).
TIE_TOLERANCE = 0.01

#: Points of the log grid of eigenvalues g / Rt^2 the proxy maximises over.
SPECTRUM_GRID = np.logspace(-8.0, 0.0, 121)

#: Quadrature points over the semicircle law of the Gram noise's eigenvalues.
SEMICIRCLE_POINTS = 48


@dataclass(frozen=True)
class Prediction:
    """A candidate run's predicted excess loss and its compute cost (public numbers only).

    Attributes
    ----------
    label : str
        The candidate, e.g. ``"gd"`` or ``"preconditioned (Gram share 1/4)"``.
    excess_loss : float
        The proxy's prediction (module docstring), in units of the loss.
    passes : float
        Compute cost in passes over the data.
    """

    label: str
    excess_loss: float
    passes: float


def concentrated_initial_distance(output_scale, data_norm, n_features, n_outputs=1,
                                  intercept_scaling=None):
    r"""The r0 to plan this solver with: the upper end of the public range of
    :math:`\|\theta_*\|`.

    A linear model must output about m = ``output_scale`` on rows of norm up to R; spread
    over the :math:`kd` weights that takes a norm :math:`m/R`, carried by one coordinate
    :math:`m\sqrt{kd}/R` (the range of
    :func:`skdpgd.linear_model._defaults.minimax_norm_guess`, which takes its geometric
    mean), plus :math:`m\sqrt k/b` on the intercept column b:

    .. math::

        r_0 = \sqrt{\frac{m^2 k d}{R^2} + \frac{k m^2}{b^2}}.

    Why the upper end here: the proxy's best K grows like r0 (noise ~ K, optimisation
    ~ r0^2 / K) and the errors are lopsided: too few steps leave the run far from the
    optimum (diamonds with linear columns: R^2 0.77 instead of 0.93 at epsilon 0.1), too
    many cost a little noise (Adult: accuracy within 0.002). Measured in
    :repo:`benchmarks/optimizer_study.py`; the optimum's norm there is 2.2x (Adult) and 6.5x
    (diamonds, linear columns) the geometric-mean guess.

    Parameters
    ----------
    output_scale : float
        m, the public scale of the model's output.
    data_norm : float
        R, the public bound on a row's norm.
    n_features : int
        d.
    n_outputs : int, default=1
        k.
    intercept_scaling : float, optional
        b, the intercept column's constant (None: no intercept).

    Returns
    -------
    float
        r0.
    """
    m = check_positive("output_scale", output_scale)
    R = check_positive("data_norm", data_norm)
    d = check_count("n_features", n_features)
    k = check_count("n_outputs", n_outputs)
    r0 = m * math.sqrt(k * d) / R
    if intercept_scaling is None:
        return r0
    return math.hypot(r0, m * math.sqrt(k) / check_positive("intercept_scaling", intercept_scaling))


def semicircle_nodes(n_points=SEMICIRCLE_POINTS):
    r"""Nodes and weights of the semicircle law on [-1, 1]: :math:`\int f\,d\rho \approx
    \sum_j w_j f(x_j)`.

    :math:`\rho(x) = \frac2\pi\sqrt{1 - x^2}`; with :math:`x = \cos\phi` the
    Gauss-Chebyshev rule of the second kind gives :math:`x_j = \cos\frac{j\pi}{J+1}`,
    :math:`w_j = \frac{2}{J+1}\sin^2\frac{j\pi}{J+1}`, exact for polynomials of degree
    up to 2J - 1.

    Returns
    -------
    nodes, weights : ndarray of shape (n_points,)
    """
    phi = np.arange(1, n_points + 1) * math.pi / (n_points + 1)
    return np.cos(phi), 2.0 / (n_points + 1) * np.sin(phi) ** 2


def direction_errors(n_steps, curvature, step, momentum=0.0):
    r"""Mean and variance of the error after K steps in one eigendirection.

    The recursion :math:`e_{k+1} = a e_k + b e_{k-1} - \gamma Z_k` with
    :math:`a = (1-r)(1+\beta)`, :math:`b = -(1-r)\beta`, :math:`r = \gamma h`, from
    :math:`e_0 = e_{-1} = 1` (theta starts at 0, the optimum is at 1), Z standard normal.
    Its mean and variance are exact, through the recursion's impulse response
    (:func:`error_moments`); for :math:`\beta = 0`, in closed form:
    :math:`E e_K = (1-r)^K` and :math:`\mathrm{Var}\,e_K = \gamma^2\frac{1-(1-r)^{2K}}{1-(1-r)^2}`.

    Parameters
    ----------
    n_steps : int
        K.
    curvature, step : array_like
        h and gamma (broadcast together).
    momentum : float or array_like, default=0
        beta.

    Returns
    -------
    mean, variance : ndarray
        :math:`E e_K` and :math:`\mathrm{Var}\,e_K` per unit noise std.
    """
    h, gamma = np.broadcast_arrays(np.asarray(curvature, float), np.asarray(step, float))
    r = gamma * h
    if np.all(np.asarray(momentum) == 0.0):  # a geometric sum: no loop over the K steps
        return _plain_moments(1.0 - r, gamma**2, int(n_steps))
    a, b = np.broadcast_arrays((1.0 - r) * (1.0 + momentum), -(1.0 - r) * momentum)
    if int(n_steps) < 1:  # no step: the error is still e_0 = 1, without noise
        return np.ones(a.shape) + b * np.zeros(a.shape), gamma**2 * np.zeros(a.shape)
    # error_moments at K only: the compiled recursion (the same floats as the numpy one)
    means, totals = impulse_moments(a, b, (int(n_steps),))
    return means[0], gamma**2 * totals[0]


def _plain_moments(a, q, n_steps):
    r""":func:`error_moments` at K without momentum (b = 0): :math:`E e_K = a^K` and
    :math:`\mathrm{Var}\,e_K = q\sum_{i<K} a^{2i} = q\,\frac{1 - a^{2K}}{1 - a^2}`, the
    quotient as :math:`\mathrm{expm1}(K\log a^2)/\mathrm{expm1}(\log a^2)` (no
    cancellation near :math:`a^2 = 1`; K where :math:`a^2 = 1`)."""
    square = a * a
    with np.errstate(divide="ignore", invalid="ignore"):
        log_square = np.log(square)
        total = np.where(square == 1.0, float(n_steps),
                         np.expm1(n_steps * log_square) / np.expm1(log_square))
    return np.power(a, n_steps), q * np.where(square == 0.0, min(n_steps, 1), total)


def error_moments(a, b, q, n_steps):
    r"""Yield :math:`(E e_k, \mathrm{Var}\,e_k)` for k = 1..``n_steps`` of
    :math:`e_{k+1} = a e_k + b e_{k-1} - \sqrt q Z_k` from :math:`e_0 = e_{-1} = 1`.

    Through the impulse response :math:`\phi_0 = 1`, :math:`\phi_k = a\phi_{k-1} +
    b\phi_{k-2}` (:math:`\phi_{-1} = 0`): the mean is :math:`E e_k = \phi_k + b\phi_{k-1}`
    and, the noises being independent, :math:`\mathrm{Var}\,e_k = q\sum_{i<k}\phi_i^2`
    (:ref:`predicted-utility`). ``a``, ``b``, ``q`` broadcast together. The one
    recursion of :func:`direction_errors` and of the preconditioned planner's proxy, which
    reduces each step's moments as they come (arrays of one step stay in cache).
    """
    a, b, q = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (a, b, q)))
    for phi, phi_prev, total in _impulse_response(a, b, n_steps):
        yield phi + b * phi_prev, q * total


def predicted_excess_loss(
    n_steps, noise_std, *, step, curvature, strong_convexity, n_params, n_outputs, row_norm,
    initial_distance, momentum=0.0, spread=0.0, scale_free=False, extra=0.0,
):
    r"""Predicted excess loss of one run: the proxy ``solver="auto"`` ranks candidates by.

    The public spectral model and both scores (the excess loss for regressors, the excess
    loss of the best rescaling of theta for classifiers) are stated, with their sources,
    in the user guide's theory page, section :ref:`predicted-utility`.

    Parameters
    ----------
    n_steps : int
        K, the number of noisy steps.
    noise_std : float
        sigma, the std of the noise added to each step's gradient.
    step : callable
        ``step(g, s)``: the step gamma in the direction of eigenvalue g when the Gram noise
        shifts the preconditioner's eigenvalue by s (plain GD ignores both).
    curvature : float
        c, the loss's bound on l''.
    strong_convexity : float
        lam.
    n_params, n_outputs : int
        p and k.
    row_norm : float
        Rt, the bound on an augmented row's norm.
    initial_distance : float
        r0.
    momentum : float, default=0
        beta.
    spread : float, default=0
        Radius :math:`2\tau\sqrt d` of the semicircle of the Gram noise's eigenvalues (0:
        no Gram).
    scale_free : bool, default=False
        Score the best rescaling of theta (classifiers) instead of theta itself.
    extra : float, default=0
        A further public term added as is (the mini-batch heterogeneity of cyclic GD).

    Returns
    -------
    float
        The predicted excess loss, in units of the loss.
    """
    run = dict(n_steps=n_steps, noise_std=noise_std, step=step,
               strong_convexity=strong_convexity, momentum=momentum, spread=spread, extra=extra)
    return predicted_excess_losses(
        [run], curvature=curvature, n_params=n_params, n_outputs=n_outputs, row_norm=row_norm,
        initial_distance=initial_distance, scale_free=scale_free,
    )[0]


def predicted_excess_losses(runs, *, curvature, n_params, n_outputs, row_norm,
                            initial_distance, scale_free=False, terms=False):
    """:func:`predicted_excess_loss` of several runs on one problem, their recursions shared.

    ``runs``: dicts of the per-run arguments of :func:`predicted_excess_loss`
    (``n_steps``, ``noise_std``, ``step``, ``strong_convexity``, and optionally
    ``momentum``, ``spread``, ``extra``, and ``key``: a hashable value, equal for runs
    whose ``step``, ``strong_convexity``, ``momentum`` and ``spread`` are equal). Runs of
    one key (a candidate at several compute budgets) share one error recursion, read at
    each K. Each value is the one :func:`predicted_excess_loss` gives for that run alone,
    bit for bit.

    Parameters
    ----------
    runs : list of dict
        The runs (keys above).
    curvature : float
        c, the loss's bound on l''.
    n_params, n_outputs : int
        p and k.
    row_norm : float
        Rt, the bound on an augmented row's norm.
    initial_distance : float
        r0.
    scale_free : bool, default=False
        Score the best rescaling of theta (classifiers) instead of theta itself.
    terms : bool, default=False
        Return each run's :class:`~._proxy_scores.LevelTerms` instead (its value at
        every level of the worst case; :func:`~._proxy_scores.worst_level_value` gives the
        prediction from it, bit for bit).

    Returns
    -------
    list of float
        The predicted excess loss of each run, in units of the loss (its
        :class:`~._proxy_scores.LevelTerms` with ``terms``).
    """
    c, p = float(curvature), float(n_params)
    rt2 = float(row_norm) ** 2
    g = np.concatenate([[0.0], rt2 * SPECTRUM_GRID])
    nodes, weights = semicircle_nodes()
    count = np.minimum(p, n_outputs * rt2 / g[1:])
    share = float(initial_distance) ** 2 / p
    groups = {}  # equal keys: the same recursion (docstring)
    for i, run in enumerate(runs):
        groups.setdefault(run.get("key", ("run", i)), []).append(i)
    values = [None] * len(runs)

    def score(run, h, g_points, spread, mean, variance):
        variance = variance * float(run["noise_std"]) ** 2
        lam, extra = float(run["strong_convexity"]), float(run.get("extra", 0.0))
        w = weights if spread else None
        if scale_free:
            levels = scale_free_terms(c * g_points[..., 1:], h[..., 1:], mean[..., 1:],
                                      variance[..., 1:], share, count, w)
            found = LevelTerms(True, levels, 0.0, extra)
        else:
            opt, noise = 0.5 * h * mean * mean, 0.5 * h * variance
            if w is not None:
                opt, noise = w @ opt, w @ noise
            levels = (share * count * opt[1:], count * noise[1:] + (p - count) * noise[0])
            found = LevelTerms(False, levels, 0.5 * lam * share * p, extra)
        return found if terms else worst_level_value(found)

    for members in groups.values():  # one group at a time: its arrays stay in cache
        run = runs[members[0]]
        spread = bool(float(run.get("spread", 0.0)))
        if spread:
            shift = float(run["spread"]) * nodes[:, None]
            g_points = np.broadcast_to(g, (nodes.size, g.size))
        else:
            shift, g_points = 0.0, g
        h = c * g_points + float(run["strong_convexity"])
        h, gamma = np.broadcast_arrays(np.asarray(h, float),
                                       np.asarray(run["step"](g_points, shift), float))
        r, momentum = gamma * h, run.get("momentum", 0.0)
        if np.all(np.asarray(momentum) == 0.0):  # direction_errors' geometric sum
            for i in members:
                mean, variance = _plain_moments(1.0 - r, gamma**2, int(runs[i]["n_steps"]))
                values[i] = score(runs[i], h, g_points, spread, mean, variance)
            continue
        a, b = np.broadcast_arrays((1.0 - r) * (1.0 + momentum), -(1.0 - r) * momentum)
        steps = sorted({int(runs[i]["n_steps"]) for i in members})
        means, totals = impulse_moments(a, b, steps)  # direction_errors' at each K
        for i in members:
            at = steps.index(int(runs[i]["n_steps"]))
            values[i] = score(runs[i], h, g_points, spread, means[at], gamma**2 * totals[at])
    return values


def predict_runs(problem, labelled_runs, terms=False):
    """The :class:`Prediction` of each candidate run on one problem, scored together.

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit (r0 is ``problem.largest_distance``).
    labelled_runs : list of tuple
        ``(label, passes, run)``, ``run`` a dict of :func:`predicted_excess_losses`.
    terms : bool, default=False
        Also return each run's :class:`~._proxy_scores.LevelTerms`.

    Returns
    -------
    list of Prediction
        One per run, by :func:`predicted_excess_losses`.
    list of LevelTerms
        With ``terms``: the runs' values at every level of the worst case.
    """
    found = predicted_excess_losses(
        [run for _, _, run in labelled_runs], curvature=problem.curvature,
        n_params=problem.n_params, n_outputs=problem.n_outputs, row_norm=problem.row_norm,
        initial_distance=problem.largest_distance, scale_free=problem.scale_free_score,
        terms=True,
    )
    predictions = [Prediction(label, worst_level_value(level_terms), passes)
                   for (label, passes, _), level_terms in zip(labelled_runs, found, strict=True)]
    return (predictions, found) if terms else predictions
