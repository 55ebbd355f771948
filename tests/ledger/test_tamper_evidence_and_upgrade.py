"""A ledger file shows tampering, and version-1 files upgrade.

Each edit below is made with plain SQL, as a person with write access to the file (and
no interest in this package's hash scheme) would make it. Every one must be refused with
a :class:`LedgerFileError` naming what broke, both by a new ledger opening the file and by
a ledger that was open before the edit (its next charge), and the refused charge must
leave the file unchanged. Then the keyed chain: a forger who recomputes the plain SHA-256
chain is caught when the owner uses a key.

The cap arithmetic is by hand: an epsilon = 1 fit at delta = 1e-5 is mu = 0.2681-GDP
(Dong, Roth, Su 2022, Corollary 2.13 inverted), two of them sqrt(2) mu = 0.379-GDP, i.e.
epsilon = 1.465 at delta = 1e-5, above a cap of 1.2 (a fit that an untampered ledger refuses).
"""

import json
import math
import os
import pickle
import sqlite3

import numpy as np
import pytest
from _ledger_v1 import v1_file

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting
from skdpgd._ledger._chain import KEY_ENV, Chain
from skdpgd._ledger._verify import rechain
from skdpgd.accounting import GaussianDpEvent
from skdpgd.accounting._events import event_to_dict
from skdpgd.exceptions import LedgerFileError, PrivacyBudgetExceeded

DELTA = 1e-5
MU = 0.1
KEY = b"0123456789abcdef-the-data-owners-key"


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "budget.sqlite")


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)


def _charge(ledger, mu=MU, ids=None, n=100):
    ledger.charge_event("test", GaussianDpEvent(mu), n_samples=n, epsilon=1.0, delta=DELTA,
                        sample_ids=ids)


def _sql(path, *statements):
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)


def _rows(path):
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM entries ORDER BY seq").fetchall()


def _zero_mu(seq):
    event = json.dumps(event_to_dict(GaussianDpEvent(0.0)))
    return f"UPDATE entries SET event = '{event}' WHERE seq = {seq}"


#: (edit, what the error must name)
TAMPERS = {
    "delete the first entry": (["DELETE FROM entries WHERE seq = 1"],
                               r"entry #1 is missing \(the first entry is numbered #2\)"),
    "delete a middle entry": (["DELETE FROM entries WHERE seq = 2"], r"entry #2 is missing"),
    "delete the last entry": (["DELETE FROM entries WHERE seq = 4"],
                              r"entries #4 to #4 were removed"),
    "delete every entry": (["DELETE FROM entries"], r"entries #1 to #4 were removed"),
    "set an entry's mu to 0": ([_zero_mu(3)], r"entry #3 does not match its hash"),
    "change n": (["UPDATE entries SET n_samples = 1000000 WHERE seq = 1"],
                 r"entry #1 does not match its hash"),
    "change its record ids": (["UPDATE entries SET sample_ids = zeroblob(length(sample_ids))"
                               " WHERE seq = 2"], r"entry #2 does not match its hash"),
    "change the stored running total": (["UPDATE entries SET spent_epsilon = 0 WHERE seq = 4"],
                                        r"entry #4 does not match its hash"),
    "reorder two entries": (["UPDATE entries SET seq = 100 WHERE seq = 1",
                             "UPDATE entries SET seq = 1 WHERE seq = 2",
                             "UPDATE entries SET seq = 2 WHERE seq = 100"],
                            r"entry #1 does not match its hash"),
    "renumber after a deletion": (["DELETE FROM entries WHERE seq = 2",
                                   "UPDATE entries SET seq = seq - 1 WHERE seq > 2"],
                                  r"entry #2 does not match its hash"),
    "append an entry without a hash": (
        ["INSERT INTO entries (seq, charge_id, recorded_at, source, description, n_samples, "
         "epsilon, delta, event) SELECT 5, 'x', recorded_at, source, description, n_samples, "
         "epsilon, delta, event FROM entries WHERE seq = 4"],
        r"entry #5 does not match its hash"),
    "raise the cap to 1000": (["UPDATE ledger SET cap_epsilon = 1000"], r"header .* changed"),
    "null the cap": (["UPDATE ledger SET cap_epsilon = NULL, cap_delta = NULL"],
                     r"header .* changed"),
    "change the relation": (["UPDATE ledger SET relation = 'add-remove'"], r"header .* changed"),
    "edit the creation time": (["UPDATE ledger SET created_at = '2001-01-01T00:00:00+00:00'"],
                               r"header .* changed"),
    "edit the schema version": (["UPDATE ledger SET schema_version = 3"], r"header .* changed"),
    "claim the file is keyed": (["UPDATE ledger SET keyed = 1"], r"created with a key"),
    "move the head back": (["UPDATE ledger SET head_seq = 3"], r"head .* does not match"),
    # a trigger would rewrite the next charge as it is written, before its digest is taken
    "add a trigger that zeroes new charges": (
        [f"CREATE TRIGGER t AFTER INSERT ON entries BEGIN {_zero_mu('NEW.seq')}; END"],
        r"database objects skdpgd does not create \(trigger 't'\)"),
    "add a column": (["ALTER TABLE entries ADD COLUMN note TEXT DEFAULT 'x'"],
                     r"columns of its table 'entries' were altered"),
}


def _four_entries(path):
    ledger = PrivacyLedger(epsilon=3.0, delta=DELTA, path=path)
    for ids in (np.arange(100), np.arange(50, 150), None, np.arange(100)):
        _charge(ledger, ids=ids, n=100)
    return ledger


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_every_tamper_is_refused_on_open_and_before_the_next_charge(path, tamper):
    statements, named = TAMPERS[tamper]
    ledger = _four_entries(path)
    _sql(path, *statements)
    before = _rows(path)
    with pytest.raises(LedgerFileError, match=named) as opened:
        PrivacyLedger(path=path)
    with pytest.raises(LedgerFileError, match=named):  # a ledger opened before the edit:
        ledger.spent()  # reading it
    with pytest.raises(LedgerFileError, match=named):
        _charge(ledger)  # and charging it
    assert _rows(path) == before  # the refused charge wrote nothing
    message = str(opened.value)
    for secret in ("1000", "add-remove", "2001"):  # no stored value is echoed
        assert secret not in message


def test_an_untouched_file_verifies_and_reopens(path):
    """The control: the same four charges, no edit, reopen and charge again."""
    _four_entries(path)
    again = PrivacyLedger(path=path)
    _charge(again)
    assert [e.seq for e in PrivacyLedger(path=path).entries] == [1, 2, 3, 4, 5]


def test_a_fit_over_the_true_spend_is_refused_after_tampering(path):
    """Cap 1.2: one epsilon = 1 fit, its mu set to 0 in the file, then a second fit
    (true spend 1.465 > 1.2) must not go through, on the same ledger or a new one."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyLedger(epsilon=1.2, delta=DELTA, path=path)

    def fit(led):
        return DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=20, ledger=led,
                                    random_state=0).fit(X, y)

    fit(ledger)
    mu = ledger.entries[0].mu
    true_spend = accounting.gdp_to_epsilon(math.sqrt(2) * mu, DELTA)
    assert true_spend == pytest.approx(1.465, abs=1e-3) and true_spend > 1.2
    with pytest.raises(PrivacyBudgetExceeded):  # untampered, the second fit is refused
        fit(ledger)
    _sql(path, _zero_mu(1))
    for led in (ledger, None):
        with pytest.raises(LedgerFileError, match="entry #1 does not match"):
            fit(led if led is not None else PrivacyLedger(path=path))
    assert len(_rows(path)) == 1
    _sql(path, "UPDATE ledger SET cap_epsilon = 1000")  # and with the cap raised as well
    with pytest.raises(LedgerFileError, match="header"):
        fit(ledger)


def test_setting_a_cap_later_keeps_the_chain_and_seals_the_cap(path):
    """A file made without a cap may get one (the chain is recomputed under the lock);
    removing it afterwards is refused."""
    _charge(PrivacyLedger(path=path))
    capped = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path)
    _charge(capped)
    assert (PrivacyLedger(path=path).epsilon, len(capped.entries)) == (1.0, 2)
    _sql(path, "UPDATE ledger SET cap_epsilon = NULL, cap_delta = NULL")
    with pytest.raises(LedgerFileError, match="header"):
        PrivacyLedger(path=path)


def test_a_tampered_file_is_not_capped_again(path):
    """Setting a cap on a file verifies its chain first: it cannot launder an edit."""
    _charge(PrivacyLedger(path=path))
    _charge(PrivacyLedger(path=path))
    _sql(path, _zero_mu(1))
    with pytest.raises(LedgerFileError, match="entry #1"):
        PrivacyLedger(epsilon=1.0, delta=DELTA, path=path)


# -- keyed chains (HMAC) ---------------------------------------------------------------
@pytest.fixture
def key_file(tmp_path):
    target = tmp_path / "owner.key"
    target.write_bytes(KEY + b"\n")
    return str(target)


def _forge(path, keyed):
    """What someone who knows the scheme but not the key does after editing: recompute
    every digest with plain SHA-256, claiming (or not) that the file is keyed."""
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE ledger SET keyed = {int(keyed)}")
        rechain(conn, Chain(None), path)


def test_a_keyed_file_needs_its_key(path, key_file, tmp_path, monkeypatch):
    _charge(PrivacyLedger(epsilon=1.0, delta=DELTA, path=path, key_file=key_file))
    with pytest.raises(LedgerFileError, match="created with a key"):
        PrivacyLedger(path=path)
    wrong = tmp_path / "wrong.key"
    wrong.write_bytes(b"not the owner's key at all")
    with pytest.raises(LedgerFileError, match="Wrong key"):
        PrivacyLedger(path=path, key_file=str(wrong))
    assert len(PrivacyLedger(path=path, key_file=key_file).entries) == 1
    monkeypatch.setenv(KEY_ENV, KEY.decode())  # the environment variable works the same
    _charge(PrivacyLedger(path=path))
    monkeypatch.setenv(KEY_ENV, "another long key, but not the one")
    with pytest.raises(LedgerFileError, match="Wrong key"):
        PrivacyLedger(path=path)


def test_a_key_given_for_an_unkeyed_file_is_refused(path, key_file):
    _charge(PrivacyLedger(path=path))
    with pytest.raises(LedgerFileError, match="has no key"):
        PrivacyLedger(path=path, key_file=key_file)


@pytest.mark.parametrize("claims_keyed", [False, True], ids=["drops-key", "keeps-flag"])
def test_a_forger_without_the_key_is_caught(path, key_file, claims_keyed):
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path, key_file=key_file)
    _charge(ledger)
    _charge(ledger)
    _sql(path, _zero_mu(1), "DELETE FROM entries WHERE seq = 2")
    _forge(path, claims_keyed)
    with pytest.raises(LedgerFileError, match="has no key" if not claims_keyed else "header"):
        PrivacyLedger(path=path, key_file=key_file)
    with pytest.raises(LedgerFileError):
        _charge(ledger)


def test_without_a_key_a_forger_who_recomputes_is_not_caught(path):
    """The documented limit of an unkeyed file (the reason for the key): recomputing the
    plain chain after an edit goes unseen. Kept as a test so the docs stay true."""
    ledger = PrivacyLedger(path=path)
    _charge(ledger)
    _sql(path, _zero_mu(1))
    _forge(path, keyed=False)
    assert PrivacyLedger(path=path).entries[0].mu == 0.0


def test_the_key_is_never_stored_printed_or_pickled(path, key_file, tmp_path):
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA, path=path, key_file=key_file)
    _charge(ledger)
    del ledger
    ledger = PrivacyLedger(path=path, key_file=key_file)
    blobs = [p.read_bytes() for p in tmp_path.iterdir() if p.name != "owner.key"]
    blobs += [repr(ledger).encode(), pickle.dumps(ledger), repr(ledger._store._chain).encode()]
    for blob in blobs:
        assert KEY not in blob and KEY[:16] not in blob
    copy = pickle.loads(pickle.dumps(ledger))  # travels as the key file's path
    _charge(copy)
    assert len(ledger.entries) == 2


def test_short_or_missing_keys_are_refused(path, tmp_path, monkeypatch):
    short = tmp_path / "short.key"
    short.write_bytes(b"hunter2\n")
    with pytest.raises(ValueError, match="shorter than 16 bytes") as caught:
        PrivacyLedger(path=path, key_file=str(short))
    assert "hunter2" not in str(caught.value)
    with pytest.raises(ValueError, match="Cannot read the ledger key file"):
        PrivacyLedger(path=path, key_file=str(tmp_path / "nowhere.key"))
    monkeypatch.setenv(KEY_ENV, "short")
    with pytest.raises(ValueError, match=KEY_ENV):
        PrivacyLedger(path=path)
    assert not os.path.exists(path)  # nothing was created
    with pytest.raises(ValueError, match="give path="):
        PrivacyLedger(key_file=str(short))


# -- version-1 files ------------------------------------------------------------------
def test_a_version_1_file_is_refused_until_upgraded(path):
    v1_file(path, [0.2, 0.3])
    with pytest.raises(LedgerFileError, match=r"version 1\).*ledger upgrade PATH"):
        PrivacyLedger(path=path)
    assert PrivacyLedger.upgrade_file(path) == 2
    ledger = PrivacyLedger(path=path)
    assert (ledger.epsilon, ledger.delta) == (3.0, DELTA)
    assert [e.mu for e in ledger.entries] == [0.2, 0.3]
    assert ledger.entries[0].sample_ids.tolist() == list(range(10))
    # records 0..9 were in both fits, the others in the second only (by hand)
    assert ledger.spent().mu == pytest.approx(math.hypot(0.2, 0.3), rel=1e-12)
    _charge(ledger, mu=0.1)
    assert len(PrivacyLedger(path=path).entries) == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT v1_entries, schema_version FROM ledger").fetchone() == (2, 2)
    assert PrivacyLedger.upgrade_file(path) == 3  # a version-2 file: verified, unchanged
    _sql(path, _zero_mu(2))  # an edit to a pre-upgrade entry is caught from now on
    with pytest.raises(LedgerFileError, match="entry #2 does not match"):
        PrivacyLedger(path=path)


def test_a_version_1_file_upgrades_to_a_keyed_chain(path, key_file):
    v1_file(path, [0.2])
    PrivacyLedger.upgrade_file(path, key_file=key_file)
    with pytest.raises(LedgerFileError, match="created with a key"):
        PrivacyLedger(path=path)
    assert PrivacyLedger(path=path, key_file=key_file).entries[0].mu == 0.2


def test_an_upgrade_refuses_a_version_1_file_with_missing_entries(path):
    v1_file(path, [0.2, 0.3, 0.4])
    _sql(path, "DELETE FROM entries WHERE seq = 2")
    with pytest.raises(LedgerFileError, match="gaps"):
        PrivacyLedger.upgrade_file(path)
    with sqlite3.connect(path) as conn:  # left as it was
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_the_upgrade_removes_the_seeds_version_1_recorded(path, tmp_path):
    """Version 1 kept random_state in each entry's source: the upgrade scrubs
    it and rebuilds the file, so its digits are in no byte of it afterwards."""
    v1_file(path, [0.2, 0.1], source="DPLogisticRegression(C=2.0, random_state=8675309)")
    assert any(b"8675309" in p.read_bytes() for p in tmp_path.iterdir())
    PrivacyLedger.upgrade_file(path)
    assert [e.source for e in PrivacyLedger(path=path).entries] == [
        "DPLogisticRegression(C=2.0)"] * 2
    for p in tmp_path.iterdir():
        assert b"8675309" not in p.read_bytes(), p.name
