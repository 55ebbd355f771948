"""Run one inference benchmark on two versions of skdpgd in one command; one JSON.

Not a test. ``--before DIR`` holds the code before a change (``skdpgd/`` and
``benchmarks/``, e.g. ``git archive <commit> skdpgd benchmarks | tar -x -C DIR``); the
script named by ``--script`` (a benchmark under ``benchmarks/`` that takes ``--out``) runs
there and here with the same remaining arguments (same seeds), one after the other on
the same machine, and both results go into ``--out`` as ``{"before": ..., "after": ...}``.

Usage::

    python benchmarks/inference_before_after.py --before /tmp/before \\
        --script inference_anchor.py --out benchmarks/results/inference_anchor_before_after.json \\
        -- --reps 200 --sizes 1000 2000 4000
"""

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    rest = [a for a in args.rest if a != "--"]
    results = {"command": " ".join(sys.argv), "machine": platform.node(), "script": args.script}
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in (("before", Path(args.before) / "benchmarks"), ("after", HERE)):
            out = Path(tmp) / f"{label}.json"
            start = time.perf_counter()
            subprocess.run([sys.executable, str(root / args.script), *rest, "--out", str(out)],
                           check=True, cwd=root.parent)
            results[label] = json.loads(out.read_text())
            results[f"{label}_seconds"] = round(time.perf_counter() - start, 1)
    Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
