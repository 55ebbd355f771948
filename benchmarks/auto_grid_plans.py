"""``solver="auto"``'s plan on every cell of the validation grid, from public numbers only.

The cells of :mod:`auto_grid` (problem x epsilon) have public numbers n, d, the estimator
and epsilon (default delta and data_norm); this plans each of them with the skdpgd
importable here, without data, and records the winner, its plan (every field but the
solver object, which is named by its label) and the candidates' predictions (auto's
notes). With ``--before PATH`` the same runs first in a subprocess on the skdpgd package
found under PATH, and the two are compared: the winner and the plan's integer fields must
be the same, its float fields within ``--rtol`` (default 1e-9; the planners' arithmetic
may move the last bits; the floats inside a nested plan's repr too), and each candidate's
prediction within ``--prediction-rtol``.
Exit status 1 if a plan differs. Usage, from the repository root::

    git archive <commit> skdpgd | tar -x -C /tmp/before   # the code before a change
    python benchmarks/auto_grid_plans.py --before /tmp/before [--out PATH]
"""

import argparse
import dataclasses
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

#: (problem, task, n, d) of benchmarks/auto_grid.py's cells (the two diamonds
#: preprocessings have the same public numbers)
PROBLEMS = (
    ("adult-750", "classification", 750, 104), ("adult-2000", "classification", 2000, 104),
    ("adult-5000", "classification", 5000, 104), ("adult-32561", "classification", 32561, 104),
    ("diamonds", "regression", 43152, 26), ("synthetic-10", "classification", 40000, 10),
    ("synthetic-100", "classification", 40000, 100),
    ("synthetic-500", "classification", 40000, 500),
    ("synthetic-1500", "classification", 40000, 1500),
)
EPSILONS = (0.1, 0.5, 1.0, 4.0)


def plans():
    """{cell: {"winner", "plan", "predictions"}} with the skdpgd importable here."""
    try:  # the proxy's compiled kernels run once numba is imported (as after a fit)
        import numba  # noqa: F401
    except ImportError:
        pass
    from skdpgd import DPLogisticRegression, DPRidge

    out = {}
    for name, task, n, d in PROBLEMS:
        for eps in EPSILONS:
            if task == "classification":
                est, k = DPLogisticRegression(classes=[0, 1], epsilon=eps), 2
            else:
                est, k = DPRidge(y_bound=1.0, epsilon=eps), None
            plan = est._plan_and_report(n, d, k)[3]
            fields = {f.name: getattr(plan, f.name) for f in dataclasses.fields(plan)
                      if f.name not in ("solver", "notes")}
            fields["n_steps"] = plan.n_steps
            predictions = {}
            for line in plan.notes:
                found = re.match(r"candidate (.*): predicted excess loss (\S+), (\S+) passes",
                                 line)
                if found:
                    predictions[found[1]] = float(found[2])
            out[f"{name} eps={eps:g}"] = dict(
                winner=plan.notes[-1], plan=fields, predictions=predictions)
    return out


_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?\d+e[-+]?\d+|nan|inf")


def _close(was, now, rtol):
    return (math.isnan(was) and math.isnan(now)) or was == now or (
        abs(now - was) <= rtol * max(abs(was), abs(now)))


def _same_text(was, now, rtol):
    """Two reprs (of nested plans) equal but for their floats, each within ``rtol``."""
    if _FLOAT.sub("#", was) != _FLOAT.sub("#", now):
        return False
    return all(_close(float(x), float(y), rtol)
               for x, y in zip(_FLOAT.findall(was), _FLOAT.findall(now), strict=True))


def compare(before, after, rtol, prediction_rtol):
    """Lines describing every difference (empty: the same plans)."""
    lines = []
    for cell, b in before.items():
        a = after[cell]
        if a["winner"].split(":")[0] != b["winner"].split(":")[0]:
            lines.append(f"{cell}: winner {b['winner']!r} -> {a['winner']!r}")
            continue
        for key, was in b["plan"].items():
            now = a["plan"].get(key)
            if isinstance(was, float) and isinstance(now, float):
                same = _close(was, now, rtol)
            elif isinstance(was, (str, list)) and isinstance(now, (str, list)):
                same = _same_text(str(was), str(now), rtol)  # nested plans' reprs
            else:
                same = now == was
            if not same:
                lines.append(f"{cell}: {key} {was!r} -> {now!r}")
        for label, was in b["predictions"].items():
            now = a["predictions"].get(label)
            if now is None or abs(now - was) > prediction_rtol * abs(was):
                lines.append(f"{cell}: prediction of {label} {was!r} -> {now!r}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a directory holding the skdpgd package before")
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--prediction-rtol", type=float, default=0.006,
                        help="the notes print 3 digits: half a unit of the last one")
    parser.add_argument("--json-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="write both versions' plans and the differences")
    args = parser.parse_args(argv)
    if args.json_only:
        print(json.dumps(plans(), default=str))
        return 0
    after = plans()
    result = dict(after=after)
    if args.before:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.before))
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--json-only"],
                              env=env, capture_output=True, text=True, check=True,
                              cwd=args.before)
        result["before"] = json.loads(done.stdout.strip().splitlines()[-1])
        result["differences"] = compare(result["before"], json.loads(json.dumps(
            after, default=str)), args.rtol, args.prediction_rtol)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n")
    for cell, a in after.items():
        print(f"{cell:26s} {a['winner'].split(':')[0]}  K={a['plan']['n_steps']}")
    if args.before:
        diff = result["differences"]
        print(f"\n{len(after)} cells; differences from --before: {len(diff)}")
        print("\n".join(diff))
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
