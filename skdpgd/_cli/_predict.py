"""``skdpgd predict``: the predictions of a saved model on a CSV file, as a CSV column.

The model file is the joblib dict ``skdpgd fit --output`` writes. Its pipeline starts
with a :class:`~skdpgd.preprocessing._table_schema.TableSchema`, which picks the feature columns by
name and reads every cell with the public rule the fit used, so any CSV with those columns
works (extra columns, the target among them, are ignored). The predictions are written
as one column named after the target, each label in the type of the public classes given
at fit time (``--classes 0,1``: the ints 0 and 1; ``--classes yes,no``: the strings).

Messages name files and columns only; no cell value, line number or count of rows is
ever printed (the rows may be private too).
"""

import csv
import sys
from pathlib import Path

import numpy as np

from ._csv import read_frame
from ._table import TableSchema, schema_of


def load_bundle(path):
    """The dict saved by ``skdpgd fit``; a clear error for anything else.

    joblib files are pickles: loading one runs code it names, so load only model files
    you trust (the command's help says so).
    """
    import joblib

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found.")
    unreadable = object()
    try:
        bundle = joblib.load(path)
    except Exception:  # any unreadable file is the same usage error
        bundle = unreadable  # its text may quote bytes of the file (a data file, even)
    if bundle is unreadable:  # raised outside the handler: nothing chained to it
        raise ValueError(f"{str(path)!r} is not a model saved by `skdpgd fit --output` "
                         "(joblib could not read it).")
    if not isinstance(bundle, dict) or "pipeline" not in bundle or "target" not in bundle:
        raise ValueError(f"{str(path)!r} is not a model saved by `skdpgd fit --output` "
                         "(no pipeline and target in it).")
    if not isinstance(schema_of(bundle["pipeline"]), TableSchema):
        raise ValueError(f"{str(path)!r} was saved by an older skdpgd (its pipeline does "
                         "not read CSV columns by name); fit it again.")
    return bundle


def format_label(value, kind):
    """One prediction as CSV text in the label type (``"int"``, ``"float"``, ``"str"``)."""
    if kind == "int":
        return str(int(value))
    if kind == "float" or isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def write_predictions(handle, target, predictions, kind):
    """Header ``target``, then one prediction per line (CSV quoting as needed)."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow([target])
    writer.writerows([format_label(value, kind)] for value in predictions)


def predict_csv(model_path, data_path, sep=None, decimal=None):
    """(target name, predictions, label kind) of a saved model on a CSV file.

    The file's dialect is sniffed from its header line like ``fit``'s (``sep`` and
    ``decimal`` override it); its columns are read by name.
    """
    bundle = load_bundle(model_path)
    schema = schema_of(bundle["pipeline"])
    markers = schema.missing_values
    markers = [markers] if isinstance(markers, str) else list(markers or ())
    frame, _, _, _ = read_frame(data_path, sep=sep, decimal=decimal, markers=markers)
    header = [str(c) for c in frame.columns]
    features = [str(c) for c in schema.columns]
    absent = [c for c in features if c not in header]
    if absent:
        raise ValueError(f"{str(data_path)!r} has no column(s) {absent}; the model reads "
                         f"{features}.")
    predictions = bundle["pipeline"].predict(frame[features])
    kind = bundle.get("label_type") or ("float" if bundle.get("model") == "ridge" else "str")
    return bundle["target"], predictions, kind


def predict_command(args):
    """``skdpgd predict``: write the predictions (to ``--output`` or standard output)."""
    target, predictions, kind = predict_csv(args.model, args.data, args.sep, args.decimal)
    if args.output is None:
        write_predictions(sys.stdout, target, predictions, kind)
        return
    with open(args.output, "w", newline="") as handle:
        write_predictions(handle, target, predictions, kind)
    print(f"skdpgd predict: wrote the predictions of {args.model} on {args.data} "
          f"(column {target!r}) to {args.output}")
