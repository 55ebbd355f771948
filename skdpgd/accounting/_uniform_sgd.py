r"""Noisy SGD with fixed-size batches drawn uniformly without replacement: RDP composition.

``dp-accounting``'s RDP accountant with ``NeighboringRelation.REPLACE_ONE`` and
``SampledWithoutReplacementDpEvent`` (Wang, Balle, Kasiviswanathan 2019, Theorem 27),
with the noise multiplier relative to the replace-one sensitivity 2L of the sum:
:math:`z = \sigma b / (2L)` (:mod:`skdpgd.accounting._sampled_sgd` has the Poisson case).
"""

import math
from functools import lru_cache

from ._checks import check_probability
from ._sampled_sgd import _check_run, _dp_accounting

__all__ = ["WOR_ORDERS", "uniform_sgd_composition_epsilon"]


def uniform_sgd_composition_epsilon(
    noise_std, n_steps, *, delta, batch_size, n_samples, gradient_bound
):
    r"""Epsilon of K noisy SGD steps with fixed-size batches (uniform, without replacement).

    K-fold composition of the subsampled Gaussian under sampling without replacement,
    replace-one neighbours, by ``dp_accounting``'s RDP accountant
    (``SampledWithoutReplacementDpEvent``; Wang, Balle, Kasiviswanathan 2019, Theorem 27),
    noise multiplier :math:`\sigma b / (2L)` relative to the replace-one sensitivity 2L
    of the batch sum, converted to (epsilon, delta) by the library.
    """
    sigma, k, b, n, lip = _check_run(noise_std, n_steps, batch_size, n_samples, gradient_bound)
    delta = check_probability("delta", delta)
    if k == 0 or lip == 0.0 or sigma == math.inf:
        return 0.0
    if sigma == 0.0:
        return math.inf
    return _uniform_rdp_epsilon(b, n, sigma * b / (2.0 * lip), k, delta)


#: Renyi orders for the without-replacement RDP (the library's closed form costs about
#: alpha^2 per order, so orders above 128 are left out; fewer orders only loosen the bound).
WOR_ORDERS = tuple(float(a) for a in list(range(2, 17)) + [20, 24, 32, 48, 64, 96, 128])


@lru_cache(maxsize=1024)
def _uniform_rdp_accountant(b, n, z, k):
    dpa = _dp_accounting()
    accountant = dpa.rdp.RdpAccountant(
        orders=list(WOR_ORDERS), neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE
    )
    accountant.compose(dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(z)), k)
    return accountant


def _uniform_rdp_epsilon(b, n, z, k, delta):
    return float(_uniform_rdp_accountant(b, n, z, k).get_epsilon(delta))
