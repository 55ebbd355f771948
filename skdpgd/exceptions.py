"""Warnings and errors raised by skdpgd."""


class PrivacyBudgetWarning(UserWarning):
    """A requested privacy budget cannot be met as asked, or is met only loosely."""


class BoundNotApplicableError(ValueError):
    """A privacy theorem's hypotheses do not hold for the run it was asked about.

    Raised, for example, when Chourasia et al.'s bound (which needs a step size
    below 1/smoothness) is asked about a run with a larger step.
    """


class PrivacyBudgetExceeded(RuntimeError):
    """A fit (or a private search) would take a :class:`skdpgd.PrivacyLedger` past its cap.

    Raised by :meth:`skdpgd.PrivacyLedger.charge` *before* the data are touched; the
    refused fit is not recorded and spends nothing.
    """


class LedgerCopyError(RuntimeError):
    """A copy of an in-memory :class:`skdpgd.PrivacyLedger` (made by pickling, or living in
    another process) was asked to record a spend that the original would never see.

    Use a file ledger, ``PrivacyLedger(path=...)``, to share a budget between processes.
    """


class LedgerFileError(ValueError):
    """A ledger file cannot be used: not SQLite, not a ledger, damaged, another version, or
    its hash chain does not verify (an entry or the header was changed, entries were
    removed, the key is missing or wrong).

    Raised before anything is recorded. The message names the entry (``entry #3``) or the
    header that broke, never a stored value or the key.
    """



class PreparationFallbackWarning(UserWarning):
    """A private preparation step fell back to a public default for some column.

    For example, no histogram cell of a numeric column passed the threshold (too few rows
    for the noise) and a public map was used, or every column of an array became
    categorical. The message names the columns and the kind of fallback, never a value.
    """
