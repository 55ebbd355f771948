"""No message, warning or printed line quotes a data value, a row index or a count of rows.

A refusal that comes after the privacy charge may reveal *that* the data hold something
outside the domain of the guarantee (docs/privacy_model.md, "Which errors depend on the
data"), but not the value, where it is or how often: an output that always differs
between neighbouring data sets is not private at any epsilon. These tests plant secrets
at rows 5 and 17 (two rows, so a count would read "2") and look for them in every text a
user can see: the exception's ``str`` and ``repr``, every exception chained to it
(``__cause__``, ``__context__``, at any depth) and every argument of every link
(tests/_chains.py: a debugger or an error reporter reads them all), every warning,
stdout, stderr and log records, through a plain fit, a ``Pipeline`` of skdpgd's public transformers,
``GridSearchCV`` with ``search_privacy_cost``, ``DPSearchCV`` and the command line.

The secrets are chosen so that they cannot appear in a message by chance: the string
``'ssn 123-45-6789'``, the label ``'HIV+: patient 4711'``, the numbers 4711.4711 and
8675309; a row index is looked for as a bare number (5, 17; 6, 18 counted from 1; 7, 19
as CSV line numbers with the header on line 1), which no message of these fits holds
otherwise (checked by the clean cases, which must print none of them either).
"""

import logging
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _chains import assert_no_original, chain_texts

from skdpgd import DPLogisticRegression, DPRidge, PrivacyLedger
from skdpgd.preprocessing import BoundedScaler, PublicOneHotEncoder, RowNormClipper

pd = pytest.importorskip("pandas")

N, D = 40, 3
ROWS = (5, 17)
TEXT = "ssn 123-45-6789"
LABEL = "HIV+: patient 4711"
NUMBERS = (4711.4711, 8675309.0)

#: Substrings that only the secrets can produce (any printed form of the numbers too).
SECRET_PARTS = ("123-45-6789", "6789", "HIV+", "patient", "4711", "8675309", "867530",
                "4.7114", "8.6753")
#: A row index (0-based 5, 17; 1-based 6, 18; CSV lines 7, 19 with the header on line 1)
#: after a word that locates a row ("row 5", "e.g. row 5", "line 7", "index 17", "[5"),
#: or two of them together ("5, 17"); never part of a longer number or a decimal.
_INDEX = r"(?:5|6|7|17|18|19)(?![\w]|\.\d)"
_LOCATES = (r"\b(?:rows?|row\(s\)|lines?|index|indices|records?|samples?|positions?|"
            r"entry|entries|at)\b")
ROW_INDEX = re.compile(
    rf"{_LOCATES}[^\w\n]{{0,4}}(?:e\.g\.\s*)?(?:(?:rows?|lines?)\s*)?{_INDEX}"
    rf"|\[\s*{_INDEX}|(?<![\w.])(?:5|6|7)[^\w\n]{{1,4}}(?:17|18|19)(?![\w]|\.\d)"
)
#: A count of the two bad rows: "2 rows", "2 non-finite row(s)", "rows: 2", "labels (2)".
_COUNTED = r"(?:rows?|row\(s\)|records?|samples?|lines?|labels?|values?|cells?|entries)"
ROW_COUNT = re.compile(
    rf"(?<![\w.])2\s+(?:\S+\s+){{0,2}}{_COUNTED}\b|\b{_COUNTED}\W{{1,3}}2(?![\w.])"
)



# -- collecting every text a user can see ------------------------------------------------------

def _texts(action, capsys, caplog):
    """Run ``action``; return (the exception or None, every text it made visible)."""
    caplog.set_level(logging.INFO)  # (numba's DEBUG bytecode dumps are not messages)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            action()
        except Exception as error:  # any refusal; its text is checked
            raised = error
        else:
            raised = None
    texts = [f"{w.category.__name__}: {w.message}" for w in caught]
    texts += chain_texts(raised) if raised is not None else []
    out = capsys.readouterr()
    texts += [out.out, out.err, caplog.text]
    return raised, texts


def _leaks(texts):
    """The (pattern, text) pairs that reveal a secret, a row index or a count of rows."""
    found = []
    for text in texts:
        found += [(part, text) for part in SECRET_PARTS if part in text]
        found += [(f"row index {m.group(0)}", text) for m in ROW_INDEX.finditer(text)]
        found += [(f"count {m.group(0)!r}", text) for m in ROW_COUNT.finditer(text)]
    return found


def _check(action, capsys, caplog, *, refused, names=None):
    """Assert that ``action`` refuses (or not) and that nothing visible leaks.

    ``refused``: True (must refuse), False (must not) or None (either is correct: only
    the texts are checked). ``names``: a regex the refusal must match (it names the
    parameter or the column).
    """
    raised, texts = _texts(action, capsys, caplog)
    if refused is True:
        assert raised is not None, "expected a refusal"
    elif refused is False:
        assert raised is None, f"unexpected refusal: {raised!r}"
    leaks = _leaks(texts)
    assert not leaks, "a message reveals the data:\n" + "\n".join(
        f"  {what}: {text[:300]!r}" for what, text in leaks
    )
    if raised is not None and names is not None:
        assert re.search(names, str(raised)), str(raised)
    return raised


def _no_original_in_chain(error):
    """The refusal carries no original exception: a traceback prints only our message."""
    assert_no_original(error)


# -- data with secrets at rows 5 and 17 --------------------------------------------------------

def _clean():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.4, 0.4, size=(N, D))
    X[ROWS[0], 0], X[ROWS[1], 0] = NUMBERS  # finite secrets: valid rows, clipped
    return X, (X[:, 1] > 0).astype(int), np.clip(X[:, 1] + 0.1 * X[:, 2], -1, 1)


def _object_X(value):
    X = _clean()[0].astype(object)
    for i in ROWS:
        X[i, 2] = value
    return X


def _with_rows(array, value, column=2):
    array = np.array(array, dtype=float)
    for i in ROWS:
        if array.ndim == 1:
            array[i] = value
        else:
            array[i, column] = value
    return array


def _ragged():
    X = _clean()[0].tolist()
    X[ROWS[0]] = X[ROWS[0]] + [NUMBERS[0]]
    X[ROWS[1]] = X[ROWS[1]][:2]
    return X


def _frame(column):
    X = _clean()[0]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["note"] = column
    return frame


def _note_column(kind):
    values = ["1.5"] * N
    for i in ROWS:
        values[i] = TEXT
    return pd.Categorical(values) if kind == "category" else np.array(values, dtype=object)


BAD_X = {
    "string cell": (lambda: _object_X(TEXT), r"\bX\b"),
    "dict cell": (lambda: _object_X({"id": TEXT}), r"\bX\b"),
    "complex": (lambda: _clean()[0] + 1j * _with_rows(np.zeros((N, D)), NUMBERS[0]), r"\bX\b"),
    "complex CSR": (lambda: sp.csr_matrix(_clean()[0] + 1j * NUMBERS[0]), r"\bX\b"),
    "1-D": (lambda: _clean()[0][:, 0], r"\bX\b"),
    "scalar": (lambda: NUMBERS[0], r"\bX\b"),
    "3-D": (lambda: _clean()[0][:, :, None], r"\bX\b"),
    "ragged lists": (_ragged, r"\bX\b"),
    "DataFrame object column": (lambda: _frame(_note_column("object")), "note"),
    "DataFrame categorical column": (lambda: _frame(_note_column("category")), "note"),
}

NON_FINITE_X = {
    "NaN": lambda: _with_rows(_clean()[0], np.nan),
    "inf": lambda: _with_rows(_clean()[0], np.inf),
}


def _labels_with(value, dtype=object):
    y = _clean()[1].astype(object)
    for i in ROWS:
        y[i] = value
    return np.asarray(y, dtype=dtype)


BAD_LABELS = {  # (y, classes)
    "label outside classes": (lambda: _labels_with(LABEL), [0, 1]),
    "string labels outside string classes": (
        lambda: np.where(np.isin(np.arange(N), ROWS), LABEL, "no"), ["no", "yes"]),
    "NaN label": (lambda: _labels_with(np.nan, float), [0, 1]),
    "continuous target": (lambda: _with_rows(_clean()[1], NUMBERS[0]), [0, 1]),
    "mixed types, no classes": (lambda: _labels_with(LABEL), None),
    "single label, no classes": (lambda: np.array([LABEL] * N), None),
    "complex labels": (lambda: _clean()[1] + 1j * NUMBERS[0], [0, 1]),
    "2-D labels": (lambda: np.column_stack([_clean()[1], _with_rows(_clean()[1], NUMBERS[0])]),
                   [0, 1]),
}

BAD_TARGETS = {
    "string targets": lambda: _labels_with(TEXT),
    "numpy string targets": lambda: _labels_with(TEXT).astype(str),
    "NaN targets": lambda: _with_rows(_clean()[2], np.nan),
    "inf targets": lambda: _with_rows(_clean()[2], np.inf),
    "complex targets": lambda: _clean()[2] + 1j * NUMBERS[0],
    "2-D targets": lambda: np.column_stack([_clean()[2], _with_rows(_clean()[2], NUMBERS[0])]),
}


def _logistic(**kw):
    return DPLogisticRegression(**{"max_iter": 3, "random_state": 0, **kw})


def _ridge(**kw):
    return DPRidge(**{"y_bound": 1.0, "max_iter": 3, "random_state": 0, **kw})


# -- the clean case: the secrets are valid values and appear nowhere --------------------------

@pytest.mark.parametrize("make", [_logistic, _ridge], ids=["logistic", "ridge"])
def test_a_fit_on_secret_values_prints_none_of_them(make, capsys, caplog):
    X, labels, targets = _clean()
    y = labels if make is _logistic else targets
    est = make(verbose=1, ledger=PrivacyLedger())
    if make is _logistic:
        est.set_params(classes=[0, 1])
    _check(lambda: est.fit(X, y), capsys, caplog, refused=False)
    assert est.n_iter_ >= 1
    for text in (repr(est), repr(est.privacy_), str(est.privacy_.notes)):
        assert not _leaks([text]), text


# -- plain fits ----------------------------------------------------------------------------

@pytest.mark.parametrize("make", [_logistic, _ridge], ids=["logistic", "ridge"])
@pytest.mark.parametrize("case", list(BAD_X))
def test_bad_X_is_refused_without_quoting_it(make, case, capsys, caplog):
    build, names = BAD_X[case]
    _X, labels, targets = _clean()
    y = labels if make is _logistic else targets
    est = make(classes=[0, 1]) if make is _logistic else make()
    error = _check(lambda: est.fit(build(), y), capsys, caplog, refused=True, names=names)
    _no_original_in_chain(error)


@pytest.mark.parametrize("make", [_logistic, _ridge], ids=["logistic", "ridge"])
@pytest.mark.parametrize("case", list(BAD_X))
def test_bad_X_is_refused_without_quoting_it_with_a_ledger(make, case, capsys, caplog):
    build, _ = BAD_X[case]
    _X, labels, targets = _clean()
    y = labels if make is _logistic else targets
    kw = {"classes": [0, 1]} if make is _logistic else {}
    est = make(ledger=PrivacyLedger(), **kw)
    _check(lambda: est.fit(build(), y), capsys, caplog, refused=True)


@pytest.mark.parametrize("make", [_logistic, _ridge], ids=["logistic", "ridge"])
@pytest.mark.parametrize("case", list(NON_FINITE_X))
def test_non_finite_X_is_refused_without_a_row_or_count(make, case, capsys, caplog):
    _X, labels, targets = _clean()
    est = make(classes=[0, 1]) if make is _logistic else make()
    y = labels if make is _logistic else targets
    _check(lambda: est.fit(NON_FINITE_X[case](), y), capsys, caplog, refused=True,
           names=r"\bX\b")


@pytest.mark.parametrize("case", list(BAD_LABELS))
def test_bad_labels_are_refused_without_quoting_them(case, capsys, caplog):
    build, classes = BAD_LABELS[case]
    est = _logistic(classes=classes)
    error = _check(lambda: est.fit(_clean()[0], build()), capsys, caplog, refused=True,
                   names=r"\by\b|classes")
    _no_original_in_chain(error)


@pytest.mark.parametrize("case", list(BAD_TARGETS))
def test_bad_targets_are_refused_without_quoting_them(case, capsys, caplog):
    error = _check(lambda: _ridge().fit(_clean()[0], BAD_TARGETS[case]()), capsys, caplog,
                   refused=True, names=r"\by\b")
    _no_original_in_chain(error)


def test_a_dask_string_target_is_refused_without_quoting_it(capsys, caplog):
    da = pytest.importorskip("dask.array")
    X = da.from_array(_clean()[0], chunks=(20, D))
    _check(lambda: _ridge().fit(X, BAD_TARGETS["string targets"]()), capsys, caplog,
           refused=True, names=r"\by\b")


# -- Pipelines of skdpgd's public transformers ---------------------------------------------

def _pipeline(model):
    from sklearn.pipeline import make_pipeline

    return make_pipeline(BoundedScaler(bounds=(-1.0, 1.0)), RowNormClipper(1.0), model)


@pytest.mark.parametrize("case", [
    "string cell", "complex", "ragged lists", "DataFrame object column",
])
def test_a_pipeline_refuses_bad_X_without_quoting_it(case, capsys, caplog):
    X = BAD_X[case][0]()
    model = _logistic(classes=[0, 1], ledger=PrivacyLedger())
    _check(lambda: _pipeline(model).fit(X, _clean()[1]), capsys, caplog, refused=True)


def test_a_pipeline_passes_nan_to_the_estimator_which_refuses_after_the_charge(
        capsys, caplog):
    # The public transformers map NaN to NaN (they never refuse a value before the
    # charge); the estimator refuses after charging its ledger, naming X only.
    ledger = PrivacyLedger()
    model = _logistic(classes=[0, 1], ledger=ledger)
    _check(lambda: _pipeline(model).fit(NON_FINITE_X["NaN"](), _clean()[1]), capsys, caplog,
           refused=True, names=r"\bX\b")
    assert len(ledger.entries) == 1  # charged before the refusal


def test_a_pipeline_clips_infinity_to_the_public_bound(capsys, caplog):
    # BoundedScaler clips +-inf into [0, 1] like any value beyond the bounds (a per-value
    # map), so an infinite cell is not a refusal in this pipeline; nothing is printed.
    model = _logistic(classes=[0, 1], ledger=PrivacyLedger())
    _check(lambda: _pipeline(model).fit(NON_FINITE_X["inf"](), _clean()[1]), capsys, caplog,
           refused=False)


def test_a_pipeline_refuses_a_bad_label_without_quoting_it(capsys, caplog):
    model = _logistic(classes=[0, 1], ledger=PrivacyLedger())
    X = _clean()[0]
    _check(lambda: _pipeline(model).fit(X, _labels_with(LABEL)), capsys, caplog,
           refused=True, names=r"\by\b")


def test_one_hot_of_an_unlisted_secret_category_names_the_column_only(capsys, caplog):
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    X = _frame(np.where(np.isin(np.arange(N), ROWS), TEXT, "red"))
    encoder = PublicOneHotEncoder([["red", "blue"]], handle_unknown="error")
    features = ColumnTransformer([("num", BoundedScaler(bounds=(-1.0, 1.0)), list("abc")),
                                  ("cat", encoder, ["note"])])
    model = Pipeline([("features", features), ("clip", RowNormClipper(1.0)),
                      ("model", _logistic(classes=[0, 1]))])
    raised, texts = _texts(lambda: model.fit(X, _clean()[1]), capsys, caplog)
    assert not _leaks(texts), _leaks(texts)
    # a refusal (if the encoder refuses unlisted values) names the column, not the value
    if raised is not None:
        assert "note" in str(raised) or "column" in str(raised), str(raised)


TRANSFORMERS = {
    "BoundedScaler": lambda: BoundedScaler(bounds=(-1.0, 1.0)),
    "RowNormClipper": lambda: RowNormClipper(1.0),
}


def test_an_unlisted_category_reaches_the_estimator_which_refuses_after_the_charge(
        capsys, caplog):
    # PublicOneHotEncoder's default maps a value outside the public list to NaN (it never
    # refuses before the charge); the estimator refuses the NaN after charging its ledger.
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    X = _frame(np.where(np.isin(np.arange(N), ROWS), TEXT, "red"))
    features = ColumnTransformer([("num", BoundedScaler(bounds=(-1.0, 1.0)), list("abc")),
                                  ("cat", PublicOneHotEncoder([["red", "blue"]]), ["note"])])
    ledger = PrivacyLedger()
    model = Pipeline([("features", features), ("clip", RowNormClipper(1.0)),
                      ("model", _logistic(classes=[0, 1], ledger=ledger))])
    _check(lambda: model.fit(X, _clean()[1]), capsys, caplog, refused=True, names=r"\bX\b")
    assert len(ledger.entries) == 1


@pytest.mark.parametrize("transformer", list(TRANSFORMERS))
@pytest.mark.parametrize("case", [
    "string cell", "DataFrame object column", "NaN", "inf", "complex",
])
def test_transformers_quote_no_value(transformer, case, capsys, caplog):
    # A value a transformer cannot read passes as NaN (refused later by the estimator,
    # after its charge) or is refused; either way no text quotes it.
    X = BAD_X[case][0]() if case in BAD_X else NON_FINITE_X[case]()
    _check(lambda: TRANSFORMERS[transformer]().fit_transform(X), capsys, caplog,
           refused=None)


# -- a DPPipeline (private preparation and the estimator in one budget) ----------------------

def _dp_pipeline(model):
    from skdpgd.pipeline import make_dp_pipeline
    from skdpgd.preprocessing import DPTableVectorizer

    # the pipeline's random_state is the only seed (a step's own is refused)
    model.set_params(random_state=None)
    return make_dp_pipeline(DPTableVectorizer(), model, epsilon=1.0, ledger=PrivacyLedger(),
                            random_state=0)


@pytest.mark.parametrize("case", ["secret cells", "label outside classes", "NaN labels",
                                  "text targets", "text targets, private range",
                                  "object label outside classes", "complex"])
def test_a_dp_pipeline_quotes_no_cell(case, capsys, caplog):
    X, labels, _targets = _clean()
    frame = _frame(_note_column("object"))  # text, secret numbers, a numeric-text column
    model, y, refused = _logistic(classes=[0, 1]), labels, False
    if case == "label outside classes":
        y, refused = _labels_with(LABEL), True
    elif case == "object label outside classes":
        y, refused = _labels_with(8675309), True
    elif case == "NaN labels":
        y, refused = _labels_with(np.nan, float), True
    elif case == "text targets":
        model, y, refused = _ridge(), BAD_TARGETS["string targets"](), True
    elif case == "text targets, private range":  # y_bound="auto": the pipeline reads y
        model, y, refused = _ridge(y_bound="auto"), BAD_TARGETS["string targets"](), True
    elif case == "complex":
        frame, refused = X + 1j * NUMBERS[0], None
    error = _check(lambda: _dp_pipeline(model).fit(frame, y), capsys, caplog,
                   refused=refused)
    if refused:
        _no_original_in_chain(error)


# -- searches ------------------------------------------------------------------------------

@pytest.mark.parametrize("error_score", ["raise", np.nan], ids=["raise", "nan"])
@pytest.mark.parametrize("case", ["string cell", "complex"])
def test_grid_search_refusals_quote_no_data(case, error_score, capsys, caplog):
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(_logistic(classes=[0, 1]), {"C": [1.0]}, cv=2,
                          error_score=error_score)
    _check(lambda: search.fit(BAD_X[case][0](), _clean()[1]), capsys, caplog, refused=True)


def test_grid_search_and_its_cost_on_secret_values_print_none(capsys, caplog):
    from sklearn.model_selection import GridSearchCV, KFold

    from skdpgd.model_selection import search_privacy_cost

    X, labels, _ = _clean()
    cv = KFold(3, shuffle=True, random_state=0)  # 3 x 3 fits + refit: "10", never "2" or "5"
    search = GridSearchCV(_logistic(classes=[0, 1]), {"C": [0.5, 1.0, 2.0]}, cv=cv)

    def run():
        search.fit(X, labels)
        print(search_privacy_cost(search))

    _check(run, capsys, caplog, refused=False)


def _dpsearch(**kw):
    from skdpgd.model_selection import DPSearchCV

    return DPSearchCV(_logistic(classes=[0, 1]), {"C": [0.5, 1.0]}, epsilon=1.0,
                      expected_trials=2.0, random_state=0, **kw)


@pytest.mark.parametrize("case", ["string cell", "complex", "1-D", "ragged lists",
                                  "DataFrame object column", "NaN", "label outside classes"])
def test_dpsearch_refusals_quote_no_data(case, capsys, caplog):
    X, y = _clean()[0], _clean()[1]
    if case in BAD_X:
        X = BAD_X[case][0]()
    elif case in NON_FINITE_X:
        X = NON_FINITE_X[case]()
    else:
        y = BAD_LABELS[case][0]()
    _check(lambda: _dpsearch(ledger=PrivacyLedger()).fit(X, y), capsys, caplog, refused=True)


def test_dpsearch_on_secret_values_prints_none(capsys, caplog):
    X, labels, _ = _clean()
    search = _dpsearch()
    _check(lambda: print(search.fit(X, labels).privacy_), capsys, caplog, refused=False)


# -- the command line ----------------------------------------------------------------------

def _csv(tmp_path, *, age=None, sex=None, income=None, extra_field=False, raw=None):
    """A CSV (header on line 1) whose rows 5 and 17 (lines 7 and 19) hold the secrets."""
    rng = np.random.default_rng(1)
    lines = ["age,sex,income"]
    for i in range(N):
        a = f"{rng.uniform(20, 60):.1f}"
        s = ("Female", "Male")[i % 2]
        t = ("<=50K", ">50K")[int(rng.uniform() > 0.5)] if i > 1 else ("<=50K", ">50K")[i]
        if i in ROWS:
            a = a if age is None else age(i)
            s = s if sex is None else sex
            t = t if income is None else income
        lines.append(f"{a},{s},{t}" + (",4711" if extra_field and i in ROWS else ""))
    path = tmp_path / "data.csv"
    if raw is not None:
        path.write_bytes(raw("\n".join(lines) + "\n"))
    else:
        path.write_text("\n".join(lines) + "\n")
    return path


_PUBLIC = ["--bounds", "age=0:100", "--categories", "sex=Female,Male"]
_CLASSES = ["--classes", "<=50K,>50K"]

CLI_CASES = {  # name: (csv options, extra flags, refused)
    "text in a numeric column": (dict(age=lambda i: TEXT), _PUBLIC + _CLASSES, True),
    "secret numbers in a numeric column": (
        dict(age=lambda i: repr(NUMBERS[ROWS.index(i)])), _PUBLIC + _CLASSES, False),
    "unlisted category": (dict(sex=TEXT), _PUBLIC + _CLASSES, None),
    "label outside classes": (dict(income=LABEL), _PUBLIC + _CLASSES, True),
    # no --classes: the label set is released privately; the rare label is not in it
    "label set released privately": (dict(income=LABEL), [*_PUBLIC, "--model", "logistic"],
                                      None),
    "extra field on a line": (dict(extra_field=True), _PUBLIC + _CLASSES, True),
    "undecodable bytes": (
        dict(raw=lambda text: text.replace("Male", "M\xe4le", 1).encode("latin-1")
             .replace(b"Female", b"Fem\xff" + "ssn 123-45-6789".encode(), 1)),
        _PUBLIC + _CLASSES, True),
}


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli_fit_quotes_no_cell(case, tmp_path, capsys, caplog):
    from skdpgd._cli import main

    options, flags, refused = CLI_CASES[case]
    path = _csv(tmp_path, **options)
    status = []
    raised, texts = _texts(lambda: status.append(main(
        ["fit", str(path), "--target", "income", "--epsilon", "1", "--random-state", "0",
         *flags])), capsys, caplog)
    assert raised is None  # the CLI never raises: it prints one line and exits 2
    if refused is not None:
        assert status == [2 if refused else 0], texts
    leaks = _leaks(texts)
    assert not leaks, leaks


@pytest.fixture(autouse=True)
def _cli_refusal_chains_hold_no_secret(monkeypatch):
    """Every refusal the command line prints (as one line) holds no secret in its chain.

    Its cause, context and arguments at any depth (tests/_chains.py). A ``LookupError``
    is printed by its type only, whatever it holds (test_cli_withholds_the_text_of_a_
    lookup_error plants one), so it is left out here.
    """
    import skdpgd._cli as cli

    original = cli._one_line

    def checked(exc):
        if not isinstance(exc, LookupError):
            assert not _leaks(chain_texts(exc)), chain_texts(exc)
            assert_no_original(exc)
        return original(exc)

    monkeypatch.setattr(cli, "_one_line", checked)


def _cli_refusal(argv):
    """The exception the command line would print as one line (it never shows it)."""
    from skdpgd._cli import build_parser

    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except Exception as error:  # any refusal; its chain is checked
        return error
    return None


@pytest.mark.parametrize("case", [case for case in CLI_CASES if CLI_CASES[case][2]])
@pytest.mark.parametrize("public", [True, False], ids=["public bounds", "private table"])
def test_cli_refusals_carry_no_cell_in_their_chain(case, public, tmp_path):
    # what `main` prints is one line, but the exception behind it (its cause, context and
    # arguments: a UnicodeDecodeError holds the file's bytes) must hold no cell either
    options, flags, _ = CLI_CASES[case]
    flags = flags if public else _CLASSES
    path = _csv(tmp_path, **options)
    error = _cli_refusal(["fit", str(path), "--target", "income", "--epsilon", "1",
                          "--random-state", "0", *flags])
    if error is None:
        assert not public, case  # without public bounds a text cell is a missing value
        return
    assert not _leaks(chain_texts(error)), chain_texts(error)
    _no_original_in_chain(error)


def test_cli_predict_refuses_undecodable_bytes_with_no_cell_in_its_chain(
        saved_model, tmp_path):
    raw = CLI_CASES["undecodable bytes"][0]["raw"]
    error = _cli_refusal(["predict", str(saved_model), str(_csv(tmp_path, raw=raw))])
    assert isinstance(error, ValueError), error
    assert not _leaks(chain_texts(error)), chain_texts(error)
    _no_original_in_chain(error)


def test_cli_fit_reports_no_row_of_a_nan_cell(tmp_path, capsys, caplog):
    from skdpgd._cli import main

    path = _csv(tmp_path, age=lambda i: "nan")
    status = []
    _, texts = _texts(lambda: status.append(main(
        ["fit", str(path), "--target", "income", "--epsilon", "1", *_PUBLIC, *_CLASSES])),
        capsys, caplog)
    assert status == [2]  # NaN reaches the estimator, which refuses it
    assert not _leaks(texts), _leaks(texts)


def test_cli_fit_without_public_bounds_quotes_no_cell(tmp_path, capsys, caplog):
    from skdpgd._cli import main

    # Columns without public bounds go through the private table vectorizer: the text in
    # the numeric column and the secret label are counted privately, never printed.
    path = _csv(tmp_path, age=lambda i: TEXT, income=LABEL)
    _, texts = _texts(lambda: main(["fit", str(path), "--target", "income", "--epsilon", "1",
                                    "--random-state", "0"]), capsys, caplog)
    assert not _leaks(texts), _leaks(texts)


def test_the_leak_detector_finds_what_the_old_messages_printed():
    # The messages skdpgd printed before must all be caught by the detector.
    old = [
        "y contains labels ['HIV+: patient 4711'] that are not in classes=[0, 1].",
        "could not convert string to float: 'ssn 123-45-6789'",
        "X has non-finite values (NaN or infinity) in 2 row(s), e.g. row 5; remove them.",
        "column 'age' has the non-numeric value 'x' on line 7; declare it.",
        "'data.csv': line 19 has a different number of fields than the header (3).",
        "Complex data not supported\n[[ 8.2e-02+4.7114711e+03j]]",
        "y holds 2 labels outside classes.",
    ]
    assert all(_leaks([text]) for text in old), [t for t in old if not _leaks([t])]
    # and none of the new ones
    fine = [
        "y contains labels that are not in classes=[0, 1] (the public label set).",
        "X holds values that are not numbers (non-numeric column(s) ['note']).",
        "delta='auto' is min(1e-5, 1/(10 n)); data_norm=0.5; X has 40 rows, d=4.",
        "DPLogisticRegression needs at least 2 classes; y holds a single label.",
    ]
    assert not any(_leaks([text]) for text in fine), [t for t in fine if _leaks([t])]


@pytest.mark.parametrize("weights, refused", [
    pytest.param(lambda: _labels_with(TEXT), True, id="text"),
    pytest.param(lambda: _with_rows(np.ones(N), np.nan), True, id="NaN"),
    pytest.param(lambda: _with_rows(np.ones(N), NUMBERS[0]) + 1j, None, id="complex"),
])
def test_sample_weight_refusals_quote_no_weight(weights, refused, capsys, caplog):
    # sample_weight is private (one weight per record): the same rules as X and y
    est = _logistic(classes=[0, 1], max_sample_weight=2.0)
    X, labels, _ = _clean()
    _check(lambda: est.fit(X, labels, sample_weight=weights()), capsys, caplog,
           refused=refused, names="sample_weight")


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    from skdpgd._cli import main

    folder = tmp_path_factory.mktemp("model")
    path = folder / "model.joblib"
    assert main(["fit", str(_csv(folder)), "--target", "income", "--epsilon", "1",
                 "--random-state", "0", *_PUBLIC, *_CLASSES, "--output", str(path)]) == 0
    return path


@pytest.mark.parametrize("options", [
    dict(age=lambda i: TEXT), dict(sex=TEXT), dict(age=lambda i: "nan"),
    dict(extra_field=True),
], ids=["text in a numeric column", "unlisted category", "NaN", "extra field"])
def test_cli_predict_quotes_no_cell(saved_model, options, tmp_path, capsys, caplog):
    from skdpgd._cli import main

    data = _csv(tmp_path, **options)
    _, texts = _texts(lambda: main(["predict", str(saved_model), str(data)]), capsys, caplog)
    assert not _leaks(texts), _leaks(texts)


def test_cli_withholds_the_text_of_a_lookup_error(tmp_path, capsys, monkeypatch):
    # A KeyError or IndexError from anywhere in a fit quotes the key it looked up, which
    # may be a cell: the one-line error gives its type only.
    import skdpgd._cli._commands as commands
    from skdpgd._cli import main

    def fails(args):
        raise KeyError(TEXT)

    monkeypatch.setattr(commands, "fit_command", fails)
    monkeypatch.setattr("skdpgd._cli.fit_command", fails)
    assert main(["fit", str(_csv(tmp_path)), "--target", "income", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "KeyError" in err and not _leaks([err]), err
