"""
A pipeline with public-bound preprocessing
==========================================

The breast-cancer data (scikit-learn) has 30 measurements of cell nuclei. A private model
may not scale them with ``StandardScaler`` fitted on the training rows: the means and
standard deviations would be released with the model, unaccounted. Instead each feature
is mapped to [0, 1] by :class:`skdpgd.preprocessing.BoundedScaler` from a range stated
*in the documentation* of the data set: here the summary table of
``load_breast_cancer().DESCR``, widened outwards to one significant digit as a domain
expert would state a measurement range. (In a real deployment the ranges come from the
measuring instrument's specification; a table computed from the very rows you protect is
not public. Using the published table of a public data set is fine for a demo.)

Rows then have norm at most sqrt(30); :class:`~skdpgd.preprocessing.RowNormClipper`
clips them to a smaller public bound, trading a little signal on the few long rows for
less noise on all of them.
"""

import math
import re

from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skdpgd import DPLogisticRegression
from skdpgd.preprocessing import BoundedScaler, RowNormClipper

data = load_breast_cancer()


def _descr_table(descr):
    """The DESCR summary lines 'feature (kind):  min  max' keyed by the feature name."""
    table = {}
    for line in descr.splitlines():
        match = re.match(r"\s*(.+?):\s+([\d.]+)\s+([\d.]+)\s*$", line)
        if match:
            table[match.group(1).strip()] = (float(match.group(2)), float(match.group(3)))
    return table


table = _descr_table(data.DESCR)
# DESCR names the statistics "radius (mean)", "radius (standard error)", "radius (worst)".
kinds = {"mean": "mean", "error": "standard error", "worst": "worst"}
low, high = [], []
for name in data.feature_names:
    first, _, base = name.partition(" ")
    key = f"{base} ({kinds[first]})" if first in ("mean", "worst") else \
        f"{name.replace(' error', '')} (standard error)"
    lo, hi = table[key]
    scale = 10.0 ** math.floor(math.log10(hi))  # one significant digit, outwards
    low.append(0.0)  # every measurement is non-negative
    high.append(math.ceil(hi / scale) * scale)
print("first public ranges:",
      [(str(n), h) for n, h in zip(data.feature_names[:3], high[:3], strict=True)])

X_train, X_test, y_train, y_test = train_test_split(
    data.data, data.target, test_size=0.3, random_state=0, stratify=data.target
)
baseline = make_pipeline(BoundedScaler(bounds=(low, high)), LogisticRegression(max_iter=1000))
print(f"non-private LogisticRegression on the same features: "
      f"{baseline.fit(X_train, y_train).score(X_test, y_test):.3f}")
print(f"majority class: {max(y_test.mean(), 1 - y_test.mean()):.3f}")
scores = {}
for epsilon in (1.0, 4.0):
    for max_norm in (math.sqrt(30), 2.0):
        model = make_pipeline(
            BoundedScaler(bounds=(low, high)),
            RowNormClipper(max_norm=max_norm),
            DPLogisticRegression(epsilon=epsilon, data_norm=max_norm, classes=[0, 1],
                                 random_state=0),
        ).fit(X_train, y_train)
        scores[epsilon, max_norm] = model.score(X_test, y_test)
        print(f"epsilon={epsilon:g}, data_norm={max_norm:.3f}: "
              f"test accuracy {scores[epsilon, max_norm]:.3f}")
print(model[-1].privacy_)

# %%
# Clipping the rows to a smaller public norm pays at both budgets:
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(5, 3.2))
labels = [f"eps={e:g}\nnorm={m:.2f}" for e, m in scores]
ax.bar(labels, list(scores.values()), color="tab:blue")
ax.axhline(baseline.score(X_test, y_test), color="k", ls="--", label="non-private")
ax.set_ylim(0.5, 1.0)
ax.set_ylabel("test accuracy")
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# The pipeline's feature names and pandas output work like scikit-learn's own:
scaler = BoundedScaler(bounds=(low, high)).set_output(transform="pandas")
frame = scaler.fit_transform(load_breast_cancer(as_frame=True).data.iloc[:3])
print(frame.iloc[:, :4].round(3))
