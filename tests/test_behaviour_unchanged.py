"""The same public inputs and seed give the same fit as the recorded baseline.

``tests/data/behaviour_baseline.json`` was recorded by
``tests/data/record_behaviour_baseline.py`` at the commit it names, before a change that
must not alter behaviour (refactors, speed work). For every solver x model x input kind
the fit must reproduce ``coef_`` and ``intercept_`` to 1e-9 relative (summation order
may move the last bits of a sum of a few hundred terms, about 1e-15 relative each,
amplified by at most a few hundred noisy steps; an algorithmic change moves them by far
more than 1e-9, since each step adds noise of relative size ~1e-1), and the reported
``mu``, ``epsilon`` (to 1e-12, planning is pure arithmetic on public numbers) and
``n_iter_`` exactly, and the reported epsilon never above the target. For float32 inputs
the products are float32 sums (numpy and BLAS keep X's dtype), whose rounding is about
6e-8 relative per term instead of 1e-16: a change of summation order moves such fits by
about 1e-8 relative (seen when the multinomial loss's ``X.T @ R`` moved from einsum to
BLAS), so their tolerance is 1e-6 relative, still five orders of magnitude below any
algorithmic change. Where the
recorded report itself was wrong, the JSON's ``"corrected"`` entry holds the right one and
says why. The one exception is the epsilon of ``solver="sgd"``: it comes from
``dp_accounting``'s privacy-loss-distribution accountant, whose FFT convolutions round
differently across machines and library builds (2e-12 relative seen between two
machines with the same versions), so it is compared to 1e-9 relative, the tolerance of the
coefficients, still far below any change of the noise or the number of steps.
"""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

_DATA = Path(__file__).parent / "data"
_spec = importlib.util.spec_from_file_location(
    "record_behaviour_baseline", _DATA / "record_behaviour_baseline.py"
)
_recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_recorder)
make_data, make_estimator = _recorder.make_data, _recorder.make_estimator

BASELINE = json.loads((_DATA / "behaviour_baseline.json").read_text())


@pytest.mark.parametrize("case", sorted(BASELINE["cases"]))
def test_fit_reproduces_the_recorded_baseline(case):
    solver, model, kind = case.split("-")
    if solver == "sgd":
        pytest.importorskip("dp_accounting")
    # where the recorded report was wrong, its correction (the JSON's "corrected" says why)
    expected = {**BASELINE["cases"][case], **BASELINE["corrected"]["cases"].get(case, {})}
    X, y = make_data(model, kind)
    est = make_estimator(model, solver).fit(X, y)
    coef = np.asarray(est.coef_, float)
    tolerance = 1e-6 if kind == "float32" else 1e-9  # float32 sums' rounding (docstring)
    np.testing.assert_allclose(coef, expected["coef"], rtol=0,
                               atol=tolerance * max(1.0, np.abs(expected["coef"]).max()))
    np.testing.assert_allclose(np.atleast_1d(est.intercept_), expected["intercept"], rtol=0,
                               atol=tolerance * max(1.0, np.abs(expected["intercept"]).max()))
    assert est.n_iter_ == expected["n_iter"]
    epsilon_rel = 1e-9 if solver == "sgd" else 1e-12  # PLD's FFT rounding (docstring)
    assert est.privacy_.epsilon == pytest.approx(expected["epsilon"], rel=epsilon_rel)
    if expected["mu"] is not None:
        assert est.privacy_.mu == pytest.approx(expected["mu"], rel=1e-12)
    assert est.privacy_.epsilon <= est.epsilon  # never above the target, not even by 1e-10
