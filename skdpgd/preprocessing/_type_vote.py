r"""The private type vote: is a column mostly numbers or mostly text? (mu-GDP)

A column's type decides its features, so it is part of the release; read from the
values (as :func:`pandas.read_csv` infers a dtype: one text cell makes a column text),
it would be an unaccounted function of the private data. The vote releases, for the
:math:`u` columns it decides,

.. math::

   \tilde D_j = \#\{\text{number cells of } j\} - \#\{\text{text cells of } j\}
   + N(0, \sigma^2), \qquad \sigma = 2\sqrt{u}/\mu,

and column :math:`j` is numeric when :math:`\tilde D_j \ge 0` (its non-missing cells are
mostly numbers). Replacing one record changes one cell per column, which moves
:math:`D_j` by at most 2 (a number cell becomes a text cell: :math:`-1 - 1`), so the
vector :math:`D` has L2 sensitivity :math:`\Delta = \sqrt{\sum_j 2^2} = 2\sqrt u` and the
release is :math:`\Delta/\sigma = \mu`-GDP (Dong, Roth and Su 2022, Theorem 2.7); the
types are post-processing of it. Which cells are numbers, text or missing is a public
per-cell rule fixed before the data are seen (the command line's
:mod:`skdpgd.preprocessing._cells`; :func:`number_minus_text` for
:class:`~skdpgd.preprocessing.DPTableVectorizer`, which reads a numeric column with
:func:`~skdpgd.preprocessing._missing.to_float`); any such rule gives sensitivity 2.

**How much it needs.** The vote is right for every column whose count is far from 0:
with a public margin :math:`c` (:data:`VOTE_MARGIN`), every column with
:math:`|D_j| \ge c\,n` (at least 3/4 of its rows numbers, or text, when :math:`c = 1/2`;
for instance a column of one kind with at most half its cells missing) gets its type
with probability at least :math:`1 - \beta` (:data:`VOTE_FAILURE`; union bound over the
:math:`u` columns) as soon as :math:`\sigma \le c\,n / z` with
:math:`z = \Phi^{-1}(1 - \beta/u)`, that is at

.. math::

   \mu_{\rm vote} = 2\sqrt u\, z / (c\,n)

(:func:`vote_mu_needed`, public: u and n). Inside a pipeline the vote asks for no more
than that, so the rest of the preparation's share goes to the releases that set the
ranges and categories. ``docs/theory.md#type-vote``.
"""

import math

import numpy as np
from scipy.stats import norm

from ._category_codes import distinct_cells
from ._missing import category_key, to_float

VOTE_MECHANISM = (
    "Gaussian mechanism on each voted column's count of number cells minus text cells "
    "(sensitivity 2 per column; Dong, Roth and Su 2022, Theorem 2.7); numeric when the "
    "noisy count is >= 0"
)


#: c: the vote must be right for every column with |number cells - text cells| >= c n.
VOTE_MARGIN = 0.5

#: beta: the probability that some such column gets the wrong type (all columns together).
VOTE_FAILURE = 0.05


def vote_mu_needed(n_columns, n_samples, margin=VOTE_MARGIN, failure=VOTE_FAILURE):
    r"""The mu at which the vote types every column with ``|D_j| >= margin * n`` right
    with probability at least ``1 - failure`` (module docstring).

    Parameters
    ----------
    n_columns : int
        u >= 1, the number of columns voted on together.
    n_samples : int
        n >= 1, the number of rows (public).
    margin, failure : float
        c in (0, 1] and beta in (0, 1).

    Returns
    -------
    float
        :math:`2\sqrt u\,\Phi^{-1}(1 - \beta/u) / (c\,n)`.
    """
    z = float(norm.isf(failure / n_columns))
    return 2.0 * math.sqrt(n_columns) * z / (margin * n_samples)


def vote_sigma(n_columns, mu):
    """The noise standard deviation of a vote on ``n_columns`` columns at ``mu``-GDP.

    Parameters
    ----------
    n_columns : int
        u, the number of columns voted on together.
    mu : float
        > 0; ``inf`` gives 0 (exact counts).

    Returns
    -------
    float
        :math:`2\\sqrt u / \\mu` (Delta / mu, Theorem 2.7).
    """
    return 2.0 * math.sqrt(n_columns) / mu


def type_vote(counts, mu, rng):
    """Release the noisy counts and the types they give (mu-GDP for the whole vector).

    Parameters
    ----------
    counts : sequence of int
        ``number cells - text cells`` of each voted column (sensitivity 2 each).
    mu : float
        The vote's GDP budget, > 0.
    rng : numpy.random.Generator or RandomState
        Noise source (one standard normal per column, in order).

    Returns
    -------
    numeric : list of bool
        Whether each column is numeric (noisy count >= 0).
    sigma : float
        The noise standard deviation used.
    """
    sigma = vote_sigma(len(counts), mu)
    noise = rng.standard_normal(len(counts))
    return [count + (sigma * z if sigma else 0.0) >= 0
            for count, z in zip(counts, noise, strict=True)], sigma


def number_minus_text(values, missing_strings, groups=None):
    """(number cells) - (text cells) of one column, read as the vectorizer reads it.

    A cell is missing when :func:`~skdpgd.preprocessing._missing.category_key` says so
    (the one missing-value rule), a number when
    :func:`~skdpgd.preprocessing._missing.to_float` reads one, and text otherwise.

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's cells.
    missing_strings : collection of str
        Strings that mean "missing" (public).
    groups : (codes, cells), optional
        The column already grouped (:func:`~skdpgd.preprocessing._category_codes.distinct_cells`
        of ``values``), which ``values`` is then not read for.

    Returns
    -------
    int
        Moves by at most 2 when one cell changes.
    """
    # each distinct cell read once, counted by code
    codes, cells = distinct_cells(values) if groups is None else groups
    counts = np.bincount(codes, minlength=len(cells))
    numbers = ~np.isnan(to_float(cells, missing_strings))
    missing = np.fromiter((category_key(cell, missing_strings) is None for cell in cells),
                          dtype=bool, count=len(cells))
    return int(counts[numbers & ~missing].sum()) - int(counts[~numbers & ~missing].sum())
