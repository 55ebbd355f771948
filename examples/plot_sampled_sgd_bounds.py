"""
Sampled noisy SGD: the minimum over the bounds that cover a run
===============================================================

``solver="sgd"`` trains on Poisson-sampled mini-batches (each row enters a step with
probability q = batch_size / n) and reports the smallest of the privacy bounds whose
hypotheses the run meets, naming the one that binds (see ``docs/sgd_bounds.md``). This
example

1. fits :class:`skdpgd.DPLogisticRegression` with ``solver="sgd"`` and with plain
   full-batch noisy GD, ``solver="gd"`` (the default ``"auto"`` never picks ``"sgd"``:
   it runs whichever of gd, cyclic and preconditioned has the smallest predicted excess
   loss, and its report's notes say which), on a binary digits task and prints both
   reports;
2. evaluates, for one fixed run with fixed-size batches and a projection, the two bounds
   of :func:`skdpgd.accounting.sampled_sgd_bounds` as the number of epochs grows:
   composition with amplification by subsampling grows without limit, the last-iterate
   bound of Altschuler and Talwar (2022) stops growing, and the reported epsilon is the
   smaller of the two;
3. composes an ``sgd`` fit and a full-batch fit on one :class:`skdpgd.PrivacyLedger`.

Needs the optional extra ``pip install "skdpgd[sgd]"`` (Google's ``dp-accounting``).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skdpgd import DPLogisticRegression, PrivacyLedger
from skdpgd.accounting import sampled_sgd_bounds

X, y = load_digits(return_X_y=True)
X = X / (16 * 8)  # pixels in [0, 16]: a public bound giving row norms <= 1
y = (y >= 5).astype(int)  # digits 5-9 against 0-4
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

# %%
# Full batch and sampled SGD at the same budget
# ---------------------------------------------
for solver in ("gd", "sgd"):
    clf = DPLogisticRegression(epsilon=2.0, solver=solver, classes=[0, 1], random_state=0)
    clf.fit(X_train, y_train)
    report = clf.privacy_
    print(f"solver={solver!r}: test accuracy {clf.score(X_test, y_test):.3f}, "
          f"K={report.n_steps}, batch size {clf.batch_size_}, binding bound "
          f"{getattr(report, 'binding_bound', report.accountant)!r}")
print(report)

# %%
# Composition against Altschuler-Talwar as the run gets longer
# ------------------------------------------------------------
# A uniform (fixed-size) batch of b rows per step, projection onto the ball of radius r:
# both bounds apply, and the privacy of the run is the smaller one.
n, b, radius, sigma = 30_000, 1_500, 1.0, 0.011
lip, smoothness = 2**0.5, 0.5  # logistic loss with an intercept column of 1
epochs = np.array([1, 3, 10, 30, 100, 300, 1000])
curves = {"composition": [], "altschuler_talwar": [], "reported (min)": []}
for e in epochs:
    bounds = sampled_sgd_bounds(
        sigma, int(e * n / b), delta=1e-5, sampling="uniform", batch_size=b, n_samples=n,
        gradient_bound=lip, learning_rate=1.9 / smoothness, smoothness=smoothness,
        domain_radius=radius,
    )
    curves["composition"].append(bounds.epsilons["composition"])
    curves["altschuler_talwar"].append(bounds.epsilons["altschuler_talwar"])
    curves["reported (min)"].append(bounds.epsilon)
    print(f"{e:5d} epochs: composition {bounds.epsilons['composition']:8.3f}, "
          f"Altschuler-Talwar {bounds.epsilons['altschuler_talwar']:8.3f} -> "
          f"{bounds.epsilon:.3f} ({bounds.binding_bound})")

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in curves.items():
    ax.loglog(epochs, values, marker="o", label=name,
              linestyle="--" if name.startswith("reported") else "-")
ax.set_xlabel("epochs (K b / n)")
ax.set_ylabel("epsilon at delta = 1e-5")
ax.set_title("One sampled SGD run: every valid bound, and their minimum")
ax.legend()
fig.tight_layout()

# %%
# One ledger for both kinds of fit
# --------------------------------
# A full-batch fit is exactly mu-GDP; an sgd fit is known by its run (q, z, K). The
# ledger composes the worst record's fits with the PLD accountant under replace-one.
ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
for solver in ("gd", "sgd"):
    DPLogisticRegression(epsilon=1.0, solver=solver, classes=[0, 1], ledger=ledger,
                         random_state=1).fit(X_train, y_train)
spent = ledger.spent()
print(f"two epsilon=1 fits on the same rows: epsilon={spent.epsilon:.3f} "
      f"({spent.composition} composition)")
