"""
A search over a raw table under a capped ledger: prepare once, search many
==========================================================================

A grid search fits the pipeline once per candidate and fold. The private preparation
(:class:`skdpgd.preprocessing.DPTableVectorizer`'s noisy histograms and category lists)
depends on the table, not on the candidate, so it is released **once** with
:meth:`skdpgd.DPPipeline.prepare` and shared by every fit: the ledger is charged for it
once, each fit of the search is charged for its model only, and the additive delta of the
category thresholds is spent once instead of once per fit (ten unprepared fits holding a
record would use up delta = 1e-5 on their own).

Then :class:`skdpgd.model_selection.DPSearchCV` runs a private selection on the default
pipeline with one end-to-end (epsilon, delta): it releases the preparation once, outside
the selection, and composes (the "Budgets across many fits" page proves both).

The raw Adult census table (shipped with skdpgd; numbers, strings, ``"?"`` for unknown
values) is subsampled to 4,000 rows so that the example runs in seconds.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression, PrivacyLedger, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.model_selection import DPSearchCV, search_privacy_cost
from skdpgd.preprocessing import DPTableVectorizer

X, y = load_adult("train", as_frame=True, return_X_y=True)
rows = np.random.default_rng(0).choice(len(X), 4000, replace=False)
X, y = X.iloc[rows].reset_index(drop=True), np.asarray(y)[rows]
X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
ids = np.arange(len(X))  # public record ids: each fit is charged to the rows it read

# %%
# Prepare once, then a 3-fold x 8-candidate grid search
# -----------------------------------------------------
ledger = PrivacyLedger(epsilon=10.0, delta=1e-5)  # the data set's total budget
pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                        epsilon=1.0, delta=1e-5, random_state=0)
prepared = pipe.prepare(X, ledger=ledger, sample_ids=ids)
print("after prepare:", ledger.spent())

grid = {"epsilon": [0.25, 0.5, 1.0, 2.0], "dplogisticregression__C": [0.1, 1.0]}
search = GridSearchCV(prepared, grid, cv=KFold(3, shuffle=True, random_state=0))
search.fit(X, y, sample_ids=ids)
print("best:", search.best_params_, f"test accuracy {search.score(X_test, y_test):.3f}")
print("ledger:", ledger.spent())

# %%
# The grid's cross-validated accuracy against epsilon, one line per ``C`` (each point is a
# fit of the model alone: the preparation is shared by all of them).
results = search.cv_results_
fig, ax = plt.subplots(figsize=(5, 3.2))
for c in grid["dplogisticregression__C"]:
    keep = np.asarray(results["param_dplogisticregression__C"]) == c
    eps = np.asarray(results["param_epsilon"], dtype=float)[keep]
    order = np.argsort(eps)
    ax.plot(eps[order], results["mean_test_score"][keep][order], "o-", label=f"C = {c}")
ax.set_xscale("log")
ax.set_xticks(grid["epsilon"], [str(e) for e in grid["epsilon"]])
ax.minorticks_off()
ax.set_xlabel("epsilon of each fit")
ax.set_ylabel("mean CV accuracy")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The cost of the search, computed from the fitted search alone, is the ledger's total
# (the preparation counted once); the selection by noiseless validation scores is not
# covered (``cost.not_covered``).
cost = search_privacy_cost(search)
print(f"search_privacy_cost: epsilon={cost.epsilon:.6f} over {cost.n_fits} charges")
for name, mu, extra in cost.shared:
    print(f"shared once: {name}, mu={mu:.4g}, additive delta {extra:.3g}")

# %%
# The refitted model's report lists the shared preparation and what it cost; the fit
# itself spent only the model's budget.
print(search.best_estimator_.privacy_)

# %%
# A private selection on the default pipeline
# -------------------------------------------
# One total (epsilon=1, delta=1e-5) for everything: the preparation, every trial, the
# noisy validation scores, the selection and the refit of the chosen candidate on all
# rows. A second, smaller ledger holds it.
private = DPSearchCV(make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1])),
                     {"dplogisticregression__C": [0.1, 1.0, 10.0]}, epsilon=1.0, delta=1e-5,
                     ledger=PrivacyLedger(epsilon=1.0, delta=1e-5), random_state=0)
private.fit(X, y, sample_ids=ids)
print(private.privacy_)
print("chosen:", private.best_params_, f"test accuracy {private.score(X_test, y_test):.3f}")
