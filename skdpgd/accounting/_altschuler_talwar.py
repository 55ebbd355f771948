r"""Altschuler-Talwar's last-iterate Renyi bound for projected noisy SGD (numpy/scipy only).

Altschuler and Talwar (NeurIPS 2022), *Privacy of noisy stochastic gradient descent: more
iterations without more privacy loss*, Theorem 3.1 in the form of its eq. (3.3): for
convex, L-Lipschitz, M-smooth losses on a convex set of diameter D, step
``eta <= 2/M``, a fresh *uniformly random batch of b distinct rows* each step, the batch
gradient averaged over b, noise :math:`\mathcal N(0, \sigma^2 I)` on the gradient and a
projection onto the set after every step, the last iterate of T steps is
:math:`(\alpha, \varepsilon)`-RDP (replace-one neighbours) with

.. math::

    \varepsilon \le \min_{\tau\in\{0,\dots,T-1\}} \Big\{ (T-\tau)\,
        S_\alpha\big(\tfrac bn, \tfrac{b\sigma_2}{2L}\big)
        + \frac{\alpha D^2}{2\eta^2\sigma_1^2 (T-\tau)} \Big\},
    \qquad \sigma_1^2 + \sigma_2^2 = \sigma^2,

with :math:`S_\alpha(q, z)` the Renyi divergence of the sampled Gaussian mechanism
(their Definition 2.5). The first term is their Step 3a (privacy amplification by
sampling over the last T - tau steps, with the part sigma_2 of the noise); the second is
Step 3b (their Proposition 3.2, privacy amplification by iteration with shifts
:math:`a_t = D/(T-\tau)` and the part sigma_1, which forgets where the two runs were at
step tau: at most D apart). The paper's constants are kept: 2L is the replace-one bound
on the change of one per-example gradient (the only place L enters the proof), D the
diameter (2r for the ball of radius r of :mod:`skdpgd.optim._projection`). Proof:
Section 3.2 of the paper (sketch) and the Supplementary Material (full version,
arXiv:2205.13710); docs/theory.md#altschuler-talwar.

Direction of :math:`S_\alpha`: the paper's Definition 2.5 writes
:math:`D_\alpha(\mathcal N(0,z^2)\,\|\,(1-q)\mathcal N(0,z^2)+q\mathcal N(1,z^2))`; we use
the other direction, :math:`D_\alpha(\text{mixture}\,\|\,\mathcal N(0, z^2))`, which is
never smaller (Mironov, Talwar, Zhang 2019, Theorem 5) and is the usual "RDP of the sampled
Gaussian mechanism", so every value here is at least the paper's (tested against a
quadrature of both directions).

Which runs it covers: only the one its proof treats, fixed-size batches drawn uniformly
without replacement (``sampling="uniform"`` in
:func:`skdpgd.optim.noisy_sampled_gradient_descent`), every realised step map
1-Lipschitz (``eta <= 2/M``, M the smoothness of the whole regularised per-example
objective) and a projection onto a set of diameter D holding theta_0. Not Poisson: with
the sum normalised by the fixed expected size b, a realised batch larger than b can make
the step expansive (:math:`\eta(\lambda + |B|\beta_\ell/b) > 2`).
"""

import math
from functools import lru_cache

import numpy as np
from scipy import special

from ..exceptions import BoundNotApplicableError
from ._checks import as_orders, check_count, check_positive

__all__ = ["AT_ORDERS", "AT_SPLITS", "altschuler_talwar_rdp", "sampled_gaussian_rdp"]

#: Integer Renyi orders of the Altschuler-Talwar bound (the closed form of
#: :func:`sampled_gaussian_rdp` needs integers): 2..64, then 72 to 256.
AT_ORDERS = np.concatenate([np.arange(2, 65), [72, 80, 96, 112, 128, 160, 192, 256]]).astype(
    float
)

#: Fractions s = sigma_2^2 / sigma^2 of the noise split tried by
#: :func:`altschuler_talwar_rdp`, every one a valid choice: 1 - s geometric from 1e-3 to
#: 0.5 (past the burn-in the sampling term wants most of the noise) and s uniform from
#: 0.02 to 0.98 (few steps); 79 values, within 1% of a finer search in the tests.
AT_SPLITS = np.union1d(1.0 - np.geomspace(1e-3, 0.5, 30), np.linspace(0.02, 0.98, 49))


def _integer_orders(orders):
    orders = as_orders(orders)
    if np.any(orders != np.round(orders)):
        raise ValueError(
            "the sampled Gaussian RDP closed form needs integer orders; got "
            f"{orders[orders != np.round(orders)][:5]!r} (use AT_ORDERS)."
        )
    return orders


def sampled_gaussian_rdp(orders, sampling_rate, noise_multiplier):
    r"""Renyi divergence of the sampled Gaussian mechanism, integer orders, exact.

    .. math::

        S_\alpha(q, z) = \frac{1}{\alpha-1}\log \sum_{k=0}^{\alpha} \binom{\alpha}{k}
            (1-q)^{\alpha-k} q^k \exp\Big(\frac{k^2-k}{2z^2}\Big)
        = D_\alpha\big((1-q)\mathcal N(0,z^2)+q\mathcal N(1,z^2)\,\big\|\,\mathcal N(0,z^2)\big)

    Mironov, Talwar and Zhang (2019), *Renyi differential privacy of the sampled Gaussian
    mechanism*, Section 3.3 (integer alpha), the larger of the two directions (their
    Theorem 5). Computed in log space (log-sum-exp), vectorised over ``orders``.

    Parameters
    ----------
    orders : array-like of int
        alpha >= 2.
    sampling_rate : float
        q in [0, 1].
    noise_multiplier : float
        z >= 0: noise standard deviation over the shift between the two components.

    Returns
    -------
    ndarray
        :math:`S_\alpha(q, z)` per order (``inf`` when z = 0 and q > 0).
    """
    orders = _integer_orders(orders)
    q = check_positive("sampling_rate", sampling_rate, allow_zero=True)
    if q > 1:
        raise ValueError(f"sampling_rate must be in [0, 1], got {q!r}.")
    z = check_positive("noise_multiplier", noise_multiplier, allow_zero=True, allow_inf=True)
    if q == 0.0 or z == math.inf:
        return np.zeros_like(orders)
    if z == 0.0:
        return np.full_like(orders, math.inf)
    return _sampled_gaussian_rdp_grid(orders, q, np.array([z]))[0]


def _sampled_gaussian_rdp_grid(orders, q, noise_multipliers):
    """:func:`sampled_gaussian_rdp` for 0 < q <= 1 and several 0 < z < inf at once.

    One row per z; every element is computed by the same operations as one call with
    that z (elementwise arithmetic, a log-sum-exp along the last, contiguous axis), so
    the rows equal the single calls to the bit (tests/accounting/test_altschuler_talwar.py).
    """
    z = np.asarray(noise_multipliers, dtype=float)[:, None, None]
    if q == 1.0:
        return orders[None, :] / (2.0 * z[:, :, 0] * z[:, :, 0])
    k = np.arange(int(orders.max()) + 1, dtype=float)[None, :]
    alpha = orders[:, None]
    with np.errstate(invalid="ignore"):
        partial = (_log_binomials(tuple(orders.tolist()))
                   + (alpha - k) * math.log1p(-q) + k * math.log(q))
    # -inf past alpha before the last term (-inf + finite = -inf: as masking after it)
    partial = np.where(k <= alpha, partial, -np.inf)
    terms = partial[None, :, :] + (k * k - k)[None, :, :] / (2.0 * z * z)
    return np.maximum(_logsumexp_rows(terms), 0.0) / (orders - 1.0)[None, :]


def _logsumexp_rows(a):
    """``scipy.special.logsumexp(a, axis=-1)`` for real ``a``, the same operations in the
    same order (its maxima taken out of the sum, counted, and added back with log1p), with
    none of its generic wrapping; rows whose result is not finite are handed to scipy."""
    a_max = np.max(a, axis=-1, keepdims=True)
    at_max = a == a_max
    count = np.sum(at_max.astype(a.dtype), axis=-1, keepdims=True, dtype=a.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.sum(np.exp(np.where(at_max, -np.inf, a) - a_max), axis=-1, keepdims=True)
        rest = np.where(rest == 0, rest, rest / count)
        out = (np.log1p(rest) + np.log(count) + a_max)[..., 0]
    bad = ~np.isfinite(out)
    if np.any(bad):
        out[bad] = special.logsumexp(a[bad], axis=-1)
    return out


@lru_cache(maxsize=16)
def _log_binomials(orders):
    """log binom(alpha, k) for k = 0..max(orders), one row per order (NaN past alpha).

    The same operations, in the same order, as the sum it starts (so the bound is
    unchanged to the bit), computed once per order grid instead of at every call
    (planners call the bound thousands of times; docs/benchmarks: planning_time.py).
    """
    alpha = np.asarray(orders, dtype=float)[:, None]
    k = np.arange(int(alpha.max()) + 1, dtype=float)[None, :]
    with np.errstate(invalid="ignore"):
        table = (special.gammaln(alpha + 1.0) - special.gammaln(k + 1.0)
                 - special.gammaln(alpha - k + 1.0))
    table.flags.writeable = False
    return table


def _best_m(a, b, n_steps):
    """min over integer m in [1, T] of m a + b / m, elementwise (a, b >= 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        m_star = np.sqrt(np.where(a > 0, b / a, math.inf))
    m_star = np.clip(np.nan_to_num(m_star, posinf=n_steps), 1.0, n_steps)
    best = np.full(np.broadcast(a, b).shape, math.inf)
    for m in (np.floor(m_star), np.ceil(m_star)):
        m = np.clip(m, 1.0, n_steps)
        with np.errstate(invalid="ignore"):
            value = np.where(a == math.inf, math.inf, m * a) + b / m
        best = np.minimum(best, value)
    return best


def check_altschuler_talwar(*, learning_rate, smoothness, diameter):
    """Raise BoundNotApplicableError unless the run has a finite diameter and eta <= 2/M.

    Parameters
    ----------
    learning_rate : float or None
        eta > 0 (None: unknown, the bound does not apply).
    smoothness : float or None
        M > 0, smoothness of the regularised per-example objective.
    diameter : float or None
        D of the projection set; None or ``inf``: no projection.

    Returns
    -------
    tuple of float
        (eta, M, D), validated.
    """
    d = math.inf if diameter is None else check_positive(
        "diameter", diameter, allow_zero=True, allow_inf=True)
    if d == math.inf:
        raise BoundNotApplicableError(
            "Altschuler-Talwar's bound needs a projection onto a bounded set (finite "
            "diameter)."
        )
    if learning_rate is None or smoothness is None:
        raise BoundNotApplicableError(
            "Altschuler-Talwar's bound needs the step size and the smoothness of the run."
        )
    eta = check_positive("learning_rate", learning_rate)
    m_smooth = check_positive("smoothness", smoothness)
    if eta > 2.0 / m_smooth:
        raise BoundNotApplicableError(
            f"Altschuler-Talwar's bound needs learning_rate <= 2/smoothness = "
            f"{2.0 / m_smooth!r}, got {eta!r}."
        )
    return eta, m_smooth, d


def altschuler_talwar_rdp(
    orders,
    noise_std,
    n_steps,
    *,
    batch_size,
    n_samples,
    gradient_bound,
    learning_rate,
    smoothness,
    diameter,
    splits=AT_SPLITS,
):
    r"""Altschuler-Talwar eq. (3.3): RDP of the last iterate of projected noisy SGD.

    .. math::

        \varepsilon(\alpha) = \min_{s}\ \min_{m\in\{1,\dots,T\}}\Big\{
            m\,S_\alpha\big(\tfrac bn, \tfrac{b\sigma\sqrt{s}}{2L}\big)
            + \frac{\alpha D^2}{2\eta^2\sigma^2(1-s)\,m}\Big\}

    with :math:`m = T - \tau` and the split :math:`\sigma_2^2 = s\sigma^2`,
    :math:`\sigma_1^2 = (1-s)\sigma^2` (Altschuler and Talwar 2022, eq. (3.3) and its
    proof, Steps 3a-4). For each order and split the minimum over m is attained at
    :math:`\lfloor m^*\rfloor` or :math:`\lceil m^*\rceil` with :math:`m^* = \sqrt{B/A}`
    clipped to [1, T] (m A + B/m is convex in m). Every (order, split, m) gives a valid
    bound, so the minimum does too.

    Parameters
    ----------
    orders : array-like of int
        Renyi orders alpha >= 2 (e.g. :data:`AT_ORDERS`).
    noise_std : float
        sigma, noise standard deviation on the averaged batch gradient.
    n_steps : int
        T >= 0.
    batch_size, n_samples : int
        b <= n: each step uses b distinct rows drawn uniformly without replacement.
    gradient_bound : float
        L: every per-example data-term gradient has norm <= L on the domain, so replacing
        one row moves the batch gradient sum by at most 2L (the regulariser cancels).
    learning_rate : float
        eta, at most 2 / smoothness.
    smoothness : float
        M, smoothness of the regularised per-step objective (beta_l + lam).
    diameter : float
        D, diameter of the projection set (2 r for a ball of radius r); theta_0 in it.
    splits : array-like, optional
        Grid of s in (0, 1).

    Returns
    -------
    ndarray
        RDP epsilon per order (convert with :func:`~skdpgd.accounting.rdp_to_epsilon`).

    Raises
    ------
    BoundNotApplicableError
        When ``learning_rate > 2 / smoothness`` (the step map need not be a contraction)
        or the diameter is infinite (no projection): the theorem does not cover the run.
    """
    orders = _integer_orders(orders)
    sigma = check_positive("noise_std", noise_std, allow_zero=True, allow_inf=True)
    t = check_count("n_steps", n_steps, minimum=0)
    b = check_count("batch_size", batch_size)
    n = check_count("n_samples", n_samples)
    if b > n:
        raise ValueError(f"batch_size must be <= n_samples={n}, got {b}.")
    lip = check_positive("gradient_bound", gradient_bound, allow_zero=True)
    eta, _, d = check_altschuler_talwar(
        learning_rate=learning_rate, smoothness=smoothness, diameter=diameter)
    if t == 0 or lip == 0.0 or sigma == math.inf:
        return np.zeros_like(orders)
    if sigma == 0.0:
        return np.full_like(orders, math.inf)
    splits = np.asarray(splits, dtype=float)
    if splits.ndim != 1 or np.any(~((splits > 0) & (splits < 1))):
        raise ValueError("splits must be a 1-D grid of numbers in (0, 1).")
    best = np.full(orders.shape, math.inf)
    grid = _sampled_gaussian_rdp_grid(  # every split at once: the same numbers as one by one
        orders, b / n, [b * sigma * math.sqrt(s) / (2.0 * lip) for s in splits])
    for s, a in zip(splits, grid, strict=True):
        bias = orders * d * d / (2.0 * eta * eta * sigma * sigma * (1.0 - s))
        best = np.minimum(best, _best_m(a, bias, float(t)))
    return best
