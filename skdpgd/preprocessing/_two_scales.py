r"""A numeric column on both its linear and its log scale: :class:`TwoScaleEncoding`.

The public log rules (docs/theory.md, "The log rules") read the released range only; the
range cannot say whether a target is linear in the column or in its logarithm (a count
whose effect adds per unit, a size whose effect multiplies per factor). A log map alone
loses a linear signal (a linear model on :math:`\log x` cannot draw a line in
:math:`x`), a linear map alone squeezes a heavy-tailed column's bulk into a sliver of
[0, 1]. So where the rule says *log* and the user did not decide, the column gives the
model both features, the linear map and the log map of the same clipped value, and the
model weighs them: a linear target keeps its line (within the range), a log-linear one
its logarithm. Post-processing of the same release (both maps read only the released
range and median). Each feature is written times :math:`1/\sqrt 2`, so the block's squared
norm is at most 1, or :math:`1 + (m_1^2 + m_2^2)/2` with its missing indicator
(:math:`m_1, m_2` the imputed values of the two maps): the row norm bound, and so every
other column's scale, is what one map would give, whatever the other columns.

For inference the two are not what a statistician reads (nearly collinear on a count's
bulk, neither coefficient the column's effect alone): a pipeline whose estimator has
``inference=True`` sets ``log1p=False``, one linear map per column
(docs/theory.md, "One scale per column, indicators at 0").
"""

from dataclasses import dataclass

import numpy as np

from ._column_maps import NumericEncoding, scale_to_unit

#: Each of the two features is written times 1/sqrt(2): the block's squared norm is at
#: most 1, as a one-feature column's, so the row norm bound, and with it every other
#: column's scale, is what it would be with one map.
HALF_ROOT = float(np.sqrt(0.5))


@dataclass(frozen=True)
class TwoScaleEncoding(NumericEncoding):
    """A numeric column's linear map (``scale="linear"``), then its log map, each / sqrt 2.

    Attributes
    ----------
    log_scale : str
        ``"log1p"`` or ``"logratio"``: the second feature's map.
    log_impute : float
        The second feature's value for a missing cell, in [0, 1].
    """

    log_scale: str = "log1p"
    log_impute: float = 0.5

    def feature_names(self):
        """Output column names: the column, its ``__log`` feature, then ``__missing``.

        Returns
        -------
        list of str
            One name per output column of the block, in order.
        """
        return [self.name, f"{self.name}__log"] + (
            [f"{self.name}__missing"] if self.indicator else [])

    def _write(self, v):
        """v in [0, 1] as the block writes it (the encoding's centring, where it has one)."""
        return getattr(self, "_written", lambda value: value)(v)

    @property
    def sq_norm_bound(self):
        """Largest squared norm of the block: 1 (two values in [0, 1/sqrt 2], or
        [-1/sqrt 2, 1/sqrt 2] centred), or 1 + (w_1^2 + w_2^2)/2 with an indicator, w the
        written imputed values."""
        imputed = 0.5 * (self._write(self.impute) ** 2 + self._write(self.log_impute) ** 2)
        return 1.0 + imputed if self.indicator else 1.0

    def transform(self, x):
        """The block for float values x (NaN for missing).

        Parameters
        ----------
        x : ndarray of shape (n_samples,)
            The column as floats, NaN for a missing cell.

        Returns
        -------
        ndarray of shape (n_samples, 2 or 3)
            The linear and the log map (imputed for a missing cell), each times
            1/sqrt(2), then the missing indicator when there is one.
        """
        missing = np.isnan(x)
        linear = scale_to_unit(x, self.low, self.high, "linear")
        log = scale_to_unit(x, self.low, self.high, self.log_scale)
        linear[missing], log[missing] = self.impute, self.log_impute
        linear, log = self._write(linear) * HALF_ROOT, self._write(log) * HALF_ROOT
        blocks = [linear, log] + ([missing.astype(np.float64)] if self.indicator else [])
        return np.column_stack(blocks)


def two_scales(name, low, high, log_scale, median, indicator, source):
    """The :class:`TwoScaleEncoding` of a released range and median."""
    point = np.array([median])
    return TwoScaleEncoding(
        name=name, low=low, high=high, scale="linear",
        impute=float(scale_to_unit(point, low, high, "linear")[0]), indicator=indicator,
        source=source, log_scale=log_scale,
        log_impute=float(scale_to_unit(point, low, high, log_scale)[0]))
