"""``skdpgd account`` says which bound binds and what every bound gives at the run's noise."""

import math
import re

from skdpgd import accounting
from skdpgd._cli import main


def _account(capsys, *flags):
    assert main(["account", "--epsilon", "1", *flags]) == 0
    return capsys.readouterr().out


def _bound_line(out, name):
    """(mu, epsilon) printed for bound ``name``, or the reason it is not a number."""
    line = next(line for line in out.splitlines() if line.startswith(f"  {name}"))
    found = re.search(r"mu=([0-9.e+-]+), epsilon=([0-9.e+-]+)", line)
    return (float(found.group(1)), float(found.group(2))) if found else line


def _number(out, key):
    return float(re.search(rf"{key}=([0-9.e+-]+)", out).group(1))


def test_default_gd_on_adult_shape_names_composition_and_the_burn_in(capsys):
    # Adult's shape (32,561 rows, 104 public-bound columns): lam near 0, K = 1000 steps
    out = _account(capsys, "--n", "32561", "--n-features", "104", "--solver", "gd")
    assert "binding bound: Theorem 4.1 (composition);" in out
    mu, eps = _bound_line(out, "Theorem 4.1 (composition)")
    assert abs(eps - 1.0) < 1e-6  # the calibrated run meets the target under composition
    sigma, k, s = _number(out, "sigma"), _number(out, "K"), _number(out, "S")
    assert math.isclose(mu, math.sqrt(k) * s / (32561 * sigma), rel_tol=1e-5)  # S sqrt K/(n s)
    assert "below its burn-in" in _bound_line(out, "Theorem 4.3 (convex, bounded domain)")


def test_unregularised_ball_past_its_burn_in_binds_theorem_4_3(capsys):
    # r = 1, n = 750: x = D n/(S eta) is a few hundred; 20,000 steps are far past 4x
    out = _account(capsys, "--n", "750", "--n-features", "104", "--solver", "gd",
                   "--regularization", "inf", "--max-coef-norm", "1", "--max-iter", "20000")
    assert "binding bound: Theorem 4.3 (convex, bounded domain), convergent;" in out
    sigma, s, eta = _number(out, "sigma"), _number(out, "S"), _number(out, "eta")
    _, eps = _bound_line(out, "Theorem 4.3 (convex, bounded domain)")
    assert abs(eps - 1.0) < 1e-6
    # Theorem 4.3 by hand: mu^2 = (S/(n sigma))^2 (3x + ceil(x)), x = D n/(S eta), D = 2r
    x = 2.0 * 750 / (s * eta)
    assert 4 * x < 20000
    by_hand = s / (750 * sigma) * math.sqrt(3 * x + math.ceil(x))
    delta = _number(out, "epsilon=1 at delta")
    assert abs(accounting.epsilon_of(by_hand, delta) - 1.0) < 1e-4  # rounded print of S, eta
    mu_c, eps_c = _bound_line(out, "Theorem 4.1 (composition)")
    assert math.isclose(mu_c, math.sqrt(20000) * s / (750 * sigma), rel_tol=1e-5)
    assert eps_c > 1.5  # what composition would claim at this noise
    assert "does not apply: c = 1" in _bound_line(out, "Theorem 4.2 (strongly convex)")


def test_default_cyclic_names_the_gain_across_batches(capsys):
    out = _account(capsys, "--n", "32561", "--n-features", "104", "--solver", "cyclic")
    assert ("binding bound: Theorem 4.5 (shifted interpolation across batches, not "
            "converged);") in out
    _, eps_sc = _bound_line(out, "Theorem 4.5 (strongly convex)")
    _, eps_c = _bound_line(out, "Theorem 4.4 (composition)")
    assert abs(eps_sc - 1.0) < 1e-6 and eps_c > 1.0


def test_auto_says_composition_of_the_gram_release_and_the_run(capsys):
    out = _account(capsys, "--n", "32561", "--n-features", "104")
    assert "binding bound: composition" in out


def test_unregularised_without_a_radius_is_refused(capsys):
    assert main(["account", "--epsilon", "1", "--n", "750", "--solver", "gd",
                 "--regularization", "inf"]) == 2
    assert "max_coef_norm" in capsys.readouterr().err


def test_unregularised_cyclic_prints_theorem_4_5_at_its_c_1_limit(capsys):
    # lam = 0 (C = inf): Theorem 4.5's factor tends to sqrt(1 + (E - 1)/l) as c -> 1, which
    # is finite, so the line gives a number and does not call the bound strongly convex
    out = _account(capsys, "--n", "32561", "--n-features", "104", "--solver", "cyclic",
                   "--regularization", "inf", "--max-coef-norm", "1")
    assert "binding bound: Theorem 4.5" in out
    assert "  Theorem 4.5 (strongly convex)" not in out
    mu_limit, _ = _bound_line(out, "Theorem 4.5 (its c = 1 limit, lam = 0)")
    mu_c, _ = _bound_line(out, "Theorem 4.4 (composition)")
    k, epochs = _number(out, "K"), _number(out, "epochs")
    batches = k / epochs
    # composition's unit is mu_c/sqrt(E); the limit's factor is sqrt(1 + (E - 1)/l)
    by_hand = mu_c / math.sqrt(epochs) * math.sqrt(1.0 + (epochs - 1.0) / batches)
    assert math.isclose(mu_limit, by_hand, rel_tol=1e-5)
    assert mu_limit < mu_c
    assert abs(accounting.epsilon_of(mu_limit, _number(out, "epsilon=1 at delta")) - 1.0) < 1e-4  # rounded delta
