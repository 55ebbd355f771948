"""Warnings and errors raised by skdpgd."""


class PrivacyBudgetWarning(UserWarning):
    """A requested privacy budget cannot be met as asked, or is met only loosely."""


class BoundNotApplicableError(ValueError):
    """A privacy theorem's hypotheses do not hold for the run it was asked about.

    Raised, for example, when Chourasia et al.'s bound (which needs a step size
    below 1/smoothness) is asked about a run with a larger step.
    """
