"""The private type vote in Python (DPTableVectorizer(types=...)) and the per-column
summary: which columns are voted, what the vote costs, what the summary shows."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.exceptions import PreparationFallbackWarning
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._type_vote import number_minus_text, type_vote, vote_sigma

N = 4000


def _frame(seed=0, n=N):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 91, n),
        "hours": rng.uniform(1, 80, n),
        "city": rng.choice(["Lyon", "Oslo", "Rome"], n).astype(object),
        "code": np.where(rng.random(n) < 0.95, rng.integers(0, 50, n).astype(str), "?"
                         ).astype(object),  # numbers read as text, 5% "?"
        "cat": pd.Categorical(rng.choice(["u", "v"], n)),
    })


def _fit(X, **params):
    params.setdefault("random_state", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreparationFallbackWarning)
        return DPTableVectorizer(**params).fit(X)


def test_auto_votes_on_object_columns_only():
    vec = _fit(_frame())
    assert vec.types_ == {"age": ("numeric", "dtype"), "hours": ("numeric", "dtype"),
                          "city": ("categorical", "vote"), "code": ("numeric", "vote"),
                          "cat": ("categorical", "dtype")}
    vote = [name for name, _ in vec.privacy_.releases if name.startswith("type vote")]
    assert vote == ["type vote of ['city', 'code']"]
    # a declared column is not voted, and "dtype" votes on nothing
    declared = _fit(_frame(), column_types={"code": "categorical"})
    assert declared.types_["code"] == ("categorical", "declared")
    assert "code" not in str([r for r in declared.privacy_.releases if "vote" in r[0]])
    assert all(source != "vote" for _, source in _fit(_frame(), types="dtype").types_.values())


def test_vote_on_every_column_on_request():
    vec = _fit(_frame(), types="vote", bounds={"age": (0, 120)})
    assert vec.types_["age"] == ("numeric", "declared")
    assert {name for name, (_, source) in vec.types_.items() if source == "vote"} == {
        "hours", "city", "code", "cat"}
    assert vec.types_["hours"][0] == "numeric" and vec.types_["cat"][0] == "categorical"


def test_an_object_array_of_a_mixed_frame_gets_its_numeric_columns_back():
    frame = _frame()[["age", "hours", "city"]]
    array = frame.to_numpy()  # dtype object: every column looks categorical
    with pytest.warns(PreparationFallbackWarning, match="every column of the array"):
        as_dtype = DPTableVectorizer(types="dtype", random_state=0).fit(array)
    assert [kind for kind, _ in as_dtype.types_.values()] == ["categorical"] * 3
    voted = _fit(array)
    assert [kind for kind, _ in voted.types_.values()] == ["numeric", "numeric",
                                                           "categorical"]
    out = voted.transform(array)
    assert np.isfinite(out).all() and np.linalg.norm(out, axis=1).max() <= 1 + 1e-12


def test_the_vote_takes_what_it_needs_and_the_releases_compose_within_mu():
    frame = _frame()
    vec = DPTableVectorizer(random_state=0)._fit_private(frame, mu=0.8, extra_delta=1e-7,
                                                         random_state=0)
    # planned: vote + age + hours + cat + one per voted column (city, code) = 6 releases
    mus = [mu for _, mu in vec.privacy_.releases]
    assert len(mus) == 6 and max(mus[1:]) == min(mus[1:])
    # the vote's request 2 sqrt(u) z/(c n), u = 2 voted columns, c = 1/2, z = Phi^-1(1 - .05/u),
    # capped at the equal part; the other five share what it leaves
    z = norm.isf(0.05 / 2)
    asked = 2 * np.sqrt(2) * z / (0.5 * len(frame))
    assert mus[0] == pytest.approx(min(asked, 0.8 / np.sqrt(6)), rel=1e-12)
    assert mus[0] ** 2 + 5 * mus[1] ** 2 <= 0.8 ** 2 and mus[1] >= 0.8 / np.sqrt(6) * (1 - 1e-12)
    assert vec.privacy_.mu == 0.8  # every planned release was made
    # 3 discoveries planned (cat, and city and code if categorical); code became numeric,
    # so its share of the additive delta is unspent
    assert vec.privacy_.extra_delta == pytest.approx(1e-7 * 2 / 3, rel=1e-12)
    hashed = DPTableVectorizer(categorical="hash")._fit_private(
        _frame(), mu=0.8, extra_delta=0.0, random_state=0)
    made = len(hashed.privacy_.releases)  # vote, age, hours, code; city hashed: not made
    assert made == 4 and hashed.privacy_.mu == pytest.approx(
        np.sqrt(sum(m ** 2 for _, m in hashed.privacy_.releases)), rel=1e-12)
    assert hashed.privacy_.mu < 0.8


def test_vote_sigma_and_decision_rule():
    assert vote_sigma(4, 0.5) == pytest.approx(2 * 2 / 0.5)
    rng = np.random.default_rng(0)
    numeric, sigma = type_vote([10**6, -(10**6), 0], np.inf, rng)
    assert numeric == [True, False, True] and sigma == 0.0


SPELLINGS = [1, 2.5, "3", " 4 ", "x", "Male", None, np.nan, "", "NA", True, "1_000", "inf"]


def test_one_changed_cell_moves_the_count_by_at_most_two():
    base = np.array(["1", "a", None, 2.0, "b"] * 4, dtype=object)
    before = number_minus_text(base, ("", "NA"))
    for position, value in itertools.product(range(base.size), SPELLINGS):
        changed = base.copy()
        changed[position] = value
        assert abs(number_minus_text(changed, ("", "NA")) - before) <= 2


def test_summary_shows_decisions_and_no_data_value():
    frame = _frame()
    frame.loc[7, "city"] = "SECRET-VALUE-42"  # one record's value: never released
    vec = _fit(frame)
    table = vec.summary()
    assert list(table.index) == list(frame.columns)
    assert table.loc["code", "type_from"] == "vote" and table.loc["age", "type_from"] == "dtype"
    assert (table.loc["age", "low"], table.loc["age", "high"]) == vec.bounds_["age"]
    assert table.loc["city", "categories"] == len(vec.categories_["city"])
    assert table.loc["age", "rule"] in ("linear", "log1p", "logratio")
    low, high = vec.bounds_["hours"]
    assert low <= table.loc["hours", "imputed"] <= high
    text = vec.summary_text()
    assert "SECRET" not in text and "SECRET" not in table.to_string()
    line = next(line for line in text.splitlines() if line.startswith("  code ("))
    assert "numeric from vote" in line and "range [" in line


def test_a_fallback_is_flagged_warned_and_printed_in_the_pipeline_report():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.uniform(0, 1, 60), "always_missing": np.full(60, np.nan)})
    y = rng.uniform(-1, 1, 60)
    with pytest.warns(PreparationFallbackWarning, match="'always_missing'") as caught:
        pipe = make_dp_pipeline(DPTableVectorizer(), DPRidge(y_bound=1.0), epsilon=1.0,
                                random_state=0).fit(X, y)
    assert all("nan" not in str(w.message).replace("always_missing", "") for w in caught)
    vec = pipe.pipeline_[0]
    assert vec.summary().loc["always_missing", "fallback"].startswith("no histogram cell")
    assert "FALLBACK" in vec.summary_text()
    assert "fallback: always_missing" in repr(pipe.privacy_)
