r"""Preprocessing: public-bound transformers, and one private (accounted) table vectorizer.

Fitting :class:`sklearn.preprocessing.StandardScaler`, ``MinMaxScaler`` or an
``OneHotEncoder(categories="auto")`` on the private training data makes the scale or
the category list a function of the data, and that function is released with the
model without being accounted. The transformers here take their constants as
parameters (public bounds from a code book, a data dictionary, physical limits) and
``fit`` only records shapes and feature names, so a pipeline built from them costs no
privacy before the estimator.

- :class:`BoundedScaler`: per-feature public ``[low, high]`` -> ``[0, 1]``, clipping.
- :class:`RowNormClipper`: each row scaled to Euclidean norm <= ``max_norm``;
  :func:`scale_rows_with_target` scales the row and its target by the same factor (for
  intervals that cover the true coefficients of a linear model under row clipping).
- :class:`Log1pTransformer`: :math:`x \mapsto \log(1 + \max(x, 0))` (or
  ``BoundedScaler(bounds, log1p=True)``, bounds in the feature's units).
- :func:`public_one_hot` / :class:`PublicOneHotEncoder`: one-hot over category lists given
  explicitly; a value outside its list raises an error naming the column (opt-outs:
  ``unknown_values`` for public missing-value markers, ``handle_unknown="ignore"``).

One step is private, and says so: :class:`DPTableVectorizer` encodes every column of a
raw table by its type (declared, a dtype, or the private type vote for object and string
columns), learning ranges and categories through accounted Gaussian releases (its
``privacy_`` report; ``summary()`` per column; its ``encodings_``:
:class:`NumericEncoding`, :class:`BooleanEncoding`, :class:`CategoricalEncoding`). Every
private step derives from :class:`PrivateStepMixin` (the private-step protocol; its
standalone budget is a :class:`StepBudget`; :func:`check_allowance` checks a step's report
against its allowance).
:func:`private_range` and :func:`private_abs_bound` are its mechanism for one column;
:func:`is_missing` is the one missing-value rule of skdpgd.
"""

from ._bounded import BoundedScaler
from ._column_maps import BooleanEncoding as BooleanEncoding
from ._column_maps import CategoricalEncoding as CategoricalEncoding
from ._column_maps import NumericEncoding as NumericEncoding
from ._column_range import column_range as column_range
from ._log import Log1pTransformer
from ._missing import DEFAULT_MISSING_STRINGS as DEFAULT_MISSING_STRINGS
from ._missing import is_missing as is_missing
from ._one_hot import PublicOneHotEncoder, public_one_hot
from ._private_bound import PrivateBound, private_abs_bound
from ._private_range import PrivateRange, private_range
from ._private_step import PrivateStepMixin
from ._private_step import StepBudget as StepBudget
from ._private_step import check_allowance as check_allowance
from ._row_norm import RowNormClipper, scale_rows_with_target
from ._table_vectorizer import DPTableVectorizer

# the API; the encodings, StepBudget, check_allowance, the missing-value rule and
# column_range (the numeric columns' and the target range's releases) are internal
__all__ = [
    "DPTableVectorizer",
    "BoundedScaler",
    "RowNormClipper",
    "scale_rows_with_target",
    "Log1pTransformer",
    "PublicOneHotEncoder",
    "public_one_hot",
    "private_range",
    "private_abs_bound",
    "PrivateRange",
    "PrivateBound",
    "PrivateStepMixin",
]
