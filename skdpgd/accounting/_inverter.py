r"""One conservative inverter of monotone functions: every calibration's search.

A calibration asks for the run parameter x (a noise std, a noise multiplier, a delta, a
per-trial mu) at which a monotone privacy loss f(x) meets a target t. Root-finding gives
an x near the crossing, on either side; a privacy calibration must return one on the
*safe* side, whose f was computed and is at most the target:

* f non-increasing (epsilon of a noise level): the smallest x found with f(x) <= t;
* f non-decreasing (mu of a per-step budget): the largest x found with f(x) <= t.

:func:`invert_monotone` does this the way dp_accounting's ``calibrate_dp_mechanism``
(``mechanism_calibration.py``) does: find a bracket [good, bad] with f(good) <= t < f(bad)
(widening geometrically from a start, or the two ends of the domain), then bisect it,
always keeping a point whose value was computed and meets the target, and return that
point. Whatever the precision asked, the answer never overshoots the target: the only
loss is in how close to the crossing it lands (``rtol``, or 1 for integers).

Nothing here is specific to privacy, and f may be any monotone function, steps and flat
parts included (:mod:`tests.accounting.test_inverter` checks the property with hypothesis).
"""

import math

__all__ = ["TargetUnreachableError", "invert_monotone", "nudge_up"]


class TargetUnreachableError(ValueError):
    """No parameter in the search's domain meets the target (f > target on all of it)."""


def invert_monotone(
    f,
    target,
    *,
    lower,
    upper,
    increasing,
    start=None,
    growth=2.0,
    rtol=1e-12,
    log_scale=True,
    integer=False,
    max_expansions=200,
):
    r"""The parameter on the safe side of ``f(x) = target``, for a monotone ``f``.

    Parameters
    ----------
    f : callable
        x -> float, monotone on [lower, upper] (non-decreasing if ``increasing``, else
        non-increasing). Steps and flat parts are allowed.
    target : float
        The largest acceptable value of f.
    lower, upper : float
        The domain. With ``log_scale`` and ``lower = 0`` the domain is unbounded below
        (a geometric walk never reaches 0).
    increasing : bool
        True: return the largest x found with f(x) <= target (e.g. the most steps, or
        the largest per-trial mu, whose loss is within budget). False: the smallest such
        x (e.g. the least noise whose epsilon is within budget).
    start : float, optional
        A first guess. The bracket is found by walking from it by factors of ``growth``
        (``log_scale``) or by steps of ``growth`` (linear), towards the safe side while
        f(x) > target, towards the other side while f(x) <= target (at most
        ``max_expansions`` steps each; a walk that reaches the end of the domain stops
        there). Without a start the bracket is the whole domain.
    growth : float, default=2.0
        Factor (> 1) or step (> 0) of the walk from ``start``.
    rtol : float, default=1e-12
        Bisection stops when the bracket's ends are within this ratio
        (``log_scale``: good / bad or bad / good <= 1 + rtol) or distance (linear).
    log_scale : bool, default=True
        Bisect at geometric means (x > 0) or at arithmetic means.
    integer : bool, default=False
        Integer parameters: bisect at integer midpoints until the ends are adjacent.
    max_expansions : int, default=200
        Longest walk from ``start``. A walk towards the unsafe side that meets the target
        at every step returns its last point; a walk towards the safe side that never
        meets it raises.

    Returns
    -------
    x : float or int
        A point of [lower, upper] whose f was computed and is <= ``target``; within
        ``rtol`` (or 1, or the walk's last step) of the crossing on its safe side.

    Raises
    ------
    TargetUnreachableError
        When f(x) > target at the safe end reached (the domain's, or the end of the walk).
    """
    if not (lower <= upper):
        raise ValueError(f"need lower <= upper, got [{lower!r}, {upper!r}].")

    def ok(x):
        return f(x) <= target

    # Moving "up" (to larger x) is towards safety exactly when f is non-increasing.
    safe_end, unsafe_end = (lower, upper) if increasing else (upper, lower)

    def towards(x, safe):
        up = safe != increasing  # safe & decreasing, or unsafe & increasing
        if integer:  # steps of at least 1: growth itself, or the factor's increment
            size = math.ceil(abs(x) * (growth - 1.0)) if log_scale else math.ceil(growth)
            y = x + max(1, size) if up else x - max(1, size)
        elif log_scale:
            y = x * growth if up else x / growth
        else:
            y = x + growth if up else x - growth
        beyond = y > upper if up else y < lower
        return (upper if up else lower) if beyond else y, beyond

    if start is None:
        if not ok(safe_end):
            raise TargetUnreachableError(
                f"no parameter in [{lower!r}, {upper!r}] meets the target {target!r}.")
        if ok(unsafe_end):
            return unsafe_end
        good, bad = safe_end, unsafe_end
    else:
        x = start
        if ok(x):
            good = x
            for _ in range(max_expansions):
                x, at_end = towards(good, safe=False)
                if x == good:
                    return good
                if not ok(x):
                    bad = x
                    break
                good = x
                if at_end:
                    return good
            else:
                return good
        else:
            bad = x
            for _ in range(max_expansions):
                x, at_end = towards(bad, safe=True)
                if x == bad or (not ok(x) and at_end):
                    raise TargetUnreachableError(
                        f"no parameter up to the end of [{lower!r}, {upper!r}] meets the "
                        f"target {target!r}.")
                if ok(x):
                    good = x
                    break
                bad = x
            else:
                raise TargetUnreachableError(
                    f"no parameter within {max_expansions} steps of {start!r} meets the "
                    f"target {target!r}.")
    return _bisect(ok, good, bad, rtol=rtol, log_scale=log_scale, integer=integer)


def _bisect(ok, good, bad, *, rtol, log_scale, integer):
    """Shrink [good, bad] (ok(good), not ok(bad)) and return its good end."""
    while True:
        if integer:
            if abs(good - bad) <= 1:
                return good
            mid = (good + bad) // 2
        elif log_scale:
            low, high = min(good, bad), max(good, bad)
            if low > 0.0 and high / low <= 1.0 + rtol:
                return good
            mid = math.sqrt(good * bad)
        else:
            if abs(good - bad) <= rtol:
                return good
            mid = 0.5 * (good + bad)
        if mid == good or mid == bad:  # no float left between them
            return good
        if ok(mid):
            good = mid
        else:
            bad = mid


def nudge_up(epsilon_of, epsilon, guess):
    """The first of guess (1 + 1e-12)^j, j = 0..200, whose ``epsilon_of`` is <= epsilon.

    Every closed-form calibration ends here: its guess is the exact crossing up to
    rounding, and the answer is on the safe side of it.
    """
    try:
        return invert_monotone(epsilon_of, epsilon, lower=guess, upper=math.inf,
                               increasing=False, start=guess, growth=1.0 + 1e-12, rtol=1e-11)
    except TargetUnreachableError:
        raise RuntimeError("calibration did not converge; please report this as a bug.") from None
