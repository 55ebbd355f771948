"""Warnings and errors raised by skdpgd."""



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

    @classmethod
    def warn(cls, message):
        """Issue this warning at the user's line: the first caller outside the libraries.

        The frames of skdpgd, scikit-learn and joblib (a fit passes through a Pipeline or
        a search) are skipped, so the warning's filename and line are those of the user's
        call, however deep in the package it was found (``skip_file_prefixes`` on Python
        3.12 and later; the same walk up the stack before).

        Parameters
        ----------
        message : str
            Public text only (column names and the kind of fallback).
        """
        from .utils import warn_at_user  # the one walk to the user's frame

        warn_at_user(message, cls)
