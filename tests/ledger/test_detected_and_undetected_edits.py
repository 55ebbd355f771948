"""What a ledger file's hash chain cannot show by itself, and how a user closes each gap.

A chain that verifies says that the file agrees with itself. These edits keep it
agreeing with itself, so the file opens and ``skdpgd ledger verify`` passes (the
documented limits, docs/privacy_model.md "The ledger file"); each test shows that, then
closes the gap with what the user kept outside the file:

- the tail cut after entry k with entry k's head written back (``show`` printed it):
  ``expect_head`` (the latest head kept elsewhere);
- another ledger's file made with the same key (and cap) swapped in: ``ledger_id=`` when
  opening, ``expect_id`` or ``expect_head`` when verifying;
- the whole file rolled back to an earlier copy: ``expect_head`` (a ledger object that
  verified or wrote the file before refuses it by itself: it keeps the head it saw);
- the file edited and its chain recomputed, by anyone without a key or by a key holder
  with one: ``expect_head`` (a forger without the key cannot recompute a keyed chain:
  tests/ledger/test_tamper_evidence_and_upgrade.py);
- the file deleted (a new ledger starts from zero): ``ledger_id=`` refuses to create it.

A head kept after entry k accepts a file that appended entries since (``kept_at`` = k).
"""

import os
import pickle
import sqlite3

import pytest

from skdpgd import PrivacyLedger
from skdpgd._cli import main
from skdpgd._ledger._chain import KEY_ENV, Chain
from skdpgd._ledger._verify import rechain
from skdpgd.accounting import GaussianDpEvent
from skdpgd.exceptions import LedgerFileError

DELTA = 1e-5
KEY = b"0123456789abcdef-the-data-owners-key"
NOT_IN_CHAIN = "not the head of this file after any"


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "budget.sqlite")


@pytest.fixture
def key_file(tmp_path):
    target = tmp_path / "owner.key"
    target.write_bytes(KEY)
    return str(target)


def _charge(ledger, mu=0.1):
    ledger.charge_event("test", GaussianDpEvent(mu), n_samples=100, epsilon=1.0, delta=DELTA)


def _ledger(path, n, **kw):
    ledger = PrivacyLedger(epsilon=3.0, delta=DELTA, path=path, **kw)
    heads = [ledger.head_hash]
    for _ in range(n):
        _charge(ledger)
        heads.append(ledger.head_hash)
    return ledger, heads


def _copy(source, target):
    """Replace the database ``target`` by a copy of ``source`` (SQLite's backup: through
    SQLite's locks, so a connection open on ``target`` sees the new content)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _cli_verify(path, *flags):
    return main(["ledger", "verify", path, *flags])


def test_a_cut_tail_with_its_earlier_head_written_back_needs_a_kept_head(path, key_file):
    _, heads = _ledger(path, 4, key_file=key_file)
    with sqlite3.connect(path) as conn:  # what `show` printed after entry 2, written back
        conn.execute("DELETE FROM entries WHERE seq > 2")
        conn.execute("UPDATE ledger SET head_seq = 2, head_hash = ?", (heads[2],))
    assert len(PrivacyLedger(path=path, key_file=key_file).entries) == 2  # verifies: a limit
    assert PrivacyLedger.verify_file(path, key_file=key_file)["n_entries"] == 2
    with pytest.raises(LedgerFileError, match=NOT_IN_CHAIN):
        PrivacyLedger.verify_file(path, key_file=key_file, expect_head=heads[4])
    assert _cli_verify(path, "--key-file", key_file, "--expect-head", heads[4]) == 2
    assert _cli_verify(path, "--key-file", key_file, "--expect-head", heads[2]) == 0


def test_another_ledgers_file_with_the_same_key_needs_the_ledger_id(path, key_file, tmp_path):
    ours, heads = _ledger(path, 3, key_file=key_file)
    our_id = ours.ledger_id
    other = str(tmp_path / "other.sqlite")
    _ledger(other, 1, key_file=key_file)  # same key, same cap, less spent
    _copy(other, path)
    assert len(PrivacyLedger(path=path, key_file=key_file).entries) == 1  # a limit
    with pytest.raises(LedgerFileError, match="another ledger's file"):
        PrivacyLedger(path=path, key_file=key_file, ledger_id=our_id)
    with pytest.raises(LedgerFileError, match="another ledger's file"):
        PrivacyLedger.verify_file(path, key_file=key_file, expect_id=our_id)
    with pytest.raises(LedgerFileError, match=NOT_IN_CHAIN):
        PrivacyLedger.verify_file(path, key_file=key_file, expect_head=heads[3])
    assert _cli_verify(path, "--key-file", key_file, "--expect-id", our_id) == 2


def test_a_swap_between_two_charges_is_refused_by_the_open_ledger(path, key_file, tmp_path):
    ours, _ = _ledger(path, 1, key_file=key_file)
    kept = PrivacyLedger(path=path, key_file=key_file, ledger_id=ours.ledger_id)
    other = str(tmp_path / "other.sqlite")
    _ledger(other, 0, key_file=key_file)
    _copy(other, path)
    with pytest.raises(LedgerFileError, match="another ledger's file"):
        _charge(kept)


def test_a_whole_file_rollback_needs_a_kept_head(path, tmp_path):
    ledger, heads = _ledger(path, 2)
    backup = str(tmp_path / "backup.sqlite")
    _copy(path, backup)  # the earlier copy
    _charge(ledger)
    _charge(ledger)
    latest = ledger.head_hash
    _copy(backup, path)
    assert len(PrivacyLedger(path=path).entries) == 2  # verifies: a limit
    with pytest.raises(LedgerFileError, match=NOT_IN_CHAIN):
        PrivacyLedger.verify_file(path, expect_head=latest)
    assert PrivacyLedger.verify_file(path, expect_head=heads[2])["kept_at"] == 2


ROLLED_BACK = "was rolled back or replaced under this running ledger"


def _restore(backup, path, ledger, how):
    """Put the earlier copy back: through SQLite's backup while the writer's connection is
    open, or as a plain file copy while it is closed (the writer reopens the file)."""
    if how == "sqlite backup":
        _copy(backup, path)
        return
    ledger._store.connection().close()  # checkpoints and removes the write-ahead log
    os.replace(_plain_copy(backup), path)


def _plain_copy(source):
    target = source + ".copy"
    with open(source, "rb") as src, open(target, "wb") as dst:
        dst.write(src.read())
    return target


@pytest.mark.parametrize("how", ["sqlite backup", "file copy"])
def test_a_rollback_under_a_running_writer_is_refused_before_anything_is_written(
        path, tmp_path, how):
    ledger, _ = _ledger(path, 1)  # the case: one fit, a copy, a larger fit, restore
    backup = str(tmp_path / "backup.sqlite")
    _copy(path, backup)
    _charge(ledger, mu=0.3)
    seen, latest = ledger.head_hash, str(tmp_path / "latest.sqlite")
    _copy(path, latest)
    _restore(backup, path, ledger, how)
    with pytest.raises(LedgerFileError, match=ROLLED_BACK) as caught:
        _charge(ledger)
    message = str(caught.value)
    assert repr(path) in message and "entry #2" in message and "holds 1 entries" in message
    assert seen in message
    with pytest.raises(LedgerFileError, match=ROLLED_BACK):
        ledger.spent(DELTA)  # reading refuses too: the live object and the file disagree
    assert len(PrivacyLedger(path=path).entries) == 1  # nothing was written
    _copy(latest, path)  # the file that continues from the head it saw: charged again
    _charge(ledger)
    assert len(ledger.entries) == 3 and len(PrivacyLedger(path=path).entries) == 3


def test_a_rollback_charged_again_by_another_writer_is_refused(path, tmp_path):
    ours, _ = _ledger(path, 1)
    backup = str(tmp_path / "backup.sqlite")
    _copy(path, backup)
    _charge(ours, mu=0.3)  # entry #2, ours
    _copy(backup, path)
    other = PrivacyLedger(path=path)
    _charge(other)  # another entry #2: the count is back to ours, the entry is not
    assert len(other.entries) == 2
    with pytest.raises(LedgerFileError, match=ROLLED_BACK + ".*entry #2 is another one"):
        _charge(ours)
    assert len(PrivacyLedger(path=path).entries) == 2


def test_writers_that_take_turns_and_a_cap_set_by_another_are_not_a_rollback(path):
    first, second = PrivacyLedger(path=path), PrivacyLedger(path=path)
    for _ in range(3):
        _charge(first)
        _charge(second)
    capped = PrivacyLedger(epsilon=3.0, delta=DELTA, path=path)  # re-chains every entry
    _charge(first)
    _charge(capped)
    _charge(second)
    assert len(first.entries) == len(second.entries) == len(capped.entries) == 9
    assert first.head_hash == second.head_hash == capped.head_hash


def test_a_file_deleted_under_a_running_writer_is_not_recreated(path):
    ledger, _ = _ledger(path, 1)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with pytest.raises(LedgerFileError, match="deleted or moved under this running ledger"):
        _charge(ledger)
    assert not os.path.exists(path)


@pytest.mark.parametrize("keyed", [False, True], ids=["no key", "by a key holder"])
def test_a_rechain_after_an_edit_needs_a_kept_head(path, key_file, keyed):
    kw = {"key_file": key_file} if keyed else {}
    ledger, heads = _ledger(path, 3, **kw)
    del ledger
    with sqlite3.connect(path) as conn:  # someone who can recompute the chain: edit, re-chain
        conn.execute("UPDATE entries SET n_samples = 1000000 WHERE seq = 2")
        rechain(conn, Chain(KEY if keyed else None), path)
    assert PrivacyLedger(path=path, **kw).entries[1].n_samples == 1000000  # a limit
    for kept in heads[2:]:  # any head kept after the edited entry catches it
        with pytest.raises(LedgerFileError, match=NOT_IN_CHAIN):
            PrivacyLedger.verify_file(path, expect_head=kept, **kw)
    assert PrivacyLedger.verify_file(path, expect_head=heads[1], **kw)["kept_at"] == 1


def test_a_deleted_file_is_not_recreated_when_the_ledger_id_is_given(path):
    ledger, _ = _ledger(path, 1)
    ledger_id = ledger.ledger_id
    del ledger
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with pytest.raises(LedgerFileError, match="No privacy ledger file"):
        PrivacyLedger(path=path, ledger_id=ledger_id)
    assert not os.path.exists(path)
    fresh = PrivacyLedger(path=path)  # without the id: a new ledger, from zero (a limit)
    assert fresh.entries == () and fresh.ledger_id != ledger_id


def test_a_kept_head_accepts_entries_appended_since(path, capsys):
    ledger, heads = _ledger(path, 3)
    found = PrivacyLedger.verify_file(path, expect_head=heads[1], expect_id=ledger.ledger_id)
    assert (found["kept_at"], found["n_entries"]) == (1, 3)
    assert found["head_hash"] == heads[3] and found["ledger_id"] == ledger.ledger_id
    assert PrivacyLedger.verify_file(path, expect_head=heads[0])["kept_at"] == 0
    assert _cli_verify(path, "--expect-head", heads[1], "--expect-id", ledger.ledger_id) == 0
    out = capsys.readouterr().out
    assert "after entry #1; 2 entries appended since" in out and "ledger id as expected" in out


def test_a_pickled_file_ledger_opens_the_same_ledger_only(path, key_file, tmp_path):
    ours, _ = _ledger(path, 1, key_file=key_file)
    blob = pickle.dumps(ours)
    other = str(tmp_path / "other.sqlite")
    _ledger(other, 0, key_file=key_file)
    _copy(other, path)
    with pytest.raises(LedgerFileError, match="another ledger's file"):
        pickle.loads(blob)


def test_the_cli_flags_are_documented(capsys):
    with pytest.raises(SystemExit):
        main(["ledger", "verify", "--help"])
    text = capsys.readouterr().out
    assert "--expect-head" in text and "--expect-id" in text
