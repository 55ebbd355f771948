#!/usr/bin/env bash
# Build the peer environment benchmarks/.venv-peers (gitignored) holding diffprivlib.
#
# Why a separate venv: diffprivlib 0.6.6 (the latest release) declares
# scikit-learn>=1.4 with no upper bound, but it does not work with scikit-learn 1.9
# (`from sklearn.tree._tree import DOUBLE` fails: the constant was removed in 1.9)
# nor with 1.8 (its LogisticRegression passes `multi_class=` to scikit-learn's, a
# keyword removed in 1.8).  scikit-learn 1.7.2 is the newest release it works with.
# numpy / scipy / pandas / joblib are pinned to the versions of the main environment
# so that the only difference between the two environments is scikit-learn.
#
# Idempotent: if the venv already has exactly these versions it does nothing.
# Usage:  bash benchmarks/setup_peers.sh        (PYTHON=python3.11 to pick the interpreter)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${HERE}/.venv-peers"
PYTHON="${PYTHON:-python3}"

PINS=(
  "diffprivlib==0.6.6"
  "scikit-learn==1.7.2"
  "numpy==2.4.6"
  "scipy==1.17.1"
  "pandas==3.1.1"
  "joblib==1.6.0"
)

check() {
  "${VENV}/bin/python" - "${PINS[@]}" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    if version(name) != want:
        sys.exit(1)
import diffprivlib.models  # noqa: F401  (fails if the sklearn pin is wrong)
EOF
}

if [ -x "${VENV}/bin/python" ] && check; then
  echo "peers venv OK: ${VENV}"
  exit 0
fi

if [ ! -x "${VENV}/bin/python" ]; then
  "${PYTHON}" -m venv "${VENV}"
fi
"${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"

if ! check; then
  echo "peers venv check failed" >&2
  exit 1
fi
"${VENV}/bin/python" -c "import diffprivlib, sklearn, numpy; print('peers venv ready:', '${VENV}', 'diffprivlib', diffprivlib.__version__, 'scikit-learn', sklearn.__version__, 'numpy', numpy.__version__)"
