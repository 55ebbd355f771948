"""
A raw table to a private model under one budget: ``make_dp_pipeline``
======================================================================

:func:`skdpgd.make_dp_pipeline` puts a private preparation step and a DP estimator under
one ``(epsilon, delta)``: here :class:`skdpgd.preprocessing.DPTableVectorizer` learns the
ranges and categories of the raw Adult census table (shipped with skdpgd) from noisy
histograms, and :class:`skdpgd.DPLogisticRegression` is trained on its output. Nothing is
written by hand but the target and the label set.

The budget is split by a public rule (10% of :math:`\\mu^2` for the preparation, 10% of
delta as the additive allowance of the thresholded category counts, the rest for the
model; see the "Budgets across many fits" page), a ledger is charged once before any value
is read, and ``privacy_`` composes every release exactly.
"""

from skdpgd import DPLogisticRegression, PrivacyLedger, make_dp_pipeline
from skdpgd.datasets import load_adult
from skdpgd.preprocessing import DPTableVectorizer

X, y = load_adult("train", as_frame=True, return_X_y=True)
X_test, y_test = load_adult("test", as_frame=True, return_X_y=True)
print(X.dtypes.value_counts().to_dict())  # numbers and strings, "?" for unknown values

ledger = PrivacyLedger(epsilon=2.0, delta=1e-5)  # the data set's total budget
pipe = make_dp_pipeline(DPTableVectorizer(), DPLogisticRegression(classes=[0, 1]),
                        epsilon=1.0, delta=1e-5, ledger=ledger, random_state=0)
pipe.fit(X, y)
print(f"test accuracy: {pipe.score(X_test, y_test):.3f}")

# %%
# One report for everything the pipeline released
# -----------------------------------------------
# Each release is listed with its share of :math:`\mu^2`; the total is
# :math:`\mu = \sqrt{\sum_i \mu_i^2}` (Dong, Roth and Su 2022, Corollary 3.3) plus the
# additive delta of the category thresholds, and ``epsilon`` is at most the budget.
print(pipe.privacy_)
print("ledger:", ledger.spent())

# %%
# What the vectorizer found
# -------------------------
# Its fitted clone is the first step of ``pipeline_``; the estimator's ``data_norm`` was
# set to the vectorizer's row-norm bound, a constant of its construction. Its summary
# gives each column's type and where it came from (the string columns, whose dtype
# ``pd.read_csv`` inferred from the values, by the private vote), the released range and
# rule, the categories kept and the imputed value, and flags every fallback.
vectorizer, model = pipe.pipeline_[0], pipe.pipeline_[-1]
print(vectorizer.summary_text())
print(len(vectorizer.get_feature_names_out()), "columns; data_norm =", model.data_norm)
print("planned before any value was read:", pipe.plan_privacy(len(y)).epsilon)
