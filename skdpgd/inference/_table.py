"""The coefficient table of a private fit: standard errors, intervals, Wald p-values."""

import numpy as np
from scipy.stats import norm

__all__ = ["CoefficientTable"]


class CoefficientTable:
    r"""Estimates, their private covariance and what follows from it (post-processing).

    Wald inference: :math:`\hat\beta_j \pm z_{1-\alpha/2}\,\mathrm{se}_j` with
    :math:`\mathrm{se}_j = \sqrt{\Sigma_{jj}}`, and the two-sided p-value
    :math:`2\,\Phi(-|\hat\beta_j|/\mathrm{se}_j)` of the hypothesis
    :math:`\beta_j = 0`.

    Parameters
    ----------
    names : list of str
        One per coefficient, in ``coef_.ravel()`` order, then ``"intercept"``.
    estimate : ndarray of shape (m,)
        The estimates, in the caller's units.
    covariance : ndarray of shape (m, m)
        Their private covariance.
    notes : tuple of str
        What the intervals cover and any warning; printed by :meth:`text`.
    """

    def __init__(self, names, estimate, covariance, notes=()):
        self.names = list(names)
        self.estimate = np.asarray(estimate, dtype=np.float64)
        self.covariance = np.asarray(covariance, dtype=np.float64)
        self.notes = tuple(notes)

    @property
    def std_err(self):
        """The standard errors, :math:`\\sqrt{\\Sigma_{jj}}`."""
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
            Estimate -/+ z_(1-alpha/2) standard errors.
        """
        alpha = float(alpha)
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
        half = norm.ppf(1.0 - alpha / 2.0) * self.std_err
        return np.column_stack([self.estimate - half, self.estimate + half])

    @property
    def pvalues(self):
        """Two-sided Wald p-values of beta_j = 0."""
        se = self.std_err
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, np.abs(self.estimate) / se, np.inf)
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
            Columns coef, std_err, ci_low, ci_high, p_value; one row per name.
        """
        import pandas as pd

        ci = self.conf_int(alpha)
        return pd.DataFrame(
            {"coef": self.estimate, "std_err": self.std_err, "ci_low": ci[:, 0],
             "ci_high": ci[:, 1], "p_value": self.pvalues},
            index=pd.Index(self.names, name="coefficient"),
        )

    def text(self, alpha=0.05, title="Private coefficient table"):
        """The table as aligned text with its notes (what the intervals cover).

        Parameters
        ----------
        alpha : float, default=0.05
            Level of the intervals.
        title : str, default="Private coefficient table"
            The first line.

        Returns
        -------
        str
            The table and its notes, one line each.
        """
        frame = self.frame(alpha)
        level = f"{100 * (1 - alpha):g}%"
        width = max(12, *(len(n) for n in self.names))
        head = (f"{'':<{width}} {'coef':>11} {'std_err':>11} "
                f"{'[' + level:>11} {'interval]':>11} {'p_value':>9}")
        lines = [title, head, "-" * len(head)]
        for name, row in frame.iterrows():
            lines.append(
                f"{name:<{width}} {row.coef:>11.4g} {row.std_err:>11.4g} "
                f"{row.ci_low:>11.4g} {row.ci_high:>11.4g} {row.p_value:>9.3g}"
            )
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)
