r"""A public log scale: :class:`Log1pTransformer`."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import _fit_context, validate_data
from ..utils._validation import validate_private
from ._missing import as_float_input


class Log1pTransformer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Put every feature on a log scale: :math:`x \mapsto \log(1 + \max(x, 0))`.

    For amounts and counts whose bulk sits near 0 and whose tail is long (incomes,
    capital gains, prices): follow it with a :class:`BoundedScaler` whose bounds are in
    log units (or use ``BoundedScaler(bounds, log1p=True)``, whose bounds stay in the
    feature's units). A fixed function applied to each value alone: ``fit`` reads no
    value, so the step costs no privacy and the search tools
    (:func:`~skdpgd.model_selection.search_privacy_cost`,
    :class:`~skdpgd.model_selection.DPSearchCV`) accept it as public-bound, which a
    ``FunctionTransformer(np.log1p)`` is not (a function's body cannot be checked).

    Negative values map to 0 (amounts are non-negative; a negative one is clipped, not
    refused). Missing values in any spelling (``np.nan``, ``None``, ``pd.NA``) and
    strings that are not numbers come out as NaN: no error depends on a value.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when X has feature names that are all strings.

    Examples
    --------
    >>> from skdpgd.preprocessing import Log1pTransformer
    >>> Log1pTransformer().fit_transform([[0.0, -5.0], [99999.0, float("nan")]]).round(3)
    array([[ 0.   ,  0.   ],
           [11.513,    nan]])
    """

    __skdpgd_public_fit__ = True

    _parameter_constraints = {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _validate(self, X, reset):
        return validate_private(validate_data, self, as_float_input(X), role="X",
                                estimator=type(self).__name__, reset=reset,
                                accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32],
                                ensure_all_finite=False)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Record the shape and feature names; no value of X is read.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self : Log1pTransformer
            The fitted transformer (nothing of X is stored).
        """
        self._validate(X, reset=True)
        return self

    def transform(self, X):
        r"""Apply :math:`\log(1 + \max(x, 0))` to every value (NaN stays NaN).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_log : ndarray or sparse matrix of shape (n_samples, n_features)
            The same format and float dtype as X.
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        if sp.issparse(X):  # log1p(max(0, 0)) = 0 keeps the sparsity
            X = X.copy()
            X.data = np.log1p(np.maximum(X.data, 0.0))
            return X
        with np.errstate(invalid="ignore"):
            return np.log1p(np.maximum(X, 0.0))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_features_in_")
