"""Make the independent references in ``_exact_reference.py`` importable from the tests here,
whatever pytest import mode is used (the directory is deliberately not a package)."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
