r"""Gaussian differential privacy and its lossless conversion to (epsilon, delta)-DP.

A mechanism is mu-GDP when telling its outputs on two neighbouring data sets apart
is as hard as telling N(0, 1) from N(mu, 1) (Dong, Roth, Su 2022). Its privacy
profile is, exactly (Dong-Roth-Su, Corollary 2.13),

.. math::

    \delta(\varepsilon; \mu) = \Phi(-\varepsilon/\mu + \mu/2)
        - e^{\varepsilon}\,\Phi(-\varepsilon/\mu - \mu/2).

Everything here is computed in log space so that the results stay accurate for
epsilon in [1e-3, 50], delta down to 1e-12 (and far below) and mu in [1e-4, 50].
The inverses are conservative: they never return an epsilon that is too small or
a mu that is too large for the stated target.
"""

import math
from functools import lru_cache

import numpy as np
from scipy import optimize, special

from ._inverter import invert_monotone

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)

#: The inverses aim below delta by a relative margin: the float evaluation of
#: log delta(eps; mu) errs by about 1e-16 * (1 + |a| / mu) relative (a = -eps/mu + mu/2;
#: the Mills-ratio difference loses digits when mu is small), so a margin of
#: 1e-10 + 1e-12 * |a| / mu keeps them conservative against the exact value (checked with
#: mpmath in the tests) at a cost of about 1e-10 relative in the returned epsilon or mu.
_LOG_SAFETY_MARGIN = 1e-10


def _safety_margin(mu, epsilon):
    return _LOG_SAFETY_MARGIN + 1e-12 * abs(-epsilon / mu + mu / 2.0) / mu


def _log1mexp(x):
    """log(1 - exp(x)) for x < 0, accurate on the whole range (Maechler 2012)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(x > -math.log(2.0), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def _mills_ratio(x):
    """R(x) = (1 - Phi(x)) / phi(x), computed through the scaled erfc (no underflow)."""
    return _SQRT_HALF_PI * special.erfcx(x / math.sqrt(2.0))


def _log_delta_scalar(mu, epsilon):
    """log delta(epsilon; mu) for finite mu > 0 and finite epsilon >= 0."""
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    if a < 0.0:
        # Both Phi terms are tails. Since b^2 - a^2 = 2 epsilon, e^eps phi(b) = phi(a), so
        # delta = phi(a) * (R(-a) - R(-b)) with R the Mills ratio: no cancellation of
        # exponentially small numbers, only of two O(1/|a|) ratios.
        diff = _mills_ratio(-a) - _mills_ratio(-b)
        if not diff > 0.0:  # mu so small against |a| that the difference is lost
            return -math.inf
        return -0.5 * a * a - _LOG_SQRT_2PI + math.log(diff)
    log_phi_a = special.log_ndtr(a)
    log_ratio = epsilon + special.log_ndtr(b) - log_phi_a  # < 0
    return float(log_phi_a + _log1mexp(min(log_ratio, -1e-300)))


def _log_delta(mu, epsilon):
    """Elementwise log delta(epsilon; mu) with the limits at 0 and infinity handled."""
    mu, epsilon = np.broadcast_arrays(np.asarray(mu, float), np.asarray(epsilon, float))
    out = np.empty(mu.shape)
    for idx in np.ndindex(mu.shape):
        m, e = mu[idx], epsilon[idx]
        if m == 0.0 or e == math.inf:
            out[idx] = -math.inf
        elif m == math.inf:
            out[idx] = 0.0
        else:
            out[idx] = _log_delta_scalar(m, e)
    return out


def _check_array(name, value, *, low_open=False, upper=None):
    arr = np.asarray(value, dtype=float)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be nan, got {value!r}.")
    bad = (arr <= 0) if low_open else (arr < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be {'> 0' if low_open else '>= 0'}, got {value!r}.")
    if upper is not None and np.any(arr >= upper):
        raise ValueError(f"{name} must be < {upper}, got {value!r}.")
    return arr


def _is_scalar(*values):
    """True when every value is a Python or numpy float (or int): the scalar path."""
    return all(type(v) in _SCALAR_TYPES for v in values)


_SCALAR_TYPES = (float, int, np.float64)


def _check_scalar(name, value, *, low_open=False, upper=None):
    """:func:`_check_array` of one float (the same checks and messages), as a float."""
    x = float(value)
    if x != x:
        raise ValueError(f"{name} must not be nan, got {value!r}.")
    if (x <= 0) if low_open else (x < 0):
        raise ValueError(f"{name} must be {'> 0' if low_open else '>= 0'}, got {value!r}.")
    if upper is not None and x >= upper:
        raise ValueError(f"{name} must be < {upper}, got {value!r}.")
    return x


def _scalar_or_array(arr):
    return float(arr) if np.ndim(arr) == 0 else arr


def gdp_to_delta(mu, epsilon):
    r"""Smallest delta such that a mu-GDP mechanism is (epsilon, delta)-DP.

    Parameters
    ----------
    mu : float or array-like
        Gaussian-DP parameter, ``mu >= 0`` (``inf`` allowed).
    epsilon : float or array-like
        ``epsilon >= 0`` (``inf`` allowed). Broadcast against ``mu``.

    Returns
    -------
    delta : float or ndarray
        :math:`\delta(\varepsilon;\mu)=\Phi(-\varepsilon/\mu+\mu/2)-e^{\varepsilon}\Phi(-\varepsilon/\mu-\mu/2)`,
        Dong, Roth and Su (2022), Corollary 2.13. This conversion is lossless: the
        mechanism is (epsilon, delta')-DP for no smaller delta'.
    """
    mu = _check_array("mu", mu)
    epsilon = _check_array("epsilon", epsilon)
    return _scalar_or_array(np.exp(_log_delta(mu, epsilon)))


def gdp_to_epsilon(mu, delta):
    r"""Smallest epsilon such that a mu-GDP mechanism is (epsilon, delta)-DP.

    Parameters
    ----------
    mu : float or array-like
        Gaussian-DP parameter, ``mu >= 0`` (``inf`` gives ``inf``).
    delta : float or array-like
        Target delta in (0, 1).

    Returns
    -------
    epsilon : float or ndarray
        The root of :math:`\delta(\varepsilon;\mu)=\delta` in epsilon (0 when
        :math:`\delta(0;\mu) = 2\Phi(\mu/2)-1 \le \delta`). Rounded up, so that
        ``gdp_to_delta(mu, epsilon) <= delta`` always holds.
    """
    if _is_scalar(mu, delta):  # the planners' calls: the same value without arrays
        return _gdp_to_epsilon_scalar(_check_scalar("mu", mu),
                                      _check_scalar("delta", delta, low_open=True, upper=1.0))
    mu = _check_array("mu", mu)
    delta = _check_array("delta", delta, low_open=True, upper=1.0)
    mu, delta = np.broadcast_arrays(mu, delta)
    out = np.empty(mu.shape)
    for idx in np.ndindex(mu.shape):
        out[idx] = _gdp_to_epsilon_scalar(float(mu[idx]), float(delta[idx]))
    return _scalar_or_array(out)


#: Above this mu, epsilon is reported as inf (an upper bound): delta(eps; mu) is not
#: representable in float64 there (the root-finder would meet NaN).
HUGE_MU = 1e100


@lru_cache(maxsize=4096)  # pure: the calibrations of one fit ask for the same mu* often
def _gdp_to_epsilon_scalar(mu, delta):
    if mu == 0.0:
        return 0.0
    if mu == math.inf or mu > HUGE_MU:
        return math.inf
    log_target = math.log(delta)

    def excess(eps):  # decreasing in eps
        return _log_delta_scalar(mu, eps) - log_target + _safety_margin(mu, eps)

    if excess(0.0) <= 0.0:
        return 0.0
    hi = max(1.0, mu * mu / 2.0 + mu * math.sqrt(2.0 * max(-log_target, 1.0)))
    while excess(hi) > 0.0:
        hi *= 2.0
    eps = optimize.brentq(excess, 0.0, hi, xtol=1e-15, rtol=1e-14, maxiter=500)
    # round up with the conservative inverter: from the root, by factors 1 + 1e-14, to the
    # first epsilon whose excess was computed and is <= 0 (never a too-small epsilon)
    eps = max(eps, 1e-300)
    return invert_monotone(excess, 0.0, lower=eps, upper=math.inf, increasing=False,
                           start=eps, growth=1.0 + 1e-14, rtol=1e-13, max_expansions=10**4)


def epsilon_delta_to_gdp(epsilon, delta):
    r"""Largest mu such that every mu-GDP mechanism is (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : float or array-like
        Target epsilon, ``> 0`` (``inf`` gives ``inf``).
    delta : float or array-like
        Target delta in (0, 1).

    Returns
    -------
    mu : float or ndarray
        The root of :math:`\delta(\varepsilon;\mu)=\delta` in mu; ``delta(eps; mu)``
        increases with mu, so any mu' <= mu also meets the target. Rounded down,
        so that ``gdp_to_delta(mu, epsilon) <= delta`` always holds.
    """
    if _is_scalar(epsilon, delta):  # the planners' calls: the same value without arrays
        return _epsilon_delta_to_gdp_scalar(
            _check_scalar("epsilon", epsilon, low_open=True),
            _check_scalar("delta", delta, low_open=True, upper=1.0))
    epsilon = _check_array("epsilon", epsilon, low_open=True)
    delta = _check_array("delta", delta, low_open=True, upper=1.0)
    epsilon, delta = np.broadcast_arrays(epsilon, delta)
    out = np.empty(epsilon.shape)
    for idx in np.ndindex(epsilon.shape):
        out[idx] = _epsilon_delta_to_gdp_scalar(float(epsilon[idx]), float(delta[idx]))
    return _scalar_or_array(out)


@lru_cache(maxsize=1024)  # pure: one root-finding per target, however many planners ask
def _epsilon_delta_to_gdp_scalar(epsilon, delta):
    if epsilon == math.inf:
        return math.inf
    log_target = math.log(delta)

    def excess(log_mu):  # increasing in mu
        mu = math.exp(log_mu)
        return _log_delta_scalar(mu, epsilon) - log_target + _safety_margin(mu, epsilon)

    lo, hi = math.log(1e-3), math.log(1.0)
    while excess(lo) > 0.0:
        lo -= 2.0
    while excess(hi) < 0.0:
        hi += 1.0
        if hi > math.log(1e6):
            raise ValueError(
                f"No finite mu found for epsilon={epsilon!r}, delta={delta!r}: "
                "the target is too loose to be represented."
            )
    log_mu = optimize.brentq(excess, lo, hi, xtol=1e-15, rtol=1e-14, maxiter=500)
    mu = math.exp(log_mu)
    # round down with the conservative inverter: from the root, by factors 1 - 1e-14, to
    # the first mu whose excess was computed and is <= 0 (never too large)
    return invert_monotone(lambda m: excess(math.log(m)), 0.0, lower=0.0, upper=mu,
                           increasing=True, start=mu, growth=1.0 / (1.0 - 1e-14), rtol=1e-13,
                           max_expansions=10**4)
