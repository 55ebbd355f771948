"""
Private confidence intervals: how often they cover the truth
=============================================================

``DPLogisticRegression(..., inference=True)`` releases, besides the model, a private
covariance of its coefficients (:ref:`private-inference`): standard errors, Wald intervals
and p-values, all inside the same (epsilon, delta) budget. Are the intervals honest? This
example simulates data from a known logistic model, fits the private model many times, and
counts how often the nominal 95% interval covers the **true** coefficients (features and
intercept), for a few sample sizes and two budgets. A small simulation (10 fits per point)
that runs in seconds: :repo:`benchmarks/inference_coverage.py` runs the full grid with 500
repetitions.
"""

import math

import matplotlib.pyplot as plt
import numpy as np

from skdpgd import DPLogisticRegression

P, REPS = 3, 10
SIZES = (2000, 8000, 32000)
EPSILONS = (1.0, 4.0)
BETA = np.linspace(-2.0, 2.0, P)
TRUTH = np.r_[BETA, 0.2]  # the coefficients, then the intercept


def simulate(n, rng):
    # rows in the cube [-1, 1]^P / sqrt(P): norm <= 1 = data_norm, so clipping is a no-op
    X = rng.uniform(-1.0, 1.0, (n, P)) / math.sqrt(P)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ BETA + 0.2)))).astype(int)
    return X, y


coverage, width = {}, {}
for epsilon in EPSILONS:
    for n in SIZES:
        hits, widths = [], []
        for rep in range(REPS):
            X, y = simulate(n, np.random.default_rng([n, rep]))
            clf = DPLogisticRegression(epsilon=epsilon, classes=[0, 1], inference=True,
                                       random_state=rep).fit(X, y)
            ci = clf.conf_int(0.05)
            hits.append((ci[:, 0] <= TRUTH) & (TRUTH <= ci[:, 1]))
            widths.append(ci[:, 1] - ci[:, 0])
        coverage[epsilon, n] = float(np.mean(hits))
        width[epsilon, n] = float(np.median(widths))
        print(f"epsilon={epsilon:g} n={n:>6}: coverage {coverage[epsilon, n]:.2f}, "
              f"median width {width[epsilon, n]:.3f}")

# %%
# The last fit's table: estimates, private standard errors, intervals and p-values, and
# what the intervals cover (the notes).
print(clf.inference_.text())

# %%
# Coverage against n for each budget. The dashed line is the nominal 95%; with 10 fits
# of 4 coefficients per point, the binomial standard error is about 3 points.
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
for epsilon in EPSILONS:
    left.plot(SIZES, [coverage[epsilon, n] for n in SIZES], "o-", label=f"epsilon={epsilon:g}")
    right.plot(SIZES, [width[epsilon, n] for n in SIZES], "o-", label=f"epsilon={epsilon:g}")
left.axhline(0.95, color="grey", ls="--")
left.set(xscale="log", ylim=(0.7, 1.01), xlabel="n", ylabel="coverage of the true coefficients",
         title="nominal 95% intervals")
right.set(xscale="log", yscale="log", xlabel="n", ylabel="median interval width",
          title="width shrinks with n")
left.legend()
fig.tight_layout()
plt.show()
