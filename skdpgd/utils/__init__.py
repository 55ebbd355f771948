"""Validation, clipping and scikit-learn compatibility helpers: an internal layer, not API.

No ``__all__`` and no API page: the names below are re-exported for skdpgd's own packages.

The budget checks every estimator and private step shares are importable from here, and
the label rules (:mod:`skdpgd.utils._labels`: missing labels, canonical labels).
"""

from ._clipping import clip_rows as clip_rows
from ._clipping import row_scale_factors as row_scale_factors
from ._labels import canonical_labels as canonical_labels
from ._labels import is_missing_label as is_missing_label
from ._labels import label_array as label_array
from ._labels import missing_labels_as_nan as missing_labels_as_nan
from ._row_index import row_index_column as row_index_column
from ._validation import check_epsilon as check_epsilon
from ._validation import make_generator as make_generator
from ._validation import resolve_delta as resolve_delta
from ._warnings import warn_at_user as warn_at_user
from ._warnings import warns_once_each as warns_once_each

