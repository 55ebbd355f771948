"""Budgets across many fits: the cost of a search, private selection, privacy-utility curves.

- :func:`search_privacy_cost`: exact per-record training cost of a
  ``GridSearchCV`` / ``RandomizedSearchCV`` over skdpgd estimators and DP pipelines,
  priced before it runs or after (a preparation shared with
  :meth:`skdpgd.DPPipeline.prepare` counted once; selection not covered), and of a
  ``DPSearchCV``; :func:`check_search_budget`: a search admitted or refused as a whole
  under its ledger's cap, before its first fit.
- :class:`DPSearchCV`: private selection with an end-to-end guarantee: by default every
  candidate once, composed as Gaussian DP, the estimator's own values kept unless beaten
  (:class:`GridSelectionPrivacyReport`); or a random number of trials (Papernot and
  Steinke, ICLR 2022, Theorem 2: :class:`SelectionPrivacyReport`).
- :func:`privacy_utility_curve`, :func:`plot_privacy_utility_curve`: cross-validated
  scores across budgets, with a non-private baseline (analysis on data you may look at).
"""

from ._admission import check_search_budget
from ._cost import NOT_COVERED, SearchPrivacyCost, search_privacy_cost
from ._cost import planned_report as planned_report
from ._curves import plot_privacy_utility_curve, privacy_utility_curve
from ._dpsearch import DPSearchCV
from ._grid_report import GridSelectionPrivacyReport
from ._selection_budget import calibrate_trial_mu as calibrate_trial_mu
from ._selection_budget import selection_rdp as selection_rdp
from ._selection_report import SelectionPrivacyReport
from ._tuning_privacy import (
    best_of_random_trials_rdp as best_of_random_trials_rdp,
)
from ._tuning_privacy import (
    expected_trials as expected_trials,
)
from ._tuning_privacy import (
    gamma_for_expected_trials as gamma_for_expected_trials,
)
from ._tuning_privacy import (
    sample_trials as sample_trials,
)

# the API; the selection's accounting helpers and planned_report are internal
__all__ = [
    "DPSearchCV",
    "search_privacy_cost",
    "check_search_budget",
    "SearchPrivacyCost",
    "NOT_COVERED",
    "GridSelectionPrivacyReport",
    "SelectionPrivacyReport",
    "privacy_utility_curve",
    "plot_privacy_utility_curve",
]
