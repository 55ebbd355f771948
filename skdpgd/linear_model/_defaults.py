r"""Public guesses used by the "auto" hyperparameters (no data involved).

The utility proxy that picks lam and K (:func:`skdpgd.accounting.utility_proxy`)
needs r0, a guess of the norm of the comparator theta*. It may depend only on public
quantities; these rules derive it from the scale of the output the model must produce.
"""

import math

#: Logit a confident prediction needs: log(0.99 / 0.01), i.e. probabilities of 1% / 99%.
CONFIDENT_LOGIT = math.log(99.0)


def logistic_initial_distance(row_norm):
    r"""r0 for logistic regression: the norm that reaches a 99% probability on a full row.

    A model predicting probability 0.99 on a row x needs :math:`|\theta\cdot x| =
    \log 99`; on a row at the norm bound Rt the smallest such theta has norm
    :math:`\log(99)/R_t`. Larger true norms only make the proxy's bias term larger,
    which pushes lam down; this is the least-regularising guess consistent with
    confident predictions on full-norm rows.
    """
    return CONFIDENT_LOGIT / row_norm


def ridge_initial_distance(row_norm, y_bound):
    r"""r0 for ridge: the norm that reaches the target bound on a full row, B / Rt."""
    return y_bound / row_norm


def ridge_residual_clip(y_bound):
    """Default Huber threshold c = B / 2 (see :class:`skdpgd.DPRidge`, Notes)."""
    return y_bound / 2.0
