"""Data shipped with skdpgd, and its public-bound preprocessing.

- :func:`load_adult`: UCI Adult (census income; Becker and Kohavi 1996, CC BY 4.0), the
  original train / test split, raw values, no download.
- :func:`make_adult_preprocessor`: every Adult column scaled or encoded with public
  bounds from the code book; rows of norm at most 1.
"""

from ._adult import (
    ADULT_BOUNDS,
    ADULT_CATEGORIES,
    ADULT_ROW_SCALE,
    load_adult,
    make_adult_preprocessor,
)

__all__ = [
    "ADULT_BOUNDS",
    "ADULT_CATEGORIES",
    "ADULT_ROW_SCALE",
    "load_adult",
    "make_adult_preprocessor",
]
