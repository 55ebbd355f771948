r"""Noisy SGD with fixed-size batches drawn uniformly without replacement: RDP composition.

Every step's batch is b distinct rows drawn uniformly from the n (independently across
steps); neighbours replace one row (n public). One step is then the Gaussian mechanism on
the batch sum (replace-one sensitivity 2L, noise :math:`\sigma b`) composed with
subsampling without replacement, and K steps compose. The bound used is Wang, Balle and
Kasiviswanathan (AISTATS 2019), *Subsampled Renyi differential privacy and analytical
moments accountant*, Theorem 27 of arXiv:1808.00087 (their general Theorem 9 for
sampling without replacement and replace-one neighbours, specialised to the Gaussian
mechanism), as computed by ``dp-accounting``'s RDP accountant
(``SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent(z))`` under
``NeighboringRelation.REPLACE_ONE``, function ``_compute_rdp_sample_wor_gaussian``),
with the noise multiplier relative to the replace-one sensitivity of the sum,
:math:`z = \sigma b / (2L)` (the library's Gaussian at q = 1 has RDP
:math:`\alpha/(2z^2)`, the Gaussian mechanism with that sensitivity). It is an upper bound
(not known to be tight); the RDP curve over :data:`WOR_ORDERS` is converted to
(epsilon, delta) by :func:`~skdpgd.accounting.rdp_to_epsilon` (Canonne, Kamath, Steinke
2020; Mironov 2017). Poisson sampling is :mod:`skdpgd.accounting._sampled_sgd`.
"""

import math
from functools import lru_cache

import numpy as np

from ._checks import check_probability
from ._rdp import rdp_to_epsilon
from ._sampled_sgd import _check_run, _dp_accounting

__all__ = ["WOR_ORDERS", "uniform_sgd_composition_epsilon", "uniform_sgd_composition_rdp"]

#: Renyi orders for the without-replacement RDP (the library's closed form costs about
#: alpha^2 per order, so orders above 128 are left out; fewer orders only loosen the bound).
WOR_ORDERS = tuple(float(a) for a in [*range(2, 17), 20, 24, 32, 48, 64, 96, 128])


def uniform_noise_multiplier(noise_std, *, batch_size, gradient_bound):
    r""":math:`z = \sigma b / (2L)`: noise on the batch sum over its replace-one sensitivity."""
    return float(noise_std) * float(batch_size) / (2.0 * float(gradient_bound))


@lru_cache(maxsize=1024)
def _one_step_rdp(b, n, z):
    """Per-order RDP of one step (tuple over WOR_ORDERS), by dp-accounting."""
    dpa = _dp_accounting()
    accountant = dpa.rdp.RdpAccountant(
        orders=list(WOR_ORDERS), neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE
    )
    accountant.compose(dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(z)), 1)
    # the accountant's composed RDP is public state of the library's epsilon computation
    return tuple(float(x) for x in accountant._rdp)


def uniform_sgd_composition_rdp(noise_std, n_steps, *, batch_size, n_samples, gradient_bound):
    r"""RDP (over :data:`WOR_ORDERS`) of K fixed-size-batch noisy SGD steps, by composition.

    K times the one-step bound of Wang, Balle, Kasiviswanathan (2019), Theorem 27
    (module docstring), noise multiplier :math:`\sigma b/(2L)`.

    Parameters
    ----------
    noise_std : float
        sigma, noise standard deviation on the averaged batch gradient.
    n_steps : int
        K >= 0.
    batch_size, n_samples : int
        b <= n, the exact batch size and the number of rows.
    gradient_bound : float
        L, bound on every per-example gradient norm (replace-one sensitivity of the sum 2L).

    Returns
    -------
    ndarray
        RDP epsilon at each of :data:`WOR_ORDERS`.
    """
    sigma, k, b, n, lip = _check_run(noise_std, n_steps, batch_size, n_samples, gradient_bound)
    orders = np.asarray(WOR_ORDERS)
    if k == 0 or lip == 0.0 or sigma == math.inf:
        return np.zeros_like(orders)
    if sigma == 0.0:
        return np.full_like(orders, math.inf)
    z = uniform_noise_multiplier(sigma, batch_size=b, gradient_bound=lip)
    return k * np.asarray(_one_step_rdp(b, n, z))


def uniform_sgd_composition_epsilon(
    noise_std, n_steps, *, delta, batch_size, n_samples, gradient_bound
):
    r"""Epsilon of K noisy SGD steps with fixed-size batches (uniform, without replacement).

    :func:`uniform_sgd_composition_rdp` converted by
    :func:`~skdpgd.accounting.rdp_to_epsilon` at ``delta``.

    Parameters
    ----------
    noise_std : float
        sigma, noise standard deviation on the averaged batch gradient.
    n_steps : int
        K >= 0.
    delta : float
        Target delta in (0, 1).
    batch_size, n_samples : int
        b <= n.
    gradient_bound : float
        L (replace-one sensitivity of the batch sum 2L).

    Returns
    -------
    float
        epsilon, an upper bound (``inf`` when sigma = 0 and the run touches data).
    """
    delta = check_probability("delta", delta)
    rdp = uniform_sgd_composition_rdp(noise_std, n_steps, batch_size=batch_size,
                                      n_samples=n_samples, gradient_bound=gradient_bound)
    if np.all(rdp == 0.0):
        return 0.0
    if np.all(np.isinf(rdp)):
        return math.inf
    return rdp_to_epsilon(WOR_ORDERS, rdp, delta)
