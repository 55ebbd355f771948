"""The command line reads the files people have: the dialect from the
header line, an unnamed index column dropped, errors naming the real problem, and a
vectorised read that gives every cell the value the per-cell rule gives its text."""

import joblib
import numpy as np
import pandas as pd
import pytest

from skdpgd._cli import main
from skdpgd._cli._csv import read_frame, sniff
from skdpgd.preprocessing._table_schema import TableSchema


def _semicolon_file(path, n=600):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, n)
    lines = ["weight;city;label"] + [
        f"{v:.3f}".replace(".", ",") + f";{c};{'yes' if v > 5 else 'no'}"
        for v, c in zip(x, rng.choice(["Lyon", "Oslo"], n), strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_semicolons_and_decimal_commas_are_read(tmp_path, capsys):
    data = _semicolon_file(tmp_path / "eu.csv")
    header, sep, decimal, _ = sniff(data)
    assert (header, sep, decimal) == (["weight", "city", "label"], ";", ",")
    out = tmp_path / "m.joblib"
    assert main(["fit", str(data), "--target", "label", "--classes", "no,yes", "--epsilon",
                 "4", "--numeric", "weight", "--random-state", "0", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "separator ';'" in printed and "decimal comma" in printed
    frame, _, _, _ = read_frame(data)
    assert frame["weight"].dtype == np.float64  # "1,234" read as 1.234
    assert main(["predict", str(out), str(data)]) == 0
    predictions = capsys.readouterr().out.split()[1:]
    truth = ["yes" if v > 5 else "no" for v in frame["weight"]]
    assert np.mean(np.array(predictions) == np.array(truth)) > 0.8


def test_unnamed_index_column_is_dropped_with_a_note(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=400), "y": rng.integers(0, 2, 400)})
    frame.to_csv(tmp_path / "pandas.csv")  # writes the index as an unnamed first column
    out = tmp_path / "m.joblib"
    assert main(["fit", str(tmp_path / "pandas.csv"), "--target", "y", "--classes", "0,1",
                 "--epsilon", "2", "--random-state", "0", "--output", str(out)]) == 0
    assert "first column '' dropped: an unnamed column is a row index" in capsys.readouterr().out
    assert joblib.load(out)["feature_columns"] == ["x"]
    (tmp_path / "r.csv").write_text('"","x","y"\n"1",0.5,1\n"2",-0.5,0\n"3",0.1,1\n')
    header, _, _, _ = sniff(tmp_path / "r.csv")  # R's write.csv: an empty name
    assert header[0] == ""
    assert list(read_frame(tmp_path / "r.csv")[0].columns) == ["x", "y"]


def test_errors_name_the_real_problem_and_no_line(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    rows = [f"{i},{i % 2}" for i in range(30)]
    rows[17] = "17,1,SECRET"
    path.write_text("a,y\n" + "\n".join(rows) + "\n")
    assert main(["fit", str(path), "--target", "y", "--classes", "0,1", "--epsilon", "1",
                 "--numeric", "a"]) == 2
    # the file's own path is named (public) and may hold digits (pytest-217/...): drop it
    err = capsys.readouterr().err.replace(str(path), "<path>")
    assert "different number of fields than the header (2, separated by ',')" in err
    assert "SECRET" not in err and "18" not in err and "17" not in err
    with pytest.raises(ValueError) as info:
        read_frame(path)
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_the_fast_read_gives_what_the_rule_gives_the_text(tmp_path):
    cells = {"n": ["01", "1.5", " 2 ", "inf", "", "NA", "1e3", "-0.1", "3", "?"],
             "m": ["1_000", "true", "x", "1.25", "nan", "7", "0.1", "1,5", "2", "?"],
             "c": ["a", "b", "a", "", "1.0", "1", "True", "b", " a ", "?"]}
    path = tmp_path / "t.csv"
    pd.DataFrame(cells).to_csv(path, index=False)
    fast, _, _, _ = read_frame(path, markers=["?"])
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    schema = TableSchema(["n", "m", "c"], numeric=["n", "m"], categorical=["c"],
                         missing_values=["?"]).fit(text)
    a, b = schema.transform(fast), schema.transform(text)
    for name in ("n", "m"):
        np.testing.assert_array_equal(a[name].to_numpy(), b[name].to_numpy())
    assert a["c"].tolist() == b["c"].tolist()


def test_account_plans_the_raw_table_pipeline(tmp_path, capsys):
    data = _semicolon_file(tmp_path / "eu.csv", n=300)
    assert main(["account", "--table", str(data), "--target", "label", "--model",
                 "logistic", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "n=300 rows" in out and "planned (upper bound)" in out
    for release in ("column_types", "vectorizer", "label set (no --classes: released "
                    "privately)", "model"):
        assert f"  {release}: mu=" in out
    assert main(["account", "--table", str(data), "--target", "label", "--epsilon", "1"]) == 2
    assert "--model is required" in capsys.readouterr().err
    assert main(["account", "--epsilon", "1"]) == 2  # an estimator plan needs n
    assert "--n is required" in capsys.readouterr().err
