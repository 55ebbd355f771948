r"""Public guesses used by the "auto" hyperparameters (no data involved).

The utility proxy that picks lam and K (:func:`skdpgd.accounting.utility_proxy`)
needs r0, a guess of the norm of the comparator theta*. It may depend only on public
quantities; these rules derive it from the scale of the output the model must produce.
"""

import math

#: Logit a confident prediction needs: log(0.99 / 0.01), i.e. probabilities of 1% / 99%.
CONFIDENT_LOGIT = math.log(99.0)


def minimax_norm_guess(output_scale, row_norm, n_params):
    r"""Public guess of ||theta*|| for a linear model that must output ``output_scale``.

    A model needs :math:`|\theta\cdot x| \approx m` (m = ``output_scale``) on rows of
    norm up to Rt. If the signal is spread evenly over the p coordinates of x, the
    smallest such theta has norm m / Rt; if a single coordinate (of size Rt/sqrt(p))
    carries it, the norm is m sqrt(p) / Rt. The utility proxy
    :math:`U(\lambda) = \lambda r_0^2/2 + A/\lambda` loses the factor
    :math:`(k + 1/k)/2` when r0 is off by a factor k either way, so the geometric mean
    of the two ends, :math:`r_0 = m\,p^{1/4}/R_t`, minimises the worst-case loss over
    that range: a factor :math:`(p^{1/4} + p^{-1/4})/2`.
    """
    return output_scale * n_params**0.25 / row_norm


def logistic_initial_distance(row_norm, n_params):
    """r0 for logistic regression: :func:`minimax_norm_guess` with a logit of log(99)."""
    return minimax_norm_guess(CONFIDENT_LOGIT, row_norm, n_params)


def ridge_initial_distance(row_norm, y_bound, n_params):
    """r0 for ridge: :func:`minimax_norm_guess` with the target bound B as output scale."""
    return minimax_norm_guess(y_bound, row_norm, n_params)


#: Huber's threshold for 95% asymptotic efficiency under Gaussian residuals, in units of
#: the residual standard deviation (Huber 1964; Huber and Ronchetti 2009, section 4.6).
HUBER_EFFICIENT_THRESHOLD = 1.345

#: The R^2 of the model the default threshold is tuned for.
REFERENCE_R2 = 0.9


def ridge_residual_clip(y_bound):
    r"""Default Huber threshold c from the public target bound B alone.

    Targets spread uniformly over [-B, B] have standard deviation :math:`B/\sqrt3`; a
    model with :math:`R^2 = 0.9` leaves residuals of standard deviation
    :math:`\sqrt{0.1}\,B/\sqrt3`, and Huber's 95%-efficiency threshold is 1.345 of
    those: :math:`c = 1.345\sqrt{0.1/3}\,B \approx 0.246\,B`. The noise is proportional
    to c, so a smaller c buys accuracy at small budgets; residuals beyond c are treated
    robustly (L1-like) rather than quadratically.
    """
    return HUBER_EFFICIENT_THRESHOLD * (1.0 - REFERENCE_R2) ** 0.5 / 3.0**0.5 * y_bound
