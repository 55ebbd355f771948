r"""The units of a DP pipeline's coefficient table: the target's, then the raw columns'.

**The target** (``DPRidge(y_bound="auto")``). The estimator is fitted on
:math:`\tilde y = (y - c)/s`, with :math:`s = (h - \ell)/2` and :math:`c = (h + \ell)/2`
from the released range :math:`[\ell, h]` of y (:mod:`skdpgd.pipeline._target`). A
prediction :math:`w\cdot x + b` of :math:`\tilde y` is :math:`s\,w\cdot x + (s b + c)` of
y, so every coefficient :math:`\theta' = s\theta + c\,e_{\mathrm{int}}` (the intercept
alone is shifted) and the covariance is :math:`s^2\Sigma`: standard errors and interval
half-widths are multiplied by s, the slopes' p-values are unchanged and the intercept's
is that of :math:`b' = 0`. :class:`TargetUnits` holds that map and applies it, in one
place, to everything the fitted estimator exposes (``coef_``, ``intercept_``,
``inference_``, ``coef_cov_``, ``coef_se_``, ``intercept_se_``, ``pvalues_``, hence
``conf_int`` and ``summary``), and writes the Huber threshold and the clipping range of
what the intervals cover in y's units (threshold :math:`s\,c_{\mathrm{Huber}}`, range
:math:`[\ell, h]`). Post-processing of the releases: no privacy cost.

**The raw columns** (``summary(units="original")``).
A numeric column that :class:`~skdpgd.preprocessing.DPTableVectorizer` maps linearly
enters the model as :math:`z_j = \frac{x_j - \ell_j}{(h_j - \ell_j)\,D}` for
:math:`x_j \in [\ell_j, h_j]` (centred, ``centre=True``:
:math:`z_j = \frac{2(x_j - o_j)}{(h_j - \ell_j)\,D}` with :math:`o_j = (\ell_j + h_j)/2`,
and the formulas below hold with the slope :math:`2/(h_j - \ell_j)` and :math:`o_j` in place
of :math:`1/(h_j - \ell_j)` and :math:`\ell_j`), where :math:`[\ell_j, h_j]` is the
column's released (or public) range and :math:`D` the public divisor that bounds the row norm
(``DPTableVectorizer.row_divisor_``). On that range the linear predictor
:math:`b + \sum_j \beta_j z_j + \dots` equals :math:`b' + \sum_j \beta'_j x_j + \dots` with

.. math::

    \beta'_j = \frac{\beta_j}{(h_j - \ell_j)\,D}, \qquad
    b' = b - \sum_j \frac{\beta_j\,\ell_j}{(h_j - \ell_j)\,D},

a linear map :math:`\theta' = J\theta` of the coefficient vector (intercept last), so its
private covariance is :math:`J\Sigma J^\top` (the same estimate and covariance, written in
other units: post-processing of the accounted releases, no privacy cost). A 0/1 column
(a category level, a missing indicator, a boolean) enters as :math:`z = 1/D` or 0: its
coefficient is written per unit of the indicator, :math:`\beta' = \beta/D` (a category
level's is then its contrast against the group's reference level, when one is dropped).
Columns mapped otherwise (log rules) keep the model's units. The
statement holds for values inside the range: outside it the vectorizer clips.
"""

import numpy as np

__all__ = ["TargetUnits", "coefficient_table_in_column_units"]

UNITS_NOTE = (
    "coefficients of linearly scaled numeric columns are per unit of the raw column, valid "
    "for values inside the range the vectorizer used ({ranges}); the intercept is then the "
    "prediction with those columns at 0; the coefficient of a 0/1 column (a category "
    "level, a missing indicator, a boolean) is per unit of that indicator (the model's "
    "column times the row divisor {divisor}); other columns (log rules) keep the model's "
    "units"
)


TARGET_UNITS_NOTE = (
    "units: those of y; the model was fitted on (y - {centre}) / {scale}, y clipped to the "
    "released range [{low}, {high}]: estimates, standard errors and interval half-widths "
    "were multiplied by {scale}, the intercept then shifted by {centre}, the covariance "
    "multiplied by {scale}^2"
)


class TargetUnits:
    r"""The affine map of y a pipeline's ridge was fitted on, undone on everything it exposes.

    Parameters
    ----------
    low, high : float
        The released range of y, low < high.

    Attributes
    ----------
    scale, centre : float
        :math:`s = (h - \ell)/2` and :math:`c = (h + \ell)/2`: the model saw
        :math:`(y - c)/s`.
    """

    def __init__(self, low, high):
        self.low, self.high = float(low), float(high)
        self.scale = (self.high - self.low) / 2.0
        self.centre = (self.high + self.low) / 2.0

    def table(self, table, *, has_intercept, covers=None):
        r"""The coefficient table in y's units: :math:`s\theta + c\,e_{\mathrm{int}}`,
        covariance :math:`s^2\Sigma` (the intercept is the last row when fitted).

        Parameters
        ----------
        table : CoefficientTable
            On the scale the model was fitted on.
        has_intercept : bool
            Whether its last row is the intercept.
        covers : str, optional
            What the intervals cover, written in y's units.

        Returns
        -------
        CoefficientTable
            With a note that states the map.
        """
        m = len(table.names)
        shift = np.zeros(m)
        if has_intercept:
            shift[-1] = self.centre
        note = TARGET_UNITS_NOTE.format(centre=f"{self.centre:.6g}", scale=f"{self.scale:.6g}",
                                        low=f"{self.low:.6g}", high=f"{self.high:.6g}")
        old_covers = table.covers
        notes = [covers if covers is not None and n == old_covers else n
                 for n in table.notes] + [note]
        return table.mapped(self.scale * np.eye(m), shift, notes=tuple(notes),
                            covers=old_covers if covers is None else covers)

    def apply(self, estimator):
        """Map a fitted DPRidge's ``coef_``, ``intercept_`` and, with ``inference=True``,
        its whole table and what is read from it, to y's units (in place).

        Parameters
        ----------
        estimator : DPRidge
            Fitted on :math:`(y - c)/s`.
        """
        estimator.coef_ = estimator.coef_ * self.scale
        estimator.intercept_ = float(estimator.intercept_) * self.scale + self.centre
        table = getattr(estimator, "inference_", None)
        if table is None:
            return
        covers = table.covers and estimator._covers(
            threshold=self.scale * float(estimator.residual_clip_), y_range=(self.low, self.high))
        estimator._set_inference_table(self.table(
            table, has_intercept=bool(estimator.fit_intercept), covers=covers))


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
    ranges, row_notes, start = [], list(table.row_notes), 0
    for encoding in vectorizer.encodings_:
        k, start = start, start + len(encoding.feature_names())
        numeric = hasattr(encoding, "linear_map")
        indicators = (range(start - 1, start) if getattr(encoding, "indicator", False)
                      else range(0)) if numeric else range(k, start)
        for j in indicators:  # 0/1 columns: levels, booleans, missing indicators
            J[j, j] = 1.0 / divisor
        linear = encoding.linear_map() if numeric else None
        if linear is None:
            continue
        slope, origin = linear  # z = slope (x - origin) / D on the range
        factor = slope / divisor
        J[k, k] = factor
        if has_intercept:
            J[m - 1, k] = -origin * factor
        span = f"[{encoding.low:.6g}, {encoding.high:.6g}]"
        ranges.append(f"{encoding.name} in {span}")
        row_notes[k] = "; ".join(filter(None, (row_notes[k], f"per unit of the raw column, "
                                                             f"valid on {span}")))
    notes = list(table.notes)
    if ranges:
        notes.append(UNITS_NOTE.format(ranges="; ".join(ranges), divisor=f"{divisor:.6g}"))
    return table.mapped(J, names=names + table.names[len(names):], notes=tuple(notes),
                        row_notes=row_notes)
