"""The one rule for a row-index column, read from a table's header (public schema).

R's ``write.csv`` and pandas' ``to_csv`` write the row index as an unnamed first column;
read back without ``index_col``, pandas names it ``"Unnamed: 0"`` and a CSV header shows
it as an empty name. Such a column numbers the rows: as a feature it carries the file's
order, not a property of a record. The rule reads the column names only (never a cell),
so it is public: the command line and :class:`~skdpgd.preprocessing.DPTableVectorizer`
both drop that column by it, and both say so (a note, a line of ``summary_text()``).
A user who means it as a feature names it, or declares it (``column_types``, ``bounds``).
"""

import re

#: The header names of an unnamed first column: empty, or pandas' ``"Unnamed: 0"``.
ROW_INDEX_NAMES = re.compile(r"^(|Unnamed: 0)$")


def row_index_column(labels):
    """The label of a row-index first column, or None (column names only).

    Parameters
    ----------
    labels : sequence
        The table's column labels, in order.

    Returns
    -------
    object or None
        ``labels[0]`` when the table has at least two columns and the first one's name
        (as text) is empty or ``"Unnamed: 0"``; None otherwise.
    """
    labels = list(labels)
    if len(labels) > 1 and isinstance(labels[0], str) and ROW_INDEX_NAMES.match(labels[0]):
        return labels[0]
    return None
