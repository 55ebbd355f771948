"""The command line without a config: ``skdpgd fit`` through DPTableVectorizer, ``predict``.

Tiny CSV files (a few hundred rows), so every test runs in a second or two.
"""

import math

import joblib
import numpy as np
import pytest
from _chains import assert_chain_free_of, assert_no_original
from scipy.stats import norm

from skdpgd._cli import main
from skdpgd._cli._table import parse_classes, to_labels
from skdpgd.preprocessing._cells import classify, number_minus_text
from skdpgd.preprocessing._table_schema import PrivateTableSchema, TableSchema

pd = pytest.importorskip("pandas")

SECRET = "SECRETVALUE"  # a cell value that no message may quote


def _table(path, n=400, seed=0, target="label", holes=True):
    """age (ints, some empty), city (strings, some 'NA'), code (numeric codes, some empty),
    income (floats, some missing); label 1 when age > 50 (with 10% flips). ``holes=False``:
    age and income have no missing cell."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    city = rng.choice(["Lyon", "Oslo", "Rome"], n)
    income = np.round(rng.lognormal(10, 1, n), 2)
    label = (age > 50) ^ (rng.random(n) < 0.1)
    lines = [f"age,city,code,income,{target}"]
    for i in range(n):
        a = "" if holes and i % 17 == 3 else str(age[i])
        c = "NA" if i % 13 == 5 else city[i]
        k = "" if i % 11 == 7 else str(1 + i % 3)
        m = "NA" if holes and i % 19 == 2 else str(income[i])
        lines.append(f"{a},{c},{k},{m},{int(label[i])}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(autouse=True)
def _refusal_chains_hold_no_cell(monkeypatch):
    """Every refusal the command line prints as one line holds no cell in its chain either.

    (Its cause, context and arguments: tests/_chains.py.)"""
    import skdpgd._cli as cli

    original = cli._one_line

    def checked(exc):
        assert_chain_free_of(exc, (SECRET,))
        assert_no_original(exc)
        return original(exc)

    monkeypatch.setattr(cli, "_one_line", checked)


def _err_is_one_clean_line(err, *forbidden):
    assert err.startswith("skdpgd ") and err.count("\n") == 1 and "Traceback" not in err
    for text in forbidden:
        assert text not in err


# -- the per-cell rule ------------------------------------------------------------------

@pytest.mark.parametrize("value", [None, np.nan, math.nan, float("nan"), np.float64("nan"),
                                   np.float32("nan"), "", "  ", "NA", " NA ", "N/A", "null",
                                   "NaN", "nan"])
def test_every_missing_spelling_is_missing(value):
    assert classify(value)[0] == "missing"


@pytest.mark.parametrize("value", [None, np.nan, np.float32("nan"), pd.NA, pd.NaT,
                                   np.datetime64("NaT"), "", "  ", "NA", " NA ", "null",
                                   "-NaN", " nAn", "+nan", "x", "nana", "0", 0.0, 1, True,
                                   "1_000", "Male"])
def test_one_missing_rule_for_the_cli_and_the_transformers(value):
    # One rule: the command line's per-cell reading, the transformers' missing test and
    # their category keys agree on every spelling (the 19 strings and their padding).
    from skdpgd.preprocessing import DEFAULT_MISSING_STRINGS, is_missing
    from skdpgd.preprocessing._missing import category_key
    assert (classify(value)[0] == "missing") == is_missing(value)
    assert (category_key(value) is None) == is_missing(value)
    assert all(is_missing(f" {text} ") and classify(text)[0] == "missing"
               for text in DEFAULT_MISSING_STRINGS)


def test_pandas_missing_singletons_are_missing():
    assert classify(pd.NA)[0] == "missing" and classify(pd.NaT)[0] == "missing"


@pytest.mark.parametrize("value, text", [
    ("3", "3"), (3, "3"), (np.int64(3), "3"), (3.0, "3"), ("3.0", "3"), ("03", "3"),
    ("-1.5e3", "-1500"), (0.5, "0.5"), ("0.50", "0.5"), ("inf", "inf"),
])
def test_numbers_and_their_canonical_text(value, text):
    kind, number, canon = classify(value)
    assert kind == "number" and canon == text and number == float(text)


@pytest.mark.parametrize("value, text", [
    ("Male", "Male"), (" Male ", "Male"), (True, "True"), ("true", "True"),
    ("FALSE", "False"), ("1_000", "1_000"), ("<=50K", "<=50K"),
])
def test_text_cells(value, text):
    assert classify(value) == ("text", None, text)


def test_extra_markers_are_missing():
    assert classify("?", frozenset({"?"}))[0] == "missing" and classify("?")[0] == "text"


def test_number_minus_text_moves_by_at_most_two_when_one_cell_changes():
    # The sensitivity the vote's noise is calibrated to: replace each cell of a column
    # by each spelling of another kind and look at the change of the count.
    column = np.array(["1", "x", "", "2.5", "y"], dtype=object)
    base = number_minus_text(column)
    assert base == 2 - 2
    for i in range(len(column)):
        for other in ("7", "z", "", None, 3):
            changed = column.copy()
            changed[i] = other
            assert abs(number_minus_text(changed) - base) <= 2


# -- labels --------------------------------------------------------------------------------

def test_classes_flag_types():
    assert parse_classes("0,1") == [0, 1] and all(type(c) is int for c in parse_classes("0,1"))
    assert parse_classes("0.5,1.5") == [0.5, 1.5]
    assert parse_classes("yes,no") == ["yes", "no"]
    assert parse_classes("<=50K, >50K") == ["<=50K", ">50K"]


def test_labels_match_classes_by_canonical_text():
    y = to_labels(np.array(["1", "0", "1.0", " 0"], dtype=object), [0, 1])
    assert y.dtype == np.int64 and y.tolist() == [1, 0, 1, 0]
    y = to_labels(np.array([1, 0]), ["0", "1"])  # ints from pd.read_csv, string classes
    assert y.tolist() == ["1", "0"] and all(isinstance(v, str) for v in y)
    y = to_labels(np.array(["yes", "maybe"], dtype=object), ["yes", "no"])
    assert y.tolist() == ["yes", "maybe"]  # unlisted: kept, refused by the estimator


# -- the schema step -----------------------------------------------------------------------

def test_schema_reads_read_csv_dtype_str_and_raw_text_alike(tmp_path):
    path = _table(tmp_path / "t.csv", n=60)
    schema = TableSchema(["age", "city", "code", "income"], numeric=["age", "income"],
                         categorical=["city", "code"])
    plain, as_text = pd.read_csv(path), pd.read_csv(path, dtype=str, keep_default_na=False)
    assert plain["code"].dtype.kind == "f" and as_text["code"].dtype.kind in "OT"
    a = schema.fit(plain).transform(plain)
    b = schema.transform(as_text)
    pd.testing.assert_frame_equal(a, b)
    assert a["age"].dtype == np.float64 and a["city"].dtype == object
    # empty and NA cells are missing; the codes 1.0 (read_csv) and "1" (text) are "1"
    assert a["age"].isna().sum() == sum(1 for i in range(60) if i % 17 == 3)
    assert set(a["code"].dropna()) == {"1", "2", "3"}
    assert a["city"].isna().sum() == sum(1 for i in range(60) if i % 13 == 5)


def test_schema_ignores_extra_columns_and_names_missing_ones(tmp_path):
    path = _table(tmp_path / "t.csv", n=20)
    schema = TableSchema(["city", "age"], numeric=["age"], categorical=["city"])
    out = schema.fit(pd.read_csv(path)).transform(pd.read_csv(path))
    assert list(out.columns) == ["city", "age"]
    with pytest.raises(ValueError, match=r"no column\(s\) \['age'\]"):
        schema.transform(pd.read_csv(path).drop(columns="age"))


def test_private_vote_at_infinite_budget_is_the_majority():
    X = pd.DataFrame({"mostly_numbers": ["1", "2", "x", "", "4"],
                      "mostly_text": ["a", "b", "3", "", "c"]}, dtype=object)
    schema = PrivateTableSchema(["mostly_numbers", "mostly_text"])
    schema._fit_private(X, mu=math.inf, random_state=0)
    assert schema.numeric_columns_ == ["mostly_numbers"]
    assert schema.categorical_columns_ == ["mostly_text"]
    assert schema.privacy_.mu == math.inf


def test_private_vote_is_the_gaussian_mechanism_it_claims():
    # One undeclared column with D = 3 numbers - 1 text = 2, mu = 1: sigma = 2 sqrt(1)/1
    # = 2 and P(numeric) = P(2 + 2 Z >= 0) = Phi(1) = 0.841. 2000 independent seeds:
    # binomial sd sqrt(.841 * .159 / 2000) = 0.0082; 4 sd = 0.033.
    X = pd.DataFrame({"c": ["1", "2", "3", "x"]}, dtype=object)
    numeric = 0
    for seed in range(2000):
        step = PrivateTableSchema(["c"])._fit_private(X, mu=1.0, random_state=seed)
        numeric += step.numeric_columns_ == ["c"]
    assert abs(numeric / 2000 - norm.cdf(1.0)) < 0.033
    assert step.privacy_.mu == 1.0 and step.privacy_.extra_delta == 0.0


def test_declared_types_cost_nothing():
    step = PrivateTableSchema(["a", "b"], numeric=["a"], categorical=["b"])
    assert step._privacy_plan(None) == (0, 0)
    assert PrivateTableSchema(["a", "b"], numeric=["a"])._privacy_plan(None) == (1, 0)


# -- skdpgd fit without a config, skdpgd predict --------------------------------------------

def _fit(tmp_path, *extra, data=None, name="m.joblib"):
    data = data or _table(tmp_path / "train.csv")
    out = tmp_path / name
    code = main(["fit", str(data), "--target", "label", "--random-state", "0",
                 "--output", str(out), *extra])
    return code, out, data


def test_no_config_logistic_fit_then_predict(tmp_path, capsys):
    code, out, data = _fit(tmp_path, "--model", "logistic", "--classes", "0,1",
                           "--epsilon", "8", "--verbose", "1")
    assert code == 0
    printed = capsys.readouterr().out
    assert "PipelinePrivacyReport((8, " in printed and "vectorizer" in printed
    assert "column_types" in printed  # the type vote is a release of the report
    bundle = joblib.load(out)
    assert bundle["privacy"]["epsilon"] <= 8 * (1 + 1e-9) and bundle["label_type"] == "int"
    assert bundle["dp_pipeline"].privacy_.epsilon == bundle["privacy"]["epsilon"]
    assert isinstance(bundle["pipeline"].steps[0][1], PrivateTableSchema)
    # predict writes one column named after the target, labels as ints
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(out), str(data), "--output", str(predictions)]) == 0
    written = pd.read_csv(predictions)
    assert list(written.columns) == ["label"] and written["label"].dtype == np.int64
    assert set(written["label"]) <= {0, 1} and len(written) == 400
    # the saved model predicts the same on a plain pd.read_csv frame (target included)
    frame = pd.read_csv(data)
    direct = bundle["pipeline"].predict(frame)
    assert direct.dtype.kind == "i" and np.array_equal(direct, written["label"].to_numpy())
    # and learned something (age > 50 with 10% flips; majority class is about 55%)
    assert (direct == frame["label"]).mean() > 0.75


def test_no_config_ridge_needs_no_y_bound(tmp_path, capsys):
    path = tmp_path / "r.csv"
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 10, 300)
    kind = rng.choice(["a", "b"], 300)
    y = 3 * x + np.where(kind == "a", 5.0, -5.0) + rng.normal(0, 1, 300)
    path.write_text("x,kind,y\n" + "".join(
        f"{'' if i % 23 == 0 else f'{v:.3f}'},{k},{t:.3f}\n"
        for i, (v, k, t) in enumerate(zip(x, kind, y, strict=True))))
    out = tmp_path / "r.joblib"
    assert main(["fit", str(path), "--target", "y", "--model", "ridge", "--epsilon", "8",
                 "--numeric", "x", "--categorical", "kind", "--random-state", "0",
                 "--output", str(out), "--verbose", "1"]) == 0
    assert "target range (no --y-bound: released privately)" in capsys.readouterr().out
    assert main(["predict", str(out), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "y" and len(lines) == 301
    predicted = np.array([float(v) for v in lines[1:]])
    assert np.corrcoef(predicted, y)[0, 1] > 0.8  # R^2 of the truth is 0.93


def test_string_classes_are_written_as_strings(tmp_path, capsys):
    path = tmp_path / "s.csv"
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1, 200)
    path.write_text("x,label\n" + "".join(f"{v:.3f},{'yes' if v > .5 else 'no'}\n"
                                          for v in x))
    out = tmp_path / "s.joblib"
    assert main(["fit", str(path), "--target", "label", "--classes", "yes,no",
                 "--numeric", "x", "--epsilon", "4", "--random-state", "0",
                 "--output", str(out)]) == 0
    capsys.readouterr()
    assert main(["predict", str(out), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "label" and set(lines[1:]) <= {"yes", "no"} and len(set(lines[1:])) == 2


def test_cli_equals_the_python_api_on_the_same_data_and_seed(tmp_path, capsys):
    # Types declared (no vote): the CLI's pipeline is then the vectorizer and the estimator
    # on the same table as pd.read_csv gives (every numeric column has a missing cell, so
    # both read it as float with a missing indicator), with the same seed.
    from skdpgd import DPLogisticRegression, make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    train = _table(tmp_path / "train.csv", n=400, seed=0)
    test = _table(tmp_path / "test.csv", n=300, seed=1)
    code, out, _ = _fit(tmp_path, "--classes", "0,1", "--epsilon", "2", "--numeric",
                        "age,income", "--categorical", "city", "--drop", "code", data=train)
    assert code == 0
    capsys.readouterr()
    assert main(["predict", str(out), str(test), "--output", str(tmp_path / "p.csv")]) == 0
    truth = pd.read_csv(test)["label"].to_numpy()
    cli_accuracy = (pd.read_csv(tmp_path / "p.csv")["label"].to_numpy() == truth).mean()

    frame = pd.read_csv(train)
    python = make_dp_pipeline(DPTableVectorizer(column_types={"city": "categorical"}),
                              DPLogisticRegression(classes=[0, 1]),
                              epsilon=2.0, random_state=0)  # declared, as --categorical
    python.fit(frame[["age", "city", "income"]], frame["label"])
    python_accuracy = (python.predict(pd.read_csv(test)[["age", "city", "income"]])
                       == truth).mean()
    assert cli_accuracy == python_accuracy
    # a sanity bound at this seed (400 rows at epsilon 2; the majority class is 54%): over
    # 8 training seeds (test seed + 1) the Python pipeline scores a median 0.81, 0.72-0.85
    # (0.83, 0.79-0.85 with one map per column); income's two features (its linear map and
    # its log ratio, docs/theory.md "Both scales") give this seed 0.72
    assert cli_accuracy > 0.7


def test_fit_prints_one_short_line_per_column(tmp_path, capsys):
    code, _, _ = _fit(tmp_path, "--model", "logistic", "--classes", "0,1", "--epsilon", "8",
                      "--categorical", "city")
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    start = printed.index("columns (--verbose 1: the full decisions):")
    lines = {line.split(":")[0].strip(): line for line in printed[start + 1:]
             if line.startswith("  ")}
    header = pd.read_csv(tmp_path / "train.csv", nrows=0).columns
    assert set(lines) == {c for c in header if c != "label"}  # one line per column
    assert lines["city"].startswith("  city: categorical (declared), ")
    assert lines["age"].startswith("  age: numeric (vote), [") and " private, " in lines["age"]
    assert all(len(line) <= 100 for line in printed[1:-1])  # the path lines aside
    assert printed[1].startswith("privacy: (8, ") and "PipelinePrivacyReport" not in printed


def test_fit_verbose_prints_the_full_report_and_decisions(tmp_path, capsys):
    code, _, _ = _fit(tmp_path, "--model", "logistic", "--classes", "0,1", "--epsilon", "8",
                      "--categorical", "city", "--verbose", "1")
    assert code == 0
    printed = capsys.readouterr().out
    lines = {line.split(" (")[0].strip(): line for line in printed.splitlines()
             if line.startswith("  ") and " from " in line}
    assert "categorical from declared" in lines["city"]
    assert "numeric from vote" in lines["age"] and "range [" in lines["age"]
    assert "per-column decisions" in printed and "PipelinePrivacyReport((8, " in printed


def test_fit_warnings_reach_the_terminal_as_plain_lines(tmp_path, capsys):
    # 60 rows at a small budget: no category of 'city' passes its threshold (a fallback)
    path = tmp_path / "small.csv"
    rng = np.random.default_rng(1)
    path.write_text("city,label\n" + "".join(
        f"{rng.choice(['a', 'b', 'c'])},{rng.integers(2)}\n" for _ in range(60)))
    assert main(["fit", str(path), "--target", "label", "--classes", "0,1", "--epsilon",
                 "0.1", "--categorical", "city", "--random-state", "0"]) == 0
    captured = capsys.readouterr()
    warned = [line for line in captured.out.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and "fell back" in warned[0] and "'city'" in warned[0]
    assert ".py:" not in captured.out + captured.err  # no source path, no Warning class line


def test_config_path_model_predicts_on_plain_read_csv(tmp_path, capsys):
    # A categorical column declared with string categories comes back as numbers from
    # pd.read_csv, and labels 0/1 as ints: the saved model still predicts on that frame.
    data = _table(tmp_path / "t.csv", n=300, holes=False)  # public bounds: no imputation
    out = tmp_path / "c.joblib"
    assert main(["fit", str(data), "--target", "label", "--classes", "0,1",
                 "--bounds", "age=18:90", "--bounds", "income=0:1e6",
                 "--categories", "city=Lyon,Oslo,Rome", "--categories", "code=1,2,3",
                 "--epsilon", "8", "--random-state", "0", "--output", str(out)]) == 0
    capsys.readouterr()
    pipeline = joblib.load(out)["pipeline"]
    frame = pd.read_csv(data)
    assert frame["code"].dtype.kind == "f"  # 1.0, 2.0, 3.0 and NaN, not "1", "2", "3"
    predicted = pipeline.predict(frame)
    assert predicted.dtype.kind == "i"
    assert (predicted == frame["label"]).mean() > 0.75
    as_text = pd.read_csv(data, dtype=str)
    assert np.array_equal(pipeline.predict(as_text), predicted)
    # the CLI's predict gives the same labels, written as ints
    assert main(["predict", str(out), str(data), "--output", str(tmp_path / "p.csv")]) == 0
    assert np.array_equal(pd.read_csv(tmp_path / "p.csv")["label"].to_numpy(), predicted)


# -- errors: one line, exit 2, no cell value, no row index, no count -------------------------

def test_predict_errors_are_one_clean_line(tmp_path, capsys):
    code, out, data = _fit(tmp_path, "--classes", "0,1", "--epsilon", "4", "--numeric",
                           "age,income,code", "--categorical", "city")
    assert code == 0
    capsys.readouterr()
    no_city = tmp_path / "no_city.csv"
    pd.read_csv(data).drop(columns="city").to_csv(no_city, index=False)
    assert main(["predict", str(out), str(no_city)]) == 2
    err = capsys.readouterr().err
    _err_is_one_clean_line(err)
    assert "no column(s) ['city']" in err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(f"age,city,code,income\n30,Lyon,1,5\n31,{SECRET},1,5,extra\n")
    assert main(["predict", str(out), str(ragged)]) == 2
    _err_is_one_clean_line(capsys.readouterr().err, SECRET, "line 3", "row 2")
    assert main(["predict", str(data), str(data)]) == 2
    _err_is_one_clean_line(capsys.readouterr().err)
    assert main(["predict", str(tmp_path / "none.joblib"), str(data)]) == 2
    _err_is_one_clean_line(capsys.readouterr().err)


def test_refused_labels_and_targets_are_not_quoted(tmp_path, capsys):
    data = _table(tmp_path / "t.csv", n=200)
    text = data.read_text().splitlines()
    text[5] = text[5].rsplit(",", 1)[0] + f",{SECRET}"
    data.write_text("\n".join(text) + "\n")
    for extra in (["--classes", "0,1"], ["--model", "ridge"]):
        assert main(["fit", str(data), "--target", "label", "--epsilon", "1", "--numeric",
                     "age,income,code", "--categorical", "city", *extra]) == 2
        err = capsys.readouterr().err
        _err_is_one_clean_line(err, SECRET, "row 4", "line 6")
        assert "the target column 'label' holds a cell that is not" in err


def test_fit_errors_name_columns_only(tmp_path, capsys):
    data = _table(tmp_path / "t.csv", n=50)
    assert main(["fit", str(data), "--target", "label", "--epsilon", "1", "--model",
                 "logistic", "--numeric", "city", "--categorical", "city"]) == 2
    err = capsys.readouterr().err
    _err_is_one_clean_line(err, "Lyon")
    assert "['city'] are declared both numeric" in err
    assert main(["fit", str(data), "--target", "label", "--epsilon", "1", "--model",
                 "logistic", "--numeric", "nope"]) == 2
    _err_is_one_clean_line(capsys.readouterr().err)
    # every column public (the fully public pipeline): a conflicting type is still refused
    assert main(["fit", str(data), "--target", "label", "--epsilon", "1", "--model",
                 "logistic", "--bounds", "age=18:90", "--bounds", "income=0:1e6", "--categories", "city=Lyon,Oslo",
                 "--categories", "code=1,2,3", "--categorical", "age"]) == 2
    assert "['age'] are declared both" in capsys.readouterr().err
    # no model kind: refused, whatever the target holds (public input only)
    assert main(["fit", str(data), "--target", "city", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    _err_is_one_clean_line(err, "Lyon", "Oslo")
    assert "--model is required" in err


def test_delta_solver_and_seed_reach_the_private_pipeline(tmp_path, capsys):
    args = ("--classes", "0,1", "--epsilon", "2", "--delta", "1e-6", "--solver", "gd",
            "--numeric", "age,income,code", "--categorical", "city")
    code, out, data = _fit(tmp_path, *args)
    assert code == 0
    bundle = joblib.load(out)
    assert bundle["dp_pipeline"].delta == 1e-6 and bundle["privacy"]["delta"] == 1e-6
    assert bundle["pipeline"].steps[-1][1].solver == "gd"
    code, again, _ = _fit(tmp_path, *args, data=data, name="again.joblib")
    frame = pd.read_csv(data)
    assert np.array_equal(joblib.load(again)["pipeline"].predict_proba(frame),
                          bundle["pipeline"].predict_proba(frame))  # same --random-state
    capsys.readouterr()
    assert main(["fit", str(data), "--target", "label", "--classes", "0,1", "--epsilon", "1",
                 "--solver", "sgd"]) == 2
    _err_is_one_clean_line(capsys.readouterr().err)


def test_config_entries_are_public_overrides_of_the_vectorizer(tmp_path, capsys):
    # age: public bounds, city: public list (canonical texts), code: a public type only;
    # income undeclared (voted). Only code's categories, income's range and the vote are
    # released.
    config = tmp_path / "c.toml"
    config.write_text('target = "label"\nclasses = [0, 1]\ncategorical = ["code"]\n'
                      '[bounds]\nage = [18, 90]\n[categories]\ncity = ["Lyon", "Oslo", "Rome"]\n')
    code, out, _ = _fit(tmp_path, "--config", str(config), "--epsilon", "4")
    assert code == 0
    capsys.readouterr()
    bundle = joblib.load(out)
    vectorizer = bundle["pipeline"].steps[1][1]
    assert vectorizer.bounds_["age"] == (18.0, 90.0)
    assert vectorizer.categories_["city"] == ["Lyon", "Oslo", "Rome"]
    released = " ".join(name for name, _ in vectorizer.privacy_.releases)
    assert "income" in released and "code" in released
    assert "age" not in released and "city" not in released
    schema = bundle["pipeline"].steps[0][1]
    assert [name for name, _ in schema.privacy_.releases] == ["income: type vote"]
    assert bundle["classes"] == [0, 1] and bundle["label_type"] == "int"


def _mostly_zero_table(path, n, seed, nonzero):
    rng = np.random.default_rng(seed)
    gain = np.where(rng.random(n) < 0.88, 0, nonzero(rng, n))
    x = rng.standard_normal(n)
    label = (x + (gain > 0) + 0.5 * rng.standard_normal(n)) > 0.5
    path.write_text("gain,x,label\n" + "".join(
        f"{g},{v:.4f},{int(t)}\n" for g, v, t in zip(gain, x, label, strict=True)))
    return path


def test_a_mostly_zero_count_reads_as_an_integer_column_does(tmp_path, capsys):
    # the command line reads every number as float64 (its public per-cell rule), so the
    # grid kept 40 cells between 0 and 1 that a count cannot fill: a column of 88% zeros
    # printed [0, 9.537e-07] (its zeros' cell) where DPTableVectorizer on pd.read_csv's
    # int64 column gives [0, 1]; and the tails could not step from the zeros to the ones
    far = _mostly_zero_table(tmp_path / "far.csv", 3000, 0,
                             lambda rng, n: rng.integers(2000, 20000, n))
    assert main(["fit", str(far), "--target", "label", "--classes", "0,1", "--epsilon", "0.3",
                 "--random-state", "0"]) == 0
    line = next(t for t in capsys.readouterr().out.splitlines() if t.strip().startswith("gain"))
    # at this budget the nonzero values stay unseen: the range starts at 0 and ends below
    # them (the records-outside rule may step the top over a few empty cells past 1, where
    # the sum of the cells outside, read through n, says the range misses records)
    low, high = (float(v) for v in line.split("[", 1)[1].split("]", 1)[0].split(","))
    assert low == 0.0 and 1.0 <= high < 2000.0, line
    near = _mostly_zero_table(tmp_path / "near.csv", 3000, 1,
                              lambda rng, n: rng.geometric(0.1, n))
    out = tmp_path / "near.joblib"
    assert main(["fit", str(near), "--target", "label", "--classes", "0,1", "--epsilon", "4",
                 "--random-state", "0", "--output", str(out)]) == 0
    vectorizer = joblib.load(out)["pipeline"].steps[1][1]
    low, high = vectorizer.bounds_["gain"]
    assert low == 0.0 and high >= 8.0  # the nonzero values' scale (was 9.5e-07)
