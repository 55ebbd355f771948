"""The package version, in a module of its own (the bottom layer: it imports nothing).

``pyproject.toml`` holds the same string statically; ``tests/test_version.py`` checks
that the two agree.
"""

__version__ = "0.1.0.dev0"
