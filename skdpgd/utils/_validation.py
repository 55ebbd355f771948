"""Validation of privacy parameters and random states (docs/theory.md#rules)."""

import math
import numbers

import numpy as np


def resolve_delta(delta, n_samples):
    r"""The delta a fit targets, checked against n (docs/theory.md#rules).

    ``"auto"`` is :math:`\min(10^{-5}, 1/(10 n))`: a rule of n only (public), below the
    1/n level at which an (epsilon, delta) guarantee stops protecting individuals.
    An explicit delta must lie in (0, 1) and below 1/n.
    """
    if isinstance(delta, str):
        if delta != "auto":
            raise ValueError(f"delta must be a float in (0, 1/n) or 'auto', got {delta!r}.")
        return min(1e-5, 1.0 / (10.0 * n_samples))
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in the open interval (0, 1), got {delta!r}.")
    if delta >= 1.0 / n_samples:
        raise ValueError(
            f"delta={delta!r} is >= 1/n_samples = {1.0 / n_samples:.3g}: such a guarantee allows "
            "publishing a whole record. Use a smaller delta, e.g. delta='auto' "
            f"(= {min(1e-5, 1.0 / (10.0 * n_samples)):.3g} here)."
        )
    return delta


def check_epsilon(epsilon):
    """epsilon as a float in (0, inf]; ``np.inf`` means no noise (a non-private run)."""
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a positive number or np.inf, got {epsilon!r}.")
    epsilon = float(epsilon)
    if math.isnan(epsilon) or epsilon <= 0.0:
        raise ValueError(f"epsilon must be > 0 (or np.inf for no privacy), got {epsilon!r}.")
    return epsilon


def make_generator(random_state):
    """The noise source of a fit: the only place randomness enters.

    ``None`` draws fresh entropy from the operating system (numpy's ``default_rng()``);
    an int seeds a ``numpy.random.Generator`` (anyone who knows the seed can reproduce
    the noise, so a fixed seed is for experiments, not for releases); a ``Generator``
    or legacy ``RandomState`` is used as given.
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    raise ValueError(
        f"random_state must be None, an int, a numpy Generator or RandomState, got {random_state!r}."
    )
