"""Public-bound steps: which transformers may precede a private estimator for free.

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

This module sits in the preprocessing layer so that both :mod:`skdpgd.pipeline` and
:mod:`skdpgd.model_selection` (above it) can ask the question without importing each
other.
"""

from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from ..accounting._release import PRIVATE_FIT_ATTRIBUTE
from ._bounded import BoundedScaler
from ._log import Log1pTransformer
from ._one_hot import PublicOneHotEncoder
from ._row_norm import RowNormClipper

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
    if getattr(step, PRIVATE_FIT_ATTRIBUTE, False) is True:
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
