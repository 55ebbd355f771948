r"""The Gram pass: :math:`\sum_i \tilde x_i \tilde x_i^\top` of the clipped design, chunk by chunk.

One implementation: each chunk is a :class:`~skdpgd._data._design.ClippedDesign`, whose
:meth:`~skdpgd._data._design.ClippedDesign.gram` builds its clipped rows
:math:`q_i (p_i x_i)` in float64 block by block (every row through the same operations);
the chunks are summed by the fit's row sums (:class:`~skdpgd._data._gradients.ChunkedRowSums`
or :class:`~skdpgd._data._dask.DaskRowSums`), on data already placed for the gradient
passes, in chunk order, and the sum is symmetrised once here.

No randomness and no privacy here: the Gaussian release of the matrix, and its
sensitivity, are :mod:`skdpgd.optim._gram_release`'s.
"""

import numpy as np

__all__ = ["GRAM_MAX_CHUNKS", "GRAM_PARTIALS_BYTES", "chunk_gram", "gram_chunk_rows", "gram_sum"]

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


def chunk_gram(coef, design, y):
    r"""One chunk's :math:`\sum_i \tilde x_i \tilde x_i^\top` (worker side; coef, y unused).

    Every row enters as its clipped value (:meth:`~skdpgd._data._design.ClippedDesign.gram`),
    which scales the rows itself, block by block: the row sums hand it the chunk as is
    (:data:`scales_its_rows`), so each row is copied once.
    """
    return design.gram()


#: The row sums pass the chunk to :func:`chunk_gram` without a pre-scaled copy.
chunk_gram.scales_its_rows = True


def gram_sum(row_sums, n_samples, dim, *, chunk_size=None):
    r""":math:`\sum_i \tilde x_i \tilde x_i^\top` over all rows of an open row-sum engine.

    Parameters
    ----------
    row_sums : ChunkedRowSums or DaskRowSums
        The fit's row sums, entered (``with``); the pass runs on their placed data.
    n_samples, dim : int
        n and the width p of the clipped, intercept-augmented design (public).
    chunk_size : int, optional
        Rows per chunk (default :func:`gram_chunk_rows`; ignored by a dask engine).

    Returns
    -------
    gram : ndarray of shape (p, p), float64, exactly symmetric
        Not divided by n; bit-identical for every ``n_jobs``.
    """
    if chunk_size is None:
        chunk_size = gram_chunk_rows(n_samples, dim)
    gram = np.asarray(
        row_sums.sum(np.zeros(dim), method=chunk_gram, chunk_size=chunk_size), dtype=np.float64
    )
    return 0.5 * (gram + gram.T)  # exact symmetry, once (each partial is, up to rounding)
