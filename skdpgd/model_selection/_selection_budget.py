r"""The selection's total privacy and the trial budget calibrated to it (public numbers only).

The total is the Papernot-Steinke bound on the best of K random trials
(:func:`~skdpgd.model_selection.best_of_random_trials_rdp`) plus, with a refit, one
more mu-GDP run composed in Renyi DP (Mironov 2017, Proposition 1); the trial mu is the
largest whose total converts to at most the requested (epsilon, delta).

With a preparation released once before the trials (a DP pipeline's private steps:
:mod:`._shared_preparation`), its :math:`\mu_p = c\,\mu` (c public) joins the curve as
:math:`\alpha\mu_p^2/2` (Dong, Roth and Su 2022, Corollary B.6; adaptive RDP
composition, Mironov 2017, Proposition 1) and its additive delta :math:`\delta_0` is
taken out of delta before the conversion (the hybrid argument of
:mod:`skdpgd.accounting._composition`).
"""

from ..accounting import DEFAULT_ORDERS, gdp_to_rdp, rdp_to_epsilon
from ..accounting._inverter import TargetUnreachableError, invert_monotone
from ._tuning_privacy import best_of_random_trials_rdp


def selection_rdp(orders, trial_mu, *, eta, gamma, refit, preparation_ratio=0.0):
    r"""Total RDP: best of K trials (Papernot-Steinke Thm 2) plus an optional mu-GDP refit.

    Parameters
    ----------
    orders : array-like of float > 1
        Renyi orders.
    trial_mu : float
        GDP parameter of one trial (and of the refit).
    eta, gamma : float
        Parameters of the distribution of the number of trials K.
    refit : bool
        Whether a refit on all rows is added (RDP composition, Mironov 2017, Prop. 1).
    preparation_ratio : float, default=0.0
        c: a preparation of :math:`\mu_p = c\mu`-GDP released once before the trials
        joins the curve (0: none).

    Returns
    -------
    ndarray
        epsilon(alpha) at each order.
    """
    total = best_of_random_trials_rdp(orders, trial_mu, eta=eta, gamma=gamma)
    if refit:
        total = total + gdp_to_rdp(orders, trial_mu)
    if preparation_ratio:
        total = total + gdp_to_rdp(orders, preparation_ratio * trial_mu)
    return total


def calibrate_trial_mu(epsilon, delta, *, eta, gamma, refit, orders=DEFAULT_ORDERS,
                       preparation_ratio=0.0):
    r"""Largest trial mu (to a relative 1e-9, rounded down) whose total is (epsilon, delta)-DP.

    Every term of :func:`selection_rdp` is non-decreasing in mu (the optimised order term
    is a minimum of non-decreasing functions), so bisection on log mu is valid.

    Parameters
    ----------
    epsilon, delta : float
        The search's total budget.
    eta, gamma : float
        Parameters of the distribution of the number of trials.
    refit : bool
        Whether the budget also covers a refit.
    orders : array-like of float > 1, default=DEFAULT_ORDERS
        Renyi orders of the conversion.
    preparation_ratio : float, default=0.0
        c, for a preparation of :math:`c\mu`-GDP composed with the selection; pass
        ``delta`` with its additive delta already taken out.

    Returns
    -------
    float
        The trial mu, whose total is at most (epsilon, delta)-DP.
    """
    def total_epsilon(mu):
        return rdp_to_epsilon(orders, selection_rdp(orders, mu, eta=eta, gamma=gamma,
                                                    refit=refit,
                                                    preparation_ratio=preparation_ratio),
                              delta)

    if total_epsilon(0.0) > epsilon:
        raise ValueError(
            f"epsilon={epsilon!r} is below what the selection costs even with perfectly private "
            f"trials (log E[K] term: {total_epsilon(0.0):.4g} at delta={delta:.3g}). Ask for "
            "fewer expected trials or a larger epsilon."
        )
    try:  # bisection on log mu over [1e-8, 1e3] to a relative 1e-10, kept on the safe side
        return invert_monotone(total_epsilon, epsilon, lower=1e-8, upper=1e3, increasing=True,
                               rtol=1e-10)
    except TargetUnreachableError:
        raise ValueError(f"epsilon={epsilon!r} is too small for any useful trial.") from None
