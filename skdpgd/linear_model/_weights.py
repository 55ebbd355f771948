r"""Row weights of the DP linear models: ``class_weight`` and ``sample_weight`` with a public bound.

With weights :math:`w_i \in [0, W]` the objective is

.. math::

    F(\theta) = \frac1n \sum_{i=1}^n w_i\, \ell(\theta; \tilde x_i, y_i)
              + \frac\lambda2 \|\theta\|^2 ,

and every constant of the accountants is the unweighted one times W
(:class:`skdpgd.losses.WeightedLoss`; derivation in docs/theory.md#weights):

* ``class_weight`` is a **public** dict {label: weight}: labels not in it weigh 1, as in
  scikit-learn. Its bound :math:`W_c` is the largest weight of a label of the public
  label set (``classes``), or, when the label set is not given, the largest value of
  the dict and 1. ``"balanced"`` divides by the class counts of the private data and is
  refused standalone; :func:`class_weight_from_counts` turns *released* (noisy) counts
  into a public dict, for a pipeline that has paid for them.
* ``sample_weight`` is **private** (one weight per record, part of the record): only
  its public bound ``max_sample_weight`` :math:`W_s` is used by the plan, and the
  weights are clipped to :math:`[0, W_s]` silently after the ledger charge (a message
  saying whether some weight was clipped would be an unaccounted fact about the data);
  a NaN weight is refused after the charge with a message naming no row and no value.
* Both together: :math:`w_i = c_{y_i}\,\mathrm{clip}(s_i, 0, W_s)` and
  :math:`W = W_c W_s`.

Everything here that the plan uses reads parameters only; :func:`row_weights` reads the
data and runs after the charge.
"""

import math
import numbers

import numpy as np

__all__ = [
    "check_class_weight", "check_sample_weight_shape", "class_weight_bound",
    "class_weight_from_counts", "row_weights",
]

_BALANCED = (
    "class_weight='balanced' is refused here: it reads the class counts of the private "
    "data, which would enter the model (and set the sensitivity) without being "
    "accounted. Give a public dict {label: weight} (its largest weight scales the "
    "sensitivity), or release noisy class counts under a budget of their own (accounted "
    "with the fit, e.g. in one ledger) and turn them into a dict with "
    "skdpgd.linear_model._weights.class_weight_from_counts: the hook a DP pipeline uses."
)

_NEEDS_BOUND = (
    "{name}.fit got sample_weight but max_sample_weight is None: a weight w_i multiplies "
    "row i's gradient, so the sensitivity is max_sample_weight times the unweighted one, "
    "and that maximum must be a public bound set before the data are read (a weight is "
    "part of its record: weights computed from the data, such as "
    "compute_sample_weight('balanced', y), are private). Set max_sample_weight to the "
    "largest weight your weighting scheme can give; weights beyond it are clipped to it "
    "silently."
)


def check_class_weight(class_weight, classes=None):
    """The validated public ``class_weight`` dict (labels -> float), or None.

    Reads parameters only (call it before the charge).

    Parameters
    ----------
    class_weight : dict, "balanced" or None
    classes : ndarray or None
        The public label set, if given (keys outside it are refused).

    Returns
    -------
    class_weight : dict or None

    Raises
    ------
    ValueError
        For ``"balanced"`` (with the reason), a weight that is negative or not finite,
        all weights 0, or a key outside the public label set.
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, str):
        if class_weight == "balanced":
            raise ValueError(_BALANCED)
        raise ValueError(
            f"class_weight must be None or a dict {{label: weight}}, got {class_weight!r}."
        )
    if not isinstance(class_weight, dict):
        raise ValueError(
            "class_weight must be None or a dict {label: weight} of public weights, got a "
            f"{type(class_weight).__name__}."
        )
    checked = {}
    for label, weight in class_weight.items():
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise ValueError(f"class_weight[{label!r}] must be a number, got {weight!r}.")
        weight = float(weight)
        if not (math.isfinite(weight) and weight >= 0.0):
            raise ValueError(
                f"class_weight[{label!r}] must be finite and >= 0, got {weight!r}."
            )
        checked[label] = weight
    if classes is not None:
        known = set(np.asarray(classes).tolist())
        unknown = [label for label in checked if label not in known]
        if unknown:
            raise ValueError(
                f"class_weight has labels {unknown} that are not in classes="
                f"{np.asarray(classes).tolist()}."
            )
    if class_weight_bound(checked, classes) <= 0.0:
        raise ValueError("class_weight gives every class weight 0: nothing would be fitted.")
    return checked


def class_weight_bound(class_weight, classes=None):
    r"""W_c: the largest weight a row can get from ``class_weight`` (1.0 for None).

    With the public label set: :math:`\max_k` ``class_weight.get(k, 1)``; without it, the
    labels of the data are not known before the charge, so a label missing from the
    dict (weight 1) must be assumed: :math:`\max(1, \max_k w_k)`.
    """
    if class_weight is None:
        return 1.0
    if classes is None:
        return max([1.0, *class_weight.values()])
    return max(class_weight.get(label, 1.0) for label in np.asarray(classes).tolist())


def check_sample_weight_shape(sample_weight, n_samples, max_sample_weight, name):
    """Refuse, from public facts only, a ``sample_weight`` the fit cannot take.

    Reads the parameters and the container's shape (``shape`` or ``len``), never a value:
    call it before the charge.

    Raises
    ------
    ValueError
        ``sample_weight`` given with ``max_sample_weight=None`` (with the reason), or not
        of shape (n_samples,).
    """
    if sample_weight is None:
        return
    if max_sample_weight is None:
        raise ValueError(_NEEDS_BOUND.format(name=name))
    shape = getattr(sample_weight, "shape", None)
    if shape is None:
        try:
            shape = (len(sample_weight),)
        except TypeError:  # e.g. an object with __array__ only: its array's shape
            try:
                shape = np.asarray(sample_weight).shape
            except (TypeError, ValueError):
                shape = ("unknown",)
    if tuple(shape) != (n_samples,):
        raise ValueError(
            f"sample_weight must have shape ({n_samples},), one weight per row of X; got "
            f"shape {tuple(shape)}."
        )


def row_weights(n_samples, *, codes=None, classes=None, class_weight=None,
                sample_weight=None, max_sample_weight=None):
    r"""The weights :math:`w_i = c_{y_i}\,\mathrm{clip}(s_i, 0, W_s)` of the rows (after the
    charge).

    Parameters
    ----------
    n_samples : int
    codes : ndarray of int, optional
        Each row's index in ``classes`` (needed with ``class_weight``).
    classes : ndarray, optional
        The label set of the fit.
    class_weight : dict or None
        Validated by :func:`check_class_weight`.
    sample_weight : array-like of shape (n_samples,) or None
        Private weights; None means 1 for every row.
    max_sample_weight : float or None
        :math:`W_s`; None only when ``sample_weight`` is None (then :math:`s_i = 1`).

    Returns
    -------
    weights : ndarray of shape (n_samples,), in [0, W_c W_s]

    Raises
    ------
    ValueError
        If ``sample_weight`` is not numeric or holds a NaN (a record outside the domain;
        no value, row or count named; raised after the charge). Every weight 0 is not an
        error: the data term is zero and the fit releases the noisy regularised run.
    """
    if sample_weight is None:
        weights = np.ones(n_samples)
    else:
        try:
            weights = np.asarray(sample_weight, dtype=np.float64).reshape(n_samples)
        except (TypeError, ValueError):  # its text may quote a weight: raised unchained below
            weights = None
        if weights is None:
            raise ValueError("sample_weight must be numeric (one real weight per row).")
        if np.isnan(weights).any():
            raise ValueError(
                "sample_weight contains NaN; give every row a weight (0 drops a row)."
            )
    if max_sample_weight is not None:  # +inf -> W_s, negative and -inf -> 0
        weights = np.clip(weights, 0.0, float(max_sample_weight))
    if class_weight is not None:
        per_class = np.array(
            [class_weight.get(label, 1.0) for label in np.asarray(classes).tolist()]
        )
        weights = weights * per_class[np.asarray(codes, dtype=np.intp)]
    # Every weight 0 is fitted, not refused: it is a property of the whole data set, not
    # of one record outside the domain, so a refusal after the charge would tell two
    # neighbouring data sets apart with certainty. The data term is then zero and the
    # release is the noisy run around the regulariser's minimiser; the objective divides
    # by the public n, never by a sum of weights, so nothing here divides by zero.
    return weights


def class_weight_from_counts(classes, counts, n_samples, *, min_count=1.0):
    r"""scikit-learn's ``"balanced"`` weights from *released* class counts (post-processing).

    :math:`w_k = n / (K \max(\hat n_k, m))` for K classes, the public n and released
    (noisy) counts :math:`\hat n_k`, floored at ``min_count`` m because a noisy count may
    be small or negative. A function of released numbers only, so it costs nothing
    beyond the release of the counts (which the caller accounts); the largest weight,
    :math:`n / (K\, \min_k \max(\hat n_k, m))`, is the :math:`W_c` that scales the
    sensitivity of the fit that uses them.

    Parameters
    ----------
    classes : array-like of shape (K,)
        The public label set.
    counts : array-like of shape (K,)
        The released counts, in the order of ``classes``.
    n_samples : int
        n (public).
    min_count : float, default=1.0
        The floor m > 0 of a count.

    Returns
    -------
    class_weight : dict
        {label: weight}, to pass as the estimator's ``class_weight``.
    """
    classes = np.asarray(classes).tolist()
    counts = np.asarray(counts, dtype=np.float64).reshape(-1)
    if counts.size != len(classes):
        raise ValueError(f"need one count per class: {len(classes)} classes, {counts.size} counts.")
    if not (math.isfinite(min_count) and min_count > 0):
        raise ValueError(f"min_count must be positive and finite, got {min_count!r}.")
    floored = np.maximum(np.nan_to_num(counts, nan=min_count), min_count)
    weights = float(n_samples) / (len(classes) * floored)
    return {label: float(w) for label, w in zip(classes, weights, strict=True)}
