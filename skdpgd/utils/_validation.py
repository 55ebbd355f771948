"""Validation of privacy parameters and random states (docs/theory.md#rules)."""

import math
import numbers
import re
import warnings

import numpy as np


def resolve_delta(delta, n_samples):
    r"""The delta a fit targets, checked against n (docs/theory.md#rules).

    ``"auto"`` is :math:`\min(10^{-5}, 1/(10 n))`: a rule of n only (public), below the
    1/n level at which an (epsilon, delta) guarantee stops protecting individuals.
    An explicit delta must lie in (0, 1) and below 1/n.
    """
    if isinstance(delta, str):
        if delta != "auto":
            raise ValueError(f"delta must be a float in (0, 1/n) or 'auto', got {delta!r}.")
        return min(1e-5, 1.0 / (10.0 * n_samples))
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in the open interval (0, 1), got {delta!r}.")
    if delta >= 1.0 / n_samples:
        raise ValueError(
            f"delta={delta!r} is >= 1/n_samples = {1.0 / n_samples:.3g}: such a guarantee allows "
            "publishing a whole record. Use a smaller delta, e.g. delta='auto' "
            f"(= {min(1e-5, 1.0 / (10.0 * n_samples)):.3g} here)."
        )
    return delta


def check_epsilon(epsilon):
    """epsilon as a float in (0, inf]; ``np.inf`` means no noise (a non-private run)."""
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a positive number or np.inf, got {epsilon!r}.")
    epsilon = float(epsilon)
    if math.isnan(epsilon) or epsilon <= 0.0:
        raise ValueError(f"epsilon must be > 0 (or np.inf for no privacy), got {epsilon!r}.")
    return epsilon


def make_generator(random_state):
    """The noise source of a fit: the only place randomness enters.

    ``None`` draws fresh entropy from the operating system (numpy's ``default_rng()``);
    an int seeds a ``numpy.random.Generator`` (anyone who knows the seed can reproduce
    the noise, so a fixed seed is for experiments, not for releases); a ``Generator``
    or legacy ``RandomState`` is used as given.
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    raise ValueError(
        "random_state must be None, an int, a numpy Generator or RandomState, "
        f"got {random_state!r}."
    )


# -- messages that never quote the private data ---------------------------------------------
#
# scikit-learn's and numpy's validation errors quote the data: "could not convert string to
# float: 'ssn 123-45-6789'", the whole array after "Complex data not supported", the array
# after "Expected 2D array". A refusal that follows the privacy charge may reveal *that* the
# data hold such a value (that fact is what the charge pays for, docs/privacy_model.md,
# "Which errors depend on the data"), but not the value, its row or how many rows: an output
# that always differs between neighbouring data sets is not private at any epsilon. So every
# validation of private data runs through :func:`validate_private`, which replaces the
# message with one built from the kind of the problem and public names only (the parameter,
# the column names of a DataFrame with a non-numeric dtype, the shape).

#: Label types of :func:`sklearn.utils.multiclass.type_of_target` (fixed words, no values).
_LABEL_TYPES = (
    "continuous-multioutput", "continuous", "multiclass-multioutput", "multilabel-indicator",
    "multiclass", "binary", "unknown",
)

#: Warnings of scikit-learn's validation whose text holds no value (shown as they are).
_SAFE_WARNINGS = ("A column-vector y was passed when a 1d array was expected",)


def _non_numeric_columns(data):
    """Names of the columns of a DataFrame whose dtype is not numeric (schema, not values)."""
    columns, dtypes = getattr(data, "columns", None), getattr(data, "dtypes", None)
    if columns is None or dtypes is None or not hasattr(dtypes, "__iter__"):
        return []
    return [str(name) for name, dtype in zip(columns, dtypes, strict=True)
            if getattr(dtype, "kind", "O") not in "biuf"]


def _number(pattern, text):
    match = re.search(pattern, text)
    return None if match is None else match.group(1)


def safe_message(error, role, data=None, estimator=None):
    """A message for a validation ``error`` of ``role`` ("X" or "y") that quotes no data.

    The message is chosen from the kind of ``error`` (matched on scikit-learn's and
    numpy's wording) and names the parameter, a DataFrame's non-numeric columns, or a
    public shape; anything not recognised gets a generic message that withholds the
    original text.
    """
    text = str(error)
    name = estimator or "the estimator"
    if "complex" in text.lower():
        return (f"Complex data not supported: {role} holds complex numbers; {name} fits "
                "real values only. Split each "
                "complex column into its real and imaginary parts before fitting.")
    if re.search(r"inhomogeneous|setting an array element with a sequence", text):
        return (f"{role} is ragged or nested (rows of different lengths, or sequences as "
                "values); pass a rectangular array of numbers.")
    dims = _number(r"Found array with dim (\d+)", text)
    if dims is not None:
        return (f"{role} must be 2-D (n_samples, n_features); got an array with dim {dims}.")
    got = _number(r"Expected 2D array, got (1D|scalar) array", text)
    if got is not None:
        return (f"Expected 2D array, got {got} array instead: {role} must be 2-D (n_samples, "
                "n_features). Reshape your data either using array.reshape(-1, 1) if it has "
                "a single feature or array.reshape(1, -1) if it contains a single sample.")
    sizes = re.search(r"Found array with (\d+) (sample|feature)\(s\) \(shape=(\([\d, ]+\))\) "
                      r"while a minimum of (\d+) is required", text)
    if sizes is not None:  # the shape: public
        count, what, shape, least = sizes.groups()
        return (f"Found array with {count} {what}(s) (shape={shape}) while a minimum of "
                f"{least} is required: {role} needs at least {least} {what}(s).")
    samples = _number(r"Found array with (\d+) sample\(s\)", text)
    if samples is not None:
        return (f"{role} has {samples} sample(s) while a minimum of 2 is required.")
    if "0 feature(s)" in text:
        return f"{role} has 0 features; at least 1 is required."
    sizes = _number(r"inconsistent numbers of samples: (\[[\d, ]+\])", text)
    if sizes is not None:
        return (f"X and y have inconsistent numbers of samples {sizes}; pass one target "
                "per row.")
    shape = _number(r"(?:y should be a 1d array|y has shape), got an array of shape "
                    r"(\([\d, ]+\))", text)
    if shape is not None:
        return f"y must be 1-D (one target per row); got shape {shape}."
    label_type = _number(r"Unknown label type: '?([\w-]+)", text)
    if label_type is not None:
        label_type = label_type if label_type in _LABEL_TYPES else "unknown"
        return (f"Unknown label type: {label_type}: {name} needs discrete labels in y "
                "(strings or integers), not a regression target or a matrix. For a numeric "
                "target use DPRidge.")
    if "Mix of label input types" in text or "not supported between instances" in text:
        return (f"{role} mixes labels of types that cannot be compared (e.g. strings and "
                "numbers), or labels of another type than `classes`; convert every label "
                "and `classes` to one type (e.g. str) before fitting.")
    conversion = re.search(r"could not convert|invalid literal|Unable to convert|cannot "
                           r"convert|Cannot cast|could not be converted", text, re.IGNORECASE)
    if not conversion and re.search(r"NaN|infinity|non-finite", text):
        return (f"{role} contains NaN or infinity; remove or impute those values before "
                "fitting.")
    widths = re.search(r"X has (\d+) features, but (\w+) is expecting (\d+) features", text)
    if widths is not None:  # shapes and the estimator's name: public
        return (f"X has {widths.group(1)} features, but {widths.group(2)} is expecting "
                f"{widths.group(3)} features as input.")
    if text.startswith("The feature names should match"):
        return text  # column names (the schema), never values
    if "Feature names" in text:
        return (f"{role} has column names of mixed types; convert them all to str "
                "(X.columns = X.columns.astype(str)) or pass an array without names.")
    if "argument must be a string" in text:  # float() of an object (no value quoted)
        return (f"{role} holds objects that are not numbers: float() argument must be a "
                "string or a real number. Convert the values to numbers before fitting.")
    if conversion or re.search(r"convert|cast|not a number|dtype", text, re.IGNORECASE):
        columns = _non_numeric_columns(data)
        where = f" (non-numeric column(s) {columns})" if columns else ""
        if role == "y":
            return (f"y holds values that are not numbers{where}; {name} needs numeric "
                    "targets: map them to numbers with a public rule before fitting (a "
                    "classification target belongs to DPLogisticRegression).")
        return (f"{role} holds values that are not numbers (strings, categories or other "
                f"objects){where}; encode categorical columns with "
                "skdpgd.preprocessing.public_one_hot and a public category list, and "
                "convert numeric text to numbers before fitting.")
    return (f"{role} could not be validated ({type(error).__name__}; its message is "
            f"withheld because it may quote the private data). Pass {role} as a numeric "
            "array of the documented shape.")


def validate_private(function, *args, role, data=None, estimator=None, **kwargs):
    """``function(*args, **kwargs)``, with messages and warnings that quote no data.

    A ``ValueError`` or ``TypeError`` raised by ``function`` (scikit-learn's
    ``validate_data``, ``_check_y``, a label scan, ...) is replaced by the same type with
    :func:`safe_message` (a ``LookupError`` or ``ArithmeticError``, whose text may quote a
    key or a value too, by a ``ValueError``); the new exception is raised outside the handler, so
    neither ``__cause__`` nor ``__context__`` holds the original (a traceback cannot print it).
    Warnings raised by ``function`` are shown again with their category, their text
    replaced by a fixed one unless it is one of the known value-free texts.

    Parameters
    ----------
    function : callable
    role : {"X", "y"}
        The parameter that is validated, named in the message.
    data : object, optional
        The container (its column names and dtypes may be named; never its values).
    estimator : str, optional
        The estimator's name, for the message.
    """
    failure = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(*args, **kwargs)
        except (ValueError, TypeError, LookupError, ArithmeticError) as error:
            failure = (TypeError if isinstance(error, TypeError) else ValueError,
                       safe_message(error, role, data, estimator))
    for record in caught:
        text = str(record.message)
        if not text.startswith(_SAFE_WARNINGS):
            text = (f"{record.category.__name__} while validating {role} (its text is "
                    "withheld: it may quote the private data).")
        category = record.category if issubclass(record.category, Warning) else UserWarning
        try:
            warnings.warn(text, category, stacklevel=3)
        except TypeError:  # a category whose constructor takes other arguments
            warnings.warn(text, UserWarning, stacklevel=3)
    if failure is not None:
        raise failure[0](failure[1])
    return result
