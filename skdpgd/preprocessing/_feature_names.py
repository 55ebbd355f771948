"""Distinct output names for a DPTableVectorizer: no data level can take a reserved name.

Each column's block names its outputs ``col`` (a number, a boolean), ``col__missing`` (the
missing indicator), ``col__other`` (the catch-all of a categorical column),
``col__hash<k>`` (a hash bucket) and ``col_<level>`` (a kept category). A level's name
is made from the data's own text, so ``col_<level>`` can equal a reserved name (a level
``"_other"`` gives ``col__other``) or another column's name (column ``a`` with level
``b`` and a column ``a_b``). The reserved names keep their spelling; a level name that
meets a reserved name, or a name given before it, gets ``_level`` appended until it is
unique. The names are functions of the column names and of the kept categories only
(public or released), so the rule is post-processing.
"""

#: What a level name that meets another name is suffixed with (repeated if needed).
LEVEL_SUFFIX = "_level"


def distinct_feature_names(blocks):
    """One name per output column, all distinct.

    Parameters
    ----------
    blocks : list of list of (str, bool)
        Per column block, its output names and whether each comes from a data level.

    Returns
    -------
    list of str
        The names in output order: reserved names as given, level names suffixed with
        :data:`LEVEL_SUFFIX` until unique.
    """
    reserved = {name for block in blocks for name, is_level in block if not is_level}
    used, names = set(), []
    for block in blocks:
        for name, is_level in block:
            if is_level:
                while name in reserved or name in used:
                    name += LEVEL_SUFFIX
            used.add(name)
            names.append(name)
    return names
