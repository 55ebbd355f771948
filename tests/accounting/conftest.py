"""Make the independent references importable from the tests here, whatever pytest import
mode is used (the directories are deliberately not packages): ``_exact_reference.py`` of
this directory and ``tests/_gd_reference.py``."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (_HERE, os.path.dirname(_HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)
