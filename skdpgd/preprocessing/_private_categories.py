r"""Private discovery of a column's categories, and public hashing of categories.

Discovery (docs/theory.md#category-discovery): the Gaussian sparse histogram mechanism
(Korolova, Kenthapadi, Mishra and Ntoulas 2009, with Laplace noise; Bun, Nissim and
Stemmer 2016, the stability-based histogram; Wilkins, Kifer, Zhang and Karrer 2024,
its exact analysis with Gaussian noise). Each value v present in the column (missing
values excluded) gets a noisy count :math:`c_v + \sigma Z_v`; the values whose noisy
count exceeds :math:`\tau` are released (as a set; the counts are not). With

.. math::

    \tau = 1 + \sigma\,\Phi^{-1}(1 - \delta_0),
    \qquad p = \Pr[\sigma Z > \tau - 1] = \delta_0 ,

the release is :math:`(\varepsilon, \delta_\mu(\varepsilon) + \delta_0)`-DP for every
:math:`\varepsilon`, with :math:`\mu = \sqrt 2/\sigma` (replace-one), i.e. it is
:math:`\mu`-GDP up to the additive :math:`\delta_0`. Proof sketch (docs/theory.md): for
neighbours :math:`D, D'` (record x replaced by x'), the keys present in both get a
Gaussian count vector whose difference has L2 norm at most :math:`\sqrt 2`; a key present
in one data set only has count 1 there and passes w.p. :math:`p`, independently of the
rest; the two one-sided keys together differ in total variation by at most :math:`p`.
A mechanism whose output is (for every neighbouring pair) a product of a :math:`\mu`-GDP
part and a part at total variation :math:`\le p` satisfies
:math:`P(S) \le e^\varepsilon Q(S) + \delta_\mu(\varepsilon) + p`.

Hashing (:func:`hash_bucket`): a public function of the value's text (BLAKE2b), so it
costs nothing.
"""

import hashlib

import numpy as np
from scipy.special import ndtri

from ._category_codes import as_category_codes
from ._private_range import sigma_for_mu


def discovery_threshold(sigma, delta0):
    r"""The threshold :math:`\tau = 1 + \sigma\Phi^{-1}(1 - \delta_0)`.

    A value held by one record (count 1) passes with probability
    :math:`\Pr[\mathcal N(0, \sigma^2) > \tau - 1] \le \delta_0` (equal up to
    :math:`10^{-8}` relative: :math:`\Phi^{-1}(1 - \delta_0)` is computed as
    :math:`-\Phi^{-1}(\delta_0)`, which does not round :math:`1 - \delta_0`, and nudged up
    by :math:`10^{-9}`).

    Parameters
    ----------
    sigma : float
        Noise standard deviation (0: exact counts; then values held by 2 or more
        records pass).
    delta0 : float
        The additive delta the release may spend, in (0, 1).

    Returns
    -------
    tau : float
        ``inf`` when ``delta0 <= 0`` (nothing can be released).
    """
    if delta0 <= 0.0:
        return np.inf
    if sigma == 0.0:
        return 1.0
    # Phi^-1(1 - delta0) as -Phi^-1(delta0): 1 - delta0 rounds in float64 (for delta0 =
    # 1e-16 the pass chance would be 11% above delta0); ndtri is accurate to about 4e-13
    # relative in the tail, and the 1e-9 nudge makes the chance at most delta0
    return 1.0 + float(sigma) * (float(-ndtri(delta0)) + 1e-9)


def value_counts(keys):
    """Counts of the present (non-missing) keys, sorted by key (no order from the data).

    Parameters
    ----------
    keys : CategoryCodes or list of (str or None)
        One key per record (:func:`~skdpgd.preprocessing._category_codes.category_codes`,
        or a list); None is missing and counted nowhere.

    Returns
    -------
    values : list of str
        The distinct keys, sorted.
    counts : ndarray of float64
        Their counts.
    """
    column = as_category_codes(keys)
    totals = np.bincount(column.codes, minlength=len(column.keys))
    counts = {key: int(total) for key, total in zip(column.keys, totals, strict=True)
              if key is not None}
    values = sorted(counts)
    return values, np.array([counts[v] for v in values], dtype=np.float64)


def discover_categories(keys, mu, delta0, random_state):
    r"""The categories whose noisy count passes :math:`\tau` (:math:`\mu`-GDP plus
    :math:`\delta_0`).

    Parameters
    ----------
    keys : CategoryCodes or list of (str or None)
        The column's category keys (:func:`~skdpgd.preprocessing._missing.category_key`
        of each record, as :func:`~skdpgd.preprocessing._category_codes.category_codes`
        gives them, or a list).
    mu : float
        GDP budget of the release; :math:`\sigma = \sqrt 2/\mu`.
    delta0 : float
        Additive delta: the chance that a value held by a single record passes.
    random_state : numpy.random.Generator
        The noise source (one draw per present key, in sorted key order).

    Returns
    -------
    categories : list of str
        The released values, sorted (empty when ``mu`` or ``delta0`` is 0).
    """
    sigma = sigma_for_mu(mu)
    tau = discovery_threshold(sigma, delta0)
    if not (np.isfinite(sigma) and np.isfinite(tau)):
        return []
    values, counts = value_counts(keys)
    if not values:
        return []
    noisy = counts + sigma * random_state.standard_normal(len(values))
    return categories_from_noisy_counts(values, noisy, tau)


def categories_from_noisy_counts(values, noisy, tau):
    """The values whose noisy count is above ``tau``, sorted (post-processing only).

    Parameters
    ----------
    values : list of str
        Keys, in the order of ``noisy``.
    noisy : ndarray
        Their noisy counts.
    tau : float
        The threshold.

    Returns
    -------
    categories : list of str
    """
    return sorted(v for v, c in zip(values, noisy, strict=True) if c > tau)


def hash_bucket(key, n_buckets):
    """The public bucket of a category key: BLAKE2b of its UTF-8 text, modulo n_buckets.

    Parameters
    ----------
    key : str
        A category key.
    n_buckets : int
        Number of buckets (public).

    Returns
    -------
    bucket : int
        In ``range(n_buckets)``; the same on every machine and Python run (unlike
        ``hash``, which is salted per process).

    Examples
    --------
    >>> hash_bucket("Male", 8) == hash_bucket("Male", 8)
    True
    """
    digest = hashlib.blake2b(key.encode("utf-8", errors="replace"), digest_size=8).digest()
    return int.from_bytes(digest, "little") % int(n_buckets)
