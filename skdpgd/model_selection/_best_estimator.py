"""A fitted search answers as its released model: ``predict`` and the rest delegated."""

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

__all__ = ["BestEstimatorMixin"]


def _estimator_has(attr):
    """Delegate ``attr`` when the best (or, before fit, the template) estimator has it."""

    def check(self):
        getattr(self.best_estimator_ if hasattr(self, "best_estimator_") else self.estimator,
                attr)
        return True

    return check


class BestEstimatorMixin:
    """``predict``, ``score``, ``decision_function``, ``predict_proba`` and
    ``predict_log_proba`` of ``best_estimator_``, where its estimator has them."""

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predict with ``best_estimator_``."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_estimator_has("score"))
    def score(self, X, y):
        """``best_estimator_.score`` (on data you may look at, e.g. a public test set)."""
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """``best_estimator_.decision_function``."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """``best_estimator_.predict_proba``."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """``best_estimator_.predict_log_proba``."""
        check_is_fitted(self)
        return self.best_estimator_.predict_log_proba(X)
