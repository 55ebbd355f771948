r"""Scaling by public per-feature bounds: :class:`BoundedScaler`."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import _fit_context, validate_data
from ..utils._validation import validate_private
from ._missing import as_float_input


def _as_bound_array(name, value, n_features):
    """A public bound (scalar or per-feature) as a float64 vector of length n_features."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        array = np.full(n_features, float(array))
    elif array.shape != (n_features,):
        raise ValueError(
            f"bounds: `{name}` has shape {array.shape} but X has {n_features} features; "
            f"give one scalar for every feature or one value per feature."
        )
    return array


def _resolve_bounds(bounds, n_features, feature_names):
    """(low, high) vectors from the ``bounds`` parameter; raises on bad public bounds."""
    if isinstance(bounds, dict):
        if feature_names is None:
            raise ValueError(
                "bounds is a dict {feature name: (low, high)}, but X has no feature names; "
                "pass a pandas DataFrame or give bounds as a (low, high) pair of arrays."
            )
        missing = [name for name in feature_names if name not in bounds]
        extra = [name for name in bounds if name not in set(feature_names)]
        if missing or extra:
            raise ValueError(
                f"bounds must name exactly the columns of X: missing {missing}, "
                f"not in X {extra}."
            )
        pairs = np.array([bounds[name] for name in feature_names], dtype=np.float64)
        if pairs.shape != (n_features, 2):
            raise ValueError("every value of the bounds dict must be a (low, high) pair.")
        low, high = pairs[:, 0], pairs[:, 1]
    else:
        if isinstance(bounds, str) or len(bounds) != 2:
            raise ValueError(
                f"bounds must be a (low, high) pair or a dict of pairs, got {bounds!r}."
            )
        low = _as_bound_array("low", bounds[0], n_features)
        high = _as_bound_array("high", bounds[1], n_features)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError("bounds must be finite public numbers (got NaN or inf).")
    bad = np.flatnonzero(~(high > low))
    if bad.size:
        j = bad[0]
        raise ValueError(
            f"bounds: high must be > low for every feature; feature {j} has "
            f"low={low[j]!r}, high={high[j]!r}."
        )
    with np.errstate(over="ignore"):
        width = high - low
    wide = np.flatnonzero(~np.isfinite(width))
    if wide.size:  # high - low overflows: every value would map to 0 or NaN
        j = wide[0]
        raise ValueError(
            f"bounds: high - low overflows for feature {j} (low={low[j]!r}, high={high[j]!r}); "
            "use bounds whose width is a finite number."
        )
    return low, high


def _lows_are_zero(bounds):
    """Whether the map sends 0 to 0 for every feature (what sparse input needs)."""
    if isinstance(bounds, dict):
        return all(float(pair[0]) == 0.0 for pair in bounds.values())
    try:
        return bool(np.all(np.asarray(bounds[0], dtype=float) == 0.0))
    except (TypeError, ValueError, IndexError, KeyError):
        return False


class BoundedScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Map each feature from a public interval [low, high] to [0, 1], clipping outside values.

    .. math::

        x_j \mapsto \mathrm{clip}\!\left(\frac{x_j - \ell_j}{h_j - \ell_j},\ 0,\ 1\right)
        \qquad\text{or, with } \texttt{log1p=True},\qquad
        x_j \mapsto \frac{\log\big(1 + \mathrm{clip}(x_j, \ell_j, h_j) - \ell_j\big)}
                         {\log(1 + h_j - \ell_j)}

    The bounds :math:`\ell_j < h_j` are parameters: they must come from public
    knowledge of the feature's domain (a code book, a data dictionary, a physical
    range), never from the training data. ``fit`` reads no value of X; it only checks
    the shape and records ``n_features_in_`` and ``feature_names_in_``. The map acts on
    each record alone, so it costs no privacy, and after it a row of d features has
    norm at most :math:`\sqrt d` (a public ``data_norm`` for the estimators).

    Parameters
    ----------
    bounds : (low, high) pair or dict
        ``(low, high)`` with two scalars (the same interval for every feature) or two
        array-likes of length ``n_features``; or a dict ``{feature_name: (low, high)}``
        naming every column of a DataFrame X.
    log1p : bool, default=False
        Put every feature on a public log scale first (for amounts and counts whose
        bulk sits near the low end): the bounds stay in the feature's own units and
        :math:`\ell_j` maps to 0, :math:`h_j` to 1. A per-record map of public
        constants, so it costs nothing and keeps the scaler public-bound.
    centre : {"auto", False, True}, default="auto"
        True: write each value as :math:`2v - 1 \in [-1, 1]` (the public midpoint of the
        bounds, or of the log scale, to 0), so that no feature lines up with a model's
        intercept column (docs/theory.md, "Centred numeric columns"). ``"auto"``:
        False standalone, True in a DPPipeline whose estimator has ``inference=True``
        (its last transformer; not for other estimators: a sparse input would become
        dense). The row-norm bound :math:`\sqrt d` is unchanged. Sparse
        input then gives a dense array (0 no longer maps to 0).

    Attributes
    ----------
    low_, high_ : ndarray of shape (n_features_in_,)
        The public bounds per feature (copied from ``bounds``, never from X).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when X has feature names that are all strings.

    Notes
    -----
    Missing values in any spelling (``np.nan``, ``math.nan``, ``None``, ``pd.NA``) come
    out as NaN, and so do strings that are not numbers: the scaler never refuses a
    value (a refusal here would come before an estimator's ledger charge, for free);
    the skdpgd estimator that follows refuses NaN after its charge. Infinities are
    clipped like any value outside the bounds.

    Sparse input (CSR/CSC) is accepted when every ``low`` is 0, the case in which the
    map sends 0 to 0 and keeps the matrix sparse; otherwise it is refused with an
    error. Values of dtype float32 stay float32.

    Compare scikit-learn's ``MinMaxScaler``, which reads the bounds from the data
    (``data_min_``, ``data_max_``): fitted on private data, those are released
    unaccounted along with the model.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd.preprocessing import BoundedScaler
    >>> X = np.array([[17.0, 40.0], [90.0, 99.0], [120.0, 0.0]])  # age, hours per week
    >>> BoundedScaler(bounds=([17, 1], [90, 99])).fit_transform(X)
    array([[0.        , 0.39795918],
           [1.        , 1.        ],
           [1.        , 0.        ]])
    """

    #: The "auto" option a DP pipeline decides under ``inference=True``
    #: (skdpgd.pipeline._checks.INFERENCE_PREPARATION).
    __skdpgd_inference_options__ = ("centre",)

    _parameter_constraints = {"bounds": [tuple, list, dict, np.ndarray], "log1p": ["boolean"],
                              "centre": "no_validation"}

    def __init__(self, bounds=(0.0, 1.0), *, log1p=False, centre="auto"):
        self.bounds = bounds
        self.log1p = log1p
        self.centre = centre

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = _lows_are_zero(self.bounds)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True  # a value that is not a number becomes NaN, no error
        return tags

    def _validate(self, X, reset):
        X = validate_private(  # no value quoted (complex input is refused with its array)
            validate_data, self, as_float_input(X), role="X", estimator=type(self).__name__,
            reset=reset, accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32], ensure_all_finite=False,
        )
        if sp.issparse(X) and self.centre is True:
            X = X.toarray()  # 0 maps to -1: the output is dense
        if sp.issparse(X) and not _lows_are_zero(self.bounds):
            raise TypeError(
                "BoundedScaler accepts sparse X only when every lower bound is 0 (then 0 "
                "maps to 0); with other bounds the output would be dense. Convert X to a "
                "dense array (X.toarray()) or shift the feature so its public low is 0."
            )
        return X

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check X's shape against the bounds; no value of X is read.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self : BoundedScaler
            The fitted scaler (``low_``, ``high_`` copied from ``bounds``).
        """
        if not (isinstance(self.centre, bool) or (isinstance(self.centre, str)
                                                  and self.centre == "auto")):
            raise ValueError(f"centre must be 'auto', True or False, got {self.centre!r}.")
        X = self._validate(X, reset=True)
        names = getattr(self, "feature_names_in_", None)
        self.low_, self.high_ = _resolve_bounds(self.bounds, X.shape[1], names)
        return self

    def transform(self, X):
        """Scale by the public bounds and clip to [0, 1] (then 2v - 1 with ``centre=True``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_scaled : ndarray or sparse matrix of shape (n_samples, n_features)
            Values in [0, 1] ([-1, 1] centred); the same format (dense when centred)
            and float dtype as X.
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        scaled = self._unit(X)
        if self.centre is True:
            return 2 * scaled - 1
        return scaled

    def _unit(self, X):
        """X mapped to [0, 1] (checked X)."""
        width = (self.high_ - self.low_).astype(X.dtype)
        if sp.issparse(X):  # every low is 0: scale the stored entries only
            X = X.copy()
            if X.format == "csr":
                columns = X.indices
            else:  # csc: column j owns the entries indptr[j]:indptr[j + 1]
                columns = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
            high = self.high_.astype(X.dtype)[columns]
            if self.log1p:
                X.data = np.log1p(np.clip(X.data, 0.0, high)) / np.log1p(high)
            else:
                X.data = np.clip(X.data / width[columns], 0.0, 1.0)
            X.eliminate_zeros()
            return X
        low, high = self.low_.astype(X.dtype), self.high_.astype(X.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            if self.log1p:  # clip first: every intermediate finite; NaN stays NaN
                return np.log1p(np.clip(X, low, high) - low) / np.log1p(width)
            return np.clip((X - low) / width, 0.0, 1.0)
