"""The compiled recursions of the utility proxy give the numpy reference's floats, bit for bit.

The kernels of :mod:`skdpgd.solvers._proxy_kernels` do the same IEEE operations in the
same order as the numpy reference, so the comparison is exact (``assert_array_equal``,
which also matches NaN to NaN): random coefficients of stable and unstable recursions,
K = 1, momentum 0 (b = 0) and > 0, lam = 0 (a = 1 at g = 0), weights from 1e-300 to
1e300 (huge and tiny noise), overflow to inf and NaN.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from skdpgd.solvers import _proxy_kernels as kernels

numba = pytest.importorskip("numba")  # the kernels run once numba is imported


def test_planning_alone_does_not_start_numba():
    # a new process: a default plan (no fit, no data kernel) runs the numpy path
    code = ("import sys\nfrom skdpgd.solvers import _proxy_kernels as k\n"
            "from skdpgd.solvers._utility import predicted_excess_loss\n"
            "v = predicted_excess_loss(20, 0.1, step=lambda g, s: 1.0, curvature=0.25,\n"
            "    strong_convexity=0.01, n_params=5, n_outputs=1, row_norm=1.0,\n"
            "    initial_distance=1.0, momentum=0.5)\n"
            "print(k.available(), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def _coefficients(rng, shape, momentum):
    r = rng.uniform(0.0, 1.0, shape)
    r[..., 0] = 0.0  # g = 0 without regularisation: a = 1 (lam = 0)
    beta = momentum if np.isscalar(momentum) else momentum[:, None]
    return (1.0 - r) * (1.0 + beta), -(1.0 - r) * beta


@pytest.mark.parametrize("momentum", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("steps", [[1], [1, 2, 50], [7, 23, 45, 100]])
def test_impulse_moments_equal_the_reference(momentum, steps):
    rng = np.random.default_rng(len(steps) + int(10 * momentum))
    a, b = _coefficients(rng, (48, 122), momentum)
    got = kernels.impulse_moments(a, b, steps)
    want = kernels.impulse_moments_reference(a, b, steps)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[0].shape == (len(steps), 48, 122)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning", "ignore:invalid:RuntimeWarning")
def test_impulse_moments_broadcast_and_overflow():
    # a row of b broadcast against a column of a; |a| + |b| > 1 grows to inf, then NaN
    a = np.array([[0.5], [1.9], [3.0], [-2.5]])
    b = np.array([[0.0, -0.3, 0.9, 1e-300]])
    steps = [1, 3, 400, 1500]
    got = kernels.impulse_moments(a, b, steps)
    want = kernels.impulse_moments_reference(a, b, steps)
    assert np.isinf(want[1]).any() and np.isnan(want[0]).any()  # the edge is reached
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def _weights(rng, rows, grid, scale):
    return tuple(scale * rng.uniform(0.0, 1.0, (rows, grid)) for _ in range(3))


@pytest.mark.parametrize("n_steps", [1, 2, 50])
@pytest.mark.parametrize("scale", [1e-300, 1.0, 1e300])
def test_worst_over_spectrum_equals_the_reference(n_steps, scale):
    rng = np.random.default_rng(n_steps)
    momenta = np.array([0.0, 0.0, 0.3, 0.7, 0.9])
    a, b = _coefficients(rng, (5, 122), momenta)
    weights = _weights(rng, 5, 121, scale)
    got = kernels.worst_over_spectrum(a, b, *weights, n_steps)
    want = kernels.worst_over_spectrum_reference(a, b, *weights, n_steps)
    assert got[0].shape == want[0].shape == (n_steps, 5)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning", "ignore:invalid:RuntimeWarning")
def test_worst_over_spectrum_nan_and_inf_as_numpy_max():
    # unstable directions overflow: inf, and inf * 0 weights give NaN, which max returns
    rng = np.random.default_rng(3)
    a = np.concatenate([np.full((3, 1), 1.0), rng.uniform(-3.0, 3.0, (3, 121))], axis=1)
    b = np.full((3, 122), -0.2)
    weight_opt, weight_noise, weight_flat = _weights(rng, 3, 121, 1.0)
    weight_opt[0, 60] = weight_noise[1, 5] = 0.0
    got = kernels.worst_over_spectrum(a, b, weight_opt, weight_noise, weight_flat, 900)
    want = kernels.worst_over_spectrum_reference(a, b, weight_opt, weight_noise,
                                                 weight_flat, 900)
    assert np.isinf(want[0]).any() and np.isnan(want[0]).any() and np.isnan(want[1]).any()
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_disabled_kernels_run_the_reference(monkeypatch):
    rng = np.random.default_rng(5)
    a, b = _coefficients(rng, (4, 10), 0.5)
    compiled = kernels.impulse_moments(a, b, [3, 9])
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert not kernels.available()
    numpy_only = kernels.impulse_moments(a, b, [3, 9])
    np.testing.assert_array_equal(compiled[0], numpy_only[0])
    np.testing.assert_array_equal(compiled[1], numpy_only[1])


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
@pytest.mark.parametrize("seed", range(4))
def test_worst_pair_equals_the_reference(seed):
    # levels with b <= 0 (the fraction dropped), huge and tiny scales, and one NaN level
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-300, 300, 121)
    c, a = scale * rng.uniform(0, 1, 121), scale * rng.uniform(-1, 1, 121)
    b = scale * rng.uniform(-0.1, 1, 121)
    b[:3] = 0.0
    assert kernels.worst_pair(c, a, b) == kernels.worst_pair_reference(c, a, b)
    c[7] = np.nan
    assert np.isnan(kernels.worst_pair(c, a, b))
    assert np.isnan(kernels.worst_pair_reference(c, a, b))


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("seed", range(4))
def test_minimax_kernels_equal_the_reference(seed):
    # several runs (rows) over a 121-level grid: huge and tiny scales, b <= 0 levels,
    # then one NaN (it wins, as in numpy's min and max)
    rng = np.random.default_rng(seed)
    runs, grid = 5, 121
    scale = 10.0 ** rng.uniform(-150, 150, (runs, grid))
    c, a = scale * rng.uniform(0, 1, (runs, grid)), scale * rng.uniform(-1, 1, (runs, grid))
    b = scale * rng.uniform(-0.1, 1, (runs, grid))
    b[:, :3] = 0.0
    extra = rng.uniform(0, 1e-3, runs)
    assert kernels.minimax_pair(c, a, b, extra) == kernels.minimax_pair_reference(c, a, b, extra)
    bias = rng.uniform(0, 1, runs)
    assert (kernels.minimax_sum(bias, c, b, extra)
            == kernels.minimax_sum_reference(bias, c, b, extra))
    # one run: its own worst case
    assert (kernels.minimax_pair(c[:1], a[:1], b[:1], extra[:1])
            == kernels.worst_pair(c[0], a[0], b[0]) + extra[0])
    c[2, 7] = np.nan
    assert np.isnan(kernels.minimax_pair(c, a, b, extra))
    assert np.isnan(kernels.minimax_pair_reference(c, a, b, extra))
    assert np.isnan(kernels.minimax_sum(bias, c, b, extra))
    assert np.isnan(kernels.minimax_sum_reference(bias, c, b, extra))


def test_the_minimax_of_several_runs_is_below_each_runs_worst_case():
    rng = np.random.default_rng(5)
    c, a, b = rng.uniform(0, 1, (3, 3, 40))
    extra = np.zeros(3)
    value = kernels.minimax_pair(c, a, b, extra)
    assert value <= min(kernels.worst_pair(c[r], a[r], b[r]) for r in range(3))
    # brute force over the pairs
    brute = max(min(0.5 * (c[r, i] + c[r, j] - (a[r, i] + a[r, j]) ** 2
                           / (b[r, i] + b[r, j])) for r in range(3))
                for i in range(40) for j in range(40))
    assert value == pytest.approx(brute, rel=1e-12)


def test_second_process_loads_the_kernels_from_the_cache(tmp_path):
    # numba's on-disk cache: a new process compiles nothing (the kernels are module-level
    # functions, found again by their file and line)
    code = textwrap.dedent("""
        import numba
        import numpy as np
        from skdpgd.solvers import _proxy_kernels as k
        assert k.available()
        a = np.full((2, 3), 0.5)
        k.impulse_moments(a, -0.1 * a, [2])
        k.worst_over_spectrum(a, -0.1 * a, a[:, 1:], a[:, 1:], a[:, 1:], 3)
        k.worst_pair(a[0], a[0], a[0])
        stats = [(f.stats.cache_hits.get(s, 0), f.stats.cache_misses.get(s, 0))
                 for f in k._KERNELS for s in f.signatures]
        print(len(stats), sum(h for h, _ in stats), sum(m for _, m in stats))
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env).stdout.split() for _ in range(2)]
    assert runs == [["3", "0", "3"], ["3", "3", "0"]]  # compiled once, then loaded


@pytest.mark.parametrize("steps", [[], [0, 3], [3, 3], [5, 2]])
def test_impulse_moments_refuses_steps_out_of_order(steps):
    with pytest.raises(ValueError, match="increasing"):
        kernels.impulse_moments(np.ones(3), np.zeros(3), steps)
