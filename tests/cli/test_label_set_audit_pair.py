"""``skdpgd fit`` on an audit pair: two CSV files that differ in how record 0 writes a value
that reads the same (``-0.0`` or ``0``, ``1`` or ``1.0``, ``30`` or ``30.0``) give identical
outputs: the saved model's classes (values, dtype, element types), its coefficients, its
report, the bundle's label list and type, and the bytes ``skdpgd predict`` writes
(the release must be a function of canonical forms only)."""

import joblib
import numpy as np
import pytest

from skdpgd._cli import main


def _rows(n=600):
    rng = np.random.default_rng(5)
    age = rng.integers(18, 90, n)
    city = rng.choice(["Lyon", "Oslo"], n)
    label = np.where(age + rng.normal(0, 8, n) > 50, 1, 0)
    label[0] = 0  # record 0 is the first holder of its label
    return [[str(a), c, str(t)] for a, c, t in zip(age, city, label, strict=True)]


def _write(path, rows):
    path.write_text("age,city,label\n" + "".join(",".join(row) + "\n" for row in rows))
    return path


def _fit_outputs(tmp_path, name, rows, flags, capsys):
    data = _write(tmp_path / f"{name}.csv", rows)
    out = tmp_path / f"{name}.joblib"
    assert main(["fit", str(data), "--target", "label", "--model", "logistic",
                 "--epsilon", "2", "--random-state", "0", "--output", str(out),
                 *flags]) == 0
    printed = capsys.readouterr().out.replace(str(tmp_path), "")
    predictions = tmp_path / f"{name}.predictions.csv"
    reference = _write(tmp_path / "same_input.csv", _rows())  # one public input to predict
    assert main(["predict", str(out), str(reference), "--output", str(predictions)]) == 0
    capsys.readouterr()
    bundle = joblib.load(out)
    classes = bundle["pipeline"].classes_
    model = bundle["dp_pipeline"].pipeline_[-1]
    return {
        "classes": classes.tolist(), "dtype": classes.dtype,
        "types": [type(c) for c in classes], "bytes": classes.tobytes(),
        "coef": model.coef_.tobytes(), "report": repr(bundle["dp_pipeline"].privacy_),
        "bundle_classes": bundle["classes"], "label_type": bundle["label_type"],
        "predictions": predictions.read_bytes(),
        "printed": printed.replace(f"{name}.joblib", "").replace(f"{name}.csv", ""),
    }


@pytest.mark.parametrize("flags", [[], ["--classes", "0,1"]], ids=["private", "public"])
@pytest.mark.parametrize("column, spelling", [(2, "-0.0"), (2, "0.0"), (2, "-0"),
                                              (0, "{}.0"), (0, "0{}")])
def test_record_zero_spelling_changes_no_output(tmp_path, capsys, flags, column, spelling):
    rows = _rows()
    other = [list(row) for row in rows]
    other[0][column] = spelling.format(rows[0][column]) if "{}" in spelling else spelling
    first = _fit_outputs(tmp_path, "first", rows, flags, capsys)
    second = _fit_outputs(tmp_path, "second", other, flags, capsys)
    assert first == second
