r"""The hash chain that makes a ledger file tamper-evident (schema version 2).

Every value the file holds is covered by one chain of SHA-256 digests (HMAC-SHA256 with
the data owner's key, when there is one):

.. math::

    h_0 &= H(\texttt{"header"},\ \mathrm{canon}(\text{header row})) \\
    h_k &= H(\texttt{"entry"},\ h_{k-1} \,\|\, \mathrm{canon}(\text{entry } k)),
        \qquad k = 1, \dots, n \\
    \mathrm{head} &= H(\texttt{"head"},\ h_0 \,\|\, n \,\|\, h_n)

with :math:`H(d, m) = \mathrm{SHA256}(P \| d \| 0 \| m)` without a key and
:math:`\mathrm{HMAC\text{-}SHA256}(K, P \| d \| 0 \| m)` with key :math:`K`
(:math:`P` = ``b"skdpgd.PrivacyLedger/2/"``; the domain word ``d`` keeps the three kinds
of digest apart). The header row holds the cap, the neighbouring relation, the creation
time, the schema version, a random ledger id and whether a key is used (never the key);
each entry row holds its position ``seq`` and every column of the charge. Changing,
removing, inserting or reordering anything changes some :math:`h_k` or the head, which
the reader recomputes (:func:`skdpgd._ledger._verify.verify_file`).

**Canonical form.** ``canon`` is the JSON text of a dict of the row's columns with sorted
keys, no whitespace and ASCII only; a float is written as its exact hexadecimal form
(``float.hex``: the same on every platform), an integer as an integer, a blob as its
SHA-256 and length, and the JSON text of a privacy event (the dict of
:meth:`skdpgd.accounting.PrivacyEvent.to_dict`) as that dict in the same canonical form,
so a new event type needs nothing here.

**What it protects.** Without a key, the chain catches every edit made by a tool that does
not recompute the digests (an SQL ``UPDATE`` or ``DELETE``, a hex editor); someone who
knows this scheme can recompute a consistent chain. With a key held by the data owner
(HMAC-SHA256, Bellare, Canetti and Krawczyk 1996; RFC 2104), nobody without the key can
produce a valid chain. A chain only shows that the file agrees with itself, so neither
detects, in a process that opens the file afresh: the whole file replaced by an older copy
of itself (a rollback; a running writer refuses one, as it keeps the head it last verified
or wrote, :func:`skdpgd._ledger._verify.check_continues`), the file cut
after entry k with entry k's head written back, another ledger's file made with the same
key, a new file where the old one was deleted, or a rewrite by a key holder (or by anyone,
without a key). For those keep, where the writers cannot change them, the ledger id (fixed
at creation, part of :math:`h_0`) and the latest head, and compare
(:func:`skdpgd._ledger._verify.check_expected`: ``skdpgd ledger verify --expect-head``,
``--expect-id``, ``PrivacyLedger(ledger_id=...)``).
"""

import hashlib
import hmac
import json
import os

#: Environment variable holding the data owner's key (used when no ``key_file`` is given).
KEY_ENV = "SKDPGD_LEDGER_KEY"
#: Shortest key accepted, in bytes (a shorter one could be guessed).
MIN_KEY_BYTES = 16
_PREFIX = b"skdpgd.PrivacyLedger/2/"


def load_key(key_file=None):
    """The data owner's key: the bytes of ``key_file`` (surrounding whitespace removed),
    else the UTF-8 bytes of ``$SKDPGD_LEDGER_KEY``, else None (no key)."""
    if key_file is not None:
        try:
            with open(os.fspath(key_file), "rb") as f:
                key, where = f.read().strip(), f"key_file {os.fspath(key_file)!r}"
        except OSError as exc:
            raise ValueError(f"Cannot read the ledger key file: {exc.strerror or exc}.") from None
    elif os.environ.get(KEY_ENV):
        key, where = os.environ[KEY_ENV].strip().encode(), f"${KEY_ENV}"
    else:
        return None
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(
            f"The ledger key in {where} is shorter than {MIN_KEY_BYTES} bytes; use a long "
            "random key, e.g. `python -c \"import secrets; print(secrets.token_hex(32))\"`."
        )
    return key


def _canon_value(value):
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return float.hex(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    if isinstance(value, (list, tuple)):
        return [_canon_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _canon_value(v) for k, v in value.items()}
    raise TypeError(f"cannot put a {type(value).__name__} in a ledger digest")


def _json_value(text):
    """A JSON text column as its parsed value (floats exact), or the text if not JSON."""
    try:
        return {"json": json.loads(text)}
    except (TypeError, ValueError):
        return {"text": text}


def canonical(row, json_columns=()):
    """The canonical bytes of a row (a dict of column -> value): sorted-keys ASCII JSON,
    floats as ``float.hex``, blobs as their SHA-256 and size, ``json_columns`` parsed."""
    fields = {k: (_json_value(v) if k in json_columns and v is not None else v)
              for k, v in row.items()}
    return json.dumps(_canon_value(fields), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, allow_nan=False).encode("ascii")


class Chain:
    """The digest function of one ledger file: SHA-256, or HMAC-SHA256 with ``key``."""

    def __init__(self, key=None):
        self._key = key

    @property
    def keyed(self):
        """Whether digests are keyed (HMAC)."""
        return self._key is not None

    def __repr__(self):
        return f"Chain({'HMAC-SHA256' if self.keyed else 'SHA-256'})"  # never the key

    def digest(self, domain, payload):
        message = _PREFIX + domain.encode("ascii") + b"\0" + payload
        if self._key is None:
            return hashlib.sha256(message).hexdigest()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def header(self, header_row):
        """:math:`h_0` of the header's columns."""
        return self.digest("header", canonical(header_row))

    def entry(self, previous, entry_row, json_columns=("event",)):
        """:math:`h_k` of entry ``k`` given :math:`h_{k-1}` (``previous``)."""
        return self.digest("entry", previous.encode("ascii") + b"\0"
                           + canonical(entry_row, json_columns))

    def head(self, header_hash, n_entries, last_hash):
        """The head digest: the header, the number of entries and the last :math:`h_n`."""
        return self.digest("head", f"{header_hash}\0{int(n_entries)}\0{last_hash}".encode())

    def key_check(self, ledger_id):
        """A digest that only the right key reproduces (tells a wrong key from an edit)."""
        return self.digest("key-check", ledger_id.encode("ascii"))


def same(a, b):
    """Constant-time comparison of two digests (either may be None or garbage)."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    return hmac.compare_digest(a.encode("ascii", "replace"), b.encode("ascii", "replace"))
