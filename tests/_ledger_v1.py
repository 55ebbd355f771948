"""A version-1 ledger file for the upgrade tests, built as skdpgd wrote it before the
hash chain (schema version 1, commit 1dd830c: the tables below are copied from there)."""

import io
import json
import sqlite3

import numpy as np

from skdpgd.accounting import GaussianDpEvent
from skdpgd.accounting._events import event_to_dict

DELTA = 1e-5

#: The version-1 schema exactly as skdpgd wrote it before the chain (commit 1dd830c).
V1_SCHEMA = """
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
PRAGMA application_id = 1936417872;
PRAGMA user_version = 1;
"""


def v1_file(path, mus, cap=(3.0, DELTA), ids_first=True, source="v1 fit"):
    """A version-1 ledger file as skdpgd 1dd830c wrote it: one entry per mu, the first
    charged to records 0..9 (an 'npy' id blob), the others to every record."""
    with sqlite3.connect(path) as conn:
        for statement in V1_SCHEMA.strip().split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO ledger VALUES (1, 'skdpgd.PrivacyLedger', 1, "
                     "'2025-01-01T00:00:00+00:00', 'skdpgd 0.1', 'replace-one', ?, ?)", cap)
        for k, mu in enumerate(mus):
            blob = None
            if k == 0 and ids_first:
                buf = io.BytesIO()
                np.save(buf, np.arange(10, dtype=np.int64), allow_pickle=False)
                blob = buf.getvalue()
            conn.execute(
                "INSERT INTO entries (charge_id, recorded_at, source, description, "
                "n_samples, epsilon, delta, event, n_ids, ids_encoding, ids_offset, "
                "sample_ids, spent_epsilon, pid, host) "
                "VALUES (?, '2025-01-01T00:00:01+00:00', ?, 'Cor. 3.3', 10, 1.0, "
                "?, ?, ?, ?, NULL, ?, NULL, 1, 'h')",
                (f"c{k}", source, DELTA, json.dumps(event_to_dict(GaussianDpEvent(mu))),
                 None if blob is None else 10, None if blob is None else "npy", blob))
        conn.execute("PRAGMA journal_mode = WAL")
