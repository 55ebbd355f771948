"""Warnings at the user's line: the first frame outside skdpgd, scikit-learn and joblib.

A warning found deep in a fit (a pipeline, a search) names the user's call, not a file
of the libraries; a search issues each distinct warning once (``warns_once_each``).
"""

import functools
import os
import sys
import warnings


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

    folders = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # skdpgd/
    folders += [os.path.dirname(os.path.abspath(m.__file__)) for m in (sklearn, joblib)]
    return tuple(folder + os.sep for folder in folders)
