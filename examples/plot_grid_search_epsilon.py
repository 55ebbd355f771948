"""
A grid search over epsilon, and what the whole search costs
===========================================================

:class:`sklearn.model_selection.GridSearchCV` works with skdpgd estimators like with any
scikit-learn estimator. Here it sweeps the budget ``epsilon`` (and ``C``) on synthetic
data to show the privacy-utility trade-off under cross-validation.

Two things to keep in mind when the data are private:

- every fit is a release of the private rows: the k-fold search below trains
  ``len(grid) * k`` models (plus the refit) and the **selection** itself reads scores
  computed on private rows. Its total cost is at least the composition of all fits,
  ``sqrt(sum mu_i^2)``-GDP (Gaussian DP composes exactly; each fit here touches
  (k-1)/k of the rows, and we conservatively compose them all). Private model
  selection needs its own accounting.
- a sweep over epsilon is a study of the trade-off (on public or synthetic data, as
  here), not a way to pick epsilon on the private data.
"""

import math

from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV

from skdpgd import DPLogisticRegression, accounting

X, y = make_classification(n_samples=4000, n_features=10, n_informative=5, random_state=0)
X = X / 8.0  # synthetic data: features are N(0, ~2) here; rows of norm > 1 get clipped

grid = {"epsilon": [0.1, 0.3, 1.0, 3.0], "C": ["auto", 1.0]}
search = GridSearchCV(DPLogisticRegression(classes=[0, 1], random_state=0), grid, cv=3)
search.fit(X, y)

for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
    print(f"epsilon={params['epsilon']:<4} C={params['C']!s:<5} accuracy={score:.3f}")
print("best:", search.best_params_)

# %%
# The cost of the whole search
# ----------------------------
# Each fitted model carries its mu. It depends only on public numbers (n, d, the
# parameters), so one fit per candidate at the fold size gives the folds' values.
n_fits = len(search.cv_results_["params"]) * search.n_splits_ + 1
mus = []
for params in search.cv_results_["params"]:
    fold_model = DPLogisticRegression(classes=[0, 1], random_state=0, **params)
    fold_n = len(y) * (search.n_splits_ - 1) // search.n_splits_
    mus += [fold_model.fit(X[:fold_n], y[:fold_n]).privacy_.mu] * search.n_splits_
mus.append(search.best_estimator_.privacy_.mu)
total = math.sqrt(sum(mu**2 for mu in mus))
print(f"{n_fits} fits; composed: mu={total:.3f}-GDP = "
      f"({accounting.gdp_to_epsilon(total, 1e-5):.2f}, 1e-5)-DP, "
      f"not the ({search.best_params_['epsilon']}, 1e-5) of the chosen model alone")
