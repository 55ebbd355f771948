"""The type vote takes no more of the preparation's share than it needs (public rule).

The vote must type right, with probability at least 1 - beta, every column whose count
D = numbers - text is at least c n away from 0; with sigma = 2 sqrt(u) / mu that holds
when sigma <= c n / z, z = Phi^{-1}(1 - beta / u) (a union bound over the u columns).
"""

import math

import numpy as np
import pytest
from scipy.stats import norm

from skdpgd import DPRidge, make_dp_pipeline
from skdpgd.pipeline import split_budget
from skdpgd.preprocessing import DPTableVectorizer
from skdpgd.preprocessing._table_schema import PrivateTableSchema
from skdpgd.preprocessing._type_vote import type_vote

pd = pytest.importorskip("pandas")

C, BETA = 0.5, 0.05  # the public margin and failure probability the rule promises


def _needed(u, n):
    return 2.0 * math.sqrt(u) * norm.ppf(1.0 - BETA / u) / (C * n)


def test_a_request_is_capped_and_its_rest_shared_by_the_others():
    equal = split_budget(1.0, 1e-5, [False] * 3)
    asked = split_budget(1.0, 1e-5, [False] * 3, requested=[0.01, None, None])
    assert asked.step_mu[0] == 0.01 and asked.estimator_mu == equal.estimator_mu
    rest = 3 * equal.step_mu[0] ** 2 - 0.01**2
    assert asked.step_mu[1] == asked.step_mu[2] == pytest.approx(math.sqrt(rest / 2), rel=1e-9)
    assert sum(m**2 for m in asked.step_mu) <= sum(m**2 for m in equal.step_mu)
    # a request above the equal part changes nothing, bit for bit
    assert split_budget(1.0, 1e-5, [False] * 3, requested=[1.0, None, None]) == equal
    # every release asking: what they leave goes back to the estimator, total unchanged
    both = split_budget(1.0, 1e-5, [False] * 2, requested=[0.01, 0.02])
    total = sum(m**2 for m in both.step_mu) + both.estimator_mu**2
    assert both.step_mu == (0.01, 0.02) and total <= both.mu**2


def test_the_requested_vote_types_every_clear_column_right():
    # u = 20 columns each at |D| = c n, at the requested mu: the chance that some column
    # gets the wrong type is at most beta = 0.05. Over 4000 seeds the rate of a wrong
    # type somewhere is at most beta + 4 binomial sd (sd sqrt(.05 .95 / 4000) = 0.0034).
    u, n = 20, 5000
    mu = PrivateTableSchema([f"c{j}" for j in range(u)])._requested_mu(n)
    assert mu == pytest.approx(_needed(u, n), rel=1e-12)
    counts = [C * n if j % 2 else -C * n for j in range(u)]
    wrong = 0
    for seed in range(4000):
        votes, _ = type_vote(counts, mu, np.random.default_rng(seed))
        wrong += any(vote != (count > 0) for vote, count in zip(votes, counts, strict=True))
    assert wrong / 4000 <= BETA + 4 * 0.0034
    # and it is not far from tight (a Bonferroni bound on independent columns is close)
    assert wrong / 4000 >= 0.5 * BETA


def test_the_pipeline_gives_the_vote_its_request_and_the_vectorizer_the_rest():
    rng = np.random.default_rng(0)
    n, u = 20000, 3
    frame = pd.DataFrame({f"x{j}": [f"{v:.3f}" for v in rng.normal(size=n)]
                          for j in range(u)}, dtype=object)
    y = frame["x0"].astype(float).to_numpy() + rng.normal(size=n)
    schema = PrivateTableSchema(list(frame.columns))
    pipe = make_dp_pipeline(schema, DPTableVectorizer(types="dtype"), DPRidge(y_bound="auto"),
                            epsilon=1.0, random_state=0)
    planned = pipe.plan_privacy(n, X=frame)
    # schema, vectorizer, y range; delta held back as the vectorizer may threshold
    budget = split_budget(1.0, planned.delta, [False] * 3, reserve=True)
    vote = dict(planned.steps)["privatetableschema"].mu
    assert vote == pytest.approx(_needed(u, n), rel=1e-12) and vote < budget.step_mu[0]
    rest = math.sqrt((3 * budget.step_mu[0] ** 2 - vote**2) / 2)
    assert dict(planned.steps)["dptablevectorizer"].mu == pytest.approx(rest, rel=1e-9)
    pipe.fit(frame, y)  # the fit spends what was planned, and the vote is right
    assert pipe.privacy_.epsilon <= 1.0 * (1 + 1e-9)
    assert pipe.steps[0][1] is schema and pipe.pipeline_[0].numeric_columns_ == ["x0", "x1",
                                                                                "x2"]
