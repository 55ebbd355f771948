"""``skdpgd ledger show | verify | upgrade``: the verdict, the exit status, nothing secret.

Expected values are read from the file with plain SQL (the head hash, the entry count)
or written by the test itself (the edits), never taken from the command's own code.
"""

import hashlib
import json
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from _ledger_v1 import v1_file

from skdpgd import DPLogisticRegression, PrivacyLedger
from skdpgd._cli import main
from skdpgd._ledger._chain import KEY_ENV
from skdpgd.accounting import GaussianDpEvent
from skdpgd.accounting._events import event_to_dict

DELTA = 1e-5
SEED = 8675309
KEY = b"an owner's key of sufficient length"


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "budget.sqlite")


def _fill(path, key_file=None):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyLedger(epsilon=3.0, delta=DELTA, path=path, key_file=key_file)
    DPLogisticRegression(epsilon=1.0, C=2.0, classes=[0, 1], max_iter=10, ledger=ledger,
                         random_state=SEED).fit(X, y)
    ledger.charge_event("manual", GaussianDpEvent(0.125), n_samples=50, epsilon=0.5,
                        delta=DELTA, sample_ids=np.arange(50))
    return ledger


def _run(capsys, *argv):
    status = main(["ledger", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _head(path):
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT head_hash, head_seq FROM ledger").fetchone()


def test_show_prints_header_entries_and_head(path, capsys):
    _fill(path)
    status, out, err = _run(capsys, "show", path)
    assert status == 0 and err == ""
    head, n = _head(path)
    assert n == 2 and head in out and "verdict: intact" in out
    assert "cap epsilon=3 at delta=1e-05" in out and "replace-one" in out
    lines = out.splitlines()
    first = next(line for line in lines if line.strip().startswith("1 "))
    second = next(line for line in lines if line.strip().startswith("2 "))
    assert "DPLogisticRegression(C=2.0" in first and " 120 " in first and " all " in first
    assert "mu=0.125" in second and " 50 " in second and "manual" in second
    assert str(SEED) not in out  # the fit's seed is nowhere


def test_verify_intact_then_each_edit_exits_2_with_one_line(path, capsys):
    _fill(path)
    status, out, err = _run(capsys, "verify", path)
    assert status == 0 and "intact" in out and _head(path)[0] in out
    zero = json.dumps(event_to_dict(GaussianDpEvent(0.0)))
    edits = {"DELETE FROM entries WHERE seq = 2": "removed",
             f"UPDATE entries SET event = '{zero}' WHERE seq = 1": "entry #1",
             "UPDATE ledger SET cap_epsilon = 1000": "header"}
    for edit, named in edits.items():
        snapshot = path + ".orig"
        with sqlite3.connect(path) as src, sqlite3.connect(snapshot) as dst:
            src.backup(dst)
        with sqlite3.connect(snapshot) as conn:
            conn.execute(edit)
        status, out, err = _run(capsys, "verify", snapshot)
        assert status == 2 and out == ""
        assert err.startswith("skdpgd ledger: error: ") and err.count("\n") == 1
        assert named in err and "1000" not in err
        status, out, _ = _run(capsys, "show", snapshot)  # show still lists, then refuses
        assert status == 2 and "verdict: BROKEN" in out
        sqlite3.connect(snapshot).close()
        os.remove(snapshot)


def test_show_and_verify_never_write_the_file(path, capsys):
    _fill(path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    for action in ("show", "verify"):
        assert _run(capsys, action, path)[0] == 0
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == digest
    missing = path + ".nowhere"
    status, _, err = _run(capsys, "verify", missing)
    assert status == 2 and "No privacy ledger file" in err
    assert not os.path.exists(missing)


def test_keyed_ledger_needs_the_key_file(path, tmp_path, capsys):
    key_file = tmp_path / "owner.key"
    key_file.write_bytes(KEY)
    _fill(path, key_file=str(key_file))
    status, _, err = _run(capsys, "verify", path)
    assert status == 2 and "created with a key" in err
    status, out, _ = _run(capsys, "verify", path, "--key-file", str(key_file))
    assert status == 0 and "keyed" in out
    status, out, _ = _run(capsys, "show", path, "--key-file", str(key_file))
    assert status == 0 and "HMAC-SHA256" in out and KEY.decode() not in out


def test_upgrade_a_version_1_file(path, capsys):
    v1_file(path, [0.2, 0.1], source=f"DPRidge(alpha=2.0, random_state={SEED})")
    status, out, err = _run(capsys, "verify", path)
    assert status == 2 and "ledger upgrade PATH" in err
    status, out, _ = _run(capsys, "show", path)
    assert "schema version 1" in out and str(SEED) not in out and "DPRidge(alpha=2.0)" in out
    status, out, _ = _run(capsys, "upgrade", path)
    assert status == 0 and "2 entries" in out
    status, out, _ = _run(capsys, "show", path)
    assert status == 0 and "entries #1 to #2 predate the chain" in out


def test_no_traceback_from_the_console_command(path):
    _fill(path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM entries WHERE seq = 1")
    done = subprocess.run([sys.executable, "-m", "skdpgd", "ledger", "verify", path],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("skdpgd ledger: error: ") and "entry #1 is missing" in done.stderr
