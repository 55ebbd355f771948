"""The data layer: the validated data of a fit, reachable as row sums (not public API).

Design, chunks, passes, Gram and fused kernels on raw arrays, Dask: no loss and no
privacy here (layer 1 of ``docs/architecture.md``; it imports only :mod:`skdpgd.utils`
and :mod:`skdpgd.exceptions`). A loss enters only as the ``method`` of a row sum and by the
name of its fused kernel.
"""

from ._chunks import single_threaded_blas
from ._dask import refuse_dask_table
from ._fit_data import FitData
from ._gram import gram_chunk_rows, gram_sum

__all__ = ["FitData", "gram_chunk_rows", "gram_sum", "refuse_dask_table",
           "single_threaded_blas"]
