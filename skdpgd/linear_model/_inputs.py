"""Reading a fit's input: shapes before the charge, values after (the estimators' mixin).

What ``fit`` may read before the ledger is charged is the containers' structure (n, d,
ids); values are validated after it, through
:func:`~skdpgd.utils._validation.validate_private`, whose refusals never quote a value, a
row or a count of rows (docs/privacy_model.md, "Which errors depend on the data").
"""

import math
import mmap
import numbers

import numpy as np
import scipy.sparse as sp

from .._data import refuse_dask_table
from .._data._dask import is_dask_array, validate_dask_X_y
from ..utils import missing_labels_as_nan
from ..utils._sklearn_compat import (
    _check_y,
    _num_features,
    _num_samples,
    check_consistent_length,
    validate_data,
)
from ..utils._validation import validate_private

#: A dense X that is not C-ordered (a DataFrame's values, a column slice, a Fortran
#: array) is copied once to C order when it takes at most this many bytes: the gradient
#: passes read rows, and a Fortran-ordered X made them about 1.7x slower (200,000 x 50,
#: default fit: 2.52 s against 1.50 s). Larger arrays and memory maps (out-of-core data)
#: are used as given. The layout and the size are public (the container, not the values).
C_ORDER_COPY_MAX_BYTES = 2 << 30


def _maps_a_file(array):
    """Whether ``array`` is, or views, a memory-mapped file (its base chain holds one)."""
    while array is not None:
        if isinstance(array, (np.memmap, mmap.mmap)):
            return True
        array = getattr(array, "base", None)
    return False


class InputChecks:
    """Validation of X, y and sample_ids for the estimators' base class.

    See :class:`~skdpgd.linear_model._base.BaseDPLinearModel`.
    """

    def _validate_X_y(self, X, y, **kwargs):
        """validate_data accepting dense or CSR X in float64 or float32.

        Two cases are copied: a CSR matrix with duplicate entries (its row norms need the
        summed entries), and a dense X that is not C-ordered, up to
        :data:`C_ORDER_COPY_MAX_BYTES` and not a memory map (its rows are read by every
        gradient pass; scikit-learn's lbfgs makes the same copy). Any other accepted X is
        used as given.

        The finiteness of X is not checked here but by the fit's row-norm pass
        (:meth:`~skdpgd._data._design.ClippedDesign.from_data`), chunked on the fit's
        ``n_jobs`` threads: one read of X for both, refused with a "non-finite" error.

        X and y are validated one after the other, each through
        :func:`~skdpgd.utils._validation.validate_private`: a refusal names the parameter
        (and a DataFrame's non-numeric columns) and never quotes a value, a row or a count
        of rows, and neither does a warning (scikit-learn's messages quote the data).
        """
        refuse_dask_table(X)  # from its type alone
        if is_dask_array(X):
            return self._validate_dask_X_y(X, y, **kwargs)
        name = type(self).__name__
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None.")
        data = X
        X = validate_private(
            validate_data, self, X, role="X", data=data, estimator=name,
            accept_sparse="csr", dtype=[np.float64, np.float32], ensure_min_samples=2,
            ensure_all_finite=False,
        )
        target = y
        if not kwargs.get("y_numeric", False):  # pd.NA, None, NaT: refused as NaN is
            y = missing_labels_as_nan(y)
        y = validate_private(
            _check_y, y, role="y", data=target, estimator=name,
            y_numeric=kwargs.get("y_numeric", False),
        )
        if kwargs.get("y_numeric") and getattr(y.dtype, "kind", "O") not in "biuf":
            # _check_y converts object arrays only; numpy strings would fail later, quoting
            y = validate_private(np.asarray, y, role="y", data=target, estimator=name,
                                 dtype=np.float64)
        validate_private(check_consistent_length, X, y, role="y", estimator=name)
        if sp.issparse(X) and not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        elif (isinstance(X, np.ndarray) and not X.flags.c_contiguous
              and X.nbytes <= C_ORDER_COPY_MAX_BYTES and not _maps_a_file(X)):
            X = np.ascontiguousarray(X)
        return X, y

    def _validate_dask_X_y(self, X, y, y_numeric=False):
        """The dask-array path of :meth:`_validate_X_y` (X stays lazy; y is computed)."""
        if getattr(X.dtype, "kind", "O") not in "biuf":  # the dtype is public metadata
            raise ValueError(
                f"a dask X must have a numeric dtype, got {X.dtype}; convert the columns "
                "to numbers (categorical ones with a public one-hot encoding) first."
            )
        X, y = validate_dask_X_y(X, y)  # its errors name shapes only
        if y_numeric:
            y = validate_private(
                np.asarray, y, role="y", data=y, estimator=type(self).__name__,
                dtype=np.float64,
            )
            if not np.all(np.isfinite(y)):
                raise ValueError("Input y contains NaN or infinity.")
        self.n_features_in_ = X.shape[1]
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return X, y

    @staticmethod
    def _check_sample_ids(sample_ids, n_samples):
        """sample_ids as an array of n distinct ids, or None (checked before the charge).

        The ids are the caller's public names of the records (what the ledger composes
        per record); they are metadata, not data values, so checking them reads no row.
        """
        if sample_ids is None:
            return None
        sample_ids = np.asarray(sample_ids)
        if sample_ids.shape != (n_samples,):
            raise ValueError(
                f"sample_ids must have shape ({n_samples},) like the rows of X; got "
                f"shape {sample_ids.shape}."
            )
        if np.unique(sample_ids).size != n_samples:
            raise ValueError(
                "sample_ids must be unique within a fit (one id per record): the ledger "
                "charges each id once per fit, so a repeated id would hide a record's "
                "second row. Give every row its record's own id."
            )
        return sample_ids

    def _public_shape(self, X, y):
        """(n, d) read from the containers' structure only, never from their values.

        n and d are public; reading them (``len``, ``shape``) cannot depend on a value of X
        or y, so the ledger can be charged before anything else. Containers whose shape
        cannot be read that way (e.g. ragged nested lists) are validated first, which is
        refused when a ledger is set (the refusal would depend on the values).
        """
        refuse_dask_table(X)  # from its type alone, before any length is read
        try:
            if is_dask_array(X):
                n_samples, n_features = X.shape
                if any(math.isnan(size) for size in X.shape):
                    raise TypeError("unknown chunk sizes")
            else:
                n_samples, n_features = _num_samples(X), _num_features(X)
            n_targets = _num_samples(y)
        except (TypeError, ValueError):
            unreadable = True  # the error's text may quote X or y: not shown
        else:
            unreadable = False
        if unreadable:
            if self.ledger is not None:
                raise ValueError(
                    "with a ledger, fit must read n and d from the shape of X and y before "
                    f"reading any value, and could not (X is a {type(X).__name__}, y a "
                    f"{type(y).__name__}). Pass X as a numpy array, a scipy sparse matrix, "
                    "a pandas DataFrame or a dask array with known chunk sizes, and y as a "
                    "1-D array."
                )
            X_checked, y_checked = self._validate_X_y(X, y)
            n_samples, n_features = X_checked.shape
            n_targets = y_checked.shape[0]
        # Shape errors from the shape alone (public), never from a validation that reads
        # values: a content error must not pre-empt them before the charge.
        ndim = getattr(X, "ndim", 2)
        if isinstance(ndim, numbers.Integral) and ndim != 2:
            raise ValueError(
                f"X must be 2-D (n_samples, n_features); got an array with dim {ndim}."
            )
        if n_targets != n_samples:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: X has {n_samples} rows and "
                f"y has {n_targets}; pass one target per row."
            )
        if n_samples < 2:
            raise ValueError(
                f"Found array with {n_samples} sample(s) while a minimum of 2 is required: "
                "fit needs at least 2 rows."
            )
        if n_features < 1:
            raise ValueError(
                f"Found array with {n_features} feature(s) (shape=({n_samples}, "
                f"{n_features})) while a minimum of 1 is required: X needs a feature."
            )
        return int(n_samples), int(n_features)
