"""The ledger file: an SQLite database (standard library ``sqlite3``) shared by processes.

Schema (version 1)
------------------
The file identifies itself by ``PRAGMA application_id = 0x736B6450`` ("skdP") and
``PRAGMA user_version = 1`` (the schema version), and holds two tables::

    ledger   -- one row: what the file is
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1)
      format TEXT            'skdpgd.PrivacyLedger'
      schema_version INTEGER 1
      created_at TEXT        UTC, ISO 8601
      created_by TEXT        'skdpgd <version>'
      relation TEXT          'replace-one' (the neighbouring relation of every entry)
      cap_epsilon REAL       NULL: no cap
      cap_delta REAL         NULL: no default delta

    entries  -- one row per charge, append-only
      seq INTEGER PRIMARY KEY AUTOINCREMENT   order of the charges
      charge_id TEXT UNIQUE  a random UUID
      recorded_at TEXT       UTC, ISO 8601
      source TEXT            estimator class and non-default parameters
      description TEXT       the theorem behind the cost
      n_samples INTEGER      rows the fit used
      epsilon REAL, delta REAL    the fit's own (epsilon, delta)
      event TEXT             the privacy event, JSON (skdpgd.accounting._events)
      n_ids INTEGER          NULL: charged to every record
      ids_encoding TEXT      NULL, 'bitmap' (integer ids) or 'npy' (any ids)
      ids_offset INTEGER     the smallest id of a bitmap
      sample_ids BLOB        'bitmap': bit i (little-endian bit order) set when id
                             ids_offset + i was used; 'npy': the sorted distinct ids as
                             a .npy array
      spent_epsilon REAL     worst record's epsilon at cap_delta after this entry
      pid INTEGER, host TEXT who charged

A charge is one ``BEGIN IMMEDIATE`` transaction: it takes the database's write lock, reads
the entries other processes appended since this process last looked, composes, tests the
cap, appends and commits (write-ahead log, ``synchronous=FULL``: the commit is on disk
when ``charge`` returns): two processes can never both pass the cap,
and a charge is either wholly in the file or not at all, whatever kills the process.
"""

import datetime
import io
import json
import math
import os
import socket
import sqlite3
import uuid

import numpy as np

from ..accounting._events import event_from_dict, event_to_dict
from ..exceptions import LedgerFileError
from ._entries import LedgerEntry

APPLICATION_ID = 0x736B6450  # "skdP"
SCHEMA_VERSION = 1
FORMAT = "skdpgd.PrivacyLedger"
#: Seconds a charge waits for another process's transaction before giving up.
BUSY_TIMEOUT = 60.0

_SCHEMA = f"""
CREATE TABLE ledger (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    format TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    relation TEXT NOT NULL,
    cap_epsilon REAL,
    cap_delta REAL
);
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    charge_id TEXT NOT NULL UNIQUE,
    recorded_at TEXT NOT NULL,
    source TEXT NOT NULL,
    description TEXT NOT NULL,
    n_samples INTEGER NOT NULL,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL,
    event TEXT NOT NULL,
    n_ids INTEGER,
    ids_encoding TEXT,
    ids_offset INTEGER,
    sample_ids BLOB,
    spent_epsilon REAL,
    pid INTEGER,
    host TEXT
);
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""

_HOST = socket.gethostname()

#: Every abandoned connection (one opened by a parent process before a fork) is kept
#: alive here: SQLite forbids using, or closing, a connection across fork().
_INHERITED = []




def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def _ids_blob(ids):
    """(encoding, offset, blob) of sorted distinct ids: a bitmap for integer ids (1 bit
    per id in [min, max], at most 8x the raw size), else a .npy array."""
    if ids is None:
        return None, None, None
    ids = np.asarray(ids)
    if ids.dtype.kind in "iu" and ids.size and int(ids[-1]) - int(ids[0]) < 64 * ids.size:
        offset = int(ids[0])
        bits = np.zeros(int(ids[-1]) - offset + 1, dtype=bool)
        bits[ids - offset] = True
        return "bitmap", offset, np.packbits(bits, bitorder="little").tobytes()
    buf = io.BytesIO()
    np.save(buf, ids, allow_pickle=False)
    return "npy", None, buf.getvalue()


def _ids_from_blob(encoding, offset, blob):
    if blob is None:
        return None
    if encoding == "bitmap":
        bits = np.unpackbits(np.frombuffer(blob, dtype=np.uint8), bitorder="little")
        ids = np.flatnonzero(bits).astype(np.int64) + int(offset)
    elif encoding == "npy":
        ids = np.load(io.BytesIO(blob), allow_pickle=False)
    else:
        raise ValueError(f"unknown ids_encoding {encoding!r}")
    ids.setflags(write=False)
    return ids


def _nullable(x):
    return None if x is None else float(x)


class FileStore:
    """Append-only storage of ledger entries in an SQLite file (one per ledger object).

    Opens one connection per process, lazily; a connection inherited through ``fork`` is
    set aside, never used.
    """

    def __init__(self, path):
        self.path = os.path.abspath(os.fspath(path))
        self._conn = None
        self._pid = None
        self.cap = None  # (epsilon or None, delta or None), read from the file

    def _fail(self, what, exc):
        return LedgerFileError(
            f"The privacy ledger file {self.path!r} {what}: {exc}. It may be damaged or "
            "not a ledger; nothing was recorded. Restore it from a backup, or point "
            "PrivacyLedger(path=...) at the right file."
        )

    # -- opening ------------------------------------------------------------------------
    def connection(self):
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self._conn is not None:
            _INHERITED.append(self._conn)  # opened before a fork: never touch it here
        self._conn = None
        directory = os.path.dirname(self.path)
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
        self._conn, self._pid = conn, os.getpid()
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
            self._check_version(conn)
            row = conn.execute(
                "SELECT format, relation, cap_epsilon, cap_delta FROM ledger").fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be read", exc) from exc
        if row is None or row[0] != FORMAT or row[1] != "replace-one":
            raise LedgerFileError(
                f"{self.path!r} claims to be an skdpgd privacy ledger but its header row is "
                f"{row!r}; it may be damaged. Nothing was recorded."
            )
        self.cap = (row[2], row[3])

    def _create(self, conn):
        from .. import __version__

        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have just created it.
            if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
                for statement in _SCHEMA.strip().split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT INTO ledger VALUES (1, ?, ?, ?, ?, 'replace-one', NULL, NULL)",
                    (FORMAT, SCHEMA_VERSION, _now(), f"skdpgd {__version__}"),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        # Write-ahead log: one fsync per commit and readers never block a charge
        # (persistent; the file must live on a local file system).
        conn.execute("PRAGMA journal_mode = WAL")

    def _check_version(self, conn):
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            which = "an older" if version < SCHEMA_VERSION else "a newer"
            advice = ("upgrade skdpgd to read it" if version > SCHEMA_VERSION else
                      "no migration from it is known; open it with the skdpgd version that "
                      "wrote it and re-record its entries in a new file")
            raise LedgerFileError(
                f"{self.path!r} is an skdpgd privacy ledger from {which} schema (version "
                f"{version}); this skdpgd reads version {SCHEMA_VERSION}: {advice}. Nothing "
                "was recorded."
            )

    def set_cap(self, epsilon, delta):
        """Store a cap in a file that has none yet; returns the cap now in the file."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT cap_epsilon, cap_delta FROM ledger").fetchone()
            if row[0] is None:
                conn.execute("UPDATE ledger SET cap_epsilon = ?, cap_delta = ?",
                             (_nullable(epsilon), _nullable(delta)))
                row = (_nullable(epsilon), _nullable(delta))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self.cap = row
        return row

    # -- reading and writing ----------------------------------------------------------
    def _rows(self, conn, since):
        rows = conn.execute(
            "SELECT seq, source, description, n_samples, epsilon, delta, event, ids_encoding, "
            "ids_offset, sample_ids, recorded_at, spent_epsilon FROM entries WHERE seq > ? "
            "ORDER BY seq", (since,)
        ).fetchall()
        out = []
        for seq, source, desc, n, eps, delta, event, enc, offset, blob, at, spent in rows:
            try:
                decoded = event_from_dict(json.loads(event))
                ids = _ids_from_blob(enc, offset, blob)
            except (ValueError, TypeError, KeyError) as exc:
                raise self._fail(f"has an unreadable entry #{seq}", exc) from exc
            out.append(LedgerEntry(
                source=source, n_samples=int(n), event=decoded,
                epsilon=math.inf if eps is None else float(eps), delta=float(delta),
                sample_ids=ids, description=desc, seq=int(seq), recorded_at=at,
                spent_epsilon=spent,
            ))
        return out

    def read(self, since):
        """Entries with seq > ``since`` (a consistent snapshot)."""
        conn = self.connection()
        try:
            return self._rows(conn, since)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be read", exc) from exc

    def charge(self, since, decide):
        """One transaction: ``decide(new_entries, cap)`` returns the entry to append, or raises.

        ``decide`` sees every entry with seq > ``since`` committed by anyone and the
        file's (cap_epsilon, cap_delta), under the write lock; what it returns is appended and committed before this returns the
        stored entry. If ``decide`` raises, nothing is written.
        """
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be locked for writing", exc) from exc
        try:
            new = self._rows(conn, since)
            cap = conn.execute("SELECT cap_epsilon, cap_delta FROM ledger").fetchone()
            entry = decide(new, cap)
            cur = conn.execute(
                "INSERT INTO entries (charge_id, recorded_at, source, description, n_samples, "
                "epsilon, delta, event, n_ids, ids_encoding, ids_offset, sample_ids, "
                "spent_epsilon, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (uuid.uuid4().hex, entry.recorded_at, entry.source, entry.description,
                 entry.n_samples, entry.epsilon, entry.delta,
                 json.dumps(event_to_dict(entry.event)),
                 None if entry.sample_ids is None else int(entry.sample_ids.size),
                 *_ids_blob(entry.sample_ids), _nullable(entry.spent_epsilon),
                 os.getpid(), _HOST),
            )
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(conn)
            raise self._fail("could not record the charge", exc) from exc
        except BaseException:
            _rollback(conn)
            raise
        return new, cur.lastrowid


def _rollback(conn):
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass
