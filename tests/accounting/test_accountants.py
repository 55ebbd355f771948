"""The accountant interface, its registry, and a new event kind with its own accountant.

References are closed forms computed here (sqrt of a sum of squares, Dong, Roth, Su 2022
Cor. 3.3; alpha mu^2 / 2, their Cor. B.6; basic composition of pure epsilon-DP, Dwork
and Roth 2014 Thm 3.16) or the package's conversion functions applied by hand.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from skdpgd import PrivacyLedger, accounting
from skdpgd.accounting import (
    Accountant,
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    GdpAccountant,
    PldAccountant,
    PoissonSampledGaussianEvent,
    PrivacyEvent,
    RdpAccountant,
    RenyiDpEvent,
    UnsupportedEventError,
    compose,
    event_from_dict,
    event_to_dict,
    get_accountant,
    register_accountant,
)
from skdpgd.accounting._accountants import _base as accountant_base
from skdpgd.accounting._accountants import accountant_for, accountant_names
from skdpgd.accounting._events import _base as event_base

DELTA = 1e-5
ORDERS = tuple(accounting.DEFAULT_ORDERS)
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def registries(monkeypatch):
    """Whatever a test registers is gone afterwards."""
    monkeypatch.setattr(event_base, "_KINDS", dict(event_base._KINDS))
    monkeypatch.setattr(accountant_base, "_ACCOUNTANTS", dict(accountant_base._ACCOUNTANTS))


def test_the_registry_holds_the_three_accountants_in_the_order_tried():
    assert accountant_names() == ("gdp", "pld", "rdp")
    for name, cls in [("gdp", GdpAccountant), ("pld", PldAccountant), ("rdp", RdpAccountant)]:
        accountant = get_accountant(name)
        assert type(accountant) is cls and accountant.name == name
        assert accountant.mu2 == 0.0 and accountant.extra_delta == 0.0
    with pytest.raises(ValueError, match="unknown accountant 'prv'"):
        get_accountant("prv")
    with pytest.raises(ValueError, match="already registered"):
        register_accountant(type("Other", (GdpAccountant,), {"name": "gdp"}))
    with pytest.raises(TypeError, match="not an Accountant"):
        register_accountant(dict)


def test_the_order_tried_is_the_declared_priority_never_the_import_order(registries):
    with pytest.raises(TypeError, match="no integer priority"):
        register_accountant(type("Unordered", (GdpAccountant,), {"name": "u", "priority": None}))
    with pytest.raises(ValueError, match="the priority 10 of"):
        register_accountant(type("Tied", (GdpAccountant,), {"name": "tied", "priority": 10}))
    # registered last, tried first: its priority is the smallest
    first = register_accountant(dataclass(frozen=True)(
        type("First", (GdpAccountant,), {"name": "first", "priority": -1})))
    assert accountant_names() == ("first", "gdp", "pld", "rdp")
    assert type(accountant_for(GaussianDpEvent(0.3))) is first


def test_gdp_accountant_composes_exactly_and_converts_both_ways():
    empty = get_accountant("gdp")
    acc = empty.compose([GaussianDpEvent(0.3), GaussianDpEvent(0.4)]).compose(GaussianDpEvent(1.2))
    assert empty.mu2 == 0.0  # composing never changes an accountant
    assert acc.mu == pytest.approx(1.3, rel=1e-15)
    assert acc.epsilon(DELTA) == accounting.gdp_to_epsilon(acc.mu, DELTA)
    assert acc.delta(acc.epsilon(DELTA)) == pytest.approx(DELTA, rel=1e-6)
    with_delta = acc.compose(GaussianDpWithDeltaEvent(0.0, 2e-6))
    assert with_delta.delta(1.0) == pytest.approx(accounting.gdp_to_delta(1.3, 1.0) + 2e-6,
                                                  rel=1e-12)
    # epsilon at delta is the clean composition's epsilon at delta - 2e-6
    assert with_delta.epsilon(DELTA) == acc.epsilon(DELTA - 2e-6)
    assert with_delta.epsilon(2e-6) == math.inf
    assert not acc.supports(PoissonSampledGaussianEvent(0.1, 1.0, 5))
    assert acc.supports(GaussianDpWithDeltaEvent(0.1, 1e-9))


def test_rdp_accountant_adds_curves_and_its_delta_is_on_the_safe_side():
    acc = get_accountant("rdp").compose(
        [GaussianDpEvent(0.3), RenyiDpEvent(ORDERS, tuple(np.asarray(ORDERS) * 0.08))])
    expected = accounting.rdp_to_epsilon(ORDERS, np.asarray(ORDERS) * (0.09 / 2 + 0.08), DELTA)
    assert acc.epsilon(DELTA) == pytest.approx(expected, rel=1e-12)
    delta = acc.delta(1.0)
    assert acc.epsilon(delta) <= 1.0 and acc.epsilon(delta / (1 + 2e-3)) > 1.0
    assert not acc.supports(PoissonSampledGaussianEvent(0.1, 1.0, 5))
    with pytest.raises(UnsupportedEventError, match="different orders"):
        acc.compose(RenyiDpEvent((2.0, 3.0), (0.1, 0.2)))


def test_pld_accountant_matches_the_composition_function():
    pytest.importorskip("dp_accounting")
    acc = get_accountant("pld").compose(
        [GaussianDpEvent(0.5), PoissonSampledGaussianEvent(0.02, 1.0, 200)])
    assert acc.runs == ((0.02, 1.0, 200),)
    assert acc.epsilon(DELTA) == accounting.composed_replace_one_epsilon(
        DELTA, gaussian_mu=0.5, poisson_runs=((0.02, 1.0, 200),))
    assert not acc.supports(RenyiDpEvent((2.0,), (0.1,)))


@pytest.mark.parametrize("name", ["gdp", "pld", "rdp"])
def test_every_accountant_refuses_another_relation_and_non_events(name):
    acc = get_accountant(name)
    with pytest.raises(UnsupportedEventError, match="add-or-remove-one neighbours"):
        acc.compose(GaussianDpEvent(0.1, "add-or-remove-one"))
    with pytest.raises(UnsupportedEventError, match="Not a privacy event"):
        acc.compose(["mu=0.1"])
    with pytest.raises(ValueError, match="delta must be in"):
        acc.epsilon(0.0)


# A new event kind and its accountant, as docs/architecture.md says to add them: pure
# epsilon-DP, composed by basic composition with the Gaussian part's (epsilon, delta).
@pytest.fixture
def pure_dp(registries):
    @dataclass(frozen=True)
    class PureDpEvent(PrivacyEvent, kind="test_pure_dp"):
        epsilon: float
        relation: accounting.NeighbouringRelation = accounting.NeighbouringRelation.REPLACE_ONE

        def __post_init__(self):
            object.__setattr__(self, "relation",
                               accounting.NeighbouringRelation.parse(self.relation))

        def pure_dp(self):
            return self.epsilon

    @register_accountant
    @dataclass(frozen=True)
    class PureAccountant(Accountant):
        pure_epsilon: float = 0.0
        name = "test_pure"
        priority = 100  # after the built-in ones
        source = "basic composition (Dwork and Roth 2014, Theorem 3.16)"

        def _compose_rest(self, events):
            forms = [event.form("pure_dp") for event in events]  # the currency's one hook
            if None in forms:
                raise UnsupportedEventError("not pure DP")
            return {"pure_epsilon": self.pure_epsilon + sum(forms)}

        def _epsilon(self, delta):
            return self.pure_epsilon + accounting.gdp_to_epsilon(math.sqrt(self.mu2), delta)

    return PureDpEvent


def test_a_new_event_kind_and_its_accountant_work_everywhere(pure_dp):
    event = pure_dp(0.5)
    assert event_from_dict(event_to_dict(event)) == event  # stored by its kind
    comp = compose([GaussianDpEvent(0.3), event], DELTA)
    assert comp.method == "test_pure" and comp.mu is None
    assert comp.epsilon == pytest.approx(0.5 + accounting.gdp_to_epsilon(0.3, DELTA), rel=1e-12)
    ledger = PrivacyLedger()
    ledger.charge_event("toy", event, n_samples=10, epsilon=0.5, delta=0.0)
    ledger.charge_event("toy", GaussianDpEvent(0.3), n_samples=10, epsilon=1.0, delta=DELTA)
    assert ledger.spent(DELTA).epsilon == pytest.approx(comp.epsilon, rel=1e-12)
    # the built-in accountants still refuse it
    assert not get_accountant("gdp").supports(event)
    with pytest.raises(UnsupportedEventError, match="common currency"):
        compose([event, PoissonSampledGaussianEvent(0.1, 1.0, 5)], DELTA)


def test_every_accountant_and_base_has_an_api_page():
    api = (DOCS / "api.rst").read_text(encoding="utf-8")
    architecture = (DOCS / "architecture.md").read_text(encoding="utf-8")
    for name in accountant_names():
        cls = type(get_accountant(name))
        assert f"   {cls.__name__}\n" in api and f"``{name}``" in architecture
    for base in ("PrivacyEvent", "Accountant", "register_accountant", "get_accountant"):
        assert f"   {base}\n" in api
