"""Pipelines in private searches: public-bound preprocessing, then one skdpgd estimator.

A step before the estimator costs no privacy when (1) its ``fit`` learns nothing from
the values of X or y (its fitted state is a function of its parameters and of public
shapes only) and (2) its ``transform`` maps every row on its own with that state. Then
the pipeline's output is a function of the estimator's release and of public constants
(post-processing), and the estimator, which clips rows to its public ``data_norm``,
is accounted as usual. A ``StandardScaler`` fails (1): its means and scales are
statistics of the private data, released with the model and never accounted.

Recognised as public-bound:

- skdpgd's own: :class:`~skdpgd.preprocessing.BoundedScaler` (``log1p`` included),
  :class:`~skdpgd.preprocessing.RowNormClipper`,
  :class:`~skdpgd.preprocessing.Log1pTransformer`,
  :class:`~skdpgd.preprocessing.PublicOneHotEncoder` (:func:`~skdpgd.preprocessing.public_one_hot`),
  and scikit-learn's ``OneHotEncoder`` given explicit category lists,
  ``handle_unknown="ignore"`` and no ``drop``, ``min_frequency`` or ``max_categories``;
- ``"passthrough"`` / None steps, and nested ``Pipeline`` / ``ColumnTransformer`` made of
  public-bound parts;
- any transformer that declares it: ``__skdpgd_public_fit__ = True`` as a class
  attribute of its class (an instance attribute would not survive the clones that
  searches make), a promise that (1) and (2) above hold.
"""

from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from ..linear_model._base import BaseDPLinearModel
from ..preprocessing import (
    BoundedScaler,
    Log1pTransformer,
    PublicOneHotEncoder,
    RowNormClipper,
)

#: The attribute a transformer sets to True to declare that its fit reads no data.
PUBLIC_FIT_ATTRIBUTE = "__skdpgd_public_fit__"


def _public_one_hot(step):
    return (isinstance(step, OneHotEncoder) and isinstance(step.categories, (list, tuple))
            and step.handle_unknown == "ignore" and step.drop is None
            and step.min_frequency is None and step.max_categories is None)


def why_not_public(step):
    """None when ``step`` is public-bound, else a sentence saying why it is not."""
    if step is None or (isinstance(step, str) and step in ("passthrough", "drop")):
        return None
    if getattr(step, PUBLIC_FIT_ATTRIBUTE, False) is True:
        return None
    if isinstance(step, (BoundedScaler, RowNormClipper, PublicOneHotEncoder,
                         Log1pTransformer)) or _public_one_hot(step):
        return None
    if getattr(step, "__skdpgd_private_fit__", False) is True:
        return (f"{type(step).__name__} is a private step (its fit spends a budget of its "
                "own); compose it with the estimator in skdpgd.make_dp_pipeline")
    if isinstance(step, Pipeline):
        for _, inner in step.steps:
            reason = why_not_public(inner)
            if reason:
                return reason
        return None
    if isinstance(step, ColumnTransformer):
        parts = [t for _, t, _ in step.transformers] + [step.remainder]
        for inner in parts:
            reason = why_not_public(inner)
            if reason:
                return reason
        return None
    if isinstance(step, OneHotEncoder):
        return (f"{step!r} reads its categories (or drops / groups them) from the data; use "
                "skdpgd.preprocessing.public_one_hot(categories) with the public lists")
    return (f"{type(step).__name__} may learn from the data in fit (a statistic released "
            f"with the model, never accounted); use skdpgd.preprocessing's transformers, or "
            f"declare a transformer whose fit reads no data with "
            f"{PUBLIC_FIT_ATTRIBUTE} = True")


#: The class attribute of :class:`skdpgd.DPPipeline` (recognised without importing it).
DP_PIPELINE_ATTRIBUTE = "__skdpgd_dp_pipeline__"


def is_dp_pipeline(estimator):
    """Whether ``estimator`` is a :class:`skdpgd.DPPipeline` (one budget, one charge)."""
    return getattr(type(estimator), DP_PIPELINE_ATTRIBUTE, False) is True


def split_estimator(estimator):
    """(preprocessing steps, final skdpgd estimator, its step name or None).

    Raises TypeError unless ``estimator`` is an skdpgd estimator, a ``Pipeline`` of
    public-bound transformers ending in one, or a :class:`skdpgd.DPPipeline`. A DP pipeline
    is one private unit: it is returned as the "final estimator" with no steps before it
    and no name, so that a search sets its (pipeline-level) ``epsilon``, ``delta``,
    ``ledger`` and ``random_state`` and prices it with its ``plan_privacy``.
    """
    if isinstance(estimator, BaseDPLinearModel) or is_dp_pipeline(estimator):
        return [], estimator, None
    if isinstance(estimator, Pipeline):
        *pre, (name, final) = estimator.steps
        if not isinstance(final, BaseDPLinearModel):
            raise TypeError(
                f"The pipeline must end in an skdpgd estimator (DPLogisticRegression or "
                f"DPRidge); its last step {name!r} is {type(final).__name__}."
            )
        for step_name, step in pre:
            reason = why_not_public(step)
            if reason:
                raise TypeError(
                    f"Pipeline step {step_name!r} is not public-bound: {reason}. Only "
                    "transformers whose fit reads no data may precede the private estimator."
                )
        return pre, final, name
    raise TypeError(
        f"Expected an skdpgd estimator (DPLogisticRegression, DPRidge), a Pipeline of "
        f"public-bound transformers ending in one, or a DPPipeline; got "
        f"{type(estimator).__name__}."
    )


def final_params(estimator, **params):
    """``params`` renamed for the final step of ``estimator`` (unchanged without a pipeline)."""
    _, _, name = split_estimator(estimator)
    return params if name is None else {f"{name}__{k}": v for k, v in params.items()}


def candidate(estimator, params):
    """A clone of ``estimator`` with ``params``, and its final skdpgd estimator (checked)."""
    est = clone(estimator).set_params(**params)
    return est, split_estimator(est)[1]


def features_out(step, n_features):
    """Columns a public-bound step outputs for ``n_features`` inputs, or None if unknown."""
    if step is None or step == "passthrough":
        return n_features
    if isinstance(step, (BoundedScaler, RowNormClipper, Log1pTransformer)):
        return n_features
    if _public_one_hot(step) or isinstance(step, PublicOneHotEncoder):
        return sum(len(c) for c in step.categories)
    if isinstance(step, Pipeline):
        for _, inner in step.steps:
            n_features = None if n_features is None else features_out(inner, n_features)
        return n_features
    return None
