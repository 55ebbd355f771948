"""Sphinx configuration of the skdpgd documentation (built in CI with -W)."""

import os
import re
import sys
from pathlib import Path

import skdpgd

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "skdpgd"
author = "skdpgd developers"
copyright = "skdpgd developers"  # noqa: A001
release = version = skdpgd.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.json"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# numpydoc renames citations of a References section; one cited nowhere in the text is
# harmless, so that warning alone is silenced.
suppress_warnings = ["myst.header", "ref.citation"]
templates_path = ["_templates"]

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}
# CI has no network: intersphinx inventories are optional (no warning when unreachable).
if os.environ.get("SKDPGD_DOCS_OFFLINE", "1") == "1":
    intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": str(DOCS / "auto_examples"),
    "filename_pattern": r"\.py$",  # execute every example, not only plot_*
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "furo"
html_title = f"skdpgd {release}"

#: Pages other engineers add: listed in the index toctree only if present.
OPTIONAL_PAGES = ("privacy_model", "budgets", "ridge_objective", "scaling", "sgd_bounds")


def _optional_pages(app, docname, source):
    """Replace the ``.. optional-pages`` marker in index.rst by the pages that exist."""
    if docname != "index":
        return
    present = [p for p in OPTIONAL_PAGES if (DOCS / f"{p}.md").exists()
               or (DOCS / f"{p}.rst").exists()]
    lines = "\n".join(f"   {page}" for page in present)
    source[0] = source[0].replace("   .. optional-pages", lines)


#: ``|y|`` in plain-text maths of a docstring is a docutils substitution reference.
_ABS = re.compile(r"(?<![`\\|])\|([A-Za-z_][\w]*)\|(?![`|_])")


_SHAPE = re.compile(r"\((\w+)_,\)")


def _escape_abs_bars(app, what, name, obj, options, lines):
    """Escape ``|x|`` (absolute values written in plain text) outside math roles/blocks."""
    for i, line in enumerate(lines):
        if ":math:" not in line and not line.lstrip().startswith(".. math"):
            lines[i] = _ABS.sub(r"\\|\1\\|", line)
        # "shape (n_features_in_,)": a trailing underscore makes docutils see a link.
        lines[i] = _SHAPE.sub(r"(\1\\_,)", lines[i])


def setup(app):
    app.connect("source-read", _optional_pages)
    app.connect("autodoc-process-docstring", _escape_abs_bars)
