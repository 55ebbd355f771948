"""What a DPPipeline checks before its ledger charge: parameters and shapes only.

Every refusal here is a public fact (the steps and their parameters, the containers'
``len`` and ``shape``), so it comes before the charge and quotes no value.
"""

from sklearn.base import is_classifier

from ..accounting._release import PRIVATE_FIT_ATTRIBUTE
from ..linear_model import DPRidge
from ..linear_model._base import BaseDPLinearModel
from ..preprocessing._public_steps import why_not_public
from ..utils._sklearn_compat import _num_features, _num_samples


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


def is_balanced(estimator):
    """Whether the estimator asks for ``class_weight="balanced"`` (noisy class counts)."""
    weight = getattr(estimator, "class_weight", None)
    return isinstance(weight, str) and weight == "balanced"


def is_private_classes(estimator):
    """Whether the estimator asks for a private label set (``classes="private"``)."""
    classes = getattr(estimator, "classes", None)
    return isinstance(classes, str) and classes == "private"


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
    if final.solver == "sgd":
        raise ValueError(
            "solver='sgd' is refused inside a DPPipeline: its guarantee comes from a "
            "privacy-loss-distribution bound with no single Gaussian-DP parameter, so "
            "the pipeline could not split one budget between it and the preparation by "
            "exact GDP composition. Use solver='auto', 'preconditioned', 'gd' or 'cyclic'."
        )
    if getattr(final, "ledger", None) is not None:
        raise ValueError(
            "Give the ledger to the DPPipeline (ledger=...), not to its estimator: the "
            "pipeline charges its whole cost once, before reading any value."
        )
    if is_balanced(final) and final.classes is None:
        raise ValueError(
            "class_weight='balanced' inside a DPPipeline needs the public label set "
            "(classes=...): the pipeline releases noisy counts of those classes."
        )
    if isinstance(final, DPRidge) and final.y_bound is None:
        raise ValueError(
            "DPRidge inside a DPPipeline needs y_bound: a public bound on |y|, or "
            "y_bound='auto' for a private range of y released by the pipeline."
        )
    for name, step in pre:
        if is_skip(step):
            continue
        if is_private(step):
            if getattr(step, "ledger", None) is not None:
                raise ValueError(
                    f"Step {name!r} has its own ledger; give the ledger to the DPPipeline, "
                    "which charges every release once."
                )
            continue
        reason = why_not_public(step)
        if reason:
            raise TypeError(
                f"Step {name!r} is neither a private step (the protocol of "
                f"skdpgd.preprocessing._private_step) nor public-bound: {reason}."
            )
    return pre, last_name, final


def check_classes(final, ledger):
    """With a ledger, a classifier's label set must be public (given before the charge)."""
    if is_classifier(final) and final.classes is None and ledger is not None:
        raise ValueError(
            "with a ledger, the classifier's classes= must be given: the label set "
            "decides the loss and the noise, and reading it from y before the charge "
            "would let a refused fit reveal the labels for free."
        )


def public_shape(X, y):
    """(n, d) from the containers' structure (``len``, ``shape``, columns), no value."""
    if y is None:
        raise ValueError("DPPipeline requires y to be passed, but the target y is None.")
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
    if d < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)) while a minimum "
                         "of 1 is required.")
    if n < 2:
        raise ValueError(f"Found array with {n} sample(s) (shape=({n}, {d})) while a "
                         f"minimum of 2 is required (n_samples={n}).")
    return int(n), int(d)
