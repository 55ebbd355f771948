"""
The convergent bound vs composition: mu against K
=================================================

How much privacy K steps of full-batch noisy GD cost: the convergent last-iterate bound
(Bok, Su, Altschuler 2024, Theorem 4.2) against composition (Theorem 4.1), on a logistic
regression problem with public constants (n=30,000, rows of norm <= 1 plus an intercept,
lam = 1e-4). Prints mu (Gaussian DP) and epsilon at delta=1e-5 for growing K, and the
noise each analysis needs for (1, 1e-5)-DP; then plots mu against K. The convergent
curve flattens once K passes about 1/(eta lam): more steps cost no more privacy.
"""

import math

from skdpgd import accounting

n, rt = 30_000, math.sqrt(2.0)  # data_norm 1, intercept_scaling 1
sensitivity, beta_l, lam = 2 * rt, rt**2 / 4, 1e-4
beta = beta_l + lam
eta = 2 / (beta + lam)
sigma = 0.01
print(f"n={n}, S={sensitivity:.3f}, beta={beta:.4f}, lam={lam}, eta={eta:.3f}, sigma={sigma}")
print(f"{'K':>7} {'mu conv.':>9} {'mu comp.':>9} {'eps conv.':>10} {'eps comp.':>10} "
      f"{'sigma(1,1e-5) conv.':>20} {'comp.':>8}")
for k in (1, 10, 100, 1_000, 10_000, 100_000):
    constants = dict(sensitivity=sensitivity, n_samples=n)
    mu = accounting.noisy_gd_gdp(sigma, k, learning_rate=eta, strong_convexity=lam,
                                 smoothness=beta, **constants)
    mu_comp = accounting.composition_gdp(sigma, k, **constants)
    sig = accounting.calibrate_noisy_gd(
        1.0, 1e-5, learning_rate=eta, strong_convexity=lam, smoothness=beta, n_steps=k, **constants
    )
    sig_comp = sensitivity * math.sqrt(k) / (n * accounting.epsilon_delta_to_gdp(1.0, 1e-5))
    print(
        f"{k:>7} {mu:>9.4f} {mu_comp:>9.4f} {accounting.gdp_to_epsilon(mu, 1e-5):>10.3f} "
        f"{accounting.gdp_to_epsilon(mu_comp, 1e-5):>10.3f} {sig:>20.5f} {sig_comp:>8.5f}"
    )

# %%
# mu against K
# ------------
import matplotlib.pyplot as plt
import numpy as np

steps = np.unique(np.geomspace(1, 100_000, 60).astype(int))
common = dict(sensitivity=sensitivity, n_samples=n)
convergent = [accounting.noisy_gd_gdp(sigma, int(k), learning_rate=eta, strong_convexity=lam,
                                      smoothness=beta, **common) for k in steps]
composed = [accounting.composition_gdp(sigma, int(k), **common) for k in steps]
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(steps, composed, label="composition (Thm 4.1): sqrt(K) S/(n sigma)")
ax.plot(steps, convergent, label="convergent (Thm 4.2)")
ax.axhline(accounting.epsilon_delta_to_gdp(1.0, 1e-5), color="grey", ls=":",
           label="mu of (1, 1e-5)-DP")
ax.set(xscale="log", yscale="log", xlabel="steps K", ylabel="mu (Gaussian DP)",
       title=f"noisy GD, sigma={sigma}, n={n}")
ax.legend()
fig.tight_layout()
plt.show()
