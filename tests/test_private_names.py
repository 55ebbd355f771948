"""No private name crosses a package boundary (docs/architecture.md, "Layers").

Every ``.py`` file under ``skdpgd/`` is parsed (never imported) and each ``import`` /
``from ... import``, absolute or relative, at module level or inside a function, is
resolved. When it reaches from one package of ``skdpgd`` (``skdpgd.<name>``, or the
top level for ``skdpgd/*.py``) into another, neither a module below the other package
nor an imported name may start with an underscore: ``from ..accounting.calibration import
check_target`` is fine, ``from ..accounting._checks import check_count`` is not. (A
package whose own name is private, such as ``skdpgd._data``, is an internal layer of
skdpgd: importing it is fine, reaching into its private modules is not.)

The pairs of packages that still do are listed in :data:`NOT_YET` with their count; a
pair that no longer does fails the test until it is removed from the list (the list
only shrinks), and any other pair fails at once.
"""

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "skdpgd"

#: (importing package, imported package) -> private names still crossing. Remove a line
#: when its pair is clean; never add one.
NOT_YET = {
    ('_cli', '_ledger'): 1,
    ('_cli', 'accounting'): 2,
    ('_cli', 'preprocessing'): 5,
    ('_cli', 'skdpgd'): 4,
    ('_data', 'utils'): 5,
    ('_ledger', 'skdpgd'): 1,
    ('audit', 'model_selection'): 2,
    ('audit', 'utils'): 4,
    ('linear_model', '_data'): 3,
    ('linear_model', 'utils'): 26,
    ('model_selection', 'accounting'): 2,
    ('model_selection', 'linear_model'): 3,
    ('model_selection', 'pipeline'): 7,
    ('model_selection', 'preprocessing'): 3,
    ('model_selection', 'utils'): 14,
    ('pipeline', 'accounting'): 2,
    ('pipeline', 'linear_model'): 6,
    ('pipeline', 'preprocessing'): 5,
    ('pipeline', 'utils'): 16,
    ('preprocessing', 'accounting'): 2,
    ('preprocessing', 'utils'): 19,
    ('skdpgd', 'accounting'): 1,
}


def _package(module):
    """The package a dotted module name belongs to: ``skdpgd.<name>``'s name, or "skdpgd"."""
    parts = module.split(".")
    if len(parts) == 1 or (PACKAGE / parts[1]).is_dir() is False:
        return "skdpgd"
    return parts[1]


def crossings():
    """[(importer package, imported package, 'file:line name')] of private crossings."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_init = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_init else parts)
        base = module if is_init else module.rpartition(".")[0]
        here = _package(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    origin = base.split(".")
                    origin = origin[: len(origin) - (node.level - 1)]
                    origin = ".".join(origin + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [(origin, alias.name) for alias in node.names]
            else:
                continue
            for origin, name in targets:
                if origin.split(".")[0] != "skdpgd":
                    continue
                there = _package(origin)
                if there == here:
                    continue
                inside = origin.split(".")[1 if there == "skdpgd" else 2:]
                private = [p for p in inside if p.startswith("_") and p != "__init__"]
                if name is not None and name.startswith("_"):
                    private.append(name)
                if private:
                    where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {'.'.join(private)}"
                    found.append((here, there, where))
    return found


def test_no_private_name_crosses_a_package():
    found = crossings()
    counts = Counter((a, b) for a, b, _ in found)
    new = sorted(where for a, b, where in found if (a, b) not in NOT_YET)
    assert not new, "private names reached from another package:\n" + "\n".join(new)
    clean = sorted(pair for pair in NOT_YET if pair not in counts)
    assert not clean, f"these pairs are clean now: delete them from NOT_YET: {clean}"
    grew = sorted(f"{pair}: {counts[pair]} > {NOT_YET[pair]}" for pair in NOT_YET
                  if counts[pair] > NOT_YET[pair])
    assert not grew, "more private crossings than listed:\n" + "\n".join(grew)


def test_solvers_use_only_public_names():
    # the planners reach the accountant through skdpgd.accounting and
    # skdpgd.accounting.calibration only, the loops through skdpgd.optim, the data through
    # skdpgd._data's own exports
    assert not [pair for pair in NOT_YET if pair[0] == "solvers"]
    assert not [where for a, _, where in crossings() if a == "solvers"]
