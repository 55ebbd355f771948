"""Every exception a refusal carries: the secrets tests look for data in all of them.

A traceback prints an exception's ``__cause__`` (and its ``__context__`` unless
``__suppress_context__``), but anything else that walks the chain (an error reporter, a
debugger, ``logging`` handlers of other libraries, user code) reads every link, and every
link's ``args``: a ``UnicodeDecodeError`` keeps the raw bytes of the file in its
``args[1]``, a ``KeyError`` the key it looked up. So a refusal must hold no private value
in any of them (docs/privacy_model.md, "The domain of the guarantee").
"""

__all__ = ["assert_chain_free_of", "assert_no_original", "chain_texts", "exception_chain"]


def exception_chain(error):
    """``error`` and every exception reachable from it, each once.

    Reached through ``__cause__``, ``__context__`` (suppressed or not) and every argument
    of every link that is itself an exception, at any depth.
    """
    seen, stack, out = set(), [error], []
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        out.append(current)
        stack += [current.__cause__, current.__context__]
        stack += [arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException)]
    return out


def chain_texts(error):
    """Every text the chain of ``error`` holds: ``str``, ``repr``, notes and each argument's
    ``repr`` (bytes, objects) and ``str``, for every link."""
    texts = []
    for link in exception_chain(error):
        texts += [str(link), repr(link)]
        texts += [str(note) for note in getattr(link, "__notes__", [])]
        for arg in getattr(link, "args", ()):
            texts += [repr(arg), str(arg)]
        for name in ("object", "filename", "filename2"):  # UnicodeError, OSError
            value = getattr(link, name, None)
            if value is not None:
                texts.append(repr(value))
    return texts


def assert_chain_free_of(error, secrets):
    """No secret (a str; also looked for as UTF-8 and latin-1 bytes) in any text of the chain."""
    texts = chain_texts(error)
    for secret in secrets:
        forms = {secret, repr(secret.encode("utf-8"))[2:-1],
                 repr(secret.encode("latin-1", "replace"))[2:-1]}
        for text in texts:
            for form in forms:
                assert form not in text, (secret, text[:300])


def assert_no_original(error):
    """The refusal is ours alone: no exception chained to it, no exception in its args."""
    assert error.__cause__ is None and error.__context__ is None, (
        repr(error.__cause__), repr(error.__context__))
    assert exception_chain(error) == [error], exception_chain(error)
    assert all(isinstance(arg, (str, int, float)) for arg in error.args), error.args
