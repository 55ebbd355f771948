"""Property-based tests (hypothesis) of the accounting inverses used by every fit.

Each property is a statement of docs/theory.md (#bounds, #calibration) that must hold for every input in
the stated ranges, not only on a grid:

* calibrate -> account: the calibrated noise makes the accountant return an epsilon that
  never exceeds the target and is within 1e-6 relative of it (conservative and tight);
* the GDP <-> (epsilon, delta) conversions invert each other, and a report's
  ``epsilon_at`` / ``delta_at`` are inverse functions;
* more noise never costs more privacy.

Tolerances: calibration nudges sigma up by factors of 1 + 1e-12 until the accountant agrees
(skdpgd.accounting._calibration), so the returned epsilon is below the target by at most
~1e-9 relative; 1e-6 is the round-trip (docs/theory.md#exactness-checks) tolerance.
"""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from skdpgd import accounting

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)

epsilons = st.floats(min_value=0.05, max_value=20.0)
log10_deltas = st.floats(min_value=-10.0, max_value=-3.0)
ns = st.integers(min_value=10, max_value=10**6)
steps = st.integers(min_value=1, max_value=2000)
ratios = st.floats(min_value=1e-4, max_value=0.99)  # lam / beta
step_fractions = st.floats(min_value=0.05, max_value=1.0)  # eta as a fraction of 2/(beta+lam)


def _gd_constants(ratio, fraction):
    beta = 1.0
    lam = ratio * beta
    return dict(learning_rate=fraction * 2.0 / (beta + lam), strong_convexity=lam, smoothness=beta)


@SETTINGS
@given(epsilons, log10_deltas, ns, steps, ratios, step_fractions)
def test_calibrated_full_batch_run_meets_its_target_tightly(eps, log_delta, n, k, ratio, fraction):
    delta = 10.0**log_delta
    constants = dict(sensitivity=2.0, n_samples=n, **_gd_constants(ratio, fraction))
    sigma = accounting.calibrate_noisy_gd(eps, delta, n_steps=k, **constants)
    achieved = accounting.gdp_to_epsilon(accounting.noisy_gd_gdp(sigma, k, **constants), delta)
    assert achieved <= eps
    assert achieved >= eps * (1 - 1e-6)
    # more noise: never more privacy loss
    assert accounting.noisy_gd_gdp(sigma * 1.5, k, **constants) <= accounting.noisy_gd_gdp(
        sigma, k, **constants
    )


@SETTINGS
@given(
    epsilons,
    log10_deltas,
    st.integers(min_value=20, max_value=10**5),
    st.integers(1, 60),
    st.integers(1, 16),
    ratios,
    step_fractions,
)
def test_calibrated_cyclic_run_meets_its_target_tightly(
    eps, log_delta, n, epochs, n_batches, ratio, fraction
):
    delta = 10.0**log_delta
    batch = max(1, -(-n // n_batches))
    constants = dict(
        sensitivity=2.0, n_samples=n, batch_size=batch, **_gd_constants(ratio, fraction)
    )
    sigma = accounting.calibrate_noisy_cyclic_gd(eps, delta, n_epochs=epochs, **constants)
    mu = accounting.noisy_cyclic_gd_gdp(sigma, epochs, **constants)
    achieved = accounting.gdp_to_epsilon(mu, delta)
    assert eps * (1 - 1e-6) <= achieved <= eps


@SETTINGS
@given(epsilons, log10_deltas, ns, steps, ratios)
def test_report_epsilon_at_and_delta_at_are_inverses(eps, log_delta, n, k, ratio):
    delta = 10.0**log_delta
    constants = dict(sensitivity=2.0, n_samples=n, **_gd_constants(ratio, 1.0))
    sigma = accounting.calibrate_noisy_gd(eps, delta, n_steps=k, **constants)
    report = accounting.noisy_gd_report(sigma, k, delta=delta, **constants)
    assert report.epsilon <= eps
    # delta_at(epsilon) is the smallest delta for that epsilon: at most the asked delta, and
    # epsilon_at of it gives the epsilon back (both are monotone bijections on the curve).
    d = report.delta_at(report.epsilon)
    assert d <= delta * (1 + 1e-6)
    assert math.isclose(report.epsilon_at(d), report.epsilon, rel_tol=1e-6, abs_tol=1e-9)


@SETTINGS
@given(st.floats(min_value=0.01, max_value=30.0), log10_deltas)
def test_gdp_of_a_looser_target_is_never_smaller(eps, log_delta):
    delta = 10.0**log_delta
    mu = accounting.epsilon_delta_to_gdp(eps, delta)
    assert accounting.epsilon_delta_to_gdp(eps * 1.01, delta) >= mu
    assert accounting.epsilon_delta_to_gdp(eps, delta * 1.01) >= mu
    assert accounting.gdp_to_delta(mu, eps) <= delta * (1 + 1e-9)
