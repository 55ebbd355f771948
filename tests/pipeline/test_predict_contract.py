"""One predict contract: the command line's saved model and a Python
DPPipeline read a table's columns by name, ignore extra columns, and refuse a missing
one with a message naming the columns (public schema), never a value."""

import joblib
import numpy as np
import pandas as pd
import pytest

from skdpgd import DPLogisticRegression, make_dp_pipeline
from skdpgd._cli import main
from skdpgd.preprocessing import DPTableVectorizer


def _frame(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    return pd.DataFrame({"age": age, "city": rng.choice(["Lyon", "Oslo"], n),
                         "label": (age > 50).astype(int)})


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("contract")
    frame = _frame()
    frame.to_csv(folder / "train.csv", index=False)
    out = folder / "m.joblib"
    assert main(["fit", str(folder / "train.csv"), "--target", "label", "--classes", "0,1",
                 "--epsilon", "4", "--random-state", "0", "--output", str(out)]) == 0
    cli = joblib.load(out)["pipeline"]
    python = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                              epsilon=4, random_state=0).fit(frame[["age", "city"]],
                                                             frame["label"])
    return {"cli": cli, "python": python}


@pytest.mark.parametrize("which", ["cli", "python"])
def test_columns_by_name_extra_ignored(models, which):
    model = models[which]
    new = _frame(200, seed=1)
    plain = model.predict(new[["age", "city"]])
    shuffled = new[["label", "city", "age"]].assign(extra="x")  # other order, extras
    np.testing.assert_array_equal(model.predict(shuffled), plain)


@pytest.mark.parametrize("which", ["cli", "python"])
def test_missing_column_is_named_in_both(models, which):
    new = _frame(50, seed=2)
    new.loc[0, "city"] = "SECRET-CITY"
    with pytest.raises(ValueError) as info:
        models[which].predict(new[["city", "label"]])
    message = str(info.value)
    assert "no column(s) ['age']" in message and "['age', 'city']" in message
    assert "SECRET-CITY" not in message and info.value.__context__ is None


def test_cli_predict_names_the_missing_columns(models, tmp_path, capsys):
    out = tmp_path / "m.joblib"
    joblib.dump({"pipeline": models["cli"], "target": "label", "model": "logistic",
                 "classes": [0, 1], "label_type": "int"}, out)
    _frame(20, seed=3)[["city"]].to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(out), str(tmp_path / "new.csv")]) == 2
    assert "no column(s) ['age']" in capsys.readouterr().err
