"""Start-up of the command line and of the compiled kernels.

``skdpgd --version`` imports nothing heavy; ``skdpgd predict`` imports neither the audit
module nor numba nor the model-selection layer; a new process finds the kernels numba
compiled in an earlier one (its on-disk cache), so its first fit compiles nothing.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

HEAVY = ("pandas", "scipy", "numba", "sklearn", "skdpgd.audit", "skdpgd.accounting",
         "skdpgd.solvers", "joblib")


def _modules_after(code, env=None):
    """The top-level module names a fresh interpreter holds after running ``code``."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_version_imports_nothing_heavy():
    code = ("from skdpgd._cli import main\ntry:\n    main(['--version'])\n"
            "except SystemExit:\n    pass")
    loaded = _modules_after(code)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert heavy == []


def test_public_names_still_import():
    import skdpgd

    assert skdpgd.DPRidge.__name__ == "DPRidge"
    assert skdpgd.audit.__name__ == "skdpgd.audit"
    assert set(skdpgd.__all__) <= set(dir(skdpgd))
    with pytest.raises(AttributeError):
        _ = skdpgd.not_a_name


def test_predict_does_not_import_audit_numba_or_searches(tmp_path):
    import numpy as np

    from skdpgd._cli import main

    rng = np.random.default_rng(0)
    lines = ["a,b,y"] + [f"{x:.3f},{z:.3f},{int(x > 0)}" for x, z in rng.normal(size=(300, 2))]
    data = tmp_path / "t.csv"
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.joblib"
    assert main(["fit", str(data), "--target", "y", "--classes", "0,1", "--epsilon", "4",
                 "--random-state", "0", "--output", str(model)]) == 0
    code = (f"from skdpgd._cli import main\nimport contextlib, io\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['predict', {str(model)!r}, {str(data)!r}]) == 0")
    loaded = _modules_after(code)
    for name in ("skdpgd.audit", "numba", "skdpgd.model_selection", "matplotlib"):
        assert name not in loaded


def test_second_process_loads_the_compiled_kernels_from_the_cache(tmp_path):
    pytest.importorskip("numba")
    code = textwrap.dedent("""
        import numpy as np
        from skdpgd._data import _fused
        assert _fused.available()
        kernels = _fused._KERNELS
        kernel, factors, gram, csr_gram = kernels
        X = np.ones((4, 3)); pre = np.ones(4); sq = np.ones(4)
        factors(X, X.view(np.int64), np.int64(2**63 - 1), 52, 1022, 0, 4, 10, 1.0, pre, sq)
        kernel(X, pre, np.ones(4), np.zeros(4), np.zeros(3), 1.0, 0.5, 0, 1.0, np.zeros(3))
        gram(X, pre, sq, 2, _fused._blas_syrk(), np.zeros((3, 3)), np.zeros(3))
        C = __import__("scipy.sparse").sparse.csr_matrix(X)
        csr_gram(C.data, C.indices, C.indptr, pre, sq, np.zeros((3, 3)), np.zeros(3))
        print(sum(f.stats.cache_hits.get(s, 0) for f in kernels for s in f.signatures),
              sum(f.stats.cache_misses.get(s, 0) for f in kernels for s in f.signatures))
    """)
    # a cache directory of its own: what numba uses when the package dir is read-only
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env).stdout.split()
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env).stdout.split()
    assert first == ["0", "4"]  # compiled (and written) by the first process
    assert second == ["4", "0"]  # found on disk by the second: nothing compiled
