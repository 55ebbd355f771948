r"""The utility proxy on a released spectrum (``solver="auto"`` after a Gram release).

:mod:`skdpgd.solvers._utility` scores a candidate run on the worst spectrum the public
trace bound allows. Once a noisy Gram :math:`\tilde G = G + E` has been released and
accounted (:mod:`skdpgd.solvers._spectral`), its spectrum is public and the same proxy can
be evaluated on it instead (docs/theory.md#choosing-on-the-released-spectrum):

* :func:`estimate_spectrum` turns the released eigenvalues w into an estimate g of the
  spectrum of G (the semicircle bias of the noise removed, clipped to the public range);
* :func:`spectral_excess_loss` sums the proxy's per-direction terms over that spectrum
  (the worst case's :math:`\max_g` replaced by the sum over the d directions, each of
  multiplicity k);
* :func:`worst_bulk_excess_loss` scores a classifier with the unresolved bulk at its
  worst common level instead of its estimate (what the second choice must also win at
  to leave the public choice, :mod:`skdpgd.solvers._spectral_choice`);
* :func:`spread_bulk_excess_loss` scores a classifier with the bulk spread as n rows
  spread it at least (the Marchenko-Pastur law of ratio d_b/n around its estimate), each
  bulk direction at every level of that law (the release does not tell which has which).

Both are post-processing of the released Gram and public numbers: a planning heuristic
that plays no part in any privacy claim.
"""

import math

import numpy as np

from ._preconditioned import gram_noise_margin
from ._utility import direction_errors

__all__ = ["estimate_spectrum", "marchenko_pastur_quantiles", "released_offset_distance",
           "spectral_excess_loss", "spread_bulk_excess_loss", "worst_bulk_excess_loss"]

#: Levels (relative to the bulk's ceiling r/2) a regressor's score maximises over in the
#: bulk, whose levels the release does not resolve.
BULK_GRID = np.logspace(-6.0, 0.0, 25)

#: Quantiles of the Marchenko-Pastur law each bulk direction takes in
#: :func:`spread_bulk_excess_loss` (each with weight 1/SPREAD_QUANTILES).
SPREAD_QUANTILES = 32


def estimate_spectrum(released_eigenvalues, gram_noise_std, row_norm):
    r"""An estimate g of the spectrum of G from the released eigenvalues w of :math:`G + E`.

    E is a Wigner matrix (i.i.d. :math:`\mathcal N(0, \tau^2)` upper triangle): its
    eigenvalues fill the semicircle :math:`[-r, r]`, :math:`r = 2\tau\sqrt d` (Wigner
    1958; Anderson, Guionnet and Zeitouni 2010, Theorem 2.1.1), and an eigenvalue
    :math:`\theta > \tau\sqrt d` of G appears at :math:`w = \theta + d\tau^2/\theta`
    (Baik, Ben Arous and Péché 2005; for Wigner matrices Péché 2006, Capitaine, Donati-Martin
    and Féral 2009, Theorem 2.1). So

    * a released eigenvalue above the public bound m on :math:`\|E\|_{op}` that holds with
      probability 0.99 (:func:`~skdpgd.solvers._preconditioned.gram_noise_margin`,
      :math:`m = \tau(2\sqrt d + 2\sqrt{\log 200}) > r`: the edge of the bulk fluctuates
      above r) estimates :math:`\theta = \frac12\big(w + \sqrt{w^2 - r^2}\big)`, the
      inverse of that map;
    * the others (the bulk) share what is left of the trace,
      :math:`\bar g = \big(\mathrm{tr}\,\tilde G - \sum_{w_j > m}\theta_j\big)/\#\{w_j \le m\}`
      (:math:`E\,\mathrm{tr}\,E = 0`), clipped to :math:`[0, r/2]` (a level above
      :math:`\tau\sqrt d` would have left the bulk);
    * everything is clipped to the public range: :math:`0 \le g_j \le \tilde R^2` and
      :math:`\sum_j g_j \le \tilde R^2` (rows of norm at most :math:`\tilde R`), the sum
      by scaling.

    Parameters
    ----------
    released_eigenvalues : array_like of shape (d,)
        w, the eigenvalues of the released Gram.
    gram_noise_std : float
        tau (0: the Gram was released exactly, g = w clipped).
    row_norm : float
        :math:`\tilde R`.

    Returns
    -------
    spectrum : ndarray of shape (d,)
        g, in the order of w.
    bulk : ndarray of bool, shape (d,)
        Whether each eigenvalue is in the bulk (its level is not resolved: anywhere in
        :math:`[0, r/2]`).
    """
    w = np.asarray(released_eigenvalues, dtype=float)
    rt2 = float(row_norm) ** 2
    radius = 2.0 * float(gram_noise_std) * math.sqrt(w.size)
    g = w.copy()
    outer = w > gram_noise_margin(gram_noise_std, w.size)  # above ||E|| w.h.p.
    g[outer] = 0.5 * (w[outer] + np.sqrt(w[outer] ** 2 - radius**2))
    if np.any(~outer):
        level = (w.sum() - g[outer].sum()) / np.count_nonzero(~outer)
        g[~outer] = min(max(level, 0.0), 0.5 * radius)
    g = np.clip(g, 0.0, rt2)
    total = g.sum()
    return (g * (rt2 / total) if total > rt2 else g), ~outer


def spectral_excess_loss(
    n_steps, noise_std, *, steps, curvature, strong_convexity, spectrum, n_outputs,
    initial_distance, momentum=0.0, scale_free=False, extra=0.0, offset_weights=None,
    bulk=None, bulk_ceiling=0.0, offset_distance=0.0, weights=None,
):
    r"""The proxy of :func:`~skdpgd.solvers._utility.predicted_excess_loss` on one spectrum.

    In the direction j (eigenvalue :math:`g_j` of the estimated spectrum, k parameter
    directions each) the curvature is :math:`h_j = c g_j + \lambda`, the step
    :math:`\gamma_j` (``steps[j]``) and the error of the run to the regularised optimum
    has mean :math:`\bar e_j` and variance :math:`\sigma^2 v_j`
    (:func:`~skdpgd.solvers._utility.direction_errors`, exact for the linear recursion).
    The spectrum is known now, up to the levels of the bulk; where the optimum lies in it
    is not. A regressor's score takes the worst direction for it (norm r0), and in a bulk
    direction the worst level :math:`g \in [0, r/2]` (``bulk``, ``bulk_ceiling``; a log
    grid, :data:`BULK_GRID`):

    .. math::

        U = \frac\lambda2 r_0^2 + r_0^2\max_j \max_{g} \frac{h_j(g)}2\bar e_j(g)^2
            + k\sigma^2\sum_j \frac{h_j}2 v_j,

    the worst case's :math:`\max_g` over one-level spectra replaced by the max over the
    released directions, and its noise term by the sum over them (at the estimated
    levels). A classifier's score (``scale_free``) is that of the best rescaling
    :math:`\alpha\theta_K`, which undoes any common shrinkage: what costs is the
    distortion between directions, with the optimum spread evenly over the coordinates
    of theta, its offset (the coefficient of the intercept column) apart: with
    :math:`u_j` the intercept coordinate of the j-th eigenvector (:math:`u_j^2` =
    ``offset_weights[j]``), :math:`E\,\theta_{*j}^2 = a_j = \frac{r_0^2}{k(d-1)}(1 - u_j^2)
    + \frac{o^2}{k}u_j^2`, the first term 0 in the offset's own direction
    (:math:`u_j^2 > 1/2`: the eigenvector is the released one, whose noise would otherwise
    leak a share of the features' optimum into the direction plain GD fits fastest), o the
    offset's public scale (``offset_distance``, :func:`released_offset_distance`:
    the part of the features' mean the offset absorbs); :math:`a_j = r_0^2/(kd)` without
    an intercept column. The score is
    :math:`\frac k2\big(C - A^2/B\big)` with
    :math:`C = \sum_j h_{d,j} a_j`, :math:`A = \sum_j h_{d,j} a_j s_j`,
    :math:`B = \sum_j h_{d,j}(s_j^2 a_j + \sigma^2 v_j)`, :math:`s_j = (1-\bar e_j)h_{d,j}/h_j`,
    :math:`h_{d,j} = c g_j` (:func:`~skdpgd.solvers._proxy_scores.scale_free_excess`, one
    block per direction).

    Parameters
    ----------
    n_steps : int
        K.
    noise_std : float
        sigma.
    steps : array_like of shape (d,)
        gamma_j, the step in each direction (eta for plain GD; eta over the
        preconditioner's eigenvalue for the Gram preconditioner).
    curvature, strong_convexity : float
        c and lam.
    spectrum : array_like of shape (d,)
        g (:func:`estimate_spectrum`).
    n_outputs : int
        k.
    initial_distance : float
        r0.
    momentum : float, default=0
        beta.
    scale_free : bool, default=False
        Score the best rescaling of theta (classifiers).
    extra : float, default=0
        A public term added as is (cyclic GD's batch heterogeneity).
    offset_weights : array_like of shape (d,), optional
        :math:`u_j^2`, the squared intercept coordinate of each eigenvector of the
        released Gram (None: no intercept column).
    bulk : array_like of bool, shape (d,), optional
        The directions whose level the release does not resolve (:func:`estimate_spectrum`).
    bulk_ceiling : float, default=0
        Their largest possible level, r/2.
    offset_distance : float, default=0
        o, the expected size of the optimum's offset (with ``offset_weights``).
    weights : array_like of shape (d,), optional
        A classifier's score only: the multiplicity of each entry in the sums (entries
        that share one direction, each at one of its possible levels, of weights summing
        to 1; :func:`spread_bulk_excess_loss`). Default: 1 each.

    Returns
    -------
    float
        The predicted excess loss, in units of the loss.
    """
    g = np.asarray(spectrum, dtype=float)
    if g.ndim == 2 and not (scale_free and weights is None and bulk is None):
        raise ValueError("a spectrum per row is scored for a classifier without weights "
                         "or bulk only.")
    weight = np.ones(g.shape) if weights is None else np.asarray(weights, dtype=float)
    directions = g.shape[-1] if g.ndim == 2 else round(float(weight.sum()))
    c, lam, k = float(curvature), float(strong_convexity), int(n_outputs)
    h = c * g + lam
    mean, variance = direction_errors(n_steps, h, np.asarray(steps, dtype=float), momentum)
    variance = variance * float(noise_std) ** 2
    if offset_weights is None:
        share = np.full(g.shape, float(initial_distance) ** 2 / (k * directions))
    else:  # the features' coordinates share r0^2 (none in the offset's direction), the
        # offset its own o^2
        u2 = np.asarray(offset_weights, dtype=float)
        share = float(initial_distance) ** 2 / (k * max(directions - 1, 1)) * (1.0 - u2)
        share[u2 > 0.5] = 0.0
        share = share + float(offset_distance) ** 2 / k * u2
    if scale_free:
        h_data = c * g
        s = (1.0 - mean) * h_data / h
        # each row's sums (a spectrum per row: the same floats as one row at a time)
        c_sum = np.sum(weight * h_data * share, axis=-1)
        a_sum = np.sum(weight * h_data * s * share, axis=-1)
        b_sum = np.sum(weight * h_data * (s * s * share + variance), axis=-1)
        if g.ndim == 2:
            with np.errstate(divide="ignore", invalid="ignore"):
                kept = np.where(b_sum > 0.0, a_sum * a_sum / b_sum, 0.0)
            return 0.5 * k * (c_sum - kept) + float(extra)
        kept = a_sum * a_sum / b_sum if b_sum > 0.0 else 0.0
        return 0.5 * k * (c_sum - kept) + float(extra)
    r0_2 = float(initial_distance) ** 2 + float(offset_distance) ** 2
    opt = 0.5 * h * mean * mean
    if bulk is not None and np.any(bulk):  # unresolved levels: the worst in [0, r/2]
        levels = float(bulk_ceiling) * np.concatenate([[0.0], BULK_GRID])[:, None]
        h_levels = c * levels + lam
        steps_bulk = np.broadcast_to(np.asarray(steps, dtype=float)[bulk], (levels.size,
                                                                            int(bulk.sum())))
        mean_levels, _ = direction_errors(n_steps, h_levels, steps_bulk, momentum)
        opt = np.concatenate([opt[~bulk], (0.5 * h_levels * mean_levels**2).ravel()])
    worst_opt = r0_2 * float(np.max(opt))  # the optimum where it costs most
    noise = k * float(np.sum(0.5 * h * variance))
    return 0.5 * lam * r0_2 + worst_opt + noise + float(extra)


def worst_bulk_excess_loss(n_steps, noise_std, **kwargs):
    r""":func:`spectral_excess_loss` with a classifier's bulk at its worst common level.

    The bulk's directions (``bulk``) are below the noise edge: the release does not
    resolve their levels, anywhere in :math:`[0, r/2]`, and at their estimate (the trace
    share) an unfinished run looks finished. This scores a classifier (``scale_free``)
    with every bulk direction at one common level g, the largest score over
    :math:`g \in \{0\} \cup (r/2)` :data:`BULK_GRID` (a regressor's score already takes
    the bulk's worst level; it, and a spectrum without a bulk, are scored as by
    :func:`spectral_excess_loss`). (A worst two-level spread whose mean is the trace
    share, a narrower set, was measured and not kept: it loses the tables this score is
    for, ``benchmarks/auto_second_choice.py``.)

    Parameters
    ----------
    n_steps : int
        K.
    noise_std : float
        sigma.
    **kwargs
        As :func:`spectral_excess_loss` (``spectrum``, ``bulk``, ``bulk_ceiling``, ...).

    Returns
    -------
    float
        The predicted excess loss at the bulk's worst common level.
    """
    bulk = kwargs.get("bulk")
    if not kwargs.get("scale_free") or bulk is None or not np.any(bulk):
        return spectral_excess_loss(n_steps, noise_std, **kwargs)
    spectrum = np.asarray(kwargs["spectrum"], dtype=float)
    levels = float(kwargs.get("bulk_ceiling", 0.0)) * np.concatenate([[0.0], BULK_GRID])
    # every level's spectrum scored at once (one row each), the largest taken in order
    rows = np.where(bulk, levels[:, None], spectrum)
    scores = spectral_excess_loss(n_steps, noise_std, **dict(kwargs, spectrum=rows, bulk=None))
    return max(scores.tolist())


def marchenko_pastur_quantiles(count, ratio):
    r"""``count`` mid-quantiles of the Marchenko-Pastur law of ratio gamma, scaled to mean 1.

    The law of the eigenvalues of :math:`\frac1n Z^\top Z`, Z an n x d matrix of
    i.i.d. unit-variance entries, as :math:`d/n \to \gamma` (Marchenko and Pastur 1967;
    Bai and Silverstein 2010, Theorem 3.6): for :math:`\gamma \le 1` the density
    :math:`\frac{\sqrt{(b - x)(x - a)}}{2\pi\gamma x}` on
    :math:`[a, b] = [(1-\sqrt\gamma)^2, (1+\sqrt\gamma)^2]` (mean 1, variance gamma);
    for :math:`\gamma > 1` a mass :math:`1 - 1/\gamma` at 0 and the law of ratio
    :math:`1/\gamma` scaled by gamma (the Gram has rank n). Quantiles at the levels
    :math:`(i + 1/2)/\mathrm{count}` from the CDF on a grid of 4097 points, ascending, then
    divided by their mean.

    Parameters
    ----------
    count : int
        How many quantiles.
    ratio : float
        gamma > 0.

    Returns
    -------
    ndarray of shape (count,)
    """
    gamma = float(ratio)
    probabilities = (np.arange(count) + 0.5) / count
    zero_mass, scale = 0.0, 1.0
    if gamma > 1.0:
        zero_mass, scale, gamma = 1.0 - 1.0 / gamma, gamma, 1.0 / gamma
    a, b = (1.0 - math.sqrt(gamma)) ** 2, (1.0 + math.sqrt(gamma)) ** 2
    x = np.linspace(a, b, 4097)
    density = np.sqrt(np.maximum((b - x) * (x - a), 0.0)) / (2.0 * math.pi * gamma
                                                              * np.maximum(x, 1e-300))
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(x))])
    cdf /= cdf[-1]
    inner = np.clip((probabilities - zero_mass) / (1.0 - zero_mass), 0.0, 1.0)
    quantiles = np.where(probabilities < zero_mass, 0.0, scale * np.interp(inner, cdf, x))
    return quantiles / quantiles.mean()


def spread_bulk_excess_loss(n_steps, noise_std, *, n_samples, **kwargs):
    r""":func:`spectral_excess_loss` of a classifier with its bulk spread as n rows spread it.

    A Gram of n rows is spread at least as the Marchenko-Pastur law of ratio
    :math:`\gamma = d_b/n` (:func:`marchenko_pastur_quantiles`; :math:`d_b` the bulk's
    directions, n public) even where the population is isotropic, and the release does not
    resolve that spread (it lies below the noise edge). So every bulk direction j is
    scored at each of :data:`SPREAD_QUANTILES` quantiles :math:`\bar g q_i` of that law
    around the bulk's estimate :math:`\bar g`, with weight :math:`1/Q` each, its own step
    :math:`\gamma_j` kept: the expected sums of the score when the levels are paired
    with the bulk's directions independently of the released order (the bulk's released
    eigenvalues are the noise's, not the design's). Resolved directions are scored as by
    :func:`spectral_excess_loss`, and so is a regressor (its score takes the bulk's worst
    level already) and a spectrum without a bulk. (Pairing the quantiles with the released
    order instead, which credits a preconditioner built from the noise with the design's
    spread, was measured and not kept: benchmarks/README.md.)

    Parameters
    ----------
    n_steps : int
        K.
    noise_std : float
        sigma.
    n_samples : int
        n.
    **kwargs
        As :func:`spectral_excess_loss` (``steps``, ``spectrum``, ``bulk``, ...).

    Returns
    -------
    float
        The predicted excess loss with the bulk spread.
    """
    bulk = kwargs.get("bulk")
    if not kwargs.get("scale_free") or bulk is None or not np.any(bulk):
        return spectral_excess_loss(n_steps, noise_std, **kwargs)
    bulk = np.asarray(bulk, dtype=bool)
    spectrum = np.asarray(kwargs["spectrum"], dtype=float)
    levels = marchenko_pastur_quantiles(SPREAD_QUANTILES, np.count_nonzero(bulk) / n_samples)

    def expand(values, spread=None):  # resolved entries, then Q entries per bulk direction
        values = np.broadcast_to(np.asarray(values, dtype=float), spectrum.shape)
        inner = np.repeat(values[bulk], levels.size)
        return np.concatenate([values[~bulk], inner if spread is None
                               else inner * np.tile(spread, np.count_nonzero(bulk))])

    weights = np.concatenate([np.ones(np.count_nonzero(~bulk)),
                              np.full(np.count_nonzero(bulk) * levels.size, 1.0 / levels.size)])
    expanded = dict(kwargs, spectrum=expand(spectrum, levels), steps=expand(kwargs["steps"]),
                    bulk=None, weights=weights)
    if kwargs.get("offset_weights") is not None:
        expanded["offset_weights"] = expand(kwargs["offset_weights"])
    momentum = kwargs.get("momentum", 0.0)
    if np.ndim(momentum):
        expanded["momentum"] = expand(momentum)
    return spectral_excess_loss(n_steps, noise_std, **expanded)


def released_offset_distance(problem, released, noise_std):
    r"""o: the expected size of the optimum's offset, from the features' mean in the release.

    The offset (the coefficient of the intercept column b) of a linear model absorbs the
    features' mean: with :math:`\mu = E\,x`, :math:`w\cdot x + \theta_b b =
    w\cdot(x - \mu) + (w\cdot\mu + \theta_b b)`, so an optimum whose features' part is
    w carries about :math:`-w\cdot\mu/b` on the offset. For w spread evenly with
    :math:`\|w\|^2 = r_0^2` (the proxy's assumption), :math:`E(w\cdot\mu)^2 =
    r_0^2\|\mu\|^2/d`, hence :math:`o^2 = r_0^2\|\mu\|^2/(d b^2)`. The mean is read
    from the released Gram, :math:`\hat\mu = \tilde G_{1:d,\,d+1}/b` (its last column is
    :math:`b\,E\,x` plus noise :math:`\mathcal N(0, \tau^2)` per entry: post-processing),
    and its squared norm counts only what stands above that noise: minus its mean
    :math:`d\tau^2/b^2` and three of its standard deviations :math:`\sqrt{2d}\,\tau^2/b^2`,
    at least 0. A centred design gets :math:`o = 0` (the offset's direction then has no
    share, as without this term); a design with uncentred columns (one-hot indicators,
    positive measurements) gets the offset whose quick fit against slow features distorts
    an unfinished plain-gradient run (docs/theory.md#choosing-on-the-released-spectrum).

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit (r0 is ``problem.largest_distance``).
    released : ndarray of shape (d + 1, d + 1)
        The released Gram of the augmented design (intercept column last).
    noise_std : float
        tau, the noise of each released entry.

    Returns
    -------
    float
        o (0 without an intercept column).
    """
    b = problem.intercept_scaling
    if b is None:
        return 0.0
    d = released.shape[0] - 1
    mean = released[:d, d] / b
    noise = (float(noise_std) / b) ** 2
    square = max(float(mean @ mean) - (d + 3.0 * math.sqrt(2.0 * d)) * noise, 0.0)
    return problem.largest_distance * math.sqrt(square / max(d, 1)) / b
