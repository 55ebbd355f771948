"""No lint debt: every file passes bugbear (B) and ruff's own rules (RUF).

``ruff check .`` (``.ci/run``) selects B and RUF (pyproject.toml ``[tool.ruff.lint]``).
The files that failed them when they were selected were once listed file by file in an
``extend-per-file-ignores`` table; all are fixed and the table is gone. Here: it stays gone,
no per-file ignore exempts a file from a B or RUF rule, and ruff with the project's
configuration finds nothing of B or RUF anywhere.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
pytest.importorskip("ruff")

ROOT = Path(__file__).resolve().parents[1]
LINT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]


def _is_b_or_ruf(code):
    return code[0] == "B" or code.startswith("RUF")


def test_no_file_is_exempt_from_b_or_ruf():
    assert "extend-per-file-ignores" not in LINT
    assert {"B", "RUF"} <= set(LINT["select"])
    exempt = {path: [c for c in codes if _is_b_or_ruf(c)]
              for path, codes in LINT.get("per-file-ignores", {}).items()
              if any(_is_b_or_ruf(c) for c in codes)}
    assert not exempt, exempt


def test_ruff_finds_nothing_of_b_or_ruf():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", ".", "--output-format", "json",
                           "--exit-zero", "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    found = sorted({(Path(f["filename"]).resolve().relative_to(ROOT).as_posix(), f["code"])
                    for f in json.loads(done.stdout) if _is_b_or_ruf(f["code"])})
    assert not found, found
