"""The data of one fit, reachable only as row sums (what solvers use).

Data access, not solving: the clipped design, the row-sum engine for in-memory or dask
X. The Gram pass is :func:`skdpgd._data._gram.gram_sum` over these row sums.
"""

from ._dask import DaskRowSums, is_dask_array
from ._design import ClippedDesign
from ._gradients import ChunkedRowSums

__all__ = ["FitData"]

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
