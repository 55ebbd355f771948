"""How reports print numbers: privacy losses rounded up, run parameters rounded near."""

import decimal
import math

__all__ = ["DIGITS", "format_contraction", "format_near", "format_up"]

#: Significant digits of the numbers a report prints (the attributes keep full precision).
DIGITS = 4


def format_up(value, digits=DIGITS):
    """``value`` rounded *up* to ``digits`` significant digits, trailing zeros dropped.

    For privacy losses (epsilon, delta, mu): a printed claim is never below the computed
    one, and 1.9999999999977915 prints as ``2``. Infinities and NaN print as ``inf``,
    ``nan``.
    """
    value = float(value)
    if not math.isfinite(value) or value == 0.0:
        return f"{value:g}"
    exact = decimal.Decimal(repr(value))
    exponent = exact.adjusted() - digits + 1
    rounded = exact.quantize(decimal.Decimal(1).scaleb(exponent), rounding=decimal.ROUND_CEILING)
    return f"{float(rounded):.{digits}g}"


def format_near(value, digits=DIGITS):
    """``value`` rounded to the nearest ``digits`` significant digits (run parameters)."""
    return f"{float(value):.{digits}g}"


def format_contraction(c):
    """The contraction factor; ``1 - 2.1e-08`` rather than ``1`` when it is that close."""
    c = float(c)
    if math.isfinite(c) and 0.999 < c < 1.0:
        return f"1 - {1.0 - c:.2g}"
    return format_near(c)
