"""What an estimator asks a DP pipeline to release for it: declarations, not names.

An estimator may leave a public number of its fit to a :class:`~skdpgd.DPPipeline`,
which then releases it from the data, within its budget, before it fits a clone of the
estimator. The pipeline reads these declarations and never an estimator's class or the
name of one of its parameters (docs/architecture.md, "Adding an estimator"):

* ``_pipeline_releases()``: the kinds of release the fit needs, in order, from the
  pipeline's releases: ``"target_range"`` (a private range of y; the fit then sees y
  mapped to [-1, 1]), ``"label_set"`` (a thresholded release of the labels present) and
  ``"class_counts"`` (noisy counts of the classes, for balanced weights);
* ``_use_pipeline_release(kind, value)``: the clone takes the released value (the range
  ``(low, high)``, the label set, the class weights);
* ``_pipeline_classes()``: the public label set the counts are of (None: no public one);
* ``_check_in_pipeline()``: refusals, from the parameters alone, of what no pipeline
  release can supply (before the ledger charge).

Three more declarations say what public facts of the fit its parameters give, read by the
layers above (``DPSearchCV``, ``privacy_utility_curve``, a pipeline's constant check)
instead of a parameter by name:

* ``_public_label_set()``: a classifier's label set as given (None: none; ``"private"``:
  one a pipeline releases); None for a regressor;
* ``_public_target_bound()``: the bound on |y| the targets are clipped to, as given
  (None: none; ``"auto"``: one a pipeline releases); None for a classifier;
* ``_weighs_classes()``: whether the objective weighs the classes (``class_weight``).

All of them are functions of the parameters only (public).
"""

__all__ = ["PipelineReleases"]


class PipelineReleases:
    """The declarations' defaults: an estimator that asks for no release (module doc)."""

    def _pipeline_releases(self):
        """The kinds of release a DP pipeline makes for this fit, in order (public)."""
        return ()

    def _use_pipeline_release(self, kind, value):
        """Set the released ``value`` of ``kind`` on this (cloned) estimator."""
        raise ValueError(f"{type(self).__name__} asks for no {kind!r} release.")

    def _pipeline_classes(self):
        """The public label set (None: none, or one the pipeline releases)."""
        return None

    def _check_in_pipeline(self):
        """Refuse, before the charge, what no pipeline release supplies (none here)."""

    def _public_label_set(self):
        """The public label set as given (None here: a regressor, or none given)."""
        return None

    def _public_target_bound(self):
        """The public bound on |y| as given (None here: a classifier, or none given)."""
        return None

    def _weighs_classes(self):
        """Whether the objective weighs the classes (False here)."""
        return False
