"""The command line: ``skdpgd demo | account | fit`` (and ``python -m skdpgd``)."""

import math
import re
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from scipy.stats import norm

import skdpgd
from skdpgd import DPLogisticRegression, DPRidge
from skdpgd._cli import main
from skdpgd._cli._account import chourasia_noise, composition_noise

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(0)


# -- account: the planner's numbers are the estimator's --------------------------------

@pytest.mark.parametrize(
    "estimator, n_classes",
    [
        (DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0), 2),
        (DPLogisticRegression(epsilon=0.5, classes=[0, 1, 2], random_state=0), 3),
        (DPLogisticRegression(epsilon=2.0, classes=[0, 1], solver="cyclic", random_state=0), 2),
        (DPRidge(epsilon=1.0, y_bound=2.0, random_state=0), None),
    ],
)
def test_planned_report_equals_the_fit(estimator, n_classes):
    n, d = 400, 3
    X = RNG.normal(size=(n, d))
    y = RNG.integers(0, n_classes, n) if n_classes else RNG.normal(size=n)
    fitted = estimator.fit(X, y).privacy_
    planned = estimator.plan_privacy(n, d, n_classes or 2)  # what `skdpgd account` prints
    if planned.accountant == "gram_then_run":  # the run is chosen on the released Gram:
        assert fitted.to_dict() == planned.to_dict() | {"notes": list(fitted.notes)}
        ran = estimator.run_report_  # the guarantee is planned, the run not
        assert ran.run_solver in planned.candidates and ran.mu == planned.mu
    else:
        assert planned.noise_std == fitted.noise_std
        assert planned.n_steps == fitted.n_steps
    assert planned.mu == fitted.mu
    assert planned.epsilon == fitted.epsilon <= estimator.epsilon * (1 + 1e-9)


def _gdp_delta(eps, mu):
    """delta(eps; mu) of mu-GDP (Dong, Roth, Su 2022, Cor. 2.13), straight from the formula."""
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def test_composition_noise_meets_the_target_by_hand():
    report = DPLogisticRegression(epsilon=1.0).plan_privacy(30_000, 10, 2)
    sigma = composition_noise(report, 1.0)
    mu = math.sqrt(report.n_steps) * report.sensitivity / (report.n_samples * sigma)  # (E)
    # Composition at that sigma is exactly the GDP target of (1, delta): delta(1; mu) = delta.
    assert _gdp_delta(1.0, mu) == pytest.approx(report.delta, rel=1e-6)


def _chourasia_epsilon(sigma, report, eta):
    """Chourasia et al. Cor. 1 (docs/theory.md#bound-d) + Canonne-Kamath-Steinke, written out here."""
    orders = np.concatenate([1 + np.arange(1, 1000) / 100, np.geomspace(11, 1e6, 2000)])
    s2 = sigma**2 * eta / 2
    lam, n, k = report.strong_convexity, report.n_samples, report.n_steps
    rdp = orders * report.sensitivity**2 / (lam * s2 * n**2) * (1 - math.exp(-lam * eta * k / 2))
    delta = report.delta
    cks = rdp + np.log((orders - 1) / orders) - (math.log(delta) + np.log(orders)) / (orders - 1)
    return cks.min()


def test_chourasia_noise_is_the_smallest_that_meets_the_target():
    est = DPLogisticRegression(epsilon=1.0, C=1.0 / (30_000 * 1e-3), max_iter=200, solver="gd")
    report = est.plan_privacy(30_000, 10, 2)
    sigma = chourasia_noise(report, 1.0)
    eta = (1 - 1e-9) / report.smoothness
    # The grid of orders here is finer than the package's: the independent value may be a
    # little smaller (better order found) but never larger than the target at sigma, and
    # 1% less noise must break the target (the search is tight to 1e-12).
    assert _chourasia_epsilon(sigma, report, eta) <= 1.0 + 1e-6
    assert _chourasia_epsilon(sigma * 0.99, report, eta) > 1.0 - 5e-3
    assert sigma > report.noise_std  # the convergent GDP bound needs less noise


def test_chourasia_does_not_apply_to_cyclic_runs():
    est = DPLogisticRegression(epsilon=1.0, solver="cyclic", batch_size=1000, max_iter=5)
    assert chourasia_noise(est.plan_privacy(30_000, 10, 2), 1.0) is None


def test_account_default_is_the_estimators_default(capsys):
    assert main(["account", "--epsilon", "1", "--delta", "1e-5", "--n", "30000"]) == 0
    out = capsys.readouterr().out
    est = DPLogisticRegression(epsilon=1.0, delta=1e-5)
    report = est.plan_privacy(30_000, 10, 2)
    assert f"sigma={report.noise_std:.6g}, K={report.n_steps}" in out
    if report.accountant == "preconditioned_gd":
        assert f"mu_G={report.gram_mu:.6g}" in out and "composition of the run's releases" in out
    # the command prints the choice of solver="auto" and its candidates
    assert "solver='auto' chose" in out and "candidate gd" in out
    assert "nan" not in out


@pytest.mark.parametrize("n, d", [(750, 104), (2000, 104), (30_000, 10)])
def test_account_says_what_auto_chose_and_which_bound_binds(n, d, capsys):
    assert main(["account", "--epsilon", "1", "--n", str(n), "--n-features", str(d)]) == 0
    out = capsys.readouterr().out
    report = DPLogisticRegression(epsilon=1.0).plan_privacy(n, d, 2)
    assert report.notes[-1] in out  # auto's choice and why, whatever it chose
    if report.accountant == "preconditioned_gd":
        assert "no convergent bound applies" in out
    elif report.accountant == "gram_then_run":  # the run is chosen on the released Gram
        assert f"mu_run={report.run_mu:.6g} charged whichever runs" in out
        assert "no convergent bound applies" not in out  # gd or cyclic may run after it
        assert "accounted by its own bound within mu_run" in out
    else:  # the table's first row names the bound that binds for this run, not a fixed one
        assert f"this run ({report.binding_bound} bound binds)" in out
        assert ("composition binds" in out) == report.binding_bound.endswith("(composition)")


def test_account_command_prints_the_plan(capsys):
    assert main(["account", "--epsilon", "1", "--delta", "1e-5", "--n", "30000",
                 "--data-norm", "1", "--solver", "gd"]) == 0
    out = capsys.readouterr().out
    report = DPLogisticRegression(epsilon=1.0, delta=1e-5, solver="gd").plan_privacy(30_000, 10, 2)
    assert f"sigma={report.noise_std:.6g}, K={report.n_steps}" in out
    assert "composition (Thm 4.1)" in out and "Chourasia" in out


@pytest.mark.parametrize("flags, estimator, n_classes", [
    (["--classes", "0,1,2,3"], DPLogisticRegression(epsilon=1.0), 4),
    (["--classes", "no,yes"], DPLogisticRegression(epsilon=1.0), 2),
    (["--n-classes", "3"], DPLogisticRegression(epsilon=1.0), 3),
    (["--y-bound", "2"], DPRidge(epsilon=1.0, y_bound=2.0), None),
    (["--model", "ridge"], DPRidge(epsilon=1.0, y_bound=1.0), None),
])
def test_account_reads_the_model_and_label_set_as_fit_does(flags, estimator, n_classes,
                                                           capsys):
    # --classes implies logistic and sizes the label set, --y-bound implies ridge: the
    # plan printed is that estimator's (once ignored without --table: a 2-class plan)
    assert main(["account", "--epsilon", "1", "--n", "40000", "--n-features", "12",
                 *flags]) == 0
    out = capsys.readouterr().out
    report = estimator.plan_privacy(40_000, 12, n_classes)
    assert f"skdpgd account: {type(estimator).__name__}," in out.splitlines()[0]
    assert f"mu={report.mu:.6g}-GDP" in out and f"sigma={report.noise_std:.6g}" in out
    if n_classes:
        assert f"{n_classes} classes" in out.splitlines()[0]


@pytest.mark.parametrize(
    "argv, message",
    [(["account", "--epsilon", "1", "--n", "100", "--delta", "0.5"], "delta"),
     (["account", "--epsilon", "1", "--n", "1"], "n >= 2"),
     (["account", "--epsilon", "1", "--n", "100", "--classes", "0,1", "--n-classes", "3"],
      "--classes lists 2 labels but --n-classes is 3"),
     (["account", "--epsilon", "1", "--n", "100", "--model", "ridge", "--n-classes", "3"],
      "--n-classes is for --model logistic"),
     (["account", "--epsilon", "1", "--n", "100", "--classes", "0,1", "--y-bound", "1"],
      "contradict"),
     (["account", "--epsilon", "1", "--n", "100", "--target", "y"],
      "--target applies only with --table")],
)
def test_account_bad_input_exits_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


# -- fit ---------------------------------------------------------------------------------

def _write_csv(path, n=300):
    rng = np.random.default_rng(1)
    age = rng.integers(17, 91, n)
    sex = rng.choice(["Female", "Male", "?"], n)
    label = np.where(age > 50, ">50K", "<=50K")
    lines = ["age,sex,id,income"] + [f"{a},{s},{i},{t}" for i, (a, s, t) in
                                      enumerate(zip(age, sex, label, strict=True))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fit_with_toml_config_saves_a_usable_model(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    config = tmp_path / "bounds.toml"
    config.write_text(
        'target = "income"\nclasses = ["<=50K", ">50K"]\ndrop = ["id"]\nunknown_values = "?"\n'
        '[bounds]\nage = [17, 90]\n[categories]\nsex = ["Female", "Male"]\n'
    )
    out = tmp_path / "model.joblib"
    assert main(["fit", str(data), "--config", str(config), "--epsilon", "4",
                 "--random-state", "0", "--output", str(out), "--verbose", "1"]) == 0
    printed = capsys.readouterr().out
    # no accuracy or score of the private data is printed (auto's note may say the word)
    assert "PrivacyReport((" in printed
    assert not re.search(r"(accuracy|score)\W{0,3}\d", printed.lower())
    bundle = joblib.load(out)
    assert bundle["feature_columns"] == ["age", "sex"]
    assert bundle["privacy"]["epsilon"] <= 4.0 * (1 + 1e-9)
    rows = pd.DataFrame({"age": [80.0, 20.0], "sex": ["Male", "Female"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # feature names kept: no "X has feature names" warning
        assert set(bundle["pipeline"].predict(rows)) <= {"<=50K", ">50K"}
    # 1 numeric + 1 group -> rows divided by sqrt(2): norm <= 1 = data_norm, so no clipping
    Z = bundle["pipeline"][:-1].transform(rows)
    assert np.allclose(Z, [[(80 - 17) / 73 / math.sqrt(2), 0, 1 / math.sqrt(2)],
                           [3 / 73 / math.sqrt(2), 1 / math.sqrt(2), 0]])


def test_fit_with_flags_only_ridge(tmp_path, capsys):
    path = tmp_path / "r.csv"
    x = np.random.default_rng(2).uniform(0, 10, 200)
    path.write_text("x,y\n" + "".join(f"{a},{a / 10:.4f}\n" for a in x))
    assert main(["fit", str(path), "--target", "y", "--model", "ridge", "--y-bound", "1",
                 "--bounds", "x=0:10", "--epsilon", "1", "--random-state", "0"]) == 0
    assert "DPRidge" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [(["--target", "nope"], "target column 'nope' is not in the file"),
     (["--target", "income", "--bounds", "age=17:90", "--categories", "sex=Female,Male,?",
       "--drop", "id", "--bounds", "nope=0:1"], "in the config are not in the file"),
     (["--target", "income", "--bounds", "age=17:90", "--bounds", "sex=0:1", "--drop", "id",
       "--classes", "<=50K,>50K"], "non-numeric value"),
     (["--target", "income", "--categories", "sex=Female,Male", "--bounds", "age=90:17",
       "--drop", "id"], "high must be > low")],
)
def test_fit_clear_errors(tmp_path, capsys, extra, message):
    data = _write_csv(tmp_path / "data.csv")
    assert main(["fit", str(data), "--epsilon", "1", "--model", "logistic", *extra]) == 2
    assert message in capsys.readouterr().err


def _toml(tmp_path, text, name="c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BASE = 'target = "income"\ndrop = ["id"]\nunknown_values = "?"\n'


@pytest.mark.parametrize(
    "config, message",
    [('epsilon = [1, 2]\n' + BASE + '[bounds]\nage = [17, 90]\n[categories]\n'
      'sex = ["Female", "Male"]\n', "epsilon must be a number"),
     (BASE + 'bounds = [17, 90]\n[categories]\nsex = ["Female", "Male"]\n',
      "bounds must be a table"),
     (BASE + '[bounds]\nage = 17\n[categories]\nsex = ["Female", "Male"]\n',
      "bounds for column 'age' must be [low, high]"),
     (BASE + '[bounds]\nage = [17]\n[categories]\nsex = ["Female", "Male"]\n',
      "bounds for column 'age' must be [low, high]"),
     (BASE + '[bounds]\nage = [17, "x"]\n[categories]\nsex = ["Female", "Male"]\n',
      "must be a number"),
     (BASE + 'drop2 = 1\n', "unknown key"),
     (BASE + 'log1p = ["age"]\n[categories]\nsex = ["Female", "Male"]\n',
      "log1p column(s) ['age'] need bounds"),
     ('target = "income"\ndrop = "id"\n', "drop must be a list of column names"),
     ('target = [1\n', "is not valid TOML")],
)
def test_malformed_config_is_a_one_line_error(tmp_path, capsys, config, message):
    data = _write_csv(tmp_path / "data.csv")
    assert main(["fit", str(data), "--config", _toml(tmp_path, config), "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_bad_json_and_non_table_json(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    for text, message in (("{nope", "not valid JSON"), ("[1, 2]", "must hold a table")):
        path = _toml(tmp_path, text, "c.json")
        assert main(["fit", str(data), "--config", path, "--epsilon", "1"]) == 2
        assert message in capsys.readouterr().err


def test_duplicate_header_names_are_refused(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("x,x,y\n" + "".join(f"{i % 5},{-i},{i % 2}\n" for i in range(20)))
    assert main(["fit", str(path), "--target", "y", "--bounds", "x=0:5", "--epsilon", "1",
                 "--model", "logistic"]) == 2
    assert "repeats column name(s) ['x']" in capsys.readouterr().err


def test_unreadable_csv_and_unexpected_errors_have_no_traceback(tmp_path, capsys, monkeypatch):
    path = tmp_path / "bin.csv"
    path.write_bytes(b"a,b\n\xff\xfe,1\n\x80,2\n")
    assert main(["fit", str(path), "--target", "b", "--bounds", "a=0:1", "--epsilon", "1",
                 "--model", "logistic"]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err  # the real problem

    def boom(*args, **kwargs):
        raise RuntimeError("something\nunexpected")

    monkeypatch.setattr("skdpgd._cli._fit.fit_csv", boom)
    data = _write_csv(tmp_path / "data.csv")
    assert main(["fit", str(data), "--target", "income", "--bounds", "age=17:90",
                 "--categories", "sex=Female,Male,?", "--drop", "id", "--epsilon", "1",
                 "--classes", "<=50K,>50K"]) == 2
    assert capsys.readouterr().err == "skdpgd fit: error: RuntimeError: something unexpected\n"


@pytest.mark.parametrize("flag", ["--max-iter", "--batch-size"])
def test_account_zero_is_refused_and_auto_is_explicit(flag, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["account", "--epsilon", "1", "--n", "1000", "--solver", "cyclic", flag, "0"])
    assert exit_info.value.code == 2
    assert "must be >= 1 (or 'auto'" in capsys.readouterr().err
    assert main(["account", "--epsilon", "1", "--n", "1000", "--solver", "cyclic",
                 flag, "auto"]) == 0
    capsys.readouterr()
    assert main(["account", "--epsilon", "1", "--n", "1000", "--solver", "cyclic",
                 "--batch-size", "100", "--max-iter", "3"]) == 0
    assert "batch=100, epochs=3" in capsys.readouterr().out


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"skdpgd {skdpgd.__version__}"


def test_fit_passes_solver_c_n_jobs_verbose(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    out = tmp_path / "m.joblib"
    assert main(["fit", str(data), "--target", "income", "--bounds", "age=17:90",
                 "--categories", "sex=Female,Male,?", "--drop", "id", "--epsilon", "2",
                 "--classes", "<=50K,>50K", "--solver", "cyclic", "--C", "3", "--n-jobs", "1", "--verbose", "0",
                 "--random-state", "0", "--output", str(out)]) == 0
    model = joblib.load(out)["pipeline"][-1]
    assert (model.solver, model.C, model.n_jobs, model.verbose) == ("cyclic", 3.0, 1, 0)
    assert "ridge takes alpha" not in capsys.readouterr().err
    assert main(["fit", str(data), "--target", "income", "--bounds", "age=17:90",
                 "--categories", "sex=Female,Male,?", "--drop", "id", "--epsilon", "2",
                 "--model", "logistic", "--alpha", "1"]) == 2
    assert "model 'logistic' takes C" in capsys.readouterr().err


def test_log1p_columns_are_mapped_then_bounded(tmp_path):
    path = tmp_path / "money.csv"
    rng = np.random.default_rng(3)
    gain = np.where(rng.random(100) < 0.9, 0.0, rng.pareto(1.0, 100) * 1e4)
    path.write_text("gain,x,y\n" + "".join(
        f"{g:.2f},{x:.3f},{int(x > 0.5)}\n" for g, x in zip(gain, rng.random(100), strict=True)))
    config = _toml(tmp_path, 'target = "y"\nclasses = ["0", "1"]\nlog1p = ["gain"]\n'
                   '[bounds]\ngain = [0, 12]\nx = [0, 1]\n')
    out = tmp_path / "m.joblib"
    assert main(["fit", str(path), "--config", config, "--epsilon", "1", "--random-state", "0",
                 "--output", str(out)]) == 0
    features = joblib.load(out)["pipeline"][:-1]
    rows = pd.DataFrame({"gain": [math.expm1(6.0), -5.0, 1e300], "x": [0.5, 0.5, 0.5]})
    Z = features.transform(rows) * math.sqrt(2)  # undo the public row scaling
    # Output columns: plain numeric ones (x), then the log1p ones (gain).
    # log1p(e^6 - 1) = 6 -> 6/12; a negative value maps to log1p(0) = 0; 1e300 -> clipped to 1
    assert np.allclose(Z[:, 0], 0.5) and np.allclose(Z[:, 1], [0.5, 0.0, 1.0])


def test_fit_missing_file(tmp_path, capsys):
    assert main(["fit", str(tmp_path / "none.csv"), "--target", "y", "--epsilon", "1",
                 "--model", "logistic"]) == 2
    assert "not found" in capsys.readouterr().err


# -- demo and the module entry point ----------------------------------------------------

def test_demo_prints_the_table(capsys):
    assert main(["demo", "--epsilons", "2", "inf", "--seeds", "0"]) == 0
    out = capsys.readouterr().out
    assert "scikit-learn LogisticRegression" in out and "DPLogisticRegression" in out
    assert "PrivacyReport((2, " in out  # the report of the finite-epsilon fit


def test_python_dash_m_runs_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "skdpgd", "account", "--epsilon", "2", "--n", "1000"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "calibrated run" in result.stdout



def test_fit_summary_prints_the_private_coefficient_table(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv", n=2000)
    config = tmp_path / "bounds.toml"
    config.write_text(
        'target = "income"\nclasses = ["<=50K", ">50K"]\ndrop = ["id"]\nunknown_values = "?"\n'
        '[bounds]\nage = [17, 90]\n[categories]\nsex = ["Female", "Male"]\n'
    )
    assert main(["fit", str(data), "--config", str(config), "--epsilon", "4",
                 "--random-state", "0", "--summary", "--verbose", "1"]) == 0
    printed = capsys.readouterr().out
    assert "Private coefficient table" in printed and "intercept" in printed
    assert "InferencePrivacyReport((" in printed  # one report: the run and the releases
    assert "p_value" in printed
