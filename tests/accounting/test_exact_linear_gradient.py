"""Every reported bound against the exact privacy of linear-gradient instances.

With a linear data term (per-example loss :math:`\\langle a_i, \\theta\\rangle`, plus
:math:`\\frac\\lambda2\\|\\theta\\|^2`), the step of noisy GD is affine in theta with a
data-independent linear part, so every iterate of the *unprojected* run is Gaussian with a
data-independent variance: the exact privacy curve of the last iterate between neighbouring
data sets is the Gaussian mechanism with mu = |mean difference| / sd (one dimension along
the replaced gradient suffices: the orthogonal directions carry the same law under both).
Replacing one record's gradient a by a' with ||a - a'|| = S, the other records' at 0, the
mean difference obeys d_{k+1} = (1 - eta lam) d_k + eta g_k, with g_k = S/n (full batch),
S/b when the record's batch is visited (cyclic) and 0 otherwise; it is propagated here in
mpmath (``scalar_recursion_mu``), independently of the package.

**Projected runs.** The bounded-domain bounds (Bok-Su-Altschuler Theorem 4.3, bound (F),
Altschuler-Talwar eq. (3.3)) cover the run projected onto a ball of radius r after every
step. Coupling the projected and unprojected runs on the same noise, they agree until an
iterate leaves the ball; so for every event A and both data sets
|P_proj(A) - P(A)| <= tau, tau the probability that some iterate leaves the ball (a union
bound over the steps of the Gaussian tails, computed here), and the projected run's
delta(eps) is at least the Gaussian's minus (1 + e^eps) tau. The radii below make tau
underflow (below 1e-300), so the Gaussian mu is a lower bound on the projected run's
privacy: no bound may be below it.

**Fixed-size uniform batches** (``sampling="uniform"``, b < n): the replaced record is in
each step's batch independently with probability q = b/n, so the unprojected last iterate
is the mixture over its inclusion count C ~ Binomial(K, q) of N(-+ C eta L / b, K eta^2
sigma^2); its exact delta(eps) is a one-dimensional integral, computed here by quadrature.
Both bounds of a uniform run (composition without replacement and Altschuler-Talwar) must
stay above it.

**Where the projection binds**, the last iterate is no longer Gaussian; for Theorem 4.3 and
bound (F) in their binding regime (below composition) the last part propagates the exact
law of the projected one-dimensional walk on a fine grid (mass beyond an end goes to the
end) and compares the delta(eps) curves; the Altschuler-Talwar counterpart (the paper's own
Section-4 instance) is in ``test_altschuler_talwar.py``.
"""

import math

import numpy as np
import pytest
from _exact_reference import mp_delta, scalar_recursion_mu
from scipy import special, stats

from skdpgd.accounting import (
    composition_gdp,
    noisy_cyclic_gd_convex_gdp,
    noisy_cyclic_gd_gdp,
    noisy_gd_convex_gdp,
    noisy_gd_gdp,
    rdp_to_epsilon,
    sampled_sgd_bounds,
)
from skdpgd.accounting._altschuler_talwar import AT_ORDERS, altschuler_talwar_rdp

EXACT_RTOL = 1e-10  # mpmath reference against float64 closed forms
UPPER_SLACK = 1 + 1e-12


def _escape_probability(mean_shift, eta, lam, sigma, n_steps, radius):
    """Union bound on P(some |theta_k| > r), k <= K, under either data set.

    theta_k ~ N(m_k, v_k) along the shift, |m_k| <= k eta g (the drift of the replaced
    record alone, g its largest per-step gradient), v_k <= k eta^2 sigma^2 (contraction
    only shrinks both); every orthogonal coordinate has variance v_k too (the p - 1 of
    them are counted by the factor ``DIM``).
    """
    k = np.arange(1, n_steps + 1, dtype=float)
    drift, sd = k * eta * mean_shift, np.sqrt(k) * eta * sigma
    tails = stats.norm.logsf((radius / math.sqrt(DIM) - drift) / sd)
    return float(2 * DIM * np.exp(tails).sum())


DIM = 3  # the run's dimension (the ball is in R^DIM; only the shift direction matters)


def _check_projected_gaussian(radius, tau_args):
    tau = _escape_probability(*tau_args, radius)
    assert tau < 1e-300  # the Gaussian law is the projected run's, up to tau


@pytest.mark.parametrize("n_steps", [1, 10, 100, 1000])
def test_full_batch_convex_linear_loss(n_steps):
    # lam = 0, beta = 0 (a linear loss is 0-smooth: any step size satisfies eta <= 2/beta)
    n, s, sigma, eta = 50, 1.0, 0.5, 1.0
    exact = float(scalar_recursion_mu(1.0, [s / n] * n_steps, eta, sigma))
    # composition is exact for a linear loss: every step adds the same shift
    assert composition_gdp(sigma, n_steps, sensitivity=s, n_samples=n) == pytest.approx(
        exact, rel=EXACT_RTOL)
    radius = (n_steps * eta * s / (2 * n) + 60 * math.sqrt(n_steps) * eta * sigma) * DIM
    _check_projected_gaussian(radius, (s / 2 / n, eta, 0.0, sigma, n_steps))
    theorem_4_3 = noisy_gd_convex_gdp(sigma, n_steps, sensitivity=s, n_samples=n,
                                      learning_rate=eta, diameter=2 * radius)
    assert theorem_4_3 * UPPER_SLACK >= exact
    # Altschuler-Talwar with the whole data set as the batch (b = n: no sampling, the
    # same Gaussian run); its RDP at every order against the Gaussian's alpha mu^2 / 2
    rdp = altschuler_talwar_rdp(AT_ORDERS, sigma, n_steps, batch_size=n, n_samples=n,
                                gradient_bound=s / 2, learning_rate=eta, smoothness=1e-12,
                                diameter=2 * radius)
    assert np.all(rdp * UPPER_SLACK >= AT_ORDERS * exact**2 / 2)
    delta = 1e-5
    eps = rdp_to_epsilon(AT_ORDERS, rdp, delta)
    assert float(mp_delta(exact, eps)) <= delta * UPPER_SLACK  # the exact curve at its eps


@pytest.mark.parametrize("lam_eta, n_steps", [(0.5, 1), (0.1, 10), (0.01, 100), (0.01, 5000),
                                              (0.3, 2000)])
def test_full_batch_strongly_convex_linear_loss_is_exact_for_theorem_4_2(lam_eta, n_steps):
    # data term linear (beta_l = 0), lam > 0: the objective is lam-strongly convex and
    # lam-smooth, c = 1 - eta lam, and Theorem 4.2 is exact on it
    n, s, sigma, eta = 40, 2.0, 0.3, 1.0
    lam = lam_eta / eta
    exact = float(scalar_recursion_mu(1 - eta * lam, [s / n] * n_steps, eta, sigma))
    bound = noisy_gd_gdp(sigma, n_steps, sensitivity=s, n_samples=n, learning_rate=eta,
                         strong_convexity=lam, smoothness=lam)
    assert bound == pytest.approx(exact, rel=EXACT_RTOL)
    assert composition_gdp(sigma, n_steps, sensitivity=s, n_samples=n) * UPPER_SLACK >= exact


def _cyclic_exact(c, n_batches, n_epochs, b, s, eta, sigma):
    """Exact mu of the last iterate, worst over the position of the record's batch."""
    worst = 0.0
    for position in range(n_batches):
        shifts = [s / b if step % n_batches == position else 0.0
                  for step in range(n_batches * n_epochs)]
        worst = max(worst, float(scalar_recursion_mu(c, shifts, eta, sigma)))
    return worst


@pytest.mark.parametrize("lam_eta, n_epochs", [(0.2, 1), (0.2, 5), (0.05, 20), (0.5, 3)])
def test_cyclic_strongly_convex_linear_loss_theorem_4_5(lam_eta, n_epochs):
    n, b, s, sigma, eta = 24, 6, 1.0, 0.4, 1.0  # l = 4 batches of 6
    lam = lam_eta / eta
    exact = _cyclic_exact(1 - eta * lam, n // b, n_epochs, b, s, eta, sigma)
    bound = noisy_cyclic_gd_gdp(sigma, n_epochs, batch_size=b, sensitivity=s, n_samples=n,
                                learning_rate=eta, strong_convexity=lam, smoothness=lam)
    assert bound * UPPER_SLACK >= exact


@pytest.mark.parametrize("n_epochs", [1, 4, 30])
def test_cyclic_convex_linear_loss_bound_f(n_epochs):
    n, b, s, sigma, eta = 24, 6, 1.0, 0.4, 1.0
    n_batches = n // b
    exact = _cyclic_exact(1.0, n_batches, n_epochs, b, s, eta, sigma)
    # without contraction the shift E eta S / b meets the noise of all l E steps:
    # sqrt(E / l) S / (b sigma), below composition (Theorem 4.4, sqrt(E) S / (b sigma)),
    # which cannot count the other batches' noise for a general loss
    assert exact == pytest.approx(math.sqrt(n_epochs / n_batches) * s / (b * sigma),
                                  rel=EXACT_RTOL)
    steps = n_epochs * n // b
    radius = (n_epochs * eta * s / (2 * b) + 60 * math.sqrt(steps) * eta * sigma) * DIM
    _check_projected_gaussian(radius, (s / 2 / b, eta, 0.0, sigma, steps))
    bound = noisy_cyclic_gd_convex_gdp(sigma, n_epochs, batch_size=b, sensitivity=s,
                                       n_samples=n, learning_rate=eta, diameter=2 * radius)
    assert bound * UPPER_SLACK >= exact


def _mixture_delta(eps, *, n_steps, q, shift, sd):
    """delta(eps) between the mixtures sum_c w_c N(-+ c shift, sd^2), w = Binomial(K, q).

    By symmetry (x -> -x swaps the two laws) one direction suffices; trapezoid rule on
    [-K shift - 40 sd, K shift + 40 sd] with 20,001 points (the densities are smooth on
    the scale sd, at least 1/2,000 of the range here).
    """
    c = np.arange(n_steps + 1)
    log_w = stats.binom.logpmf(c, n_steps, q)
    c, log_w = c[log_w > -120.0], log_w[log_w > -120.0]  # weights below e^-120 ~ 1e-52 left out
    half = n_steps * shift + 40 * sd
    x = np.linspace(-half, half, 20_001)
    log_p = special.logsumexp(log_w[:, None] + stats.norm.logpdf(x[None, :], -c[:, None] * shift,
                                                                  sd), axis=0)
    log_r = special.logsumexp(log_w[:, None] + stats.norm.logpdf(x[None, :], c[:, None] * shift,
                                                                  sd), axis=0)
    gap = np.exp(log_p) * -np.expm1(np.minimum(eps + log_r - log_p, 0.0))  # (p - e^eps r)_+
    return float(np.trapezoid(gap, x))


@pytest.mark.parametrize("b, n_steps, sigma", [(10, 50, 0.2), (10, 200, 0.3), (25, 40, 0.05)])
def test_uniform_batches_both_bounds_above_the_exact_mixture(b, n_steps, sigma):
    n, lip, eta, delta = 100, 0.5, 1.0, 1e-5
    steps = [lip / b] * n_steps
    radius = (n_steps * eta * lip / b + 60 * math.sqrt(n_steps) * eta * sigma) * DIM
    _check_projected_gaussian(radius, (lip / b, eta, 0.0, sigma, n_steps))
    bounds = sampled_sgd_bounds(sigma, n_steps, delta=delta, sampling="uniform", batch_size=b,
                                n_samples=n, gradient_bound=lip, learning_rate=eta,
                                smoothness=1e-12, diameter=2 * radius)
    assert set(bounds.epsilons) == {"composition", "altschuler_talwar"}
    exact = dict(n_steps=n_steps, q=b / n, shift=eta * steps[0], sd=math.sqrt(n_steps) * eta * sigma)
    assert _mixture_delta(0.5, **exact) > 1e-3  # a run that leaks
    # measured: exact eps at delta 1e-5 is 1.36, 1.86, 5.69 for the three cases, against
    # composition 3.68, 4.73, 17.5; Altschuler-Talwar is vacuous here (D so large that the
    # projection never acts); where it acts, see test_altschuler_talwar.py
    for name, eps in bounds.epsilons.items():
        assert _mixture_delta(eps, **exact) <= delta, name


# -- where the projection binds: the exact law of the projected walk ---------------------------

def _projected_walk(shifts, *, radius, eta, sigma, points=801):
    """Law of theta_K of theta <- Pi_[-r, r](theta - eta (g_k + sigma Z)), theta_0 = 0, on a grid.

    The one-dimensional linear-loss instance: every record's gradient is 0 but the
    replaced one's, whose contribution to the averaged gradient at step k is g_k. Each
    step's law is pushed through the Gaussian kernel integrated over the cells of a grid
    of ``points`` points (mass beyond an end goes to the end point: the projection).
    """
    x = np.linspace(-radius, radius, points)
    edges = np.concatenate([[-np.inf], (x[:-1] + x[1:]) / 2, [np.inf]])
    kernels = {}
    for g in set(shifts):
        cdf = stats.norm.cdf((edges[None, :] - (x[:, None] - eta * g)) / (eta * sigma))
        kernels[g] = np.diff(cdf, axis=1)
    law = np.zeros(points)
    law[points // 2] = 1.0
    for g in shifts:
        law = law @ kernels[g]
    return law


def _delta(p, q, eps):
    """delta(eps) between two laws on the same grid, the larger of the two directions."""
    return max(np.maximum(p - math.exp(eps) * q, 0.0).sum(),
               np.maximum(q - math.exp(eps) * p, 0.0).sum())


_EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
# The grid moves an iterate by at most half a cell (D/1200 or less) against a step noise
# eta sigma >= D/7: the curves on the 801 (601 for cyclic) points used here and on 2001
# points agree to 1.3e-5 (measured at sigma = 0.3, the smallest noise here), and
# the bounds exceed them by at least 0.3 in delta wherever the exact delta is positive
# (e.g. 0.33 against 0.78 at eps = 1 for Theorem 4.3, sigma = 0.3), so the margin 0.01
# asserted below leaves room for the discretisation.
_MARGIN = 0.01


@pytest.mark.parametrize("sigma, n_steps", [(0.3, 100), (0.6, 200)])
def test_theorem_4_3_where_the_projection_binds(sigma, n_steps):
    n, lip, eta, radius = 10, 0.5, 1.0, 1.0  # S = 2L = 1; burn-in ceil(D n / (S eta)) = 20
    s = 2 * lip
    bound = noisy_gd_convex_gdp(sigma, n_steps, sensitivity=s, n_samples=n,
                                learning_rate=eta, diameter=2 * radius)
    # the bounded-domain term binds: composition would claim more
    assert bound < composition_gdp(sigma, n_steps, sensitivity=s, n_samples=n)
    walk = dict(radius=radius, eta=eta, sigma=sigma)
    plus = _projected_walk([lip / n] * n_steps, **walk)
    minus = _projected_walk([-lip / n] * n_steps, **walk)
    assert _delta(plus, minus, _EPSILONS[0]) > 0.0  # not a trivially private instance
    for eps in _EPSILONS:
        _check_above(float(mp_delta(bound, eps)), _delta(plus, minus, eps))


def _check_above(bound_delta, exact_delta):
    assert bound_delta >= exact_delta
    assert exact_delta == 0.0 or bound_delta >= exact_delta + _MARGIN


def test_bound_f_where_the_projection_binds():
    # x = D b / (S eta) = 12: the bounded-domain term sqrt(x^2/(ml) + 2x/l + m) = sqrt(18)
    # at m = 6 binds from E = 19 epochs on
    n_batches, b, lip, eta, radius, sigma, n_epochs = 4, 6, 0.5, 1.0, 1.0, 0.3, 25
    s = 2 * lip
    bound = noisy_cyclic_gd_convex_gdp(sigma, n_epochs, batch_size=b, sensitivity=s,
                                       n_samples=n_batches * b, learning_rate=eta,
                                       diameter=2 * radius)
    assert bound < math.sqrt(n_epochs) * s / (b * sigma)  # below composition (Thm 4.4)
    walk = dict(radius=radius, eta=eta, sigma=sigma)
    worst = np.zeros(len(_EPSILONS))
    for position in range(n_batches):  # the record's batch anywhere in the epoch
        shifts = [lip / b if k % n_batches == position else 0.0
                  for k in range(n_batches * n_epochs)]
        plus = _projected_walk(shifts, points=601, **walk)
        minus = _projected_walk([-g for g in shifts], points=601, **walk)
        worst = np.maximum(worst, [_delta(plus, minus, eps) for eps in _EPSILONS])
    assert worst[0] > 0.0
    for eps, exact in zip(_EPSILONS, worst, strict=False):
        _check_above(float(mp_delta(bound, eps)), exact)
