"""What a fitted :class:`DPTableVectorizer` decided, column by column, and its fallbacks.

Everything here is read from the fitted encodings, the public parameters and the
table's schema (column names and dtypes): released constants (post-processing of the
accounted releases) or public facts, never a raw data value and never a count that was
not released (how many distinct values went to ``__other`` is such a count: it is not
shown).
"""

import math

from ..exceptions import PreparationFallbackWarning
from ._column_maps import CategoricalEncoding, NumericEncoding
from ._schema import temporal_kind
from ._vectorizer_plan import undeclared_row_index

FIELDS = ("column", "dtype", "type", "type_from", "low", "high", "range_from", "rule",
          "imputed", "missing_indicator", "categories", "encoding", "fallback")


def from_unit(v, low, high, scale):
    """The value of the column's units that the map sends to ``v`` in [0, 1].

    Inverse of :func:`~skdpgd.preprocessing._column_maps.scale_to_unit` on [low, high].
    """
    if scale == "linear":
        return low + v * (high - low)
    if scale == "log1p":
        return low + math.expm1(v * math.log1p(high - low))
    if scale == "logratio":
        return low * math.exp(v * math.log(high / low))
    t = 2.0 * v - 1.0  # symlog
    return math.copysign(math.expm1(abs(t) * math.log1p(high)), t)


def _numeric_fallback(vec, encoding):
    if encoding.source == "default":
        return "no histogram cell passed the threshold: public symmetric log map"
    if encoding.source == "public" and encoding.scale == "linear" and _log_asked(
            vec, encoding.name):
        return "log1p not applied: the public low is negative"
    return ""


def _log_asked(vec, name):
    log1p = vec.log1p
    if log1p is False or isinstance(log1p, str):  # no column asked, or the rule
        return False
    if isinstance(log1p, dict):
        return any(str(k) == name and bool(v) for k, v in log1p.items())
    return name in {str(k) for k in log1p}


def _categorical_fallback(vec, encoding, label):
    if encoding.source == "private" and not encoding.categories:
        return "no category passed the threshold: every value goes to __other"
    given = (vec.categories or {}).get(label, vec.categorical)
    if encoding.source == "hash" and not (isinstance(given, str) and given == "hash"):
        return "hashed: no additive delta for discovery"
    return ""


def summary_rows(vec, type_from=None):
    """One dict per input column (fields :data:`FIELDS`), in the table's order.

    ``type_from`` (``{column: source}``) replaces the sources of types that an earlier
    step decided (the command line's schema: ``"declared"`` or ``"vote"``).
    """
    type_from = type_from or {}
    by_name = {e.name: e for e in vec.encodings_}
    rows = []
    for label, dtype in zip(vec._labels, vec._dtypes, strict=True):
        name = str(label)
        row = dict.fromkeys(FIELDS, "")
        row.update(column=name, dtype=dtype)
        encoding = by_name.get(name)
        if encoding is None:
            index = undeclared_row_index(vec, vec._labels)
            index = index is not None and label == index
            row.update(type="dropped", type_from="header (row index)" if index else "declared")
            rows.append(row)
            continue
        kind, source = vec.types_[name]
        row.update(type=kind, type_from=type_from.get(name, source), missing_indicator=bool(
            getattr(encoding, "indicator", isinstance(encoding, CategoricalEncoding))))
        if isinstance(encoding, NumericEncoding):
            log_scale = getattr(encoding, "log_scale", None)  # two scales: both maps
            rule = encoding.scale if log_scale is None else f"{encoding.scale} + {log_scale}"
            row.update(low=encoding.low, high=encoding.high, rule=rule,
                       range_from=encoding.source,
                       imputed=from_unit(encoding.impute, encoding.low, encoding.high,
                                         encoding.scale),
                       fallback=_numeric_fallback(vec, encoding))
        elif isinstance(encoding, CategoricalEncoding):
            hashed = encoding.source == "hash"
            row.update(
                categories=encoding.n_buckets if hashed else len(encoding.categories),
                encoding=(f"hashed into {encoding.n_buckets} buckets" if hashed else
                          {"public": "public list", "private": "discovered"}[
                              encoding.source] + f", others -> {name}__other"),
                fallback=_categorical_fallback(vec, encoding, label))
        rows.append(row)
    return rows


def summary_frame(vec):
    """:func:`summary_rows` as a pandas DataFrame indexed by column."""
    import pandas as pd

    return pd.DataFrame(summary_rows(vec), columns=list(FIELDS)).set_index("column")


def temporal_units(dtype):
    """The units a temporal column is read in (``_schema.temporal_to_float``), or ""."""
    return {"duration": " in days", "datetime": " in decimal years (UTC)"}.get(
        temporal_kind(dtype), "")


def summary_text(vec, type_from=None):
    """A readable text of :func:`summary_rows`: one line per column, fallbacks flagged."""
    lines = ["DPTableVectorizer: per-column decisions (released or public; no data value)"]
    for row in summary_rows(vec, type_from):
        head = f"  {row['column']} ({row['dtype']}): {row['type']} from {row['type_from']}"
        if row["type"] == "numeric":
            imputed = row["imputed"]  # shown as 0 when the inverse map leaves rounding
            if abs(imputed) < 1e-6 * max(abs(row["low"]), abs(row["high"]), 1.0):
                imputed = 0.0
            head += (f"; range [{row['low']:.6g}, {row['high']:.6g}] ({row['range_from']})"
                     f"{temporal_units(row['dtype'])}, "
                     f"{row['rule']}; missing -> {imputed:.6g}"
                     + (" + indicator" if row["missing_indicator"] else ""))
        elif row["type"] == "categorical":
            head += f"; {row['categories']} kept ({row['encoding']}); missing -> indicator"
        elif row["type"] == "boolean" and row["missing_indicator"]:
            head += "; missing -> indicator"
        if row["fallback"]:
            head += f"  [FALLBACK: {row['fallback']}]"
        lines.append(head)
    return "\n".join(lines)


def fallbacks(vec):
    """``[(column, what fell back)]`` of a fitted vectorizer (public text only)."""
    return [(row["column"], row["fallback"]) for row in summary_rows(vec) if row["fallback"]]


def warn_fallbacks(vec):
    """A public warning (column names and the kind of fallback, never a value)."""
    found = fallbacks(vec)
    if found:
        PreparationFallbackWarning.warn(
            "DPTableVectorizer fell back for column(s): "
            + "; ".join(f"{name!r} ({what})" for name, what in found)
            + ". See summary_text().")
    kinds = [kind for kind, _ in vec.types_.values()]
    if vec._from_array and kinds and all(kind == "categorical" for kind in kinds):
        PreparationFallbackWarning.warn(
            "every column of the array became categorical (an object array carries no "
            "column types): give a DataFrame with typed columns, column_types=, or "
            "types='auto' / 'vote' to decide them by the private vote.")
