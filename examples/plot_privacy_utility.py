"""
Privacy-utility curve on the digits data
========================================

Test accuracy of :class:`skdpgd.DPLogisticRegression` on scikit-learn's handwritten
digits as the budget epsilon grows (delta = 1e-5 or 1/(10 n), whichever is smaller), next
to the non-private :class:`sklearn.linear_model.LogisticRegression`. Pixels lie in
[0, 16] by construction, so dividing by 16 * 8 (the norm of an all-16 image) is a public
scaling that gives ``data_norm=1``. Ten classes and 1,347 training rows make this a hard
private problem: the curve shows how much data a budget needs.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from skdpgd import DPLogisticRegression

X, y = load_digits(return_X_y=True)
X = X / (16 * 8)  # public bound on the row norm
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

baseline = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)
epsilons = [0.25, 0.5, 1, 2, 4, 8, 16, 32]
seeds = range(3)
scores = np.array([
    [DPLogisticRegression(epsilon=eps, classes=np.arange(10), random_state=seed)
     .fit(X_train, y_train).score(X_test, y_test) for seed in seeds]
    for eps in epsilons
])
for eps, row in zip(epsilons, scores, strict=True):
    print(f"epsilon={eps:>5}: accuracy {np.median(row):.3f} (seeds: {np.round(row, 3)})")
print(f"non-private: {baseline:.3f}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(epsilons, np.median(scores, axis=1), "o-", label="DPLogisticRegression (median of 3)")
ax.fill_between(epsilons, scores.min(axis=1), scores.max(axis=1), alpha=0.2)
ax.axhline(baseline, color="k", ls="--", label="scikit-learn, non-private")
ax.axhline(0.1, color="grey", ls=":", label="chance")
ax.set(xscale="log", xlabel="epsilon (delta = 1e-5)", ylabel="test accuracy",
       title="Digits: privacy-utility")
ax.legend()
fig.tight_layout()
plt.show()
