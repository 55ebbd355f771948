"""What a fitted DPPipeline does with new rows: its fitted ``pipeline_`` does it.

Each method exists when the final step has it (``available_if``) and first checks that
the pipeline is fitted and that X has the fit's columns (structure only). A table with
column names (pandas, polars) is read by name, like the command line's saved model: its
columns are taken in the fit's order, extra columns are ignored, and a missing column is
refused with a message naming the missing columns (names are public schema; no value).
"""

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import validate_data
from ._units import coefficient_table_in_column_units


def _final_has(attr):
    """available_if check: the final step (fitted if there is one) has ``attr``."""

    def check(self):
        final = (self.pipeline_.steps[-1][1] if hasattr(self, "pipeline_")
                 else self.steps[-1][1])
        getattr(final, attr)
        return True

    return check


def by_name(X, names):
    """The columns ``names`` of a named table X, in that order (X itself otherwise).

    Extra columns are dropped; missing ones raise a ValueError that names them and the
    columns the model reads (public schema only).
    """
    columns = getattr(X, "columns", None)
    if names is None or columns is None or not hasattr(X, "__getitem__"):
        return X
    have = [str(c) for c in columns]
    names = [str(c) for c in names]
    if have == names:
        return X
    absent = [c for c in names if c not in have]
    if absent:
        raise ValueError(f"the table has no column(s) {absent}; the model reads {names}.")
    if any(not isinstance(c, str) for c in columns):  # e.g. integer labels: keep as is
        return X
    return X[names]


class FittedPipelineMethods:
    """Predictions, scores and transforms of a fitted :class:`skdpgd.DPPipeline`."""

    def _check_input(self, X):
        """X with the fit's columns, by name when it has names (structure only)."""
        check_is_fitted(self)
        X = by_name(X, getattr(self, "feature_names_in_", None))
        if getattr(X, "ndim", 2) != 2:
            raise ValueError(
                f"Expected 2D array, got {X.ndim}D array instead. Reshape your data "
                "with X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it "
                "holds a single sample.")
        validate_data(self, X, reset=False, skip_check_array=True)
        return X

    @available_if(_final_has("predict"))
    def predict(self, X):
        """``pipeline_.predict``: the steps' transforms, then the estimator.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Predicted labels or targets.
        """
        X = self._check_input(X)
        return self.pipeline_.predict(X)

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X):
        """``pipeline_.predict_proba``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Class probabilities.
        """
        X = self._check_input(X)
        return self.pipeline_.predict_proba(X)

    @available_if(_final_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """``pipeline_.predict_log_proba``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Log class probabilities.
        """
        X = self._check_input(X)
        return self.pipeline_.predict_log_proba(X)

    @available_if(_final_has("decision_function"))
    def decision_function(self, X):
        """``pipeline_.decision_function``.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            Decision scores.
        """
        X = self._check_input(X)
        return self.pipeline_.decision_function(X)

    @available_if(_final_has("score"))
    def score(self, X, y):
        """``pipeline_.score`` (accuracy or R^2; on data you may look at).

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.
        y : array-like
            Labels or targets.

        Returns
        -------
        float
            The final estimator's score on X, y.
        """
        X = self._check_input(X)
        return self.pipeline_.score(X, y)

    @available_if(_final_has("transform"))
    def transform(self, X):
        """``pipeline_.transform`` (only when the final step transforms).

        Parameters
        ----------
        X : DataFrame or array-like
            Rows like those of the fit.

        Returns
        -------
        ndarray
            The transformed rows.
        """
        X = self._check_input(X)
        return self.pipeline_.transform(X)

    @available_if(_final_has("conf_int"))
    def conf_int(self, alpha=0.05):
        """The final estimator's private Wald intervals (``inference=True``).

        In the units of the final estimator's ``coef_`` and ``intercept_`` (for
        ``DPRidge(y_bound="auto")``, those of y): each contains its coefficient.

        Parameters
        ----------
        alpha : float, default=0.05
            1 - the coverage level, in (0, 1).

        Returns
        -------
        intervals : ndarray of shape (n_coefficients, 2)
            In ``coef_.ravel()`` order, then the intercept (NaN where the table gives no
            interval, with the reason in ``summary()["note"]``).
        """
        check_is_fitted(self)
        return self.pipeline_.steps[-1][1].conf_int(alpha)

    def summary(self, alpha=0.05, units="model"):
        """The private coefficient table of the final estimator (``inference=True``).

        Indexed by the names of the columns the model saw (the fitted transformers'
        ``get_feature_names_out()``), then ``"intercept"``; columns ``coef``,
        ``std_err``, ``ci_low``, ``ci_high``, ``p_value``, ``note``;
        ``attrs["covers"]`` says what the intervals cover and ``attrs["notes"]`` the
        rest. Every number is in the units of ``coef_`` and ``intercept_`` (y's for
        ``DPRidge(y_bound="auto")``). Post-processing of the fit's releases: no privacy
        cost.

        Parameters
        ----------
        alpha : float, default=0.05
            Level of the intervals.
        units : {"model", "original"}, default="model"
            ``"model"``: the coefficients of the encoded columns. ``"original"``: the
            coefficients of numeric columns that the last transformer (a
            :class:`~skdpgd.preprocessing.DPTableVectorizer`) maps linearly are given per
            unit of its input column, the intercept at 0 of those columns, with their
            covariance (valid inside the range the vectorizer used; the rows' notes name
            the ranges). See :doc:`/theory`, "Private inference for the coefficients".

        Returns
        -------
        pandas.DataFrame
            One row per coefficient.
        """
        check_is_fitted(self)
        if units not in ("model", "original"):
            raise ValueError(f"units must be 'model' or 'original', got {units!r}.")
        steps = [step for _, step in self.pipeline_.steps]
        final = steps[-1]
        table = final._fitted_table() if hasattr(final, "_fitted_table") else None
        if table is None:
            raise AttributeError("the final step has no coefficient table: use an skdpgd "
                                 "estimator fitted with inference=True.")
        if units == "model":
            return table.frame(alpha)
        vectorizer = steps[-2] if len(steps) > 1 else None
        if not hasattr(vectorizer, "row_divisor_"):
            raise ValueError("units='original' needs a DPTableVectorizer as the step before "
                             "the estimator.")
        return coefficient_table_in_column_units(vectorizer, table).frame(alpha)
