"""Verifying a ledger file's hash chain (:mod:`._chain`) inside a transaction.

:func:`verify_file` checks everything (the key, the schema, the header digest, every
entry's digest and position, the head); :func:`verify_known` is its O(1) form for a
connection that verified the file before and knows (``PRAGMA data_version``) that nobody
else has committed since; :func:`rechain` recomputes the digests after a legitimate
change of the header (a cap set for the first time) or an upgrade from version 1.
"""

import json
import math
import sqlite3
from dataclasses import dataclass

from ..accounting import event_from_dict
from ..exceptions import LedgerFileError
from ._chain import KEY_ENV, same
from ._entries import LedgerEntry
from ._schema import _SCHEMA, ENTRY_COLUMNS, FORMAT, HEADER_COLUMNS, HEADER_HASHED, _ids_from_blob


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
    return dict(zip(HEADER_COLUMNS, row, strict=True))


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
        fields = dict(zip(ENTRY_COLUMNS, row[:-1], strict=True))
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
            entries.append(_decode(dict(zip(ENTRY_COLUMNS, row, strict=True)), path))
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
        previous = chain.entry(previous, dict(zip(ENTRY_COLUMNS, row, strict=True)))
        hashes.append((previous, row[0]))
    conn.executemany("UPDATE entries SET entry_hash = ? WHERE seq = ?", hashes)
    conn.execute("UPDATE ledger SET header_hash = ?, head_seq = ?, head_hash = ?",
                 (h0, len(hashes), chain.head(h0, len(hashes), previous)))


# -- what the chain cannot show by itself: a head and an id kept elsewhere ----------------
def check_expected(conn, chain, path, found, expect_head=None, expect_id=None):
    """Compare a verified file with a head digest and a ledger id kept outside it.

    A chain that verifies only says the file is consistent with itself: an earlier copy
    of the file, the file cut after entry k with the head of entry k written back, a file
    of another ledger made with the same key, or (without a key) a file edited and
    re-chained all verify. What tells them from the real file is something kept where the
    file's writers cannot change it:

    * ``expect_id``: the ledger's random id (set when the file was created, covered by
      :math:`h_0` and, with a key, by the key check). Another ledger's file has another id.
    * ``expect_head``: a head digest :math:`H(h_0, k, h_k)` printed after some entry k
      (``skdpgd ledger show``). The file must pass through it: one of its prefixes
      (k = 0, ..., n) must have that head. A file that extends the kept state by
      appending passes; a rollback or a cut to before entry k, any change to entries 1
      to k or to the header, and another ledger's file do not (SHA-256 / HMAC-SHA256
      second preimages).

    Call it after :func:`verify_file` (``found``) in the same transaction: the stored
    entry digests are then the verified :math:`h_k`.

    Returns
    -------
    int or None
        k, the number of entries at the kept head (None without ``expect_head``).

    Raises
    ------
    LedgerFileError
        Naming what differs (the id, or that no prefix has the kept head).
    """
    if expect_id is not None and not same(str(expect_id), found.header["ledger_id"]):
        raise _broken(path, "it is another ledger's file: its ledger id is not the one "
                      "you expected (a file swapped in, or a new file where yours was "
                      "deleted)")
    if expect_head is None:
        return None
    expect_head = str(expect_head).strip().lower()
    if same(chain.head(found.header_hash, 0, found.header_hash), expect_head):
        return 0
    for seq, digest in conn.execute("SELECT seq, entry_hash FROM entries ORDER BY seq"):
        if seq <= found.n_entries and same(chain.head(found.header_hash, seq, digest),
                                           expect_head):
            return int(seq)
    raise _broken(path, "the head hash you kept is not the head of this file after any "
                  f"of its {found.n_entries} entries: the file was rolled back or cut to "
                  "before it, rewritten (re-chained), or replaced by another ledger's file")


# -- what a running writer holds: the head it last verified or wrote ----------------------
@dataclass(frozen=True)
class SeenHead:
    """The state of a ledger file that a writer last verified or wrote itself.

    ``ledger_id`` and ``cap`` (``(cap_epsilon, cap_delta)``) are the header's,
    ``header_hash`` is :math:`h_0`, ``n_entries`` is n and ``last_hash`` is :math:`h_n`.
    """

    ledger_id: str
    cap: tuple
    header_hash: str
    n_entries: int
    last_hash: str

    @classmethod
    def of(cls, found):
        """The head of a verified file (:class:`Verified`)."""
        header = found.header
        return cls(header["ledger_id"], (header["cap_epsilon"], header["cap_delta"]),
                   found.header_hash, found.n_entries, found.last_hash)


def _rolled_back(path, chain, seen, what):
    head = chain.head(seen.header_hash, seen.n_entries, seen.last_hash)
    return LedgerFileError(
        f"The privacy ledger file {path!r} was rolled back or replaced under this running "
        f"ledger: it last verified or wrote the file at entry #{seen.n_entries} (head "
        f"hash {head}), and now {what}. An earlier copy of the file was restored, or "
        "another file put in its place, so the file records less spend than was charged; "
        "nothing was recorded. Put back the file that continues from that head (`skdpgd "
        f"ledger verify {path} --expect-head {head}` tells it) before charging again."
    )


def check_continues(conn, chain, path, found, seen):
    r"""Refuse a verified file that does not continue from the head ``seen`` (a rollback).

    A chain that verifies says only that the file agrees with itself: an earlier copy
    restored under a running writer verifies too. The writer holds what the file was
    when it last verified or wrote it (:class:`SeenHead`), so the file must still carry
    the same ledger id, hold at least those n entries, and have entry n with the digest
    :math:`h_n` the writer saw (entries appended since by other writers are fine; a
    digest is a second-preimage-resistant function of the header and of entries 1 to n).
    The one legitimate change of the header is a cap set where there was none
    (:meth:`FileStore.set_cap <skdpgd._ledger._sqlite.FileStore.set_cap>`, by any
    writer), which recomputes every digest: the header is then rebuilt without the cap,
    and entries 1 to n are chained from it again, to the same :math:`h_n`.

    Call it after :func:`verify_file` or :func:`verify_known` (``found``), in the same
    transaction: the stored digests are then verified.

    Raises
    ------
    LedgerFileError
        Naming the file, the head the writer saw and what the file holds instead.
    """
    if seen is None:
        return
    header, n = found.header, seen.n_entries
    if not same(header["ledger_id"], seen.ledger_id):
        raise _rolled_back(path, chain, seen, "it carries another ledger id (another "
                           "ledger's file)")
    if found.n_entries < n:
        raise _rolled_back(path, chain, seen, f"it holds {found.n_entries} entries")
    if same(found.header_hash, seen.header_hash):
        if n == 0:
            return
        row = conn.execute("SELECT entry_hash FROM entries WHERE seq = ?", (n,)).fetchone()
        if row is None or not same(row[0], seen.last_hash):
            raise _rolled_back(path, chain, seen, f"its entry #{n} is another one (another "
                               "digest): the file was rolled back and charged again")
        return
    old = {k: header[k] for k in HEADER_HASHED}
    old["cap_epsilon"], old["cap_delta"] = seen.cap
    if seen.cap[0] is not None or not same(chain.header(old), seen.header_hash):
        file_cap = (header["cap_epsilon"], header["cap_delta"])
        raise _rolled_back(path, chain, seen, f"its header is another one (cap {seen.cap} "
                           f"then, {file_cap} now)")
    previous = seen.header_hash  # a cap was set since: entries 1..n from the old h_0
    for row in conn.execute(f"SELECT {', '.join(ENTRY_COLUMNS)} FROM entries "
                            "WHERE seq <= ? ORDER BY seq", (n,)):
        previous = chain.entry(previous, dict(zip(ENTRY_COLUMNS, row, strict=True)))
    if not same(previous, seen.last_hash):
        raise _rolled_back(path, chain, seen, f"its entries 1 to #{n} are other ones (a "
                           "cap was set since, and the file was rolled back and charged "
                           "again)")
