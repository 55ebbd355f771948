"""Warnings and errors raised by skdpgd."""

import functools
import os
import sys
import warnings


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
        warn_at_user(message, cls)


def warn_at_user(message, category=None):
    """``warnings.warn`` at the first frame outside skdpgd, scikit-learn and joblib.

    Parameters
    ----------
    message : str or Warning
        A public text, or a warning instance (its class is then the category).
    category : type, optional
        The warning class of a text message.
    """
    prefixes = _library_dirs()
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=prefixes)
        return
    frame, level = sys._getframe(1), 2  # the caller of warn_at_user is stacklevel 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(prefixes):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def warns_once_each(method):
    """Decorate a fit so that each distinct warning raised inside reaches the user once.

    A search fits many candidates (trials, folds, a refit); a warning that each of them
    raises (the same class and text) says one thing, so it is issued once, after the
    fit, at the user's line. Every distinct warning is kept, in the order first raised.

    Parameters
    ----------
    method : callable

    Returns
    -------
    callable
    """
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                return method(*args, **kwargs)
        finally:
            seen = set()
            for record in caught:
                key = (record.category, str(record.message))
                if key not in seen:
                    seen.add(key)
                    warn_at_user(record.message)
    return wrapper


def _library_dirs():
    """The folders of skdpgd, scikit-learn and joblib, each ending with a separator."""
    import joblib
    import sklearn

    folders = [os.path.dirname(os.path.abspath(__file__))]
    folders += [os.path.dirname(os.path.abspath(m.__file__)) for m in (sklearn, joblib)]
    return tuple(folder + os.sep for folder in folders)
