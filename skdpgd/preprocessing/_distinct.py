"""Equal cells of one column, grouped: what is read from one cell is read from all.

Reading a raw column (its cells' floats, their category keys, the type vote's kinds) is a
per-cell rule. Where equal cells are read alike, a column is read once per distinct cell
and the result spread to every cell by a code. Equality alone does not suffice: in Python
``1 == True == 1.0`` and ``1e20 == 10**20`` although their keys differ, and two equal
``Decimal`` or tuple cells may print differently. So cells are grouped by **type and
value**: two cells share a code when they are of the same type, that type is one the
caller lists (:data:`TEXT_TYPES`, or a wider set where the rule allows it), and
:func:`pandas.factorize` finds them equal (or both missing); every cell of another type is
a group of its own. The work is the same for every column of a given length (one pass
over the types, one hashing pass, one over the codes), whatever the types of its cells:
one record of an unusual type adds one group, not a slower reading of its column.
"""

import numpy as np
import pandas as pd

__all__ = ["TEXT_TYPES", "group_equal_cells"]

#: Strings (NumPy's ``str_`` has ``str``'s equality, hash and text) and None: equal cells
#: of one of these types are the same text, or both None.
TEXT_TYPES = frozenset({str, np.str_, type(None)})


def group_equal_cells(array, types):
    """Codes that group the equal cells of an object column by type and value.

    Parameters
    ----------
    array : ndarray of shape (n_cells,), object
        One column.
    types : collection of type
        The cell types whose equal cells may share a code (equality within each type
        must imply the caller's rule reads them alike).

    Returns
    -------
    codes : ndarray of shape (n_cells,), intp
        Cells i and j share a code exactly when they are of the same type in ``types``
        and equal (NaN and None count as equal to themselves), or i == j; codes are
        numbered in the order the cells first show them.
    first : ndarray of shape (n_groups,), intp
        The position of each code's first cell: ``array[first]`` stands for the group.

    Examples
    --------
    >>> import numpy as np
    >>> codes, first = group_equal_cells(
    ...     np.array(["a", 1, True, "a", 1.0, None], dtype=object), TEXT_TYPES | {int, bool})
    >>> codes.tolist(), first.tolist()
    ([0, 1, 2, 0, 3, 4], [0, 1, 2, 4, 5])
    """
    n = array.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    type_codes, kinds = pd.factorize(np.fromiter(map(type, array), dtype=object, count=n))
    mergeable = np.fromiter((kind in types for kind in kinds), dtype=bool,
                            count=len(kinds))[type_codes]
    # cells of other types are hashed as None and then given a code of their own
    value_codes, _ = pd.factorize(np.where(mergeable, array, None), use_na_sentinel=False)
    pairs = value_codes.astype(np.int64) * len(kinds) + type_codes
    pairs[~mergeable] = n * len(kinds) + np.flatnonzero(~mergeable)
    codes, _ = pd.factorize(pairs)
    codes = codes.astype(np.intp, copy=False)
    # codes are numbered in order of first appearance: a group starts where the running
    # maximum of the codes grows
    running = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.diff(running, prepend=-1) > 0)
    return codes, first
