"""Which preprocessing may precede a private estimator in a search (public-bound steps)."""

import numpy as np
import pytest
from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

from skdpgd import DPLogisticRegression
from skdpgd.model_selection._pipeline import split_estimator
from skdpgd.preprocessing import BoundedScaler, RowNormClipper, public_one_hot
from skdpgd.preprocessing._public_steps import features_out, why_not_public


class _Declared(FunctionTransformer):
    __skdpgd_public_fit__ = True


@pytest.mark.parametrize("step", [
    BoundedScaler(bounds=(0, 1)), RowNormClipper(1.0), public_one_hot([["a", "b"]]),
    OneHotEncoder(categories=[["a", "b"]], handle_unknown="ignore"), "passthrough", None,
    _Declared(np.abs), make_pipeline(BoundedScaler(), RowNormClipper()),
    make_column_transformer((BoundedScaler(), [0]), (public_one_hot([["a"]]), [1]),
                            remainder="passthrough"),
], ids=lambda s: type(s).__name__)
def test_public_bound_steps_are_accepted(step):
    assert why_not_public(step) is None


@pytest.mark.parametrize("step, word", [
    (StandardScaler(), "StandardScaler"),
    (FunctionTransformer(np.abs), "FunctionTransformer"),  # may be public, but undeclared
    (OneHotEncoder(), "categories"),                        # categories read from the data
    (OneHotEncoder(categories=[["a"]], handle_unknown="error"), "categories"),
    (OneHotEncoder(categories=[["a", "b"]], handle_unknown="ignore", drop="first"),
     "categories"),
    (make_pipeline(BoundedScaler(), StandardScaler()), "StandardScaler"),
    (make_column_transformer((BoundedScaler(), [0]), remainder=StandardScaler()),
     "StandardScaler"),
], ids=lambda s: type(s).__name__ if not isinstance(s, str) else s)
def test_data_dependent_steps_are_refused_with_a_reason(step, word):
    assert word in why_not_public(step)


def test_split_and_widths():
    pipe = make_pipeline(public_one_hot([["a", "b", "c"], ["x", "y"]]),
                         DPLogisticRegression(classes=[0, 1]))
    pre, final, name = split_estimator(pipe)
    assert name == "dplogisticregression" and isinstance(final, DPLogisticRegression)
    assert features_out(pre[0][1], 2) == 5  # 3 + 2 one-hot columns, from the lists alone
    assert features_out(BoundedScaler(), 7) == 7 and features_out(_Declared(), 7) is None
    with pytest.raises(TypeError, match="must end in an skdpgd estimator"):
        split_estimator(make_pipeline(BoundedScaler(), StandardScaler()))
