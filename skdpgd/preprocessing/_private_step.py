r"""The private-step protocol and its base, :class:`PrivateStepMixin`.

A *private step* learns something from the data through accounted releases: a
Gaussian-DP budget :math:`\mu` and, where a release is thresholded, an additive
:math:`\delta_0` (:class:`~skdpgd.accounting._release.ReleasePrivacyReport`). It is used
in two ways:

- inside :func:`skdpgd.make_dp_pipeline`, which plans every step from public
  information, charges its ledger once, and hands each step an allowance
  ``(mu, extra_delta)`` and a seed (``_fit_private``);
- standalone, ``step.fit(X, y)``: the step turns its own ``epsilon`` and ``delta`` into
  an allowance by the same rules, charges its own ``ledger`` (if any) before reading any
  value, and fits within it.

A step implements (the protocol; duck-typed by the pipeline, so a look-alike with the
class attribute works too, but every skdpgd step derives from the mixin):

- ``_privacy_plan(X)`` -> ``(number of Gaussian releases, number of thresholded ones)``
  that ``_fit_private`` makes on data with X's structure (columns and dtypes; X is None
  when planning without data): public, computed before any value is read;
- ``_fit_private(X, y=None, *, mu, extra_delta, random_state)``: fit spending at most
  ``mu``-GDP and ``extra_delta`` additive delta, set ``privacy_`` (a
  ``ReleasePrivacyReport`` within those allowances), return ``self``. The caller has
  charged any ledger already;
- optionally ``_requested_mu(n)``: the most mu its releases need on n rows, from its
  parameters and n only (a pipeline gives it no more, and the rest of the preparation's
  share to the other releases; without it, an equal part);
- optionally ``_reading(X)``: a context within which its fit and transform of X share
  their readings of X (the mixin's is empty; a pipeline fits and transforms a step
  through ``_fit_transform_private``, which enters it);
- optionally a fitted ``row_norm_bound_``: the bound on the norm of every output row,
  fixed by the construction (a pipeline sets its estimator's ``data_norm`` from it);
- the parameters ``epsilon``, ``delta`` (a float or ``"auto"``), ``ledger`` and
  ``random_state`` of the standalone fit.

The mixin gives the class attribute ``__skdpgd_private_fit__ = True`` and the standalone
``fit`` (:meth:`PrivateStepMixin.fit`): plan, budget (:meth:`standalone_budget`),
charge, private fit, and the check that the release stayed within its allowance
(:func:`check_allowance`, which the pipeline uses too). Adding a private step is one
module with a subclass implementing the two hooks, plus its export
(``docs/architecture.md``, "Adding a private step").
"""

from contextlib import nullcontext
from dataclasses import dataclass

from ..accounting import ReleasePrivacyReport
from ..accounting.allowance import Allowance, admit
from ..accounting.calibration import calibrated_mu
from ..utils._validation import check_epsilon, resolve_delta
from ._schema import n_rows

#: Share of a standalone fit's delta given to the thresholded releases, when there are
#: any: a threshold depends on it only through Phi^-1(1 - delta0), the Gaussian part
#: keeps 90% of delta (docs/theory.md#vectorizer-budget).
STANDALONE_EXTRA_DELTA_SHARE = 0.1


@dataclass(frozen=True)
class StepBudget:
    """The allowance of a standalone fit (public numbers only).

    Attributes
    ----------
    epsilon, delta : float
        The step's own target.
    n_samples : int
        Rows of the fit (public: the container's shape).
    mu : float
        The Gaussian-DP budget (0 when the plan has no release).
    extra_delta : float
        The additive allowance of thresholded releases (0 without them).
    """

    epsilon: float
    delta: float
    n_samples: int
    mu: float
    extra_delta: float

    def report(self, mechanism):
        """The planned cost as a report (what a ledger is charged).

        Parameters
        ----------
        mechanism : str
            The mechanism's description, for the report.

        Returns
        -------
        ReleasePrivacyReport
            ``mu``-GDP plus the additive ``extra_delta``.
        """
        return ReleasePrivacyReport(mu=self.mu, extra_delta=self.extra_delta,
                                    mechanism=mechanism)


def check_allowance(name, report, mu, extra_delta):
    """Refuse a release that reports more than its allowance (a broken step contract).

    Parameters
    ----------
    name : str
        The step (for the message).
    report : object with ``mu`` and optionally ``extra_delta``
        What the step reports it spent.
    mu, extra_delta : float
        Its allowance.

    Raises
    ------
    RuntimeError
        When the report exceeds the allowance by more than the rounding margin
        (:mod:`skdpgd.accounting._margin`), or has no ``mu`` at all (a release that is
        not Gaussian DP; a pipeline refuses such a solver before its charge, from its
        declared ``reports_mu``, so this is a broken contract).
    """
    Allowance(mu, extra_delta).check(name, report)


class PrivateStepMixin:
    """Base of the private steps: the protocol's standalone fit, charge and checks.

    See the module docstring for the protocol. Subclasses implement ``_privacy_plan``
    and ``_fit_private`` and hold the parameters ``epsilon``, ``delta``, ``ledger`` and
    ``random_state``; they may override :meth:`_n_samples` (a step that reads only y)
    and ``_standalone_mechanism`` (the text a ledger records).
    """

    __skdpgd_private_fit__ = True

    #: What a ledger entry of a standalone fit says was released (one line).
    _standalone_mechanism = "private preparation step (Gaussian releases)"

    def _privacy_plan(self, X):
        raise NotImplementedError  # pragma: no cover - every subclass defines it

    def _fit_private(self, X, y=None, *, mu, extra_delta, random_state):
        raise NotImplementedError  # pragma: no cover - every subclass defines it

    def _n_samples(self, X, y):
        """Rows of a standalone fit, from the container's shape (public)."""
        return n_rows(X)

    def _reading(self, X):
        """A context within which the step's fit and transform of X share their
        readings of X (a step that reads a column more than once keeps its groups of
        equal cells there); by default none is kept."""
        return nullcontext()

    def _fit_transform_private(self, X, y=None, *, mu, extra_delta, random_state):
        """``_fit_private`` then ``transform`` of the same X, within :meth:`_reading` (X).

        What a pipeline calls for a step before its estimator. The output is that of
        the two calls made apart (only the time of reading X changes).

        Parameters
        ----------
        X : table
            The data.
        y : array-like or None, default=None
            The targets (ignored by a step that reads X only).
        mu, extra_delta, random_state
            As for ``_fit_private``.

        Returns
        -------
        X_out : array-like
            ``transform(X)`` of the fitted step.
        """
        with self._reading(X):
            self._fit_private(X, y, mu=mu, extra_delta=extra_delta, random_state=random_state)
            return self.transform(X)

    def standalone_budget(self, X, y=None):
        """The allowance of a standalone ``fit`` on X, from public information only.

        ``delta="auto"`` is :math:`\\min(10^{-5}, 1/(10n))`; when the plan thresholds,
        10% of delta is the additive allowance (``STANDALONE_EXTRA_DELTA_SHARE``); mu is
        the largest meeting ``(epsilon, delta - extra_delta)``, lowered by the one
        rounding margin (:ref:`conservative rounding <conservative-rounding>`); 0 without a release.

        Parameters
        ----------
        X : table or None
            The data (only its structure and number of rows are read).
        y : array-like or None, default=None
            The targets (only their number, for a step that reads y).

        Returns
        -------
        StepBudget
            The step's epsilon, delta, n, and the mu and additive delta it may spend.
        """
        if getattr(self, "epsilon", None) is None or getattr(self, "delta", None) is None:
            raise ValueError(f"a standalone {type(self).__name__} needs epsilon and delta.")
        epsilon = check_epsilon(self.epsilon)
        n = int(self._n_samples(X, y))
        if n < 1:
            raise ValueError("Found array with 0 sample(s): X has no row.")
        delta = resolve_delta(self.delta, n)
        n_gdp, n_thresholded = self._privacy_plan(X)
        extra = STANDALONE_EXTRA_DELTA_SHARE * delta if n_thresholded else 0.0
        mu = float(calibrated_mu(epsilon, delta - extra)) if n_gdp else 0.0
        return StepBudget(epsilon=epsilon, delta=delta, n_samples=n, mu=mu,
                          extra_delta=extra)

    def _charge(self, budget, sample_ids):
        """Charge ``self.ledger`` with the planned cost (before any value is read)."""
        ledger = getattr(self, "ledger", None)
        if ledger is None or not (budget.mu > 0 or budget.extra_delta > 0):
            return
        planned = Allowance(budget.mu, budget.extra_delta).charge_at(
            budget.delta, self._standalone_mechanism)
        admit(ledger, [(self, planned)], n_samples=budget.n_samples, sample_ids=sample_ids)

    def fit(self, X, y=None, sample_ids=None):
        """Fit standalone, spending this step's own ``epsilon`` and ``delta``.

        Plans from X's structure, charges ``ledger`` (when given) with the planned cost
        before reading any value, then fits within that allowance.

        Parameters
        ----------
        X : table
            The data.
        y : array-like or None, default=None
            The targets (ignored by a step that reads X only).
        sample_ids : array-like of shape (n_samples,) or None, default=None
            Public ids of the rows, passed to ``ledger`` only.

        Returns
        -------
        self : object
            Fitted; ``privacy_`` says what was released.
        """
        budget = self.standalone_budget(X, y)
        self._charge(budget, sample_ids)
        self._fit_private(X, y, mu=budget.mu, extra_delta=budget.extra_delta,
                          random_state=getattr(self, "random_state", None))
        check_allowance(type(self).__name__, self.privacy_, budget.mu, budget.extra_delta)
        return self

