"""The data of one fit, reachable only as row sums, and the Gram pass's chunking.

Data access, not solving: kept apart so that it can move down to the data layer
(``skdpgd/_data/``) with the design and the row-sum passes.
"""

from ._dask import DaskRowSums, is_dask_array
from ._design import ClippedDesign
from ._gradients import ChunkedRowSums

__all__ = ["FitData", "GRAM_MAX_CHUNKS", "GRAM_PARTIALS_BYTES", "gram_chunk_rows"]

#: Memory for the Gram pass's partial sums held at once (d x d float64 each): its chunks
#: are made larger for wide designs so that all of them fit in this budget.
GRAM_PARTIALS_BYTES = 256 * 2**20

#: Most chunks of the Gram pass (enough to keep 16 workers busy).
GRAM_MAX_CHUNKS = 64


def gram_chunk_rows(n_samples, dim):
    """Rows per chunk of the Gram pass: a function of (n, d) only (bit-identity).

    At most ``min(GRAM_MAX_CHUNKS, GRAM_PARTIALS_BYTES / (8 d^2))`` chunks, so that the
    partial Gram matrices a parallel pass holds before its ordered reduction stay within
    ``GRAM_PARTIALS_BYTES``; each chunk is read in cache-sized blocks
    (:meth:`~skdpgd._data._design.ClippedDesign.gram`).
    """
    n_chunks = max(1, min(GRAM_MAX_CHUNKS, GRAM_PARTIALS_BYTES // (8 * dim * dim)))
    return -(-int(n_samples) // n_chunks)


def _chunk_gram(coef, design, y):
    r"""One chunk's :math:`\sum_i \tilde x_i \tilde x_i^\top` (worker side; coef, y unused).

    Every row enters as its clipped value (:meth:`~skdpgd._data._design.ClippedDesign.gram`).
    """
    return design.gram()


class FitData:
    """The validated data of one fit, reachable only as row sums (what solvers use).

    Rows are clipped to ``data_norm`` and the intercept column is appended lazily
    (:class:`~skdpgd._data._design.ClippedDesign`); a dask array is summed block by block
    where it lives (:class:`~skdpgd._data._dask.DaskRowSums`).

    Parameters
    ----------
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
        The validated design.
    y : ndarray of shape (n_samples,)
        The validated targets (packed with weights for a weighted loss).
    data_norm : float
        R, the public clip of the rows.
    intercept_scaling : float or None
        b, the public intercept column (None: no intercept).
    coef_shape : tuple of int, optional
        theta's shape, computed once by the estimator from public numbers (default: one
        output on the augmented design).
    n_jobs : int or None, default=None
        Threads of the row-sum passes.
    """

    def __init__(self, X, y, *, data_norm, intercept_scaling, coef_shape=None, n_jobs=None):
        self.X, self.y = X, y
        self.data_norm, self.intercept_scaling, self.n_jobs = data_norm, intercept_scaling, n_jobs
        self.n_samples = X.shape[0]
        if coef_shape is None:  # one output: the augmented design's width
            coef_shape = (X.shape[1] + int(intercept_scaling is not None),)
        self.coef_shape = tuple(coef_shape)
        self._design = None

    @property
    def design(self):
        """The clipped, intercept-augmented design (built once; in-memory X only)."""
        if self._design is None:
            self._design = ClippedDesign.from_data(
                self.X, self.data_norm, self.intercept_scaling, n_jobs=self.n_jobs
            )
        return self._design

    def row_sums(self, method, row_sets=()):
        """Sums of ``method(coef, rows, y_rows)`` over all rows or over ``row_sets``.

        Parameters
        ----------
        method : callable
            ``method(coef, design_chunk, y_chunk)``, e.g. a loss's ``gradient_sum``.
        row_sets : sequence of index arrays, default=()
            Batches to sum over (empty: all rows).

        Returns
        -------
        row_sums : context manager
            Its ``sum(coef, j)`` is the sum over row set j (or all rows).
        """
        if is_dask_array(self.X):
            return DaskRowSums(
                method, self.X, self.y, max_norm=self.data_norm,
                intercept_scaling=self.intercept_scaling, row_sets=row_sets,
            )
        return ChunkedRowSums(method, self.design, self.y, n_jobs=self.n_jobs, row_sets=row_sets)
