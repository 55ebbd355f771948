"""Data shipped with skdpgd, and its public-bound preprocessing.

- :func:`load_adult`: UCI Adult (census income; Becker and Kohavi 1996, CC BY 4.0), the
  original train / test split, raw values, no download.
- :func:`make_adult_preprocessor`: every Adult column scaled or encoded with public
  bounds from the code book; rows of norm at most 1.
"""

from ._adult import (
    ADULT_BOUNDS,
    ADULT_CATEGORIES,
    load_adult,
    make_adult_preprocessor,
)
from ._adult import (
    ADULT_ROW_SCALE as ADULT_ROW_SCALE,
)

# the API; ADULT_ROW_SCALE is internal (the preprocessor's row scale)
__all__ = [
    "load_adult",
    "make_adult_preprocessor",
    "ADULT_BOUNDS",
    "ADULT_CATEGORIES",
]
