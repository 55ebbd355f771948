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


def _chunk_labels(y, classes, start, stop):
    """One chunk of the label scan: its label type checked, its labels, its codes."""
    from sklearn.utils.multiclass import check_classification_targets

    chunk = y[start:stop]
    check_classification_targets(chunk)  # scikit-learn's error for a regression target
    if classes is None:
        return np.unique(chunk)
    codes = np.searchsorted(classes, chunk)
    np.minimum(codes, classes.size - 1, out=codes)
    known = classes[codes] == chunk
    return codes, (None if known.all() else np.unique(chunk[~known]))


def scan_labels(y, classes=None, *, n_jobs=None):
    r"""Labels of a classifier's y in one or two chunked passes: label set and codes.

    Each chunk of y is checked with scikit-learn's ``check_classification_targets``
    (a continuous target is refused with its message), then

    * without ``classes``: the label set is the union of the chunks' label sets (a set,
      hence independent of the chunking), and a second pass computes the codes;
    * with ``classes`` (sorted, public): one pass computes the codes
      :math:`c_i = \mathrm{searchsorted}(\text{classes}, y_i)` and the labels of y that
      are not in ``classes``.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Validated targets.
    classes : ndarray, optional
        The sorted public label set.
    n_jobs : int or None
        Threads (joblib semantics); the results do not depend on it.

    Returns
    -------
    classes : ndarray
        ``classes`` as given, or the sorted labels of y.
    codes : ndarray of intp, shape (n_samples,)
        The index of each label in ``classes`` (meaningless where the label is unknown).
    unknown : ndarray
        The sorted labels of y that are not in ``classes`` (empty when classes is None).
    """
    y = np.asarray(y)
    bounds = chunk_bounds(max(1, y.shape[0]), 1)
    if classes is None:
        parts = map_chunks(lambda a, b: _chunk_labels(y, None, a, b), bounds, n_jobs)
        classes = np.unique(np.concatenate(parts))
        check = False
    else:
        classes = np.asarray(classes)
        check = True
    results = map_chunks(
        lambda a, b: _codes_only(y, classes, a, b, check), bounds, n_jobs
    )
    codes = np.concatenate([codes for codes, _ in results]) if results else np.empty(0, np.intp)
    unknown = [extra for _, extra in results if extra is not None]
    unknown = np.unique(np.concatenate(unknown)) if unknown else classes[:0]
    return classes, codes, unknown


def _codes_only(y, classes, start, stop, check):
    if check:
        return _chunk_labels(y, classes, start, stop)
    codes = np.searchsorted(classes, y[start:stop])
    return codes, None
