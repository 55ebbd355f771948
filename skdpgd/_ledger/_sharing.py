"""How a :class:`~skdpgd._ledger._ledger.PrivacyLedger` travels: clones share it, a file
ledger pickles as its file, an in-memory copy is read-only.

``sklearn.base.clone`` returns the ledger itself, so every clone a search makes spends on
the one ledger. A process-based joblib backend sends each worker a pickled copy: a file
ledger pickles as its path (and id), so every copy charges the same file inside one
transaction; an in-memory ledger cannot follow its copies, so a copy (pickled, deep-copied
or living in another process) refuses to charge, before the fit touches the data.
"""

import os
import threading

from ..exceptions import LedgerCopyError

__all__ = ["SharedLedger"]


class SharedLedger:
    """The sharing half of :class:`~skdpgd._ledger._ledger.PrivacyLedger` (module
    docstring). Uses the ledger's ``path``, ``epsilon``, ``delta``, ``key_file``,
    ``_store``, ``_owner_pid`` and ``_is_copy``."""

    def __sklearn_clone__(self):
        """Clones of an estimator share its ledger (``clone`` returns this object)."""
        return self

    def __getstate__(self):
        if self.path is not None:  # a file ledger travels as its file
            return {"path": self.path, "epsilon": self.epsilon, "delta": self.delta,
                    "key_file": self.key_file,  # the key file's path, never the key
                    "ledger_id": self._store.ledger_id}  # a copy opens this ledger only
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state):
        if "path" in state and "_store" not in state:
            self.__init__(state["epsilon"], state["delta"], path=state["path"],
                          key_file=state.get("key_file"), ledger_id=state.get("ledger_id"))
            return
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._is_copy = True

    def _check_owner(self):
        if self.path is None and (self._is_copy or os.getpid() != self._owner_pid):
            raise LedgerCopyError(
                "This in-memory PrivacyLedger is a copy (made by pickling, copy.deepcopy, or "
                "living in another process, e.g. a worker of joblib's default 'loky' backend "
                "used by n_jobs > 1): a spend recorded here would be lost by the original "
                "ledger, so it is refused before the fit touches the data. Use a file ledger, "
                "PrivacyLedger(path='budget.sqlite', ...), which processes share; or run the "
                "search with n_jobs=None, or in threads: `with joblib.parallel_config("
                "backend='threading'): search.fit(...)`."
            )
