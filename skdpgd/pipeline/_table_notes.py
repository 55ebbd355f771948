r"""What a pipeline's coefficient table says about the preparation the model saw.

The last transformer decides what each coefficient means: with
``DPTableVectorizer(one_hot_reference="first")`` each one-hot group drops its reference
level, and the coefficient of every other level of the group is its contrast against that
level (the reference's rows have 0 in every column of the group, so the intercept carries
them); a ``__missing`` column that the column's dtype cannot fill is not written; with
``centre=True`` (either step) a numeric value is mapped to [-1, 1], so the intercept is
the prediction at the midpoints of the ranges and at the reference levels; with
``add_indicator="zero"`` a missing numeric cell is written as 0, so its indicator's
coefficient is the missing rows' level against a row at the midpoint. The notes are
made from the fitted step's public parameters and released constants only (the category
lists, the ranges): post-processing, no privacy cost.
"""

__all__ = ["indicator_columns", "preparation_notes"]

REFERENCE_NOTE = (
    "reference levels (a public rule: each one-hot group's first column, the first kept "
    "category in the released order, is dropped; the other levels' coefficients are "
    "contrasts against it): {levels}"
)
DROPPED_MISSING_NOTE = (
    "not written, empty by construction (the column's dtype cannot hold a missing "
    "value): {columns}"
)
AT_ZERO_NOTE = (
    "a missing numeric cell next to its indicator is written as 0 (add_indicator='zero': "
    "the {where} of the column's range): each numeric __missing coefficient is the "
    "missing rows' level against a row at that value: {columns}"
)
CENTRED_NOTE = (
    "numeric columns centred by public constants: each is mapped to [-1, 1] by its range "
    "(its midpoint to 0){divisor}; the intercept is the prediction at the midpoints"
    "{and_references}"
)


def preparation_notes(fitted, n_features):
    """The table notes and per-column row notes of the last fitted transformer.

    Parameters
    ----------
    fitted : list of (str, step)
        The pipeline's fitted transformers, in order (skipped steps included).
    n_features : int
        The number of columns the estimator saw.

    Returns
    -------
    notes : list of str
        Table notes (reference levels, columns not written, centring).
    row_notes : list of str or None
        One per column the estimator saw ("" for none), or None when the step says
        nothing per column.
    """
    steps = [step for _, step in fitted if not (step is None or (
        isinstance(step, str) and step == "passthrough"))]
    if not steps:
        return [], None
    step = getattr(steps[-1], "step", steps[-1])  # a PreparedStep's released step
    encodings = getattr(step, "encodings_", None)
    if encodings is None:
        if getattr(step, "centre", False) is True:
            return [CENTRED_NOTE.format(divisor="", and_references="")], None
        return [], None
    names = [str(name) for name in step.get_feature_names_out()]
    if len(names) != n_features:
        return [], None
    row_notes, references, dropped, start, centred = [""] * n_features, [], [], 0, False
    at_zero = isinstance(getattr(step, "add_indicator", None), str) and (
        step.add_indicator == "zero")
    indicated = [f"{e.name}__missing" for e in encodings
                 if at_zero and hasattr(e, "scale") and getattr(e, "indicator", False)]
    for encoding in encodings:
        width = len(encoding.feature_names())
        reference = getattr(encoding, "reference_name", None)
        if reference:
            references.append(f"{encoding.name}: {reference}")
            for k in range(start, start + width):
                row_notes[k] = f"contrast against {reference}"
            if not encoding.missing_column:
                dropped.append(f"{encoding.name}__missing")
        centred = centred or getattr(encoding, "centred", False)
        start += width
    notes = []
    if references:
        notes.append(REFERENCE_NOTE.format(levels="; ".join(references)))
    if dropped:
        notes.append(DROPPED_MISSING_NOTE.format(columns=", ".join(dropped)))
    if indicated:
        notes.append(AT_ZERO_NOTE.format(where="midpoint" if centred else "low end",
                                         columns=", ".join(indicated)))
    if centred:
        divisor = float(getattr(step, "row_divisor_", 1.0))
        notes.append(CENTRED_NOTE.format(
            divisor="" if divisor == 1.0 else f", then divided by {divisor:.6g} with the row",
            and_references=" and at the reference levels" if references else ""))
    return notes, row_notes


def indicator_columns(fitted, n_features):
    """Which columns the estimator saw are 0/1 indicators, by the preparation's structure.

    The one-hot levels, ``__other``, ``__missing`` and hash buckets of a categorical
    block, a boolean's value and indicator, a numeric column's ``__missing`` (public
    structure of the last fitted transformer, read from its encodings' kinds only):
    the columns that may leave the inference block where the release shows them empty
    (:func:`skdpgd.inference.infer`).

    Parameters
    ----------
    fitted : list of (str, step)
        The pipeline's fitted transformers, in order (skipped steps included).
    n_features : int
        The number of columns the estimator saw.

    Returns
    -------
    list of bool or None
        One per column, or None when the last step has no encodings (nothing is then
        a candidate).
    """
    steps = [step for _, step in fitted if not (step is None or (
        isinstance(step, str) and step == "passthrough"))]
    if not steps:
        return None
    step = getattr(steps[-1], "step", steps[-1])
    encodings = getattr(step, "encodings_", None)
    if encodings is None:
        return None
    flags = []
    for encoding in encodings:
        names = encoding.feature_names()
        if hasattr(encoding, "categories"):  # a one-hot (or hashed) block: all indicators
            flags += [True] * len(names)
        elif not hasattr(encoding, "scale"):  # a boolean: 0/1 value and indicator
            flags += [True] * len(names)
        else:  # numeric: its values, then its missing indicator
            last = len(names) - 1 if getattr(encoding, "indicator", False) else -1
            flags += [k == last for k in range(len(names))]
    return flags if len(flags) == n_features else None
