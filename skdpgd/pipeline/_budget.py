r"""How a DP pipeline splits one (epsilon, delta) budget between its private releases.

The rule is public: it reads the budget, which steps are private, and whether some step
thresholds; never the data. It is written out and derived in ``docs/budgets.md``
("One budget for a pipeline"); in short:

1. **Additive delta.** When some private step thresholds noisy counts (it releases a
   value only when its noisy count passes a threshold, so that a value held by one
   record escapes with a small probability :math:`\delta_0`), a share
   :math:`\kappa = 0.1` of :math:`\delta` is reserved as the additive allowance
   :math:`\delta_0 = \kappa\delta`, split equally between the steps that threshold;
   otherwise :math:`\delta_0 = 0`.
2. **Gaussian DP.** The rest, :math:`\delta - \delta_0`, is met by Gaussian DP:
   :math:`\mu = \mathrm{epsilon\_delta\_to\_gdp}(\varepsilon, \delta - \delta_0)`, the
   largest :math:`\mu` whose curve is :math:`(\varepsilon, \delta - \delta_0)`-DP (Dong,
   Roth and Su 2022, Corollary 2.13).
3. **Preparation share.** With m > 0 private releases (each private step, and the
   private range of the target when ``DPRidge(y_bound="auto")``, the class counts when
   ``DPLogisticRegression(class_weight="balanced")``), a share
   :math:`\rho = 0.1` of :math:`\mu^2` goes to the preparation, in equal parts:
   :math:`\mu_i = \mu\sqrt{\rho/m}`; the estimator gets
   :math:`\mu_{\mathrm{est}} = \mu\sqrt{1-\rho}`. A release that states from public
   numbers the most it needs (the type vote: ``requested``) gets
   :math:`\min(\mu\sqrt{\rho/m}, \text{its request})`, and what it leaves of
   :math:`\rho\mu^2` goes to the other releases in equal parts. Composition (Dong, Roth and Su 2022,
   Corollary 3.3): :math:`\sum_i \mu_i^2 + \mu_{\mathrm{est}}^2 = \mu^2`, and the
   additive deltas add (:mod:`skdpgd.accounting._composition`), so the pipeline is
   :math:`(\varepsilon, \delta)`-DP.

Why 0.1: the estimator's noise standard deviation scales as :math:`1/\mu_{\mathrm{est}}`
at a fixed number of steps, so giving the preparation :math:`\rho` of :math:`\mu^2`
multiplies it by :math:`1/\sqrt{1-\rho}` = 1.054 (5%), a cost that does not depend on
the data; the preparation's releases are histograms whose useful signal (bins holding a
few percent of n rows) stands far above noise of standard deviation
:math:`\sqrt{2}/\mu_i` once n is in the thousands (derivation in ``docs/budgets.md``).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..accounting import gdp_to_epsilon
from ..accounting.allowance import Allowance
from ..accounting.calibration import calibrated_mu, round_down

#: Share of mu^2 the private preparation takes (rho).
PREPARATION_SHARE = 0.1

#: Share of delta reserved as the additive allowance of thresholded releases (kappa).
EXTRA_DELTA_SHARE = 0.1

@dataclass(frozen=True)
class PipelineBudget:
    """The split of a pipeline's budget (public numbers only).

    Attributes
    ----------
    epsilon, delta : float
        The pipeline's target.
    mu : float
        The Gaussian-DP parameter of the whole pipeline (met at ``delta - extra_delta``;
        rounded down by the one margin of :mod:`skdpgd.accounting._margin`).
    extra_delta : float
        The additive allowance reserved for thresholded releases (0 without them).
    step_mu : tuple of float
        The mu of each private release, in order (the private steps, then the target's
        range when it is released).
    step_extra_delta : tuple of float
        The additive delta each of those releases may spend.
    estimator_mu : float
        The largest mu the estimator may spend.
    estimator_delta : float
        The delta at which the estimator's epsilon is reported (the Gaussian part's).
    preparation_share : float
        rho, the share of mu^2 the private releases take together (0 without any).
    """

    epsilon: float
    delta: float
    mu: float
    extra_delta: float
    step_mu: tuple
    step_extra_delta: tuple
    estimator_mu: float
    estimator_delta: float
    preparation_share: float

    @property
    def estimator_allowance(self) -> Allowance:
        """The ``accounting.allowance.Allowance`` the estimator is fitted within.

        ``estimator_mu`` rounded down by the one margin
        (:func:`~skdpgd.accounting._margin.round_down`), no additive delta: handed to the
        estimator in mu, at ``estimator_delta``, so that a solver that plans in mu is
        calibrated to it without a conversion.
        """
        return Allowance(round_down(self.estimator_mu))

    @property
    def estimator_epsilon(self) -> float:
        """The estimator's allowance as epsilon at ``estimator_delta`` (an edge, on demand).

        What a planner that takes epsilon is calibrated to (inference's split, a solver
        without ``plans_in_mu``): its mu is then at most ``estimator_mu``.
        """
        if self.estimator_mu == math.inf:
            return math.inf
        return float(gdp_to_epsilon(round_down(self.estimator_mu), self.estimator_delta))


def split_budget(epsilon: float, delta: float, needs_extra_delta: Sequence[bool], *,
                 preparation_share: float = PREPARATION_SHARE,
                 extra_delta_share: float = EXTRA_DELTA_SHARE,
                 reserve: bool | None = None,
                 requested: Sequence[float | None] | None = None) -> PipelineBudget:
    r"""Split (epsilon, delta) between private releases and the estimator (see module doc).

    Parameters
    ----------
    epsilon : float
        > 0, or ``inf`` (no noise anywhere).
    delta : float
        In (0, 1).
    needs_extra_delta : sequence of bool
        One entry per private release, in order: whether it thresholds (needs an
        additive delta). Empty: no private preparation.
    preparation_share : float, default=0.1
        rho in (0, 1).
    extra_delta_share : float, default=0.1
        kappa in (0, 1).
    reserve : bool or None, default=None
        Whether the Gaussian part is met at :math:`\delta - \kappa\delta` even when no
        release thresholds (None: when one does). A pipeline whose first private step
        may threshold by its parameters sets it, so that the plan made without the
        table's structure bounds every fit and stays within epsilon
        (:doc:`/budgets`, "Plans without the table").
    requested : sequence of (float or None), optional
        One entry per release: the most mu it needs (a public function of n and the
        parameters), or None (an equal part). A release with a request gets the smaller
        of its request and the equal part :math:`\mu\sqrt{\rho/m}`; the rest of
        :math:`\rho\mu^2` is split equally between the releases without one (with
        none, it returns to the estimator).

    Returns
    -------
    PipelineBudget
        The allowances; composed, they are (epsilon, delta)-DP.
    """
    epsilon, delta = float(epsilon), float(delta)
    needs = [bool(n) for n in needs_extra_delta]
    m = len(needs)
    n_thresholded = sum(needs)
    extra = extra_delta_share * delta if n_thresholded else 0.0
    held = extra_delta_share * delta if (reserve or (reserve is None and n_thresholded)) else 0.0
    delta_gdp = delta - max(extra, held)
    mu = calibrated_mu(epsilon, delta_gdp)  # docs/theory.md#conservative-rounding
    rho = preparation_share if m else 0.0
    step_mu, estimator_mu = _shares(mu, rho, m, requested)
    step_extra = tuple(extra / n_thresholded if need else 0.0 for need in needs)
    return PipelineBudget(
        epsilon=epsilon, delta=delta, mu=mu, extra_delta=extra, step_mu=step_mu,
        step_extra_delta=step_extra, estimator_mu=estimator_mu,
        estimator_delta=delta_gdp, preparation_share=rho,
    )


def _shares(mu: float, rho: float, m: int,
            requested: Sequence[float | None] | None) -> tuple[tuple, float]:
    """(each release's mu, the estimator's mu): equal parts of rho mu^2, a request capped
    at its equal part and the rest shared by the others (their sum of squares at most
    rho mu^2: the spare is shrunk by 2^-40 against rounding)."""
    equal = mu * math.sqrt(rho / m) if m else 0.0
    asks = list(requested) if requested is not None else [None] * m
    if len(asks) != m:
        raise ValueError(f"requested has {len(asks)} entries for {m} releases.")
    if all(ask is None or ask >= equal for ask in asks) or mu == math.inf:
        return tuple(equal for _ in range(m)), mu * math.sqrt(1.0 - rho)
    given: list[float | None] = [None if ask is None else min(float(ask), equal)
                                 for ask in asks]
    spare = max(rho * mu**2 - sum(g**2 for g in given if g is not None), 0.0)
    free = sum(g is None for g in given)
    spare *= 1.0 - 2.0**-40
    if free == 0:  # every release asked: what they leave returns to the estimator
        return tuple(given), math.sqrt((1.0 - rho) * mu**2 + spare)
    part = math.sqrt(spare / free)
    return tuple(part if g is None else g for g in given), mu * math.sqrt(1.0 - rho)
