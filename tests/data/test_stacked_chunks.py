"""Kept CSR chunks stacked: a row-wise loss's gradient over all chunks in two products,
the same sums bit for bit as chunk by chunk."""

import numpy as np
import pytest
from _sparse_designs import sparse_design  # tests/_sparse_designs.py

from skdpgd._data import _gradients
from skdpgd._data._stacked import StackedChunks, stacks
from skdpgd.losses import (
    BinaryLogisticLoss,
    HuberLoss,
    MultinomialLogisticLoss,
    SquaredLoss,
    WeightedLoss,
)


def _loss(name, n, rng):
    if name == "binary":
        return BinaryLogisticLoss(), rng.integers(0, 2, n).astype(float)
    if name == "clipped binary":
        return BinaryLogisticLoss(residual_clip=0.3), rng.integers(0, 2, n).astype(float)
    if name == "multinomial":
        return MultinomialLogisticLoss(4), rng.integers(0, 4, n)
    if name == "huber":
        return HuberLoss(0.5), rng.normal(size=n)
    if name == "squared":
        return SquaredLoss(), rng.normal(size=n)
    loss = WeightedLoss(BinaryLogisticLoss(), 3.0)  # weighted
    return loss, loss.pack(rng.integers(0, 2, n).astype(float), rng.uniform(0, 3, n))


LOSSES = ["binary", "clipped binary", "multinomial", "huber", "squared", "weighted"]


def _coef(loss, d, rng):
    shape = (d,) if loss.n_outputs == 1 else (loss.n_outputs, d)
    return rng.standard_normal(shape) * 0.3


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("intercept", [True, False])
def test_stacked_sums_are_the_chunk_by_chunk_sums_bit_for_bit(name, dtype, intercept,
                                                              monkeypatch):
    rng = np.random.default_rng(3)
    design = sparse_design(dtype, intercept)
    n = design.shape[0]
    loss, y = _loss(name, n, rng)
    coefs = [_coef(loss, design.shape[1], rng) for _ in range(3)]
    batches = [np.sort(part) for part in np.array_split(rng.permutation(n), 3)]
    assert stacks(loss.gradient_sum)

    def sums(stacked):
        with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=300,
                                       row_sets=batches) as engine:
            if not stacked:  # chunk by chunk, as before the stacking
                monkeypatch.setattr(_gradients, "stacks", lambda method, chunks=None: False)
            got = [engine.sum(c) for c in coefs]  # the whole pass (the engine's chunks)
            got += [engine.sum(c, j) for c in coefs for j in range(3)]  # the batches
            return got, len(engine._stacked)

    stacked, n_stacked = sums(True)
    apart, n_apart = sums(False)
    assert (n_stacked, n_apart) == (4, 0)  # the pass and the three batches, each stacked once
    for a, b in zip(stacked, apart, strict=True):
        assert a.shape == b.shape and a.dtype == np.float64
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["binary", "multinomial"])
def test_stacked_sums_are_those_of_two_jobs(name):
    # two jobs sum the same chunks apart, on threads, in chunk order
    rng = np.random.default_rng(5)
    design = sparse_design(np.float64, True, seed=4)
    loss, y = _loss(name, design.shape[0], rng)
    coef = _coef(loss, design.shape[1], rng)
    got = {}
    for n_jobs in (1, 2):
        with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, n_jobs=n_jobs,
                                       chunk_size=300) as engine:
            got[n_jobs] = engine.sum(coef)
            assert bool(engine._stacked) == (n_jobs == 1)
    np.testing.assert_array_equal(got[1], got[2])


def test_only_a_declared_row_wise_gradient_is_stacked():
    class OwnSum(BinaryLogisticLoss):  # overrides the sum without declaring it row-wise
        def gradient_sum(self, coef, X, y, sample_weight=None):
            return super().gradient_sum(coef, X, y, sample_weight)

    assert stacks(BinaryLogisticLoss().gradient_sum)
    assert not stacks(OwnSum().gradient_sum)
    assert not stacks(BinaryLogisticLoss().value_sum)  # a sum of losses: not a product
    assert not stacks(lambda coef, X, y: X.T @ (X @ coef))
    design = sparse_design(np.float64, True)
    y = np.random.default_rng(0).integers(0, 2, design.shape[0]).astype(float)
    with _gradients.ChunkedRowSums(OwnSum().gradient_sum, design, y,
                                   chunk_size=300) as engine:
        engine.sum(np.zeros(design.shape[1]))
        assert engine._kept and not engine._stacked  # kept, summed chunk by chunk


def test_value_sums_after_a_stacked_gradient_read_the_same_chunks():
    # the kept chunks become views of the stacked arrays: the same rows and values
    rng = np.random.default_rng(8)
    design = sparse_design(np.float64, True)
    loss, y = _loss("binary", design.shape[0], rng)
    coef = _coef(loss, design.shape[1], rng)
    with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=300) as engine:
        engine.sum(coef)
        kept = engine.sum(coef, method=loss.value_sum)
    with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=300) as engine:
        engine._keeps_sparse_chunks = lambda method: False
        fresh = engine.sum(coef, method=loss.value_sum)
    np.testing.assert_array_equal(kept, fresh)


def test_stacked_design_refuses_what_it_does_not_stack():
    design = sparse_design(np.float64, True)
    chunks = [(design[a:a + 500].prescaled(), None) for a in range(0, 1000, 500)]
    assert not stacks(BinaryLogisticLoss().gradient_sum, chunks[:1])  # one chunk: as it is
    raw = [(design[a:a + 500], None) for a in range(0, 1000, 500)]  # rows not pre-scaled
    assert not stacks(BinaryLogisticLoss().gradient_sum, raw)
    other = sparse_design(np.float64, False)
    mixed = [*chunks[:1], (other[0:500].prescaled(), None)]  # two intercept scalings
    assert not stacks(BinaryLogisticLoss().gradient_sum, mixed)
    stacked = StackedChunks([(X, np.zeros(500)) for X, _ in chunks])
    assert stacked.shape == (1000, design.shape[1]) and len(stacked) == 1000


def test_wide_designs_are_summed_chunk_by_chunk(monkeypatch):
    # chunks x d x outputs values of output, a function of the shape only: above the cap
    # (a million hashed features in chunks of 64 rows would need gigabytes) the sums go
    # chunk by chunk, with the same result
    from skdpgd._data import _stacked

    rng = np.random.default_rng(9)
    design = sparse_design(np.float64, True)
    loss, y = _loss("multinomial", design.shape[0], rng)
    coef = _coef(loss, design.shape[1], rng)
    chunks = [(design[a:a + 300].prescaled(), None) for a in range(0, 2400, 300)]
    needed = 8 * len(chunks) * 23 * loss.n_outputs
    monkeypatch.setattr(_stacked, "MAX_BLOCK_BYTES", needed)
    assert stacks(loss.gradient_sum, chunks)
    monkeypatch.setattr(_stacked, "MAX_BLOCK_BYTES", needed - 1)
    assert not stacks(loss.gradient_sum, chunks)
    with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=300) as engine:
        capped = engine.sum(coef)
        assert engine._kept and not engine._stacked
    monkeypatch.setattr(_stacked, "MAX_BLOCK_BYTES", 2**30)
    with _gradients.ChunkedRowSums(loss.gradient_sum, design, y, chunk_size=300) as engine:
        np.testing.assert_array_equal(engine.sum(coef), capped)
        assert engine._stacked


def test_a_later_method_with_more_outputs_is_capped_too(monkeypatch):
    # the stacked chunks were built for a one-output loss; a multinomial gradient over the
    # same chunks whose block output would pass the cap goes chunk by chunk
    from skdpgd._data import _stacked

    rng = np.random.default_rng(4)
    design = sparse_design(np.float64, True)
    y = rng.integers(0, 4, design.shape[0])
    binary, multinomial = BinaryLogisticLoss(), MultinomialLogisticLoss(4)
    n_chunks = len(range(0, design.shape[0], 300))
    monkeypatch.setattr(_stacked, "MAX_BLOCK_BYTES", 8 * n_chunks * 23 * 2)  # 1 fits, 4 not
    coef = _coef(multinomial, design.shape[1], rng)
    with _gradients.ChunkedRowSums(binary.gradient_sum, design, (y > 1).astype(float),
                                   chunk_size=300) as engine:
        engine.sum(_coef(binary, design.shape[1], rng))
        stacked = next(iter(engine._stacked.values()))
        assert stacked.takes(binary.gradient_sum)
        assert not stacked.takes(multinomial.gradient_sum)
    with _gradients.ChunkedRowSums(multinomial.gradient_sum, design, y,
                                   chunk_size=300) as engine:
        capped = engine.sum(coef)
        assert not engine._stacked
    monkeypatch.setattr(_stacked, "MAX_BLOCK_BYTES", 2**30)
    with _gradients.ChunkedRowSums(multinomial.gradient_sum, design, y,
                                   chunk_size=300) as engine:
        np.testing.assert_array_equal(engine.sum(coef), capped)
