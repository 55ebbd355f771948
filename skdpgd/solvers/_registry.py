"""The solver registry: every list of solver names (estimators, CLI, docs) comes from here.

A solver is registered under its ``solver=`` string with a factory returning the solver
object (:class:`~skdpgd.solvers.Solver`). The built-in solvers are registered in
``skdpgd/solvers/__init__.py``, one line each; a new solver is one module plus one line.

The names are kept in one live set (:data:`NAMES`): the estimators' parameter constraint
holds that very set, so a solver registered later is accepted by ``solver=`` at once.
"""

__all__ = ["DEFAULT", "NAMES", "get", "names", "register", "registered", "unregister"]

#: The ``solver=`` default of the estimators.
DEFAULT = "auto"

#: The registered names (a live set: mutated by :func:`register` / :func:`unregister`).
NAMES = set()

_FACTORIES = {}


def register(name, factory):
    """Register ``factory`` (a callable returning a solver) under ``name``.

    Parameters
    ----------
    name : str
        The ``solver=`` string.
    factory : callable
        ``factory()`` returns the solver object; its ``name`` must be ``name``.

    Returns
    -------
    factory : callable
        Unchanged (so that ``register`` can decorate a class).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a solver name must be a non-empty string, got {name!r}.")
    if name in _FACTORIES:
        raise ValueError(f"a solver named {name!r} is already registered.")
    _FACTORIES[name] = factory
    NAMES.add(name)
    return factory


def unregister(name):
    """Remove the solver ``name`` (built-in solvers included: use with care).

    Parameters
    ----------
    name : str
        A registered name.
    """
    if name == DEFAULT:
        raise ValueError(f"the default solver {DEFAULT!r} cannot be unregistered.")
    del _FACTORIES[name]
    NAMES.discard(name)


def names():
    """The registered names, sorted.

    Returns
    -------
    tuple of str
        The ``solver=`` strings the estimators accept.
    """
    return tuple(sorted(_FACTORIES))


def get(name):
    """The solver object for a ``solver=`` string.

    Parameters
    ----------
    name : str
        A registered name.

    Returns
    -------
    Solver
        A new solver object (solvers compare equal by type and parameters).
    """
    try:
        factory = _FACTORIES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown solver {name!r}; choose one of {list(names())}.") from None
    return factory()



def registered():
    """A new object of every registered solver, in registration order.

    ``"auto"`` asks each for its candidates
    (:meth:`~skdpgd.solvers._capabilities.Capabilities.auto_candidates`).

    Returns
    -------
    list of Solver
        One per registered name.
    """
    return [factory() for factory in _FACTORIES.values()]
