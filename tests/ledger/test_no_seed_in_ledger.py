"""Nothing secret reaches the ledger.

A fixed seed kept secret is as good as OS entropy; one written in the shared ledger file
is not (whoever reads it refits on D and D' with that seed and tells which was used). The
tests fit with ``random_state=8675309`` (and with a Generator seeded by it) and look for
the seed in every byte of the ledger's files (the database and its -wal/-shm companions,
before and after a checkpoint), in every entry, the ledger's repr and every message.
"""

import sqlite3
import struct
import warnings

import numpy as np
import pytest
from _chains import chain_texts
from sklearn.pipeline import make_pipeline

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd._ledger._entries import describe
from skdpgd.exceptions import PrivacyBudgetExceeded
from skdpgd.model_selection import DPSearchCV
from skdpgd.preprocessing import BoundedScaler

SEED = 8675309
DELTA = 1e-5


def _encodings(seed):
    """The seed as decimal text (ASCII and UTF-16), hex text and 4/8-byte integers."""
    text = str(seed)
    out = {text.encode(), text.encode("utf-16-le"), f"{seed:x}".encode(),
           f"{seed:X}".encode(), struct.pack("<q", seed), struct.pack(">q", seed),
           struct.pack("<i", seed), struct.pack(">i", seed), struct.pack("<d", float(seed))}
    return out


SECRETS = _encodings(SEED)


def _generator_secrets():
    """The 128-bit PCG64 state of ``default_rng(SEED)`` as decimal text and bytes."""
    state = np.random.default_rng(SEED).bit_generator.state["state"]
    out = set()
    for value in (state["state"], state["inc"]):
        out |= {str(value).encode(), value.to_bytes(16, "little"), value.to_bytes(16, "big")}
    return out


def _assert_clean(blob, secrets=SECRETS, where=""):
    if isinstance(blob, str):
        blob = blob.encode()
    for secret in secrets:
        assert secret not in blob, f"secret {secret!r} found in {where}"


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 3)) / 2
    y = (X[:, 0] > 0.25).astype(int)
    return X, y


def _all_file_bytes(tmp_path):
    return {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}


def _check_ledger(ledger, tmp_path, secrets=SECRETS):
    for name, blob in _all_file_bytes(tmp_path).items():
        _assert_clean(blob, secrets, name)
    for entry in ledger.entries:
        _assert_clean(repr(entry), secrets, "entry repr")
        for field, value in entry.__dict__.items():
            _assert_clean(repr(value), secrets, f"entry.{field}")
    _assert_clean(repr(ledger) + str(ledger), secrets, "ledger repr")


def test_the_digit_checks_can_fail():
    """The encodings really are found where the seed is written (so the tests can fail)."""
    for secret in SECRETS:
        with pytest.raises(AssertionError):
            _assert_clean(b"xx" + secret + b"yy")
    assert str(SEED).encode() in repr(DPLogisticRegression(random_state=SEED)).encode()


@pytest.mark.parametrize("random_state", ["int", "legacy"])
def test_a_seeded_fit_leaves_no_seed_in_the_ledger_file_or_entries(tmp_path, random_state):
    path = tmp_path / "budget.sqlite"
    ledger = PrivacyLedger(epsilon=3.0, delta=DELTA, path=str(path))
    seed = {"int": SEED, "legacy": np.random.RandomState(SEED)}[random_state]
    secrets = SECRETS
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPLogisticRegression(epsilon=1.0, classes=[0, 1], ledger=ledger, max_iter=20,
                             random_state=seed).fit(X, y)
        DPRidge(epsilon=1.0, y_bound=1.0, ledger=ledger, max_iter=20,
                random_state=seed).fit(X, y.astype(float))
    for w in caught:
        _assert_clean(str(w.message), secrets, "warning")
    assert len(ledger.entries) == 2
    assert "epsilon=" not in ledger.entries[0].source  # default epsilon=1.0: not shown
    _check_ledger(ledger, tmp_path, secrets)
    # the refusal message names the fit: still no seed
    with pytest.raises(PrivacyBudgetExceeded) as refused:
        for _ in range(20):
            DPLogisticRegression(epsilon=1.0, classes=[0, 1], ledger=ledger, max_iter=20,
                                 random_state=seed).fit(X, y)
    _assert_clean(str(refused.value), secrets, "refusal")
    for text in chain_texts(refused.value):  # every link of its chain and their args
        _assert_clean(text, secrets, "refusal's chain")
    del ledger
    with sqlite3.connect(path) as conn:  # fold the write-ahead log into the file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    reopened = PrivacyLedger(path=str(path))
    _check_ledger(reopened, tmp_path, secrets)


def test_meta_estimators_and_searches_leave_no_seed(tmp_path):
    path = tmp_path / "budget.sqlite"
    ledger = PrivacyLedger(path=str(path))
    X, y = _data(200)
    inner = DPLogisticRegression(epsilon=1.0, C=2.0, classes=[0, 1], max_iter=20,
                                 random_state=SEED)
    pipe = make_pipeline(BoundedScaler(bounds=[(0, 1)] * 3), inner)
    report = inner.plan_privacy(200, 3)
    ledger.charge(pipe, report, n_samples=200)  # a meta-estimator named by a caller
    assert "C=2.0" in ledger.entries[-1].source and "BoundedScaler" in ledger.entries[-1].source
    ledger.charge(_Custom(), report, n_samples=200)  # a Generator among the parameters
    assert "alpha=3.0" in ledger.entries[-1].source
    DPSearchCV(DPLogisticRegression(classes=[0, 1], max_iter=20, random_state=SEED),
               {"C": [0.5, 2.0]}, epsilon=1.0, ledger=ledger, random_state=SEED).fit(X, y)
    _check_ledger(ledger, tmp_path, SECRETS | _generator_secrets())


class _Custom:
    """An object with secrets among its parameters, next to public ones."""

    def __init__(self, inner=None):
        self.inner = inner

    def get_params(self, deep=False):
        return {"seed": SEED, "rng": np.random.default_rng(SEED), "api_key": "hunter2",
                "weights": np.arange(3), "inner": self.inner, "alpha": 3.0,
                "opts": {"random_state": SEED, "tol": 1e-3}}


def test_describe_keeps_public_hyperparameters_only():
    ledger = PrivacyLedger()
    est = DPLogisticRegression(epsilon=2.0, C=0.5, classes=["no", "yes"], ledger=ledger,
                               random_state=SEED)
    text = describe(est)
    assert text.startswith("DPLogisticRegression(") and "C=0.5" in text
    assert "epsilon=2.0" in text and "classes=['no', 'yes']" in text
    assert "random_state" not in text and "ledger" not in text and str(SEED) not in text

    text = describe(_Custom(inner=est))
    assert "alpha=3.0" in text and "weights=<ndarray>" in text and "tol" in text
    assert "DPLogisticRegression(" in text and "C=0.5" in text
    for secret in (str(SEED), "hunter2", "seed", "rng", "api_key", "random_state"):
        assert secret not in text


def test_a_source_given_as_text_loses_its_seed_too(tmp_path):
    """A caller naming the fit with ``repr(estimator)`` (or a ``_ledger_source`` that
    prints every parameter) does not record the seed either."""
    ledger = PrivacyLedger(path=str(tmp_path / "budget.sqlite"))
    est = DPRidge(alpha=2.0, y_bound=1.0, random_state=SEED)
    assert str(SEED) in repr(est)
    ledger.charge(repr(est), est.plan_privacy(100, 3), n_samples=100)

    class Named:
        def _ledger_source(self):
            return f"Named(alpha=1.0, seed={SEED}, rng=Generator(PCG64))"

    ledger.charge(Named(), est.plan_privacy(100, 3), n_samples=100)
    first, second = (e.source for e in ledger.entries)
    assert first.startswith("DPRidge(") and "alpha=2.0" in first and "y_bound=1.0" in first
    assert "random_state" not in first and second == "Named(alpha=1.0)"
    _check_ledger(ledger, tmp_path)
