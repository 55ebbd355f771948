"""The coefficient table: its numbers, its missing entries, its maps to other units, its
text (docs/theory.md, "Private inference for the coefficients")."""

import numpy as np
import pytest
from scipy.stats import norm

from skdpgd.inference import CoefficientTable
from skdpgd.inference._fit import reliability_note


@pytest.mark.parametrize("ratio", [0.5004, 0.50000001, 0.52, 3.0])
def test_the_warning_prints_a_ratio_above_its_limit(ratio):
    note = reliability_note({"hessian_noise_ratio": ratio})
    shown = note.split("(ratio ")[1].split(" >")[0]
    assert float(shown) > 0.5  # ':.2g' printed 0.5004 as "0.5 > 0.5"


def _table():
    cov = np.array([[0.25, 0.05, 0.0], [0.05, 1.0, 0.1], [0.0, 0.1, 4.0]])
    return CoefficientTable(["a", "b", "intercept"], [1.0, -0.5, 3.0], cov, ("n1",),
                            covers="the target", row_notes=("", "ref", ""))


def test_a_row_without_variance_has_no_interval_and_no_p_value():
    table = _table()
    table.covariance[1, :] = table.covariance[:, 1] = np.nan
    ci, p = table.conf_int(), table.pvalues
    assert np.isnan(ci[1]).all() and np.isnan(p[1])  # was p = 0: se NaN read as se = 0
    np.testing.assert_allclose(p[[0, 2]], 2 * norm.sf(np.abs([1.0, 3.0]) / [0.5, 2.0]))
    np.testing.assert_allclose(ci[0], [1.0 - norm.ppf(0.975) * 0.5, 1.0 + norm.ppf(0.975) * 0.5])


def test_an_affine_map_changes_estimate_and_covariance_together():
    table = _table()
    J = np.diag([2.0, 2.0, 2.0])
    J[2, 0] = -1.0  # the intercept picks up -a (a shift of the first column's origin)
    shift = np.array([0.0, 0.0, 10.0])
    out = table.mapped(J, shift, notes=("units",))
    np.testing.assert_allclose(out.estimate, J @ table.estimate + shift)
    np.testing.assert_allclose(out.covariance, J @ table.covariance @ J.T)
    assert out.notes == ("units",) and out.covers == "the target"
    assert out.row_notes == table.row_notes and out.names == table.names


def test_a_nan_reaches_only_the_rows_that_use_it():
    table = _table()
    table.covariance[1, :] = table.covariance[:, 1] = np.nan
    J = np.diag([2.0, 3.0, 1.0])
    J[2, 0] = 1.0
    out = table.mapped(J)
    se = out.std_err
    assert np.isnan(se[1]) and np.isfinite(se[[0, 2]]).all()  # 0 * NaN would spread it
    np.testing.assert_allclose(se[0], 2 * 0.5)
    np.testing.assert_allclose(se[2] ** 2, 0.25 + 4.0 + 2 * 0.0)


def test_text_shows_what_the_intervals_cover_and_the_row_notes():
    text = _table().text()
    lines = text.splitlines()
    assert lines[1] == "covers: the target"
    assert any(line.startswith("b ") and line.endswith("  ref") for line in lines)
    assert "note: n1" in lines
    frame = _table().frame()
    assert list(frame["note"]) == ["", "ref", ""]
    assert frame.attrs["covers"] == "the target"


def test_a_table_with_inconsistent_shapes_is_refused():
    with pytest.raises(ValueError, match="needs 2 estimates"):
        CoefficientTable(["a", "b"], [1.0], np.eye(2))
