"""
A grid search over epsilon, and what the whole search costs
===========================================================

:class:`sklearn.model_selection.GridSearchCV` works with skdpgd estimators like with any
scikit-learn estimator. Here it sweeps the budget ``epsilon`` (and ``C``) on synthetic
data with ``KFold`` cross-validation to show the privacy-utility trade-off, then
:func:`skdpgd.model_selection.search_privacy_cost` computes what the whole search cost.

Two things to keep in mind when the data are private:

- every fit is a release of the private rows: the k-fold search below trains
  ``len(grid) * k`` models plus the refit, and they compose per record
  (``sqrt(sum mu_i^2)``-GDP over the fits that saw the record; Dong, Roth and Su 2022,
  Corollary 3.3);
- the **selection** itself reads validation scores computed on private rows. No theorem
  bounds that release; :class:`skdpgd.model_selection.DPSearchCV` selects privately
  with an end-to-end guarantee (see the "Budgets across many fits" page).

A sweep over epsilon is a study of the trade-off (on public or synthetic data, as here),
not a way to pick epsilon on the private data.
"""

from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, KFold

from skdpgd import DPLogisticRegression
from skdpgd.model_selection import NOT_COVERED, search_privacy_cost

X, y = make_classification(n_samples=4000, n_features=10, n_informative=5, random_state=0)
X = X / 8.0  # synthetic data: features are N(0, ~2) here; rows of norm > 1 get clipped

grid = {"epsilon": [0.1, 0.3, 1.0, 3.0], "C": ["auto", 1.0]}
# A splitter with a fixed seed: the folds can be re-enumerated, so the cost below charges
# each record only for the k - 1 training folds that contain it.
folds = KFold(n_splits=3, shuffle=True, random_state=0)
search = GridSearchCV(DPLogisticRegression(classes=[0, 1], random_state=0), grid, cv=folds)
search.fit(X, y)

for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"],
                         strict=True):
    print(f"epsilon={params['epsilon']:<4} C={params['C']!s:<5} accuracy={score:.3f}")
print("best:", search.best_params_)

# %%
# The trade-off the sweep measured: cross-validated accuracy against epsilon, one line per
# ``C``.
import matplotlib.pyplot as plt

results = search.cv_results_
fig, ax = plt.subplots(figsize=(5, 3.2))
for C in grid["C"]:
    rows = [i for i, p in enumerate(results["params"]) if p["C"] == C]
    ax.errorbar([results["params"][i]["epsilon"] for i in rows],
                results["mean_test_score"][rows], yerr=results["std_test_score"][rows],
                marker="o", capsize=3, label=f"C={C}")
ax.set_xscale("log")
ax.set_xlabel("epsilon of each fit")
ax.set_ylabel("3-fold accuracy")
ax.legend()
fig.tight_layout()

# %%
# The cost of the whole search
# ----------------------------
# Every fit's mu is a function of public numbers (n, d, the parameters), so the search can
# be re-planned without touching the data, and the fits composed per record.
cost = search_privacy_cost(search, delta=1e-5)
print(f"{cost.n_fits} fits; the worst record is charged mu={cost.mu:.3f}-GDP, i.e. "
      f"({cost.epsilon:.2f}, 1e-5)-DP for the fits alone, not the "
      f"({search.best_params_['epsilon']}, 1e-5) of the chosen model")
print(NOT_COVERED)
