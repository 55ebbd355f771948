r"""Every column of a raw table encoded by its type, privately: :class:`DPTableVectorizer`."""


import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..accounting import ReleasePrivacyReport
from ..utils._sklearn_compat import HasMethods
from ._column_maps import check_inference_options, with_inference_options
from ._column_reading import reading_once
from ._feature_names import distinct_feature_names
from ._missing import DEFAULT_MISSING_STRINGS
from ._private_step import PrivateStepMixin
from ._schema import table_schema
from ._vectorizer_fit import fit_columns, set_fitted_attributes
from ._vectorizer_plan import count_releases, plan_columns, type_sources
from ._vectorizer_summary import summary_frame, summary_text, warn_fallbacks
from ._vectorizer_transform import check_columns, encode_table

_MECHANISM = (
    "numeric ranges: two Gaussian histograms per column in its share (mu^2 1/4 : 3/4: a public "
    "log grid, then equal cells of 1/32 of the first range over it and one public cell beyond "
    "each end, or the grid again), replace-one L2 "
    "sensitivity sqrt(2) (Dong, Roth and Su 2022, Thm 2.7); categories: Gaussian sparse "
    "histogram with threshold 1 + sigma * Phi^-1(1 - delta0) (Korolova et al. 2009; Wilkins "
    "et al. 2024); equal mu^2 per share (docs/theory.md#table-vectorizer)"
)


class DPTableVectorizer(PrivateStepMixin, TransformerMixin, BaseEstimator):
    r"""Encode every column of a raw table by its type, privately (accounted).

    In the spirit of skrub's ``TableVectorizer``: give it a pandas or polars DataFrame
    (or a NumPy array) as read from a file, and it returns a numeric matrix whose rows
    have a norm bound known from the construction (``row_norm_bound_``, 1 by default),
    ready for an skdpgd estimator with ``data_norm=row_norm_bound_``. What it learns
    from the data is released by Gaussian mechanisms and accounted in ``privacy_``
    (a ``ReleasePrivacyReport``, ``skdpgd.accounting._release``); everything else is
    public.

    Column types come from public information or from an accounted vote, never read
    from the values unaccounted (``types``): a declared type (``column_types``,
    ``bounds``, ``categories``), a dtype the user set on purpose (numbers, bool,
    category), and for object and string columns, whose dtype ``pd.read_csv`` inferred
    from the private values (one text cell makes a column text; a NumPy object array
    makes every column object), the private type vote (one Gaussian release of each
    column's count of number cells minus text cells, mu-GDP:
    :ref:`type-vote`). Then, by type:

    - **numeric** (int, float, nullable; datetimes and dates, read as decimal years in
      UTC, :math:`1970 + s/(365.2425 \cdot 86400)` for s seconds after 1970-01-01, and
      durations, read as days: a fixed public map of each cell, NaT missing; ``bounds``
      for such a column are given in those units): a range [low, high], either public (``bounds``,
      free) or private: two Gaussian-noised histograms in the column's one share (its
      :math:`\mu^2` split 1/4 : 3/4, composing to the share), the first over a public log
      grid (cells :math:`\pm 2^{k/2}`), the second on 32 equal cells inside the first
      range, continued at that width over one public cell beyond each end, where that
      range lies within two cells on one side of 0 (years, codes, sensor
      readings), else over the public grid again, averaged with the first; cells below a
      family-wise threshold zeroed, the range from the lowest and highest surviving cells,
      each end extended over adjacent cells above a lower sequential threshold (tails)
      (:ref:`two releases in a column's share <column-range>`). Where a public rule says
      log (a heavy tail: non-negative,
      range above 20 times the distance from low to the private median; or a positive
      range spanning a factor of 10 or more) and ``log1p`` does not decide, the column gives
      both its linear map and its log map (``name``, ``name__log``); for inference
      (``log1p=False``, what a DPPipeline sets when its estimator has ``inference=True``)
      one linear map. Then scaled to [0, 1]
      and clipped. A column where no cell survives (all missing, too few rows for the
      noise) falls back to a public symmetric log map over the whole grid, and the report's
      notes say so.
    - **categorical** (object, string, category): a public category list
      (``categories``, free), private discovery (the values whose noisy count passes a
      threshold; additive delta accounted), or hashing into ``n_buckets`` public
      buckets (free); unlisted values go to an ``__other`` column.
    - **boolean**: one 0/1 column.
    - periods, intervals, times of day, complex and other dtypes are refused (the error
      names the column and its dtype); ``column_types={"col": "drop"}`` drops a column.
    - a row index written as an unnamed first column (its header ``""`` or
      ``"Unnamed: 0"``, what ``pd.read_csv`` gives for an R or pandas export) is dropped
      by that name, as the command line drops it, unless a parameter declares it; the
      summary says so.

    Missing values in every spelling (``np.nan``, ``math.nan``, ``None``, ``pd.NA``,
    ``pd.NaT``, polars null, and the strings in ``missing_values``) are imputed
    (numeric: the private median, or the midpoint of a public range; next to an
    indicator in a pipeline whose estimator fits an intercept, the value written 0) and
    flagged in a ``__missing`` column when the dtype may hold them (float, nullable,
    object and string dtypes; every polars column), decided from the schema, never from
    the data.
    Categorical blocks always have a ``__missing`` column. No error depends on a value.

    Parameters
    ----------
    epsilon : float, default=1.0
        Budget of a standalone ``fit`` (inside ``skdpgd.make_dp_pipeline`` the
        pipeline gives the step its share instead). ``np.inf``: exact counts.
    delta : float or "auto", default="auto"
        Delta of a standalone ``fit``; ``"auto"`` is :math:`\min(10^{-5}, 1/(10n))`.
        When a column's categories are discovered, 10% of it is the thresholds'
        additive delta (``STANDALONE_EXTRA_DELTA_SHARE``, as every private step).
    bounds : dict or None, default=None
        Public ranges ``{column: (low, high)}``; such a column costs nothing.
    categories : dict or None, default=None
        Per column: a public list of categories (free), ``"discover"`` or ``"hash"``.
    log1p : "auto", False, dict or list, default="auto"
        ``"auto"``: the log rules on private ranges (heavy tail or a span of 10 or more:
        the column's linear and log maps, two features), no log on public ones, and
        False in a DPPipeline whose estimator has ``inference=True``; False: one linear
        map per column (no rule, no second scale: each coefficient per unit of its
        column); a dict ``{column: bool}`` overrides single columns (the rule for the
        others); a list names exactly the columns to log (no rule). Releases unchanged.
    categorical : {"discover", "hash"}, default="discover"
        What a categorical column without a public list gets.
    n_buckets : int, default=16
        Hash buckets per hashed column.
    column_types : dict or None, default=None
        Public overrides ``{column: "numeric" | "categorical" | "drop"}`` (for an array,
        the keys are column positions). A numeric column from an object column reads
        every value that is not a number as missing.
    types : {"auto", "vote", "dtype"}, default="auto"
        Where undeclared types come from. ``"auto"``: numeric, bool and category dtypes
        as they are, object and string columns by the private vote; ``"vote"``: every
        numeric (but a datetime or duration), object, string and category column by the
        vote; ``"dtype"``: every
        column by its dtype (object and string columns categorical), which treats the
        dtypes as public. The vote is one more release of the step's budget: the mu it
        needs on the public n rows, at most an equal part, the rest going to the other
        releases; a voted column is planned as one release of either type.
    missing_values : tuple of str, default=DEFAULT_MISSING_STRINGS
        Strings read as missing (pandas.read_csv's defaults).
    add_indicator : {"auto", "zero", False}, default="auto"
        ``"auto"``: a missing-indicator column for every numeric or boolean column whose
        dtype may hold a missing value, a missing numeric cell imputed (the private
        median, or the midpoint of a public range); ``"zero"`` (what ``"auto"`` means in
        a DPPipeline whose estimator fits an intercept or has ``inference=True``):
        the same indicators, a
        missing numeric cell written as 0 (the midpoint of the range centred, its low
        end otherwise): next to its indicator the value is a free choice of the model's
        parametrisation, and at 0 an indicated column's block adds nothing to the row
        norm bound; ``False``: no indicator (missing values still imputed). Releases
        unchanged.
    scale_rows : bool, default=True
        Divide every output row by the construction's norm bound so that
        ``row_norm_bound_`` is 1.
    one_hot_reference : {"auto", None, "first"}, default="auto"
        ``"first"``: each one-hot block drops its first column, the reference level (the
        first kept category in the released order; ``__other`` when none is kept;
        ``__hash0``), and its ``__missing`` column when the dtype cannot hold a missing
        value, so that a model with an intercept can identify the rest (contrasts against
        the reference; ``reference_levels_``). ``"auto"``: None standalone, ``"first"``
        in a DPPipeline whose estimator has ``inference=True``. Releases unchanged.
    centre : {"auto", False, True}, default="auto"
        True: numeric values are mapped to [-1, 1] (the public midpoint of the range to
        0) instead of [0, 1]. ``"auto"``: False standalone, True in a DPPipeline whose
        estimator fits an intercept (or has ``inference=True``): at the same row-norm
        bound each numeric column spans twice the amplitude, and the intercept absorbs
        the shift. Releases and ``row_norm_bound_`` unchanged.
    ledger : skdpgd.PrivacyLedger or None, default=None
        Charged by a standalone ``fit`` with the planned cost before any value is read
        (a pipeline refuses a step with its own ledger: give it to the pipeline).
    random_state : None, int or numpy.random.Generator, default=None
        The noise source (None: fresh OS entropy; a fixed seed is for experiments only).

    Attributes
    ----------
    encodings_ : list
        One encoding per kept column (:class:`NumericEncoding`, :class:`BooleanEncoding`,
        :class:`CategoricalEncoding`): its released or public constants.
    bounds_ : dict
        ``{column: (low, high)}`` of the numeric columns.
    log1p_ : dict
        ``{column: bool}``, whether the column is on a log scale (``log1p`` or, for a
        positive private range, the log ratio).
    categories_ : dict
        ``{column: list}`` of the categorical columns' categories (hashed: empty).
    reference_levels_ : dict
        ``{column: output name}`` of each one-hot block's dropped reference level
        (empty unless ``one_hot_reference="first"``).
    row_norm_bound_ : float
        Every output row has Euclidean norm at most this (1.0 with ``scale_rows``).
    row_divisor_ : float
        The public divisor of every encoded row (the blocks' norm bound with
        ``scale_rows``, else 1).
    types_ : dict
        ``{column: (type, source)}`` of the kept columns: ``"numeric"``,
        ``"categorical"`` or ``"boolean"``, from ``"dtype"``, ``"declared"`` or
        ``"vote"``. :meth:`~skdpgd.preprocessing.DPTableVectorizer.summary` and
        :meth:`~skdpgd.preprocessing.DPTableVectorizer.summary_text` give every decision per
        column (a :class:`~skdpgd.exceptions.PreparationFallbackWarning` names the
        columns that fell back to a public default).
    privacy_ : ReleasePrivacyReport
        What was released and what it cost (mu, extra_delta, the releases per column).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X has string column names.

    See Also
    --------
    BoundedScaler : Public bounds, one column at a time.
    public_one_hot : Public category lists.

    Notes
    -----
    Budget inside the step: the step's :math:`\mu` is split equally in
    :math:`\mu^2` over its releases (one per numeric column without a public bound,
    one per categorical column whose categories are discovered): each is
    :math:`\mu/\sqrt k`-GDP and the composition is exactly :math:`\mu`-GDP (Dong, Roth
    and Su 2022, Corollary 3.3). The additive delta is split equally over the
    discoveries. Proofs: :ref:`table-vectorizer`.

    Row norm bound: every block has squared norm at most 1 (one value in [0, 1]; one
    1 in a one-hot block), or :math:`1 + m^2` for a numeric value imputed with
    :math:`m` next to its indicator (1 with ``add_indicator="zero"``, :math:`m = 0`); the
    raw bound is :math:`\sqrt{\sum_j b_j^2}`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgd.preprocessing import DPTableVectorizer
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"age": rng.integers(18, 90, 5000),
    ...                    "city": rng.choice(["Lyon", "Oslo", None], 5000)})
    >>> vec = DPTableVectorizer(epsilon=1.0, random_state=0).fit(df)
    >>> vec.categories_["city"], vec.row_norm_bound_
    (['Lyon', 'Oslo'], 1.0)
    >>> list(vec.get_feature_names_out())
    ['age', 'city_Lyon', 'city_Oslo', 'city__other', 'city__missing']
    """

    _standalone_mechanism = _MECHANISM

    #: The "auto" options a DP pipeline decides when its estimator has ``inference=True``
    #: (skdpgd.pipeline._checks.INFERENCE_PREPARATION): this step declares that it reads
    #: them with that meaning; a step without the declaration is left as it is.
    __skdpgd_inference_options__ = ("one_hot_reference", "centre", "log1p", "add_indicator")
    #: The options it reads for any other estimator with an intercept
    #: (skdpgd.pipeline._checks.INTERCEPT_PREPARATION: numeric values centred, a missing
    #: cell next to its indicator written at 0).
    __skdpgd_intercept_options__ = ("centre", "add_indicator")

    _parameter_constraints = {
        "epsilon": "no_validation",
        "delta": "no_validation",
        "bounds": [dict, None],
        "categories": [dict, None],
        "log1p": "no_validation",
        "categorical": "no_validation",
        "n_buckets": "no_validation",
        "column_types": [dict, None],
        "types": "no_validation",
        "missing_values": "no_validation",
        "add_indicator": "no_validation",
        "scale_rows": ["boolean"],
        "one_hot_reference": "no_validation",
        "centre": "no_validation",
        "ledger": [HasMethods(["charge_event"]), None],
        "random_state": ["random_state"],
    }

    def __init__(self, *, epsilon=1.0, delta="auto", bounds=None, categories=None,
                 log1p="auto", categorical="discover", n_buckets=16, column_types=None,
                 types="auto", missing_values=DEFAULT_MISSING_STRINGS, add_indicator="auto",
                 scale_rows=True, one_hot_reference="auto", centre="auto", ledger=None,
                 random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.categories = categories
        self.log1p = log1p
        self.categorical = categorical
        self.n_buckets = n_buckets
        self.column_types = column_types
        self.types = types
        self.missing_values = missing_values
        self.add_indicator = add_indicator
        self.scale_rows = scale_rows
        self.one_hot_reference = one_hot_reference
        self.centre = centre
        self.ledger = ledger
        self.random_state = random_state

    # -- the public plan: from the schema and the parameters only -------------------

    def _plan(self, X):
        """Per kept column: (position, label, name, kind, nullable, mode); public only."""
        return plan_columns(self, X)

    def _n_releases(self, plan):
        return count_releases(plan)

    def _privacy_plan(self, X):
        """(number of Gaussian releases, number of thresholded ones), from X's schema.

        Public (dtypes and parameters only): a pipeline can ask a step whether it
        needs a budget (0 releases: it spends nothing) and an additive delta. Without X
        (a plan made before the table is seen) the answer comes from the parameters: it
        may spend, and it thresholds unless no column can be discovered
        (``categorical="hash"`` and no ``"discover"`` in ``categories``).
        """
        if X is None:
            per_column = (self.categories or {}).values()
            discovers = self.categorical == "discover" or any(
                isinstance(mode, str) and mode == "discover" for mode in per_column)
            return 1, int(discovers)
        plan, _ = self._plan(X)
        return self._n_releases(plan)

    # -- fitting ------------------------------------------------------------------

    def _reading(self, X):
        """Each text column of X grouped once for the vote, the categories and the
        transform (:func:`~skdpgd.preprocessing._column_reading.reading_once`)."""
        return reading_once(X)

    def fit_transform(self, X, y=None, sample_ids=None):
        """Fit standalone on X (as :meth:`fit`), then transform X.

        The same output as ``fit(X).transform(X)``; each text column's equal cells are
        grouped once for both.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape (n_samples, n_features)
            The raw table.
        y : None
            Ignored.
        sample_ids : array-like of shape (n_samples,) or None, default=None
            Public ids of the rows, passed to ``ledger`` only.

        Returns
        -------
        X_out : ndarray of shape (n_samples, n_features_out), float64
            Every row of Euclidean norm at most ``row_norm_bound_``.
        """
        with self._reading(X):
            return self.fit(X, y, sample_ids=sample_ids).transform(X)

    def _fit_private(self, X, y=None, *, mu, extra_delta, random_state):
        """Fit spending at most ``mu``-GDP and ``extra_delta`` (the private-step protocol).

        Parameters
        ----------
        X : table
            The raw table.
        y : None
            Ignored.
        mu : float
            GDP budget of the whole step (split equally in mu^2 over its releases).
        extra_delta : float
            Additive delta the thresholded releases may spend (split equally); with 0,
            columns to discover are hashed instead (and the notes say so).
        random_state : None, int or numpy.random.Generator
            The noise source.

        Returns
        -------
        self : DPTableVectorizer
        """
        mu, extra_delta = float(mu), float(extra_delta)
        if not (mu >= 0.0) or not (0.0 <= extra_delta < 1.0):
            raise ValueError(f"need mu >= 0 and 0 <= extra_delta < 1, got {mu!r}, {extra_delta!r}.")
        check_inference_options(self.one_hot_reference, self.centre)
        plan, labels = self._plan(X)
        with self._reading(X):  # the vote and the categories share each column's groups
            encodings, types, releases, notes, (spent_mu, spent_delta) = fit_columns(
                self, X, plan, mu, extra_delta, random_state)
        _, _, can_miss, self._dtypes = table_schema(X)
        self._from_array = not hasattr(X, "columns")
        self.encodings_ = with_inference_options(  # can_miss: from each dtype (public)
            encodings, {p[2]: bool(can_miss[p[0]]) for p in plan},
            one_hot_reference=self.one_hot_reference, centre=self.centre,
            add_indicator=self.add_indicator)
        self.reference_levels_ = {e.name: e.reference_name for e in self.encodings_
                                  if getattr(e, "reference_name", None)}
        sources = type_sources(self, plan)
        self.types_ = {name: (kind, sources[name]) for name, kind in types.items()}
        set_fitted_attributes(self, labels)
        self.privacy_ = ReleasePrivacyReport(
            mu=spent_mu, extra_delta=spent_delta, mechanism=_MECHANISM,
            releases=tuple(releases), notes=tuple(notes),
        )
        warn_fallbacks(self)
        return self

    # -- transforming (post-processing of the release) ----------------------------

    def transform(self, X):
        """Encode X row by row with the fitted (released) constants.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape (n_samples, n_features)
            A table with the columns seen in fit (any dtype: values are converted as
            each column's encoding needs, never with an error on a value).

        Returns
        -------
        X_out : ndarray of shape (n_samples, n_features_out), float64
            Every row of Euclidean norm at most ``row_norm_bound_``.
        """
        check_is_fitted(self, "encodings_")
        check_columns(self, X)
        return encode_table(self, X)

    def summary(self):
        """Per input column: its type and where it came from, and what was decided.

        Every entry is released (post-processing of the accounted releases) or public
        (the parameters, the column names and dtypes): never a raw data value, and never
        a count that was not released (how many values went to ``__other`` is not).

        Returns
        -------
        pandas.DataFrame
            Indexed by column: ``dtype``; ``type`` (numeric, categorical, boolean,
            dropped) and ``type_from`` (``"dtype"``, ``"declared"`` or ``"vote"``);
            numeric: ``low``, ``high``, ``range_from`` (public, private, default),
            ``rule`` (linear, log1p, logratio, symlog) and ``imputed`` (the value, in the
            column's units, a missing cell is mapped to); ``missing_indicator``;
            categorical: ``categories`` (kept, or buckets) and ``encoding``; and
            ``fallback``: what fell back to a public default, empty otherwise.
        """
        check_is_fitted(self, "encodings_")
        return summary_frame(self)

    def summary_text(self, type_from=None):
        """The :meth:`~skdpgd.preprocessing.DPTableVectorizer.summary` as readable text.

        One line per column, fallbacks flagged.

        Parameters
        ----------
        type_from : dict or None, default=None
            ``{column: source}`` for types an earlier step decided (the command line's
            schema step: ``"declared"`` or ``"vote"``); by default, this step's own.

        Returns
        -------
        text : str
            A header line, then per column its dtype, type and source, range and rule
            or categories, missing-value handling and ``[FALLBACK: ...]`` if any.
        """
        check_is_fitted(self, "encodings_")
        return summary_text(self, type_from)

    @property
    def row_divisor_(self):
        """The public divisor of every encoded row (1 without ``scale_rows``)."""
        check_is_fitted(self, "encodings_")
        scaled = self.scale_rows and self._raw_norm_bound > 0
        return float(self._raw_norm_bound) if scaled else 1.0

    def get_feature_names_out(self, input_features=None):
        """Output column names (``col``, ``col__missing``, ``col_<category>``, ...).

        Distinct: a category whose name would meet a reserved name (``col__other``,
        ``col__missing``, another column) gets ``_level`` appended
        (:mod:`skdpgd.preprocessing._feature_names`).

        Parameters
        ----------
        input_features : None
            Ignored (the names come from the fitted columns).

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column, in output order.
        """
        check_is_fitted(self, "encodings_")
        blocks = [encoding.named_levels() if hasattr(encoding, "named_levels")
                  else [(name, False) for name in encoding.feature_names()]
                  for encoding in self.encodings_]
        return np.asarray(distinct_feature_names(blocks), dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.non_deterministic = True
        return tags
