"""``skdpgd fit --summary`` on a raw table: the table in the model's units and names, the
private label set, and no charge when it is refused (docs/theory.md, "Inference through a
pipeline")."""

import numpy as np
import pytest

from skdpgd import PrivacyLedger
from skdpgd._cli import main

pytest.importorskip("pandas")


def _csv(path, n, seed=0):
    """x (floats in [0, 10], no missing cell), label yes/no with logit 0.4 x - 2, and
    y = 100 + 50 x + N(0, 20^2)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 10.0, n)
    label = np.where(rng.random(n) < 1 / (1 + np.exp(-(0.4 * x - 2))), "yes", "no")
    y = 100 + 50 * x + rng.normal(0, 20, n)
    lines = ["x,label,y"] + [f"{a:.6f},{b},{c:.6f}" for a, b, c in zip(x, label, y, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _rows(printed):
    """{name: (coef, low, high)} of the printed table."""
    rows = {}
    for line in printed.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[0] in ("x", "intercept"):
            try:
                rows[parts[0]] = tuple(float(v) for v in (parts[1], parts[3], parts[4]))
            except ValueError:
                continue
    return rows


def test_summary_without_classes_releases_the_label_set_and_prints_the_table(tmp_path,
                                                                              capsys):
    data, ledger = _csv(tmp_path / "d.csv", 6000), tmp_path / "ledger.db"
    status = main(["fit", str(data), "--target", "label", "--drop", "y", "--model", "logistic", "--bounds", "x=0:10",
                   "--epsilon", "2", "--random-state", "0", "--summary",
                   "--ledger", str(ledger)])
    printed = capsys.readouterr().out
    assert status == 0  # was: charged, label set released, then refused
    assert len(PrivacyLedger(path=str(ledger)).entries) == 1
    rows = _rows(printed)
    assert set(rows) >= {"x", "intercept"}
    assert all(low < coef < high for coef, low, high in rows.values())
    assert "covers: intervals cover the coefficients of the logistic model" in printed


def test_summary_of_a_ridge_is_in_the_units_of_y(tmp_path, capsys):
    data = _csv(tmp_path / "d.csv", 6000, seed=1)
    status = main(["fit", str(data), "--target", "y", "--drop", "label", "--model", "ridge",
                   "--bounds", "x=0:10", "--epsilon", "2", "--random-state", "0",
                   "--summary", "--ledger", str(tmp_path / "ledger.db")])
    printed = capsys.readouterr().out
    assert status == 0
    rows = _rows(printed)
    assert all(low < coef < high for coef, low, high in rows.values()), printed
    assert "units: those of y" in printed
    coef, low, high = rows["x"]
    assert coef > 100 and high - low < coef  # y's scale (the internal slope is about 1)


def test_a_refused_summary_charges_nothing(tmp_path, capsys):
    data, ledger = _csv(tmp_path / "d.csv", 60), tmp_path / "ledger.db"
    status = main(["fit", str(data), "--target", "label", "--drop", "y", "--model", "logistic", "--bounds", "x=0:10",
                   "--epsilon", "0.05", "--summary", "--ledger", str(ledger)])
    err = capsys.readouterr().err
    assert status == 2 and "needs n >= " in err
    assert len(PrivacyLedger(path=str(ledger)).entries) == 0
