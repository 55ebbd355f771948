r"""The private coefficient table of a DP pipeline in the units of the raw columns.

A numeric column that :class:`~skdpgd.preprocessing.DPTableVectorizer` maps linearly
enters the model as :math:`z_j = \frac{x_j - \ell_j}{(h_j - \ell_j)\,D}` for
:math:`x_j \in [\ell_j, h_j]`, where :math:`[\ell_j, h_j]` is the column's released (or
public) range and :math:`D` the public divisor that bounds the row norm
(``DPTableVectorizer.row_divisor_``). On that range the linear predictor
:math:`b + \sum_j \beta_j z_j + \dots` equals :math:`b' + \sum_j \beta'_j x_j + \dots` with

.. math::

    \beta'_j = \frac{\beta_j}{(h_j - \ell_j)\,D}, \qquad
    b' = b - \sum_j \frac{\beta_j\,\ell_j}{(h_j - \ell_j)\,D},

a linear map :math:`\theta' = J\theta` of the coefficient vector (intercept last), so its
private covariance is :math:`J\Sigma J^\top` (the same estimate and covariance, written in
other units: post-processing of the accounted releases, no privacy cost). Columns mapped
otherwise (log rules, categories, missing indicators) keep the model's units. The
statement holds for values inside the range: outside it the vectorizer clips.
"""

import numpy as np

from ..inference import CoefficientTable

__all__ = ["coefficient_table_in_column_units"]

UNITS_NOTE = (
    "coefficients of linearly scaled numeric columns are per unit of the raw column, valid "
    "for values inside the range the vectorizer used ({ranges}); the intercept is then the "
    "prediction with those columns at 0; every other coefficient is in the model's units"
)


def coefficient_table_in_column_units(vectorizer, table):
    """The table with linearly scaled columns' coefficients per unit of the raw column.

    Parameters
    ----------
    vectorizer : DPTableVectorizer
        The pipeline's fitted vectorizer (its ``encodings_`` and ``row_divisor_``).
    table : CoefficientTable
        The estimator's table (``inference_``), one coefficient per output column of the
        vectorizer, then the intercept.

    Returns
    -------
    CoefficientTable
        Estimates :math:`J\\theta` and covariance :math:`J\\Sigma J^\\top` (module
        docstring), named by the vectorizer's output columns, with a note saying which
        coefficients changed units and on which ranges.
    """
    names = list(vectorizer.get_feature_names_out())
    m = len(table.estimate)
    has_intercept = m == len(names) + 1
    if m not in (len(names), len(names) + 1):
        raise ValueError(f"the table has {m} coefficients; the vectorizer has {len(names)} "
                         "output columns.")
    J = np.eye(m)
    divisor = float(vectorizer.row_divisor_)
    position = {name: k for k, name in enumerate(names)}
    ranges = []
    for encoding in vectorizer.encodings_:
        if getattr(encoding, "scale", None) != "linear" or encoding.high <= encoding.low:
            continue
        k = position[encoding.name]
        factor = 1.0 / ((encoding.high - encoding.low) * divisor)
        J[k, k] = factor
        if has_intercept:
            J[m - 1, k] = -encoding.low * factor
        ranges.append(f"{encoding.name} in [{encoding.low:.6g}, {encoding.high:.6g}]")
    notes = list(table.notes)
    if ranges:
        notes.append(UNITS_NOTE.format(ranges="; ".join(ranges)))
    return CoefficientTable(names + (["intercept"] if has_intercept else []),
                            J @ table.estimate, J @ table.covariance @ J.T, notes)
