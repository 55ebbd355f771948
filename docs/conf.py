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
copyright = "skdpgd developers"
release = version = skdpgd.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 bundled into _static/mathjax: the maths render without a network
    # (air-gapped readers); _check_offline below fails the build if a page loads a CDN.
    "sphinx-mathjax-offline",
    "sphinx.ext.intersphinx",
    "sphinx.ext.extlinks",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "sg_execution_times.rst", "auto_examples/sg_execution_times.rst",
                    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                    "auto_examples/*.json"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# numpydoc renames citations of a References section; one cited nowhere in the text is
# harmless, so that warning alone is silenced.
suppress_warnings = ["myst.header", "ref.citation"]
templates_path = ["_templates"]
# A bare literal block (``::``) is program output or a command's text, never highlighted
# as Python; Python code says so (``.. code-block:: python``, a python fence).
highlight_language = "text"

autosummary_generate = True
autodoc_default_options = {}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Every cross-reference must resolve (CI builds with -W -n). References into other
# projects resolve through intersphinx when it is online; offline (the default, CI has no
# network) they are left as text and only they are exempt.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|pandas|pd|dask|joblib|matplotlib|dp_accounting|"
               r"threadpoolctl|sqlite3|os|pathlib|collections|enum|typing)(\..*)?"),
    (r"py:.*", r"(ndarray|array-like|array_like|sparse matrix|callable|optional|default|"
               r"Generator|RandomState|DataFrame|Series|Bunch|Axes|Figure|path-like|"
               r"file-like|scalar|dtype|int|float|str|bool|dict|list|tuple|None|object|"
               r"iterable|Iterable|Sequence|Mapping|sequence|mapping|Enum|"
               r"UserWarning|ValueError|RuntimeError|TypeError|ImportError|Exception)"),
]

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
    # the execution-times pages load jQuery and DataTables from a CDN: not offline
    "write_computation_times": False,
    # API pages list the examples that use them (the minigallery in
    # _templates/autosummary/class.rst reads these files).
    "doc_module": ("skdpgd",),
    "backreferences_dir": "generated/backreferences",
}

html_theme = "furo"
html_title = f"skdpgd {release}"
# docs/_static/custom.css: literal blocks scroll sideways instead of being cut off.
html_static_path = ["_static"]
html_css_files = ["custom.css"]

#: Where the source repository's files are browsed. Every mention of a file that is not a
#: page of this site (a test, a benchmark, a module) is written with the ``repo`` role,
#: ``{repo}`tests/losses/test_gradients_and_constants.py``` in Markdown or
# ``:repo:`tests/losses/test_gradients_and_constants.py``` in : reStructuredText and docstrings, and
# links to SOURCE_URL + path; set it here, once.
SOURCE_URL = os.environ.get("SKDPGD_SOURCE_URL",
                            "https://github.com/skdpgd/skdpgd/blob/main/")
extlinks = {"repo": (SOURCE_URL + "%s", "%s")}

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


#: Internal helpers that docstrings mention by name but that have no API page (they are
#: not in any public ``__all__``); a reference to them renders as plain text.
UNDOCUMENTED_INTERNALS = (
    "search_noise", "check_sgd_epsilon", "pld_discretization", "STEP_FRACTIONS",
    "MAX_CANDIDATE_THRESHOLDS", "SELECTION_CONFIDENCE",
    # importable from a public module but outside its __all__ (tests/test_public_surface.py)
    "PipelineBudget", "split_budget", "BooleanEncoding", "CategoricalEncoding",
    "DEFAULT_MISSING_STRINGS", "NumericEncoding", "StepBudget", "check_allowance", "is_missing",
    "ADULT_ROW_SCALE", "best_of_random_trials_rdp", "calibrate_trial_mu", "expected_trials",
    "gamma_for_expected_trials", "planned_report", "sample_trials", "selection_rdp",
    "ThresholdTest", "clopper_pearson", "default_statistic", "epsilon_from_counts",
    "epsilon_from_scores", "gdp_tradeoff", "AutoSolver", "CyclicSolver", "PreconditionedSolver",
    "SampledSolver", "NoisyCyclicGDPlan", "PreconditionedGDPlan", "SampledSGDPlan",
    "batch_heterogeneity", "optimisation_error", "plan_noisy_cyclic_gd",
    "plan_noisy_cyclic_gd_regularization", "plan_sampled_sgd", "sgd_sampling_variance",
    "sgd_utility_proxy", "utility_proxy", "concentrated_initial_distance", "DROPPED_NOTE",
    "INFERENCE_SHARES", "SUPPORTED_SOLVERS", "InferenceBudget", "check_identifiable",
    "check_solver", "coefficient_covariance", "compose_report", "curvature_and_residual_bounds",
    "dropped_note", "fit_budget", "impulse_responses", "infer", "inference_report",
    "inference_shares", "matrix_sensitivity", "optimizer_noise", "public_noise_ratio",
    "release_at", "row_weights_and_residuals", "split_inference_budget", "DEFAULT_ORDERS",
    "preconditioned_gd_report", "gram_then_run_report", "gram_then_run_mu",
    "calibrate_run_after_gram", "contraction_factor", "convergent_cyclic_factor",
    "convergent_gd_factor", "convex_cyclic_squares", "convex_gd_burn_in", "convex_gd_squares",
    "cyclic_batch_sizes", "noisy_cyclic_gd_report", "noisy_gd_report", "calibrate_poisson_sgd",
    "composed_replace_one_epsilon", "poisson_sgd_epsilon", "sampled_sgd_report", "Cap",
    "RecordAccount", "check_supported",
)
nitpick_ignore_regex += [
    # private modules and functions (a leading underscore somewhere in the dotted path)
    (r"py:.*", r"(.*\.)?_\w+(\..*)?"),
    (r"py:.*", r"skdpgd\.(optim|linear_model|utils)(\..*)?"),  # internal layers, no pages
    (r"py:.*", r"skdpgd\.accounting\.(calibration|allowance)(\..*)?"),
    (r"py:.*", r"(.*\.)?(" + "|".join(UNDOCUMENTED_INTERNALS) + r")(\..*)?"),
    # :attr:`delta` inside a class docstring: an entry of its numpydoc Attributes section,
    # which numpydoc renders as a list rather than as link targets.
    (r"py:attr", r"\w+"),
]


#: Inherited scikit-learn methods a class page shows (the estimator API a user calls);
#: kept in sync with docs/_templates/autosummary/class.rst.
SKLEARN_API = {
    "fit", "fit_transform", "transform", "inverse_transform", "predict", "predict_proba",
    "predict_log_proba", "decision_function", "score", "get_feature_names_out",
}


def _skip_member(app, what, name, obj, skip, options):
    """On class pages keep skdpgd's own members and the estimator API inherited from
    scikit-learn; leave out get/set_params, set_output, the generated metadata-routing
    methods (set_*_request) and members inherited from builtins (their docstrings
    reference other projects' documentation)."""
    if what != "class" or name in SKLEARN_API:
        return None
    module = getattr(obj, "__module__", None) or ""
    if (name.startswith("set_") and name.endswith("_request")) or name in {
        "get_params", "set_params", "set_output", "get_metadata_routing",
    }:
        return True
    if callable(obj) and not module.startswith("skdpgd"):
        return True
    return None


def _resolve_short_name(app, env, node, contnode):
    """Resolve a Python reference by its last component when exactly one skdpgd page has it.

    Docstrings say :class:`PrivacyReport` inside ``skdpgd.accounting._report`` and mean
    the documented ``skdpgd.PrivacyReport``: re-exported names live under their public path.
    """
    from sphinx.util.nodes import make_refnode

    if node.get("refdomain") != "py":
        return None
    short = node["reftarget"].rsplit(".", 1)[-1]
    domain = env.get_domain("py")
    hits = [(name, entry) for name, entry in domain.objects.items()
            if name.startswith("skdpgd") and name.rsplit(".", 1)[-1] == short
            and not entry.aliased]
    if len(hits) != 1:
        return None
    name, entry = hits[0]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name)


_FOREIGN_ROLE = re.compile(r":(ref|term|doc):`([^`<]*?)\s*(?:<([^>]*)>)?`")


def _foreign_roles_as_text(app, what, name, obj, options, lines):
    """Inherited scikit-learn docstrings cite labels of scikit-learn's own site: keep the text."""
    if not (getattr(obj, "__module__", None) or "").startswith("sklearn"):
        return
    for i, line in enumerate(lines):
        lines[i] = _FOREIGN_ROLE.sub(lambda m: m.group(2) or m.group(3), line)


def _constant_doc(app, what, name, obj, options, lines):
    """A re-exported constant gets the ``#:`` comment of the module that defines it."""
    if what != "data":
        return
    from sphinx.pycode import ModuleAnalyzer

    attr = name.rsplit(".", 1)[-1]
    for modname in sorted(sys.modules):
        module = sys.modules[modname]
        if not modname.startswith("skdpgd") or getattr(module, attr, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # no source: try the next module
            continue
        if ("", attr) in docs:
            lines[:] = list(docs[("", attr)])
            return
    if type(obj).__doc__ and "\n".join(lines).strip() == (type(obj).__doc__ or "").strip():
        lines[:] = []


def _check_offline(app, exception):
    """Fail the build if a page loads a script or style sheet from the network."""
    if exception is not None or app.builder.format != "html":
        return
    remote = re.compile(r"""<(?:script|link)[^>]+(?:src|href)=["']https?://""")
    offenders = sorted(
        str(page.relative_to(app.outdir))
        for page in Path(app.outdir).rglob("*.html")
        if remote.search(page.read_text(encoding="utf-8", errors="replace"))
    )
    if offenders:
        raise RuntimeError(f"pages load remote scripts (not readable offline): {offenders[:5]}")


def setup(app):
    app.connect("build-finished", _check_offline)
    app.connect("source-read", _optional_pages)
    app.connect("autodoc-process-docstring", _escape_abs_bars)
    app.connect("autodoc-process-docstring", _constant_doc)
    app.connect("autodoc-process-docstring", _foreign_roles_as_text)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _resolve_short_name)
