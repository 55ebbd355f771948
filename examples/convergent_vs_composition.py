"""How much privacy K steps of noisy GD cost: the convergent bound against composition.

Prints mu (Gaussian DP) and epsilon at delta=1e-5 of full-batch noisy GD on a logistic
regression problem with public constants (n=30,000, rows of norm <= 1 plus an intercept,
lam = 1e-4), for growing K, under Bok-Su-Altschuler Theorem 4.2 and under composition.
Also: the noise each needs for (1, 1e-5)-DP. Runs in well under a second.
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
    mu = accounting.noisy_gd_gdp(sigma, k, learning_rate=eta, strong_convexity=lam, smoothness=beta, **constants)
    mu_comp = accounting.composition_gdp(sigma, k, **constants)
    sig = accounting.calibrate_noisy_gd(
        1.0, 1e-5, learning_rate=eta, strong_convexity=lam, smoothness=beta, n_steps=k, **constants
    )
    sig_comp = sensitivity * math.sqrt(k) / (n * accounting.epsilon_delta_to_gdp(1.0, 1e-5))
    print(
        f"{k:>7} {mu:>9.4f} {mu_comp:>9.4f} {accounting.gdp_to_epsilon(mu, 1e-5):>10.3f} "
        f"{accounting.gdp_to_epsilon(mu_comp, 1e-5):>10.3f} {sig:>20.5f} {sig_comp:>8.5f}"
    )
