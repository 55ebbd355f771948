"""The one place where skdpgd imports private scikit-learn helpers.

scikit-learn >= 1.6 is required (``validate_data``, ``__sklearn_tags__``). If a future
release moves these names, only this module needs to change.
"""

from sklearn.base import _fit_context  # noqa: F401
from sklearn.linear_model._base import LinearClassifierMixin  # noqa: F401
from sklearn.model_selection._split import _CVIterableWrapper  # noqa: F401
from sklearn.pipeline import _name_estimators  # noqa: F401
from sklearn.utils import _safe_indexing  # noqa: F401
from sklearn.utils._param_validation import (  # noqa: F401
    HasMethods,
    Interval,
    Options,
    StrOptions,
)
from sklearn.utils.metaestimators import _BaseComposition  # noqa: F401
from sklearn.utils.validation import (  # noqa: F401
    _assert_all_finite,
    _check_y,
    _num_features,
    _num_samples,
    check_consistent_length,
    validate_data,
)
