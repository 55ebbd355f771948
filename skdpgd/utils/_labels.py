r"""Label values: which labels are missing, and the canonical form of a label.

**Missing labels** (:func:`is_missing_label`, the one rule of the package for a label,
and the non-text half of :func:`skdpgd.preprocessing.is_missing`): ``None``, a NaN of any
type (Python or NumPy float of any width, complex, :class:`~decimal.Decimal`), ``pd.NA``,
``pd.NaT`` and NumPy's ``NaT``. Each is recognised by its type and value, never by
``value != value`` alone (``pd.NA != pd.NA`` is ``pd.NA``, whose truth value raises). A
text is never a missing label: ``"NA"`` is a label in Python (the command line reads the
missing spellings of a CSV cell before, :mod:`skdpgd._cli`).

**Canonical labels** (:func:`canonical_labels`, docs/theory.md#label-set). Python's
``==`` puts different objects in one class (``0.0 == -0.0``, ``1 == 1.0 == True``,
``"a" == np.str_("a")``), and a dict or a set keyed by them keeps the *first* object it
saw: a release built that way would publish one record's own object (its type, its
sign bit). Every label is therefore first mapped, record by record, to a canonical form
that depends only on its value and on the public dtype of the label array (the
schema); the release then counts canonical forms, and what it returns is made of them:

* a boolean array (NumPy ``bool``, pandas ``boolean``): ``bool``;
* an integer array (``int*``, ``uint*``, pandas ``Int64`` ...): ``int``, returned in
  the array's NumPy dtype;
* a float array (``float*``, pandas ``Float64``): ``float`` with ``-0.0`` read as
  ``0.0``, returned in the array's NumPy dtype;
* a NumPy string array (``U``, ``S``): ``str`` (``bytes``);
* any other container (an object array, a list, a pandas ``string`` or ``category``
  Series, a polars Series: their element types are values, not schema): a text
  (``str`` or a subclass such as ``np.str_``) is its ``str``; a number (``bool``,
  ``int``, ``float``, NumPy numbers, :class:`~fractions.Fraction`,
  :class:`~decimal.Decimal`, a complex number with zero imaginary part) is an ``int``
  when it is integral and a ``float`` otherwise (so ``-0.0``, ``0`` and ``False`` are
  the int ``0``); anything else (bytes, dates, tuples, other objects) is a missing
  label, and so is every date or duration (dtype ``datetime64``, ``timedelta64``).
  Equal numbers get equal forms (``float`` of an exact rational is correctly
  rounded).

:func:`label_array` builds the released label set from canonical labels and the
schema only: in the array's dtype for a typed array; for any other container, an
``int64`` array when every label is an int of int64 range, ``float64`` when every
label is a number exactly representable there, a NumPy string array when every label
is a text, their texts (``str`` of an int, ``repr`` of a float; equal texts merged)
when numbers and texts are mixed, and an object array of the Python numbers otherwise.
"""

import decimal
import math
import numbers

import numpy as np

__all__ = ["canonical_labels", "is_missing_label", "label_array", "missing_labels_as_nan"]

#: Largest integer magnitude up to which every integer is a float64 exactly.
EXACT_FLOAT_INTEGER = 2**53


def is_missing_label(value):
    """Whether ``value`` is a missing label (module docstring).

    Parameters
    ----------
    value : object
        One label.

    Returns
    -------
    missing : bool
        True for None, every NaN (float of any width, complex, Decimal), ``pd.NA``,
        ``pd.NaT`` and ``NaT``; False for every text and every other value.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> [is_missing_label(v) for v in (None, math.nan, np.float32("nan"), "NA", 0.0, 1)]
    [True, True, True, False, False, False]
    """
    if value is None:
        return True
    if isinstance(value, str):
        return False
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    if isinstance(value, (numbers.Number, np.generic)):
        try:
            return bool(value != value)  # complex NaN, Decimal NaN
        except Exception:  # e.g. Decimal('sNaN') raises InvalidOperation: not a value
            return True
    return type(value).__name__ in ("NAType", "NaTType")  # pd.NA, pd.NaT (no pandas import)


def missing_labels_as_nan(y):
    """``y`` with every missing label (:func:`is_missing_label`) written as the float NaN.

    A per-record map, so that a public label set's checks refuse ``pd.NA``, None or NaT
    exactly as they refuse NaN ("y contains NaN"), never with pandas' "boolean value of
    NA is ambiguous". A NumPy dtype other than object (where NaN is the only missing
    value) and a ``y`` without a missing label are returned as they are.

    Parameters
    ----------
    y : array-like
        Labels.

    Returns
    -------
    y : array-like
        ``y`` itself, or an object array of its shape.
    """
    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind != "O":
        return y
    cells = np.asarray(y, dtype=object)
    missing = np.fromiter((is_missing_label(v) for v in cells.ravel().tolist()),
                          dtype=bool, count=cells.size).reshape(cells.shape)
    if not missing.any():
        return y
    cells = cells.copy()
    cells[missing] = np.nan
    return cells


def _schema(y):
    """The public schema of a label container: (kind, NumPy dtype or None).

    ``kind`` is the dtype's kind for a NumPy or pandas dtype of kind b, i, u, f, U or S
    (or M, m: a date or duration is never a label, every one is missing), else ``"O"``
    (the element types of the container are values, not schema).
    """
    dtype = getattr(y, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if kind in ("M", "m") and isinstance(dtype, np.dtype):
        return kind, dtype  # dates and durations: no label (every one missing)
    if not isinstance(kind, str) or kind not in "biufUS" or len(kind) != 1:
        return "O", None
    numpy_dtype = dtype if isinstance(dtype, np.dtype) else getattr(dtype, "numpy_dtype", None)
    if not isinstance(numpy_dtype, np.dtype) or numpy_dtype.kind != kind:
        return "O", None
    return kind, numpy_dtype


def _canonical_number(value):
    """An int when ``value`` (a number, not missing) is integral, a float otherwise."""
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            return None
        value = value.real
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if not isinstance(value, (numbers.Real, np.floating, decimal.Decimal)):
        return None
    try:
        whole = int(value)
    except (OverflowError, ValueError):  # an infinity
        return float(value)
    return whole if whole == value else float(value) + 0.0


def _canonical_label(value, kind):
    """The canonical form of one label under the schema ``kind``, None when missing."""
    exact = type(value)
    if kind == "O" and (exact is str or exact is int):  # fast path: most cells
        return value
    if kind in "Mm" or is_missing_label(value):
        return None
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    if kind == "f":
        return float(value) + 0.0  # -0.0 + 0.0 is 0.0
    if kind == "S":
        return bytes(value)
    if isinstance(value, str):
        return str.__str__(value)  # the text itself, whatever str subclass holds it
    return _canonical_number(value)


def _label_order(label):
    """Sort key of canonical labels: numbers (by value) before texts (by text)."""
    return (isinstance(label, (str, bytes)), label)


def canonical_labels(y):
    """The canonical labels of ``y`` (module docstring): the distinct ones and each row's.

    Parameters
    ----------
    y : array-like of shape (n,) or (n, 1)
        Labels (private); its dtype, when it has one, is read as public schema.

    Returns
    -------
    labels : list
        The distinct canonical labels present (missing ones excluded), sorted: numbers
        by value, then texts; a function of the records' canonical forms only.
    codes : ndarray of intp, shape (n,)
        Each row's index in ``labels``, -1 for a missing label.
    schema : tuple
        ``(kind, dtype)`` for :func:`label_array`.
    """
    schema = _schema(y)
    kind, dtype = schema
    plain = kind in "biufUS" and isinstance(getattr(y, "dtype", None), np.dtype)
    if plain:  # a NumPy dtype (an array, a pandas Series of it): vectorised, same forms
        values = np.asarray(y).ravel()
        plain = values.dtype == dtype
    if plain:
        present = ~np.isnan(values) if kind == "f" else np.ones(values.shape, dtype=bool)
        values = values + dtype.type(0) if kind == "f" else values  # -0.0 + 0.0 is 0.0
        distinct, inverse = np.unique(values[present], return_inverse=True)
        labels = distinct.tolist()
        if kind == "U":
            labels = [str(label) for label in labels]
        codes = np.full(values.shape, -1, dtype=np.intp)
        codes[present] = inverse.ravel()
        return labels, codes, schema
    cells = np.asarray(y, dtype=object).ravel().tolist()
    forms = [_canonical_label(value, kind) for value in cells]
    distinct = sorted({form for form in forms if form is not None}, key=_label_order)
    index = {label: k for k, label in enumerate(distinct)}
    codes = np.fromiter((-1 if form is None else index[form] for form in forms),
                        dtype=np.intp, count=len(forms))
    return distinct, codes, schema


def label_array(labels, schema):
    """The label set as an array, from canonical labels and the public schema only.

    Parameters
    ----------
    labels : list
        Distinct canonical labels, in the order of :func:`canonical_labels`.
    schema : tuple
        The ``schema`` of :func:`canonical_labels`.

    Returns
    -------
    classes : ndarray
        Sorted distinct labels (module docstring for its dtype).
    position : ndarray of intp, shape (len(labels),)
        The index in ``classes`` of each label (two labels may share one when numbers
        and texts mix and their texts agree).
    """
    kind, dtype = schema
    if kind in "biuf":
        classes = np.array(labels, dtype=dtype)
    elif kind in "US":
        classes = np.array(labels, dtype=str if kind == "U" else bytes)
    else:
        classes = _object_label_array(labels)
    if classes.dtype.kind == "O":  # Python numbers beyond int64 / float64: sorted, distinct
        return classes, np.arange(len(labels), dtype=np.intp)
    classes, position = np.unique(classes, return_inverse=True)
    return classes, position.astype(np.intp).ravel()


def _object_label_array(labels):
    """Canonical labels of an untyped container as an array (module docstring)."""
    texts = [label for label in labels if isinstance(label, str)]
    if texts and len(texts) == len(labels):
        return np.array(labels, dtype=str)
    if texts:  # numbers and texts: every label as its text
        return np.array([label if isinstance(label, str) else repr(label)
                         for label in labels], dtype=str)
    if all(isinstance(label, int) for label in labels):
        if all(-2**63 <= label < 2**63 for label in labels):
            return np.array(labels, dtype=np.int64)
    elif all(isinstance(label, float) or abs(label) <= EXACT_FLOAT_INTEGER
             for label in labels):
        return np.array(labels, dtype=np.float64)
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out
