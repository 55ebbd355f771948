"""skdpgd.datasets: the shipped Adult files are intact, loaded faithfully, preprocessed publicly."""

import gzip
import hashlib
from importlib import resources

import numpy as np
import pytest

from skdpgd.datasets import (
    ADULT_BOUNDS,
    ADULT_CATEGORIES,
    load_adult,
    make_adult_preprocessor,
)

#: SHA-256 of the uncompressed CSV text, as written in skdpgd/datasets/data/README.md.
CHECKSUMS = {
    "adult_train.csv.gz": "f2c62076f19504d99a38b22badf445a7f42530ade6b827acf78dd143fbce38bb",
    "adult_test.csv.gz": "f6b1801c5d231515ea5ff04d4444997bacd57e04876e94710cb9b9bd5549c033",
}


@pytest.mark.parametrize("name", sorted(CHECKSUMS))
def test_shipped_files_match_their_checksums(name):
    raw = resources.files("skdpgd.datasets").joinpath("data", name).read_bytes()
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == CHECKSUMS[name]
    readme = resources.files("skdpgd.datasets").joinpath("data", "README.md").read_text()
    assert CHECKSUMS[name] in readme.replace("\n", " ")
    assert "CC BY 4.0" in readme and "10.24432/C5XW20" in readme  # attribution ships too


def test_load_adult_shapes_and_code_book():
    train, test = load_adult(), load_adult("test")
    # Sizes and label rates of the UCI code book (adult.names: 32561 / 16281 rows,
    # P(>50K) = 23.93% over both files).
    assert train.data.shape == (32561, 14) and test.data.shape == (16281, 14)
    both = np.concatenate([train.target, test.target])
    assert set(np.unique(both)) == {0, 1}
    assert both.mean() == pytest.approx(0.2393, abs=5e-5)
    assert train.feature_names[0] == "age" and list(train.target_names) == ["<=50K", ">50K"]
    # Every categorical value is in the code book's list or is its unknown marker "?".
    for name, values in ADULT_CATEGORIES.items():
        column = train.feature_names.index(name)
        assert set(train.data[:, column]) <= set(values) | {"?"}, name
    # First record of adult.data, as printed in the UCI file.
    assert list(train.data[0, :5]) == [39.0, "State-gov", 77516.0, "Bachelors", 13.0]
    assert "CC BY 4.0" in train.DESCR


def test_load_adult_as_frame_and_return_X_y():
    pytest.importorskip("pandas")
    X, y = load_adult("test", as_frame=True, return_X_y=True)
    assert X.shape == (16281, 14) and y.name == "income"
    assert X["age"].dtype == np.int64 and X["sex"].iloc[0] == "Male"
    bunch = load_adult(as_frame=True)
    assert bunch.frame.shape == (32561, 15)


def test_load_adult_rejects_bad_subset():
    with pytest.raises(ValueError, match="'train' or 'test'"):
        load_adult("validation")


def test_preprocessor_uses_public_bounds_only():
    data = load_adult("test").data
    pre = make_adult_preprocessor()
    X = pre.fit_transform(data)
    assert X.shape == (16281, 104)
    assert np.linalg.norm(X, axis=1).max() <= 1.0 + 1e-12
    # Fitted on any two rows, the map is the same: nothing is learnt from the data.
    assert np.array_equal(make_adult_preprocessor().fit(data[:2]).transform(data), X)
    # Age is mapped by its public range: 17 -> 0, 90 -> 1, beyond clipped.
    row = data[:1].copy()
    for age, expected in [(17.0, 0.0), (90.0, 1.0), (120.0, 1.0)]:
        row[0, 0] = age
        assert pre.transform(row)[0, 0] * np.sqrt(13) == pytest.approx(expected)
    assert ADULT_BOUNDS["age"] == (17.0, 90.0)


def test_preprocessor_misspelt_categories_are_refused_after_the_charge():
    """A misspelt category is NaN in its group (no refusal before a ledger's charge):
    the estimator that follows refuses the fit after charging."""
    from sklearn.pipeline import make_pipeline

    from skdpgd import DPLogisticRegression, PrivacyLedger

    adult = load_adult("test")
    data, target = adult.data[:50].copy(), adult.target[:50]
    data[:, 9] = [" " + v for v in data[:, 9]]  # sex, read without skipinitialspace
    pre = make_adult_preprocessor().fit(data)  # fit reads no value: no error
    out = pre.transform(data)
    names = list(pre.get_feature_names_out())
    sex = [names.index("x9_Female"), names.index("x9_Male")]  # column 9 of the array
    assert np.isnan(out[:, sex]).all()
    assert not np.isnan(np.delete(out, sex, axis=1)).any()
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-3)
    model = make_pipeline(make_adult_preprocessor(), DPLogisticRegression(
        classes=[0, 1], ledger=ledger, random_state=0))
    with pytest.raises(ValueError):
        model.fit(data, target)
    assert ledger.spent().epsilon > 0
