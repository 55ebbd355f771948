"""Pipelines in private searches: public-bound preprocessing, then one skdpgd estimator.

Which steps are public-bound (their fit reads no value, so they cost no privacy) is
decided in :mod:`skdpgd.preprocessing._public_steps`; this module splits a search's
estimator into those steps and the skdpgd estimator (or :class:`skdpgd.DPPipeline`, a
private unit recognised by its class attribute ``DP_PIPELINE_ATTRIBUTE``) the search prices.
"""

from sklearn.base import clone
from sklearn.pipeline import Pipeline

from ..linear_model._base import BaseDPLinearModel
from ..pipeline._dp_pipeline import DP_PIPELINE_ATTRIBUTE
from ..preprocessing._public_steps import why_not_public


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
