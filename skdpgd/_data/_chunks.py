r"""Row chunks fixed by the shape alone, and the one BLAS thread limit of a pass.

A pass over the data (a gradient sum, a Gram pass, a one-off scan) cuts the rows into
chunks that are a function of (n, d) only (:func:`chunk_bounds`), never of ``n_jobs``, of
the data values or of the sparsity pattern, and adds the partial sums in chunk order, so
that the result is bit-identical for every ``n_jobs``. Whenever there is more than one
chunk, every chunk is computed with BLAS limited to one thread: a multi-threaded BLAS
may split a product differently and round differently (observed with OpenBLAS on
``X @ coef.T`` of the multinomial loss).

The limit (:func:`single_threaded_blas`) is entered by the calling thread around a whole
computation, not inside each worker: thread-pool limits are process-wide, and workers
entering and leaving them concurrently could restore them in the wrong order. It is
re-entrant: a pass that asks for it inside a loop that already holds it (a solver's
loop around its row sums) does not enter it a second time, so the limit is entered once
per fit.
"""

import itertools
import math
import threading
from contextlib import contextmanager

__all__ = ["chunk_bounds", "single_threaded_blas"]

#: Bytes of a dense float64 X per chunk, at least: about 4 MiB, enough to amortise the
#: Python work of a chunk on one thread.
CHUNK_BYTES = 4 * 2**20

#: Large X is cut into about this many chunks (enough for 16 workers with a few tasks
#: each), with chunks of up to :data:`MAX_CHUNK_BYTES`: each chunk costs a few dozen numpy
#: calls whose GIL hand-offs serialise threads, so with many threads bigger chunks scale
#: better (measured in benchmarks/README.md, "multi-core scaling").
TARGET_CHUNKS = 64
MAX_CHUNK_BYTES = 32 * 2**20

#: Fewest rows per chunk, so that very wide X does not give one-row chunks.
MIN_CHUNK_ROWS = 64


def chunk_bounds(n_samples, n_features, chunk_size=None):
    r"""Row ranges ``[start, stop)`` of the chunks: a function of (n, d) only.

    The target is ``max(MIN_CHUNK_ROWS, B // (8 d))`` rows with
    ``B = min(max(CHUNK_BYTES, 8 n d / TARGET_CHUNKS), MAX_CHUNK_BYTES)``: chunks of 4 MiB of
    a dense float64 X, growing to 32 MiB for X above 256 MiB so that a large X still
    has about 64 chunks (the same rule for CSR X: the sparsity pattern is data and is not
    used). The n rows are then cut into :math:`m = \lceil n / \mathrm{target}\rceil`
    consecutive chunks of sizes :math:`\lfloor n/m \rfloor` or :math:`\lceil n/m \rceil`.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of X.
    chunk_size : int, optional
        Rows per chunk instead of the target above (chunks are then exactly that size,
        the last one possibly shorter).

    Returns
    -------
    bounds : list of (int, int)
    """
    n_samples, n_features = int(n_samples), int(n_features)
    if n_samples <= 0:
        raise ValueError(f"X must have at least one row, got n_samples={n_samples}.")
    if chunk_size is not None:
        chunk_size = int(chunk_size)
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
        starts = range(0, n_samples, chunk_size)
        return [(s, min(s + chunk_size, n_samples)) for s in starts]
    row_bytes = 8 * max(1, n_features)
    chunk_bytes = min(max(CHUNK_BYTES, n_samples * row_bytes // TARGET_CHUNKS), MAX_CHUNK_BYTES)
    target = max(MIN_CHUNK_ROWS, chunk_bytes // row_bytes)
    n_chunks = math.ceil(n_samples / target)
    edges = [(k * n_samples) // n_chunks for k in range(n_chunks + 1)]
    return list(itertools.pairwise(edges))


_CONTROLLER = None
_LOCK = threading.Lock()
_HOLDERS = 0  # contexts inside the limit, in any thread
_LIMIT = None  # the threadpoolctl limit, held while _HOLDERS > 0


@contextmanager
def single_threaded_blas():
    """Context limiting the BLAS / OpenMP pools to one thread (process-wide), re-entrant.

    The first context in (in any thread) enters threadpoolctl's limit and the last one
    out restores the pools; nested or concurrent contexts in between only count
    themselves, so the limit is entered once however many layers ask for it (a solver's
    loop, then its row sums).

    The ``ThreadpoolController`` is built once, at the first use, after loading scipy's
    BLAS (numpy's, the one the losses use, is loaded by then; scipy's is the one the
    Gram pass's kernel calls, :func:`skdpgd._data._fused.fused_gram`): building it scans
    the loaded libraries and costs about ten times more than entering its limit.
    """
    global _CONTROLLER, _HOLDERS, _LIMIT
    with _LOCK:
        if _HOLDERS == 0:
            if _CONTROLLER is None:
                import scipy.linalg  # noqa: F401 - scipy's BLAS (the Gram kernel's) loaded first
                from threadpoolctl import ThreadpoolController

                _CONTROLLER = ThreadpoolController()
            _LIMIT = _CONTROLLER.limit(limits=1)
        _HOLDERS += 1
    try:
        yield
    finally:
        with _LOCK:
            _HOLDERS -= 1
            if _HOLDERS == 0:
                limit, _LIMIT = _LIMIT, None
                limit.restore_original_limits()
