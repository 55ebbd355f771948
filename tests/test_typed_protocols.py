"""The typed protocols pass mypy (pyproject.toml ``[tool.mypy]``; ``.ci/run`` runs it too).

The release protocol's allowances, the reports, the solver capabilities and base, the run
components and the pipeline's budget plan are annotated; every function there has types
(``disallow_untyped_defs``), and a module listed must exist.
"""

import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (the config is read, not imported)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_the_typed_modules_exist_and_are_held_to_full_annotation():
    strict = {m for o in CONFIG["overrides"] for m in o["module"] if o.get("disallow_untyped_defs")}
    for path in CONFIG["files"]:
        assert (ROOT / path).is_file(), path
    listed = {p[:-3].replace("/", ".") for p in CONFIG["files"]}
    assert strict <= listed and "skdpgd.accounting.allowance" in strict
    assert "skdpgd.solvers._capabilities" in strict and "skdpgd.accounting._report" in strict


def test_mypy_passes_on_the_typed_protocols():
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
