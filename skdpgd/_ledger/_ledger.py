r"""A privacy ledger shared by every fit on one data set: records, composes, enforces a cap.

One :class:`PrivacyLedger` stands for **one data set of records** (the population whose
privacy it protects). Every fit that receives the ledger is recorded *before* it touches
the data; the ledger reports, for the worst-off record, the composed cost of all recorded
fits, and refuses (:class:`~skdpgd.exceptions.PrivacyBudgetExceeded`) a fit that would
take that cost past an optional cap.

The ledger is thin: it stores privacy *events* (``report.event``: a Gaussian-DP mu, a
Poisson-sampled Gaussian run, a Renyi-DP curve) with the public ids of the rows they
read, and delegates all composition to :mod:`skdpgd.accounting._composition` (rules,
theorems and the per-record bookkeeping are documented there). It lives in memory
(default) or in an SQLite file (``path=``) that several processes and later sessions
share (:mod:`._sqlite`, where the schema is).

Parallel composition needs the row subsets to be chosen **independently of the private
data** (from public ids, the seed and n only). A label-stratified split
(``StratifiedKFold``, scikit-learn's default ``cv`` for classifiers) is not: replacing one
label can move many records between folds. Use ``KFold`` / ``ShuffleSplit`` splitters.
"""

import datetime
import os
import threading

import numpy as np

from ..accounting import DEFAULT_ORDERS, Cap, RecordAccount, RenyiDpEvent, check_supported
from ._cap import check_cap, over_cap
from ._chain import load_key
from ._entries import LedgerEntry, LedgerSpend, check_ids, describe
from ._inspect import verify_ledger_file
from ._memory import MemoryStore, with_seq
from ._sharing import SharedLedger
from ._sqlite import FileStore, LedgerFileError
from ._upgrade import upgrade_ledger_file


class PrivacyLedger(SharedLedger):
    r"""Record every fit on one data set, report the per-record cost, enforce a cap.

    Give the same ledger to every estimator that trains on the data set
    (``DPLogisticRegression(ledger=ledger)``). Each fit calls :meth:`charge` after its
    (public) plan is made and before any pass over the data; the ledger either records
    the fit or raises :class:`~skdpgd.exceptions.PrivacyBudgetExceeded`, in which case
    nothing is recorded and the data are never read. The decision uses public numbers
    only (the fits' events and ids), so refusing leaks nothing.

    Parameters
    ----------
    epsilon : float or None, default=None
        Cap on the worst record's epsilon at ``delta``; None records without a cap (or,
        with ``path``, uses the cap stored in the file).
    delta : float or None, default=None
        The delta of the cap, in (0, 1); required with ``epsilon``. It is also the
        default delta at which :meth:`spent` reports.
    path : str, os.PathLike or None, default=None
        None keeps the ledger in memory (this process only). A path keeps it in an
        SQLite file, created if missing: every charge is committed to the file before
        the fit reads any data, processes and later Python sessions that open the same
        file share one budget, and the cap is stored in the file (opening it with a
        different cap is refused). The file is tamper-evident (see Notes).
    key_file : str, os.PathLike or None, default=None
        File ledgers: a file holding the data owner's secret key (at least 16 bytes;
        surrounding whitespace is ignored). The file's hash chain is then an HMAC that
        nobody without the key can forge. None uses the environment variable
        ``SKDPGD_LEDGER_KEY`` if it is set, else no key. A file created with a key
        cannot be opened without it, or with another key; a key given for a file created
        without one is refused. The key itself is never stored, printed or pickled.
    ledger_id : str or None, default=None
        File ledgers: the id the file must carry (:attr:`ledger_id`, kept from when it
        was created). Another ledger's file, even one made with the same key, is
        refused on opening and at every charge, and a missing file is not created.

    Attributes
    ----------
    entries : tuple of LedgerEntry
        Every recorded fit, in order.
    path : str or None
        The absolute path of the ledger file.
    key_file : str or None
        The absolute path of the key file given (never the key).

    Notes
    -----
    **The data set.** One ledger is one data set of records. A fit with ``sample_ids``
    (public identifiers of its rows, e.g. ``np.arange(n)`` passed through
    ``GridSearchCV.fit(X, y, sample_ids=ids)``) is charged to those records only; a fit
    without is charged to *every* record, including records no fit has named yet. With
    Gaussian-DP fits only, record *i* pays

    .. math:: \mu_i = \sqrt{\mu_{\mathrm{all}}^2 + \sum_{j:\, i \in S_j} \mu_j^2},
        \qquad \mu_{\mathrm{all}}^2 = \sum_{j \text{ without ids}} \mu_j^2,

    and the ledger reports :math:`\max_i \mu_i` (Dong, Roth and Su 2022, Corollary 3.3;
    a fit not containing *i* is 0-GDP for *i*). Renyi-DP entries (``DPSearchCV``) and
    ``solver="sgd"`` runs are composed as described in
    :mod:`skdpgd.accounting._composition`; events it cannot compose are refused before
    anything is recorded. Ids must be unique within a fit.

    **Cap.** With Gaussian-DP entries only, a fit is refused when the worst record's
    :math:`\mu` would exceed ``epsilon_delta_to_gdp(epsilon, delta)``, the largest
    :math:`\mu` that is (epsilon, delta)-DP (lossless), and its epsilon at ``delta``
    would exceed ``epsilon`` (either proves the cap: a fit whose report states the cap's
    epsilon is admitted, :class:`~skdpgd.accounting.Cap`); otherwise when the worst
    record's epsilon at ``delta`` would exceed ``epsilon``.

    **Sharing.** ``sklearn.base.clone`` returns the ledger itself
    (``__sklearn_clone__``), so clones made by ``GridSearchCV``, ``cross_val_score``
    and the like all spend on the one ledger. :meth:`charge` holds a lock, so threaded
    searches cannot both pass the cap.

    **Processes.** A process-based joblib backend (loky, the default for ``n_jobs > 1``)
    sends each worker a *pickled copy*. A **file ledger** pickles as its path: every
    copy charges the same file, inside one ``BEGIN IMMEDIATE`` transaction that reads
    what the other processes recorded, tests the cap and appends, so
    ``GridSearchCV(..., n_jobs=2)`` charges every fold and two processes can never both
    pass the cap. An **in-memory ledger** cannot follow its copies: a copy made by
    pickling (or ``copy.deepcopy``), or used in another process, is read-only and its
    :meth:`charge` raises :class:`LedgerCopyError` before the fit touches the data.

    **Tamper evidence.** A ledger file carries a hash chain (HMAC with ``key_file``)
    over its header (cap, relation, creation, schema version, ledger id, key flag) and
    every entry, verified on opening and inside every charge: an entry edited, deleted,
    inserted or moved, the cap or header changed, or a head that does not match the
    entries raises :class:`~skdpgd.exceptions.LedgerFileError` and charges nothing; so
    does a file that no longer holds, at its position and with its digest, the last entry
    this object verified or wrote (a rollback under a running ledger). Opened afresh, a
    chain shows only that the file agrees with itself: it does not catch an earlier copy
    (a rollback), the file cut after an entry with that entry's head written back, another
    ledger's file made with the same key, a new file where the old one was deleted, or,
    without a key, a file edited and re-chained. Keep :attr:`ledger_id`
    and the latest :attr:`head_hash` where the file's writers cannot change them, and
    give them to :meth:`verify_file` (``expect_id``, ``expect_head``) and the id to
    ``ledger_id=``. Version-1 files are refused until :meth:`upgrade_file`.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd import DPLogisticRegression, PrivacyLedger
    >>> from skdpgd.exceptions import PrivacyBudgetExceeded
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> ledger = PrivacyLedger(epsilon=1.2, delta=1e-5)
    >>> clf = DPLogisticRegression(epsilon=1.0, C=1.0, classes=[0, 1], ledger=ledger,
    ...                            random_state=0).fit(X, y)
    >>> round(ledger.spent().epsilon, 3)
    1.0
    >>> try:
    ...     _ = clf.fit(X, y)  # a second epsilon=1 fit would take the records to ~1.47
    ... except PrivacyBudgetExceeded:
    ...     print("refused")
    refused
    """

    #: Renyi orders of RDP entries: 191 from 1.1 to 1e5 (:data:`~skdpgd.accounting.DEFAULT_ORDERS`).
    #:
    #: :meta hide-value:
    orders = DEFAULT_ORDERS

    def __init__(self, epsilon=None, delta=None, *, path=None, key_file=None,
                 ledger_id=None):
        epsilon, delta = check_cap(epsilon, delta)
        if (key_file is not None or ledger_id is not None) and path is None:
            raise ValueError("key_file= and ledger_id= protect a ledger file: give path= as "
                             "well (an in-memory ledger has no file to protect).")
        self.key_file = None if key_file is None else os.path.abspath(os.fspath(key_file))
        self._lock = threading.RLock()
        self._owner_pid = os.getpid()
        self._is_copy = False
        self._account, self._entries, self._seq = RecordAccount(), [], 0
        self._caps = {}
        if path is None:
            self.path = None
            self._store = MemoryStore()
            self.epsilon, self.delta = epsilon, delta
        else:
            self._store = FileStore(path, key=load_key(self.key_file), expect_id=ledger_id)
            self.path = self._store.path
            self.epsilon, self.delta = self._open_file(epsilon, delta)

    def _open_file(self, epsilon, delta):
        """Open (or create) the file and reconcile the cap asked for with the stored one."""
        self._store.connection()
        file_eps, file_delta = self._store.cap
        if file_eps is None and epsilon is not None:
            file_eps, file_delta = self._store.set_cap(epsilon, delta)
        if file_eps is None:
            return None, delta
        if (epsilon is not None and (epsilon, delta) != (file_eps, file_delta)) or (
                epsilon is None and delta is not None and delta != file_delta):
            raise LedgerFileError(
                f"{self.path!r} holds a budget capped at epsilon={file_eps!r}, "
                f"delta={file_delta!r}; it was opened with epsilon={epsilon!r}, "
                f"delta={delta!r}. A data set has one cap: open the file with "
                "PrivacyLedger(path=...) alone to use the stored cap."
            )
        return file_eps, file_delta

    upgrade_file = staticmethod(upgrade_ledger_file)

    verify_file = staticmethod(verify_ledger_file)

    @property
    def ledger_id(self):
        """The file's random id, fixed when it was created (None in memory)."""
        return None if self.path is None else self._store.ledger_id

    @property
    def head_hash(self):
        """The file's head hash at the last verification or charge (None in memory)."""
        return None if self.path is None else self._store.head[1]

    # -- bookkeeping --------------------------------------------------------------------
    def _absorb(self, new):
        """Fold entries recorded since we last looked (by anyone) into the cache."""
        for entry in new:
            self._account = self._account.add(entry.event, entry.sample_ids)
            self._entries.append(entry)
            self._seq = entry.seq

    def _refresh(self):
        if self._is_copy:
            return
        self._absorb(self._store.read(self._seq))

    def _cap(self, cap_row):
        """The Cap in force: the file's (read in the transaction), or this ledger's."""
        eps, delta = (self.epsilon, self.delta) if cap_row is None else cap_row
        if eps is None:
            return None
        key = (float(eps), float(delta))
        if key not in self._caps:
            self._caps[key] = Cap(*key)
        return self._caps[key]

    # -- recording ----------------------------------------------------------------------
    @property
    def entries(self):
        """Every recorded entry, in order (a tuple; a file ledger re-reads the file)."""
        with self._lock:
            self._refresh()
            return tuple(self._entries)

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        """Record a fit, or refuse it if it would cross the cap (called by ``fit``).

        Parameters
        ----------
        estimator : object
            The estimator about to fit (only its class and parameters are recorded).
        report : object with an ``event`` attribute
            The run's guarantee (a :class:`skdpgd.PrivacyReport`, or the
            ``SelectionPrivacyReport`` of a ``DPSearchCV``); ``report.event`` is what it
            releases (:class:`~skdpgd.accounting.PrivacyEvent`).
        n_samples : int
            Rows the fit uses.
        sample_ids : array-like of shape (n_samples,) or None
            Public ids of those rows; None charges the fit to every record.

        Raises
        ------
        PrivacyBudgetExceeded
            If the worst record's cost would exceed the cap; nothing is recorded.
        UnsupportedEventError
            If the event (or its mix with the recorded ones) cannot be composed.
        LedgerCopyError
            If this in-memory ledger is a pickled copy or used in another process.
        LedgerFileError
            If the ledger file is damaged or cannot be written.
        """
        event = getattr(report, "event", None)
        if event is None:
            raise TypeError(
                f"{type(report).__name__} has no privacy event (report.event); the ledger "
                "records events (skdpgd.accounting.GaussianDpEvent and the like)."
            )
        self.charge_event(describe(estimator), event, n_samples=n_samples,
                          epsilon=report.epsilon, delta=report.delta, sample_ids=sample_ids,
                          description=str(getattr(report, "theorem", "")))

    def charge_rdp(self, source, rdp, *, n_samples, epsilon, delta, sample_ids=None,
                   description=""):
        """Record a mechanism known by its Renyi-DP curve, ``rdp(orders) -> ndarray``.

        Parameters
        ----------
        source : str
            What spent.
        rdp : callable
            ``rdp(orders)``: an upper bound on the mechanism's Renyi-DP at each of
            :attr:`orders` (replace-one neighbours).
        n_samples : int
            Rows the mechanism reads.
        epsilon, delta : float
            The (epsilon, delta) the mechanism reports for itself.
        sample_ids : array-like or None, default=None
            As in :meth:`charge`.
        description : str, default=""
            The theorem behind the curve.
        """
        event = RenyiDpEvent(tuple(self.orders), tuple(np.asarray(rdp(self.orders), float)))
        self.charge_event(source, event, n_samples=n_samples, epsilon=epsilon, delta=delta,
                          sample_ids=sample_ids, description=description)

    def charge_event(self, source, event, *, n_samples, epsilon, delta, sample_ids=None,
                     description=""):
        """Record a privacy event directly (what :meth:`charge` does with ``report.event``).

        Parameters
        ----------
        source : str or estimator
            What spent.
        event : privacy event
            Checked with :func:`skdpgd.accounting.check_supported` before anything else.
        n_samples : int
            Rows the mechanism reads.
        epsilon, delta : float
            The (epsilon, delta) the mechanism reports for itself (recorded, not composed).
        sample_ids : array-like or None, default=None
            Public ids of those rows; None charges every record.
        description : str, default=""
            The theorem behind the cost.
        """
        check_supported(event)
        entry = LedgerEntry(
            source=describe(source), n_samples=int(n_samples), event=event,
            epsilon=float(epsilon), delta=float(delta),
            sample_ids=check_ids(sample_ids, n_samples), description=str(description),
            recorded_at=datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="microseconds"),
        )
        with self._lock:
            self._check_owner()
            staged = {}

            def decide(new, cap_row):
                self._absorb(new)  # committed by others: safe to keep even if we refuse
                account = self._account.add(entry.event, entry.sample_ids)
                cap = self._cap(cap_row)
                if cap is None:
                    staged.update(account=account, entry=entry)
                    return entry
                spend = account.worst(cap.delta)
                if not cap.admits(spend):
                    current = self._account.worst(cap.delta)
                    raise over_cap(entry, spend, cap, current, len(self._entries))
                final = LedgerEntry(**{**entry.__dict__, "spent_epsilon": spend.epsilon})
                staged.update(account=account, entry=final)
                return final

            _, seq = self._store.charge(self._seq, decide)
            self._account = staged["account"]
            self._entries.append(with_seq(staged["entry"], seq))
            self._seq = seq

    def check_charges(self, charges, *, source="these fits", delta=None):
        """The worst record's spend if ``charges`` were recorded too; records nothing.

        The cap test of :meth:`charge` on all the charges at once, after what the ledger
        holds now (a file is re-read): :func:`~skdpgd.model_selection.check_search_budget`
        admits or refuses a whole search with it. Public numbers only. Another writer may
        still charge the file between this check and the fits.

        Parameters
        ----------
        charges : iterable of (event, n_samples, sample_ids)
            As :meth:`charge_event` takes them (``sample_ids`` None: every record).
        source : str, default="these fits"
            What would spend, named in the refusal.
        delta : float or None, default=None
            Report at this delta (default: the ledger's).

        Returns
        -------
        LedgerSpend
            The worst record's cost after the charges (``n_fits`` counts them).

        Raises
        ------
        PrivacyBudgetExceeded
            If the charges together would take the worst record past the cap.
        """
        charges = [(check_supported(event)[0], check_ids(ids, n)) for event, n, ids in charges]
        with self._lock:
            self._refresh()
            account = self._account
            for event, ids in charges:
                account = account.add(event, ids)
            cap = self._cap(None)
            if cap is not None:
                spend = account.worst(cap.delta)
                if not cap.admits(spend):
                    raise over_cap(None, spend, cap, self._account.worst(cap.delta),
                                   len(self._entries), what=source)
            return self._spend(account, len(self._entries) + len(charges), delta)

    # -- reporting --------------------------------------------------------------------
    def spent(self, delta=None):
        """The worst-off record's cost so far (a :class:`LedgerSpend`).

        Parameters
        ----------
        delta : float or None
            Report epsilon at this delta; defaults to the ledger's ``delta``.

        Returns
        -------
        LedgerSpend
            The worst record's epsilon, delta, mu, additive delta and the method.
        """
        with self._lock:
            self._refresh()
            return self._spend(self._account, len(self._entries), delta)

    def _spend(self, account, n_fits, delta):
        delta = self.delta if delta is None else delta
        if delta is None:
            raise ValueError("Pass delta= (this ledger has no cap delta to default to).")
        comp = account.worst(float(delta))
        return LedgerSpend(comp.epsilon, comp.delta, comp.mu, n_fits, int(account.ids.size),
                           comp.method, comp.source, float(comp.extra_delta))

    def mu_per_record(self, sample_ids):
        """Exact GDP parameter paid by each of the given records (GDP entries only).

        Records never named by a fit with ids pay the part charged to all records.

        Parameters
        ----------
        sample_ids : array-like
            The records to query.

        Returns
        -------
        ndarray
            Each record's mu, sqrt of the sum of mu^2 over the fits that read it.
        """
        with self._lock:
            self._refresh()
            return self._account.mu_per_record(sample_ids)

    def __repr__(self):
        cap = ("no cap" if self.epsilon is None
               else f"cap ({self.epsilon:.4g}, {self.delta:.3g})-DP")
        where = "in memory" if self.path is None else repr(self.path)
        copy = ", read-only copy" if self._is_copy else ""
        n = len(self._entries) if self.path is None else self._store.head[0]  # as verified
        return f"PrivacyLedger({where}, {cap}, {n} {'entry' if n == 1 else 'entries'}{copy})"
