"""One budget for private preparation and a DP estimator: :class:`DPPipeline`.

:func:`make_dp_pipeline` builds one; its ``privacy_`` (:class:`PipelinePrivacyReport`)
composes every release exactly (:doc:`/budgets`, "One budget for a pipeline").
:meth:`DPPipeline.prepare` releases the private preparation once for a search
(:class:`PreparedStep`; :doc:`/budgets`, "Prepare once, search many").
"""

from ._budget import EXTRA_DELTA_SHARE, PREPARATION_SHARE
from ._budget import PipelineBudget as PipelineBudget
from ._budget import split_budget as split_budget
from ._dp_pipeline import DPPipeline, make_dp_pipeline
from ._prepare import PreparedStep
from ._report import PipelinePrivacyReport

# the API; PipelineBudget and split_budget are internal (importable, no API page)
__all__ = [
    "DPPipeline",
    "make_dp_pipeline",
    "PipelinePrivacyReport",
    "PreparedStep",
    "PREPARATION_SHARE",
    "EXTRA_DELTA_SHARE",
]
