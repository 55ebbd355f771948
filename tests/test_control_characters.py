"""No tracked text file holds an ASCII control character other than tab and newline.

A string written through a non-raw Python literal turns ``\\b`` into a backspace and
``\\f`` into a form feed: ``\\beta`` in a page's maths became a backspace and ``eta``, which
renders as nothing a reader can see. This catches it in every page, docstring and script.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = (".py", ".md", ".rst", ".toml", ".cfg", ".txt", ".yml", ".yaml", ".sh")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _tracked_text_files():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked-file list is unavailable")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                         check=True).stdout.decode()
    return [name for name in out.split("\0") if name.endswith(TEXT)]


def test_the_pattern_catches_a_backspace_and_passes_tabs_and_newlines():
    assert CONTROL.search("reads $\x08eta$")
    assert CONTROL.search("a form\x0cfeed")
    assert not CONTROL.search("a\ttab, a newline\n and \r\n line ends")


def test_no_tracked_text_file_holds_a_control_character():
    hits = []
    for name in _tracked_text_files():
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if CONTROL.search(line):
                hits.append(f"{name}:{number}: {line[:60]!r}")
    assert not hits, "control characters:\n" + "\n".join(hits)
