r"""A table's schema: its feature columns by name and their types, public or voted.

The first step of every pipeline the command line saves.

:class:`TableSchema` picks the feature columns of a table by name (a DataFrame read by
plain ``pd.read_csv``, the raw text of a CSV file, or an array with the columns in
order) and gives each its type, read cell by cell with the public rule of
:mod:`skdpgd.preprocessing._cells`: a numeric column becomes float64 (missing and text cells
become NaN), a date column datetime64 in UTC (ISO 8601 texts; anything else NaT), a
categorical one canonical texts (missing cells ``None``). A fitted
model therefore predicts the same on ``pd.read_csv(path)``, on
``pd.read_csv(path, dtype=str)`` and on the file as the command line reads it; extra
columns (the target, for instance) are ignored.

Which columns are numeric is part of the released model (it decides the features), so
it must not depend on the private values unaccounted. :class:`TableSchema` takes every
type as given (public: a config, ``--numeric`` / ``--categorical`` flags, or a column
declared with bounds or categories); fitting it reads no value. For the columns whose
type nobody declared, :class:`PrivateTableSchema` decides it by a noisy vote, a
Gaussian-DP release charged to the pipeline's budget (the mechanism and its sensitivity:
:mod:`skdpgd.preprocessing._type_vote`).
"""

import math

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..accounting import ReleasePrivacyReport
from ..utils._validation import make_generator
from ._cells import number_minus_text, to_categories, to_datetimes, to_numbers
from ._private_step import PrivateStepMixin
from ._type_vote import VOTE_MECHANISM, type_vote, vote_mu_needed

TYPES = ("numeric", "categorical")


def _pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        return None
    return pd


class TableSchema(TransformerMixin, BaseEstimator):
    """Select the feature columns by name and read each with its public type.

    Parameters
    ----------
    columns : list of str
        The feature columns, in the output order.
    numeric, categorical : list of str, default=()
        The columns of each type; together they must name every column of ``columns``.
    dates : list of str, default=()
        Numeric columns whose cells are dates or datetimes (ISO 8601 texts, read in UTC;
        the vectorizer reads them as decimal years); each is also a numeric column.
    date_format : str or None, default=None
        A public :meth:`~datetime.datetime.strptime` format of the date columns' texts
        (``"%m/%d/%Y"``); None reads ISO 8601. A text in neither is a missing cell.
    missing_values : list of str, default=()
        Public extra spellings of a missing cell (besides pandas' defaults, ``""`` and
        ``"NA"`` among them).

    Attributes
    ----------
    numeric_columns_, categorical_columns_ : list of str
        The columns of each type, in the order of ``columns``.
    n_features_in_ : int
        ``len(columns)``.
    feature_names_in_ : ndarray of str
        ``columns``.
    """

    #: Public-bound (skdpgd.model_selection): fit reads column names only, no value.
    __skdpgd_public_fit__ = True

    def __init__(self, columns, *, numeric=(), categorical=(), missing_values=(), dates=(),
                 date_format=None):
        self.columns = columns
        self.numeric = numeric
        self.categorical = categorical
        self.missing_values = missing_values
        self.dates = dates
        self.date_format = date_format

    def _dates(self):
        """The declared date columns (a model saved before they existed has none)."""
        return {str(c) for c in getattr(self, "dates", ()) or ()}

    # -- public checks ------------------------------------------------------------------
    def _declared(self):
        columns = [str(c) for c in self.columns]
        if not columns:
            raise ValueError("the schema has no feature column.")
        numeric, categorical = set(self.numeric) | self._dates(), set(self.categorical)
        both = sorted(numeric & categorical)
        if both:
            raise ValueError(f"column(s) {both} are declared both numeric and categorical.")
        unknown = sorted((numeric | categorical) - set(columns))
        if unknown:
            raise ValueError(f"column(s) {unknown} are typed but not feature columns.")
        return columns, numeric, categorical

    def _markers(self):
        markers = self.missing_values
        markers = [markers] if isinstance(markers, str) else list(markers or ())
        return frozenset(str(m).strip() for m in markers)

    def _read(self, X):
        """{name: 1-D array of cells} of the feature columns (checks names and shape)."""
        columns = [str(c) for c in self.columns]
        if hasattr(X, "columns"):
            names = [str(c) for c in X.columns]
            absent = [c for c in columns if c not in names]
            if absent:
                raise ValueError(f"the table has no column(s) {absent}; the model reads "
                                 f"{columns}.")
            position = {name: j for j, name in enumerate(names)}
            if hasattr(X, "iloc"):
                return {c: X.iloc[:, position[c]].to_numpy() for c in columns}
            return {c: np.asarray(X[c].to_numpy()) for c in columns}  # polars
        array = np.asarray(X) if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
        if array.ndim != 2 or array.shape[1] != len(columns):
            raise ValueError(f"expected a DataFrame with the columns {columns}, or a 2-D "
                             f"array of {len(columns)} columns in that order.")
        return {c: array[:, j] for j, c in enumerate(columns)}

    def _set_types(self, numeric):
        columns = [str(c) for c in self.columns]
        self.numeric_columns_ = [c for c in columns if c in numeric]
        self.categorical_columns_ = [c for c in columns if c not in numeric]
        self.n_features_in_ = len(columns)
        self.feature_names_in_ = np.asarray(columns, dtype=object)

    def fit(self, X, y=None):
        """Record the declared types (reads no value of X beyond its column names).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_columns)
            The table; a DataFrame must hold every name of ``columns``.
        y : None
            Ignored.

        Returns
        -------
        self : TableSchema
        """
        columns, numeric, categorical = self._declared()
        undeclared = [c for c in columns if c not in numeric | categorical]
        if undeclared:
            raise ValueError(f"column(s) {undeclared} have no declared type; use "
                             "PrivateTableSchema to decide them under a budget.")
        self._read(X)
        self._set_types(numeric)
        return self

    def transform(self, X):
        """The feature columns with their types.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_columns)
            The table; extra DataFrame columns are ignored.

        Returns
        -------
        table : pandas.DataFrame, or ndarray of object without pandas
            Numeric columns as float64 (NaN for missing and text cells), categorical
            ones as object columns of canonical texts (``None`` for missing cells),
            in the order of ``columns``.
        """
        check_is_fitted(self, "numeric_columns_")
        cells, markers = self._read(X), self._markers()
        numeric, dates = set(self.numeric_columns_), self._dates()
        date_format = getattr(self, "date_format", None)  # None in a model saved before it
        out = {name: (to_datetimes(values, markers, date_format) if name in dates
                      else to_numbers(values, markers) if name in numeric
                      else to_categories(values, markers))
               for name, values in cells.items()}
        pd = _pandas()
        if pd is None:  # pragma: no cover - pandas is in the test extra
            table = np.empty((len(next(iter(out.values()))), len(out)), dtype=object)
            for j, values in enumerate(out.values()):
                table[:, j] = values
            return table
        index = X.index if hasattr(X, "iloc") else None
        return pd.DataFrame({name: pd.Series(values, dtype=(
            "datetime64[us]" if name in dates else np.float64 if name in numeric
            else object), index=index) for name, values in out.items()}, index=index)

    def get_feature_names_out(self, input_features=None):
        """The feature columns, in order.

        Parameters
        ----------
        input_features : None
            Ignored.

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self, "numeric_columns_")
        return np.asarray([str(c) for c in self.columns], dtype=object)


class PrivateTableSchema(PrivateStepMixin, TableSchema):
    r"""A :class:`TableSchema` that decides the undeclared types by a noisy vote (mu-GDP).

    A private step (:class:`~skdpgd.preprocessing.PrivateStepMixin`): inside
    :func:`skdpgd.make_dp_pipeline` the pipeline gives it a share ``mu`` of the budget;
    the step releases :math:`D_j + N(0, (2\sqrt u/\mu)^2)` for its ``u`` undeclared
    columns and types column ``j`` numeric when the release is >= 0
    (:mod:`skdpgd.preprocessing._type_vote`, read cell by cell with the rule of
    :mod:`skdpgd.preprocessing._cells`). Declared columns cost nothing.

    Parameters
    ----------
    columns, numeric, categorical, missing_values, dates, date_format
        As :class:`TableSchema`; columns in none of the lists are undeclared.
    epsilon : float or None, default=None
        The budget of a standalone ``fit``; inside a pipeline the pipeline's share is
        used instead.
    delta : float, "auto" or None, default=None
        The delta of a standalone ``fit``.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged by a standalone ``fit`` before any value is read.
    random_state : None, int or numpy Generator, default=None
        Noise seed of a standalone ``fit``.

    Attributes
    ----------
    numeric_columns_, categorical_columns_ : list of str
        The columns of each type.
    privacy_ : ReleasePrivacyReport
        What the vote released and its mu.
    """

    __skdpgd_public_fit__ = False  # its fit reads values (the vote): never free
    _standalone_mechanism = VOTE_MECHANISM

    def __init__(self, columns, *, numeric=(), categorical=(), missing_values=(),
                 dates=(), date_format=None, epsilon=None, delta=None, ledger=None,
                 random_state=None):
        super().__init__(columns, numeric=numeric, categorical=categorical,
                         missing_values=missing_values, dates=dates,
                         date_format=date_format)
        self.epsilon = epsilon
        self.delta = delta
        self.ledger = ledger
        self.random_state = random_state

    def _privacy_plan(self, X):
        """(Gaussian releases, thresholded releases) from the parameters only: one vote
        when some type is undeclared, else nothing (the pipeline then gives no share)."""
        columns, numeric, categorical = self._declared()
        return (int(any(c not in numeric | categorical for c in columns)), 0)

    def _requested_mu(self, n_samples):
        """The most mu the vote needs on n rows (public: the undeclared count and n;
        :func:`~skdpgd.preprocessing._type_vote.vote_mu_needed`), None without a vote."""
        columns, numeric, categorical = self._declared()
        undeclared = [c for c in columns if c not in numeric | categorical]
        return vote_mu_needed(len(undeclared), n_samples) if undeclared else None

    def _fit_private(self, X, y=None, *, mu, extra_delta=0.0, random_state=None):
        """Decide the undeclared types spending at most ``mu``-GDP (no additive delta)."""
        columns, numeric, categorical = self._declared()
        undeclared = [c for c in columns if c not in numeric | categorical]
        cells = self._read(X)
        if not undeclared:
            self._set_types(numeric)
            self.privacy_ = ReleasePrivacyReport(
                mu=0.0, extra_delta=0.0, mechanism="no release: every type was declared")
            return self
        if not mu > 0:
            raise ValueError(f"{len(undeclared)} column type(s) to decide need a budget "
                             "mu > 0.")
        markers = self._markers()
        counts = [number_minus_text(cells[name], markers) for name in undeclared]
        votes, sigma = type_vote(counts, mu, make_generator(random_state))
        numeric = numeric | {name for name, vote in zip(undeclared, votes, strict=True) if vote}
        self._set_types(numeric)
        share = mu / math.sqrt(len(undeclared))
        self.privacy_ = ReleasePrivacyReport(
            mu=mu, extra_delta=0.0, mechanism=VOTE_MECHANISM,
            releases=tuple((f"{name}: type vote", share) for name in undeclared),
            notes=(f"sigma = {sigma:.6g} on each count",),
        )
        return self
