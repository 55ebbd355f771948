"""The in-memory store of a ledger (the default, this process only)."""

from ._entries import LedgerEntry


class MemoryStore:
    """Entries in a list (the default ledger); the caller holds the ledger's lock."""

    def __init__(self):
        self.rows = []

    def read(self, since):
        return self.rows[since:]

    def charge(self, since, decide):
        new = self.rows[since:]
        entry = decide(new, None)
        seq = len(self.rows) + 1
        self.rows.append(with_seq(entry, seq))
        return new, seq


def with_seq(entry, seq):
    """``entry`` with its sequence number set."""
    return LedgerEntry(**{**entry.__dict__, "seq": int(seq)})
