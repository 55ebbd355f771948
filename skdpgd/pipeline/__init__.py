"""One budget for private preparation and a DP estimator: :class:`DPPipeline`.

:func:`make_dp_pipeline` builds one; its ``privacy_`` (:class:`PipelinePrivacyReport`)
composes every release exactly (``docs/budgets.md``, "One budget for a pipeline").
:meth:`DPPipeline.prepare` releases the private preparation once for a search
(:class:`PreparedStep`; ``docs/budgets.md``, "Prepare once, search many").
"""

from ._budget import EXTRA_DELTA_SHARE, PREPARATION_SHARE, PipelineBudget, split_budget
from ._dp_pipeline import DPPipeline, make_dp_pipeline
from ._prepare import PreparedStep
from ._report import PipelinePrivacyReport

__all__ = [
    "DPPipeline",
    "EXTRA_DELTA_SHARE",
    "PREPARATION_SHARE",
    "PipelineBudget",
    "PipelinePrivacyReport",
    "PreparedStep",
    "make_dp_pipeline",
    "split_budget",
]
