"""The public plan of a :class:`DPTableVectorizer` fit: which column gets which encoding.

A function of X's schema (labels and dtypes) and of the vectorizer's parameters only,
computed before any value is read: every error raised here is public. The plan also
fixes the releases, so the budget split inside the step (equal mu^2 per release,
docs/theory.md#vectorizer-budget) is public too.
"""

import numbers

import numpy as np

from ..utils import row_index_column
from ._numeric_rules import check_public_bounds
from ._schema import n_rows, table_schema, temporal_kind

#: The plan's kind of a column whose type the private vote decides.
VOTE = "vote"

#: The ``types`` options: read every type from the dtype, vote on object and string
#: columns (their dtype may have been inferred from the values), or vote on every column
#: whose type is not declared.
TYPES = ("dtype", "auto", "vote")

#: The ``add_indicator`` options other than False: an indicator for every column whose
#: dtype may hold a missing value, with a missing cell written at the column's imputed
#: value (``"auto"``) or at 0 (``"zero"``, :func:`~._column_maps.with_inference_options`).
ADD_INDICATOR = ("auto", "zero")

#: Dtypes (as text) that a user sets on purpose, never inferred by pd.read_csv or polars.
_DELIBERATE = ("category", "Categorical", "Enum")


def votes_on(types, kind, dtype):
    """Whether ``types`` sends an undeclared column of this dtype kind to the vote."""
    if types == "vote":
        # a datetime or duration dtype was declared so (parse_dates, a conversion), and its
        # cells' text is not a number the vote could read: never voted
        return kind in ("numeric", "categorical") and temporal_kind(dtype) is None
    return types == "auto" and kind == "categorical" and not str(dtype).startswith(
        _DELIBERATE)


def check_params(vec):
    """Refuse bad parameters (public: before any value is read)."""
    if vec.categorical not in ("discover", "hash"):
        raise ValueError(f"categorical must be 'discover' or 'hash', got {vec.categorical!r}.")
    if (isinstance(vec.n_buckets, bool) or not isinstance(vec.n_buckets, numbers.Integral)
            or vec.n_buckets < 1):
        raise ValueError(f"n_buckets must be a positive int, got {vec.n_buckets!r}.")
    if not (vec.add_indicator is False or (isinstance(vec.add_indicator, str)
                                           and vec.add_indicator in ADD_INDICATOR)):
        raise ValueError(f"add_indicator must be 'auto', 'zero' or False, got "
                         f"{vec.add_indicator!r}.")
    if isinstance(vec.missing_values, str) or not all(
            isinstance(v, str) for v in vec.missing_values):
        raise ValueError("missing_values must be a tuple of strings.")
    if not (isinstance(vec.types, str) and vec.types in TYPES):
        raise ValueError(f"types must be one of {TYPES}, got {vec.types!r}.")
    if not (vec.log1p is False or (isinstance(vec.log1p, str) and vec.log1p == "auto")
            or isinstance(vec.log1p, (dict, list, tuple, set))):
        raise ValueError(f"log1p must be 'auto', False, a dict or a list of columns, got "
                         f"{vec.log1p!r}.")


def plan_columns(vec, X):
    """Per kept column: (position, label, name, kind, nullable, mode); public only.

    mode: numeric "public" | "private"; categorical "public" | "discover" | "hash";
    boolean "public".
    """
    check_params(vec)
    labels, kinds, nullable, dtypes = table_schema(X)
    if not labels:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n_rows(X)}, 0)) while a "
                         "minimum of 1 is required: X has no column.")
    complex_columns = [str(lab) for lab, d in zip(labels, dtypes, strict=True) if "complex" in d]
    if complex_columns and not all(
            (vec.column_types or {}).get(lab) == "drop" for lab in complex_columns):
        raise ValueError(f"Complex data not supported: column(s) {complex_columns}.")
    bounds = dict(vec.bounds or {})
    categories = dict(vec.categories or {})
    overrides = dict(vec.column_types or {})
    names = [str(label) for label in labels]
    for parameter, given in (("bounds", bounds), ("categories", categories),
                             ("column_types", overrides)):
        unknown = [k for k in given if k not in labels]
        if unknown:
            raise ValueError(f"{parameter} names column(s) {unknown} that X does not have.")
    both = [k for k in bounds if k in categories]
    if both:
        raise ValueError(f"column(s) {both} have both bounds and categories; give one.")
    index = undeclared_row_index(vec, labels)
    plan = []
    for j, label in enumerate(labels):
        kind = overrides.get(label, kinds[j])
        if kind == "drop" or (index is not None and label == index):
            continue
        if label in categories and kind != "categorical":
            kind, nullable[j] = "categorical", True
        if label in bounds and kind != "numeric":
            kind, nullable[j] = "numeric", True
        if kind not in ("numeric", "categorical", "boolean"):
            raise TypeError(
                f"Column {names[j]!r} has dtype {dtypes[j]}, which DPTableVectorizer "
                "does not encode. Convert it to a number (e.g. a year or a duration "
                f"in days) or drop it: column_types={{{label!r}: 'drop'}}."
            )
        if overrides.get(label) not in (None, "numeric", "categorical", "drop"):
            raise ValueError(
                f"column_types[{label!r}] must be 'numeric', 'categorical' or 'drop', "
                f"got {overrides[label]!r}."
            )
        if kind == "numeric" and kinds[j] != "numeric":
            nullable[j] = True  # values that are not numbers are read as missing
        declared = label in overrides or label in bounds or label in categories
        if not declared and votes_on(vec.types, kinds[j], dtypes[j]):
            # decided by the private vote; planned as a release of either type
            plan.append((j, label, names[j], VOTE, True, vec.categorical))
            continue
        if kind == "numeric":
            mode = "public" if label in bounds else "private"
            if label in bounds:
                check_public_bounds(label, bounds[label])
        elif kind == "categorical":
            given = categories.get(label, vec.categorical)
            if isinstance(given, str):
                if given not in ("discover", "hash"):
                    raise ValueError(
                        f"categories[{label!r}] must be a list, 'discover' or 'hash', "
                        f"got {given!r}."
                    )
                mode = given
            else:
                mode = "public"
                if len(list(given)) == 0:
                    raise ValueError(f"categories[{label!r}] is an empty list.")
        else:
            mode = "public"
        plan.append((j, label, names[j], kind, bool(nullable[j]), mode))
    return plan, labels


def undeclared_row_index(vec, labels):
    """The label of a row-index first column that no parameter declares, or None.

    :func:`skdpgd.utils.row_index_column` reads the header only (an empty name or
    ``"Unnamed: 0"``, the index pandas and R write); such a column is dropped, as the
    command line drops it, unless ``column_types``, ``bounds`` or ``categories`` name it.
    """
    index = row_index_column(labels)
    declared = (vec.column_types or {}, vec.bounds or {}, vec.categories or {})
    if index is None or any(index in given for given in declared):
        return None
    return index


def count_releases(plan):
    """(number of Gaussian releases, number of thresholded ones) of a plan.

    A voted column counts as one release (a histogram if numeric, a discovery if
    categorical and discovered: planned as thresholded) and the vote as one more.
    """
    voted = [p for p in plan if p[3] == VOTE]
    gdp = [p for p in plan if p[3] == VOTE or p[5] in ("private", "discover")]
    thresholded = [p for p in plan if p[5] == "discover"]
    return len(gdp) + (1 if voted else 0), len(thresholded)


def type_sources(vec, plan):
    """``{name: "declared" | "dtype" | "vote"}``: where each kept column's type came from."""
    declared = set(vec.column_types or {}) | set(vec.bounds or {}) | set(vec.categories or {})
    return {p[2]: VOTE if p[3] == VOTE else "declared" if p[1] in declared else "dtype"
            for p in plan}


def child_generators(rng, k):
    """k independent generators from one source (so a column's noise is its own)."""
    if isinstance(rng, np.random.Generator):
        seeds = rng.integers(0, 2**63 - 1, size=k, dtype=np.int64)
    else:  # legacy RandomState
        seeds = rng.randint(0, 2**31 - 1, size=k)
    return [np.random.default_rng(int(s)) for s in seeds]
