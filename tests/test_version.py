"""The version is held once in skdpgd/_version.py; pyproject.toml's static copy agrees."""

import re
from pathlib import Path

import skdpgd
from skdpgd._version import __version__

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _pyproject_version():
    text = PYPROJECT.read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]  # the [project] table only
    match = re.search(r'^version\s*=\s*"([^"]+)"\s*$', project, flags=re.MULTILINE)
    assert match, "pyproject.toml's [project] table has no static version"
    return match.group(1)


def test_pyproject_and_module_agree():
    assert _pyproject_version() == __version__


def test_package_exports_the_module_version():
    assert skdpgd.__version__ is __version__
