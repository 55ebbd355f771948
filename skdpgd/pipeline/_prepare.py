r"""Release a pipeline's private preparation once, and reuse it in every later fit.

:meth:`skdpgd.DPPipeline.prepare` fits the private preparation steps (e.g.
:class:`~skdpgd.preprocessing.DPTableVectorizer`'s histograms and category lists) once,
on the whole table, charges the ledger once for them, and returns a pipeline whose
private steps are frozen: each is a :class:`PreparedStep`, a public-bound transformer
whose ``fit`` reads nothing. A search (``GridSearchCV``, :class:`DPSearchCV
<skdpgd.model_selection.DPSearchCV>`, :func:`privacy_utility_curve
<skdpgd.model_selection.privacy_utility_curve>`) over the prepared pipeline then pays
only for the models.

Why reuse is free (``docs/budgets.md``, "Prepare once, search many"): the frozen step's
map is a function of the released preparation only. A later fit is a mechanism
:math:`M_2(D; r)` that reads the table :math:`D` and the released :math:`r`; for every
fixed :math:`r` it spends only the model's budget. The pair :math:`(r, M_2(D; r))` is
the adaptive composition of the preparation and the fit (Dong, Roth and Su 2022,
Corollary 3.3, with the additive deltas added: :mod:`skdpgd.accounting._composition`),
so the preparation is charged once however many fits follow; transforming rows with
:math:`r` is post-processing (Dong, Roth and Su 2022, Proposition 2.8).
"""

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._data import refuse_dask_table
from ..accounting import ReleasePrivacyReport
from ..accounting.allowance import release
from ..linear_model._base import BaseDPLinearModel
from ..preprocessing import check_allowance
from ..utils._sklearn_compat import HasMethods, _num_samples
from ._checks import check_steps, fit_transform_private, is_private, is_skip
from ._plan import plan_budget, planned_releases
from ._report import PipelinePrivacyReport

#: Mixed into an int seed so that the preparation's noise stream is independent of the
#: streams the pipeline's later fits draw from the same seed.
_PREPARE_STREAM = 0x50524550


@dataclass(frozen=True, eq=False)
class ChargedRelease:
    """What ``prepare`` and ``DPSearchCV`` attach to a step they released after their charge.

    Made only by :func:`release_preparation` (which both call after the ledger charge,
    with the allowance the charge covered); a :class:`PreparedStep` holds it and checks
    it against its step (:meth:`PreparedStep.check_charged`).

    Attributes
    ----------
    step : fitted private step
        The very object released (identity is checked, so another step, or this one
        refitted, does not match).
    report : ReleasePrivacyReport
        The step's ``privacy_`` as released (identity is checked too).
    mu, extra_delta : float
        The allowance the charge covered (the report is within it).
    """

    step: object
    report: object
    mu: float
    extra_delta: float


#: Why a PreparedStep without its charged release is refused (formatted with its step).
HAND_MADE = (
    "This PreparedStep({step}) was not released by DPPipeline.prepare or DPSearchCV (it "
    "was built by hand, or its step was replaced or refitted since): no charge covers "
    "its release, so no pipeline may report it as released once. Release the "
    "preparation with pipeline.prepare(X, ledger=...) and use the pipeline it returns, "
    "or put the unfitted private step itself in the DPPipeline, which gives it its "
    "share of the budget."
)


class PreparedStep(TransformerMixin, BaseEstimator):
    """A private step released once by :meth:`skdpgd.DPPipeline.prepare`, frozen.

    Its ``fit`` reads nothing (it is public-bound: ``__skdpgd_public_fit__``), its
    ``transform`` is the released step's, and ``clone`` returns it as it is (like
    scikit-learn's ``FrozenEstimator``), so every clone a search makes shares the one
    release.

    Only ``prepare`` and ``DPSearchCV`` make a usable one: they attach the release they
    charged for (a ``ChargedRelease``). One built by hand, ``PreparedStep(step)``,
    holds no charged release: its ``privacy_`` refuses, and so does every pipeline or
    search that would list its cost (before charging anything).

    Parameters
    ----------
    step : fitted private step
        The released step (its ``privacy_`` is what the preparation spent).

    Attributes
    ----------
    privacy_ : ReleasePrivacyReport
        What the release cost, charged once when it was prepared.
    """

    __skdpgd_public_fit__ = True
    __skdpgd_prepared__ = True

    _parameter_constraints = {"step": [HasMethods(["transform"])]}

    def __init__(self, step):
        self.step = step

    def check_charged(self):
        """The charged release this step carries; refused when it carries none.

        Returns
        -------
        ChargedRelease
            Made by ``prepare`` or ``DPSearchCV`` for this very step and report.

        Raises
        ------
        ValueError
            A hand-made PreparedStep, or one whose step was replaced or refitted.
        """
        release = vars(self).get("_charged_release")
        step = vars(self).get("step")
        if (not isinstance(release, ChargedRelease) or release.step is not step
                or getattr(step, "privacy_", None) is not release.report):
            raise ValueError(HAND_MADE.format(step=type(step).__name__))
        return release

    def _validate_params(self):
        """The parameter check of scikit-learn, and the charged release (refused without)."""
        super()._validate_params()
        self.check_charged()

    def __sklearn_clone__(self):
        return self

    def set_params(self, **params):
        """Refused: a prepared step is frozen (prepare the pipeline again instead).

        Parameters
        ----------
        **params : dict
            Must be empty.

        Returns
        -------
        self : PreparedStep
            Unchanged.
        """
        if params:
            raise ValueError("A prepared step is frozen: set the parameters on the pipeline "
                             "before prepare(), and prepare it again.")
        return self

    def fit(self, X=None, y=None):
        """Nothing: the step was released by ``prepare`` (reads no value).

        Parameters
        ----------
        X, y : ignored
            For the scikit-learn calling convention.

        Returns
        -------
        self : PreparedStep
            Unchanged.
        """
        return self

    def fit_transform(self, X, y=None):
        """``transform(X)`` (the fit reads nothing).

        Parameters
        ----------
        X : table
            Rows to transform.
        y : ignored, default=None
            For the scikit-learn calling convention.

        Returns
        -------
        ndarray
            The released step's output.
        """
        return self.transform(X)

    def transform(self, X):
        """The released step's ``transform``.

        Parameters
        ----------
        X : table
            Rows to transform (a per-row map fixed by the release).

        Returns
        -------
        ndarray
            The released step's output.
        """
        return self.step.transform(X)

    def get_feature_names_out(self, input_features=None):
        """The released step's output names.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            As for the released step.

        Returns
        -------
        ndarray of str
            The output column names.
        """
        return self.step.get_feature_names_out(input_features)

    @property
    def privacy_(self):
        """What the release cost (charged once by ``prepare`` or ``DPSearchCV``)."""
        return self.check_charged().report

    @property
    def row_norm_bound_(self):
        """The released step's construction bound on the output rows' norm."""
        return self.step.row_norm_bound_

    def __sklearn_is_fitted__(self):
        check_is_fitted(self.step)
        return True

    def __sklearn_tags__(self):
        tags = self.step.__sklearn_tags__()
        tags.requires_fit = False
        return tags


def prepare_generator(random_state):
    """The preparation's noise source, independent of the later fits' streams.

    An int seed ``s`` gives ``default_rng([s, _PREPARE_STREAM])``, an entropy pool other
    than ``default_rng(s)``'s; a Generator is used as given (its state moves on, so the
    later fits draw other numbers); None draws fresh entropy.
    """
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(None if random_state is None
                                     else [int(random_state), _PREPARE_STREAM])
    return random_state


def prepare_pipeline(pipeline, X, y=None, *, ledger=None, sample_ids=None):
    """:meth:`skdpgd.DPPipeline.prepare` (its docstring says what it does)."""
    pipeline._validate_params()
    pre, _last_name, final = check_steps(pipeline)
    ledger = pipeline.ledger if ledger is None else ledger
    refuse_dask_table(X)  # from its type alone
    n = int(_num_samples(X))  # the container's structure only
    if n < 2:
        raise ValueError(f"prepare needs at least 2 rows, got {n}.")
    sample_ids = BaseDPLinearModel._check_sample_ids(sample_ids, n)
    releases = planned_releases(pre, final, X)
    budget = plan_budget(pipeline, releases, n, pre, final)
    allowance = {name: (mu, extra) for (name, step, _), mu, extra in
                 zip(releases, budget.step_mu, budget.step_extra_delta, strict=True)
                 if step is not None}
    if not allowance:
        raise ValueError("This pipeline has no private preparation step to prepare (its "
                         "steps are public-bound or already prepared): fit it directly.")
    planned = PipelinePrivacyReport.compose(
        [(name, ReleasePrivacyReport(mu=mu, extra_delta=extra,
                                     mechanism="planned allowance (upper bound)"))
         for name, (mu, extra) in allowance.items()],
        delta=budget.delta, n_samples=n, preparation_share=budget.preparation_share,
        planned=True, notes=("prepare(): the preparation's allowances, released once",))
    # the one protocol: the plan above, the ledger's charge (may refuse), then the run
    prepared = release(
        ledger, lambda: ([(preparation_source(pipeline, allowance), planned)], allowance),
        lambda planned_allowance: freeze(pipeline, X, y, planned_allowance,
                                         prepare_generator(pipeline.random_state)),
        n_samples=n, sample_ids=sample_ids)
    return prepared.set_params(ledger=ledger)


def preparation_source(pipeline, allowance):
    """How the ledger names a preparation released once (step classes, the budget)."""
    names = ", ".join(type(step).__name__ for name, step in pipeline.steps
                      if name in allowance)
    return (f"DPPipeline.prepare([{names}], epsilon={pipeline.epsilon!r}, "
            f"delta={pipeline.delta!r})")


def freeze(pipeline, X, y, allowance, rng):
    """A clone of ``pipeline`` whose private steps are released on X and frozen.

    Called after the preparation has been charged; ``allowance`` maps each private
    step's name to its (mu, additive delta).
    """
    pre, last_name, final = check_steps(pipeline)
    steps, _ = release_preparation(pre, X, y, allowance, rng)
    prepared = clone(pipeline)
    prepared.steps = [*steps, (last_name, clone(final))]
    return prepared


def release_preparation(pre, X, y, allowance, rng):
    """Release the private steps of ``pre`` on X with their allowances; freeze them.

    ``allowance`` maps a private step's name to its (mu, additive delta); a step that
    reports more is refused (:func:`skdpgd.preprocessing.check_allowance`).
    Public-bound steps are fitted on the way (their fit reads no value) and kept as
    they were given; every private step becomes a :class:`PreparedStep`.
    Returns the new step list and the released reports ``[(name, report)]``.
    """
    steps, spent, Xt = [], [], X
    for name, step in pre:
        if is_skip(step):
            steps.append((name, step))
            continue
        if is_private(step):
            fitted = clone(step)
            mu, extra = allowance.get(name, (0.0, 0.0))
            Xt_next = fit_transform_private(fitted, Xt, y, mu=mu, extra_delta=extra,
                                            random_state=int(rng.integers(2**32)))
            check_allowance(name, fitted.privacy_, mu, extra)
            spent.append((name, fitted.privacy_))
            Xt = Xt_next
            prepared = PreparedStep(fitted)
            prepared._charged_release = ChargedRelease(fitted, fitted.privacy_, mu, extra)
            steps.append((name, prepared))
        else:
            Xt = clone(step).fit_transform(Xt, y)
            steps.append((name, step))
    return steps, spent
