"""The transform of a fitted :class:`DPTableVectorizer`: post-processing of its releases.

Each kept column is encoded with its fitted (released) constants and written in place
into one output array, block by block, divided by the public row-norm bound as the whole
matrix would be (no ``hstack``, no second pass).
"""

import numpy as np

from ._column_maps import CategoricalEncoding
from ._column_reading import key_column
from ._schema import n_rows, numeric_column, table_schema

__all__ = ["check_columns", "encode_table"]


def check_columns(vec, X):
    """Refuse a table whose columns are not those seen in fit (count, then names)."""
    labels, _, _, _ = table_schema(X)
    if len(labels) != vec.n_features_in_:
        raise ValueError(
            f"X has {len(labels)} features, but DPTableVectorizer is expecting "
            f"{vec.n_features_in_} features as input."
        )
    if hasattr(vec, "feature_names_in_") and list(labels) != list(vec.feature_names_in_):
        raise ValueError(
            "X's column names differ from those seen in fit (same names, same order "
            f"expected: {list(vec.feature_names_in_)})."
        )


def encode_table(vec, X):
    """X encoded by ``vec``'s fitted encodings (``vec.transform``, after its checks).

    Returns
    -------
    X_out : ndarray of shape (n_samples, n_features_out), float64
    """
    position = {label: j for j, label in enumerate(vec._labels)}
    by_name = {str(label): label for label in vec._labels}
    widths = [len(encoding.feature_names()) for encoding in vec.encodings_]
    n = n_rows(X)
    out = np.zeros((n, sum(widths)))
    # each block written in place, divided by the raw bound as the whole matrix would be
    divide = vec.scale_rows and vec._raw_norm_bound > 0
    start, rows = 0, np.arange(n)
    for encoding, width in zip(vec.encodings_, widths, strict=True):
        label = by_name[encoding.name]
        j = position[label]
        if isinstance(encoding, CategoricalEncoding):
            hot = encoding.hot_columns(key_column(X, j, label, vec.missing_values))
            written = hot >= 0  # -1: the reference level (no column written)
            out[rows[written], start + hot[written]] = (1.0 / vec._raw_norm_bound if divide
                                                       else 1.0)
        else:
            block = encoding.transform(numeric_column(X, j, label, vec.missing_values))
            out[:, start:start + width] = block / vec._raw_norm_bound if divide else block
        start += width
    return out
