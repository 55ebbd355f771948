"""Independent references for the accounting tests.

Nothing in this module imports ``skdpgd``: every expected value used by the tests in
``tests/accounting`` is produced here, either

* by simulating the exact law of the last iterate of noisy gradient descent on quadratic
  losses (every iterate is Gaussian, so the mean and covariance recursions below are exact),
* by evaluating the Gaussian-DP trade-off in high precision with mpmath (closed form through
  ``ncdf`` and, independently, by integrating the privacy-loss tail), or
* by writing out the formulas of docs/theory.md#bounds "by hand" in mpmath.

Noise convention (docs/theory.md#noise-convention): th_{k+1} = th_k - eta * (grad F_B(th_k) + sigma * Z_k),
Z_k ~ N(0, I), replace-one neighbours.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

# ---------------------------------------------------------------------------------------------
# Gaussian iterates of noisy GD on quadratic losses
# ---------------------------------------------------------------------------------------------
#
# Per-example loss f_i(th) = 0.5 * (th - x_i)^T H (th - x_i) with a fixed symmetric positive
# definite H (for H = m * I this is (m/2) ||th - x_i||^2).  Its gradient H (th - x_i) is affine in
# th, so if th_k ~ N(mean_k, cov_k) then
#
#     mean_{k+1} = mean_k - eta * H (mean_k - xbar_{B_k})          (xbar_B: mean of the batch rows)
#     cov_{k+1}  = (I - eta H) cov_k (I - eta H)^T + eta^2 sigma^2 I
#
# exactly.  Two Gaussians with the same covariance are exactly mu-GDP apart with
# mu = sqrt(delta^T cov^{-1} delta) (Mahalanobis distance of the means; Dong-Roth-Su 2022).
# The per-example gradient difference between x_i and x_i' is H (x_i - x_i'), so the replace-one
# gradient sensitivity S is ||H (x_i - x_i')||.


def replace_one(X, index, grad_shift, H):
    """Return a copy of X whose row ``index`` moves so that H (x - x') = grad_shift.

    The per-example gradient of the replaced record then differs by exactly ``grad_shift``
    (a vector whose norm is the sensitivity S) at every th.
    """
    Xp = np.array(X, dtype=float, copy=True)
    Xp[index] = Xp[index] - np.linalg.solve(H, grad_shift)
    return Xp


def gaussian_iterates(X, H, etas, sigmas, n_steps, batches=None, record_at=None):
    """Exact mean and covariance of noisy GD on the quadratic losses, step by step.

    Vectorised over a grid of (eta, sigma) pairs: ``etas`` and ``sigmas`` are 1-D arrays of the
    same length G.  ``batches`` is None (full batch) or a list of index arrays visited cyclically
    (step k uses batches[k % len(batches)]).  ``record_at`` is an iterable of step counts K at
    which to return (mean_K, cov_K); defaults to [n_steps].  th_0 = 0.
    """
    X = np.asarray(X, dtype=float)
    H = np.asarray(H, dtype=float)
    etas = np.asarray(etas, dtype=float)
    sigmas = np.asarray(sigmas, dtype=float)
    d = X.shape[1]
    G = etas.shape[0]
    if batches is None:
        batch_means = [X.mean(axis=0)]
    else:
        batch_means = [X[np.asarray(b)].mean(axis=0) for b in batches]
    record_at = sorted(set(record_at if record_at is not None else [n_steps]))
    eye = np.eye(d)
    A = eye[None, :, :] - etas[:, None, None] * H[None, :, :]  # (G, d, d)
    mean = np.zeros((G, d))
    cov = np.zeros((G, d, d))
    noise_var = (etas * sigmas) ** 2
    out = {}
    for k in range(record_at[-1]):
        xbar = batch_means[k % len(batch_means)]
        grad = (mean - xbar[None, :]) @ H.T  # grad of the batch objective at the mean
        mean = mean - etas[:, None] * grad
        cov = A @ cov @ np.transpose(A, (0, 2, 1)) + noise_var[:, None, None] * eye[None]
        if k + 1 in record_at:
            out[k + 1] = (mean.copy(), cov.copy())
    return out


def mahalanobis_mu(mean_a, mean_b, cov):
    """Exact GDP parameter between N(mean_a, cov) and N(mean_b, cov), vectorised over axis 0."""
    diff = mean_a - mean_b
    sol = np.linalg.solve(cov, diff[..., None])[..., 0]
    return np.sqrt(np.einsum("gi,gi->g", diff, sol))


def exact_mu(X, Xp, H, etas, sigmas, n_steps, batches=None, record_at=None):
    """Exact GDP parameter of th_K on X versus Xp for every K in record_at (dict K -> array).

    The covariance recursion is the one of ``gaussian_iterates``.  The difference of the two
    means obeys the same linear recursion driven by the difference of the batch means,
        diff_{k+1} = diff_k - eta H (diff_k - mean_{B_k}(X - Xp)),
    which is propagated directly: subtracting two separately propagated means would cancel
    catastrophically when S/n is tiny compared with the data.
    """
    X = np.asarray(X, dtype=float)
    Xp = np.asarray(Xp, dtype=float)
    H = np.asarray(H, dtype=float)
    etas = np.asarray(etas, dtype=float)
    sigmas = np.asarray(sigmas, dtype=float)
    d = X.shape[1]
    G = etas.shape[0]
    rows = X - Xp
    if batches is None:
        batch_diffs = [rows.mean(axis=0)]
    else:
        batch_diffs = [rows[np.asarray(b)].mean(axis=0) for b in batches]
    record_at = sorted(set(record_at if record_at is not None else [n_steps]))
    eye = np.eye(d)
    A = eye[None, :, :] - etas[:, None, None] * H[None, :, :]
    diff = np.zeros((G, d))
    cov = np.zeros((G, d, d))
    noise_var = (etas * sigmas) ** 2
    out = {}
    for k in range(record_at[-1]):
        bdiff = batch_diffs[k % len(batch_diffs)]
        diff = diff - etas[:, None] * ((diff - bdiff[None, :]) @ H.T)
        cov = A @ cov @ np.transpose(A, (0, 2, 1)) + noise_var[:, None, None] * eye[None]
        if k + 1 in record_at:
            sol = np.linalg.solve(cov, diff[..., None])[..., 0]
            out[k + 1] = np.sqrt(np.einsum("gi,gi->g", diff, sol))
    return out


def scalar_recursion_mu(a, grad_diffs, eta, sigma):
    """Exact GDP of a 1-D linear Gaussian recursion, written out step by step.

    d_{k+1} = a d_k + eta * grad_diffs[k],  v_{k+1} = a^2 v_k + eta^2 sigma^2, d_0 = v_0 = 0.
    Uses mpmath at 50 digits so that the reference is free of float rounding.
    """
    with mp.workdps(50):
        a = mp.mpf(a)
        eta = mp.mpf(eta)
        sigma = mp.mpf(sigma)
        d = mp.mpf(0)
        v = mp.mpf(0)
        for g in grad_diffs:
            d = a * d + eta * mp.mpf(g)
            v = a * a * v + eta * eta * sigma * sigma
        return abs(d) / mp.sqrt(v)


def cyclic_partition(n, batch_size):
    """Split range(n) into l = ceil(n / batch_size) contiguous batches of near-equal size.

    np.array_split puts the larger batches first and the smallest batches last, which is the
    worst order for privacy (a record in a smallest batch visited last has the largest effect on
    the last iterate), so the maximum over positions below is the maximum over orders too.
    """
    n_batches = -(-n // batch_size)
    return [np.asarray(b) for b in np.array_split(np.arange(n), n_batches)]


# ---------------------------------------------------------------------------------------------
# Bounds of docs/theory.md#bounds, written out by hand (mpmath, 50 digits)
# ---------------------------------------------------------------------------------------------


def contraction_hand(eta, lam, beta):
    return max(abs(1.0 - eta * lam), abs(1.0 - eta * beta))


def bound_a_hand(sigma, K, S, n, c):
    """(A): (S/(n sigma)) min(sqrt K, sqrt((1+c)/(1-c) (1-c^K)/(1+c^K)))."""
    with mp.workdps(50):
        c = mp.mpf(c)
        K = mp.mpf(K)
        conv = mp.sqrt((1 + c) / (1 - c) * (1 - c**K) / (1 + c**K)) if c < 1 else mp.inf
        return float(mp.mpf(S) / (mp.mpf(n) * mp.mpf(sigma)) * min(mp.sqrt(K), conv))


def bound_b_hand(sigma, K, S, n, eta, D):
    """(B): min(sqrt(K) S/(n sigma), (1/sigma) sqrt(3 (S/n) D/eta + (S/n)^2 ceil(D n/(S eta))))."""
    with mp.workdps(50):
        s_n = mp.mpf(S) / mp.mpf(n)
        comp = mp.sqrt(K) * s_n / mp.mpf(sigma)
        ceil_term = mp.ceil(mp.mpf(D) * mp.mpf(n) / (mp.mpf(S) * mp.mpf(eta)))
        conv = mp.sqrt(3 * s_n * mp.mpf(D) / mp.mpf(eta) + s_n**2 * ceil_term) / mp.mpf(sigma)
        return float(min(comp, conv))


def bound_c_hand(sigma, E, b, S, n_batches, c):
    """(C): (S/(b sigma)) min(sqrt E, sqrt(1 + c^(2l-2) (1-c^2)/(1-c^l)^2 (1-c^(l(E-1)))/(1+c^(l(E-1)))))."""
    with mp.workdps(50):
        c = mp.mpf(c)
        l = n_batches
        if c < 1:
            tail = (1 - c ** (l * (E - 1))) / (1 + c ** (l * (E - 1)))
            conv = mp.sqrt(1 + c ** (2 * l - 2) * (1 - c**2) / (1 - c**l) ** 2 * tail)
        else:
            conv = mp.inf
        return float(mp.mpf(S) / (mp.mpf(b) * mp.mpf(sigma)) * min(mp.sqrt(E), conv))


def chourasia_hand(alpha, sigma, K, S, n, eta, lam):
    """(D): alpha S^2/(lam s^2 n^2) (1 - exp(-lam eta K/2)) with s = sigma sqrt(eta/2)."""
    with mp.workdps(50):
        s2 = mp.mpf(sigma) ** 2 * mp.mpf(eta) / 2
        return float(
            mp.mpf(alpha) * mp.mpf(S) ** 2 / (mp.mpf(lam) * s2 * mp.mpf(n) ** 2)
            * (-mp.expm1(-mp.mpf(lam) * mp.mpf(eta) * K / 2))
        )


def mironov_eps(orders, rdp, delta):
    """Mironov (2017) Prop. 3: eps = min_alpha rdp(alpha) + log(1/delta)/(alpha-1)."""
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    return float(np.min(rdp + math.log(1.0 / delta) / (orders - 1.0)))


def cks_eps(orders, rdp, delta):
    """Canonne-Kamath-Steinke (2020): min_alpha rdp + log((a-1)/a) - (log delta + log a)/(a-1)."""
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    vals = rdp + np.log((orders - 1.0) / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    return float(np.min(vals))


# ---------------------------------------------------------------------------------------------
# Gaussian DP <-> (eps, delta) in high precision
# ---------------------------------------------------------------------------------------------


def mp_delta(mu, eps, dps=60):
    """delta(eps; mu) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), at ``dps`` digits."""
    with mp.workdps(dps):
        mu = mp.mpf(mu)
        eps = mp.mpf(eps)
        return +(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))


def mp_delta_quad(mu, eps, dps=30):
    """delta(eps; mu) by integrating the privacy-loss tail; no subtraction of close numbers.

    With P = N(mu, 1), Q = N(0, 1), the likelihood ratio p/q(x) = exp(mu x - mu^2/2) exceeds e^eps
    on A = {x > t}, t = eps/mu + mu/2, and
        delta = P(A) - e^eps Q(A) = int_t^inf phi(x - mu) (1 - e^{eps - mu x + mu^2/2}) dx
              = int_0^inf phi(u + w) (1 - e^{-mu u}) du,          w = eps/mu - mu/2,
    an integral of a positive function.
    """
    with mp.workdps(dps):
        mu = mp.mpf(mu)
        eps = mp.mpf(eps)
        w = eps / mu - mu / 2

        def f(u):
            return mp.npdf(u + w) * (-mp.expm1(-mu * u))

        peak = max(-w, mp.mpf(0))
        scale = 1 / max(mp.mpf(1), w)  # decay length of exp(-w u) when w > 0
        pts = {mp.mpf(0)}
        for k in (1, 4, 16, 64):
            pts.add(k * scale)
        for k in (-8, -3, -1, 0, 1, 3, 8, 20):
            pts.add(peak + k)
        for k in (1, 10):
            pts.add(k / mu)
        pts = sorted(p for p in pts if 0 <= p <= peak + 40 + 64 * scale)
        # mp.quad stops on an absolute error estimate, so normalise the integrand to order one
        # (delta can be 1e-300) and scale back afterwards.
        norm = max(f(p) for p in pts[1:])
        return norm * mp.quad(lambda u: f(u) / norm, [*pts, mp.inf])


def mp_log_delta(mu, eps, dps=60):
    return mp.log(mp_delta(mu, eps, dps))


def mp_eps_delta_to_mu(eps, delta, dps=40, iters=120):
    """Largest mu with delta(eps; mu) <= delta, by bisection on log mu in high precision."""
    with mp.workdps(dps):
        target = mp.log(mp.mpf(delta))
        lo, hi = mp.log(mp.mpf("1e-8")), mp.log(mp.mpf(1000))
        assert mp_log_delta(mp.exp(lo), eps, dps + 20) < target < mp_log_delta(mp.exp(hi), eps, dps + 20)
        for _ in range(iters):
            mid = (lo + hi) / 2
            if mp_log_delta(mp.exp(mid), eps, dps + 20) <= target:
                lo = mid
            else:
                hi = mid
        return mp.exp(lo)


def mp_gdp_to_eps(mu, delta, dps=40, iters=120):
    """Smallest eps >= 0 with delta(eps; mu) <= delta, by bisection in high precision."""
    with mp.workdps(dps):
        target = mp.mpf(delta)
        if mp_delta(mu, 0, dps + 20) <= target:
            return mp.mpf(0)
        lo = mp.mpf(0)
        hi = mp.mpf(mu) ** 2 / 2 + mp.mpf(mu) * (mp.sqrt(2 * mp.log(1 / target)) + 5) + 1
        while mp_delta(mu, hi, dps + 20) > target:
            hi *= 2
        for _ in range(iters):
            mid = (lo + hi) / 2
            if mp_delta(mu, mid, dps + 20) <= target:
                hi = mid
            else:
                lo = mid
        return hi
