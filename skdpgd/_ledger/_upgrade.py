"""Upgrading a version-1 ledger file (no hash chain) to version 2, once, on request.

The upgrade adds the chain's columns (:mod:`._sqlite`), records in the header how many
entries the file held (``v1_entries``), and computes the chain over the entries as they
are now, in one ``BEGIN IMMEDIATE`` transaction: it is wholly done or not at all. It is
never automatic: a file whose ``user_version`` was set back to 1 by someone who edited
it would otherwise have its edits sealed by the next open. Entries recorded before the
upgrade are therefore only as trustworthy as the version-1 file was; the chain protects
what happens to them from then on.

Version 1 recorded every non-default parameter, ``random_state`` included, in
``entries.source``; the upgrade removes seeds, generators, keys and ledgers from those
descriptions (:func:`._entries.scrub_source`) with ``PRAGMA secure_delete`` on, then
rebuilds the file (``VACUUM``), so the seed is gone from the file's bytes. Copies of the
version-1 file made before the upgrade still hold it.
"""

import os
import sqlite3
import uuid

from ..exceptions import LedgerFileError
from ._chain import Chain, load_key
from ._entries import scrub_source
from ._schema import APPLICATION_ID, FORMAT, SCHEMA_VERSION
from ._sqlite import BUSY_TIMEOUT, _rollback, check_version
from ._verify import _damaged, rechain, verify_file

_NEW_HEADER_COLUMNS = ("ledger_id TEXT", "keyed INTEGER", "v1_entries INTEGER",
                       "key_check TEXT", "header_hash TEXT", "head_seq INTEGER",
                       "head_hash TEXT")


def upgrade_ledger_file(path, *, key_file=None):
    """Add the tamper-evident hash chain to a version-1 ledger file (once).

    Opening a version-1 file (written by skdpgd before schema version 2) is refused
    until it is upgraded: the upgrade is never automatic, so that a file whose
    version was set back by someone who edited it is not sealed unnoticed. It adds
    the chain's columns and computes the chain over the entries as they are now, in
    one transaction. Entries recorded before the upgrade are only as trustworthy as
    the version-1 file was; the chain protects them from then on. A version-2 file
    is verified and left as it is.

    Parameters
    ----------
    path : str or os.PathLike
        The ledger file.
    key_file : str, os.PathLike or None, default=None
        As in :class:`~skdpgd.PrivacyLedger`: the data owner's key for an HMAC chain
        (None: ``SKDPGD_LEDGER_KEY`` if set, else no key).

    Returns
    -------
    int
        The number of entries the file holds.
    """
    return upgrade_v1_file(path, key=load_key(key_file))


def upgrade_v1_file(path, key=None):
    """Add the hash chain to the version-1 ledger file at ``path`` (``key``: HMAC key or
    None); returns the number of entries it held. A version-2 file is left as it is."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise LedgerFileError(f"No privacy ledger file at {path!r}.")
    chain = Chain(key)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    try:
        conn.execute("PRAGMA secure_delete = ON")  # overwritten text is zeroed, not left
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            raise LedgerFileError(f"{path!r} is not an skdpgd privacy ledger file.")
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                n = verify_file(conn, chain, path, decode=False).n_entries
                conn.execute("ROLLBACK")
                return n
            if version != 1:
                check_version(conn, path)  # raises: neither 1 nor 2
            n = _upgrade(conn, chain, path)
            conn.execute("COMMIT")
            conn.execute("VACUUM")  # a fresh file: no old page keeps a scrubbed seed
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.DatabaseError as exc:
            _rollback(conn)
            raise _damaged(path, "could not be upgraded", exc) from exc
        except BaseException:
            _rollback(conn)
            raise
    finally:
        conn.close()
    return n


def _upgrade(conn, chain, path):
    row = conn.execute("SELECT format, schema_version, relation FROM ledger").fetchone()
    if row is None or tuple(row) != (FORMAT, 1, "replace-one"):
        raise _damaged(path, "has a version-1 header that is not a replace-one ledger's")
    seqs = [s for (s,) in conn.execute("SELECT seq FROM entries ORDER BY seq")]
    if seqs != list(range(1, len(seqs) + 1)):
        raise LedgerFileError(
            f"The version-1 privacy ledger file {path!r} has gaps in its entry numbers "
            "(entries were deleted): refusing to seal it with a hash chain. Restore it "
            "from a backup first. Nothing was changed."
        )
    sources = conn.execute("SELECT source, seq FROM entries").fetchall()
    conn.executemany("UPDATE entries SET source = ? WHERE seq = ?",
                     [(scrub_source(text), seq) for text, seq in sources])
    for column in _NEW_HEADER_COLUMNS:
        conn.execute(f"ALTER TABLE ledger ADD COLUMN {column}")
    conn.execute("ALTER TABLE entries ADD COLUMN entry_hash TEXT")
    conn.execute("UPDATE ledger SET schema_version = ?, ledger_id = ?, keyed = ?, "
                 "v1_entries = ?", (SCHEMA_VERSION, uuid.uuid4().hex, int(chain.keyed),
                                    len(seqs)))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    rechain(conn, chain, path)
    verify_file(conn, chain, path)  # decodes every entry: an unreadable one refuses
    return len(seqs)
