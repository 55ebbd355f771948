r"""K steps of the Poisson-subsampled Gaussian mechanism (the steps of ``solver="sgd"``).

Composed by the ``pld`` accountant through
:meth:`~skdpgd.accounting.PrivacyEvent.poisson_runs`; the dominating pair is in
:mod:`skdpgd.accounting._sampled_sgd`.
"""

from dataclasses import dataclass

from .._checks import check_count, check_positive
from ._base import REPLACE_ONE, NeighbouringRelation, PrivacyEvent

__all__ = ["PoissonSampledGaussianEvent"]


@dataclass(frozen=True)
class PoissonSampledGaussianEvent(PrivacyEvent, kind="poisson_sampled_gaussian"):
    r"""K steps of the Poisson-subsampled Gaussian mechanism.

    Each step releases a sum over a Poisson sample (rate q) of vectors of norm at most L
    plus :math:`\mathcal N(0, z^2L^2 I)` noise. Under replace-one its dominating pair is
    :math:`(q\mathcal N(-1, z^2) + (1-q)\mathcal N(0, z^2),\; q\mathcal N(1, z^2) +
    (1-q)\mathcal N(0, z^2))` (``dp_accounting``'s ``PoissonSampledDpEvent`` with a
    ``GaussianDpEvent(z)`` under ``REPLACE_ONE``).

    Parameters
    ----------
    sampling_rate : float
        q in [0, 1].
    noise_multiplier : float
        z >= 0 (``inf``: no information released).
    n_steps : int
        K >= 0.
    relation : NeighbouringRelation, default=REPLACE_ONE
        The neighbouring relation the guarantee is stated for.
    """

    sampling_rate: float
    noise_multiplier: float
    n_steps: int
    relation: NeighbouringRelation = REPLACE_ONE

    def __post_init__(self):
        q = check_positive("sampling_rate", self.sampling_rate, allow_zero=True)
        if q > 1.0:
            raise ValueError(f"sampling_rate must be in [0, 1], got {self.sampling_rate!r}.")
        object.__setattr__(self, "sampling_rate", q)
        object.__setattr__(self, "noise_multiplier", check_positive(
            "noise_multiplier", self.noise_multiplier, allow_zero=True, allow_inf=True))
        object.__setattr__(self, "n_steps", check_count("n_steps", self.n_steps, minimum=0))
        object.__setattr__(self, "relation", NeighbouringRelation.parse(self.relation))

    @property
    def run(self):
        """``(q, z, K)``."""
        return (self.sampling_rate, self.noise_multiplier, self.n_steps)

    def poisson_runs(self):
        """``((q, z, K),)``: this one run.

        Returns
        -------
        tuple of (float, float, int)
            ``(self.run,)``.
        """
        return (self.run,)
