"""What a DPPipeline checks before its ledger charge: parameters and shapes only.

Every refusal here is a public fact (the steps and their parameters, the containers'
``len`` and ``shape``), so it comes before the charge and quotes no value.
"""

import inspect
import numbers

from sklearn.base import clone, is_classifier

from .._data import refuse_dask_table
from ..accounting._release import PRIVATE_FIT_ATTRIBUTE
from ..linear_model._base import BaseDPLinearModel
from ..preprocessing._public_steps import why_not_public
from ..solvers import get as get_solver
from ..solvers import names as solver_names
from ..utils._sklearn_compat import _num_features, _num_samples

#: The parameters of a step that the pipeline's budget sets (the budget, its seed, its
#: ledger): the one rule of :func:`check_owned_params` applies to all four.
OWNED_PARAMS = ("epsilon", "delta", "random_state", "ledger")

#: What ``"auto"`` means for the preparation the estimator sees when it has
#: ``inference=True``: a reference level per one-hot block, numeric values centred by
#: public constants (DPTableVectorizer's and BoundedScaler's parameters), one linear
#: map per numeric column (no second, log, scale: a coefficient per unit of the
#: column, which ``summary(units="original")`` writes in raw units) and a missing cell
#: next to its indicator written at 0 (the indicators then add nothing to the row norm
#: bound). Every one is public and post-processing: the releases are the same.
INFERENCE_PREPARATION = {"one_hot_reference": "first", "centre": True, "log1p": False,
                         "add_indicator": "zero"}

#: What ``"auto"`` means for the preparation of any other estimator with an intercept: the
#: numeric values centred at their range's public midpoint, written in [-1, 1] instead of
#: [0, 1]. At the same row-norm bound every numeric column then spans twice the amplitude
#: (four times the variance) and no column's offset lines up with the intercept column,
#: which absorbs the shift (docs/theory.md, "Centred numeric columns"). And a missing cell
#: next to its indicator written at 0, the midpoint: centred, a median imputed at a
#: column's low end is written near -1, and its block's squared bound 1 + m^2 near 2
#: (docs/theory.md, "Indicators at 0 for every intercept model"). Public and
#: post-processing: the releases are the same.
INTERCEPT_PREPARATION = {"centre": True, "add_indicator": "zero"}

#: The class attribute by which a step declares which of those options it reads with that
#: meaning (DPTableVectorizer: all four; BoundedScaler: ``centre``). A step that does not
#: declare them is never changed: a third-party parameter that happens to share a name
#: and the value "auto" means something else there.
INFERENCE_OPTIONS_ATTRIBUTE = "__skdpgd_inference_options__"

#: The same declaration for :data:`INTERCEPT_PREPARATION` (DPTableVectorizer, whose output
#: is dense; BoundedScaler does not declare it: centred, a sparse input would become dense).
INTERCEPT_OPTIONS_ATTRIBUTE = "__skdpgd_intercept_options__"


def is_private(step):
    """Whether ``step`` follows the private-step protocol (a class attribute)."""
    return getattr(type(step), PRIVATE_FIT_ATTRIBUTE, False) is True


def fit_transform_private(step, X, y, *, mu, extra_delta, random_state):
    """A private step's ``_fit_private`` then ``transform`` of X: through its
    ``_fit_transform_private`` (the mixin's, which shares X's readings between the
    two), or the two calls for a look-alike of the protocol without it."""
    both = getattr(step, "_fit_transform_private", None)
    if both is not None:
        return both(X, y, mu=mu, extra_delta=extra_delta, random_state=random_state)
    step._fit_private(X, y, mu=mu, extra_delta=extra_delta, random_state=random_state)
    return step.transform(X)


#: The class attribute that marks a step released once by ``DPPipeline.prepare``.
PREPARED_ATTRIBUTE = "__skdpgd_prepared__"


def is_prepared(step):
    """Whether ``step`` was released once by ``DPPipeline.prepare`` (a class attribute)."""
    return getattr(type(step), PREPARED_ATTRIBUTE, False) is True


def is_skip(step):
    """Whether ``step`` is a skipped step (None or ``"passthrough"``)."""
    return step is None or (isinstance(step, str) and step == "passthrough")


def is_auto(value):
    """Whether a parameter is the string ``"auto"``."""
    return isinstance(value, str) and value == "auto"


def check_steps(pipeline):
    """The steps, refused with the reason when they cannot form a DP pipeline.

    Looks at parameters only (never at data), so every refusal here is a public fact
    and comes before the ledger is charged.
    """
    steps = pipeline.steps
    if not isinstance(steps, list) or not steps or not all(
            isinstance(s, tuple) and len(s) == 2 for s in steps):
        raise TypeError("steps must be a non-empty list of (name, estimator) tuples.")
    names = [name for name, _ in steps]
    pipeline._validate_names(names)
    *pre, (last_name, final) = steps
    if not isinstance(final, BaseDPLinearModel):
        raise TypeError(
            f"A DPPipeline ends in an skdpgd estimator (DPLogisticRegression or DPRidge); "
            f"its last step {last_name!r} is {type(final).__name__}."
        )
    check_reports_mu(final, "inside a DPPipeline")
    check_owned_params(last_name, final, pipeline)
    final._check_in_pipeline()  # its declared refusals (linear_model._pipeline_releases)
    for name, step in pre:
        if is_skip(step):
            continue
        if is_private(step):
            check_owned_params(name, step, pipeline)
            continue
        if is_prepared(step):  # a PreparedStep refuses one that no charged release made
            check = getattr(step, "check_charged", None)
            if not callable(check):
                raise TypeError(
                    f"Step {name!r} ({type(step).__name__}) declares itself prepared "
                    "(__skdpgd_prepared__) but carries no charged release to check: only "
                    "DPPipeline.prepare(X, ledger=...) and DPSearchCV make prepared steps.")
            check()
        reason = why_not_public(step)
        if reason:
            raise TypeError(
                f"Step {name!r} is neither a private step (the protocol of "
                f"skdpgd.preprocessing._private_step) nor public-bound: {reason}."
            )
    return prepared_for(pre, final), last_name, final


def prepared_for(pre, final):
    """``pre`` with the last transformer's ``"auto"`` inference options decided.

    When ``final`` has ``inference=True``, the step whose output the estimator sees gets
    :data:`INFERENCE_PREPARATION` for each of those parameters left at ``"auto"`` that it
    declares (:data:`INFERENCE_OPTIONS_ATTRIBUTE`; a clone; the user's step is not
    changed); any other ``final`` that fits an intercept gets
    :data:`INTERCEPT_PREPARATION` the same way, on a step that declares it
    (:data:`INTERCEPT_OPTIONS_ATTRIBUTE`). Public: parameters only. A prepared
    (frozen) step keeps what it was released with.
    """
    if getattr(final, "inference", False) is True:
        options, attribute = INFERENCE_PREPARATION, INFERENCE_OPTIONS_ATTRIBUTE
    elif getattr(final, "fit_intercept", False) is True:
        options, attribute = INTERCEPT_PREPARATION, INTERCEPT_OPTIONS_ATTRIBUTE
    else:
        return pre
    for k in range(len(pre) - 1, -1, -1):
        name, step = pre[k]
        if is_skip(step):
            continue
        if is_prepared(step) or not hasattr(step, "get_params"):
            return pre
        params = step.get_params(deep=False)
        declared = getattr(type(step), attribute, ())
        auto = {key: value for key, value in options.items()
                if key in declared and is_auto(params.get(key))}
        if not auto:
            return pre
        return [*pre[:k], (name, clone(step).set_params(**auto)), *pre[k + 1:]]
    return pre


def check_reports_mu(estimator, where):
    """Refuse an estimator whose solver does not declare a Gaussian-DP report.

    Reads the solver's declared capability (``Solver.reports_mu``), never its name, so
    a registered solver is refused or accepted by what it declares; a pipeline or a
    search composes every release in mu, so it refuses the others here, before any
    charge.

    Parameters
    ----------
    estimator : skdpgd estimator
        Its ``solver`` is looked up in the registry (an unknown name is refused there).
    where : str
        Where it is used, for the message (``"inside a DPPipeline"``).
    """
    solver = get_solver(estimator.solver)
    if getattr(solver, "reports_mu", False) is not True:
        usable = [name for name in solver_names() if get_solver(name).reports_mu is True]
        raise ValueError(
            f"solver={estimator.solver!r} is refused {where}: its solver declares "
            "reports_mu=False (its privacy report has no single Gaussian-DP parameter "
            "mu: solver='sgd' is a privacy-loss-distribution bound), and the pipeline "
            "and DPSearchCV compose every release in mu. Use a solver that reports "
            f"mu: {usable}."
        )


def _default(step, param):
    """The default of ``param`` in the signature of ``type(step).__init__``, or a marker."""
    try:
        parameter = inspect.signature(type(step).__init__).parameters.get(param)
    except (TypeError, ValueError):  # no signature to read: no default known
        parameter = None
    return inspect.Parameter.empty if parameter is None else parameter.default


def _is_default(value, default):
    """Whether ``value`` is the default: the same object, or an equal number or string."""
    if value is default:
        return True
    if isinstance(value, str) or isinstance(default, str):
        return isinstance(value, str) and isinstance(default, str) and value == default
    numbers_only = all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                       for v in (value, default))
    return numbers_only and float(value) == float(default)


#: Why a step's own value of each parameter the pipeline sets would not be used.
_NOT_USED = {
    "epsilon": "the pipeline's budget (epsilon, delta) covers every release and gives "
               "each its share, so this value would not be spent",
    "delta": "the pipeline's budget (epsilon, delta) covers every release and gives "
             "each its share, so this value would not be used",
    "random_state": "every release draws its seed from the pipeline's random_state, so "
                    "this seed would not be used",
    "ledger": "the pipeline charges its own ledger once, before reading any value, so "
              "this ledger would never be charged",
}


def check_owned_params(name, step, pipeline):
    """The one rule for a step's parameters that the pipeline's budget sets.

    A step's ``epsilon``, ``delta``, ``random_state`` and ``ledger`` (:data:`OWNED_PARAMS`)
    are the pipeline's: the pipeline splits its own budget between its releases, draws
    every seed from its own ``random_state`` and charges its own ledger. Left at the
    step's defaults, they are set by the pipeline in its fitted clones; a value that
    differs from the default (set by hand, by ``set_params`` or by a search's grid) would
    be replaced or ignored, so it is refused here, before the charge, naming the value,
    the pipeline's own and where to set it.

    Parameters
    ----------
    name : str
        The step's name (for the message).
    step : estimator
        A private step or the final estimator.
    pipeline : DPPipeline
        Whose parameters are used instead (quoted in the message).
    """
    params = step.get_params(deep=False) if hasattr(step, "get_params") else {}
    for param in OWNED_PARAMS:
        if param not in params:
            continue
        value, default = params[param], _default(step, param)
        if default is inspect.Parameter.empty or _is_default(value, default):
            continue
        fix = ("Give the ledger to the DPPipeline (ledger=...)" if param == "ledger" else
               f"Set {param} on the DPPipeline (it is {getattr(pipeline, param, None)!r})")
        raise ValueError(
            f"Step {name!r} ({type(step).__name__}) sets {param}={value!r}, which a "
            f"DPPipeline sets itself: {_NOT_USED[param]}. {fix} and leave the step's "
            f"{param} at its default {default!r}."
        )


def check_classes(final, ledger):
    """With a ledger, a classifier's label set must be public (given before the charge)."""
    from_y = final._pipeline_classes() is None and "label_set" not in final._pipeline_releases()
    if is_classifier(final) and from_y and ledger is not None:
        raise ValueError(
            "with a ledger, the classifier's classes= must be given: the label set "
            "decides the loss and the noise, and reading it from y before the charge "
            "would let a refused fit reveal the labels for free."
        )


def public_shape(X, y):
    """(n, d) from the containers' structure (``len``, ``shape``, columns), no value."""
    if y is None:
        raise ValueError("DPPipeline requires y to be passed, but the target y is None.")
    refuse_dask_table(X)  # from its type alone
    try:
        n, d, n_y = _num_samples(X), _num_features(X), _num_samples(y)
    except (TypeError, ValueError):  # its text may quote a value ("Singleton array ...")
        n = None
    if n is None:  # raised outside the handler: no original chained to it
        raise ValueError(
            "DPPipeline reads n and d from the shape of X and y before reading any value, "
            f"and could not (X is a {type(X).__name__}, y a {type(y).__name__}). Pass X as "
            "a pandas or polars DataFrame, a 2-D numpy array or a scipy sparse matrix, and "
            "y as a 1-D array."
        )
    if n_y != n:
        raise ValueError(f"X and y have different numbers of rows: {n} and {n_y} (n is "
                         "public: the shapes must agree).")
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind in ("M", "m"):  # the dtype alone (schema): no date or duration is a label/target
        raise TypeError(f"y has dtype {y.dtype}: a date or duration is neither a label nor a "
                        "target; convert it (e.g. a year, or a duration in days) first.")
    if d < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)) while a minimum "
                         "of 1 is required.")
    if n < 2:
        raise ValueError(f"Found array with {n} sample(s) (shape=({n}, {d})) while a "
                         f"minimum of 2 is required (n_samples={n}).")
    y_shape = getattr(y, "shape", (n,))  # one target per row: the estimators' refusal, public
    if len(y_shape) > 2 or (len(y_shape) == 2 and y_shape[1] != 1):
        raise ValueError(f"DPPipeline supports a single target (one label or value per "
                         f"row); y has shape {tuple(y_shape)}.")
    return int(n), int(d)
