"""Preprocessing that uses public information only (no statistic of the private data).

Fitting :class:`sklearn.preprocessing.StandardScaler`, ``MinMaxScaler`` or an
``OneHotEncoder(categories="auto")`` on the private training data makes the scale or
the category list a function of the data, and that function is released with the
model without being accounted. The transformers here take their constants as
parameters (public bounds from a code book, a data dictionary, physical limits) and
``fit`` only records shapes and feature names, so a pipeline built from them costs no
privacy before the estimator.

- :class:`BoundedScaler`: per-feature public ``[low, high]`` -> ``[0, 1]``, clipping.
- :class:`RowNormClipper`: each row scaled to Euclidean norm <= ``max_norm``.
- :func:`public_one_hot` / :class:`PublicOneHotEncoder`: one-hot over category lists given
  explicitly; a value outside its list raises an error naming the column (opt-outs:
  ``unknown_values`` for public missing-value markers, ``handle_unknown="ignore"``).
"""

from ._bounded import BoundedScaler
from ._one_hot import PublicOneHotEncoder, public_one_hot
from ._row_norm import RowNormClipper

__all__ = ["BoundedScaler", "PublicOneHotEncoder", "RowNormClipper", "public_one_hot"]
