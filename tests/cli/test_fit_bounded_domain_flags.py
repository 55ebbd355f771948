"""``skdpgd fit --max-coef-norm --sampling`` and unregularised models (``--C inf``,
``--alpha 0``): passed to the estimator as in Python, refused before the ledger's charge."""

import joblib
import numpy as np
import pytest

from skdpgd._cli import main
from skdpgd._ledger import PrivacyLedger


def _write_csv(path, n=300):
    rng = np.random.default_rng(1)
    age = rng.integers(17, 91, n)
    label = np.where(age > 50, "high", "low")
    path.write_text("age,income\n" + "".join(f"{a},{t}\n" for a, t in zip(age, label, strict=True)))
    return path


def _declared(data):
    return ["fit", str(data), "--target", "income", "--bounds", "age=17:90", "--epsilon",
            "2", "--classes", "high,low", "--random-state", "0"]


def test_unregularised_bounded_domain_fit_reaches_the_estimator(tmp_path, capsys):
    data = _write_csv(tmp_path / "d.csv")
    out = tmp_path / "m.joblib"
    assert main([*_declared(data), "--C", "inf", "--max-coef-norm", "3", "--solver", "gd",
                 "--output", str(out)]) == 0
    bundle = joblib.load(out)
    model = bundle["pipeline"][-1]
    assert (model.C, model.max_coef_norm) == (np.inf, 3.0)
    assert np.linalg.norm(np.append(model.coef_, model.intercept_)) <= 3.0 * (1 + 1e-9)
    assert bundle["privacy"]["epsilon"] <= 2.0 * (1 + 1e-9)


def test_uniform_sampling_reaches_the_estimator(tmp_path):
    data = _write_csv(tmp_path / "d.csv")
    out = tmp_path / "m.joblib"
    assert main([*_declared(data), "--solver", "sgd", "--sampling", "uniform",
                 "--max-coef-norm", "2", "--output", str(out)]) == 0
    model = joblib.load(out)["pipeline"][-1]
    assert (model.solver, model.sampling, model.max_coef_norm) == ("sgd", "uniform", 2.0)
    assert model.privacy_.epsilon <= 2.0 * (1 + 1e-9)


def test_ridge_alpha_zero_with_a_radius(tmp_path):
    path = tmp_path / "r.csv"
    x = np.random.default_rng(2).uniform(0, 10, 200)
    path.write_text("x,y\n" + "".join(f"{a},{a / 10:.4f}\n" for a in x))
    out = tmp_path / "m.joblib"
    assert main(["fit", str(path), "--target", "y", "--model", "ridge", "--y-bound", "1",
                 "--bounds", "x=0:10", "--epsilon", "1", "--random-state", "0", "--alpha",
                 "0", "--max-coef-norm", "5", "--output", str(out)]) == 0
    model = joblib.load(out)["pipeline"][-1]
    assert (model.alpha, model.max_coef_norm) == (0.0, 5.0)


@pytest.mark.parametrize("extra, message", [
    (["--C", "inf"], "max_coef_norm"),
    (["--sampling", "uniform"], "solver='sgd'"),
    (["--max-coef-norm", "-1"], "max_coef_norm must be > 0"),
    (["--max-coef-norm", "inf"], "max_coef_norm must be a finite number"),
])
@pytest.mark.parametrize("with_ledger", [False, True])
def test_refusals_come_before_the_charge(tmp_path, capsys, extra, message, with_ledger):
    data = _write_csv(tmp_path / "d.csv")
    ledger = tmp_path / "ledger.sqlite"
    flags = ["--ledger", str(ledger)] if with_ledger else []
    assert main([*_declared(data), *extra, *flags]) == 2
    assert message in capsys.readouterr().err
    if with_ledger and ledger.exists():
        assert PrivacyLedger(path=str(ledger)).entries == ()


def test_alpha_below_zero_and_a_bad_sampling_in_the_config(tmp_path, capsys):
    data = _write_csv(tmp_path / "d.csv")
    config = tmp_path / "c.toml"
    config.write_text('sampling = "shuffled"\n')
    assert main([*_declared(data), "--config", str(config)]) == 2
    assert "sampling must be 'poisson' or 'uniform'" in capsys.readouterr().err
    assert main(["fit", str(data), "--target", "age", "--model", "ridge", "--y-bound", "90",
                 "--epsilon", "1", "--bounds", "income=0:1", "--alpha", "-1"]) == 2
    assert "alpha must be >= 0" in capsys.readouterr().err
