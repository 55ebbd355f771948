"""Per-record bookkeeping of privacy events on one data set (:class:`RecordAccount`).

An event recorded with public row ids is 0-GDP for every record outside them (parallel
composition under replace-one: the output's law does not change when a record it never
reads is replaced); an event without ids is charged to every record, including records
never named. A data set's cost is its worst record's, composed as in
:mod:`skdpgd.accounting._composition`. The ids must be chosen from public information
(ids, a seed, n), never from the data.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from ._accountants import accountant_for
from ._composition import check_supported
from ._events import GaussianDpEvent

__all__ = ["RecordAccount"]


def _merge(ids, mu2s, new_ids, new_mu2):
    """Add ``new_mu2`` to every id of the sorted ``new_ids`` (inserting unseen ids)."""
    if not ids.size:
        return new_ids.copy(), np.full(new_ids.size, float(new_mu2))
    pos = np.searchsorted(ids, new_ids)
    pos_c = np.minimum(pos, ids.size - 1)
    known = ids[pos_c] == new_ids
    if known.all():  # the common case in searches: the same rows again
        mu2s = mu2s.copy()
        mu2s[pos_c] += new_mu2
        return ids, mu2s
    merged = np.union1d(ids, new_ids)
    out = np.zeros(merged.size)
    out[np.searchsorted(merged, ids)] = mu2s
    out[np.searchsorted(merged, new_ids)] += new_mu2
    return merged, out


@dataclass(frozen=True)
class RecordAccount:
    """Per-record bookkeeping of events on one data set (an immutable value).

    Attributes
    ----------
    full_mu2 : float
        Sum of mu^2 over Gaussian events (events with a Gaussian-DP form,
        :meth:`~skdpgd.accounting.PrivacyEvent.gaussian_dp`) charged to every record.
    full_other : tuple
        Non-Gaussian events charged to every record.
    ids : ndarray
        Sorted distinct ids named by events with ids.
    id_mu2 : ndarray
        Per id, the sum of mu^2 over the Gaussian events naming it.
    id_other : tuple of (ndarray, event)
        Non-Gaussian events with their (sorted, distinct) ids.
    full_delta : float
        Sum of the additive deltas of the Gaussian events (e.g.
        :class:`~skdpgd.accounting.GaussianDpWithDeltaEvent`) charged to every record.
    id_delta : ndarray
        Per id, the sum of the additive deltas of the events naming it.
    """

    full_mu2: float = 0.0
    full_other: tuple = ()
    ids: np.ndarray = field(default_factory=lambda: np.empty(0))
    id_mu2: np.ndarray = field(default_factory=lambda: np.empty(0))
    id_other: tuple = ()
    full_delta: float = 0.0
    id_delta: np.ndarray = field(default_factory=lambda: np.empty(0))

    def events(self):
        """Every non-Gaussian event held, and a Gaussian one for the full part (for checks).

        Returns
        -------
        tuple
            Events, enough to decide with :func:`check_supported` what may be added.
        """
        return (GaussianDpEvent(0.0), *self.full_other, *(e for _, e in self.id_other))

    def _id_deltas(self):
        """id_delta aligned with ids (zeros when no event with ids had a delta)."""
        return self.id_delta if self.id_delta.size == self.ids.size else np.zeros(self.ids.size)

    def add(self, event, ids=None):
        """The account after ``event`` on rows ``ids``.

        Raises :class:`UnsupportedEventError` (and changes nothing) when the result
        could not be composed.

        Parameters
        ----------
        event : privacy event
            What was released.
        ids : ndarray or None, default=None
            The sorted distinct ids of the records it read; None: every record.

        Returns
        -------
        RecordAccount
            A new account (this one is unchanged).
        """
        check_supported((*self.events(), event))
        form = event.gaussian_dp()
        gaussian = form is not None
        mu, extra = form if gaussian else (0.0, 0.0)
        if ids is None:
            if gaussian:
                return RecordAccount(self.full_mu2 + mu * mu, self.full_other,
                                     self.ids, self.id_mu2, self.id_other,
                                     self.full_delta + extra, self.id_delta)
            return RecordAccount(self.full_mu2, (*self.full_other, event), self.ids,
                                 self.id_mu2, self.id_other, self.full_delta, self.id_delta)
        if self.ids.size and ids.size and self.ids.dtype.kind != ids.dtype.kind and not (
                self.ids.dtype.kind in "iu" and ids.dtype.kind in "iu"):
            raise TypeError(
                f"sample_ids of kind {ids.dtype!s} cannot be matched with the ids already "
                f"recorded ({self.ids.dtype!s}): use one kind of id (integers or strings) "
                "for every fit on a data set."
            )
        mu2 = mu * mu if gaussian else 0.0
        merged, mu2s = _merge(self.ids, self.id_mu2, ids, mu2)
        id_delta = self.id_delta
        if extra > 0.0 or self.id_delta.size:
            id_delta = _merge(self.ids, self._id_deltas(), ids, extra)[1]
        other = self.id_other
        if not gaussian:
            other = (*other, (ids, event))
        return RecordAccount(self.full_mu2, self.full_other, merged, mu2s, other,
                             self.full_delta, id_delta)

    def _groups(self):
        """Records grouped by which non-Gaussian id-events contain them.

        Within a group every record has the same non-Gaussian events, so its worst record
        is one of the records whose (mu^2, additive delta) pair no other record of the
        group exceeds in both. Yields (mu^2 array, delta array, events).
        """
        if not self.ids.size:
            return
        deltas = self._id_deltas()
        if not self.id_other:
            yield self.id_mu2, deltas, ()
            return
        member = np.zeros((self.ids.size, len(self.id_other)), dtype=bool)
        for j, (entry_ids, _) in enumerate(self.id_other):
            member[np.searchsorted(self.ids, entry_ids), j] = True
        patterns, group = np.unique(member, axis=0, return_inverse=True)
        group = np.ravel(group)
        for g, pattern in enumerate(patterns):
            yield (self.id_mu2[group == g], deltas[group == g],
                   tuple(self.id_other[j][1] for j in np.flatnonzero(pattern)))

    def worst(self, delta):
        """The worst record's :class:`Composition` at ``delta``.

        Records named by no id-event pay the full part only (dominated by any named
        record, but kept so that an account without ids is covered).

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        Composition
            The largest epsilon over records (Gaussian only: the largest mu, exactly).
        """
        delta = float(delta)
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
        no_delta = self.full_delta == 0.0 and not np.any(self._id_deltas())
        if not self.full_other and not self.id_other and no_delta:  # one exact answer
            worst_id = float(self.id_mu2.max()) if self.id_mu2.size else 0.0
            return accountant_for((), mu2=self.full_mu2 + worst_id).composition(delta)
        best = None
        groups = [(np.zeros(1), np.zeros(1), ()), *self._groups()]
        for mu2s, deltas, extra in groups:
            events = self.full_other + extra
            for mu2, record_delta in _pareto(mu2s, deltas):
                comp = accountant_for(events, mu2=self.full_mu2 + mu2,
                                      extra_delta=self.full_delta + record_delta
                                      ).composition(delta)
                if best is None or comp.epsilon > best.epsilon or (
                        comp.epsilon == best.epsilon and comp.mu is not None
                        and best.mu is not None and comp.mu > best.mu):
                    best = comp
        return best

    def mu_per_record(self, query):
        """Exact mu of each queried record (Gaussian events only).

        Parameters
        ----------
        query : array-like
            Record ids.

        Returns
        -------
        ndarray
            sqrt of the sum of mu^2 over the events that read each record.
        """
        if self.full_other or self.id_other:
            raise ValueError("mu_per_record is defined only when every entry is Gaussian DP.")
        if self.full_delta or np.any(self._id_deltas()):
            raise ValueError(
                "mu_per_record is defined only when every entry is Gaussian DP without an "
                "additive delta (some entry is a GaussianDpWithDeltaEvent); use spent()."
            )
        query = np.asarray(query)
        part = np.zeros(query.shape)
        if self.ids.size:
            pos = np.minimum(np.searchsorted(self.ids, query), self.ids.size - 1)
            found = self.ids[pos] == query
            part = np.where(found, self.id_mu2[pos], 0.0)
        return np.sqrt(self.full_mu2 + part)


def _pareto(mu2s, deltas):
    """The (mu^2, delta) pairs that no other pair exceeds in both (the candidates for the
    worst record: epsilon at a fixed delta grows with mu^2 and with the additive delta)."""
    pairs = np.unique(np.column_stack([np.asarray(deltas, float), np.asarray(mu2s, float)]),
                      axis=0)[::-1]  # by delta, then mu^2, both descending
    kept, top = [], -math.inf
    for record_delta, mu2 in pairs:
        if mu2 > top:
            kept.append((float(mu2), float(record_delta)))
            top = mu2
    return kept
