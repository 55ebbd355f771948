r"""The ``pld`` accountant: the Gaussian part and Poisson-subsampled Gaussian runs.

One PLD accountant of ``dp-accounting`` under replace-one composes the Gaussian part
(as ``GaussianDpEvent(2/mu)``, exactly mu-GDP) with every run
(:func:`skdpgd.accounting.composed_replace_one_epsilon`; Doroshenko et al. 2022;
pessimistic discretisation, an upper bound).
"""

import math
from dataclasses import dataclass

from .._events import UnsupportedEventError
from .._sampled_sgd import composed_replace_one_epsilon
from ._base import GDP_SOURCE, Accountant, register_accountant

__all__ = ["PldAccountant"]

PLD_SOURCE = ("PLD composition of the Gaussian and Poisson-subsampled Gaussian dominating "
              "pairs, replace-one (dp-accounting; Doroshenko et al. 2022)")


@register_accountant
@dataclass(frozen=True)
class PldAccountant(Accountant):
    """Composes Gaussian-DP events and Poisson-subsampled Gaussian runs (``"pld"``).

    Parameters
    ----------
    mu2 : float, default=0.0
        Sum of :math:`\\mu_j^2` of the Gaussian part.
    extra_delta : float, default=0.0
        Sum of the additive deltas.
    runs : tuple of (float, float, int), default=()
        The runs ``(q, z, K)`` composed.
    """

    runs: tuple = ()

    name = "pld"
    source = GDP_SOURCE + "; " + PLD_SOURCE
    priority = 10

    def _compose_rest(self, events):
        runs = list(self.runs)
        for event in events:
            form = event.poisson_runs()
            if form is None:
                raise UnsupportedEventError(
                    f"{event!r} has neither a Gaussian-DP form nor Poisson-subsampled "
                    "Gaussian runs, the forms the pld accountant composes."
                )
            runs.extend(tuple(run) for run in form)
        return {"runs": tuple(runs)}

    def _epsilon(self, delta):
        return composed_replace_one_epsilon(delta, gaussian_mu=math.sqrt(self.mu2),
                                            poisson_runs=self.runs)
