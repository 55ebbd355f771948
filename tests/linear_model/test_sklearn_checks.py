"""scikit-learn's estimator checks over both estimators, unweighted and weighted.

Since ``fit`` takes ``sample_weight``, scikit-learn runs its sample-weight checks too.
With the default ``max_sample_weight=None`` weights are refused with the reason (their
bound must be public), so those checks run on a second instance of each estimator with
``max_sample_weight=1.0`` (every constant as unweighted), which also runs every other
check through the weighted code path.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from skdpgd import DPLogisticRegression, DPRidge

# Every check passes on the unweighted instances except the weight checks below, each
# with its reason; no check is excluded for the noise at the default budget.

NEEDS_MAX_SAMPLE_WEIGHT = (
    "sample_weight needs the public bound max_sample_weight (None by default: refused "
    "with the reason); the same check runs on the max_sample_weight=1.0 instance"
)

# A weight of k is not k copies of a row here: n is public and calibrates the noise,
# lam = 1/(C n) or alpha/n and every "auto" parameter, so repeating rows changes them.
WEIGHT_IS_NOT_REPETITION = (
    "the noise and the 'auto' parameters are calibrated to n, so an integer weight is "
    "not a repeated row (tests/linear_model/test_class_and_sample_weights.py checks the weighted objective at epsilon=inf)"
)

# scikit-learn expects every weight 0 to be refused; here it is fitted (the noisy run of
# the regulariser alone): refusing it after the charge would depend on the data set as a
# whole, not on one record outside the domain (tests/linear_model/test_whole_data_is_fitted_not_refused.py).
ALL_ZERO_WEIGHTS = (
    "every weight 0 is fitted, not refused: a refusal decided by the whole data set after "
    "the charge would tell neighbouring data sets apart with certainty"
)

SAMPLE_WEIGHT_CHECKS = (
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_list", "check_all_zero_sample_weights_error",
    "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
    "check_classifiers_one_label_sample_weights",
)

CLASS_WEIGHT = {
    # {0: 1000, 1: 0.0001, ...}: the largest weight scales the sensitivity, so the noise
    # at epsilon=1 is 1000 times larger (tests/linear_model/test_class_and_sample_weights.py runs it at epsilon=inf).
    "check_class_weight_classifiers": "a class weight of 1000 scales the noise by 1000",
    # "balanced" reads the private class counts (test_class_and_sample_weights.py: refused with the reason).
    "check_class_weight_balanced_linear_classifier": "class_weight='balanced' is refused",
}


def expected_failed_checks(estimator):
    expected = {}
    if isinstance(estimator, DPLogisticRegression):
        expected.update(CLASS_WEIGHT)
    if estimator.max_sample_weight is None:
        expected.update(dict.fromkeys(SAMPLE_WEIGHT_CHECKS, NEEDS_MAX_SAMPLE_WEIGHT))
    else:
        expected.update(dict.fromkeys(
            ("check_sample_weight_equivalence_on_dense_data",
             "check_sample_weight_equivalence_on_sparse_data"), WEIGHT_IS_NOT_REPETITION,
        ))
        expected["check_all_zero_sample_weights_error"] = ALL_ZERO_WEIGHTS
    # DPRidge: check_regressors_train (R^2 > 0.5 on 200 standardised rows whose norms
    # exceed data_norm=1 several-fold) passes since predict clips the rows as fit does.
    return expected


@parametrize_with_checks(
    [
        DPLogisticRegression(),
        DPRidge(y_bound=1.0),
        DPLogisticRegression(max_sample_weight=1.0),
        DPRidge(y_bound=1.0, max_sample_weight=1.0),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
