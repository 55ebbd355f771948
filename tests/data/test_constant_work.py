"""A dense fit does the same work whatever the values of X.

The fit's time must not tell whether the data hold a row far outside ``data_norm``. Timing
in a unit test would be flaky, so this checks the cause instead: the *sequence of
operations* of a fit. Every Python function call, every call of a C function (each numpy
call, each call of a compiled kernel) and every line executed inside the package's folder
is recorded, for a fit on a clean data set and for fits on its neighbours where one row
is replaced by a far row (norm 1e4 times the bound, or entries of 1e200 whose sum of
squares overflows, or 1.797e308). The sequences must be identical, event for event: no branch of the fit
depends on a row's norm, no row is redone or stored apart, no helper runs more often.

What this does not see: the work inside one C call or compiled kernel (a numpy loop over
an array of a given shape, the numba kernel's loops, whose bounds are the shape; the
kernel has no data-dependent branch, see skdpgd._data._fused) and the processor's own
data-dependent latencies. Their size is measured in benchmarks/far_row_timing.py.

Threads are not used (``n_jobs=1``) and the garbage collector is paused while recording
(its callbacks, e.g. hypothesis's, would add events at arbitrary points), so that the
order of events is deterministic; a first fit of each configuration warms the caches
(public plans, compiled kernels) before the recorded ones.
"""

import functools
import gc
import os
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import skdpgd
from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._data import _fused

#: The package's own folder: its lines are recorded. Matched on the path, not on the word
#: "skdpgd", which is also in this test file's path when the clone is named skdpgd (its
#: lambdas differ between the clean and the far fits).
PACKAGE = os.path.join(os.path.dirname(os.path.abspath(skdpgd.__file__)), "")
MAX64 = np.finfo(np.float64).max

#: Replacements of row 0: far outside the bound (data_norm = 1), in three regimes.
FAR_ROWS = {
    "far": 1e4,  # norm ~3e4 R: above 1024 R
    "overflowing": 1e200,  # sum of squares overflows
    "largest": MAX64,  # norm itself above the largest float
}


@functools.cache
def _in_package(filename):
    return os.path.abspath(filename).startswith(PACKAGE)


def _record(fit):
    """The events of ``fit()``: calls (Python and C, anywhere) and skdpgd's lines."""
    events = []

    def describe(code):
        return code.co_filename.rsplit("site-packages", 1)[-1], code.co_name

    def profile(frame, event, arg):
        if event == "call":
            events.append(("call", *describe(frame.f_code)))
        elif event == "c_call":
            events.append(("c_call", getattr(arg, "__module__", None),
                           getattr(arg, "__qualname__", type(arg).__name__)))

    def trace(frame, event, arg):
        if not _in_package(frame.f_code.co_filename):
            return None
        if event == "line":
            events.append(("line", *describe(frame.f_code), frame.f_lineno))
        return trace

    collecting = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    sys.settrace(trace)
    try:
        fit()
    finally:
        sys.settrace(None)
        sys.setprofile(None)
        if collecting:
            gc.enable()
    return events


def _first_difference(a, b):
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            return k, x, y
    return min(len(a), len(b)), "end" if len(a) < len(b) else None, None


def _data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d) * rng.uniform(0.5, 2.0, (n, 1))
    return X, (X[:, 0] > 0).astype(int), np.tanh(2 * X[:, 1])


ESTIMATORS = {
    "logistic": (lambda **kw: DPLogisticRegression(random_state=0, n_jobs=1, **kw), 1),
    "ridge": (lambda **kw: DPRidge(random_state=0, n_jobs=1, y_bound=1.0, **kw), 2),
}


def _assert_same_work(make, X, y, layout, variants):
    def data(rows):
        if layout == "float32":
            return rows.astype(np.float32)
        if layout == "csr":
            matrix = sp.csr_matrix(rows)
            assert matrix.has_canonical_format  # computed (and cached) outside the recording
            return matrix
        return rows

    clean_data, copy = data(X), data(X.copy())
    make().fit(clean_data, y)  # warm-up: plan cache, kernel compilation
    clean = _record(lambda: make().fit(clean_data, y))
    again = _record(lambda: make().fit(copy, y))
    assert clean == again, "the recording itself is not deterministic"
    assert len(clean) > 1000  # the fit was recorded, lines of skdpgd included
    assert any(event[0] == "line" for event in clean)
    for name, value in variants.items():
        far = X.copy()
        far[0] = value
        if layout == "float32":
            far[0] = np.minimum(far[0], 1e30)  # finite in float32, still far
        far = data(far)
        events = _record(lambda far=far: make().fit(far, y))
        where, ours, theirs = _first_difference(clean, events)
        assert events == clean, (
            f"{name} row: the fit's work differs from the clean fit's at event {where}: "
            f"{ours} (clean) against {theirs}"
        )


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("layout", ["float64", "float32"])
@pytest.mark.parametrize("estimator", sorted(ESTIMATORS))
def test_dense_fit_does_the_same_work_with_a_far_row(estimator, layout, numba, monkeypatch):
    if numba:
        pytest.importorskip("numba")
    monkeypatch.setattr(_fused, "ENABLED", numba)
    make, target = ESTIMATORS[estimator]
    X, labels, values = _data()
    _assert_same_work(make, X, labels if target == 1 else values, layout, FAR_ROWS)


@pytest.mark.parametrize("solver", ["gd", "cyclic", "sgd", "preconditioned"])
def test_every_solver_does_the_same_work_with_a_far_row(solver):
    X, labels, _ = _data(seed=1)
    def make():
        return DPLogisticRegression(random_state=0, n_jobs=1, solver=solver, max_iter=3)

    _assert_same_work(make, X, labels, "float64", {"overflowing": 1e200})


def test_csr_fit_does_the_same_work_with_the_same_sparsity_pattern():
    # CSR work also depends on the number of stored entries (the pattern is data, a
    # documented channel); with the pattern fixed, the values change nothing.
    X, labels, _ = _data(seed=2)
    def make():
        return DPLogisticRegression(random_state=0, n_jobs=1, max_iter=3)

    _assert_same_work(make, X, labels, "csr", {"overflowing": 1e200, "largest": MAX64})


def test_non_finite_check_reads_every_row_the_same_way():
    # The finiteness check is a reduction over every row: the same events whether the bad
    # row is first or last (and the refusal names neither).
    from skdpgd._data._design import ClippedDesign

    X, _, _ = _data(n=2000)
    first, last = X.copy(), X.copy()
    first[0, 1], last[-1, 1] = np.nan, np.nan

    def refused(data):
        with pytest.raises(ValueError, match="non-finite") as info:
            ClippedDesign.from_data(data, 1.0, 1.0)
        return str(info.value)

    refused(first)  # warm-up
    events = {}
    messages = {}
    for name, data in (("first", first), ("last", last)):
        events[name] = _record(lambda data=data, name=name: messages.__setitem__(name, refused(data)))
    assert events["first"] == events["last"]
    assert messages["first"] == messages["last"]
    assert "1999" not in messages["last"] and "row 0" not in messages["first"]
