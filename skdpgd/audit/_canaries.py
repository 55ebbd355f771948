r"""Canaries: the record an audit inserts, the record it replaces, and where it is scored.

Replace-one neighbours (docs/theory.md#neighbours): D and D' have the same n and differ in
row ``index`` only. The canary's features point along the coordinate e_j of X with the
least energy :math:`\sum_i x_{ij}^2` (the other rows barely move the model along it, so
the canary's pull is easiest to see), and are placed ``scale`` times *beyond* the
estimator's public bound ``data_norm`` R: a correct estimator clips them back onto the
sphere of radius R at no loss of audit power, while an estimator that forgets to clip
leaks ``scale`` times more. Its label is the rarest class (classifiers) or ``scale``
times the public target bound ``y_bound`` (regressors; clipped back to B by a correct
estimator).

Two kinds:

``"input"``
    D is the auditor's data as given; D' replaces row ``index`` by the canary (the
    standard black-box membership canary).
``"gradient"``
    Row ``index`` holds the *anti-canary* in D and the canary in D', chosen so that the
    difference of the two records' per-example gradients is as large as the loss allows
    at every theta (the replace-one sensitivity S of docs/theory.md#loss-constants, or a fixed
    fraction of it):

    * logistic: same x, another label: :math:`(\sigma(t) - 1)\tilde x - \sigma(t)\tilde x
      = -\tilde x`, norm Rt = S/2 for every theta (S = 2 Rt is a supremum not attained
      by one pair at one theta);
    * Huber / clipped-residual regression: same x, target -y: the two clipped residuals are
      -c and +c while |theta . x~| <= B - c, a gradient difference of norm 2 c Rt = S;
    * unsupervised quadratic loss 0.5 ||theta - x||^2: x' = -x, difference 2R = S.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier

__all__ = ["Canary", "make_canary"]

CANARY_KINDS = ("gradient", "input")


@dataclass(frozen=True, eq=False)
class Canary:
    """A canary and the neighbouring pair (D, D') it defines.

    Attributes
    ----------
    kind : str
        ``"gradient"``, ``"input"`` or ``"custom"``.
    index : int
        The row that differs between D and D'.
    x, y
        The canary record (``y`` is None for unsupervised estimators).
    replaced_x, replaced_y
        The record row ``index`` holds in D.
    score_x : ndarray
        Where the statistic is evaluated: the canary's direction on the norm bound.
    """

    kind: str
    index: int
    x: np.ndarray
    y: object
    replaced_x: np.ndarray
    replaced_y: object
    score_x: np.ndarray

    def datasets(self, X, y):
        """(X_D, y_D, X_D', y_D'): copies of X, y with row ``index`` set to each record.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The auditor's data; not modified.
        y : array-like of shape (n_samples,) or None
            Its labels or targets; None for unsupervised estimators.

        Returns
        -------
        X_without, y_without : ndarray
            D: copies of X (as float) and of y whose row ``index`` is
            ``(replaced_x, replaced_y)`` (``y_without`` is None when y is).
        X_with, y_with : ndarray
            D': the same with the canary ``(x, y)`` in row ``index``. The labels are cast
            to a dtype that holds both y's values and the canary's label.
        """
        X_without, X_with = np.array(X, dtype=float), np.array(X, dtype=float)
        X_without[self.index], X_with[self.index] = self.replaced_x, self.x
        if y is None:
            return X_without, None, X_with, None
        dtype = np.result_type(np.asarray(y).dtype, np.asarray([self.y]).dtype)
        y_without, y_with = np.array(y, dtype=dtype), np.array(y, dtype=dtype)
        y_without[self.index], y_with[self.index] = self.replaced_y, self.y
        return X_without, y_without, X_with, y_with


def _public_bound(params, name, estimator):
    value = params.get(name)
    if value is None or isinstance(value, str):
        raise ValueError(
            f"{type(estimator).__name__} has no numeric public bound `{name}` (got {value!r}); "
            "the canary is placed from it. Pass canary=(x, y) explicitly."
        )
    return float(value)


def _rarest_and_commonest(params, y):
    classes = params.get("classes")
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if classes is not None:  # classes absent from y count 0 and are the rarest
        classes = np.unique(np.asarray(classes))
        counts = np.array(
            [counts[labels == c].sum() if np.any(labels == c) else 0 for c in classes]
        )
        labels = classes
    if labels.size < 2:
        raise ValueError(f"the audit of a classifier needs 2 labels, got {labels.tolist()}.")
    order = np.argsort(counts, kind="stable")
    return labels[order[0]], labels[order[-1]]


def make_canary(estimator, X, y=None, *, kind="gradient", index=0, scale=10.0):
    """Build the worst-case canary of the module docstring for ``estimator`` on (X, y).

    Parameters
    ----------
    estimator : estimator
        Read for its public bounds only (``data_norm``, ``y_bound``, ``classes``).
    X : ndarray of shape (n_samples, n_features)
        The auditor's data: the canary points along the column of X, row ``index``
        left out, with the least energy.
    y : ndarray of shape (n_samples,) or None
        Labels (the canary takes the rarest class), targets, or None (unsupervised).
    kind : {"gradient", "input"}, default="gradient"
        ``"gradient"``: row ``index`` holds the anti-canary in D; ``"input"``: it keeps
        the auditor's row (module docstring).
    index : int, default=0
        Row that differs between D and D'.
    scale : float, default=10.0
        The canary lies ``scale`` times beyond ``data_norm`` (and its target beyond
        ``y_bound``); >= 1. A correct estimator clips it back.

    Returns
    -------
    canary : Canary
        The canary record, the record it replaces and the point ``score_x`` where the
        statistic is read.
    """
    if kind not in CANARY_KINDS:
        raise ValueError(f"canary kind must be one of {CANARY_KINDS}, got {kind!r}.")
    scale = float(scale)
    if not (np.isfinite(scale) and scale >= 1.0):
        raise ValueError(f"canary_scale must be a finite number >= 1, got {scale!r}.")
    params = estimator.get_params()
    radius = _public_bound(params, "data_norm", estimator)
    others = np.delete(X, index, axis=0)
    j = int(np.argmin(np.einsum("ij,ij->j", others, others)))
    score_x = np.zeros(X.shape[1])
    score_x[j] = radius
    x = scale * score_x
    if y is None:
        y_c, anti = None, (-x, None)
    elif is_classifier(estimator):
        y_c, common = _rarest_and_commonest(params, y)
        anti = (x, common)
    else:
        y_c = scale * _public_bound(params, "y_bound", estimator)
        anti = (x, -y_c)
    replaced = (
        anti if kind == "gradient" else (X[index], None if y is None else np.asarray(y)[index])
    )
    return Canary(
        kind=kind,
        index=index,
        x=x,
        y=y_c,
        replaced_x=np.asarray(replaced[0], dtype=float),
        replaced_y=replaced[1],
        score_x=score_x,
    )


def custom_canary(X, y, record, *, index=0):
    """A user-given canary (x, y) that replaces row ``index`` of (X, y) ("input" kind)."""
    if not (isinstance(record, tuple) and len(record) == 2):
        raise TypeError(f"canary must be 'gradient', 'input' or a tuple (x, y); got {record!r}.")
    x = np.asarray(record[0], dtype=float).ravel()
    if x.shape != (X.shape[1],) or not np.all(np.isfinite(x)):
        raise ValueError(f"the canary's x must be {X.shape[1]} finite numbers, got {record[0]!r}.")
    replaced_y = None if y is None else np.asarray(y)[index]
    return Canary(
        kind="custom",
        index=index,
        x=x,
        y=record[1],
        replaced_x=np.asarray(X[index], dtype=float),
        replaced_y=replaced_y,
        score_x=x,
    )
