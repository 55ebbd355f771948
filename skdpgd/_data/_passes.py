r"""The once-per-fit passes over the data, chunked on the fit's worker threads.

A fit reads its data in a few passes that happen once (the label scan, the row norms of
the clipping, which also check finiteness) and then in the passes of the solver. When the
solver's passes use ``n_jobs`` threads but the one-off passes run on one, the fit's
speedup stays far below the pass's (Amdahl). This module runs a one-off pass the same way
as the gradient passes: row chunks fixed by the shape only
(:func:`skdpgd._data._chunks.chunk_bounds`), one task per chunk on up to ``n_jobs`` local
threads (numpy releases the GIL in the chunk's work), and results combined in chunk
order, so that the result, and which error is raised, do not depend on ``n_jobs``.

No randomness and no privacy logic here: these passes run after the fit's privacy
charge (see the privacy model page, "Which errors depend on the data").
"""

import numpy as np

from ._chunks import chunk_bounds

__all__ = ["map_chunks", "scan_labels"]


def map_chunks(function, bounds, n_jobs=None):
    """``[function(start, stop) for (start, stop) in bounds]``, on up to ``n_jobs`` threads.

    The list is in chunk order whatever ``n_jobs``. Every chunk runs to its end; if some
    raised, the exception of the first of them in chunk order is re-raised, so which
    error a fit reports does not depend on ``n_jobs`` or on thread timing. Threads are
    capped at the number of CPUs of this machine: a one-off pass stays local even under a
    cluster backend (the data are in this process).
    """
    from joblib import Parallel, cpu_count, delayed, effective_n_jobs

    def guarded(start, stop):
        try:
            return True, function(start, stop)
        except Exception as error:  # re-raised below, in chunk order
            return False, error

    n_threads = min(effective_n_jobs(n_jobs), cpu_count(), len(bounds))
    if n_threads <= 1:
        results = [guarded(start, stop) for start, stop in bounds]
    else:
        results = Parallel(n_jobs=n_threads, backend="threading")(
            delayed(guarded)(start, stop) for start, stop in bounds
        )
    for ok, value in results:
        if not ok:
            raise value
    return [value for _, value in results]


#: Widest value range of an integer chunk whose labels are found by counting
#: (:func:`_integer_labels`): a count array of at most 512 KiB.
COUNTED_LABEL_RANGE = 2**16


def _integer_labels(chunk):
    """The sorted distinct values of an integer or boolean chunk.

    By counting where its range ``max - min`` (computed in Python integers: no overflow)
    is below :data:`COUNTED_LABEL_RANGE`, one linear pass instead of a sort (a 2,000,000
    row y: about 5 times faster); by ``np.unique`` otherwise. Both give the same array.
    """
    wide = np.uint64 if chunk.dtype.kind == "u" else np.int64  # no overflow below
    values = chunk.astype(wide, copy=False)
    low, high = int(values.min()), int(values.max())
    if high - low >= COUNTED_LABEL_RANGE:
        return np.unique(chunk)
    counts = np.bincount((values - wide(low)).astype(np.intp, copy=False))
    return (np.flatnonzero(counts).astype(wide) + wide(low)).astype(chunk.dtype)


def _chunk_labels(y, classes, start, stop):
    """One chunk of the label scan without a public label set: its type checked, its labels.

    An integer or boolean chunk is always a classification target for scikit-learn's
    ``check_classification_targets`` ("binary" or "multiclass"), so only other dtypes
    go through it.
    """
    from sklearn.utils.multiclass import check_classification_targets

    chunk = y[start:stop]
    if chunk.dtype.kind in "biu":
        return _integer_labels(chunk)
    check_classification_targets(chunk)  # scikit-learn's error for a regression target
    return np.unique(chunk)


def _chunk_codes(y, classes, start, stop):
    """One chunk of the label scan with the public label set: codes, and whether a label is outside.

    Membership is equality with a label of ``classes``, whatever the dtype of y (numbers,
    strings, objects; a label of another type, NaN, None or an unhashable object is
    simply not in the set), so the one refusal this allows names the public set only.
    """
    chunk = y[start:stop]
    numeric = chunk.dtype.kind in "biuf" and classes.dtype.kind in "biuf"
    if numeric or (chunk.dtype.kind == classes.dtype.kind and chunk.dtype.kind in "US"):
        codes = np.searchsorted(classes, chunk)
        np.minimum(codes, classes.size - 1, out=codes)
        with np.errstate(invalid="ignore"):
            known = classes[codes] == chunk  # NaN equals no class
        return codes, not bool(known.all())
    lookup = {}
    for code, label in enumerate(classes.tolist()):
        lookup.setdefault(label, code)
    codes = np.fromiter((_code_of(lookup, value) for value in chunk.tolist()),
                        dtype=np.intp, count=chunk.shape[0])
    outside = codes < 0
    codes[outside] = 0
    return codes, bool(outside.any())


def _code_of(lookup, value):
    try:
        return lookup.get(value, -1)
    except TypeError:  # unhashable: equal to no label of the public set
        return -1


def scan_labels(y, classes=None, *, n_jobs=None):
    r"""Labels of a classifier's y in one or two chunked passes: label set and codes.

    * without ``classes``: each chunk of y is checked with scikit-learn's
      ``check_classification_targets`` (a continuous target is refused with its
      message), the label set is the union of the chunks' label sets (a set, hence
      independent of the chunking), and a second pass computes the codes;
    * with ``classes`` (sorted, public): one pass computes the codes
      :math:`c_i = \mathrm{searchsorted}(\text{classes}, y_i)` (by equality with a label
      of ``classes`` for object or mixed dtypes) and whether some label of y is not in
      ``classes``, for every dtype of y: a continuous value, a label of another type, NaN
      or None is a label outside the public set, nothing else.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Validated targets.
    classes : ndarray, optional
        The sorted public label set.
    n_jobs : int or None
        Threads (joblib semantics) for a y of any other dtype than integer or boolean;
        the results do not depend on it. An integer or boolean y is scanned on one
        thread: its passes (counting, ``searchsorted``) read 8 bytes a row, a hundredth of
        a 100-column X's read, and on a 16-core machine 2,000,000 labels took 0.018 s on
        one thread and 0.029 s on 16, whose start costs more than it saves.

    Returns
    -------
    classes : ndarray
        ``classes`` as given, or the sorted labels of y.
    codes : ndarray of intp, shape (n_samples,)
        The index of each label in ``classes`` (meaningless where the label is unknown).
    outside : bool
        Whether some label of y is not in ``classes`` (False when classes is None).
    """
    y = np.asarray(y)
    bounds = chunk_bounds(max(1, y.shape[0]), 1)
    if y.dtype.kind in "biu":
        n_jobs = 1
    if classes is None:
        parts = map_chunks(lambda a, b: _chunk_labels(y, None, a, b), bounds, n_jobs)
        classes = np.unique(np.concatenate(parts))
        results = map_chunks(
            lambda a, b: (np.searchsorted(classes, y[a:b]), False), bounds, n_jobs)
    else:
        classes = np.asarray(classes)
        results = map_chunks(lambda a, b: _chunk_codes(y, classes, a, b), bounds, n_jobs)
    codes = np.concatenate([codes for codes, _ in results]) if results else np.empty(0, np.intp)
    return classes, codes, any(outside for _, outside in results)
