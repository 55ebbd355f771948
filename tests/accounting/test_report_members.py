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
from skdpgd.accounting import ReleasePrivacyReport, gdp_to_delta, gdp_to_epsilon, noisy_gd_report

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


def _theorem_4_2_squares(c, k):  # (1 + c)/(1 - c) (1 - c^K)/(1 + c^K), written out
    return (1 + c) / (1 - c) * (1 - c**k) / (1 + c**k)


def test_convergent_only_where_twice_the_steps_is_within_one_percent():
    # c = 0.99: Theorem 4.2 binds; the first K where the bound at 2K (same noise) is
    # within 1% of the bound at K, found here from the theorem written out
    c, run = 0.99, dict(delta=1e-5, sensitivity=1.0, n_samples=100, learning_rate=1.0,
                        strong_convexity=0.01, smoothness=1.0)
    first = next(k for k in range(2, 10_000)
                 if _theorem_4_2_squares(c, 2 * k) <= 1.01**2 * _theorem_4_2_squares(c, k))
    ratio = math.sqrt(_theorem_4_2_squares(c, 2 * first) / _theorem_4_2_squares(c, first))
    assert 1.0095 < ratio <= 1.01  # the rule's edge, not a rounding of it
    at = noisy_gd_report(1.0, first, **run).binding_bound
    before = noisy_gd_report(1.0, first - 1, **run).binding_bound
    assert at == "Theorem 4.2 (strongly convex), convergent"
    assert before == "Theorem 4.2 (strongly convex), not converged"
    # past Theorem 4.3's burn-in the bound is constant: convergent; before it, composition
    ball = dict(run, strong_convexity=0.0, diameter=0.01)  # x = D n / (S eta) = 1
    assert noisy_gd_report(0.01, 100, **ball).binding_bound == (
        "Theorem 4.3 (convex, bounded domain), convergent")
    assert noisy_gd_report(0.01, 1, **ball).binding_bound == "Theorem 4.1 (composition)"
