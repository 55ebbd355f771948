"""How many of the package's files one fit enters: the default fit and each solver's.

A fit is traced with :func:`sys.setprofile` (every Python call event; its code object's
``co_filename``); the files under ``skdpgd/`` that it enters are counted, in all and per
package (``skdpgd/<package>/``, "skdpgd" for the top level). Two fits per solver, each in
a fresh process after ``import skdpgd``: the **first** fit of the process (it plans: the
planners, grids and proxies run; a module imported lazily during the fit counts as
entered) and a **repeat** of it (the plan is cached). The table is
synthetic (2,000 x 10, a fixed seed), the estimator ``DPLogisticRegression`` with its
defaults (``solver="auto"``) and then with each explicit solver; ``solver="sgd"`` only
where its optional accountant is installed.

It also counts, per algorithm, the files under ``skdpgd/solvers/`` whose names carry the
algorithm (its module or sub-package, its planning, proxy and grid modules), the index
that docs/solvers.md keeps.

Run from a checkout (the tree that ``PYTHONPATH`` names is the one measured)::

    PYTHONPATH=$PWD python benchmarks/fit_footprint.py --label after \
        --out benchmarks/results/fit_footprint.json

With ``--out`` naming an existing file, its entries of other labels are kept (run once
on the tree before the change with ``--label before``, once after).
"""

import argparse
import json
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

SOLVERS = ("gd", "cyclic", "sgd", "preconditioned")

#: The solver-side files of each algorithm, by name under ``skdpgd/solvers/`` (docs/solvers.md's
#: index): a module ``<name>.py``, or every file of a sub-package ``<name>/`` (its
#: ``__init__.py`` of re-exports included). Names of both trees, before and after the
#: algorithms were gathered; sgd's planner reuses the plain-step proxy's optimisation term
#: (``_gd_planning.py`` before, ``_cyclic/_planning.py`` after).
ALGORITHM_FILES = {
    "gd": ("_gd", "_gd_planning", "_cyclic", "_cyclic_planning", "_cyclic_grid"),
    "cyclic": ("_cyclic", "_cyclic_planning", "_cyclic_grid", "_gd_planning"),
    "sgd": ("_sgd", "_sgd_planning", "_gd_planning", "_cyclic/_planning"),
    "preconditioned": ("_preconditioned", "_preconditioned_planning",
                       "_preconditioned_proxy"),
}


def _table(n=2000, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + rng.standard_normal(n) > 0).astype(int)
    return X, y


def _entered(fit, root):
    """{file relative to the package's parent} of every call made during ``fit()``."""
    seen = set()
    prefix = str(root) + "/"

    def profile(frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(prefix):
                seen.add(name)

    sys.setprofile(profile)
    try:
        fit()
    finally:
        sys.setprofile(None)
    return sorted(str(Path(name).relative_to(root.parent)) for name in seen)


def _package(path):
    parts = Path(path).parts  # ("skdpgd", ..., "file.py")
    return "skdpgd" if len(parts) == 2 else parts[1]


def _solver_files(root):
    """The solver-side files of each algorithm present in this tree."""
    found = {}
    for algorithm, stems in ALGORITHM_FILES.items():
        files = set()
        for stem in stems:
            module, package = root / "solvers" / f"{stem}.py", root / "solvers" / stem
            if module.exists():
                files.add(str(module.relative_to(root.parent)))
            if package.is_dir():
                files.update(str(p.relative_to(root.parent)) for p in package.glob("*.py"))
        found[algorithm] = sorted(files)
    return found


def _measure(solver):
    """{"first": ..., "repeat": ...} of one solver's fits, in this process."""
    import skdpgd
    from skdpgd.linear_model import DPLogisticRegression

    root = Path(skdpgd.__file__).resolve().parent
    X, y = _table()
    params = {} if solver == "auto" else {"solver": solver}

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            DPLogisticRegression(random_state=0, **params).fit(X, y)

    found = {}
    for which in ("first", "repeat"):
        try:
            files = _entered(fit, root)
        except ImportError as error:  # sgd's optional accountant
            return {"skipped": str(error)}
        per = Counter(_package(f) for f in files)
        found[which] = {"files": len(files), "per_package": dict(sorted(per.items())),
                        "entered": files}
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="run")
    parser.add_argument("--out", default=None)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a child process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_measure(args.one)))
        return

    import skdpgd

    root = Path(skdpgd.__file__).resolve().parent
    result = {"tree": str(root), "fits": {}, "solver_files": _solver_files(root)}
    for solver in ("auto", *SOLVERS):
        child = subprocess.run([sys.executable, __file__, "--one", solver], check=True,
                               capture_output=True, text=True)
        result["fits"][solver] = found = json.loads(child.stdout.splitlines()[-1])
        for which, got in found.items():
            if which == "skipped":
                print(f"{solver:>15}: skipped ({got})")
                continue
            per = got["per_package"]
            print(f"{solver:>15} {which:>6}: {got['files']} files; solvers "
                  f"{per.get('solvers', 0)}, accounting {per.get('accounting', 0)}, "
                  f"optim {per.get('optim', 0)}")
    for algorithm, files in result["solver_files"].items():
        print(f"{algorithm:>15}: {len(files)} solver-side files: {', '.join(files)}")

    if args.out:
        out = Path(args.out)
        kept = json.loads(out.read_text()) if out.exists() else {}
        kept[args.label] = result
        out.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
