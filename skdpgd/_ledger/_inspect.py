"""Reading a ledger file without changing it: what ``skdpgd ledger show`` and ``verify`` print.

The file is opened read-only (it is never created, upgraded or written); the entries are
listed from their raw columns even when the chain is broken, so a damaged file can still
be looked at, and the verdict is :func:`._verify.verify_file`'s.
"""

import json
import os
import sqlite3
import urllib.parse
from dataclasses import dataclass

from ..accounting import event_from_dict
from ..exceptions import LedgerFileError
from ._chain import Chain, load_key
from ._entries import scrub_source
from ._schema import APPLICATION_ID, SCHEMA_VERSION
from ._sqlite import BUSY_TIMEOUT, _rollback
from ._verify import check_expected, verify_file

_SHOWN = ("seq", "recorded_at", "source", "n_samples", "n_ids", "event", "epsilon", "delta",
          "spent_epsilon")


@dataclass(frozen=True)
class Inspection:
    """A ledger file as read: header (dict), entries (list of dicts of public columns,
    ``cost`` in place of the event), the verdict (None: intact, else the error) and, when
    a kept head was given, the number of entries at that head (``kept_at``)."""

    path: str
    version: int
    header: dict
    entries: list
    problem: LedgerFileError | None
    kept_at: int | None = None

    @property
    def intact(self):
        """Whether the whole chain verified."""
        return self.problem is None


def _extra_delta(text):
    """The event's additive delta (0 without one, or when unreadable)."""
    try:
        form = event_from_dict(json.loads(text)).gaussian_dp()
        return 0.0 if form is None else float(form[1])
    except (TypeError, ValueError, KeyError):
        return 0.0


def _cost(text):
    """The event as a short public text: ``mu=...`` for Gaussian DP (``+d0=...``: its
    additive delta), else its kind."""
    try:
        event = event_from_dict(json.loads(text))
    except (TypeError, ValueError, KeyError):
        return "unreadable event"
    form = event.gaussian_dp()
    if form is None:
        return type(event).__name__
    return f"mu={form[0]:.6g}" + (f"+d0={form[1]:.2g}" if form[1] else "")


def _connect_read_only(path):
    if not os.path.isfile(path):
        raise LedgerFileError(f"No privacy ledger file at {path!r}.")
    uri = "file:" + urllib.parse.quote(path) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise LedgerFileError(f"{path!r} cannot be read as an SQLite database: {exc}.") from None
    if app_id != APPLICATION_ID:
        conn.close()
        raise LedgerFileError(f"{path!r} is not an skdpgd privacy ledger file.")
    return conn


def inspect_file(path, key_file=None, *, expect_head=None, expect_id=None):
    """Read the ledger file at ``path`` (never writing it) and verify its chain.

    Parameters
    ----------
    path : str or os.PathLike
    key_file : str, os.PathLike or None
        As in :class:`~skdpgd.PrivacyLedger` (None: ``SKDPGD_LEDGER_KEY`` if set).
    expect_head, expect_id : str or None
        A head hash and a ledger id kept outside the file
        (:func:`._verify.check_expected`); a file that does not match is not intact.

    Returns
    -------
    Inspection
    """
    path = os.path.abspath(os.fspath(path))
    chain = Chain(load_key(key_file))
    conn = _connect_read_only(path)
    try:
        conn.execute("BEGIN")  # one snapshot for the listing and the verdict
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            cur = conn.execute("SELECT * FROM ledger")
            names = [d[0] for d in cur.description]
            row = cur.fetchone()
            header = {} if row is None else dict(zip(names, row, strict=True))
            entries = []
            for values in conn.execute(f"SELECT {', '.join(_SHOWN)} FROM entries ORDER BY seq"):
                entry = dict(zip(_SHOWN, values, strict=True))
                entry["extra_delta"] = _extra_delta(entry["event"])
                entry["cost"] = _cost(entry.pop("event"))
                entry["source"] = scrub_source(str(entry["source"]))
                entries.append(entry)
            problem, kept_at = None, None
            if version != SCHEMA_VERSION:
                problem = LedgerFileError(
                    f"schema version {version} has no hash chain to verify"
                    + (": upgrade it with `skdpgd ledger upgrade PATH`" if version == 1 else ""))
            else:
                try:
                    found = verify_file(conn, chain, path, decode=False)
                    kept_at = check_expected(conn, chain, path, found, expect_head, expect_id)
                except LedgerFileError as exc:
                    problem = exc
        finally:
            _rollback(conn)
    except sqlite3.DatabaseError as exc:
        raise LedgerFileError(f"{path!r} cannot be read: {exc}.") from None
    finally:
        conn.close()
    return Inspection(path, version, header, entries, problem, kept_at)


def verify_ledger_file(path, *, key_file=None, expect_head=None, expect_id=None):
    """Verify a ledger file, optionally against a head hash and a ledger id kept elsewhere.

    Reads the file without writing it and verifies its whole hash chain (the key, the
    header, every entry, the head), as opening it does. A chain that verifies shows that
    no entry was edited, removed, inserted or reordered by someone who could not
    recompute it; it cannot show a rollback to an earlier copy of the file, the file cut
    after an entry with that entry's head written back, another ledger's file made with
    the same key swapped in, a new file where the old one was deleted, or (without a key)
    a file edited and re-chained. Give what you kept outside the file to catch those:

    * ``expect_head``: a head hash printed after some charge (``skdpgd ledger show`` or
      :attr:`~skdpgd.PrivacyLedger.head_hash`); the file must extend that state (entries may
      have been appended since, none before it changed);
    * ``expect_id``: the ledger id (:attr:`~skdpgd.PrivacyLedger.ledger_id`), fixed for the
      ledger's life: another ledger's file, or a new one, has another.

    Parameters
    ----------
    path : str or os.PathLike
        The ledger file.
    key_file : str, os.PathLike or None, default=None
        As in :class:`~skdpgd.PrivacyLedger` (None: ``SKDPGD_LEDGER_KEY`` if set).
    expect_head : str or None, default=None
        A head hash kept elsewhere.
    expect_id : str or None, default=None
        The ledger id kept elsewhere.

    Returns
    -------
    dict
        ``ledger_id``, ``head_hash`` and ``n_entries`` of the file, and ``kept_at``: the
        number of entries at ``expect_head`` (None without it).

    Raises
    ------
    LedgerFileError
        If the file is not a version-2 ledger, its chain does not verify, or it does not
        match ``expect_head`` or ``expect_id``; the message names what broke.
    """
    found = inspect_file(path, key_file, expect_head=expect_head, expect_id=expect_id)
    if found.problem is not None:
        raise found.problem
    return {"ledger_id": found.header["ledger_id"], "head_hash": found.header["head_hash"],
            "n_entries": len(found.entries), "kept_at": found.kept_at}
