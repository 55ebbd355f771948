"""How reports print numbers: privacy losses rounded up, 4 significant digits."""

import math

import numpy as np
import pytest

from skdpgd import DPLogisticRegression
from skdpgd.accounting._report import format_contraction, format_up


@pytest.mark.parametrize("value, text", [
    (1.9999999999977915, "2"),  # a calibrated epsilon = 2 run
    (2.0, "2"), (1.1, "1.1"), (4.01077, "4.011"), (0.250657, "0.2507"),
    (3.0703e-06, "3.071e-06"), (1e-05, "1e-05"), (math.inf, "inf"), (0.0, "0"),
])
def test_format_up_values(value, text):
    assert format_up(value) == text


def test_format_up_never_prints_below_the_value():
    rng = np.random.default_rng(0)
    values = np.exp(rng.uniform(-30, 30, size=2000))
    for value in values:
        printed = float(format_up(value))
        # Rounded up to 4 significant digits: at most one unit in the 4th digit above.
        assert value <= printed <= value * (1 + 1e-3) * (1 + 1e-15)


def test_contraction_close_to_one_is_not_printed_as_one():
    assert format_contraction(0.99999998) == "1 - 2e-08"
    assert format_contraction(0.5) == "0.5"


def test_report_prints_rounded_claims():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 3)) / np.sqrt(3)
    y = (X[:, 0] > 0).astype(int)
    report = DPLogisticRegression(epsilon=2.0, delta=1e-5, classes=[0, 1], max_iter=50,
                                  random_state=0).fit(X, y).privacy_
    text = repr(report)
    assert text.startswith("PrivacyReport((2, 1e-05)-DP, mu=")
    assert str(report) == text
    assert "0000000" not in text and "9999999" not in text  # no float noise anywhere
    assert report.epsilon <= 2.0  # the attribute keeps full precision


def test_estimator_repr_shows_the_budget():
    from sklearn.base import clone

    from skdpgd import DPRidge

    assert repr(DPLogisticRegression()) == "DPLogisticRegression(epsilon=1.0, delta='auto')"
    assert repr(DPRidge(epsilon=0.5, delta=1e-6, y_bound=2.0, max_iter=10)) == (
        "DPRidge(epsilon=0.5, delta=1e-06, max_iter=10, y_bound=2.0)"
    )
    model = DPLogisticRegression(epsilon=4.0, C=2.0)
    assert repr(clone(model)) == repr(model) == (
        "DPLogisticRegression(epsilon=4.0, delta='auto', C=2.0)"
    )
