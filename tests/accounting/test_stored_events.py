"""The ledger's stored event format follows its evolution rules (docs/architecture.md).

A ledger file stores every event as ``PrivacyEvent.to_dict()``. The rules, as
``dp_accounting``'s ``dp_event.py`` states its own: a stored kind is never removed or
renamed, its fields never change meaning; new kinds are added under new names. The table
below is frozen: it may only grow. Removing or renaming a kind, or changing its fields,
fails here; so does registering a kind without adding it to the table.
"""

import json
from pathlib import Path

import pytest

from skdpgd.accounting import (
    GaussianDpEvent,
    GaussianDpWithDeltaEvent,
    PoissonSampledGaussianEvent,
    PrivacyEvent,
    RenyiDpEvent,
    UnsupportedEvent,
    event_from_dict,
    event_to_dict,
)
from skdpgd.accounting._events import event_kinds

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: Every stored kind and its stored fields, in their stored order. Append only.
STORED_KINDS = {
    "gaussian": ("relation", "mu"),
    "gaussian_with_delta": ("relation", "mu", "extra_delta"),
    "poisson_sampled_gaussian": ("relation", "sampling_rate", "noise_multiplier", "n_steps"),
    "renyi": ("relation", "orders", "rdp"),
    "unsupported": ("relation", "reason"),
}

#: JSON texts exactly as the ledger wrote them before the event base existed (the
#: ``isinstance`` chain of commit 8942247), with the event each one means.
OLD_STORED = [
    ('{"kind": "gaussian", "relation": "replace-one", "mu": 0.7}', GaussianDpEvent(0.7)),
    ('{"kind": "gaussian", "relation": "replace-one", "mu": "inf"}',
     GaussianDpEvent(float("inf"))),
    ('{"kind": "gaussian", "relation": "add-or-remove-one", "mu": 0.2}',
     GaussianDpEvent(0.2, "add-or-remove-one")),
    ('{"kind": "gaussian_with_delta", "relation": "replace-one", "mu": 0.5, '
     '"extra_delta": 1e-06}', GaussianDpWithDeltaEvent(0.5, 1e-6)),
    ('{"kind": "poisson_sampled_gaussian", "relation": "replace-one", "sampling_rate": 0.01, '
     '"noise_multiplier": 1.1, "n_steps": 500}', PoissonSampledGaussianEvent(0.01, 1.1, 500)),
    ('{"kind": "poisson_sampled_gaussian", "relation": "replace-one", "sampling_rate": 0.5, '
     '"noise_multiplier": "inf", "n_steps": 0}',
     PoissonSampledGaussianEvent(0.5, float("inf"), 0)),
    ('{"kind": "renyi", "relation": "replace-one", "orders": [2.0, 4.0], "rdp": [0.1, "inf"]}',
     RenyiDpEvent((2.0, 4.0), (0.1, float("inf")))),
    ('{"kind": "unsupported", "relation": "replace-one", "reason": "uniform batches"}',
     UnsupportedEvent("uniform batches")),
]


@pytest.mark.parametrize("kind", sorted(STORED_KINDS))
def test_every_stored_kind_is_still_registered_with_its_fields(kind):
    registered = event_kinds()
    assert kind in registered, f"stored kind {kind!r} was removed or renamed"
    assert registered[kind].kind == kind
    assert registered[kind].stored_fields() == STORED_KINDS[kind]


def test_every_registered_kind_is_in_the_frozen_table():
    new = sorted(set(event_kinds()) - set(STORED_KINDS))
    assert not new, f"add these kinds (and their fields) to STORED_KINDS: {new}"


@pytest.mark.parametrize("text, event", OLD_STORED, ids=[t[9:40] for t, _ in OLD_STORED])
def test_old_stored_events_load_and_are_written_back_unchanged(text, event):
    loaded = event_from_dict(json.loads(text))
    assert loaded == event and type(loaded) is type(event)
    assert json.dumps(event_to_dict(loaded)) == text
    assert PrivacyEvent.from_dict(json.loads(text)) == event


def test_an_unknown_or_foreign_kind_is_refused():
    with pytest.raises(ValueError, match="not a serialised privacy event"):
        event_from_dict({"kind": "laplace", "relation": "replace-one", "epsilon": 1.0})
    with pytest.raises(ValueError, match="not a RenyiDpEvent"):
        RenyiDpEvent.from_dict(GaussianDpEvent(0.3).to_dict())
    with pytest.raises(TypeError, match="not a privacy event"):
        event_to_dict({"kind": "gaussian", "mu": 0.3})


@pytest.mark.parametrize("text, found", [
    # the case: a stored delta beside a pure Gaussian kind would load as 0.5-GDP
    ('{"kind": "gaussian", "relation": "replace-one", "mu": 0.5, "extra_delta": 0.9}',
     r"unknown fields \['extra_delta'\]"),
    ('{"kind": "poisson_sampled_gaussian", "relation": "replace-one", "sampling_rate": 0.01, '
     '"noise_multiplier": 1.1, "n_steps": 500, "n_runs": 3}', r"unknown fields \['n_runs'\]"),
    ('{"kind": "gaussian_with_delta", "relation": "replace-one", "mu": 0.5}',
     r"missing fields \['extra_delta'\]"),
    ('{"kind": "gaussian", "mu": 0.7}', r"missing fields \['relation'\]"),
    ('{"kind": "renyi", "relation": "replace-one", "orders": [2.0], "rdp": [0.1], '
     '"scale": 2}', r"unknown fields \['scale'\]"),
])
def test_a_stored_event_with_a_field_its_kind_lacks_or_misses_is_refused(text, found):
    data = json.loads(text)
    for load in (event_from_dict, PrivacyEvent.from_dict, event_kinds()[data["kind"]].from_dict):
        with pytest.raises(ValueError, match=found) as caught:
            load(data)
        assert repr(data) in str(caught.value)


def test_a_stored_kind_names_one_class_forever():
    with pytest.raises(ValueError, match="already GaussianDpEvent"):
        type("Impostor", (PrivacyEvent,), {}, kind="gaussian")
    with pytest.raises(TypeError, match="must name its stored kind"):
        type("Nameless", (PrivacyEvent,), {})
    assert event_kinds()["gaussian"] is GaussianDpEvent


@pytest.mark.parametrize("kind", sorted(STORED_KINDS))
def test_every_event_kind_has_an_api_page_and_is_named_in_the_docs(kind):
    name = event_kinds()[kind].__name__
    assert f"   {name}\n" in (DOCS / "api.rst").read_text(encoding="utf-8")
    assert f"``{kind}``" in (DOCS / "architecture.md").read_text(encoding="utf-8")
