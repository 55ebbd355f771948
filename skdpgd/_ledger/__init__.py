"""The privacy ledger: every fit on one data set recorded, composed per record, capped.

- :mod:`._ledger`: :class:`PrivacyLedger` (thin: storage, locking, the cap test).
- :mod:`._entries`: what is recorded (:class:`LedgerEntry`, :class:`LedgerSpend`).
- :mod:`._sqlite`: the ledger file shared by processes and sessions (schema there).

The composition itself lives in :mod:`skdpgd.accounting._composition`.
"""

from ._entries import LedgerEntry, LedgerSpend
from ._ledger import LedgerCopyError, PrivacyLedger
from ._sqlite import LedgerFileError

__all__ = ["LedgerCopyError", "LedgerEntry", "LedgerFileError", "LedgerSpend", "PrivacyLedger"]
