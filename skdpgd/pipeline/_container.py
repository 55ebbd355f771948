"""A DPPipeline as a sequence of steps, like scikit-learn's ``Pipeline``.

scikit-learn's ``Pipeline`` fits its steps in place, so ``pipe[-1]``, ``pipe[:-1]`` and
``pipe.named_steps`` are the fitted steps. A :class:`~skdpgd.DPPipeline` never changes
the steps it was given (each fit charges a budget and fits clones with their
allowances, into ``pipeline_``), so the same indexing reads the fitted clones once the
pipeline is fitted, and the given steps before:

* ``len(pipe)``: the number of steps;
* ``pipe[i]`` / ``pipe["name"]``: one step (the fitted clone after ``fit``);
* ``pipe[a:b]``: after ``fit``, a plain, fitted scikit-learn ``Pipeline`` of those fitted
  clones (``pipe[:-1].transform(X)`` gives what the estimator saw; post-processing of
  the fit's releases, no privacy cost); before ``fit``, a ``DPPipeline`` of those steps
  with the same budget, as scikit-learn returns a pipeline of its own class;
* ``pipe.named_steps``: the steps by name, fitted after ``fit``;
* ``get_feature_names_out``: the fitted steps' names, as ``Pipeline`` gives them (its
  last step must be a transformer: ``pipe[:-1].get_feature_names_out()`` names the
  columns the estimator saw);
* ``set_output(transform=...)``: set on every step, given and fitted (the clones a fit
  makes keep it: scikit-learn's ``clone`` copies the output configuration).
"""

from sklearn.pipeline import Pipeline
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted


class StepSequence:
    """Indexing, length, named steps and output configuration of a DPPipeline."""

    def _current_steps(self):
        """The fitted clones' ``(name, step)`` list after ``fit``, the given steps before."""
        fitted = getattr(self, "pipeline_", None)
        return fitted.steps if fitted is not None else self.steps

    def __len__(self):
        """The number of steps.

        Returns
        -------
        int
            ``len(self.steps)``.
        """
        return len(self.steps)

    def __getitem__(self, ind):
        """One step (by position or name) or a sub-pipeline (by slice).

        Parameters
        ----------
        ind : int, str or slice
            A position, a step name, or a slice with step 1 (or None).

        Returns
        -------
        estimator or Pipeline or DPPipeline
            A step (the fitted clone after ``fit``); for a slice, a fitted scikit-learn
            ``Pipeline`` of the fitted clones after ``fit``, an unfitted ``DPPipeline``
            of the given steps (same budget and ledger) before.
        """
        steps = self._current_steps()
        if isinstance(ind, slice):
            if ind.step not in (1, None):
                raise ValueError("a DPPipeline slice does not support a step; got "
                                 f"step={ind.step!r}.")
            if hasattr(self, "pipeline_"):
                return Pipeline(list(steps[ind]))
            return type(self)(list(steps[ind]), epsilon=self.epsilon, delta=self.delta,
                              preparation_share=self.preparation_share,
                              ledger=self.ledger, random_state=self.random_state)
        if isinstance(ind, str):
            named = dict(steps)
            if ind not in named:
                raise KeyError(f"no step named {ind!r}; the steps are "
                               f"{[name for name, _ in steps]}.")
            return named[ind]
        return steps[ind][1]

    @property
    def named_steps(self):
        """The steps by name (a :class:`~sklearn.utils.Bunch`; the fitted clones after ``fit``)."""
        return Bunch(**dict(self._current_steps()))

    def get_feature_names_out(self, input_features=None):
        """The output names of the fitted steps, as scikit-learn's ``Pipeline`` gives them.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Passed to the first step.

        Returns
        -------
        ndarray of str
            The names out of the last step.

        Raises
        ------
        AttributeError
            When a step (for example the final estimator) has no
            ``get_feature_names_out``: use ``pipe[:-1].get_feature_names_out()`` for the
            columns the estimator saw.
        """
        check_is_fitted(self)
        return self.pipeline_.get_feature_names_out(input_features)

    def set_output(self, *, transform=None):
        """Set the output container of every step's ``transform``.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None, default=None
            scikit-learn's output configuration; None leaves it unchanged.

        Returns
        -------
        self : DPPipeline
            This pipeline.
        """
        if transform is None:
            return self
        owners = [self.steps]
        if hasattr(self, "pipeline_"):
            owners.append(self.pipeline_.steps)
        for steps in owners:
            for _, step in steps:
                if hasattr(step, "set_output"):  # "passthrough", None: nothing to set
                    step.set_output(transform=transform)
        return self
