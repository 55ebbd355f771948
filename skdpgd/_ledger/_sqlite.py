"""The ledger file: an SQLite database (standard library ``sqlite3``) shared by processes.

Schema (version 2)
------------------
The file identifies itself by ``PRAGMA application_id = 0x736B6450`` ("skdP") and
``PRAGMA user_version = 2`` (the schema version), and holds two tables::

    ledger   -- one row: what the file is
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1)
      format TEXT            'skdpgd.PrivacyLedger'
      schema_version INTEGER 2
      created_at TEXT        UTC, ISO 8601
      created_by TEXT        'skdpgd <version>'
      relation TEXT          'replace-one' (the neighbouring relation of every entry)
      cap_epsilon REAL       NULL: no cap
      cap_delta REAL         NULL: no default delta
      ledger_id TEXT         a random UUID (makes every file's chain its own)
      keyed INTEGER          1: the digests are HMAC-SHA256 with the owner's key, 0: SHA-256
      v1_entries INTEGER     NULL, or the entries a version-1 file held when upgraded
      key_check TEXT         keyed files: a digest only the right key reproduces
      header_hash TEXT       h_0, the digest of the columns above (up to v1_entries)
      head_seq INTEGER       the number of entries n
      head_hash TEXT         digest of (h_0, n, h_n): what `skdpgd ledger show` prints

    entries  -- one row per charge, append-only
      seq INTEGER PRIMARY KEY AUTOINCREMENT   order of the charges: 1, 2, ..., n
      charge_id TEXT UNIQUE  a random UUID
      recorded_at TEXT       UTC, ISO 8601
      source TEXT            estimator class and public non-default parameters
      description TEXT       the theorem behind the cost
      n_samples INTEGER      rows the fit used
      epsilon REAL, delta REAL    the fit's own (epsilon, delta)
      event TEXT             the privacy event, JSON (PrivacyEvent.to_dict)
      n_ids INTEGER          NULL: charged to every record
      ids_encoding TEXT      NULL, 'bitmap' (integer ids) or 'npy' (any ids)
      ids_offset INTEGER     the smallest id of a bitmap
      sample_ids BLOB        'bitmap': bit i (little-endian bit order) set when id
                             ids_offset + i was used; 'npy': the sorted distinct ids as
                             a .npy array
      spent_epsilon REAL     worst record's epsilon at cap_delta after this entry
      pid INTEGER, host TEXT who charged
      entry_hash TEXT        h_k = digest of (h_{k-1}, every column above)

The digests are defined in :mod:`._chain`, checked in :mod:`._verify`; the constants
and the SQL are in :mod:`._schema`. Version 1 was the same without the
columns ``ledger_id`` to ``head_hash`` and ``entry_hash``; :mod:`._upgrade` adds them.

A charge is one ``BEGIN IMMEDIATE`` transaction: it takes the database's write lock,
verifies the whole chain (:func:`._verify.verify_file`), reads the entries other processes
appended since this process last looked, composes, tests the cap, appends the entry with
its digest, moves the head and commits (write-ahead log, ``synchronous=FULL``: the
commit is on disk when ``charge`` returns): two processes can never both pass the cap, no
edit made between two charges goes unseen by the second, and a charge is either wholly in
the file or not at all, whatever kills the process.
"""

import datetime
import json
import os
import socket
import sqlite3
import uuid

from .._version import __version__
from ..accounting import event_to_dict
from ..exceptions import LedgerFileError
from ._chain import Chain
from ._schema import _SCHEMA, APPLICATION_ID, ENTRY_COLUMNS, FORMAT, SCHEMA_VERSION, _ids_blob
from ._verify import (
    SeenHead,
    _damaged,
    check_continues,
    check_expected,
    rechain,
    verify_file,
    verify_known,
)

#: Seconds a charge waits for another process's transaction before giving up.
BUSY_TIMEOUT = 60.0

_HOST = socket.gethostname()

#: Every abandoned connection (one opened by a parent process before a fork) is kept
#: alive here: SQLite forbids using, or closing, a connection across fork().
_INHERITED = []


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def _nullable(x):
    return None if x is None else float(x)


def _rollback(conn):
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


class FileStore:
    """Append-only storage of ledger entries in an SQLite file (one per ledger object).

    Opens one connection per process, lazily, and verifies the file's hash chain when it
    opens it and inside every transaction; a connection inherited through ``fork`` is set
    aside, never used. ``key`` (bytes or None) is the data owner's HMAC key.
    """

    def __init__(self, path, key=None, expect_id=None):
        self.path = os.path.abspath(os.fspath(path))
        self._chain = Chain(key)
        self.expect_id = expect_id  # the ledger id the file must carry (None: any)
        self.ledger_id = None
        self._conn = None
        self._pid = None
        self.cap = None  # (epsilon or None, delta or None), read from the file
        self.head = None  # (n, head_hash) at the last verification
        # (PRAGMA data_version, n, h_n) when this connection last verified or wrote
        self._known = None
        # the head this object last verified or wrote (kept across connections): every
        # later verification checks that the file still continues from it
        self._seen = None
        self._file_id = None  # (st_dev, st_ino) of the file the connection opened

    def _fail(self, what, exc):
        return _damaged(self.path, what, exc)

    # -- opening ------------------------------------------------------------------------
    def connection(self):
        if self._conn is not None and self._pid == os.getpid():
            if self._file_id == _file_id(self.path):
                return self._conn
            # the file was replaced (moved or copied over): the connection still reads
            # the old one, so open the file now at the path, and verify it afresh
            self._conn.close()
        elif self._conn is not None:
            _INHERITED.append(self._conn)  # opened before a fork: never touch it here
        self._conn, self._known = None, None
        if self._seen is not None and not os.path.exists(self.path):
            raise LedgerFileError(
                f"The privacy ledger file {self.path!r} was deleted or moved under this "
                f"running ledger (it last held {self._seen.n_entries} entries): a new file "
                "would be another ledger, starting from zero. Nothing was created or "
                "recorded; put the file back."
            )
        directory = os.path.dirname(self.path)
        if self.expect_id is not None and not os.path.exists(self.path):
            raise LedgerFileError(
                f"No privacy ledger file at {self.path!r}, and ledger_id= names an existing "
                "ledger: a new file would be another ledger, starting from zero (was the "
                "file deleted or moved?). Nothing was created or recorded."
            )
        if not os.path.isdir(directory):
            raise LedgerFileError(
                f"Cannot create the privacy ledger file {self.path!r}: the folder "
                f"{directory!r} does not exist."
            )
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._fail("cannot be opened", exc) from exc
        try:
            self._validate_or_create(conn)
        except BaseException:
            conn.close()
            raise
        self._conn, self._pid, self._file_id = conn, os.getpid(), _file_id(self.path)
        return conn

    def _validate_or_create(self, conn):
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            n_tables = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise self._fail("is not an SQLite database", exc) from exc
        if app_id != APPLICATION_ID and not (app_id == 0 and n_tables == 0):
            raise LedgerFileError(
                f"{self.path!r} is an SQLite database but not an skdpgd privacy ledger "
                f"(application_id={app_id:#x}, {n_tables} table(s)); refusing to write into "
                "it. Give PrivacyLedger a new file name, or the ledger file you meant."
            )
        try:
            conn.execute("PRAGMA synchronous = FULL")
            if app_id == 0:
                self._create(conn)
            check_version(conn, self.path)
            conn.execute("BEGIN")  # one snapshot: the header and the entries agree
            try:
                self._verify(conn, decode=False)
            finally:
                _rollback(conn)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be read", exc) from exc

    def _create(self, conn):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have just created it.
            if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
                for statement in _SCHEMA.strip().split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT INTO ledger (singleton, format, schema_version, created_at, "
                    "created_by, relation, ledger_id, keyed) "
                    "VALUES (1, ?, ?, ?, ?, 'replace-one', ?, ?)",
                    (FORMAT, SCHEMA_VERSION, _now(), f"skdpgd {__version__}",
                     uuid.uuid4().hex, int(self._chain.keyed)),
                )
                rechain(conn, self._chain, self.path)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise
        # Write-ahead log: one fsync per commit and readers never block a charge
        # (persistent; the file must live on a local file system).
        conn.execute("PRAGMA journal_mode = WAL")

    def _verify(self, conn, since=0, decode=True, full=False):
        """Verify inside the caller's transaction: the whole chain, or, when no other
        connection has committed since this one last verified or wrote (SQLite's
        ``PRAGMA data_version``), the header, the key and the head (O(1) instead of
        O(entries): the entries are byte for byte those it verified)."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        known = self._known
        self._known = None
        if not full and known is not None and known[0] == version:
            found = verify_known(conn, self._chain, self.path, known[1], known[2], since,
                                 decode)
        else:
            found = verify_file(conn, self._chain, self.path, since, decode)
        check_expected(conn, self._chain, self.path, found, expect_id=self.expect_id)
        check_continues(conn, self._chain, self.path, found, self._seen)
        self._seen = SeenHead.of(found)
        self._known = (version, found.n_entries, found.last_hash)
        self.ledger_id = found.header["ledger_id"]
        self.cap = (found.header["cap_epsilon"], found.header["cap_delta"])
        self.head = (found.n_entries, found.header["head_hash"])
        return found

    def set_cap(self, epsilon, delta):
        """Store a cap in a file that has none yet; returns the cap now in the file.

        The cap is part of :math:`h_0`, so the chain is verified, then recomputed, in the
        same transaction.
        """
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        seen = self._seen
        try:
            self._verify(conn, decode=False)
            seen = self._seen  # the committed state, until the cap is committed
            if self.cap[0] is None:
                conn.execute("UPDATE ledger SET cap_epsilon = ?, cap_delta = ?",
                             (_nullable(epsilon), _nullable(delta)))
                rechain(conn, self._chain, self.path)
                self._verify(conn, decode=False, full=True)
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(conn)
            self._seen = seen
            raise self._fail("could not store the cap", exc) from exc
        except BaseException:
            _rollback(conn)
            self._seen = seen
            raise
        return self.cap

    # -- reading and writing ----------------------------------------------------------
    def read(self, since):
        """Entries with seq > ``since``, from a consistent snapshot whose chain verified."""
        conn = self.connection()
        try:
            conn.execute("BEGIN")
            try:
                return self._verify(conn, since).entries
            finally:
                _rollback(conn)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be read", exc) from exc

    def charge(self, since, decide):
        """One transaction: ``decide(new_entries, cap)`` returns the entry to append, or raises.

        Under the write lock, the whole chain is verified; ``decide`` sees every entry
        with seq > ``since`` committed by anyone and the file's (cap_epsilon, cap_delta);
        what it returns is appended with its digest, the head moves, and all is committed
        before this returns ``(new_entries, seq)``. If anything raises, nothing is written.
        """
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be locked for writing", exc) from exc
        try:
            found = self._verify(conn, since)
            entry = decide(found.entries, self.cap)
            seq = found.n_entries + 1
            conn.execute(
                f"INSERT INTO entries ({', '.join(ENTRY_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(ENTRY_COLUMNS))})",
                (seq, uuid.uuid4().hex, entry.recorded_at, entry.source, entry.description,
                 entry.n_samples, entry.epsilon, entry.delta,
                 json.dumps(event_to_dict(entry.event)),
                 None if entry.sample_ids is None else int(entry.sample_ids.size),
                 *_ids_blob(entry.sample_ids), _nullable(entry.spent_epsilon),
                 os.getpid(), _HOST),
            )
            # the digest of the values as stored (read back: what a verifier will see)
            row = conn.execute(f"SELECT {', '.join(ENTRY_COLUMNS)} FROM entries "
                               "WHERE seq = ?", (seq,)).fetchone()
            digest = self._chain.entry(found.last_hash, dict(zip(ENTRY_COLUMNS, row, strict=True)))
            head = self._chain.head(found.header_hash, seq, digest)
            conn.execute("UPDATE entries SET entry_hash = ? WHERE seq = ?", (digest, seq))
            conn.execute("UPDATE ledger SET head_seq = ?, head_hash = ?", (seq, head))
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(conn)
            raise self._fail("could not record the charge", exc) from exc
        except BaseException:
            _rollback(conn)
            raise
        self.head = (seq, head)
        self._known = (version, seq, digest)  # our own commit leaves data_version as is
        self._seen = SeenHead(self.ledger_id, self.cap, found.header_hash, seq, digest)
        return found.entries, seq


def _file_id(path):
    """The identity of the file at ``path`` (None if there is none)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


def check_version(conn, path):
    """Refuse a file of another schema version (version 1: say how to upgrade it)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version == 1:
        advice = ("it has no tamper-evident hash chain yet. Upgrade it once with `skdpgd "
                  "ledger upgrade PATH` or PrivacyLedger.upgrade_file(PATH) (entries "
                  "recorded before the upgrade are only as trustworthy as the file is now)")
    elif version > SCHEMA_VERSION:
        advice = "upgrade skdpgd to read it"
    else:
        advice = ("no migration from it is known; open it with the skdpgd version that "
                  "wrote it and re-record its entries in a new file")
    which = "an older" if version < SCHEMA_VERSION else "a newer"
    raise LedgerFileError(
        f"{path!r} is an skdpgd privacy ledger from {which} schema (version {version}); "
        f"this skdpgd reads version {SCHEMA_VERSION}: {advice}. Nothing was recorded."
    )
