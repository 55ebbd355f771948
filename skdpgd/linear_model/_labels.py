"""The public label set of :class:`~skdpgd.DPLogisticRegression` and the loss it selects.

The label set is public (docs/privacy_model.md): it decides the loss (binary for two
classes, softmax for more), the shape of theta and the bound of a ``class_weight``, so
it is fixed before the charge: given as ``classes``, or (without a ledger only) read
from y and noted in the report. :class:`PublicLabelsMixin` holds the
estimator's steps that read it: the ``classes`` parameter checked, the labels of y
encoded in it (one chunked pass, :func:`skdpgd._data._passes.scan_labels`), the bound
W_c of the class weights and the loss of the
:class:`~skdpgd.linear_model._base.BaseDPLinearModel` hook ``_loss_and_shape``. No
message here quotes a label of y, a row or a count (only the public ``classes``).
"""

import numpy as np

from .._data._passes import scan_labels
from ..accounting import LABELS_READ_NOTE
from ..losses import BinaryLogisticLoss, MultinomialLogisticLoss
from ..utils import is_missing_label
from ..utils._validation import validate_private
from ._defaults import BINARY_RESIDUAL_CLIP
from ._refusals import refuse_private_classes
from ._weights import check_class_weight, class_weight_bound

__all__ = ["PublicLabelsMixin"]


class PublicLabelsMixin:
    """The label-set steps of DPLogisticRegression (module docstring).

    Reads the estimator's ``classes``, ``class_weight``, ``fit_intercept``,
    ``residual_clip`` and ``n_jobs`` parameters.
    """

    def _class_weight_bound(self):
        """W_c of the public class_weight over the public label set (None: no weights)."""
        if self.class_weight is None:
            return None
        classes = self._public_classes()
        return class_weight_bound(check_class_weight(self.class_weight, classes), classes)

    def _public_classes(self):
        """The sorted public label set ``classes``, or None when it is to be read from y."""
        if self.classes is None:
            return None
        refuse_private_classes(self.classes)
        public = np.asarray(self.classes)
        if any(is_missing_label(c) for c in public.ravel().tolist()):
            raise ValueError(
                f"classes={self.classes!r} contains a missing label (NaN, None, pd.NA or "
                "NaT); the public label set must list actual labels."
            )
        classes = np.unique(public)
        if classes.size < 2:
            raise ValueError(
                f"DPLogisticRegression needs at least 2 classes; got {classes.size} class: "
                f"{classes.tolist()}. Pass classes= with the full public label set."
            )
        return classes

    def _encode_labels(self, y, classes):
        """Codes of y in ``classes`` (public), or in the labels of y when classes is None.

        One chunked pass over y on the fit's ``n_jobs`` threads (two without classes):
        :func:`skdpgd._data._passes.scan_labels`; the result does not depend on ``n_jobs``.
        """
        notes = []
        found, codes, outside = validate_private(
            scan_labels, y, classes, role="y", data=y, estimator=type(self).__name__,
            n_jobs=self.n_jobs,
        )
        if classes is None:
            classes = found
            notes.append(LABELS_READ_NOTE)
            if classes.size < 2:  # the label is not quoted: it is a value of y
                raise ValueError(
                    "DPLogisticRegression needs at least 2 classes; y holds a single label. "
                    "Pass classes= with the full public label set."
                )
        else:
            if outside:  # neither the labels nor their rows or count are quoted
                raise ValueError(
                    f"y holds a label that is not in classes={classes.tolist()} (the public "
                    "label set; neither is a label of another type, e.g. the text '1' for 1). "
                    "Add every label that can occur to `classes`, or remove or relabel the "
                    "rows whose label is outside it before fitting.")
        return classes, codes, notes

    def _loss_and_shape(self, n_features, n_classes):
        """Binary loss for two classes, softmax loss otherwise; theta's shape."""
        if n_classes is None:
            if self.classes is None:
                raise ValueError(
                    "n_classes is needed to plan without data (or set classes= on the estimator)."
                )
            n_classes = self._public_classes().size  # refuses classes="private" here too
        n_classes = int(n_classes)
        if n_classes < 2:
            raise ValueError(f"DPLogisticRegression needs at least 2 classes, got {n_classes}.")
        width = n_features + int(self.fit_intercept)
        if n_classes == 2:
            clip = BINARY_RESIDUAL_CLIP if self.residual_clip == "auto" else self.residual_clip
            return BinaryLogisticLoss(float(clip)), (width,)
        if self.residual_clip not in ("auto", 1, 1.0):
            raise ValueError(
                f"residual_clip={self.residual_clip!r} applies to two classes only: a clipped "
                f"softmax gradient is not the gradient of a convex loss ({n_classes} classes "
                "here). Use residual_clip='auto' or 1."
            )
        return MultinomialLogisticLoss(n_classes), (n_classes, width)
