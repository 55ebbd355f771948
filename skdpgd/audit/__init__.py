"""Empirical privacy audits: lower-bound epsilon by attacking the released models.

:func:`audit_epsilon` trains an estimator many times on neighbouring data sets (one row
replaced by a worst-case canary) and turns a statistic of the released models into a
Clopper-Pearson lower bound on epsilon; a bound above the estimator's own claim is
evidence of a privacy bug. :class:`NoisyGDMean` is the exact case on which the claim is
tight, to measure the audit's own power. Built on the public API only.
"""

from ._audit import AuditError, audit_epsilon
from ._audit import default_statistic as default_statistic
from ._bounds import ThresholdTest as ThresholdTest
from ._bounds import clopper_pearson as clopper_pearson
from ._bounds import epsilon_from_counts as epsilon_from_counts
from ._bounds import epsilon_from_scores as epsilon_from_scores
from ._canaries import Canary, make_canary
from ._quadratic import NoisyGDMean
from ._result import AuditResult
from ._result import gdp_tradeoff as gdp_tradeoff

# the API; the statistic and the bounds behind audit_epsilon are internal
__all__ = [
    "audit_epsilon",
    "AuditResult",
    "AuditError",
    "make_canary",
    "Canary",
    "NoisyGDMean",
]
