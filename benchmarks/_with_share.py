"""Run a benchmark script with ``make_dp_pipeline``'s ``preparation_share`` set to RHO.

For measuring the pipeline's budget split (docs/budgets.md, "The split rule") on a
benchmark that builds its pipelines with the default share::

    python benchmarks/_with_share.py 0.2 benchmarks/unseen_tables.py --seeds 5 --out ...
"""

import functools
import os
import runpy
import sys

import skdpgd

if __name__ == "__main__":
    rho, script = float(sys.argv[1]), sys.argv[2]
    skdpgd.make_dp_pipeline = functools.partial(skdpgd.make_dp_pipeline,
                                                preparation_share=rho)
    sys.argv = sys.argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
