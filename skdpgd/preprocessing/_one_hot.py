"""One-hot encoding over public category lists: :func:`public_one_hot`."""

from sklearn.preprocessing import OneHotEncoder


def public_one_hot(categories, *, sparse_output=False, dtype=float):
    """An ``OneHotEncoder`` over category lists given explicitly (public), unknowns to zeros.

    ``OneHotEncoder(categories="auto")`` reads the category list from the training data:
    a rare category then appears in the released model only if some individual has it,
    which is a privacy leak that no accountant sees. Give the lists from the data's
    code book instead. A value outside its list (a typo, a missing-value marker such
    as ``"?"``) is encoded as all zeros (``handle_unknown="ignore"``), so the encoded
    group contributes at most 1 to the squared row norm: d numeric features in [0, 1]
    plus g one-hot groups give rows of norm <= sqrt(d + g).

    Parameters
    ----------
    categories : list of list
        One list of the allowed values per encoded column, in the output order.
    sparse_output : bool, default=False
        Passed to ``OneHotEncoder``.
    dtype : dtype, default=float
        Passed to ``OneHotEncoder``.

    Returns
    -------
    encoder : sklearn.preprocessing.OneHotEncoder
        Unfitted; fitting it reads no value (the categories are fixed).

    Raises
    ------
    ValueError
        If ``categories`` is ``"auto"`` or not a list of non-empty lists.

    Examples
    --------
    >>> from skdpgd.preprocessing import public_one_hot
    >>> enc = public_one_hot([["Female", "Male"]])
    >>> enc.fit_transform([["Male"], ["?"]])
    array([[0., 1.],
           [0., 0.]])
    """
    if isinstance(categories, str):
        raise ValueError(
            f"categories={categories!r}: the category lists must be given explicitly "
            "(public, e.g. from the code book); reading them from the data leaks them."
        )
    categories = [list(values) for values in categories]
    empty = [j for j, values in enumerate(categories) if not values]
    if not categories or empty:
        raise ValueError(
            f"categories must be a non-empty list of non-empty lists; column(s) {empty} "
            "have no category."
        )
    return OneHotEncoder(
        categories=categories, handle_unknown="ignore", sparse_output=sparse_output,
        dtype=dtype,
    )
