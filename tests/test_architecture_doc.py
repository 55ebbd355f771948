"""docs/architecture.md describes the house as it is.

The layer table must list exactly the entries of ``LAYERS`` (tests/test_import_layers.py),
layer by layer; every file a "how to add" list or the page names exists (placeholders
such as ``_mysolver.py`` aside); and every class, function and hook the lists tell a
contributor to use is named in its section and exists in the code.
"""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _layers():
    """``LAYERS`` of tests/test_import_layers.py (loaded by path: tests is no package)."""
    path = Path(__file__).resolve().parent / "test_import_layers.py"
    spec = importlib.util.spec_from_file_location("_import_layers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAYERS


TEXT = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _section(title):
    """The text of the ``## title`` section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert match, f"docs/architecture.md has no section {title!r}"
    return match.group(1)


def _layer_table():
    """[[module, ...] per row] of the table of "The layers", in row order."""
    rows = []
    for line in _section("The layers").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].isdigit():
            assert int(cells[0]) == len(rows), f"layer rows out of order at {cells[0]}"
            rows.append(re.findall(r"`(skdpgd[\w.]*)`", cells[1]))
    return rows


def test_layer_table_matches_layers():
    assert _layer_table() == _layers()


def _paths():
    """Every repository path the page names in backticks (a file or a folder)."""
    found = set(re.findall(r"`((?:skdpgd|tests|docs|benchmarks|examples)/[\w./-]*)`", TEXT))
    return sorted(p.split("#")[0] for p in found if "/_my" not in p)


@pytest.mark.parametrize("path", _paths())
def test_named_paths_exist(path):
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


def _has(obj, name):
    return hasattr(obj, name) or name in getattr(obj, "__dataclass_fields__", {})


def _how_to_add():
    """(section, object, names the section must mention and the object must have)."""
    from skdpgd import accounting, losses, solvers
    from skdpgd._data import _fused
    from skdpgd.accounting import _margin
    from skdpgd.linear_model._base import BaseDPLinearModel
    from skdpgd.preprocessing._private_step import PrivateStepMixin
    from skdpgd.solvers import _auto

    return [
        ("Adding a solver", solvers, ["Solver", "PublicProblem", "register"]),
        ("Adding a solver", solvers.Solver, ["name", "_plan", "_report", "_run", "_predict",
                                             "plan"]),
        ("Adding a solver", _auto, ["candidates", "TIE_TOLERANCE"]),
        ("Adding a solver", solvers.Solver, ["reports_mu", "plans_in_mu", "supports_inference",
                                             "auto_candidates", "_prediction_run",
                                             "plan_candidates", "calibrate", "second_choice",
                                             "spectral_run", "choice_label", "run_after_gram",
                                             "releases_gram", "gram_settings",
                                             "run_released"]),
        ("Adding an estimator", BaseDPLinearModel, [
            "_fit", "_loss_and_shape", "_public_labels", "_read_targets", "_store_model",
            "_strong_convexity", "_output_scale", "_initial_distance", "_pipeline_releases",
            "_use_pipeline_release", "_pipeline_classes", "_check_in_pipeline",
            "_public_label_set", "_public_target_bound", "_weighs_classes"]),
        ("Adding an estimator", losses.BaseLoss, ["inference_bounds", "inference_rows",
                                                  "inference_loss", "inference_third_bound",
                                                  "inference_targets"]),
        ("Adding a loss", losses, ["BaseLoss"]),
        ("Adding a loss", losses.BaseLoss, ["value_sum", "gradient_sum", "gradient_bound",
                                            "sensitivity", "curvature", "smoothness",
                                            "fused_kernel", "fused_residual_clip"]),
        ("Adding a loss", _fused, ["KERNELS"]),
        ("Adding an event kind", accounting, ["PrivacyEvent", "NeighbouringRelation",
                                              "event_to_dict", "event_from_dict"]),
        ("Adding an event kind", accounting.PrivacyEvent, ["form", "gaussian_dp", "renyi_dp",
                                                           "poisson_runs", "to_dict",
                                                           "from_dict"]),
        ("Adding an accountant", accounting, ["Accountant", "register_accountant", "compose",
                                              "check_supported", "RecordAccount"]),
        ("Adding an accountant", accounting.Accountant, ["name", "source", "priority",
                                                         "_compose_rest",
                                                         "_epsilon", "epsilon", "delta",
                                                         "supports", "compose"]),
        ("Adding an accountant", accounting.PrivacyReport, ["epsilon_at", "delta_at",
                                                            "event", "to_dict", "title",
                                                            "released", "_lines"]),
        ("Adding a private step", PrivateStepMixin, ["_privacy_plan", "_fit_private",
                                                     "__skdpgd_private_fit__", "fit",
                                                     "standalone_budget"]),
        ("Adding a private step", _margin, ["calibrated_mu"]),
        ("Adding a private step", accounting, ["ReleasePrivacyReport"]),
    ]


@pytest.mark.parametrize("section, obj, names", _how_to_add(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_how_to_add_names_exist(section, obj, names):
    text = _section(section)
    for name in names:
        assert re.search(rf"(?<![\w]){re.escape(name)}(?!\w)", text), (
            f"{section!r} does not name {name}")
        assert _has(obj, name), f"{section!r} names {name}, which {obj!r} does not have"


def test_every_registered_accountant_and_event_kind_is_in_the_tables():
    from skdpgd.accounting._accountants._base import _ACCOUNTANTS
    from skdpgd.accounting._events._base import event_kinds

    # skdpgd's own (other tests register toy ones in the same session)
    own = {name: cls for name, cls in {**_ACCOUNTANTS, **event_kinds()}.items()
           if cls.__module__.startswith("skdpgd.")}
    assert len(own) >= 8
    for name, cls in own.items():
        assert f"| ``{name}`` | `{cls.__name__}` |" in TEXT, f"{name} is not in a table"
