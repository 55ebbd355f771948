"""Datetime, date and duration columns read as numbers by a fixed public map.

A datetime is read as a decimal year in UTC, 1970 + s / (365.2425 * 86400) for s seconds
after 1970-01-01T00:00 UTC, and a duration as days (``_schema.temporal_to_float``); NaT is
a missing cell. The column is then a numeric column like any other: a private range, or
public ``bounds`` in those units.
"""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._schema import table_schema, temporal_to_float

YEAR = 365.2425 * 86400.0


def _decimal_years(timestamps):
    """The map written independently: seconds since the epoch from pandas, in years."""
    epoch = pd.Timestamp("1970-01-01", tz="UTC")
    out = []
    for t in timestamps:
        if pd.isna(t):
            out.append(np.nan)
            continue
        t = pd.Timestamp(t)
        t = t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")
        out.append(1970.0 + (t - epoch).total_seconds() / YEAR)
    return np.array(out)


def test_datetimes_are_decimal_years_and_durations_days_in_every_unit():
    stamps = ["1970-01-01", "2000-01-01T12:00", None, "2019-06-30T23:59:59", "1871-05-04"]
    for unit in ("s", "ms", "us", "ns"):
        values = pd.Series(pd.to_datetime(stamps, format="ISO8601")).to_numpy().astype(
            f"datetime64[{unit}]")
        assert_allclose(temporal_to_float(values), _decimal_years(stamps), rtol=0,
                        atol=1e-9)
    days = np.array([0, 36, -12, 1000], dtype="timedelta64[h]")
    assert_array_equal(temporal_to_float(days), np.array([0.0, 1.5, -0.5, 1000 / 24]))
    assert np.isnan(temporal_to_float(np.array(["NaT"], dtype="timedelta64[ms]"))[0])
    # months and years: their first day
    months = np.array(["2000-03", "NaT"], dtype="datetime64[M]")
    assert_allclose(temporal_to_float(months)[0], _decimal_years(["2000-03-01"])[0],
                    rtol=0, atol=1e-9)
    # the extremes of NumPy's ticks give finite years, in every unit (months and years
    # are converted to days without wrapping), and only NaT is missing
    extremes = np.array([np.iinfo(np.int64).min + 1, np.iinfo(np.int64).max, -2**62, 2**62],
                        dtype="int64")
    for unit in ("s", "ns", "D", "M", "Y", "3M"):
        years = temporal_to_float(extremes.view(f"datetime64[{unit}]"))
        assert np.all(np.isfinite(years))
        assert years[0] < 1970 < years[1] and years[2] < 1970 < years[3]


def test_the_schema_reads_temporal_dtypes_as_nullable_numbers():
    n = 4
    frame = pd.DataFrame({
        "when": pd.to_datetime(["2001-01-01"] * n),
        "aware": pd.to_datetime(["2001-01-01"] * n).tz_localize("Europe/Paris"),
        "took": pd.to_timedelta([1] * n, unit="h"),
        "month": pd.period_range("2000-01", periods=n, freq="M"),
    })
    _, kinds, nullable, _ = table_schema(frame)
    assert kinds == ["numeric", "numeric", "numeric", "unsupported"]
    assert nullable[:3] == [True, True, True]
    _, kinds, nullable, _ = table_schema(np.array([["2001-01-01"]], dtype="datetime64[D]"))
    assert kinds == ["numeric"] and nullable == [True]
    # durations in months or years have no fixed length: still refused
    _, kinds, _, _ = table_schema(np.array([[1]], dtype="timedelta64[Y]"))
    assert kinds == ["unsupported"]
    with pytest.raises(TypeError, match="'month' has dtype period"):
        DPTableVectorizer(epsilon=1.0, random_state=0).fit(frame)


def _dated_table(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    day = rng.integers(0, 20 * 365, n)
    when = pd.Timestamp("1990-01-01") + pd.to_timedelta(day, unit="D")
    when = pd.Series(when)
    when[rng.random(n) < 0.05] = pd.NaT
    stay = pd.Series(pd.to_timedelta(rng.gamma(2.0, 12.0, n), unit="h"))
    years = (day / 365.2425) - 10.0
    y = 0.3 * years + 0.05 * stay.dt.total_seconds().to_numpy() / 3600 + rng.normal(0, 1, n)
    return pd.DataFrame({"when": when, "stay": stay}), y


def test_a_date_column_through_a_pipeline_keeps_its_spread_and_its_signal():
    X, y = _dated_table()
    pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound="auto"), epsilon=2.0,
                            random_state=0).fit(X, y)
    vectorizer = pipe.pipeline_[0]
    low, high = vectorizer.bounds_["when"]
    assert 1970 < low <= 1990.5 and 2009.5 <= high < 2030  # the years, not the epoch's
    assert "in decimal years (UTC)" in vectorizer.summary_text()
    assert "in days" in vectorizer.summary_text()
    assert vectorizer.get_feature_names_out()[:2].tolist() == ["when", "when__missing"]
    # a public range in years gives the same kind of model: the private one within .05
    public = make_dp_pipeline(DPTableVectorizer(bounds={"when": (1990.0, 2010.0),
                                                        "stay": (0.0, 8.0)}),
                              DPRidge(y_bound="auto"), epsilon=2.0, random_state=0).fit(X, y)
    assert pipe.score(X, y) > 0.5
    assert pipe.score(X, y) > public.score(X, y) - 0.05
    # the transform reads new rows by the same map; NaT is the missing indicator
    rows = vectorizer.transform(pd.DataFrame({"when": [pd.NaT, pd.Timestamp("2100-01-01")],
                                              "stay": [pd.Timedelta(0), pd.NaT]}))
    assert rows[0, 1] > 0 and rows[1, 1] == 0.0
    assert np.linalg.norm(rows, axis=1).max() <= 1.0 + 1e-12


def test_a_date_column_is_never_voted_and_costs_one_numeric_release():
    X, _ = _dated_table(n=3000)
    voted = DPTableVectorizer(types="vote", epsilon=1.0, random_state=0).fit(X)
    assert voted.types_["when"] == ("numeric", "dtype")
    assert voted.types_["stay"] == ("numeric", "dtype")
    plain = DPTableVectorizer(epsilon=1.0, random_state=0).fit(X)
    assert len(plain.privacy_.releases) == 2  # one range each, no vote


def test_polars_dates_datetimes_and_durations():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({
        "day": pl.Series(["2000-01-01", None, "2010-07-02"]).str.to_date(),
        "at": pl.Series(["2000-01-01T06:00:00", "2001-01-01T00:00:00", None]).str.to_datetime(
            time_zone="UTC"),
        "took": pl.Series([3_600_000, None, 7_200_000], dtype=pl.Duration("ms")),
    })
    _, kinds, nullable, _ = table_schema(frame)
    assert kinds == ["numeric"] * 3 and nullable == [True] * 3
    from skdpgd.preprocessing._schema import numeric_column

    assert_allclose(numeric_column(frame, 0, "day"),
                    _decimal_years(["2000-01-01", None, "2010-07-02"]), atol=1e-9, rtol=0)
    assert_allclose(numeric_column(frame, 1, "at"),
                    _decimal_years(["2000-01-01T06:00", "2001-01-01", None]), atol=1e-9,
                    rtol=0)
    assert_allclose(numeric_column(frame, 2, "took"), [1 / 24, np.nan, 2 / 24], rtol=1e-15)


def test_pyarrow_backed_temporal_columns_are_refused_not_read_as_missing():
    # pandas' ArrowDtype timestamps, dates and durations do not convert to NumPy's
    # datetime64 alike (a zoned timestamp or a date would come out as objects, every cell
    # then missing): refused by name and dtype, before any value is read
    pa = pytest.importorskip("pyarrow")
    stamps = pd.Series(pd.to_datetime(["2000-01-01", None]).tz_localize("UTC"))
    for column in (stamps.astype(pd.ArrowDtype(pa.timestamp("us", tz="Europe/Paris"))),
                   stamps.dt.tz_localize(None).astype(pd.ArrowDtype(pa.timestamp("us"))),
                   pd.Series([stamps[0].date(), None]).astype(pd.ArrowDtype(pa.date32())),
                   pd.Series(pd.to_timedelta([1, None], unit="h")).astype(
                       pd.ArrowDtype(pa.duration("ms")))):
        frame = pd.DataFrame({"when": column, "x": [1.0, 2.0]})
        assert table_schema(frame)[1][0] == "unsupported"
        with pytest.raises(TypeError, match="'when' has dtype"):
            DPTableVectorizer(epsilon=1.0, random_state=0).fit(frame)
