"""What ``skdpgd fit`` prints: short lines, plain warnings, catch-all names apart from data.

The subprocess tests run the command as a user does (``python -m skdpgd``), so that any
warning Python would display on its own (with a source path) would show in the output.
"""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import joblib
import numpy as np
import pytest

from skdpgd._cli import main
from skdpgd._cli._brief import LINE_WIDTH, plain_warnings

pd = pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parents[2]
LEVELS = ["__other", "__missing", "other", "Lyon"]


def _write(path, n=300, seed=0):
    """An R-style export (unnamed row index first), a city column holding the literal
    catch-all and indicator names as data, a numeric column with missing cells."""
    rng = np.random.default_rng(seed)
    lines = [",age,city,label"]
    for i in range(n):
        age = "" if i % 9 == 0 else str(rng.integers(18, 90))
        lines.append(f"{i},{age},{rng.choice(LEVELS)},{rng.integers(2)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(*argv, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="always")
    return subprocess.run([sys.executable, "-m", "skdpgd", *argv], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("epsilon", ["0.05", "8"])  # every column falls back; none does
def test_fit_prints_short_plain_lines_and_no_source_path(tmp_path, epsilon):
    data = _write(tmp_path / "t.csv")
    done = _run("fit", str(data), "--target", "label", "--classes", "0,1", "--epsilon",
                epsilon, "--random-state", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert ".py:" not in done.stdout + done.stderr  # no Python warning display
    assert "Warning:" not in done.stdout + done.stderr and done.stderr == ""
    assert all(len(line) <= LINE_WIDTH for line in out if str(data) not in line)
    columns = [line for line in out if line.startswith("  ") and ": " in line
               and not line.startswith("   ")]
    assert [line.split(":")[0].strip() for line in columns] == ["age", "city"]
    assert any(line.startswith("read: first column '' dropped") for line in out)
    warned = [line for line in out if line.startswith("warning: ")]
    if epsilon == "0.05":  # the fallback is said, in lines of at most 100 characters
        assert len(warned) == 1 and "fell back" in warned[0]
        assert all("FALLBACK" in line for line in columns)
    else:
        assert warned == [] and not any("FALLBACK" in line for line in columns)


def test_warnings_outside_a_fit_are_plain_lines(capsys):
    with plain_warnings():
        warnings.warn("w" * 30 + " " + "x " * 80, UserWarning, stacklevel=1)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("warning: www") and len(err) >= 2
    assert all(len(line) <= LINE_WIDTH and ".py" not in line for line in err)


def test_a_data_level_named_like_the_catch_all_keeps_its_own_column(tmp_path, capsys):
    data = _write(tmp_path / "t.csv", n=2000)
    out = tmp_path / "m.joblib"
    assert main(["fit", str(data), "--target", "label", "--classes", "0,1", "--epsilon",
                 "8", "--random-state", "0", "--categorical", "city", "--output",
                 str(out)]) == 0
    capsys.readouterr()
    pipeline = joblib.load(out)["pipeline"]
    names = list(pipeline[:2].get_feature_names_out())
    assert len(set(names)) == len(names)
    assert "city__other" in names and "city__missing" in names  # the catch-all, indicator
    rows = pd.DataFrame({"age": [30.0] * 4,
                         "city": ["__other", "__missing", "Zurich", None]})
    Xt = pd.DataFrame(pipeline[:2].transform(rows), columns=names)
    city = [n for n in names if n.startswith("city")]
    hot = [tuple(n for n in city if Xt.loc[i, n] != 0) for i in range(4)]
    # each literal level is a column of its own, never the catch-all or the indicator
    assert len(hot[0]) == 1 and hot[0][0] not in ("city__other", "city__missing")
    assert len(hot[1]) == 1 and hot[1][0] not in ("city__other", "city__missing", hot[0][0])
    assert hot[2] == ("city__other",)  # an unseen level goes to the catch-all
    assert hot[3] == ("city__missing",)  # a missing cell to the indicator
