r"""The coefficient table of a private fit: standard errors, intervals, Wald p-values.

A row whose variance is NaN has no interval and no p-value (NaN, with the reason in the
row's note): "an interval is printed only where it holds". A table is written in other
units by an affine map :math:`\theta' = J\theta + c` of its coefficient vector
(:meth:`CoefficientTable.mapped`): the estimate becomes :math:`J\hat\theta + c` and the
covariance :math:`J\Sigma J^\top` (post-processing of the same releases, no privacy
cost), so the intervals, the standard errors and the p-values of the mapped table are
those of the mapped coefficients.
"""

import numpy as np
from scipy.stats import norm

__all__ = ["CoefficientTable"]


class CoefficientTable:
    r"""Estimates, their private covariance and what follows from it (post-processing).

    Wald inference: :math:`\hat\beta_j \pm z_{1-\alpha/2}\,\mathrm{se}_j` with
    :math:`\mathrm{se}_j = \sqrt{\Sigma_{jj}}`, and the two-sided p-value
    :math:`2\,\Phi(-|\hat\beta_j|/\mathrm{se}_j)` of the hypothesis
    :math:`\beta_j = 0`; NaN where :math:`\Sigma_{jj}` or :math:`\hat\beta_j` is NaN.

    Parameters
    ----------
    names : list of str
        One per coefficient, in ``coef_.ravel()`` order, then ``"intercept"``.
    estimate : ndarray of shape (m,)
        The estimates, in the caller's units.
    covariance : ndarray of shape (m, m)
        Their private covariance (NaN in a row and column: no interval there).
    notes : tuple of str
        What the intervals cover, warnings and facts about the whole table; printed by
        :meth:`text`.
    covers : str, optional
        What every interval covers (the target of the estimate, in words); printed
        first by :meth:`text` (and not again where it is also one of the notes).
    row_notes : sequence of str, optional
        One per coefficient ("" for none): why a row has no interval, its units, its
        reference level.
    """

    def __init__(self, names, estimate, covariance, notes=(), *, covers=None,
                 row_notes=None):
        self.names = list(names)
        self.estimate = np.asarray(estimate, dtype=np.float64)
        self.covariance = np.asarray(covariance, dtype=np.float64)
        self.notes = tuple(notes)
        self.covers = covers
        m = len(self.names)
        self.row_notes = tuple("" if note is None else str(note)
                               for note in (row_notes or ("",) * m))
        if self.estimate.shape != (m,) or self.covariance.shape != (m, m) or len(
                self.row_notes) != m:
            raise ValueError(
                f"a table of {m} names needs {m} estimates, an ({m}, {m}) covariance and "
                f"{m} row notes; got {self.estimate.shape}, {self.covariance.shape} and "
                f"{len(self.row_notes)}.")

    def replace(self, **changes):
        """A copy with some fields changed (names, estimate, covariance, notes, covers,
        row_notes); ``diagnostics`` travel with it.

        Parameters
        ----------
        **changes : dict
            Constructor arguments to change.

        Returns
        -------
        CoefficientTable
            The new table.
        """
        fields = {"names": self.names, "estimate": self.estimate,
                  "covariance": self.covariance, "notes": self.notes,
                  "covers": self.covers, "row_notes": self.row_notes}
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise TypeError(f"CoefficientTable has no field(s) {unknown}.")
        fields.update(changes)
        table = CoefficientTable(fields.pop("names"), fields.pop("estimate"),
                                 fields.pop("covariance"), **fields)
        if hasattr(self, "diagnostics"):
            table.diagnostics = self.diagnostics
        return table

    def mapped(self, matrix, shift=None, **changes):
        r"""The table of :math:`\theta' = J\theta + c`: estimate :math:`J\hat\theta + c`,
        covariance :math:`J\Sigma J^\top`.

        A NaN reaches only the rows that depend on it: :math:`J` is applied to the
        finite entries, and an entry of the result is NaN where a nonzero entry of
        :math:`J` meets a NaN (``0 * NaN`` would spread it everywhere).

        Parameters
        ----------
        matrix : ndarray of shape (m, m)
            J.
        shift : ndarray of shape (m,), optional
            c (default 0).
        **changes : dict
            Other fields of the new table (:meth:`replace`), e.g. ``notes``.

        Returns
        -------
        CoefficientTable
            In the new units.
        """
        J = np.asarray(matrix, dtype=np.float64)
        m = len(self.names)
        if J.shape != (m, m):
            raise ValueError(f"the map has shape {J.shape}; the table has {m} coefficients.")
        uses = (J != 0).astype(np.float64)
        estimate = J @ np.nan_to_num(self.estimate, nan=0.0)
        estimate[uses @ np.isnan(self.estimate) > 0] = np.nan
        if shift is not None:
            estimate = estimate + np.asarray(shift, dtype=np.float64)
        bad = np.isnan(self.covariance)
        covariance = J @ np.where(bad, 0.0, self.covariance) @ J.T
        covariance[uses @ bad.astype(np.float64) @ uses.T > 0] = np.nan
        return self.replace(estimate=estimate, covariance=covariance, **changes)

    @property
    def std_err(self):
        """The standard errors, :math:`\\sqrt{\\Sigma_{jj}}` (NaN where it is NaN)."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def conf_int(self, alpha=0.05):
        """Wald intervals of level 1 - alpha.

        Parameters
        ----------
        alpha : float, default=0.05
            In (0, 1).

        Returns
        -------
        intervals : ndarray of shape (m, 2)
            Estimate -/+ z_(1-alpha/2) standard errors (NaN where the se is NaN).
        """
        alpha = float(alpha)
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
        half = norm.ppf(1.0 - alpha / 2.0) * self.std_err
        return np.column_stack([self.estimate - half, self.estimate + half])

    @property
    def pvalues(self):
        """Two-sided Wald p-values of beta_j = 0 (NaN where the se or estimate is NaN)."""
        se = self.std_err
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, np.abs(self.estimate) / se, np.inf)
        z[np.isnan(se) | np.isnan(self.estimate)] = np.nan
        return 2.0 * norm.sf(z)

    def frame(self, alpha=0.05):
        """The table as a pandas DataFrame.

        Parameters
        ----------
        alpha : float, default=0.05
            Level of the intervals.

        Returns
        -------
        pandas.DataFrame
            Columns coef, std_err, ci_low, ci_high, p_value, note; one row per name;
            ``attrs["covers"]`` and ``attrs["notes"]`` hold what the intervals cover
            and the table's notes.
        """
        import pandas as pd

        ci = self.conf_int(alpha)
        frame = pd.DataFrame(
            {"coef": self.estimate, "std_err": self.std_err, "ci_low": ci[:, 0],
             "ci_high": ci[:, 1], "p_value": self.pvalues, "note": list(self.row_notes)},
            index=pd.Index(self.names, name="coefficient"),
        )
        frame.attrs["covers"] = self.covers
        frame.attrs["notes"] = list(self.notes)
        return frame

    def text(self, alpha=0.05, title="Private coefficient table"):
        """The table as aligned text: what the intervals cover, the rows, the notes.

        Parameters
        ----------
        alpha : float, default=0.05
            Level of the intervals.
        title : str, default="Private coefficient table"
            The first line.

        Returns
        -------
        str
            The title, ``covers: ...``, the rows (with their note, if any) and the
            table's notes, one line each.
        """
        frame = self.frame(alpha)
        level = f"{100 * (1 - alpha):g}%"
        width = max(12, *(len(n) for n in self.names))
        head = (f"{'':<{width}} {'coef':>11} {'std_err':>11} "
                f"{'[' + level:>11} {'interval]':>11} {'p_value':>9}")
        with_notes = any(self.row_notes)
        lines = [title]
        if self.covers:
            lines.append(f"covers: {self.covers}")
        lines += [head + ("  note" if with_notes else ""), "-" * len(head)]
        for name, row in frame.iterrows():
            line = (f"{name:<{width}} {row.coef:>11.4g} {row.std_err:>11.4g} "
                    f"{row.ci_low:>11.4g} {row.ci_high:>11.4g} {row.p_value:>9.3g}")
            lines.append(f"{line}  {row.note}" if row.note else line)
        lines += [f"note: {note}" for note in self.notes if note != self.covers]
        return "\n".join(lines)
