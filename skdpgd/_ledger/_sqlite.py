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
      event TEXT             the privacy event, JSON (skdpgd.accounting._events)
      n_ids INTEGER          NULL: charged to every record
      ids_encoding TEXT      NULL, 'bitmap' (integer ids) or 'npy' (any ids)
      ids_offset INTEGER     the smallest id of a bitmap
      sample_ids BLOB        'bitmap': bit i (little-endian bit order) set when id
                             ids_offset + i was used; 'npy': the sorted distinct ids as
                             a .npy array
      spent_epsilon REAL     worst record's epsilon at cap_delta after this entry
      pid INTEGER, host TEXT who charged
      entry_hash TEXT        h_k = digest of (h_{k-1}, every column above)

The digests are defined in :mod:`._chain`. Version 1 was the same without the
columns ``ledger_id`` to ``head_hash`` and ``entry_hash``; :mod:`._upgrade` adds them.

A charge is one ``BEGIN IMMEDIATE`` transaction: it takes the database's write lock,
verifies the whole chain (:func:`verify_file`), reads the entries other processes
appended since this process last looked, composes, tests the cap, appends the entry with
its digest, moves the head and commits (write-ahead log, ``synchronous=FULL``: the
commit is on disk when ``charge`` returns): two processes can never both pass the cap, no
edit made between two charges goes unseen by the second, and a charge is either wholly in
the file or not at all, whatever kills the process.
"""

import datetime
import io
import json
import math
import os
import socket
import sqlite3
import uuid
from dataclasses import dataclass

import numpy as np

from ..accounting._events import event_from_dict, event_to_dict
from ..exceptions import LedgerFileError
from ._chain import KEY_ENV, Chain, same
from ._entries import LedgerEntry

APPLICATION_ID = 0x736B6450  # "skdP"
SCHEMA_VERSION = 2
FORMAT = "skdpgd.PrivacyLedger"
#: Seconds a charge waits for another process's transaction before giving up.
BUSY_TIMEOUT = 60.0

#: Header columns covered by h_0, in the order of the table.
HEADER_HASHED = ("format", "schema_version", "created_at", "created_by", "relation",
                 "cap_epsilon", "cap_delta", "ledger_id", "keyed", "v1_entries")
HEADER_COLUMNS = HEADER_HASHED + ("key_check", "header_hash", "head_seq", "head_hash")
#: Entry columns covered by h_k (every column but entry_hash).
ENTRY_COLUMNS = ("seq", "charge_id", "recorded_at", "source", "description", "n_samples",
                 "epsilon", "delta", "event", "n_ids", "ids_encoding", "ids_offset",
                 "sample_ids", "spent_epsilon", "pid", "host")

_SCHEMA = f"""
CREATE TABLE ledger (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    format TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    relation TEXT NOT NULL,
    cap_epsilon REAL,
    cap_delta REAL,
    ledger_id TEXT,
    keyed INTEGER,
    v1_entries INTEGER,
    key_check TEXT,
    header_hash TEXT,
    head_seq INTEGER,
    head_hash TEXT
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
    host TEXT,
    entry_hash TEXT
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


def _damaged(path, what, exc=None):
    cause = "" if exc is None else f": {exc}"
    return LedgerFileError(
        f"The privacy ledger file {path!r} {what}{cause}. It may be damaged or not a "
        "ledger; nothing was recorded. Restore it from a backup, or point "
        "PrivacyLedger(path=...) at the right file."
    )


def _broken(path, what):
    return LedgerFileError(
        f"The privacy ledger file {path!r} fails its integrity check: {what}. It was "
        "changed outside skdpgd (or is damaged), so the spend it records cannot be "
        "trusted; nothing was recorded. Restore it from a backup and compare its head "
        "hash with the one you kept (`skdpgd ledger show`)."
    )


# -- verification ----------------------------------------------------------------------
@dataclass(frozen=True)
class Verified:
    """What :func:`verify_file` found: the header row, the decoded entries after
    ``since``, :math:`h_0`, the number of entries and :math:`h_n`."""

    header: dict
    entries: list
    header_hash: str
    n_entries: int
    last_hash: str


def read_header(conn, path):
    """The header row as a dict (raises LedgerFileError if it is missing)."""
    row = conn.execute(f"SELECT {', '.join(HEADER_COLUMNS)} FROM ledger").fetchone()
    if row is None:
        raise _damaged(path, "has no header row")
    return dict(zip(HEADER_COLUMNS, row))


def _check_key(header, chain, path):
    keyed = header["keyed"]
    if keyed not in (0, 1) or not isinstance(header["ledger_id"], str):
        raise _broken(path, "the header's key flag or ledger id was changed")
    if keyed and not chain.keyed:
        raise LedgerFileError(
            f"The privacy ledger file {path!r} was created with a key (its hash chain is "
            "an HMAC): give the data owner's key, PrivacyLedger(path=..., key_file=...) or "
            f"the environment variable {KEY_ENV} (CLI: --key-file). Nothing was recorded."
        )
    if not keyed and chain.keyed:
        raise LedgerFileError(
            f"A key was given but the privacy ledger file {path!r} has no key: it was "
            "created without one, or rewritten by someone who does not hold the key "
            "(a forger recomputing plain hashes). Nothing was recorded. If the file is "
            f"genuinely unkeyed, open it without key_file= and with {KEY_ENV} unset."
        )
    if keyed and not same(chain.key_check(header["ledger_id"]), header["key_check"]):
        raise LedgerFileError(
            f"Wrong key for the privacy ledger file {path!r} (or its key check was edited): "
            "the key does not reproduce the file's key check. Nothing was recorded."
        )


def _decode(fields, path):
    seq = fields["seq"]
    try:
        event = event_from_dict(json.loads(fields["event"]))
        ids = _ids_from_blob(fields["ids_encoding"], fields["ids_offset"],
                             fields["sample_ids"])
        eps = fields["epsilon"]
        return LedgerEntry(
            source=fields["source"], n_samples=int(fields["n_samples"]), event=event,
            epsilon=math.inf if eps is None else float(eps), delta=float(fields["delta"]),
            sample_ids=ids, description=fields["description"], seq=int(seq),
            recorded_at=fields["recorded_at"], spent_epsilon=fields["spent_epsilon"],
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise _damaged(path, f"has an unreadable entry #{seq}", exc) from exc


def verify_file(conn, chain, path, since=0, decode=True):
    """Verify the whole hash chain of an open ledger file; decode the entries after ``since``.

    Checks, in order: the key (a keyed file needs the key, an unkeyed file refuses one, the
    key check), the header digest :math:`h_0`, that the entries are numbered 1, 2, ..., n
    with no gap, each entry's digest :math:`h_k`, and the head (n and :math:`h_n`). The
    first failure raises :class:`~skdpgd.exceptions.LedgerFileError` naming the entry or
    the header, never a stored value. Call it inside the transaction that relies on it.

    Returns
    -------
    Verified
    """
    header, h0 = _verified_header(conn, chain, path)
    previous, expected, entries = h0, 1, []
    cursor = conn.execute(
        f"SELECT {', '.join(ENTRY_COLUMNS)}, entry_hash FROM entries ORDER BY seq")
    for row in cursor:
        fields = dict(zip(ENTRY_COLUMNS, row[:-1]))
        seq = fields["seq"]
        if seq != expected:
            raise _broken(path, f"entry #{expected} is missing (the entry after "
                          f"#{expected - 1} is numbered #{seq})" if expected > 1 else
                          f"entry #1 is missing (the first entry is numbered #{seq})")
        if decode and seq > since:
            entries.append(_decode(fields, path))
        try:
            digest = chain.entry(previous, fields)
        except TypeError as exc:
            raise _broken(path, f"entry #{seq} holds a value of the wrong type ({exc})") from None
        if not same(digest, row[-1]):
            raise _broken(path, f"entry #{seq} does not match its hash: it (or its "
                          "position) was changed after it was recorded")
        previous, expected = digest, expected + 1
    n = expected - 1
    _check_head(header, chain, path, h0, n, previous)
    return Verified(header, entries, h0, n, previous)


def _expected_schema():
    """What the schema above creates: {(type, name)} and, per table, its columns as
    ``PRAGMA table_xinfo`` reports them (name, declared type, not null, default, hidden)."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in _SCHEMA.strip().split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO entries (charge_id, recorded_at, source, description, "
                     "n_samples, epsilon, delta, event) VALUES ('', '', '', '', 0, 0, 0, '')")
        objects = frozenset(conn.execute("SELECT type, name FROM sqlite_master"))
        columns = {t: _columns(conn, t) for t in ("ledger", "entries")}
    finally:
        conn.close()
    return objects, columns


def _columns(conn, table):
    return frozenset((r[1], r[2], r[3], r[4], r[6])
                     for r in conn.execute(f"PRAGMA table_xinfo({table})"))


_OBJECTS, _COLUMNS = _expected_schema()


def _check_schema(conn, path):
    """No trigger, view, index or column that skdpgd did not create: a trigger could
    rewrite a charge as it is written, before its digest is taken."""
    objects = frozenset(conn.execute("SELECT type, name FROM sqlite_master"))
    extra = sorted(objects - _OBJECTS)
    if extra:
        listed = ", ".join(f"{kind} {name!r}" for kind, name in extra[:3])
        raise _broken(path, f"it holds database objects skdpgd does not create ({listed})")
    for table, expected in _COLUMNS.items():
        if _columns(conn, table) != expected:
            raise _broken(path, f"the columns of its table {table!r} were altered")


def _verified_header(conn, chain, path):
    _check_schema(conn, path)
    header = read_header(conn, path)
    _check_key(header, chain, path)
    try:
        h0 = chain.header({k: header[k] for k in HEADER_HASHED})
    except TypeError as exc:
        raise _broken(path, f"the header holds a value of the wrong type ({exc})") from None
    if not same(h0, header["header_hash"]):
        raise _broken(path, "the header (cap, neighbouring relation, creation time, schema "
                      "version or key flag) was changed after it was written")
    if header["format"] != FORMAT or header["relation"] != "replace-one":
        raise _damaged(path, "has a header that is not an skdpgd replace-one ledger's")
    return header, h0


def _check_head(header, chain, path, h0, n, last_hash):
    head_seq = header["head_seq"]
    if isinstance(head_seq, int) and head_seq > n:
        raise _broken(path, f"the file ends at entry #{n} but its head records {head_seq} "
                      f"entries: entries #{n + 1} to #{head_seq} were removed")
    if head_seq != n or not same(chain.head(h0, n, last_hash), header["head_hash"]):
        raise _broken(path, f"its head (the number of entries and the last entry's hash) "
                      f"does not match the {n} entries it holds")


def verify_known(conn, chain, path, n, last_hash, since=0, decode=True):
    """:func:`verify_file` for a connection that verified the whole chain before, ending at
    entry ``n`` with digest ``last_hash``, when no other connection has committed since
    (``PRAGMA data_version`` unchanged: the entries are those it verified or wrote). The
    header, the key and the head are checked again; the entries after ``since`` are
    decoded. Anything unexpected raises (the caller then verifies in full)."""
    header, h0 = _verified_header(conn, chain, path)
    count, last_seq = conn.execute("SELECT count(*), max(seq) FROM entries").fetchone()
    if (count, last_seq or 0) != (n, n):
        _check_head(header, chain, path, h0, count, "")  # raises, naming the difference
        raise _broken(path, "its entries are not numbered 1 to n")
    _check_head(header, chain, path, h0, n, last_hash)
    entries = []
    if decode:
        for row in conn.execute(f"SELECT {', '.join(ENTRY_COLUMNS)} FROM entries "
                                "WHERE seq > ? ORDER BY seq", (since,)):
            entries.append(_decode(dict(zip(ENTRY_COLUMNS, row)), path))
    return Verified(header, entries, h0, n, last_hash)


def rechain(conn, chain, path):
    """Recompute h_0, every h_k and the head from the stored values (inside a write
    transaction, after the old chain was verified, or when upgrading a version-1 file)."""
    header = read_header(conn, path)
    if chain.keyed:
        conn.execute("UPDATE ledger SET key_check = ?",
                     (chain.key_check(header["ledger_id"]),))
    h0 = chain.header({k: header[k] for k in HEADER_HASHED})
    previous, hashes = h0, []
    for row in conn.execute(f"SELECT {', '.join(ENTRY_COLUMNS)} FROM entries ORDER BY seq"):
        previous = chain.entry(previous, dict(zip(ENTRY_COLUMNS, row)))
        hashes.append((previous, row[0]))
    conn.executemany("UPDATE entries SET entry_hash = ? WHERE seq = ?", hashes)
    conn.execute("UPDATE ledger SET header_hash = ?, head_seq = ?, head_hash = ?",
                 (h0, len(hashes), chain.head(h0, len(hashes), previous)))


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

    def __init__(self, path, key=None):
        self.path = os.path.abspath(os.fspath(path))
        self._chain = Chain(key)
        self._conn = None
        self._pid = None
        self.cap = None  # (epsilon or None, delta or None), read from the file
        self.head = None  # (n, head_hash) at the last verification
        # (PRAGMA data_version, n, h_n) when this connection last verified or wrote
        self._known = None

    def _fail(self, what, exc):
        return _damaged(self.path, what, exc)

    # -- opening ------------------------------------------------------------------------
    def connection(self):
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self._conn is not None:
            _INHERITED.append(self._conn)  # opened before a fork: never touch it here
        self._conn, self._known = None, None
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
            check_version(conn, self.path)
            conn.execute("BEGIN")  # one snapshot: the header and the entries agree
            try:
                self._verify(conn, decode=False)
            finally:
                _rollback(conn)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot be read", exc) from exc

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
        self._known = (version, found.n_entries, found.last_hash)
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
        try:
            self._verify(conn, decode=False)
            if self.cap[0] is None:
                conn.execute("UPDATE ledger SET cap_epsilon = ?, cap_delta = ?",
                             (_nullable(epsilon), _nullable(delta)))
                rechain(conn, self._chain, self.path)
                self._verify(conn, decode=False, full=True)
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(conn)
            raise self._fail("could not store the cap", exc) from exc
        except BaseException:
            _rollback(conn)
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
            digest = self._chain.entry(found.last_hash, dict(zip(ENTRY_COLUMNS, row)))
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
        return found.entries, seq


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
