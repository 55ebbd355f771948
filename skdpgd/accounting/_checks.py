"""Argument checks shared by the accountants (numpy only)."""

import math

import numpy as np


def check_positive(name, value, *, allow_zero=False, allow_inf=False):
    """Return ``value`` as a float after checking it is a positive number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}.") from None
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got nan.")
    if math.isinf(value) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {value!r}.")
    return value


def check_probability(name, value):
    """Return ``value`` as a float after checking 0 < value < 1."""
    value = check_positive(name, value)
    if not value < 1:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {value!r}.")
    return value


def check_count(name, value, *, minimum=1, allow_inf=False):
    """Return an integer count (or ``inf`` when allowed) of at least ``minimum``."""
    if allow_inf and isinstance(value, (float, np.floating)) and math.isinf(value) and value > 0:
        return math.inf
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, np.integer, float, np.floating)
    ):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}.")
    return value


def as_orders(orders):
    """Return Renyi orders as a float array after checking each is > 1."""
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if orders.ndim != 1 or orders.size == 0:
        raise ValueError(f"orders must be a non-empty 1-D sequence, got shape {orders.shape}.")
    if np.any(~(orders > 1)):
        raise ValueError(f"Renyi orders must all be > 1, got {orders[~(orders > 1)][:5]!r}.")
    return orders
