"""What DPSearchCV reads of X and y, and when: shapes before the charge, values after.

Before the ledger is charged the search reads n and d from the containers' structure
only (:func:`public_shape`), so no refusal that depends on the data comes for free.
After the charge it converts the values (:func:`read_values`); every refusal there names
what to fix without quoting a value, a row index or a count of rows, and the candidates'
own refusals (which may quote values) are withheld (:func:`withheld`).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.utils.validation import check_array, column_or_1d

from .._data import refuse_dask_table
from ..accounting import UnsupportedEventError
from ..utils._sklearn_compat import _num_features, _num_samples
from ..utils._validation import validate_private
from ._scoring import labels_equal

#: What the search says when a value of the data is refused after its ledger charge: it
#: names what to fix and never quotes a value, a row index or a count of rows.
COMPLEX = ("Complex data not supported: {name} must hold real numbers (pass the real part "
            "or the modulus if that is what you mean).")
PIPELINE_REFUSED = (
    "A step of the pipeline refused the private data while DPSearchCV fitted or scored a "
    "candidate (after the ledger was charged). Its message is withheld because it may "
    "quote a value of the private data. To see it, fit the same pipeline on data you may "
    "look at with the same columns and kinds of values (a few synthetic rows). Typical "
    "causes: a non-numeric value where a number is expected, NaN or infinity, a category "
    "missing from the public category lists."
)
ESTIMATOR_REFUSED = (
    "The estimator refused the private data while DPSearchCV fitted or scored a candidate "
    "(after the ledger was charged and after the search's own checks of X and y passed). "
    "Its message is withheld because it may quote a value of the private data; fit the "
    "estimator on data you may look at of the same shape and kinds of values to see it."
)


def is_complex(obj):
    """A container of complex dtype, or scikit-learn's complex-data error (no value read)."""
    if isinstance(obj, Exception):
        return str(obj).startswith("Complex data not supported")
    return getattr(getattr(obj, "dtype", None), "kind", None) == "c"


def withheld(message, function, *args):
    """``function(*args)``, a ValueError / TypeError it raises replaced by ``ValueError(message)``.

    Used after the charge around code that reads the private values (the candidates' fits
    and scores: a pipeline's steps), whose messages may quote them. The new error is raised
    outside the handler, so neither ``__cause__`` nor ``__context__`` holds the original
    (a traceback cannot print it). The guard's errors (a candidate that is not a
    Gaussian-DP run within the trial budget: parameters only) pass through.
    """
    try:
        return function(*args)
    except UnsupportedEventError:
        raise
    except (ValueError, TypeError):
        pass
    raise ValueError(message)  # outside the handler: no original chained to it


def public_shape(X, y):
    """(n, d) from the containers' structure only (``len``, ``shape``), never a value.

    Called before the ledger is charged, like the estimators' ``_public_shape``: every
    refusal here depends on the shapes only, and its message prints no value.
    """
    if y is None:
        raise ValueError("DPSearchCV requires y to be passed, but the target y is None.")
    refuse_dask_table(X)  # from its type alone
    ndim = getattr(X, "ndim", 2)
    if ndim != 2:  # a public property of the container, read before any value
        raise ValueError(f"X must be 2-D (n_samples, n_features); got an array with dim "
                         f"{ndim}. Reshape your data, e.g. X.reshape(-1, 1) for a single "
                         "feature.")
    sizes = None
    try:
        sizes = _num_samples(X), _num_features(X), _num_samples(y)
    except (TypeError, ValueError):
        pass
    if sizes is None:  # raised outside the handler: no original chained to it
        shape = getattr(X, "shape", None)
        raise ValueError(
            "DPSearchCV reads n and d from the shape of X and y before it reads any "
            f"value, and could not{'' if shape is None else f' (X has shape {shape})'}: "
            "pass X as a 2-D numpy array, a scipy sparse matrix or a pandas DataFrame, "
            f"and y as a 1-D array of the same length (X is a {type(X).__name__})."
        )
    n, d, n_y = sizes
    if n_y != n:
        raise ValueError(
            f"X and y have different numbers of rows: {n} and {n_y} (n is public: "
            "the shapes must agree)."
        )
    if d < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)) while a "
                         "minimum of 1 is required.")
    if n < 2:
        raise ValueError(f"Found array with {n} sample(s) (shape=({n}, {d})) while a "
                         "minimum of 2 is required (n_samples={n}).")
    y_shape = getattr(y, "shape", (n,))
    if len(y_shape) > 2 or (len(y_shape) == 2 and y_shape[1] != 1):
        raise ValueError(f"DPSearchCV supports a single target; y has shape {y_shape}.")
    return int(n), int(d)


def read_values(X, y, base, *, bare):
    """X and y as the trials use them; runs after the ledger charge.

    Every refusal here depends on the values, so it comes after the charge (a probe
    costs budget), and its message names what to fix without quoting a value, a row
    index or a count of rows (the conversions' own messages are withheld). Returns
    ``(X, y)``: a bare estimator's X as a float64/float32 array or CSR matrix, finite; a
    pipeline's X as given (its steps read it); y as labels from the public ``classes``,
    or finite float64 targets.
    """
    y = read_y(y, base)
    if not bare:  # a pipeline's steps read X (their refusals are withheld by the caller)
        return X, y
    if is_complex(X):
        raise ValueError(COMPLEX.format(name="X"))
    # scikit-learn's conversion; its messages (which quote values) are replaced by
    # validate_private with ones that name X and the fix, raised with no original
    X = validate_private(check_array, X, role="X", data=X, estimator="DPSearchCV",
                         accept_sparse="csr", dtype=[np.float64, np.float32],
                         ensure_all_finite=False, ensure_min_samples=2)
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if not np.all(np.isfinite(X.data if sp.issparse(X) else X)):
        raise ValueError(
            "X contains NaN or infinity: DPSearchCV's guarantee covers finite rows (any "
            "magnitude: they are clipped to data_norm). Remove or impute the missing "
            "values before the search."
        )
    return X, y


def read_y(y, base):
    """Labels (checked against the public ``classes``) or finite float64 targets."""
    if is_complex(y):
        raise ValueError(COMPLEX.format(name="y"))
    y = validate_private(column_or_1d, y, role="y", estimator="DPSearchCV", warn=True)
    if is_classifier(base):
        classes = np.unique(np.asarray(base._public_label_set()))
        codes = np.full(y.shape[0], -1, dtype=np.intp)
        for k, label in enumerate(classes):
            codes[labels_equal(y, label) & (codes < 0)] = k
        if np.any(codes < 0):
            raise ValueError(
                "y holds a label that is not in the estimator's public label set "
                f"classes={classes.tolist()} (a missing label, another label, or a "
                "continuous target). Add every possible label to classes=, or remove "
                "or relabel those rows before the search."
            )
        return classes[codes]
    y = validate_private(np.asarray, y, role="y", data=y, estimator="DPSearchCV",
                         dtype=np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError(
            "y contains NaN or infinity: remove those rows or impute the targets "
            f"before the search (finite targets of any size are clipped to "
            f"y_bound={base._public_target_bound()!r})."
        )
    return y
