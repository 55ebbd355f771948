r"""The releases of a :class:`DPTableVectorizer` fit, column by column, within one budget.

Given the public plan (:mod:`._vectorizer_plan`), the step's :math:`\mu` is split over the
planned releases (one type vote for the voted columns, one histogram per numeric column
without public bounds, one discovery per categorical column whose categories are
discovered, one for each voted column whichever type it gets): the vote takes the mu it
needs on the public n rows, capped at the equal part, and the others share the rest
equally in :math:`\mu^2` (:func:`release_shares`, the command line's rule); the
additive delta is split equally over the planned discoveries. A numeric column's share is spent by
two releases that compose to at most it (:mod:`._column_range`: a locating histogram, then
a refined or repeated one); the report gives one entry per share, naming both and their mu.
The vote is released first; a voted column then gets the encoding of its type. Since every
release's :math:`\mu` is fixed in advance and a voted column makes at most the release it
was planned for, the releases made compose (Dong, Roth and Su 2022, Corollary 3.3) to at
most :math:`\mu`, and their additive deltas to at most the allowance
(``docs/theory.md#vectorizer-budget``).
"""

import math

import numpy as np

from ..utils._validation import make_generator
from ._column_maps import BooleanEncoding, CategoricalEncoding, NumericEncoding
from ._column_range import column_range
from ._column_reading import column_groups, key_column
from ._missing import category_key
from ._numeric_rules import check_public_bounds, is_integer_dtype, numeric_map
from ._private_categories import discover_categories
from ._schema import numeric_column, table_schema
from ._two_scales import TwoScaleEncoding, two_scales
from ._type_vote import number_minus_text, type_vote, vote_mu_needed
from ._vectorizer_plan import VOTE, child_generators, count_releases


def fit_columns(vec, X, plan, mu, extra_delta, random_state):
    """Release what the plan needs and build each kept column's encoding.

    Returns
    -------
    encodings : list
        One encoding per kept column, in order.
    types : dict
        ``{name: "numeric" | "categorical" | "boolean"}`` of each kept column.
    releases : list of (str, float)
        What was released and its mu.
    notes : list of str
        Fallbacks and other public remarks.
    spent : (float, float)
        The composed mu and additive delta of the releases made.
    """
    notes = []
    plan_in = plan
    if extra_delta <= 0.0:
        hashed = [p[2] for p in plan if p[5] == "discover"]
        if hashed:
            notes.append(f"fallback: no additive delta given: columns {hashed} are hashed into "
                         f"{vec.n_buckets} buckets instead of discovered (if categorical).")
        plan = [(*p[:5], "hash") if p[5] == "discover" else p for p in plan]
    n_gdp, n_thresholded = count_releases(plan)
    n_rows = X.shape[0] if hasattr(X, "shape") else np.asarray(X).shape[0]  # public n
    mu_vote, mu_each = release_shares(plan, mu, n_gdp, n_rows)
    delta_each = extra_delta / n_thresholded if n_thresholded else 0.0
    rngs = iter(child_generators(make_generator(random_state), n_gdp))
    releases = []
    plan = _vote(vec, X, plan, mu_vote, rngs, releases)
    dtypes = table_schema(X)[3]
    encodings, types, n_discovered = [], {}, 0
    shares = len(releases)  # the vote's, if any
    for position, label, name, kind, nullable, mode in plan:
        indicator = nullable and vec.add_indicator is not False  # "auto" or "zero"
        types[name] = kind
        if kind == "numeric":
            encoding, made = _fit_numeric(
                vec, X, position, label, name, mode, indicator, mu_each, rngs, notes,
                integer=is_integer_dtype(dtypes[position]))
            encodings.append(encoding)
            if mode == "private":  # two releases composing to its share (_column_range)
                shares += 1
                parts = "; then ".join(f"{what} (mu {mu_made!r})" for what, mu_made in made
                                       ) or "nothing released (mu 0)"
                releases.append((f"{name}: {parts}", mu_each))
        elif kind == "boolean":
            encodings.append(BooleanEncoding(name, indicator))
        else:
            encodings.append(_fit_categorical(vec, X, position, label, name, mode,
                                              mu_each, delta_each, rngs))
            if mode == "discover" and not encodings[-1].categories:
                notes.append(f"fallback: {name}: no category passed the threshold; every "
                             "value goes to __other.")
            if mode == "discover":
                n_discovered += 1
                shares += 1
                releases.append((f"{name}: categories above a noisy-count threshold "
                                  f"(delta {delta_each:.3g})", mu_each))
    # one entry per share (a numeric column's two releases compose to at most its share,
    # split_share): the shares used compose to mu (all planned), else to the root of the
    # vote's mu^2 plus mu_each^2 per other share made
    voted = 1 if any(p[3] == VOTE for p in plan_in) else 0
    spent_mu = 0.0 if not shares else (
        mu if shares == n_gdp else
        math.sqrt(voted * mu_vote**2 + (shares - voted) * mu_each**2))
    return encodings, types, releases, notes, (spent_mu, float(delta_each * n_discovered))


def release_shares(plan, mu, n_gdp, n_samples):
    r"""(the vote's mu, every other release's mu) of a step's ``mu`` over ``n_gdp`` releases.

    Without a vote every release gets the equal part :math:`\mu/\sqrt k`. With one, the
    vote asks for :func:`~skdpgd.preprocessing._type_vote.vote_mu_needed` of its u columns
    on the public n rows, capped at the equal part, and the other :math:`k - 1` releases
    share what it leaves: :math:`\mu_{\rm each} = \sqrt{(\mu^2 - \mu_{\rm vote}^2)/(k-1)}`,
    so :math:`\mu_{\rm vote}^2 + (k-1)\mu_{\rm each}^2 \le \mu^2` (Dong, Roth and Su 2022,
    Corollary 3.3). The same rule as the command line's vote (``split_budget(requested=)``,
    docs/theory.md). Both are rounded down, so that the composition never exceeds ``mu``.
    """
    if not n_gdp or not mu > 0:
        return 0.0, 0.0
    if math.isinf(mu):
        return math.inf, math.inf
    equal = float(np.nextafter(mu / math.sqrt(n_gdp), 0.0))
    n_voted = sum(p[3] == VOTE for p in plan)
    if not n_voted or n_gdp == 1:
        return equal, equal
    mu_vote = min(vote_mu_needed(n_voted, n_samples), equal)
    spare = max(mu**2 - mu_vote**2, 0.0) * (1.0 - 2.0**-40)
    return mu_vote, max(math.sqrt(spare / (n_gdp - 1)), equal)  # never below the equal part


def _vote(vec, X, plan, mu_each, rngs, releases):
    """Release the type vote of the voted columns; the plan with their types decided."""
    voted = [p for p in plan if p[3] == VOTE]
    if not voted:
        return plan
    # the groups of each column's equal cells, shared with its category discovery
    counts = [number_minus_text(None, vec.missing_values, groups=column_groups(X, *p[:2]))
              for p in voted]
    numeric, _ = type_vote(counts, mu_each, next(rngs))
    releases.append((f"type vote of {[p[2] for p in voted]}", mu_each))
    decided = {p[0]: ((*p[:3], "numeric", True, "private") if is_numeric
                      else (*p[:3], "categorical", True, p[5]))
               for p, is_numeric in zip(voted, numeric, strict=True)}
    return [decided.get(p[0], p) if p[3] == VOTE else p for p in plan]


def _fit_numeric(vec, X, position, label, name, mode, indicator, mu_each, rngs, notes,
                 integer=False):
    if mode == "public":
        low, high = check_public_bounds(label, vec.bounds[label])
        log = log_choice(vec, label) or False
        if log and low < 0:
            log = False
            notes.append(f"fallback: {name}: log1p needs a non-negative public low; "
                         "not applied.")
        return NumericEncoding(name, low, high, "log1p" if log else "linear", 0.5,
                               indicator, "public"), ()
    x = numeric_column(X, position, label, vec.missing_values)
    released = column_range(x, mu_each, next(rngs), integer=integer)
    choice = log_choice(vec, label)
    low, high, scale, impute, source = numeric_map(released.range, choice, integer)
    if source == "default":
        notes.append(f"fallback: {name}: no histogram cell passed the threshold; the public "
                     "symmetric log map over [-2^40, 2^40] is used.")
    if choice is None and scale in ("log1p", "logratio"):  # the rule's log: both scales
        return two_scales(name, low, high, scale, released.range.median, indicator,
                          source), released.releases
    return NumericEncoding(name, low, high, scale, impute, indicator, source), released.releases


def _fit_categorical(vec, X, position, label, name, mode, mu_each, delta_each, rngs):
    if mode == "hash":
        return CategoricalEncoding(name, (), int(vec.n_buckets), "hash")
    if mode == "public":
        keys = [category_key(v, vec.missing_values) for v in vec.categories[label]]
        unique = tuple(dict.fromkeys(k for k in keys if k is not None))
        return CategoricalEncoding(name, unique, 0, "public")
    keys = key_column(X, position, label, vec.missing_values)
    found = discover_categories(keys, mu_each, delta_each, next(rngs))
    return CategoricalEncoding(name, tuple(found), 0, "private")


def log_choice(vec, label):
    """True/False when the user decided for this column, None for the rule.

    ``log1p=False`` decides every column: one linear map each (no rule, no two scales).
    """
    if vec.log1p is False:
        return False
    if isinstance(vec.log1p, str):  # "auto" (check_params refuses any other string)
        return None
    if isinstance(vec.log1p, dict):
        return None if label not in vec.log1p else bool(vec.log1p[label])
    return label in set(vec.log1p)


def set_fitted_attributes(vec, labels):
    """The fitted summaries of the encodings: names, bounds_, log1p_, categories_, norms."""
    vec.n_features_in_ = len(labels)
    if labels and all(isinstance(label, str) for label in labels):
        vec.feature_names_in_ = np.asarray(labels, dtype=object)
    elif hasattr(vec, "feature_names_in_"):
        del vec.feature_names_in_
    vec._labels = list(labels)
    vec.bounds_ = {e.name: (e.low, e.high) for e in vec.encodings_
                   if isinstance(e, NumericEncoding)}
    vec.log1p_ = {e.name: e.scale in ("log1p", "logratio") or isinstance(e, TwoScaleEncoding)
                  for e in vec.encodings_
                  if isinstance(e, NumericEncoding)}
    vec.categories_ = {e.name: list(e.categories) for e in vec.encodings_
                       if isinstance(e, CategoricalEncoding)}
    raw = math.sqrt(sum(e.sq_norm_bound for e in vec.encodings_))
    vec._raw_norm_bound = raw
    vec.row_norm_bound_ = 1.0 if vec.scale_rows else raw
