"""The public surface stays small enough to hold: at most :data:`MAX_PUBLIC_NAMES` names.

What is counted: every name in the ``__all__`` of every public module of skdpgd (a
dotted name none of whose components starts with an underscore, the top level
included). A public module without ``__all__`` exports, by Python's own rule for
``from module import *``, every global whose name does not start with an underscore
(modules aside): those names count as well (``skdpgd.exceptions``' classes), so that
dropping an ``__all__`` does not hide a name from the count.

The one exception is :data:`INTERNAL`: layers that skdpgd's own packages import from
(the noisy loops, the validation helpers, the release protocol, the planners' face of the
accountant), whose docstrings say that they are internal and not API, and which have
no ``__all__`` (the second test checks both). Their names are not counted: they are
what a user of the estimators never calls. The list only shrinks.

Names that left an ``__all__`` stay importable from their module where the layers
above, the tests and the benchmarks need them; they have no API page, and the docs
write them as literals.
"""

import importlib
import inspect
import pkgutil

import skdpgd

#: The most names the ``__all__`` lists of skdpgd's public modules may hold together.
MAX_PUBLIC_NAMES = 120

#: Public modules documented as internal layers (no ``__all__``; not counted).
INTERNAL = (
    "skdpgd.accounting.allowance",
    "skdpgd.accounting.calibration",
    "skdpgd.optim",
    "skdpgd.utils",
)


def public_modules():
    """{dotted name: module} of skdpgd and every module without a private component."""
    modules = {"skdpgd": skdpgd}
    for info in pkgutil.walk_packages(skdpgd.__path__, "skdpgd."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        modules[info.name] = importlib.import_module(info.name)
    return modules


def exported_names(module):
    """The names ``from module import *`` gives: ``__all__``, else every public global."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [name for name, value in vars(module).items()
            if not name.startswith("_") and not inspect.ismodule(value)]


def surface():
    """{module name: exported names} of every counted module."""
    return {name: exported_names(module) for name, module in public_modules().items()
            if name not in INTERNAL}


def test_at_most_max_public_names():
    counts = {name: len(names) for name, names in surface().items()}
    total = sum(counts.values())
    detail = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
    assert total <= MAX_PUBLIC_NAMES, (
        f"{total} public names > {MAX_PUBLIC_NAMES} ({detail}): move the names a user does "
        "not call out of __all__ (they stay importable from their module)"
    )


def test_internal_modules_say_so_and_export_nothing():
    modules = public_modules()
    for name in INTERNAL:
        assert name in modules, f"{name} is no longer a public module: delete it from INTERNAL"
        module = modules[name]
        assert not hasattr(module, "__all__"), f"{name} is internal but has an __all__"
        assert "internal" in (module.__doc__ or "").lower(), (
            f"{name}'s docstring must say that it is an internal layer"
        )


def test_every_exported_name_exists():
    for name, names in surface().items():
        module = importlib.import_module(name)
        missing = [n for n in names if not hasattr(module, n)]
        assert not missing, f"{name}.__all__ lists names it does not define: {missing}"
        assert len(set(names)) == len(names), f"{name}.__all__ lists a name twice"


def test_every_counted_name_has_an_api_page():
    from test_docstrings import _api_entries  # tests/ is on the path (pyproject.toml)

    entries = _api_entries()
    missing = []
    for name, names in surface().items():
        module = importlib.import_module(name)
        for attr in names:
            obj = getattr(module, attr)
            if inspect.ismodule(obj) or attr.startswith("__"):
                continue
            if id(obj) not in entries:
                missing.append(f"{name}.{attr}")
    assert not missing, f"public names without a page in docs/api.rst: {missing}"
