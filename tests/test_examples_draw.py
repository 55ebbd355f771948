"""Every gallery example draws a figure, so that its thumbnail is a real figure.

sphinx-gallery takes the thumbnail from the first figure an example draws and shows a
placeholder when it draws none. Read statically (the examples take seconds to minutes to
run; the documentation build runs them): an example draws when it calls
``plt.subplots``/``plt.figure``/``plt.plot``/... or a ``plot``/``plot_*`` function or
method (an estimator's ``.plot()``, ``plot_privacy_utility_curve``).
"""

import ast
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
PYPLOT_DRAWERS = {"subplots", "figure", "plot", "bar", "barh", "scatter", "imshow", "hist"}


def _draws(source):
    """Whether the module ``source`` calls a matplotlib drawing function or a plot method."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = func.value.id if (isinstance(func, ast.Attribute)
                                  and isinstance(func.value, ast.Name)) else None
        if owner == "plt" and name in PYPLOT_DRAWERS:
            return True
        if name == "plot" or name.startswith("plot_"):
            return True
    return False


def test_examples_exist():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_draws_a_figure(path):
    assert _draws(path.read_text(encoding="utf-8")), (
        f"examples/{path.name} draws no figure: its gallery thumbnail is the placeholder")


def test_detector_tells_drawing_from_printing():
    assert _draws("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()")
    assert _draws("curve.plot(ax=ax)")
    assert _draws("plot_privacy_utility_curve(est, X, y)")
    assert not _draws("print(model.privacy_)\nplt = None")
    assert not _draws("import matplotlib.pyplot as plt\nplt.show()")
