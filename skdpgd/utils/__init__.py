"""Validation, clipping and scikit-learn compatibility helpers (not public API).

The budget checks every estimator and private step shares are importable from here, and
the label rules (:mod:`skdpgd.utils._labels`: missing labels, canonical labels).
"""

from ._labels import canonical_labels, is_missing_label, label_array, missing_labels_as_nan
from ._row_index import row_index_column
from ._validation import check_epsilon, make_generator, resolve_delta

__all__ = ["canonical_labels", "check_epsilon", "is_missing_label", "label_array",
           "make_generator", "missing_labels_as_nan", "resolve_delta", "row_index_column"]
