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


def over_cap(entry, spend, cap, current, n_entries):
    """The :class:`~skdpgd.exceptions.PrivacyBudgetExceeded` for a refused ``entry``.

    ``spend`` is the worst record's cost with the entry, ``current`` the worst record's
    epsilon without it, ``n_entries`` the number of fits recorded so far.
    """
    return PrivacyBudgetExceeded(
        f"Refused before touching the data: this fit ({entry.source}, "
        f"{_cost_text(entry)}) would take the worst-off record to "
        f"epsilon={spend.epsilon:.4g} at delta={cap.delta:.3g}, over the cap "
        f"epsilon={cap.epsilon:.4g} (spent so far: epsilon={current:.4g} "
        f"over {n_entries} fit(s)). Nothing was recorded."
    )


def _cost_text(entry):
    return f"mu={entry.mu:.4g}" if entry.mu is not None else f"epsilon={entry.epsilon:.4g}"
