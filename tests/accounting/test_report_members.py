"""Every privacy report has ``epsilon``, ``delta``, ``epsilon_at`` and ``delta_at``, written
once on :class:`skdpgd.PrivacyReport`.

A report class says only what its curve is (``_curve``); the members are the base's, so
that a report cannot state a point and a curve that disagree.
"""

import dataclasses
import importlib
import inspect
import math
import pkgutil

import pytest

import skdpgd
from skdpgd import PrivacyReport
from skdpgd.accounting import ReleasePrivacyReport, gdp_to_delta, gdp_to_epsilon

MEMBERS = ("epsilon", "delta", "epsilon_at", "delta_at")


def _report_classes():
    """Every class named ``*PrivacyReport`` defined in a module of skdpgd."""
    found = {}
    for info in pkgutil.walk_packages(skdpgd.__path__, "skdpgd."):
        if info.name.startswith("skdpgd._cli") or info.name == "skdpgd.__main__":
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and name.endswith("PrivacyReport")
                    and obj.__module__ == module.__name__):
                found[f"{obj.__module__}.{name}"] = obj
    return found


REPORTS = _report_classes()


def test_the_report_classes_are_found():
    names = {cls.__name__ for cls in REPORTS.values()}
    assert {"PrivacyReport", "ReleasePrivacyReport", "PipelinePrivacyReport",
            "SelectionPrivacyReport", "GridSelectionPrivacyReport",
            "SampledSGDPrivacyReport", "InferencePrivacyReport",
            "NoisyGDPrivacyReport"} <= names


@pytest.mark.parametrize("qualname", sorted(REPORTS))
def test_every_report_has_the_members_from_the_one_base(qualname):
    cls = REPORTS[qualname]
    assert issubclass(cls, PrivacyReport)
    fields = {f.name for f in dataclasses.fields(cls)}
    assert {"epsilon", "delta"} <= fields
    for member in ("epsilon_at", "delta_at"):
        assert callable(getattr(cls, member))
    if cls is PrivacyReport:
        return
    for klass in cls.__mro__[: cls.__mro__.index(PrivacyReport)]:
        overridden = [m for m in MEMBERS if m in vars(klass)]
        assert not overridden, f"{klass.__name__} defines {overridden} again"
        declared = set(getattr(klass, "__annotations__", {}))
        assert not declared & {"epsilon", "delta"}, f"{klass.__name__} redeclares a field"


def test_a_step_release_reads_its_curve_and_states_a_point_when_asked():
    mu, extra = 0.8, 1e-7
    unstated = ReleasePrivacyReport(mu=mu, extra_delta=extra, mechanism="m")
    assert math.isnan(unstated.epsilon) and math.isnan(unstated.delta)
    assert unstated.epsilon_at(1e-5) == float(gdp_to_epsilon(mu, 1e-5 - extra))
    assert unstated.epsilon_at(extra) == math.inf
    assert unstated.delta_at(1.0) == pytest.approx(float(gdp_to_delta(mu, 1.0)) + extra,
                                                   rel=1e-15)
    assert "-DP, mu=" not in repr(unstated) and "mu=0.8-GDP" in repr(unstated)
    stated = ReleasePrivacyReport(mu=mu, extra_delta=extra, mechanism="m", delta=1e-5)
    assert stated.epsilon == unstated.epsilon_at(1e-5)
    assert repr(stated).startswith("ReleasePrivacyReport((") and "-DP, mu=0.8-GDP" in repr(stated)
    # the stored format of a step's report is unchanged: no stated point in it
    assert set(stated.to_dict()) == {"mu", "extra_delta", "mechanism", "releases", "notes",
                                     "neighbouring_relation"}
    assert unstated.event == stated.event
