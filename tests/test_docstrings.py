"""The API reference is complete and the public docstrings pass numpydoc's validation.

As skglm does (``skglm/tests/test_docstring_parameters.py``): every public class,
function and method is run through :func:`numpydoc.validate.validate`, and the checks
below must pass. Objects still to be fixed are listed in ``EXCLUDED`` with their error
codes; an excluded object that passes fails the test, so the list only shrinks.
"""

import dataclasses
import enum
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Public modules whose ``__all__`` (or, without one, whose own classes) form the API.
PUBLIC_MODULES = (
    "skdpgd", "skdpgd.preprocessing", "skdpgd.datasets", "skdpgd.model_selection",
    "skdpgd.accounting", "skdpgd.audit", "skdpgd.losses", "skdpgd.exceptions", "skdpgd.pipeline",
    "skdpgd.solvers", "skdpgd.inference",
)

#: numpydoc checks enforced: a docstring exists, its sections are known and in order,
#: every parameter is documented with a type and a description, nothing undocumented is
#: listed, and whatever is returned or yielded is documented and described.
CHECKS = {"GL08", "GL06", "GL07", "PR01", "PR02", "PR03", "PR04", "PR07", "RT01", "RT03",
          "YD01"}

#: Docstrings still to be completed (object -> the codes it fails today). Fix the
#: docstring, then delete its line here. Empty: every public name passes.
EXCLUDED = {}


def _public_objects():
    """(dotted name, object) of every public class and function, re-exports once."""
    seen, out = set(), []
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        names = getattr(module, "__all__", None) or [
            name for name, obj in vars(module).items()
            if inspect.isclass(obj) and obj.__module__ == modname
        ]
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or name.startswith("__") or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((f"{modname}.{name}", obj))
    return out


def _api_entries():
    """{object id: dotted name} of every entry of an autosummary table in docs/api.rst."""
    entries, module = {}, None
    for line in (ROOT / "docs" / "api.rst").read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = importlib.import_module(line.split("::")[1].strip())
        elif module is not None and re.fullmatch(r"   [A-Za-z_]\w*", line):
            name = line.strip()
            obj = getattr(module, name, None)
            assert obj is not None, f"docs/api.rst lists {module.__name__}.{name}, which does not exist"
            entries[id(obj)] = f"{module.__name__}.{name}"
    return entries


def test_every_public_name_has_an_api_page():
    entries = _api_entries()
    missing = [name for name, obj in _public_objects() if id(obj) not in entries]
    assert not missing, (
        "public names without a page: add them to an autosummary table in docs/api.rst: "
        + ", ".join(missing)
    )


def _validated_names():
    """Every public function and class, and every public method or property a public class
    defines or inherits from a private skdpgd base (a mixin without a page of its own: its
    methods are read on the public class's page); each definition once."""
    public = _public_objects()
    public_ids = {id(obj) for _, obj in public}
    seen = set()
    for name, obj in public:
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue  # constants: documented by their #: comment
        yield name
        if not inspect.isclass(obj):
            continue
        members = {}
        for cls in reversed(obj.__mro__):  # the most derived definition wins
            if cls is obj or (cls.__module__.startswith("skdpgd") and id(cls) not in public_ids):
                members.update(vars(cls))
            else:
                members = {key: value for key, value in members.items() if key not in vars(cls)}
        for member, value in members.items():
            if member.startswith("_") or id(value) in seen:
                continue
            if inspect.isfunction(value) or isinstance(
                value, (property, classmethod, staticmethod)
            ):
                seen.add(id(value))
                yield f"{name}.{member}"


def _attributes_documented(obj, message):
    """True when PR01 only names fields documented under Attributes (dataclasses)."""
    from numpydoc.docscrape import ClassDoc

    if not (inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or hasattr(obj, "_fields"))):
        return False
    documented = set()
    for cls in obj.__mro__:  # a dataclass subclass documents its new fields only
        if cls.__module__.startswith("skdpgd") and cls.__doc__:
            for item in ClassDoc(cls)["Attributes"]:
                documented.update(part.strip() for part in item.name.split(","))
    missing = set(re.findall(r"'(\w+)'", message))
    return missing <= documented


def _undocumented_members(cls):
    """Names of an Enum's members (aliases included) missing from its Attributes section."""
    from numpydoc.docscrape import ClassDoc

    documented = set()
    for item in ClassDoc(cls)["Attributes"]:
        documented.update(part.strip() for part in item.name.split(","))
    return set(cls.__members__) - documented


def _errors(name):
    from numpydoc.validate import validate

    result = validate(name)
    obj = _resolve(name)
    is_enum = inspect.isclass(obj) and issubclass(obj, enum.Enum)
    codes = set()
    for code, message in result["errors"]:
        if code not in CHECKS:
            continue
        if code == "PR01" and _attributes_documented(obj, message):
            continue
        # An Enum's "parameters", as numpydoc reads them, are those of its metaclass's
        # __call__ (value, names, module, qualname, type, start, boundary: the functional
        # API that looks members up or builds a new Enum), not anything the class defines.
        # What a reader of an Enum needs instead is every member documented, checked below.
        if code == "PR01" and is_enum:
            continue
        codes.add(code)
    if is_enum and _undocumented_members(obj):
        codes.add("members not under Attributes")
    return codes


def _resolve(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(name)


@pytest.mark.parametrize("name", list(_validated_names()))
def test_docstring(name):
    pytest.importorskip("numpydoc", reason="numpydoc is in the test extra")
    codes = _errors(name)
    if name in EXCLUDED:
        assert codes, f"{name} now passes: delete its line from EXCLUDED"
        return
    assert not codes, f"{name}: numpydoc errors {sorted(codes)} (python -m numpydoc {name})"


def test_an_enum_documents_every_member_under_attributes():
    pytest.importorskip("numpydoc", reason="numpydoc is in the test extra")

    class Colour(enum.Enum):
        """Two colours.

        Attributes
        ----------
        RED : str
            The first.
        """

        RED = "red"
        BLUE = "blue"

    assert _undocumented_members(Colour) == {"BLUE"}


def test_excluded_names_exist():
    names = set(_validated_names())
    stale = sorted(set(EXCLUDED) - names)
    assert not stale, f"EXCLUDED lists names that are not public: {stale}"


def test_no_tab_or_form_feed_in_source():
    """No source file holds a TAB or a form feed (e.g. ``"\\theta"`` in a non-raw string)."""
    offenders = []
    for path in sorted((ROOT / "skdpgd").rglob("*.py")):
        # split on "\n" only: str.splitlines would split on the form feed itself
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if "\t" in line or "\f" in line:
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert not offenders, f"TAB or form feed in: {offenders}"
