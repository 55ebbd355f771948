"""The lint debt only shrinks (pyproject.toml ``[tool.ruff.lint.extend-per-file-ignores]``).

``ruff check .`` (``.ci/run``) selects bugbear (B) and ruff's own rules (RUF); the files
that still failed them when they were selected are listed there with the codes they
fail. Here ruff runs with the same configuration but without that list: every listed code
must still be found in its file (a file that passes, or a code fixed, fails this test
until its entry is deleted), and nothing unlisted may fail (``ruff check .`` enforces it).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
pytest.importorskip("ruff")

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]
DEBT = CONFIG["lint"].get("extend-per-file-ignores", {})


def _toml(value):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _findings(tmp_path):
    """{file: {code}} of ``ruff check .`` with the debt list removed."""
    lint = {k: v for k, v in CONFIG["lint"].items() if k != "extend-per-file-ignores"}
    lint["per-file-ignores"] = {str(ROOT / k): v for k, v in lint["per-file-ignores"].items()}
    lines = [f"{k} = {_toml(v)}" for k, v in CONFIG.items() if k != "lint"]
    lines += ["[lint]"] + [f"{k} = {_toml(v)}" for k, v in lint.items()]
    config = tmp_path / "ruff.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", ".", "--config", str(config),
                           "--output-format", "json", "--exit-zero", "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    found = {}
    for finding in json.loads(done.stdout):
        path = Path(finding["filename"]).resolve().relative_to(ROOT).as_posix()
        found.setdefault(path, set()).add(finding["code"])
    return found


def test_every_debt_entry_is_still_needed(tmp_path):
    found = _findings(tmp_path)
    stale = {path: sorted(set(codes) - found.get(path, set()))
             for path, codes in DEBT.items() if set(codes) - found.get(path, set())}
    assert not stale, f"fixed: delete these codes from the lint debt list: {stale}"
    # nothing outside the list fails B or RUF (what `ruff check .` checks, stated here)
    unlisted = {path: sorted(codes - set(DEBT.get(path, ())))
                for path, codes in found.items()
                if {c for c in codes if c[0] == "B" or c.startswith("RUF")}
                - set(DEBT.get(path, ()))}
    assert not unlisted, unlisted
