"""
DPRidge on the diabetes data
============================

:class:`skdpgd.DPRidge` on scikit-learn's diabetes data (442 patients, 10 baseline
variables), loaded *unscaled*: the default ``load_diabetes()`` features are standardised
with the data's own means and standard deviations, which a private pipeline must not
use. The features are mapped to [0, 1] with clinical ranges stated up front (assumed
public: they describe plausible adult patients, not these patients), and the target, a
disease-progression score, is mapped from an assumed public range [0, 400] to [-1, 1].

With 442 rows a private regression is hard; the table shows R^2 on held-out patients
against the non-private :class:`sklearn.linear_model.Ridge` on the same features.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

from skdpgd import DPRidge
from skdpgd.preprocessing import BoundedScaler

# age (years), sex (coded 1/2), BMI (kg/m^2), mean arterial pressure (mmHg), total
# cholesterol, LDL, HDL (mg/dL), total/HDL ratio, log triglycerides, glucose (mg/dL)
PUBLIC_RANGES = {
    "age": (18, 90), "sex": (1, 2), "bmi": (15, 50), "bp": (60, 140), "s1": (100, 350),
    "s2": (30, 250), "s3": (20, 110), "s4": (1, 10), "s5": (3, 7), "s6": (50, 200),
}
TARGET_RANGE = (0.0, 400.0)

data = load_diabetes(scaled=False, as_frame=True)
X, target = data.data, data.target.to_numpy()
y = 2 * (target - TARGET_RANGE[0]) / (TARGET_RANGE[1] - TARGET_RANGE[0]) - 1  # public map
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

scaler = BoundedScaler(bounds=PUBLIC_RANGES).fit(X_train)
Z_train = scaler.transform(X_train) / np.sqrt(10)  # 10 features in [0, 1]: norm <= 1
Z_test = scaler.transform(X_test) / np.sqrt(10)

ridge = Ridge(alpha=1e-3).fit(Z_train, y_train)
print(f"non-private Ridge: R^2 = {ridge.score(Z_test, y_test):.3f}")
epsilons = [0.5, 1, 2, 4, 8, 16, np.inf]
r2, deltas = [], set()
for eps in epsilons:
    models = [DPRidge(epsilon=eps, y_bound=1.0, random_state=seed).fit(Z_train, y_train)
              for seed in range(5)]
    scores = [model.score(Z_test, y_test) for model in models]
    if np.isfinite(eps):
        deltas.update(model.privacy_.delta for model in models)
    r2.append(np.median(scores))
    print(f"DPRidge epsilon={eps:>4}: median R^2 over 5 seeds = {r2[-1]:.3f}")

fig, ax = plt.subplots(figsize=(6, 4))
finite = [e for e in epsilons if np.isfinite(e)]
ax.plot(finite, r2[: len(finite)], "o-", label="DPRidge (median of 5)")
ax.axhline(r2[-1], color="C0", ls=":", label="DPRidge, epsilon=inf (same algorithm, no noise)")
ax.axhline(ridge.score(Z_test, y_test), color="k", ls="--", label="scikit-learn Ridge")
# delta="auto" is min(1e-5, 1/(10 n)): 1e-5 for these 309 training rows; the label reads
# it from the fitted reports.
(delta,) = deltas
ax.set(xscale="log", xlabel=f"epsilon (delta = {delta:.3g})", ylabel="test R^2",
       title="Diabetes: DPRidge")
ax.legend()
fig.tight_layout()
plt.show()
