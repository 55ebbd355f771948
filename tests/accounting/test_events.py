"""Privacy events and their composition: what is composed, how, and what is refused.

References are closed forms computed here: sqrt of a sum of squares (Dong, Roth, Su 2022,
Cor. 3.3), the RDP curve alpha mu^2 / 2 of a Gaussian, dp-accounting's own PLD.
"""

import math

import numpy as np
import pytest

from skdpgd import DPLogisticRegression, PrivacyLedger, accounting
from skdpgd.accounting import (
    Cap,
    GaussianDpEvent,
    NeighbouringRelation,
    PoissonSampledGaussianEvent,
    RecordAccount,
    RenyiDpEvent,
    UnsupportedEvent,
    UnsupportedEventError,
    check_supported,
    compose,
    event_from_dict,
    event_to_dict,
)

ORDERS = tuple(accounting.DEFAULT_ORDERS)
DELTA = 1e-5


def _renyi(mu):
    return RenyiDpEvent(ORDERS, tuple(np.asarray(ORDERS) * mu * mu / 2.0))


def test_events_validate_their_parameters_and_state_a_relation():
    assert GaussianDpEvent(0.5).relation is NeighbouringRelation.REPLACE_ONE
    assert GaussianDpEvent(0.5, "add-or-remove-one").relation is (
        NeighbouringRelation.ADD_OR_REMOVE_ONE)
    with pytest.raises(ValueError, match="mu"):
        GaussianDpEvent(float("nan"))
    with pytest.raises(ValueError, match="sampling_rate"):
        PoissonSampledGaussianEvent(1.5, 1.0, 10)
    with pytest.raises(ValueError, match="one value >= 0 per order"):
        RenyiDpEvent((2.0, 3.0), (0.1,))
    with pytest.raises(ValueError, match="neighbouring relation"):
        GaussianDpEvent(0.5, "swap")


@pytest.mark.parametrize("event", [
    GaussianDpEvent(0.7), GaussianDpEvent(math.inf), PoissonSampledGaussianEvent(0.01, 1.1, 500),
    _renyi(0.3), UnsupportedEvent("why"), GaussianDpEvent(0.2, "add-or-remove-one"),
])
def test_events_round_trip_through_plain_dicts(event):
    import json

    assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def test_gaussian_events_compose_exactly():
    mus = [0.3, 0.4, 1.2]
    comp = compose([GaussianDpEvent(m) for m in mus], DELTA)
    assert comp.method == "gdp" and comp.mu == pytest.approx(1.3, rel=1e-15)
    assert accounting.gdp_to_delta(1.3, comp.epsilon) == pytest.approx(DELTA, rel=1e-6)


def test_renyi_events_add_up_with_the_gaussian_part():
    comp = compose([GaussianDpEvent(0.3), _renyi(0.4)], DELTA)
    # a Gaussian given as RDP composes with one given as mu: (alpha (0.09 + 0.16) / 2)
    expected = accounting.rdp_to_epsilon(ORDERS, np.asarray(ORDERS) * 0.25 / 2, DELTA)
    assert comp.method == "rdp" and comp.mu is None
    assert comp.epsilon == pytest.approx(expected, rel=1e-12)


def test_poisson_runs_compose_with_the_gaussian_part_by_pld():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    comp = compose([GaussianDpEvent(0.5), PoissonSampledGaussianEvent(0.02, 1.0, 200)], DELTA)
    acc = pld_privacy_accountant.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE,
                                               value_discretization_interval=1e-3)
    acc.compose(dpa.GaussianDpEvent(2.0 / 0.5))  # replace-one shift 2: exactly 0.5-GDP
    acc.compose(dpa.PoissonSampledDpEvent(0.02, dpa.GaussianDpEvent(1.0)), 200)
    assert comp.method == "pld" and comp.epsilon == pytest.approx(acc.get_epsilon(DELTA),
                                                                  rel=1e-9)


@pytest.mark.parametrize("events, message", [
    ([GaussianDpEvent(0.1, "add-or-remove-one")], "add-or-remove-one neighbours"),
    ([UnsupportedEvent("uniform batches")], "uniform batches"),
    ([_renyi(0.1), PoissonSampledGaussianEvent(0.1, 1.0, 5)], "common currency"),
    ([_renyi(0.1), RenyiDpEvent((2.0, 4.0), (0.1, 0.2))], "different orders"),
    (["mu=0.1"], "Not a privacy event"),
])
def test_unsupported_events_are_refused(events, message):
    with pytest.raises(UnsupportedEventError, match=message):
        check_supported(events)
    with pytest.raises(UnsupportedEventError, match=message):
        compose(events, DELTA)


def test_ledger_refuses_an_unsupported_event_before_recording():
    ledger = PrivacyLedger()
    with pytest.raises(UnsupportedEventError, match="add-or-remove"):
        ledger.charge_event("x", GaussianDpEvent(0.1, "add-or-remove-one"), n_samples=10,
                            epsilon=1.0, delta=DELTA)
    ledger.charge_event("x", _renyi(0.2), n_samples=10, epsilon=1.0, delta=DELTA)
    with pytest.raises(UnsupportedEventError, match="common currency"):
        ledger.charge_event("y", PoissonSampledGaussianEvent(0.1, 1.0, 5), n_samples=10,
                            epsilon=1.0, delta=DELTA)
    assert len(ledger.entries) == 1


def test_cap_is_exact_for_gaussian_compositions():
    cap = Cap(1.0, DELTA)
    assert cap.mu == pytest.approx(accounting.epsilon_delta_to_gdp(1.0, DELTA), rel=1e-15)
    assert cap.admits(compose([GaussianDpEvent(cap.mu)], DELTA))
    assert not cap.admits(compose([GaussianDpEvent(cap.mu * (1 + 1e-12))], DELTA))


def test_record_account_is_immutable_and_per_record():
    empty = RecordAccount()
    a = empty.add(GaussianDpEvent(0.3), np.arange(5))
    b = a.add(GaussianDpEvent(0.4), np.arange(3, 8))
    assert empty.ids.size == 0 and a.ids.size == 5  # adding never changes the original
    np.testing.assert_allclose(b.mu_per_record([0, 4, 7, 99]), [0.3, 0.5, 0.4, 0.0])
    assert b.worst(DELTA).mu == pytest.approx(0.5, rel=1e-15)


def test_reports_expose_their_events():
    gd = DPLogisticRegression(epsilon=1.0, classes=[0, 1]).plan_privacy(500, 4)
    assert gd.event == GaussianDpEvent(gd.mu)
    cyclic = DPLogisticRegression(epsilon=1.0, classes=[0, 1], solver="cyclic").plan_privacy(
        500, 4)
    assert cyclic.event == GaussianDpEvent(cyclic.mu)
    pytest.importorskip("dp_accounting")
    sgd = DPLogisticRegression(epsilon=1.0, classes=[0, 1], solver="sgd").plan_privacy(500, 4)
    event = sgd.event
    assert isinstance(event, PoissonSampledGaussianEvent)
    assert event.run == pytest.approx((sgd.sampling_rate,
                                       sgd.noise_std * sgd.batch_size / sgd.gradient_bound,
                                       sgd.n_steps), rel=1e-15)
    # composition with amplification covers the run: never below the report's own epsilon
    assert compose([event], sgd.delta).epsilon >= sgd.epsilon * (1 - 1e-9)
