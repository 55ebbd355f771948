"""The repository stands alone: nothing tracked points to files or notes outside it.

Every formula the package relies on is in ``docs/theory.md`` (paper, theorem or
equation at each one); a docstring, test, page or script must cite that page or the
paper, never a design note, a paper copy or an issue tracker beside the repository.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What must not appear in a tracked file. Random seeds ("seed 0", "--seed 0") are fine;
#: the labels of paper copies ("seed 002", "seed ``004``") are not.
FORBIDDEN = {
    "design note": re.compile(r"DESIGN\.md|STYLE\.md"),
    "sibling folder": re.compile(r"\.\./shared|shared/seeds|shared/data"),
    "paper-copy label": re.compile(r"\bseeds? ?`{0,2}00\d"),
    "tracker label": re.compile(r"\b[Ii]ssue \d+\b"),
}

#: Generated result files record the machine's data path; they are data, not references.
EXEMPT = ("benchmarks/results/",)


def _tracked_files():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked-file list is unavailable")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [name for name in out.split("\0") if name and not name.startswith(EXEMPT)]


def _hits():
    hits = []
    for name in _tracked_files():
        path = ROOT / name
        if name == "tests/test_self_contained.py" or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary (compressed data, images)
        for lineno, line in enumerate(text.splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    hits.append(f"{name}:{lineno}: {what}: {line.strip()[:100]}")
    return hits


def test_patterns_catch_what_they_should():
    # The test can fail: each pattern matches the kind of reference it exists to refuse,
    # and leaves random seeds alone.
    assert FORBIDDEN["design note"].search("formulas in DESIGN.md section 3")
    assert FORBIDDEN["design note"].search("workers get no RNG (STYLE.md point 6)")
    assert FORBIDDEN["sibling folder"].search("default ../shared/data")
    assert FORBIDDEN["paper-copy label"].search("ICML 2024 (seed ``002``)")
    assert FORBIDDEN["paper-copy label"].search("(seed 003, Theorem 3.2)")
    assert FORBIDDEN["tracker label"].search("(issue 8)")
    assert not FORBIDDEN["paper-copy label"].search("random seed 0; --seed 0; seeds 0-1")


def test_no_reference_outside_the_repository():
    hits = _hits()
    assert not hits, (
        "references outside the repository (cite docs/theory.md#... or the paper):\n"
        + "\n".join(hits)
    )
