"""The command line decides nothing private by default: the model kind, the label set,
``--classes`` with commas, and ``--ledger``."""

import math

import joblib
import numpy as np
import pytest

from skdpgd import DPLogisticRegression, PrivacyLedger, make_dp_pipeline
from skdpgd._cli import main
from skdpgd._cli._commands import classes_from_flags
from skdpgd.pipeline._labels import release_label_set
from skdpgd.preprocessing import BoundedScaler


def _csv(path, n=400, secret=True):
    """age (numeric), city (text), a numeric rating target and a text label; one record
    holds the label 'SECRET-LABEL'."""
    rng = np.random.default_rng(3)
    age = rng.integers(18, 90, n)
    city = rng.choice(["Lyon", "Oslo"], n)
    rating = np.round(rng.uniform(1, 10, n), 1)
    label = np.where(age > 50, "old", "young").astype(object)
    if secret:
        label[7] = "SECRET-LABEL"
    lines = ["age,city,rating,label"] + [f"{a},{c},{r},{t}" for a, c, r, t in
                                         zip(age, city, rating, label, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_model_kind_is_never_guessed(tmp_path, capsys):
    data = _csv(tmp_path / "t.csv")
    # a numeric target without --model: refused, not a 60-class classifier
    assert main(["fit", str(data), "--target", "rating", "--epsilon", "1"]) == 2
    assert "--model is required" in capsys.readouterr().err
    assert main(["fit", str(data), "--target", "rating", "--epsilon", "1",
                 "--classes", "a,b", "--y-bound", "10"]) == 2
    assert "contradict" in capsys.readouterr().err
    assert main(["fit", str(data), "--target", "rating", "--epsilon", "1",
                 "--model", "logistic", "--y-bound", "10"]) == 2
    assert "--y-bound is for --model ridge" in capsys.readouterr().err
    # --y-bound implies ridge
    out = tmp_path / "r.joblib"
    assert main(["fit", str(data), "--target", "rating", "--epsilon", "4", "--y-bound", "10",
                 "--drop", "label", "--random-state", "0", "--output", str(out)]) == 0
    assert joblib.load(out)["model"] == "ridge"
    assert "DPRidge" in capsys.readouterr().out


def test_help_states_the_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("no default", "released privately", "--ledger FILE", "min(1e-5, 1/(10 n))",
                  "--classes implies", "implies --model ridge"):
        assert words.replace("--classes implies", "--classes (logistic)") in text or \
            words in text


def test_private_label_set_is_released_and_a_singleton_is_not(tmp_path, capsys):
    data = _csv(tmp_path / "t.csv")
    out = tmp_path / "m.joblib"
    assert main(["fit", str(data), "--target", "label", "--model", "logistic", "--epsilon",
                 "1", "--drop", "rating", "--random-state", "0", "--output", str(out),
                 "--verbose", "1"]) == 0
    printed = capsys.readouterr().out
    # the report spells the command line's flags, not the Python parameters
    assert "label set (no --classes: released privately)" in printed
    assert "classes=" not in printed and "additive delta" in printed
    bundle = joblib.load(out)
    # the record alone with its label: it passes with probability <= delta_0 ~ 3e-7
    assert list(bundle["pipeline"].classes_) == ["old", "young"]
    assert bundle["classes"] == ["old", "young"]
    assert "SECRET-LABEL" not in printed
    report = bundle["dp_pipeline"].privacy_
    assert report.epsilon <= 1.0
    assert report.extra_delta == pytest.approx(0.1 * report.delta, rel=1e-9)


def test_release_label_set_thresholds_and_weighs_out_unreleased_rows():
    y = np.array(["a"] * 5 + ["b"] * 3 + ["solo", None], dtype=object)
    # mu = inf: no noise, tau = 1, so exactly the labels held by 2+ records pass
    classes, y_fit, weights, report = release_label_set(y, mu=math.inf, delta0=1e-6,
                                                        random_state=0)
    assert classes.tolist() == ["a", "b"] and classes.dtype.kind == "U"
    assert weights.tolist() == [1.0] * 8 + [0.0, 0.0]
    assert set(y_fit.tolist()) <= {"a", "b"}
    assert report.extra_delta == 1e-6
    with pytest.raises(ValueError, match="fewer than two labels") as info:
        release_label_set(np.array(["a"] * 5 + ["solo"], dtype=object), mu=math.inf,
                          delta0=1e-6, random_state=0)
    assert "solo" not in str(info.value) and info.value.__context__ is None


def test_python_headline_says_when_the_label_set_was_read_from_the_data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    read = DPLogisticRegression(random_state=0).fit(X, y)
    given = DPLogisticRegression(classes=[0, 1], random_state=0).fit(X, y)
    assert "label set was read from the data" in repr(read.privacy_).splitlines()[0]
    assert "label set was read" not in repr(given.privacy_)
    pipe = make_dp_pipeline(BoundedScaler((-1, 1)), DPLogisticRegression(),
                            random_state=0).fit(X, y)
    assert "label set was read from the data" in repr(pipe.privacy_).splitlines()[0]
    private = make_dp_pipeline(BoundedScaler((-1, 1)), DPLogisticRegression(classes="private"),
                               random_state=0).fit(X, y)
    assert "label set was read" not in repr(private.privacy_)
    assert private.plan_privacy(300).extra_delta > 0  # planned: the threshold's delta
    with pytest.raises(ValueError, match="DPPipeline"):
        DPLogisticRegression(classes="private").fit(X, y)


@pytest.mark.parametrize("flags, labels", [
    (['"a,b",c'], ["a,b", "c"]), (["a,b", "c"], ["a,b", "c"]), (["0, 1"], [0, 1]),
    (["1.5,2"], [1.5, 2.0]),
])
def test_classes_with_commas(flags, labels):
    assert classes_from_flags(flags) == labels


def test_ledger_flag_charges_the_file_and_its_cap_refuses(tmp_path, capsys):
    data = _csv(tmp_path / "t.csv", secret=False)
    ledger = tmp_path / "l.db"
    common = ["fit", str(data), "--target", "label", "--classes", "old,young", "--drop",
              "rating", "--bounds", "age=18:90", "--categories", "city=Lyon,Oslo",
              "--random-state", "0", "--ledger", str(ledger)]
    assert main([*common, "--epsilon", "1", "--ledger-cap", "1.2,1e-5"]) == 0
    assert "charged to the ledger" in capsys.readouterr().out
    spent = PrivacyLedger(path=ledger).spent(1e-5)
    assert spent.n_fits == 1 and spent.epsilon == pytest.approx(1.0, rel=1e-6)
    assert main([*common, "--epsilon", "1"]) == 2  # would exceed the stored cap
    assert "skdpgd fit: error" in capsys.readouterr().err
    assert PrivacyLedger(path=ledger).spent(1e-5).n_fits == 1
    assert main(["ledger", "show", str(ledger)]) == 0
    assert "DPPipeline" in capsys.readouterr().out


@pytest.mark.parametrize("cell", ["2.5", ""])  # no cell a class: a number, all missing
@pytest.mark.parametrize("ledger", [False, True])
def test_a_target_column_without_any_class_is_refused_not_truncated(tmp_path, capsys,
                                                                     cell, ledger):
    # every target cell 2.5 (or empty) with --classes 0,1,2: each is outside the label
    # set; 2.5 was once cast to the int class 2 and fitted, an empty column gave
    # "cannot convert float NaN to integer"
    rng = np.random.default_rng(0)
    path = tmp_path / "t.csv"
    path.write_text("age,city,y\n" + "".join(
        f"{a},{c},{cell}\n" for a, c in zip(rng.integers(18, 90, 300),
                                            rng.choice(["Lyon", "Oslo"], 300), strict=True)))
    flags = ["--ledger", str(tmp_path / "l.sqlite")] if ledger else []
    assert main(["fit", str(path), "--target", "y", "--classes", "0,1,2", "--epsilon", "1",
                 "--output", str(tmp_path / "m.joblib"), *flags]) == 2
    err = capsys.readouterr().err
    assert any(reason in err for reason in (
        "not in classes=[0, 1, 2]", "not one of --classes [0, 1, 2]",
        "y contains NaN"))  # with a ledger, the estimator's refusal after its charge
    assert "2.5" not in err and "convert" not in err  # no cell quoted, no internal error
    assert not (tmp_path / "m.joblib").exists()
