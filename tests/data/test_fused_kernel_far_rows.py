"""The fused kernel on rows an adversary writes: the products are those of the formula.

The kernel's documented bound per row rests on each entry being multiplied by its row's
power of two :math:`p_i` first, ``u = p x`` (all below 4 in magnitude), and on ``u``
alone entering the dot product and the update. A compiler allowed to reassociate those
products may compute ``x (p\\,r q)`` or ``(x w) p`` instead: ``p\\,r q`` underflows for a
far row (``p = 2^-1022``) with a small residual, and ``x w`` overflows. The first test
makes rows where such a rewrite changes the bits (and an earlier build of the kernel did
rewrite them: zeros where the formula gives ``1e-301``); the second reads the compiled
code for the property itself.
"""

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from skdpgd._data import _fused
from skdpgd._data._design import ClippedDesign

pytest.importorskip("numba")

WIDTHS = [1, 3, 5, 8, 17, 23, 40]  # every part of a vectorised loop: main, epilogue, tail


def _far_row(dtype, d, rng):
    """A finite row with its largest entry at max/2 (p = 2^-1022 for float64, 2^-126
    for float32), its others a mixture of huge, ordinary, tiny and zero entries."""
    big = float(np.finfo(dtype).max)
    tiny = 1e-300 if dtype == np.float64 else 1e-40  # float32: a subnormal
    magnitudes = rng.choice([big / 3, big * 1e-8, 1.0, tiny, 0.0], size=d)
    x = (magnitudes * rng.choice([-1.0, 1.0], d) * rng.uniform(0.5, 1.0, d)).astype(dtype)
    x[0] = dtype(big / 2)
    return x


@pytest.mark.parametrize("kernel", ["clipped_linear", "logistic"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_far_rows_give_the_products_of_the_formula(kernel, dtype):
    rng = np.random.default_rng(7)
    for trial in range(70):
        d = WIDTHS[trial % len(WIDTHS)]
        x = _far_row(dtype, d, rng)
        design = ClippedDesign.from_data(x[None, :], 1.3, None)
        p, q = float(design.pre_scale[0]), float(design.post_scale[0])
        u = x.astype(np.float64) * p  # the pre-scaled row, |u| < 4 (exact but for underflow)
        assert p <= 2.0 ** (-100) and np.max(np.abs(u)) < 4
        w, y = np.zeros(d), 0.0
        if trial % 2 and kernel == "clipped_linear":  # large weights: x w would overflow
            w = rng.choice([-1e300, 1e300, 3.0, 1e-300], size=d) / d
        elif trial % 2:
            w = rng.choice([-1e300, 1e300, 3.0, 1e-300], size=d) / d
            y = 1.0
        elif kernel == "clipped_linear":  # t = 0: a tiny residual r = -y, p r q underflows
            y = float(rng.choice([1e-300, -1e-308, 3e-310, 1e-200]))
        else:  # t in [-700, -600]: sigma(t) ~ 1e-300
            w[0] = -rng.uniform(600.0, 700.0) / (q * u[0])
        clip = math.inf if kernel == "clipped_linear" else 1.0
        g, total_r = _fused.fused_gradient(kernel, clip, x[None, :], design.pre_scale,
                                           design.post_scale, np.array([y]), w, 0.0, 0.0)
        assert np.all(np.isfinite(g)) and np.isfinite(total_r)
        # the residual from t = q (u . w): the dot product is summed in another order
        # (relative rounding ~1e-16 per term of a sum of at most 40, so dt, 1e-12 of the
        # sum of |terms|, is wide); sigma moves by at most sigma(t) dt, exp and the division
        # by a few ulps (1e-14 relative), and sigma(t) - 1 by ~1e-16 absolute
        t = q * float(u @ w)
        dt = 1e-12 * (abs(t) + q * float(np.abs(u) @ np.abs(w)))
        if kernel == "logistic":
            expected, tolerance = expit(t) - y, expit(t) * (dt + 1e-14) + 1e-15 * y
        else:
            expected, tolerance = t - y, dt + 1e-12 * abs(t - y)
        assert abs(total_r - expected) <= tolerance, (trial, total_r, expected)
        # the update: (r q) u, each product rounded once, bit for bit
        np.testing.assert_array_equal(g, (total_r * q) * u, err_msg=f"trial {trial}")


_DEF = re.compile(r"^\s*(%[\w.\-]+) = (\w+) (.*)$")
_ARITHMETIC = {"fmul", "fadd", "fsub", "fdiv", "frem", "fneg", "fpext", "fptrunc", "call"}
_LANES = {"shufflevector", "insertelement", "extractelement"}
_FLAGS = {"reassoc", "contract", "fast", "nnan", "ninf", "nsz", "arcp", "afn"}


def _fast_math_leaks(ir):
    """The fast-math instructions of ``ir`` that read a value computed without flags, and
    the fast-math multiplications that read any computed value (through lane moves: a
    product of the dot product must multiply two loads), and the fast-math instructions."""
    defs = {m.group(1): (m.group(2), m.group(3)) for m in map(_DEF.match, ir.splitlines()) if m}

    def flagged(name):
        return defs[name][0] in _ARITHMETIC and bool(_FLAGS & set(defs[name][1].split()[:4]))

    def computed_source(name, any_flags, seen=()):
        if name not in defs or name in seen:  # an argument, or a cycle
            return None
        op, rest = defs[name]
        if op in _LANES:
            for operand in re.findall(r"%[\w.\-]+", rest):
                found = computed_source(operand, any_flags, (*seen, name))
                if found:
                    return found
            return None
        return name if op in _ARITHMETIC and (any_flags or not flagged(name)) else None

    fast = [name for name in defs if flagged(name)]
    leaks = [(name, source) for name in fast for operand in re.findall(r"%[\w.\-]+", defs[name][1])
             if (source := computed_source(operand, defs[name][0] == "fmul"))]
    return leaks, fast


def test_compiled_kernels_apply_fast_math_to_stored_rows_only(monkeypatch):
    """Compiled afresh (numba's cache holds no IR): every instruction with fast-math flags
    (the dot product) reads loads of the stored row ``u``, never the multiplication by p."""
    monkeypatch.setattr(_fused, "_dot_jit", None)
    kernel, factors, gram, csr_gram = _fused._compile(cache=False)
    for dtype in (np.float64, np.float32):
        X = np.ones((3, 21), dtype)
        kernel(X, np.ones(3), np.ones(3), np.zeros(3), np.ones(21), 0.0, 0.0, 0, 1.0, np.zeros(21))
        bits, magnitude = ((X.view(np.int64), np.int64(2**63 - 1)) if dtype == np.float64
                           else (X.view(np.int32), np.int32(2**31 - 1)))
        factors(X, bits, magnitude, 52, 1022, 0, 3, 100, 1.0, np.empty(3), np.empty(3))
        gram(X, np.ones(3), np.ones(3), 2, _fused._blas_syrk(), np.zeros((21, 21)), np.zeros(21))
    C = sp.csr_matrix(np.ones((3, 21)))
    csr_gram(C.data, C.indices, C.indptr, np.ones(3), np.ones(3), np.zeros((21, 21)),
             np.zeros(21))
    for signature, ir in [*gram.inspect_llvm().items(), *csr_gram.inspect_llvm().items()]:
        # the Gram pass's kernel has no fast-math instruction at all (numpy's rounding)
        assert not _fast_math_leaks(ir)[1], signature
        assert re.search(r"= fmul (<\d+ x )?double", ir), signature
    for compiled in (kernel, factors):
        for signature, ir in compiled.inspect_llvm().items():
            leaks, fast = _fast_math_leaks(ir)
            assert fast, signature  # the dot product is still compiled with fast-math
            assert not leaks, (signature, leaks[:3])
            # the multiplication by p is there, without flags
            assert re.search(r"= fmul (<\d+ x )?double", ir), signature
