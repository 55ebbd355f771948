"""The ledger file's schema (version 2) and the encoding of record ids.

The columns are described in :mod:`._sqlite`'s docstring; the digests in :mod:`._chain`.
"""

import io

import numpy as np

APPLICATION_ID = 0x736B6450  # "skdP"
SCHEMA_VERSION = 2
FORMAT = "skdpgd.PrivacyLedger"
#: Header columns covered by h_0, in the order of the table.
HEADER_HASHED = ("format", "schema_version", "created_at", "created_by", "relation",
                 "cap_epsilon", "cap_delta", "ledger_id", "keyed", "v1_entries")
HEADER_COLUMNS = (*HEADER_HASHED, "key_check", "header_hash", "head_seq", "head_hash")
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
