"""The privacy ledger: every fit on one data set recorded, composed per record, capped.

- :mod:`._ledger`: :class:`PrivacyLedger` (thin: storage, locking, the cap test);
  :mod:`._sharing`: how it travels (clones share it, copies are read-only).
- :mod:`._entries`: what is recorded (:class:`LedgerEntry`, :class:`LedgerSpend`).
- :mod:`._sqlite`: the ledger file shared by processes and sessions (schema there;
  constants and SQL in :mod:`._schema`).
- :mod:`._chain`: the hash chain that makes the file tamper-evident (SHA-256, or
  HMAC-SHA256 with the data owner's key); :mod:`._verify` checks it in every transaction.
- :mod:`._upgrade`: version-1 files to version 2, on request; :mod:`._inspect`: reading a
  file without writing it (``skdpgd ledger show`` / ``verify``).

The composition itself lives in :mod:`skdpgd.accounting._composition`.
"""

from ..exceptions import LedgerCopyError
from ._entries import LedgerEntry, LedgerSpend
from ._ledger import PrivacyLedger
from ._sqlite import LedgerFileError

__all__ = ["LedgerCopyError", "LedgerEntry", "LedgerFileError", "LedgerSpend", "PrivacyLedger"]
