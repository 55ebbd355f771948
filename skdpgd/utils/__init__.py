"""Validation, clipping and scikit-learn compatibility helpers (not public API).

The budget checks every estimator and private step shares are importable from here.
"""

from ._row_index import row_index_column
from ._validation import check_epsilon, make_generator, resolve_delta

__all__ = ["check_epsilon", "make_generator", "resolve_delta", "row_index_column"]
