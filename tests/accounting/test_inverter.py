"""The one monotone inverter never overshoots its target (hypothesis, random step functions).

The functions are monotone step functions with random breakpoints and levels (equal
consecutive levels give flat parts; a target equal to a level lands on one), increasing
or decreasing, with targets below, at and above the whole range. The answer must

1. meet the target: f(answer) <= target, and lie in the domain;
2. be tight to the inverter's own tolerance: one tolerance step further towards the
   unsafe side (a factor 1 + rtol on a log scale, 1 for integers) does not meet it,
   unless that step leaves the domain;

and the inverter must refuse (TargetUnreachableError) exactly when no point of the domain
meets the target.
"""

import bisect
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skdpgd.accounting._inverter import TargetUnreachableError, invert_monotone

LOWER, UPPER = math.exp(-6.0), math.exp(6.0)


@st.composite
def step_functions(draw, integer=False):
    """(f, levels, increasing, domain): a monotone right-continuous step function."""
    if integer:
        lower, upper = 0, 1000
        breaks = sorted(draw(st.lists(st.integers(1, 1000), min_size=0, max_size=8)))
        position = float
    else:
        lower, upper = LOWER, UPPER
        breaks = sorted(draw(st.lists(st.floats(-5.5, 5.5), min_size=0, max_size=8)))
        position = math.log
    steps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0]),
                          min_size=len(breaks) + 1, max_size=len(breaks) + 1))
    levels = [sum(steps[: i + 1]) for i in range(len(steps))]  # non-decreasing
    increasing = draw(st.booleans())
    sign = 1.0 if increasing else -1.0

    def f(x):
        assert lower <= x <= upper, "the inverter evaluated f outside its domain"
        return sign * levels[bisect.bisect_right(breaks, position(x))]

    values = [sign * level for level in levels]
    return f, values, increasing, (lower, upper)


def _targets(values):
    low, high = min(values), max(values)
    return st.one_of(
        st.sampled_from(values),  # exactly a level: a flat part at the target
        st.floats(low - 1.0, high + 1.0),  # between, below everything, above everything
        st.sampled_from([low - 1e-9, high, high + 1.0]),
    )


@settings(max_examples=300, deadline=None)
@given(data=st.data(), rtol=st.sampled_from([1e-3, 1e-9]))
def test_never_overshoots_on_a_log_scale(data, rtol):
    f, values, increasing, (lower, upper) = data.draw(step_functions())
    target = data.draw(_targets(values))
    start = data.draw(st.one_of(st.none(), st.floats(lower, upper)))
    growth = data.draw(st.sampled_from([1.5, 2.0, 10.0]))
    reachable = min(values) <= target
    kwargs = dict(lower=lower, upper=upper, increasing=increasing, start=start,
                  growth=growth, rtol=rtol)
    if not reachable:
        with pytest.raises(TargetUnreachableError):
            invert_monotone(f, target, **kwargs)
        return
    x = invert_monotone(f, target, **kwargs)
    assert lower <= x <= upper
    assert f(x) <= target  # never overshoots
    # tight: one tolerance step towards the unsafe side fails (or leaves the domain)
    further = x * (1.0 + rtol) * (1.0 + 1e-12) if increasing else x / (1.0 + rtol) / (1.0 + 1e-12)
    if lower <= further <= upper:
        assert f(further) > target


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_never_overshoots_on_integers(data):
    f, values, increasing, (lower, upper) = data.draw(step_functions(integer=True))
    target = data.draw(_targets(values))
    start = data.draw(st.one_of(st.none(), st.integers(lower, upper)))
    kwargs = dict(lower=lower, upper=upper, increasing=increasing, start=start,
                  growth=2, integer=True, log_scale=False, max_expansions=10_000)
    if min(values) > target:
        with pytest.raises(TargetUnreachableError):
            invert_monotone(f, target, **kwargs)
        return
    x = invert_monotone(f, target, **kwargs)
    assert isinstance(x, int) and lower <= x <= upper
    assert f(x) <= target
    further = x + 1 if increasing else x - 1  # the next integer on the unsafe side
    if lower <= further <= upper:
        assert f(further) > target


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_never_overshoots_on_a_linear_scale(data):
    f, values, increasing, (lower, upper) = data.draw(step_functions())
    target = data.draw(_targets(values))
    if min(values) > target:
        return
    x = invert_monotone(f, target, lower=lower, upper=upper, increasing=increasing,
                        log_scale=False, rtol=1e-6)
    assert lower <= x <= upper and f(x) <= target
    further = x + 1e-6 * (1 + 1e-9) if increasing else x - 1e-6 * (1 + 1e-9)
    if lower <= further <= upper:
        assert f(further) > target


def test_smallest_noise_of_a_continuous_epsilon():
    """Decreasing epsilon(sigma) = 1/sigma: the answer is the crossing 1/t, rounded up."""
    for target in (0.1, 1.0, 7.3):
        sigma = invert_monotone(lambda s: 1.0 / s, target, lower=0.0, upper=math.inf,
                                increasing=False, start=1.0, growth=1.5, rtol=1e-6)
        assert 1.0 / sigma <= target
        assert sigma <= (1.0 / target) * (1.0 + 1e-6)


def test_walk_that_never_meets_the_target_raises():
    with pytest.raises(TargetUnreachableError):
        invert_monotone(lambda s: 1.0, 0.5, lower=1.0, upper=math.inf, increasing=False,
                        start=1.0, growth=1.0 + 1e-12, max_expansions=5)
