"""The package's layers (docs/architecture.md): no upward import, no import circle, small files.

Every ``.py`` file under ``skdpgd/`` is parsed (its source is never imported here) and
each ``import`` / ``from ... import`` statement, absolute or relative, at module level or
inside a function, is resolved to the skdpgd module it names (``from pkg import sub``
names the submodule ``pkg.sub`` when it exists, else the package ``pkg``).

* **Layers.** A module may import from its own layer (its package, or an entry listed on
  the same line of :data:`LAYERS`) and from any layer strictly earlier; never from a later one. Function-level
  (lazy) imports count here exactly like module-level ones: an import that runs late is
  still a dependency. Every module must belong to an entry.
* **Circles.** The graph of all imports, module-level and function-level (lazy) alike,
  has no cycle: an import that runs late still ties the two modules together, so a lazy
  import is no way out of a circle.
* **Size.** No source file above :data:`MAX_LINES` lines.
* **scikit-learn's private names** (a module or a name starting with ``_``) are imported
  only by ``skdpgd/utils/_sklearn_compat.py``.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "skdpgd"

#: The agreed order, bottom to top (docs/architecture.md). Each entry is a module or a package (with
#: everything below it); the entries on one line form one layer. A module may import from
#: its own layer and from earlier ones (the circle rule still applies inside a layer).
LAYERS = [
    ["skdpgd._version", "skdpgd.exceptions", "skdpgd.utils"],
    ["skdpgd._data"],
    ["skdpgd.losses"],
    ["skdpgd.optim"],
    ["skdpgd.accounting"],
    ["skdpgd.solvers"],
    ["skdpgd.inference"],
    ["skdpgd.linear_model"],
    ["skdpgd._ledger"],
    ["skdpgd.preprocessing"],
    ["skdpgd.datasets"],
    ["skdpgd.pipeline"],
    ["skdpgd.model_selection"],
    ["skdpgd.audit"],
    ["skdpgd._demo", "skdpgd._cli", "skdpgd.__main__", "skdpgd"],
]

#: One concept per file: a solver's planner, proxy, grid and run fit in one module (or one
#: sub-package), as in scikit-learn's ``linear_model``, whose median file is 776 lines;
#: a smaller cap split one algorithm by job across files.
MAX_LINES = 800


def _modules():
    """{module name: path} of every source file of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _entry(module):
    """(layer index, entry) of a module: the longest entry that is it or contains it."""
    best = None
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            inside = module == entry or (entry != "skdpgd" and module.startswith(entry + "."))
            if inside and (best is None or len(entry) > len(best[1])):
                best = (index, entry)
    return best


def _is_package(module):
    return MODULES[module].name == "__init__.py"


def _imports(module):
    """[(imported module, line, module_level)] of one source file."""
    path = MODULES[module]
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    base = module if _is_package(module) else module.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(child, base):
                    found.append((target, child.lineno, not in_function))
            visit(child, nested)

    visit(tree, False)
    return found


def _targets(node, base):
    """The skdpgd modules one import statement names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        return [_known(name) for name in names if name.split(".")[0] == "skdpgd"]
    if node.level:
        parts = base.split(".")
        parts = parts[: len(parts) - (node.level - 1)]
        origin = ".".join(parts + ([node.module] if node.module else []))
    else:
        origin = node.module or ""
    if origin.split(".")[0] != "skdpgd":
        return []
    targets = []
    for alias in node.names:
        sub = f"{origin}.{alias.name}"
        targets.append(sub if sub in MODULES else _known(origin))
    return targets


def _known(name):
    """The longest prefix of a dotted name that is a module of the package."""
    parts = name.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts)


GRAPH = {module: _imports(module) for module in MODULES}


def test_every_module_has_a_layer():
    missing = [module for module in MODULES if _entry(module) is None]
    assert not missing, f"modules outside every layer of LAYERS: {missing}"


def upward_imports():
    """['importer:line -> imported (layer i -> j)'] for every import against LAYERS."""
    bad = []
    for module, imports in GRAPH.items():
        own = _entry(module)
        if own is None:
            continue
        for target, line, _ in imports:
            theirs = _entry(target)
            if theirs is None or theirs[1] == own[1] or target == module:
                continue
            if theirs[0] > own[0]:
                bad.append(f"{module}:{line} -> {target} (layer {own[0]} -> {theirs[0]})")
    return bad


def test_no_upward_import():
    bad = upward_imports()
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def import_circles(graph=None):
    """Strongly connected components (more than one module, or a self-loop) of the graph
    of every import, module-level and function-level (Tarjan)."""
    graph = GRAPH if graph is None else graph
    edges = {
        module: sorted({t for t, _, _ in imports if t in graph})
        for module, imports in graph.items()
    }
    index, low, on_stack, stack, circles = {}, {}, set(), [], []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges[v]:
                circles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            connect(module)
    return circles


def test_no_import_circle():
    circles = import_circles()
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_a_lazy_import_closes_a_circle_too():
    """An import inside a function (module_level False) still makes a circle."""
    graph = {"p.a": [("p.b", 3, True)], "p.b": [("p.a", 12, False)], "p.c": [("p.a", 1, True)]}
    assert import_circles(graph) == [["p.a", "p.b"]]
    graph["p.b"] = []
    assert import_circles(graph) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_source_file_is_small(module):
    n_lines = MODULES[module].read_text(encoding="utf-8").count("\n")  # as wc -l
    assert n_lines <= MAX_LINES, f"{MODULES[module]} has {n_lines} lines (at most {MAX_LINES})"


def test_the_checker_sees_relative_lazy_and_upward_imports(tmp_path):
    """The resolver on a known case: this file's rules are not vacuous."""
    assert "skdpgd._data._design" in MODULES and "skdpgd" in MODULES
    assert _entry("skdpgd._data._design") == (1, "skdpgd._data")
    assert _entry("skdpgd") == (len(LAYERS) - 1, "skdpgd")
    tree = ast.parse("from ..utils import _clipping\nfrom . import _fused\nfrom .. import losses\n")
    targets = [t for node in tree.body for t in _targets(node, "skdpgd._data")]
    assert targets == ["skdpgd.utils._clipping", "skdpgd._data._fused", "skdpgd.losses"]
    # an upward edge is reported: the data layer must not import the losses
    assert _entry(targets[2])[0] > _entry("skdpgd._data._design")[0]


def test_private_sklearn_names_only_through_the_compat_module():
    bad = []
    for module, path in MODULES.items():
        if module == "skdpgd.utils._sklearn_compat":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sklearn":
                names = node.module.split(".") + [alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [part for alias in node.names if alias.name.startswith("sklearn.")
                         for part in alias.name.split(".")]
            else:
                continue
            if any(name.startswith("_") for name in names):
                bad.append(f"{module}:{node.lineno}")
    assert not bad, f"private scikit-learn names outside utils/_sklearn_compat: {bad}"
