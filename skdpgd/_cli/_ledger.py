"""``skdpgd ledger show | verify | upgrade PATH``: look at a ledger file, check its chain.

``show`` prints the header (cap, relation, creation, whether a key is used, the ledger id
and the head hash to keep elsewhere) and one line per entry (seq, when, source, n, rows,
mu or event, the fit's epsilon and delta, the running total); ``verify`` prints the
verdict only. ``--expect-head H`` and ``--expect-id ID`` compare the file with a head hash
and a ledger id kept elsewhere (:func:`skdpgd._ledger._verify.check_expected`): what the
chain alone cannot show (a rollback, a cut tail with its head written back, another
ledger's file, a re-chained file).
Both read the file without writing it and exit 2 (one line ``skdpgd ledger: error: ...``,
no traceback) when the chain is broken. Nothing secret is printed: sources hold public
hyperparameters only, and the key is never shown. ``upgrade`` adds the hash chain to a
version-1 file (:meth:`skdpgd.PrivacyLedger.upgrade_file`).
"""

import math


def add_ledger_parser(sub):
    """Register ``skdpgd ledger`` on the CLI's subparsers."""
    ledger = sub.add_parser(
        "ledger", help="show or verify a privacy ledger file (tamper-evident hash chain)",
        description="Read a PrivacyLedger file without changing it: `show` prints its header "
        "and entries, `verify` checks its hash chain (exit status 0 intact, 2 broken). "
        "`upgrade` adds the chain to a file written before schema version 2.",
    )
    actions = ledger.add_subparsers(dest="ledger_action", metavar="ACTION", required=True)
    for name, text in (("show", "print the header, the entries and the verdict"),
                       ("verify", "check the hash chain; exit 0 if intact, 2 if not"),
                       ("upgrade", "add the hash chain to a version-1 file (once)")):
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument("path", help="the ledger file (SQLite)")
        action.add_argument("--key-file", default=None,
                            help="the data owner's key file, for a keyed ledger (default: "
                            "$SKDPGD_LEDGER_KEY if set)")
        if name != "upgrade":
            action.add_argument(
                "--expect-head", default=None, metavar="H",
                help="a head hash kept elsewhere (printed after some charge): the file "
                "must extend it; catches a rollback, a cut tail, a re-chained or swapped "
                "file")
            action.add_argument(
                "--expect-id", default=None, metavar="ID",
                help="the ledger id kept elsewhere: catches another ledger's file (even "
                "one made with the same key) or a new file where yours was deleted")
    ledger.set_defaults(run=ledger_command)


def ledger_command(args):
    """Run ``skdpgd ledger ACTION PATH``; a broken chain raises (exit status 2)."""
    from .._ledger._inspect import inspect_file  # on use: the CLI starts without it

    if args.ledger_action == "upgrade":
        from .._ledger import PrivacyLedger

        n = PrivacyLedger.upgrade_file(args.path, key_file=args.key_file)
        found = inspect_file(args.path, key_file=args.key_file)
        print(f"{found.path}: schema version {found.version}, {n} entries, hash chain "
              f"verified; head hash {found.header.get('head_hash')}")
        return 0
    found = inspect_file(args.path, key_file=args.key_file, expect_head=args.expect_head,
                         expect_id=args.expect_id)
    if args.ledger_action == "show":
        for line in show_lines(found):
            print(line)
    if found.problem is not None:
        raise found.problem
    if args.ledger_action == "verify":
        print(f"{found.path}: intact ({len(found.entries)} entries, header and hash chain "
              f"verified{', keyed' if found.header.get('keyed') else ''}); head hash "
              f"{found.header.get('head_hash')}; ledger id {found.header.get('ledger_id')}")
    if args.ledger_action == "verify" or found.kept_at is not None:
        for line in _expected_lines(args, found):
            print(line)
    return 0


def _expected_lines(args, found):
    """What ``--expect-head`` and ``--expect-id`` confirmed, or what they would catch."""
    lines = []
    if args.expect_id is not None:
        lines.append("  ledger id as expected")
    if found.kept_at is not None:
        added = len(found.entries) - found.kept_at
        lines.append(f"  the head you kept is this file's after entry #{found.kept_at}; "
                     f"{added} entr{'y' if added == 1 else 'ies'} appended since")
    if args.expect_head is None:
        lines.append("  (the chain alone cannot show a rollback, a cut tail with its head "
                     "written back, a swapped or re-chained file: compare with a head kept "
                     "elsewhere, --expect-head H)")
    return lines


def _num(x, fmt=".4g"):
    if x is None:
        return "-"
    return "inf" if x == math.inf else format(x, fmt)


def show_lines(found):
    """The lines ``skdpgd ledger show`` prints."""
    h = found.header
    cap = ("no cap" if h.get("cap_epsilon") is None else
           f"cap epsilon={_num(h['cap_epsilon'])} at delta={_num(h.get('cap_delta'), '.3g')}")
    keyed = h.get("keyed")
    chain = ("no hash chain (version 1)" if found.version == 1 else
             "HMAC-SHA256 chain (keyed)" if keyed else "SHA-256 chain (no key)")
    lines = [
        f"ledger {found.path}",
        f"  {h.get('format')}, schema version {found.version}, created {h.get('created_at')} "
        f"by {h.get('created_by')}",
        f"  relation {h.get('relation')}, {cap}, {chain}",
    ]
    if h.get("ledger_id"):
        lines.append(f"  ledger id {h['ledger_id']} (keep it: PrivacyLedger(ledger_id=...), "
                     "--expect-id)")
    if h.get("v1_entries"):
        lines.append(f"  upgraded from version 1: entries #1 to #{h['v1_entries']} predate the "
                     "chain (only as trustworthy as the version-1 file was)")
    if found.version != 1:
        lines.append(f"  head hash {h.get('head_hash')} after {h.get('head_seq')} entries "
                     "(keep a copy elsewhere and compare: --expect-head)")
    lines.append(f"{'seq':>5}  {'recorded_at (UTC)':<26}  {'n':>8}  {'rows':>8}  "
                 f"{'cost':<22}  {'epsilon':>8}  {'delta':>8}  {'total eps':>9}  source")
    for e in found.entries:
        rows = "all" if e["n_ids"] is None else str(e["n_ids"])
        lines.append(
            f"{e['seq']:>5}  {str(e['recorded_at'])[:26]:<26}  {e['n_samples']:>8}  "
            f"{rows:>8}  {e['cost']:<22}  {_num(e['epsilon']):>8}  "
            f"{_num(e['delta'], '.3g'):>8}  {_num(e['spent_epsilon']):>9}  {e['source']}")
    extra = math.fsum(e.get("extra_delta", 0.0) for e in found.entries)
    if extra:
        lines.append(f"  additive delta (thresholded releases): {extra:.3g} summed over the "
                     "entries, an upper bound on the worst-off record's; it is taken out of "
                     "delta before 'total eps' is computed")
    lines.append("verdict: " + ("intact" if found.intact else "BROKEN (why: the error below)"))
    return lines
