"""Two versions of skdpgd timed in one run: the helpers of the ``*_fit_time.py`` scripts.

A script measures the skdpgd it imports (``measure``); with ``--before PATH`` it first
runs itself in a subprocess with ``PYTHONPATH=PATH`` and ``--json-only``, so that the code
before a change and the code after it are timed on one machine in one run, and both go
into one JSON file with the machine and its load.
"""

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def median_fit(make, X, y, repeats, before_each=None):
    """(median seconds, all seconds, last model) of ``make().fit(X, y)``, ``repeats`` times
    (``before_each()`` called before each fit, untimed: e.g. clearing a plan cache)."""
    times, model = [], None
    for _ in range(repeats):
        if before_each is not None:
            before_each()
        tic = time.perf_counter()
        model = make().fit(X, y)
        times.append(time.perf_counter() - tic)
    return float(np.median(times)), times, model


def versus_lbfgs(make, X, y, X_test, y_test, repeats, *, lbfgs=True, before_each=None):
    """One row: ``make()``'s median fit time, test score and chosen solver, and beside it
    (``lbfgs``) scikit-learn's ``LogisticRegression(max_iter=1000)`` on the same arrays
    and the ratio of the two times."""
    seconds, raw, model = median_fit(make, X, y, repeats, before_each)
    row = dict(shape=list(X.shape), skdpgd_seconds=seconds, skdpgd_raw=raw,
               skdpgd_score=float(model.score(X_test, y_test)), solver=model.solver_)
    if lbfgs:
        from sklearn.linear_model import LogisticRegression

        seconds, raw, model = median_fit(lambda: LogisticRegression(max_iter=1000), X, y,
                                         repeats)
        row.update(lbfgs_seconds=seconds, lbfgs_raw=raw,
                   lbfgs_score=float(model.score(X_test, y_test)),
                   skdpgd_over_lbfgs=row["skdpgd_seconds"] / seconds)
    return row


def add_arguments(parser, out):
    """The flags every such script takes: ``--before``, ``--json-only``, ``--out``."""
    parser.add_argument("--before", help="a directory holding the skdpgd package before")
    parser.add_argument("--json-only", action="store_true", help="print this version's "
                        "measurements as one JSON line (what --before runs)")
    parser.add_argument("--out", default=str(out))


def run(script, args, measure, forwarded):
    """Measure this version (and the one under ``args.before`` first); write ``args.out``.

    Parameters
    ----------
    script : str
        The calling script's ``__file__`` (run again for ``--before``).
    args : argparse.Namespace
        Parsed flags (:func:`add_arguments`' among them).
    measure : callable
        ``measure(baseline)``: this version's measurements, a JSON-able dict; ``baseline``
        is True in the ``--json-only`` subprocess (skip the peers, measured once).
    forwarded : list of str
        The script's own flags to pass to the subprocess (e.g. ``["--n", "1000"]``).

    Returns
    -------
    dict or None
        The result written (None with ``--json-only``, which prints it).
    """
    if args.json_only:
        print(json.dumps(measure(True)))
        return None
    result = dict(command=" ".join([Path(sys.executable).name, *sys.argv]),
                  machine=f"{platform.machine()}, {os.cpu_count()} cores, Python "
                          f"{platform.python_version()}, numpy {np.__version__}",
                  load_average_before=os.getloadavg())
    if args.before:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.before))
        done = subprocess.run([sys.executable, os.path.abspath(script), "--json-only",
                               *forwarded], env=env, capture_output=True, text=True,
                              check=True, cwd=args.before)
        result["before"] = json.loads(done.stdout.strip().splitlines()[-1])
    result["after"] = measure(False)
    result["load_average_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return result


def main_run(script, description, argv, out, measure, *, repeats, n=None):
    """A timing script's ``main``: its flags parsed, then :func:`run`.

    Parameters
    ----------
    script : str
        The calling script's ``__file__``.
    description : str
        The script's one-line description (``--help``).
    argv : list of str or None
        The command line (None: ``sys.argv``).
    out : path
        The default ``--out``.
    measure : callable
        ``measure(args, baseline)``: as :func:`run`'s, with the parsed flags.
    repeats : int
        The default ``--repeats``.
    n : int, optional
        The default ``--n`` (rows of the problem), for a script that takes one.

    Returns
    -------
    dict or None
        What :func:`run` returns.
    """
    import argparse

    parser = argparse.ArgumentParser(description=description)
    if n is not None:
        parser.add_argument("--n", type=int, default=n)
    parser.add_argument("--repeats", type=int, default=repeats)
    add_arguments(parser, out)
    args = parser.parse_args(argv)
    forwarded = ["--repeats", str(args.repeats)]
    if n is not None:
        forwarded = ["--n", str(args.n), *forwarded]
    return run(script, args, lambda baseline: measure(args, baseline), forwarded)
