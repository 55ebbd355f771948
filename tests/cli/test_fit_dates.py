"""``skdpgd fit --date``: a CSV file's ISO 8601 dates read as decimal years (UTC).

A CSV file's cells are text, so an undeclared date column is voted categorical (no cell is
a number); declared with ``--date`` (or the config's ``dates``), each cell is read by one
public rule (Python's ``fromisoformat``, offsets to UTC; anything else missing) and the
vectorizer reads the column as decimal years, a numeric column with a private range.
"""

import numpy as np
import pytest

from skdpgd._cli import main
from skdpgd.preprocessing._cells import to_datetimes
from skdpgd.preprocessing._table_schema import TableSchema

pd = pytest.importorskip("pandas")

YEAR = 365.2425 * 86400.0


def _dated_csv(path, n=3000, seed=0, with_target=True):
    rng = np.random.default_rng(seed)
    seconds = rng.uniform(0.0, 20 * 365 * 86400.0, n)
    when = pd.Timestamp("1990-01-01") + pd.to_timedelta(seconds, unit="s")
    z = rng.normal(size=n)
    y = 0.5 * seconds / YEAR + z + rng.normal(0.0, 1.0, n)
    frame = pd.DataFrame({"visit": when.strftime("%Y-%m-%dT%H:%M:%S"), "z": z})
    frame.loc[rng.random(n) < 0.05, "visit"] = ""
    if with_target:
        frame["y"] = y
    frame.to_csv(path, index=False)
    return path, y


def test_the_cell_rule_reads_iso_texts_and_datetimes_in_utc_and_nothing_else():
    cells = np.array(["2000-01-01", "2000-01-01T05:00:00+02:00", "2019-06-30 12:00", "",
                      "NA", "abc", "3.5", None, 7, "2000-13-01"], dtype=object)
    got = to_datetimes(cells)
    expected = np.array(["2000-01-01T00:00", "2000-01-01T03:00", "2019-06-30T12:00"]
                        + ["NaT"] * 7, dtype="datetime64[us]")
    np.testing.assert_array_equal(got, expected)
    aware = np.array([pd.Timestamp("2001-01-01", tz="Asia/Tokyo")], dtype=object)
    assert to_datetimes(aware)[0] == np.datetime64("2000-12-31T15:00", "us")
    # a column already of datetimes (pd.read_csv(..., parse_dates=...)) is kept
    parsed = pd.to_datetime(["2001-01-01", None]).to_numpy()
    np.testing.assert_array_equal(to_datetimes(parsed), parsed.astype("datetime64[us]"))


def test_the_schema_reads_declared_dates_the_same_from_text_and_from_a_frame(tmp_path):
    path, _ = _dated_csv(tmp_path / "t.csv", n=50, with_target=False)
    schema = TableSchema(["visit", "z"], numeric=["z"], dates=["visit"])
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    out = schema.fit(text).transform(text)
    assert str(out["visit"].dtype) == "datetime64[us]" and schema.numeric_columns_ == [
        "visit", "z"]
    parsed = pd.read_csv(path, parse_dates=["visit"])
    np.testing.assert_array_equal(schema.transform(parsed)["visit"].to_numpy(),
                                  out["visit"].to_numpy())
    # a schema saved before the parameter existed reads no date column
    del schema.dates
    assert str(schema.transform(text)["visit"].dtype) == "float64"
    with pytest.raises(ValueError, match="both numeric and categorical"):
        TableSchema(["visit"], categorical=["visit"], dates=["visit"]).fit(text)


def test_fit_with_a_date_flag_reads_years_and_predicts_new_files(tmp_path, capsys):
    train, _ = _dated_csv(tmp_path / "train.csv")
    new, _ = _dated_csv(tmp_path / "new.csv", n=500, seed=1, with_target=False)
    model = tmp_path / "m.joblib"
    assert main(["fit", str(train), "--target", "y", "--model", "ridge", "--epsilon", "1",
                 "--date", "visit", "--random-state", "0", "--output", str(model)]) == 0
    out = capsys.readouterr().out
    line = next(t for t in out.splitlines() if t.strip().startswith("visit:"))
    assert "numeric (declared)" in line and "years private" in line and len(line) <= 100
    assert main(["predict", str(model), str(new)]) == 0
    predictions = np.array(capsys.readouterr().out.split()[1:], dtype=float)
    assert predictions.size == 500 and np.all(np.isfinite(predictions))
    # the signal of the dates is kept: the model fits the training target well
    import joblib

    bundle = joblib.load(model)
    frame = pd.read_csv(train)
    assert bundle["pipeline"].score(frame.drop(columns="y"), frame["y"]) > 0.8
    # undeclared, the same column is text to the vote: categorical, its signal lost
    assert main(["fit", str(train), "--target", "y", "--model", "ridge", "--epsilon", "1",
                 "--random-state", "0", "--output", str(tmp_path / "plain.joblib")]) == 0
    plain = capsys.readouterr().out
    assert "visit: categorical (vote)" in plain


def test_dates_in_the_config_and_their_refusals(tmp_path, capsys):
    train, _ = _dated_csv(tmp_path / "train.csv", n=600)
    config = tmp_path / "c.json"
    config.write_text('{"target": "y", "model": "ridge", "epsilon": 1, "dates": ["visit"]}')
    assert main(["fit", str(train), "--config", str(config), "--random-state", "0",
                 "--output", str(tmp_path / "m.joblib")]) == 0
    assert "years private" in capsys.readouterr().out
    assert main(["fit", str(train), "--target", "y", "--model", "ridge", "--epsilon", "1",
                 "--date", "when", "--output", str(tmp_path / "x.joblib")]) != 0
    assert "not in the file" in capsys.readouterr().err
    assert main(["fit", str(train), "--target", "y", "--model", "ridge", "--epsilon", "1",
                 "--date", "visit", "--categorical", "visit",
                 "--output", str(tmp_path / "x.joblib")]) != 0
    assert "both numeric" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"target": "y", "model": "ridge", "epsilon": 1, "dates": "visit"}')
    assert main(["fit", str(train), "--config", str(bad),
                 "--output", str(tmp_path / "x.joblib")]) != 0
    assert "dates must be a list of column names" in capsys.readouterr().err


# -- dates in another spelling: --date-format (a public strptime format) --------------------

def test_the_cell_rule_reads_a_public_format_and_only_that():
    cells = np.array(["03/04/2019", "12/31/1999 ", "2019-03-04", "13/01/2019", "", None],
                     dtype=object)
    got = to_datetimes(cells, date_format="%m/%d/%Y")
    expected = np.array(["2019-03-04", "1999-12-31"] + ["NaT"] * 4, dtype="datetime64[us]")
    np.testing.assert_array_equal(got, expected)
    # an offset in the format is converted to UTC, as an ISO offset is
    zoned = to_datetimes(np.array(["04.03.2019 10:00 +0200"], dtype=object),
                         date_format="%d.%m.%Y %H:%M %z")
    assert zoned[0] == np.datetime64("2019-03-04T08:00", "us")


def test_fit_with_a_date_format_reads_years_and_predicts_in_the_same_format(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 3000
    days = rng.uniform(0.0, 20 * 365.0, n)
    when = pd.Timestamp("1990-01-01") + pd.to_timedelta(days, unit="D")
    z = rng.normal(size=n)
    y = 0.5 * days / 365.2425 + z + rng.normal(0.0, 1.0, n)
    frame = pd.DataFrame({"visit": when.strftime("%m/%d/%Y"), "z": z, "y": y})
    frame.to_csv(tmp_path / "train.csv", index=False)
    model = tmp_path / "m.joblib"
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "y", "--model", "ridge",
                 "--epsilon", "1", "--date", "visit", "--date-format", "%m/%d/%Y",
                 "--random-state", "0", "--output", str(model)]) == 0
    assert "years private" in capsys.readouterr().out
    import joblib

    pipeline = joblib.load(model)["pipeline"]
    text = pd.read_csv(tmp_path / "train.csv", dtype=str, keep_default_na=False)
    assert pipeline.score(text.drop(columns="y"), frame["y"]) > 0.8  # measured: 0.89
    # without the format every cell is missing: the column holds no signal
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "y", "--model", "ridge",
                 "--epsilon", "1", "--date", "visit", "--random-state", "0",
                 "--output", str(tmp_path / "iso.joblib")]) == 0
    capsys.readouterr()
    iso = joblib.load(tmp_path / "iso.joblib")["pipeline"]
    assert iso.score(text.drop(columns="y"), frame["y"]) < 0.3
    # the saved schema keeps the format; one saved before the parameter existed reads
    # ISO 8601 (these cells are then missing)
    schema = pipeline.steps[0][1]
    assert schema.date_format == "%m/%d/%Y"
    assert not schema.transform(text)["visit"].isna().any()
    del schema.date_format
    assert schema.transform(text)["visit"].isna().all()


def test_a_date_format_is_refused_before_any_cell_is_read(tmp_path, capsys):
    absent = tmp_path / "no-such-file.csv"  # the refusals come before the file is opened
    base = ["fit", str(absent), "--target", "y", "--model", "ridge", "--epsilon", "1",
            "--output", str(tmp_path / "x.joblib")]
    assert main([*base, "--date", "visit", "--date-format", "%Q"]) != 0
    assert "bad directive" in capsys.readouterr().err
    assert main([*base, "--date-format", "%Y"]) != 0
    assert "needs date columns" in capsys.readouterr().err
    assert main([*base, "--date", "visit", "--date-format", "Y-m-d"]) != 0
    assert "strptime format" in capsys.readouterr().err
