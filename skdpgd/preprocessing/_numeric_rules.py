r"""From a column's released range (or its public one) to its map to [0, 1]: the rules.

Post-processing only: every function here reads the release (:class:`PrivateRange`),
public parameters and the public dtype, never a value of the data
(docs/theory.md#private-range).

- :func:`numeric_map`: the range (tightened to integers for an integer dtype), the scale
  (linear, log1p for a heavy tail, the log ratio for a wide positive range, or the
  public symmetric-log fallback when nothing was released) and the imputed value;
- :func:`check_public_bounds`: a user's public ``(low, high)``.
"""

import math
import re

import numpy as np

from ._column_maps import scale_to_unit

#: A column is heavy-tailed (log1p applied) when it is non-negative and its range is
#: above this many times the distance from its low end to its private median.
HEAVY_TAIL_RATIO = 20.0

#: A positive column whose range spans at least this factor (an order of magnitude) is
#: a ratio-scale quantity: the log ratio gives each factor of its range the same width.
SPAN_RATIO = 10.0


def check_public_bounds(name, pair):
    """A public ``(low, high)`` as floats; raises (public) unless finite with low < high."""
    try:
        low, high = (float(v) for v in pair)
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds[{name!r}] must be a (low, high) pair of numbers, got {pair!r}.") from None
    with np.errstate(over="ignore"):
        width = high - low
    if not (math.isfinite(low) and math.isfinite(high) and high > low and math.isfinite(width)):
        raise ValueError(
            f"bounds[{name!r}] = {pair!r}: need finite low < high with a finite width."
        )
    return low, high


def is_integer_dtype(dtype_text):
    """Whether a dtype (as text: NumPy, pandas nullable or polars) holds integers only."""
    return re.fullmatch(r"u?int(8|16|32|64)?", dtype_text.lower()) is not None


def integer_range(low, high):
    r"""The range of an integer column from its cells' edges (post-processing, public dtype).

    An integer in :math:`[e_a, e_b)` lies in :math:`[\lceil e_a\rceil, \lceil e_b\rceil - 1]`;
    kept only when that is a proper interval and inside the grid's finite part.
    """
    if max(abs(low), abs(high)) >= 2.0 ** 40:
        return low, high
    tight_low, tight_high = float(math.ceil(low)), float(math.ceil(high) - 1)
    if tight_high > tight_low:
        return tight_low, tight_high
    return low, high


def numeric_map(private, log_choice, integer=False):
    """(low, high, scale, impute, source) of a column from its private range.

    ``log_choice``: True/False when the user decided, None for the two public rules.
    """
    if not private.found:
        top = 2.0 ** 40  # the public grid's outer edge: symlog over the whole grid
        return -top, top, "symlog", 0.5, "default"
    low, high = private.low, private.high
    if integer:
        low, high = integer_range(low, high)
    heavy = low >= 0.0 and (high - low) > HEAVY_TAIL_RATIO * (private.median_high - low)
    wide = low > 0.0 and high >= SPAN_RATIO * low
    log = (heavy or wide) if log_choice is None else log_choice
    scale = ("logratio" if low > 0.0 else "log1p") if log else "linear"
    impute = float(scale_to_unit(np.array([private.median]), low, high, scale)[0])
    return low, high, scale, impute, "private"
