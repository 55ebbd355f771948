"""Empirical privacy audits: lower-bound epsilon by attacking the released models.

:func:`audit_epsilon` trains an estimator many times on neighbouring data sets (one row
replaced by a worst-case canary) and turns a statistic of the released models into a
Clopper-Pearson lower bound on epsilon; a bound above the estimator's own claim is
evidence of a privacy bug. :class:`NoisyGDMean` is the exact case on which the claim is
tight, to measure the audit's own power. Built on the public API only.
"""

from ._audit import AuditError, audit_epsilon, default_statistic
from ._bounds import ThresholdTest, clopper_pearson, epsilon_from_counts, epsilon_from_scores
from ._canaries import Canary, make_canary
from ._quadratic import NoisyGDMean
from ._result import AuditResult, gdp_tradeoff

__all__ = [
    "AuditError",
    "AuditResult",
    "Canary",
    "NoisyGDMean",
    "ThresholdTest",
    "audit_epsilon",
    "clopper_pearson",
    "default_statistic",
    "epsilon_from_counts",
    "epsilon_from_scores",
    "gdp_tradeoff",
    "make_canary",
]
