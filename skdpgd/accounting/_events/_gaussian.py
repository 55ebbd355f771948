r"""Gaussian-DP events: :class:`GaussianDpEvent` and :class:`GaussianDpWithDeltaEvent`.

Every full-batch or cyclic skdpgd fit is a :class:`GaussianDpEvent` (Bok, Su and
Altschuler 2024, Theorems 4.2 and 4.5 give its exact mu); the thresholded releases of a
private preparation step, and a DP pipeline that contains one, are a
:class:`GaussianDpWithDeltaEvent`. Both compose in every accountant through
:meth:`~skdpgd.accounting.PrivacyEvent.gaussian_dp`.
"""

from dataclasses import dataclass

from .._checks import check_positive
from ._base import REPLACE_ONE, NeighbouringRelation, PrivacyEvent

__all__ = ["GaussianDpEvent", "GaussianDpWithDeltaEvent"]


@dataclass(frozen=True)
class GaussianDpEvent(PrivacyEvent, kind="gaussian"):
    r"""A :math:`\mu`-GDP release (Dong, Roth and Su 2022, Definition 2.6).

    Parameters
    ----------
    mu : float
        >= 0; ``inf`` for a release without noise.
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    mu: float
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "mu", check_positive("mu", self.mu, allow_zero=True,
                                                      allow_inf=True))
        object.__setattr__(self, "relation", NeighbouringRelation.parse(self.relation))

    def gaussian_dp(self):
        """``(mu, 0.0)``: exactly mu-GDP.

        Returns
        -------
        tuple of float
            ``(self.mu, 0.0)``.
        """
        return (self.mu, 0.0)


@dataclass(frozen=True)
class GaussianDpWithDeltaEvent(PrivacyEvent, kind="gaussian_with_delta"):
    r"""A :math:`\mu`-GDP release up to an additive :math:`\delta_0`.

    For every pair of neighbouring data sets :math:`(D, D')` there is a distribution
    :math:`\tilde P` within total variation :math:`\delta_0` of the release's output on
    :math:`D` such that :math:`\tilde P` against the output on :math:`D'` is
    :math:`\mu`-GDP (Dong, Roth and Su 2022, Definition 2.6). Then the release is
    :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP for every
    :math:`\varepsilon`, and under composition the :math:`\mu` add in squares while the
    :math:`\delta_0` add (:mod:`skdpgd.accounting._composition`). A thresholded noisy
    histogram is the example: :math:`\delta_0` bounds the chance that a value held by one
    record passes the threshold.

    Parameters
    ----------
    mu : float
        >= 0; ``inf`` for a release without noise.
    extra_delta : float
        The additive :math:`\delta_0`, in [0, 1).
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    mu: float
    extra_delta: float
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        object.__setattr__(self, "mu", check_positive("mu", self.mu, allow_zero=True,
                                                      allow_inf=True))
        extra = check_positive("extra_delta", self.extra_delta, allow_zero=True)
        if extra >= 1.0:
            raise ValueError(f"extra_delta must be in [0, 1), got {self.extra_delta!r}.")
        object.__setattr__(self, "extra_delta", extra)
        object.__setattr__(self, "relation", NeighbouringRelation.parse(self.relation))

    def gaussian_dp(self):
        """``(mu, extra_delta)``: mu-GDP up to the additive delta.

        Returns
        -------
        tuple of float
            ``(self.mu, self.extra_delta)``.
        """
        return (self.mu, self.extra_delta)
