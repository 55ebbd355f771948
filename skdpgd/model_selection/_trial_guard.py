"""What each trial of a private selection may be: a Gaussian-DP run within the trial mu.

The selection bound (Renyi DP of the best of K trials) holds only when every trial is a
mu-GDP run; :func:`check_trial_event` refuses any other event from parameters alone,
before the ledger is charged, and :class:`MuGuard`, given to each candidate in place of
a ledger, re-checks each candidate's report before its fit reads the data.
"""

from ..accounting import PrivacyEvent, UnsupportedEventError


class MuGuard:
    """Stands in for a ledger on each candidate: refuses a run that is not a Gaussian-DP
    event of parameter at most the trial's mu (checked before the fit reads data)."""

    def __init__(self, mu_max):
        self.mu_max = mu_max

    def __sklearn_clone__(self):
        return self

    def charge(self, estimator, report, *, n_samples, sample_ids=None):
        check_trial_event(report.event, self.mu_max, type(estimator).__name__)


def check_trial_event(event, mu_max, what):
    # (mu, additive delta), or None: not Gaussian DP
    form = event.gaussian_dp() if isinstance(event, PrivacyEvent) else None
    if form is not None and form[1] > 0.0:  # e.g. a DPPipeline that thresholds
        raise UnsupportedEventError(
            f"DPSearchCV's selection bound (Renyi DP) needs every trial to be a Gaussian-DP "
            f"run; {what} thresholds noisy counts inside the trial (an additive delta, which "
            "Renyi DP does not cover). Release the preparation once instead: DPSearchCV does "
            "so for a DPPipeline's private steps, or prepare it yourself "
            "(DPPipeline.prepare(X, ledger=...)) and search the prepared pipeline."
        )
    if form is None:
        raise UnsupportedEventError(
            f"DPSearchCV's selection bound needs every trial to be a Gaussian-DP run; "
            f"{what} releases {type(event).__name__} (solver='sgd' is not Gaussian DP in "
            "closed form). Use solver='gd' or 'cyclic' inside DPSearchCV."
        )
    if not form[0] <= mu_max:
        raise RuntimeError(
            f"A candidate run would be mu={form[0]:.6g}-GDP, above the trial budget "
            f"mu={mu_max:.6g} the selection bound assumes; refused before the fit."
        )
