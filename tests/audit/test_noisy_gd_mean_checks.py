"""scikit-learn's estimator checks on the audit's exact-case estimator, NoisyGDMean."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgd.audit import NoisyGDMean


@parametrize_with_checks([NoisyGDMean()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
