"""Time of the private label set's release: canonical forms against a dict-keyed count.

:func:`skdpgd.pipeline._labels.release_label_set` maps every label to its canonical form
(:func:`skdpgd.utils.canonical_labels`) before counting, so that the release holds no
record's own object (docs/theory.md#label-set). The reference in the same run is the
count the release used before (``dict_keyed_release`` below: a Python dict keyed by the
labels themselves, which keeps the first equal key, then a per-record membership pass),
with the same threshold and noise. Each container holds ``--n`` labels of 5 classes; the
time is the median of ``--repeats`` calls.

Usage::

    python benchmarks/label_set_release.py [--n 1000000] [--repeats 5]
"""

import argparse
import statistics
import time

import numpy as np

from skdpgd.pipeline._labels import release_label_set
from skdpgd.preprocessing._private_categories import discovery_threshold, sigma_for_mu


def _missing_before(value):
    """The missing-label test the dict-keyed count used (it missed pd.NA)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return False


def dict_keyed_release(y, *, mu, delta0, random_state):
    """The dict-keyed count (reference): released labels, y_fit, weights."""
    y = np.asarray(y, dtype=object).ravel()
    counts = {}
    for value in y.tolist():
        if not _missing_before(value):
            counts[value] = counts.get(value, 0) + 1
    labels = sorted(counts, key=lambda v: (type(v).__name__, str(v)))
    sigma = sigma_for_mu(mu)
    tau = discovery_threshold(sigma, delta0)
    noisy = np.array([counts[v] for v in labels], dtype=np.float64)
    noisy += sigma * np.random.default_rng(random_state).standard_normal(len(labels))
    released = [v for v, c in zip(labels, noisy, strict=True) if c > tau]
    keep = set(released)
    inside = np.fromiter((not _missing_before(v) and v in keep for v in y.tolist()),
                         dtype=bool, count=y.size)
    y_fit = y.copy()
    y_fit[~inside] = released[0]
    return released, y_fit, inside.astype(np.float64)


def _median_time(function, y, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(y, mu=1.0, delta0=1e-6, random_state=0)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ints = rng.integers(0, 5, args.n)
    containers = {
        "object texts": rng.choice(np.array(list("abcde"), dtype=object), args.n),
        "object ints": ints.astype(object),
        "int64": ints,
        "float64": ints.astype(np.float64),
        "numpy strings": rng.choice(np.array(list("abcde")), args.n),
    }
    print(f"n = {args.n}, median of {args.repeats}")
    print("| container | canonical (s) | dict-keyed (s) | ratio |")
    print("|---|---|---|---|")
    for name, y in containers.items():
        canonical = _median_time(release_label_set, y, args.repeats)
        reference = _median_time(dict_keyed_release, y, args.repeats)
        print(f"| {name} | {canonical:.3f} | {reference:.3f} | {canonical / reference:.2f} |")


if __name__ == "__main__":
    main()
