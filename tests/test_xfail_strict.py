"""Every expected failure is strict: one that starts passing fails the run.

pyproject.toml sets ``xfail_strict = true`` for pytest, which makes every ``xfail`` mark
strict unless it says ``strict=False`` (scikit-learn's ``expected_failed_checks`` marks
carry a reason but no ``strict``, so the setting covers them). No test may opt out, and
every ``xfail`` mark written in the test tree gives its reason.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pytest_options():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["tool"]["pytest"]["ini_options"]


def test_pyproject_makes_every_xfail_strict():
    assert _pytest_options().get("xfail_strict") is True


def test_the_setting_is_in_force(pytestconfig):
    assert pytestconfig.getini("xfail_strict") is True


def _marks():
    """(file, arguments) of every ``mark.xfail(...)`` in the test tree and the package."""
    found = []
    for folder in ("tests", "skdpgd"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            pattern = r"\bmark\.xfail\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)"
            for match in re.finditer(pattern, text):
                found.append((path.relative_to(ROOT).as_posix(), match.group(1)))
    return found


def test_no_xfail_opts_out_of_strict_and_each_gives_its_reason():
    for where, arguments in _marks():
        assert not re.search(r"strict\s*=\s*False", arguments), where
        assert "reason" in arguments, (where, arguments)


def test_the_search_finds_a_non_strict_mark():
    text = 'pytest.mark.xfail(strict=False, reason="x")'
    arguments = re.search(r"\bmark\.xfail\s*\(([^()]*)\)", text).group(1)
    assert re.search(r"strict\s*=\s*False", arguments)
