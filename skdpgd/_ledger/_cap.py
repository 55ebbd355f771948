"""A ledger's cap: its parameters checked, and the refusal of a fit that would cross it.

The refusal names the fit (its class and parameters), its cost and the ledger's totals:
public numbers only (events and ids), so refusing leaks nothing about the data.
"""

import math

import numpy as np

from ..exceptions import PrivacyBudgetExceeded


def check_cap(epsilon, delta):
    if epsilon is not None and delta is None:
        raise ValueError(
            f"A cap needs both epsilon and delta; got epsilon={epsilon!r}, delta={delta!r}."
        )
    if delta is not None and not (isinstance(delta, (int, float, np.floating))
                                  and 0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}.")
    if epsilon is not None and not (isinstance(epsilon, (int, float, np.floating))
                                    and float(epsilon) > 0.0
                                    and not math.isnan(float(epsilon))):
        raise ValueError(f"epsilon must be a number > 0, got {epsilon!r}.")
    return (None if epsilon is None else float(epsilon),
            None if delta is None else float(delta))


def over_cap(entry, spend, cap, current, n_entries, *, what=None):
    """The :class:`~skdpgd.exceptions.PrivacyBudgetExceeded` for a refused ``entry``.

    ``spend`` is the worst record's cost with the entry, ``current`` the worst record's
    cost without it (both :class:`~skdpgd.accounting._composition.Composition`),
    ``n_entries`` the number of fits recorded so far. The accumulated additive delta is
    shown beside epsilon; when it reaches the cap's delta (epsilon infinite), the message
    says so and what fixes it. ``what`` names a refused group of charges instead of one
    entry (:meth:`~skdpgd.PrivacyLedger.check_charges`: a whole search, refused before
    its first fit); ``entry`` is then None.
    """
    what = f"this fit ({entry.source}, {_cost_text(entry)})" if what is None else what
    why = ""
    if spend.extra_delta >= cap.delta:
        why = (f" The worst-off record's additive deltas (thresholded releases such as "
               f"category discovery, one per fit that thresholds) would add up to "
               f"{spend.extra_delta:.3g}, at or above delta={cap.delta:.3g}, so no epsilon "
               "holds. Release the preparation once and reuse it in every fit "
               "(DPPipeline.prepare), give the vectorizer public category lists or "
               "categorical='hash', or cap the ledger at a larger delta.")
    return PrivacyBudgetExceeded(
        f"Refused before touching the data: {what} would take the worst-off record to "
        f"epsilon={spend.epsilon:.4g}{_extra(spend)} at delta={cap.delta:.3g}, over the "
        f"cap epsilon={cap.epsilon:.4g} (spent so far: epsilon={current.epsilon:.4g}"
        f"{_extra(current)} over {n_entries} fit(s)). Nothing was recorded.{why}"
    )


def _extra(composition):
    extra = float(getattr(composition, "extra_delta", 0.0))
    return f" with additive delta {extra:.3g}" if extra else ""


def _cost_text(entry):
    extra = float(getattr(entry.event, "extra_delta", 0.0))
    if entry.mu is not None:
        return f"mu={entry.mu:.4g}" + (f" + additive delta {extra:.3g}" if extra else "")
    return f"epsilon={entry.epsilon:.4g}"
